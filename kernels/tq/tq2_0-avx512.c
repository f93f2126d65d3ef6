/* tq2_0-avx512.c - TQ2_0 x Q8_K with AVX-512BW (layout and arithmetic in
 * tq.h).  A whole 64-byte code block is one register: its four 2-bit planes
 * line up with activations (32n..32n+31 | 128+32n..) that are joined once per
 * block and shared by four rows, halving the AVX2 path's instruction count.
 * int16 lanes: 4 products of at most 508, minus a bsum: < 32767.  The per-block
 * int32 sums of four rows are reduced together and scaled as one float4, lane
 * by lane the scalar path's operations. */
#include <immintrin.h>

#include "tq.h"
#include "../common/mp_x86.h"

static inline __m512i join(const int8_t *lo, const int8_t *hi)
{
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)lo)),
                              _mm256_loadu_si256((const __m256i *)hi), 1);
}

/* the halves of 64 activations j and j + 128 (one 64-byte weight load covers
 * both halves of the block) */
static inline void load_q(const mp_block_q8_K *a, __m512i *q)
{
    for (int j = 0; j < 4; j++)
        q[j] = join(a->qs + 32 * j, a->qs + 128 + 32 * j);
}

static inline __m512i block16(const uint8_t *blk, const __m512i *q)
{
    const __m512i mask = _mm512_set1_epi8(3);
    __m512i v = _mm512_loadu_si512((const void *)blk);
    __m512i p = _mm512_maddubs_epi16(_mm512_and_si512(v, mask), q[0]);
    for (int m = 1; m < 4; m++)
        p = _mm512_add_epi16(
            p, _mm512_maddubs_epi16(_mm512_and_si512(_mm512_srli_epi16(v, 2 * m), mask), q[m]));
    return p;
}

#define TQ_BYTES MP_TQ2_BYTES
#define TQ_GEMM mp_tq2_0_gemm__avx512
#include "tq-x86.h"
