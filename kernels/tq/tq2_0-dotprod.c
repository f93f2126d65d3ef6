/* tq2_0-dotprod.c - TQ2_0 with the Armv8.2 dot-product extension: tq2_0-arm.h
 * with the dot step as one sdot.  Bit for bit equal to the scalar path. */
#include "tq2_0-arm.h"

void mp_tq2_0_gemm__dotprod(const mp_op *op, const void *act, int n, float *y, int m0,
                            int m1, void *scratch)
{
    (void)scratch;
    tq2_arm_gemm(op, act, n, y, m0, m1);
}
