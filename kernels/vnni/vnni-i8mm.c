/* vnni-i8mm.c - VNNI_INT2 / VNNI_INT1 (seed 003 §III) with the Armv8.6 int8
 * matrix multiply: vnni-arm.h's smmla path for token pairs (2 rows x 8 k times
 * 8 k x 2 tokens per instruction), sdot for a lone last token.  Bit for bit
 * equal to the scalar path. */
#include "vnni-arm.h"

void mp_vnni_int2_gemm__i8mm(const mp_op *op, const void *act, int n, float *y, int m0,
                             int m1, void *scratch)
{
    (void)scratch;
    vnni_arm_gemm(op, act, n, y, m0, m1, 0);
}

void mp_vnni_int1_gemm__i8mm(const mp_op *op, const void *act, int n, float *y, int m0,
                             int m1, void *scratch)
{
    (void)scratch;
    vnni_arm_gemm(op, act, n, y, m0, m1, 1);
}
