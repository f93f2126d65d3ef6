/* tq1_0-neon.c - TQ1_0 on Armv8.0 NEON: tq1_0-arm.h with the dot step as smull/smlal2/sadalp.
 * Bit for bit equal to the scalar path. */
#include "tq1_0-arm.h"

void mp_tq1_0_gemm__neon(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                       void *scratch)
{
    (void)scratch;
    tq1_arm_gemm(op, act, n, y, m0, m1);
}
