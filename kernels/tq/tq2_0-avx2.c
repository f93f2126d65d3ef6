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
 * the scalar arithmetic lane by lane: exact int32 dot, then acc + dot * (dw*dx).
 *
 * Written out, not over tq-x86.h as tq1_0-avx2.c and tq2_0-avx512.c are: on the
 * template this path ran 1.16-1.30x slower at N = 1 and 1.32-1.61x at N = 128
 * (2026-11-27, Xeon VM, 3 alternations, cold; with prefetch fixed), its 8
 * activation vectors per block kept in memory between the four rows. */
#include <immintrin.h>

#include "tq.h"

enum { PF_BYTES = 8192 }; /* software prefetch distance along the row group */

/* Four int32x8 vectors -> their four horizontal sums in one int32x4. */
static inline __m128i hsum4(__m256i a, __m256i b, __m256i c, __m256i d)
{
    __m256i ab = _mm256_hadd_epi32(a, b), cd = _mm256_hadd_epi32(c, d);
    __m256i s = _mm256_hadd_epi32(ab, cd); /* [a b c d | a b c d] partials */
    return _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
}

static inline __m128 load_d4(const uint8_t *const *wr, size_t off)
{
    uint16_t h[4];
    for (int i = 0; i < 4; i++)
        memcpy(&h[i], wr[i] + off + MP_TQ2_BYTES - 2, 2);
    return _mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)h));
}

/* out[i] for the 4 row pointers wr[] (duplicates allowed) and one token. */
static inline void rows4(const uint8_t *const *wr, const uint8_t *pf0, size_t step,
                         const mp_block_q8_K *a, int nb, int prefetch, float *out)
{
    const __m256i mask = _mm256_set1_epi8(3), ones = _mm256_set1_epi16(1);
    __m128 acc = _mm_setzero_ps();
    for (int b = 0; b < nb; b++) {
        if (prefetch) {
            /* the group's rows are one contiguous span; walking them in parallel
             * defeats the hardware prefetcher, so fetch ahead at the rate of use */
            const char *pf = (const char *)pf0 + (size_t)b * step;
            for (size_t o = 0; o < step; o += 64)
                _mm_prefetch(pf + o, _MM_HINT_T0);
        }
        const int8_t *q = a[b].qs;
        __m256i q0 = _mm256_loadu_si256((const __m256i *)q);
        __m256i q1 = _mm256_loadu_si256((const __m256i *)(q + 32));
        __m256i q2 = _mm256_loadu_si256((const __m256i *)(q + 64));
        __m256i q3 = _mm256_loadu_si256((const __m256i *)(q + 96));
        __m256i q4 = _mm256_loadu_si256((const __m256i *)(q + 128));
        __m256i q5 = _mm256_loadu_si256((const __m256i *)(q + 160));
        __m256i q6 = _mm256_loadu_si256((const __m256i *)(q + 192));
        __m256i q7 = _mm256_loadu_si256((const __m256i *)(q + 224));
        __m256i bs = _mm256_loadu_si256((const __m256i *)a[b].bsums);
        __m256i s[4];
        const size_t off = (size_t)b * MP_TQ2_BYTES;
        for (int i = 0; i < 4; i++) {
            __m256i v0 = _mm256_loadu_si256((const __m256i *)(wr[i] + off));
            __m256i v1 = _mm256_loadu_si256((const __m256i *)(wr[i] + off + 32));
            __m256i p = _mm256_maddubs_epi16(_mm256_and_si256(v0, mask), q0);
            p = _mm256_add_epi16(p, _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(v0, 2), mask), q1));
            p = _mm256_add_epi16(p, _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(v0, 4), mask), q2));
            p = _mm256_add_epi16(p, _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(v0, 6), mask), q3));
            p = _mm256_add_epi16(p, _mm256_maddubs_epi16(_mm256_and_si256(v1, mask), q4));
            p = _mm256_add_epi16(p, _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(v1, 2), mask), q5));
            p = _mm256_add_epi16(p, _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(v1, 4), mask), q6));
            p = _mm256_add_epi16(p, _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(v1, 6), mask), q7));
            s[i] = _mm256_madd_epi16(_mm256_sub_epi16(p, bs), ones);
        }
        __m128 dot = _mm_cvtepi32_ps(hsum4(s[0], s[1], s[2], s[3]));
        __m128 db = _mm_mul_ps(load_d4(wr, off), _mm_set1_ps(a[b].d));
        acc = _mm_add_ps(acc, _mm_mul_ps(dot, db));
    }
    _mm_storeu_ps(out, acc);
}

/* Contract: K % 256 == 0, rows [m0, m1), all N tokens; reads only the packed
 * rows and the Q8_K blocks (prefetches may point past them: harmless). */
void mp_tq2_0_gemm__avx2(const mp_op *op, const void *act, int n, float *y, int m0,
                         int m1, void *scratch)
{
    (void)scratch;
    const int k = op->k, nb = k / MP_QK_K;
    const size_t row_bytes = (size_t)nb * MP_TQ2_BYTES;
    for (int r = m0; r < m1; r += 4) {
        const int R = m1 - r < 4 ? m1 - r : 4;
        const uint8_t *wr[4];
        for (int i = 0; i < 4; i++) /* tail group: repeat the last row */
            wr[i] = op->w + (size_t)(r + (i < R ? i : R - 1)) * row_bytes;
        const size_t span = (size_t)R * row_bytes;
        const size_t ahead = span * ((PF_BYTES + span - 1) / span);
        float o[4];
        for (int t = 0; t < n; t++) {
            rows4(wr, wr[0] + ahead, (size_t)R * MP_TQ2_BYTES, mp_q8k_token(act, k, t), nb,
                  t == 0, o);
            for (int i = 0; i < R; i++)
                y[(size_t)t * op->m + r + i] = o[i];
        }
    }
}
