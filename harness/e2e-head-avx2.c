/* e2e-head-avx2.c - the head's loops (harness/e2e-head-simd.h) built with the
 * AVX2 flags; the same bits as the portable copy. */
#define MP_HEAD_FN(name) name##__avx2
#include "e2e-head-simd.h"
