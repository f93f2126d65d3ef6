/* tq1_0-dotprod.c - TQ1_0 on the Armv8.2 dot product: tq1_0-arm.h with one sdot per 16 trits.
 * Bit for bit equal to the scalar path. */
#include "tq1_0-arm.h"

void mp_tq1_0_gemm__dotprod(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                       void *scratch)
{
    (void)scratch;
    tq1_arm_gemm(op, act, n, y, m0, m1);
}
