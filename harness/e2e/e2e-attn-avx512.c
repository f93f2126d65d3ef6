/* e2e-attn-avx512.c - the attention loops (harness/e2e-attn-simd.h) built with
 * the AVX-512 flags: one register per 16-lane vector, 16 keys at a time (32
 * registers); the same bits as the portable copy. */
#define MP_ATTN_FN(name) name##__avx512
#define MP_ATTN_KEYS 16
#include "e2e-attn-simd.h"
