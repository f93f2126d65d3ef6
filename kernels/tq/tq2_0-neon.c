/* tq2_0-neon.c - TQ2_0 on Armv8.0 NEON: tq2_0-arm.h with the dot step as
 * smull/smlal2/sadalp.  Bit for bit equal to the scalar path. */
#include "tq2_0-arm.h"

void mp_tq2_0_gemm__neon(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                         void *scratch)
{
    (void)scratch;
    tq2_arm_gemm(op, act, n, y, m0, m1);
}
