/* q8_0-dotprod.c - Q8_0 on the Armv8.2 dot product: q8_0-arm.h with one sdot per 16 bytes.
 * Bit for bit equal to the scalar path. */
#include "q8_0-arm.h"

void mp_q8_0_gemm__dotprod(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                      void *scratch)
{
    (void)scratch;
    q8_0_arm_gemm(op, act, n, y, m0, m1);
}
