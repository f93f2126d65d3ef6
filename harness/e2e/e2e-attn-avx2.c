/* e2e-attn-avx2.c - the attention loops (harness/e2e-attn-simd.h) built with
 * the AVX2 flags; the same bits as the portable copy. */
#define MP_ATTN_FN(name) name##__avx2
#include "e2e-attn-simd.h"
