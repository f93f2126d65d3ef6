/* tq1_0-avx512.c - TQ1_0 x Q8_K with AVX-512BW (layout and arithmetic in tq.h;
 * trit extraction as in tq1_0-avx2.c: s_{n+1} = 3 s_n on signed-rep bytes,
 * trit = (s > -43) + (s > 42), here with mask compares).  A block's 256 trits
 * are arranged in four 64-byte planes that each line up with 64 consecutive
 * activations:
 *   [s_A, 3 s_A]            -> q[0..63]     (qs[0..31], trits 0, 1)
 *   [9 s_A, 27 s_A]         -> q[64..127]   (trits 2, 3)
 *   [81 s_A, s_B, 3 s_B]    -> q[128..191]  (trit 4; qs[32..47] trits 0, 1)
 *   [9 s_B, 27 s_B, 81 s_B, qh] -> q[192..255]
 * int16 lanes: 4 planes x 508 minus a bsum, far from overflow. */
#include <immintrin.h>

#include "tq.h"
#include "../common/mp_x86.h"
#include "tq1_0-x86.h"

static inline __m512i mul3(__m512i s)
{
    return _mm512_add_epi8(s, _mm512_add_epi8(s, s));
}

static inline __m512i trits(__m512i s)
{
    const __m512i one = _mm512_set1_epi8(1);
    __m512i c = _mm512_maskz_mov_epi8(_mm512_cmpgt_epi8_mask(s, _mm512_set1_epi8(-43)), one);
    return _mm512_mask_add_epi8(c, _mm512_cmpgt_epi8_mask(s, _mm512_set1_epi8(42)), c, one);
}

static inline __m512i join(__m256i lo, __m256i hi)
{
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

static inline __m512i block16(const uint8_t *blk, const __m512i *q)
{
    const __m256i flip = _mm256_set1_epi8((char)0x80);
    __m256i sa = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)blk), flip);
    __m512i z = join(sa, mul3y(sa));                        /* trits 0 | 1 */
    __m512i p = _mm512_maddubs_epi16(trits(z), q[0]);
    z = mul3(mul3(z));                                      /* trits 2 | 3 */
    p = _mm512_add_epi16(p, _mm512_maddubs_epi16(trits(z), q[1]));
    __m256i sa81 = mul3y(_mm512_extracti64x4_epi64(z, 1));  /* trit 4 */
    __m128i sb = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(blk + 32)), _mm256_castsi256_si128(flip));
    __m256i vb = _mm256_set_m128i(mul3x(sb), sb);           /* B trits 0 | 1 */
    p = _mm512_add_epi16(p, _mm512_maddubs_epi16(trits(join(sa81, vb)), q[2]));
    __m256i vb9 = mul3y(mul3y(vb));                         /* B trits 2 | 3 */
    __m128i sb81 = mul3x(_mm256_extracti128_si256(vb9, 1)); /* B trit 4 */
    uint32_t qh;
    memcpy(&qh, blk + 48, 4);
    __m128i hv = qh_plane(qh);
    __m512i t = join(vb9, _mm256_set_m128i(hv, sb81));
    return _mm512_add_epi16(p, _mm512_maddubs_epi16(trits(t), q[3]));
}

static inline void load_q(const mp_block_q8_K *a, __m512i *q)
{
    for (int j = 0; j < 4; j++)
        q[j] = _mm512_loadu_si512((const void *)(a->qs + 64 * j));
}

#define TQ_BYTES MP_TQ1_BYTES
#define TQ_GEMM mp_tq1_0_gemm__avx512
#include "tq-x86.h"
