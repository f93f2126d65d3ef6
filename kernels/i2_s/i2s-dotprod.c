/* i2s-dotprod.c - I2_S with the Armv8.2 dot-product extension: the kernel of
 * i2s-arm.h with the dot step as one sdot per 16 code/activation pairs.  Bit for
 * bit equal to the scalar path. */
#include "i2s-arm.h"

void mp_i2s_gemm__dotprod(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                          void *scratch)
{
    (void)scratch;
    i2s_arm_gemm(op, act, n, y, m0, m1);
}
