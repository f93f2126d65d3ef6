/* vnni-dotprod.c - VNNI_INT2 / VNNI_INT1 (seed 003 §III) with the Armv8.2 dot
 * product: vnni-arm.h's sdot path (by-lane sdot on the VNNI4 vectors unpacked
 * from the shared tiles).  Bit for bit equal to the scalar path. */
#include "vnni-arm.h"

void mp_vnni_int2_gemm__dotprod(const mp_op *op, const void *act, int n, float *y, int m0,
                                int m1, void *scratch)
{
    (void)scratch;
    vnni_arm_gemm(op, act, n, y, m0, m1, 0);
}

void mp_vnni_int1_gemm__dotprod(const mp_op *op, const void *act, int n, float *y, int m0,
                                int m1, void *scratch)
{
    (void)scratch;
    vnni_arm_gemm(op, act, n, y, m0, m1, 1);
}
