/* tq1_0-avx2.c - TQ1_0 x Q8_K with AVX2 (llama.cpp's 1.69-bpw ternary
 * baseline, our own kernel; layout and arithmetic in tq.h).
 *
 * Trit extraction without multiplies: trit n of a byte u is floor(3 u_n / 256)
 * with u_n = u * 3^n mod 256.  We keep s_n = u_n ^ 0x80 as a signed byte, for
 * which s_{n+1} = 3 s_n mod 256 as well (two byte adds), and the trit is
 * (s_n > -43) + (s_n > 42): two signed compares (u >= 86, u >= 171).  Each trit
 * plane lines up with 32 consecutive activations:
 *   qs[0..31]  : planes n = 0..4 -> q[32n .. 32n+31];
 *   qs[32..47] : [s, 3s] -> q[160..191], [9s, 27s] -> q[192..223];
 *   [81 s | qh] : q[224..255], where qh's byte j, trit m sits at byte 4m + j.
 * Codes 0..2 meet the activations in vpmaddubsw (8 planes x 508 < 32767 per
 * int16 lane, minus a bsum) and the Q8_K bsums turn sum(code*q) into sum(w*q).
 * The four rows' block sums are reduced and scaled together as in tq2_0-avx2.c:
 * lane by lane the scalar arithmetic. */
#include <immintrin.h>

#include "tq.h"
#include "../common/mp_x86.h"
#include "tq1_0-x86.h"

/* Codes 0..2 of the 32 signed-rep bytes s. */
static inline __m256i trits(__m256i s)
{
    __m256i t = _mm256_add_epi8(_mm256_cmpgt_epi8(s, _mm256_set1_epi8(-43)),
                                _mm256_cmpgt_epi8(s, _mm256_set1_epi8(42)));
    return _mm256_sub_epi8(_mm256_setzero_si256(), t);
}

/* sum(code * q) over one block, in int16 lanes. */
static inline __m256i block16(const uint8_t *blk, const __m256i *q)
{
    const __m256i flip = _mm256_set1_epi8((char)0x80);
    __m256i s = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)blk), flip);
    __m256i p = _mm256_maddubs_epi16(trits(s), q[0]);
    for (int n = 1; n < 5; n++) {
        s = mul3y(s);
        p = _mm256_add_epi16(p, _mm256_maddubs_epi16(trits(s), q[n]));
    }
    __m128i sb = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(blk + 32)), _mm256_castsi256_si128(flip));
    __m128i sb3 = mul3x(sb);
    __m256i v = _mm256_set_m128i(sb3, sb);                 /* trits 0 | 1 */
    p = _mm256_add_epi16(p, _mm256_maddubs_epi16(trits(v), q[5]));
    v = mul3y(mul3y(v));                                     /* trits 2 | 3 */
    p = _mm256_add_epi16(p, _mm256_maddubs_epi16(trits(v), q[6]));
    __m128i sb81 = mul3x(_mm256_extracti128_si256(v, 1));  /* 27 s * 3: trit 4 */
    uint32_t qh;
    memcpy(&qh, blk + 48, 4);
    __m128i hv = qh_plane(qh);
    v = _mm256_set_m128i(hv, sb81);
    return _mm256_add_epi16(p, _mm256_maddubs_epi16(trits(v), q[7]));
}

static inline void load_q(const mp_block_q8_K *a, __m256i *q)
{
    for (int j = 0; j < 8; j++)
        q[j] = _mm256_loadu_si256((const __m256i *)(a->qs + 32 * j));
}

#define TQ_BYTES MP_TQ1_BYTES
#define TQ_GEMM mp_tq1_0_gemm__avx2
#include "tq-x86.h"
