/* e2e-head-avx512.c - the head's loops (harness/e2e-head-simd.h) built with the
 * AVX-512 flags; the same bits as the portable copy. */
#define MP_HEAD_FN(name) name##__avx512
#include "e2e-head-simd.h"
