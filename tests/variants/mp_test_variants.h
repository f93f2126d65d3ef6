/* mp_test_variants.h - kernels that exist only in test builds (build/mptest and
 * build/mpbench-test): the regression gate's canary and a variant that computes
 * wrong results on purpose.  The product's registry never sees them. */
#ifndef MP_TEST_VARIANTS_H
#define MP_TEST_VARIANTS_H

#include "../../kernels/mp_kernel.h"

/* I2_S AVX2 plus $MPBENCH_TEST_SLOWDOWN % of its rows a second time. */
void mp_regress_gemm__avx2(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                           void *scratch);
/* I2_S scalar with one output of every row range off by one ulp-sized step. */
void mp_wrong_gemm__scalar(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                           void *scratch);

#endif
