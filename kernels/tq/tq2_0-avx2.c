/* tq2_0-avx2.c - TQ2_0 x Q8_K with AVX2 (llama.cpp's ternary 2-bit baseline,
 * our own kernel; layout and arithmetic in tq.h), over the row-group loop
 * tq-x86.h.  A block's two 32-byte code vectors are split by shift/and into
 * eight planes, each lining up with 32 consecutive activations, and multiplied
 * with vpmaddubsw (unsigned code 0..2 x signed q).  int16 lanes: 8 products of at
 * most 2*2*127 = 508 give 4064, minus a bsum (|bsum| <= 2032), inside 32767.
 *
 * The eight activation vectors stay in registers across the four rows, so the
 * row loop is kept rolled (TQ_ROW_UNROLL 1): unrolled, gcc runs out of the 16 ymm
 * registers and spills (the template's default unroll ran this path 1.16-1.61x
 * slower, 2026-11-27, Xeon VM). */
#include <immintrin.h>

#include "tq.h"

/* the block's 256 activations, 32 per vector */
static inline void load_q(const mp_block_q8_K *a, __m256i *q)
{
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++)
        q[j] = _mm256_loadu_si256((const __m256i *)(a->qs + 32 * j));
}

/* plane m of the half h lines up with activations 128h + 32m .. +31 */
static inline __m256i block16(const uint8_t *blk, const __m256i *q)
{
    const __m256i mask = _mm256_set1_epi8(3);
    __m256i p = _mm256_setzero_si256();
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(blk + 32 * h));
#pragma GCC unroll 4
        for (int m = 0; m < 4; m++)
            p = _mm256_add_epi16(p, _mm256_maddubs_epi16(
                                        _mm256_and_si256(_mm256_srli_epi16(v, 2 * m), mask),
                                        q[4 * h + m]));
    }
    return p;
}

#define TQ_BYTES MP_TQ2_BYTES
#define TQ_GEMM mp_tq2_0_gemm__avx2
#define TQ_ROW_UNROLL 1
#include "tq-x86.h"
