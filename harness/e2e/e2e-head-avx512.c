/* e2e-head-avx512.c - the head's dot products (harness/e2e-head-simd.h) built
 * with the AVX-512 flags: four f16 rows at once (their 16 accumulators fit the
 * 32 registers); the integer steps as in the AVX2 copy.  The same bits as the
 * portable copy. */
#define MP_HEAD_FN(name) name##__avx512
#define MP_HEAD_ROWS 4
#include "e2e-head-simd.h"
