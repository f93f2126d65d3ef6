/* tq2_0-avx2.c - TQ2_0 x Q8_K with AVX2 (llama.cpp's ternary 2-bit baseline,
 * our own kernel; layout and arithmetic in tq.h).
 *
 * Four rows at a time share each activation load.  Per 256-weight block a row's
 * two 32-byte code vectors are split by shift/and into four planes, each lining
 * up with 32 consecutive activations, and multiplied with vpmaddubsw (unsigned
 * code 0..2 x signed q).  int16 lanes stay small: 8 products of at most
 * 2*2*127 = 508 give 4064, minus a bsum (|bsum| <= 2032), well inside 32767.
 * The Q8_K bsums turn sum(code * q) into sum(w * q).  The four rows' block sums
 * are reduced together (hadd) and scaled as one 4-lane float vector, which is
 * the scalar arithmetic lane by lane: exact int32 dot, then acc + dot * (dw*dx). */
#include <immintrin.h>

#include "tq.h"
#include "../common/mp_x86.h"

/* out[i] for the 4 row pointers wr[] (duplicates allowed) and one token. */

#define VI __m256i
#define NQ 8
#define MADD_ONES(v) _mm256_madd_epi16((v), _mm256_set1_epi16(1))
#define VSUB16(a, b) _mm256_sub_epi16((a), (b))
#define HSUM4(a, b, c, d) mp_x86_hsum4_epi32((a), (b), (c), (d))

static inline void load_q(const mp_block_q8_K *a, __m256i *q)
{
    for (int j = 0; j < 8; j++)
        q[j] = _mm256_loadu_si256((const __m256i *)(a->qs + 32 * j));
}

static inline __m256i load_bsums(const mp_block_q8_K *a)
{
    return _mm256_loadu_si256((const __m256i *)a->bsums);
}

/* sum(code * q) over one block in int16 lanes: byte j of the two 32-byte halves
 * holds the codes of weights j + 32 m (bits 2m+1..2m) of half h */
static inline __m256i block16(const uint8_t *blk, const __m256i *q)
{
    const __m256i mask = _mm256_set1_epi8(3);
    __m256i p = _mm256_setzero_si256();
    for (int h = 0; h < 2; h++) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(blk + 32 * h));
        p = _mm256_add_epi16(p, _mm256_maddubs_epi16(_mm256_and_si256(v, mask), q[4 * h]));
        for (int m = 1; m < 4; m++)
            p = _mm256_add_epi16(p, _mm256_maddubs_epi16(
                                        _mm256_and_si256(_mm256_srli_epi16(v, 2 * m), mask),
                                        q[4 * h + m]));
    }
    return p;
}

#define TQ_BYTES MP_TQ2_BYTES
#define TQ_GEMM mp_tq2_0_gemm__avx2
#include "tq-x86.h"
