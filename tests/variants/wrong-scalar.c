/* wrong-scalar.c - WRONG_ON_PURPOSE, a test-only variant that is I2_S scalar
 * with its last output row of every call nudged by one float step.  It exists to
 * prove that the engine reports a wrong result as "failed", prints a one-line
 * command that re-runs exactly that point, and that the command reproduces it. */
#include <math.h>

#include "../../kernels/i2_s/i2s.h"
#include "mp_test_variants.h"

void mp_wrong_gemm__scalar(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                           void *scratch)
{
    mp_i2s_gemm__scalar(op, act, n, y, m0, m1, scratch);
    if (m1 == op->m && m1 > m0)
        for (int t = 0; t < n; t++) {
            float *v = &y[(size_t)t * op->m + (m1 - 1)];
            *v = nextafterf(*v, INFINITY);
        }
}
