/* i2s-neon.c - I2_S on Armv8.0 NEON: the kernel of i2s-arm.h with the dot step
 * as smull/smlal2/sadalp (no sdot on this level).  Bit for bit equal to the
 * scalar path. */
#include "i2s-arm.h"

void mp_i2s_gemm__neon(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                       void *scratch)
{
    (void)scratch;
    i2s_arm_gemm(op, act, n, y, m0, m1);
}
