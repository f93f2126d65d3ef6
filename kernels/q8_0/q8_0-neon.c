/* q8_0-neon.c - Q8_0 on Armv8.0 NEON: q8_0-arm.h with the lane sums by smull/saddlp/addp.
 * Bit for bit equal to the scalar path. */
#include "q8_0-arm.h"

void mp_q8_0_gemm__neon(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                      void *scratch)
{
    (void)scratch;
    q8_0_arm_gemm(op, act, n, y, m0, m1);
}
