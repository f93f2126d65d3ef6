/* e2e-attn-avx512.c - the attention loops (harness/e2e-attn-simd.h) built with
 * the AVX-512 flags: one register per 16-lane vector; the same bits as the
 * portable copy. */
#define MP_ATTN_FN(name) name##__avx512
#define MP_ATTN_KEYS 8
#include "e2e-attn-simd.h"
