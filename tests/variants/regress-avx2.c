/* regress-avx2.c - REGRESS_I2S, a test-only canary for the regression gate:
 * exactly I2_S with AVX2, except that it computes the first
 * $MPBENCH_TEST_SLOWDOWN percent of its rows a second time (read once, on the
 * first call).  Outputs stay bit-exact; only the time grows, by about that
 * percentage.  Injecting MPBENCH_TEST_SLOWDOWN=25 is how the tests prove that
 * `mpbench compare` flags a 25% slowdown, and that it does not without it. */
#include "../../kernels/common/mp_parse.h"
#include "../../kernels/i2_s/i2s.h"
#include "mp_test_variants.h"

static int slowdown_pct(void)
{
    static int pct = -1;
    if (pct < 0) {
        pct = (int)mp_env_long("MPBENCH_TEST_SLOWDOWN", 0); /* checked at start */
    }
    return pct;
}

void mp_regress_gemm__avx2(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                           void *scratch)
{
    mp_i2s_gemm__avx2(op, act, n, y, m0, m1, scratch);
    int extra = (int)((long)(m1 - m0) * slowdown_pct() / 100);
    /* whole passes for >= 100%, then the remainder, on rows already computed */
    while (extra > 0) {
        int rows = extra < m1 - m0 ? extra : m1 - m0;
        int end = m0 + ((rows + 3) & ~3);
        mp_i2s_gemm__avx2(op, act, n, y, m0, end < m1 ? end : m1, scratch);
        extra -= rows;
    }
}
