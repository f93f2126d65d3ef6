/* q4_0-avx2.c - Q4_0 x Q8_0 with AVX2 (llama.cpp's 4-bit baseline, our own
 * kernel; layout in q4_0.h, summation order in q8_0.h).
 *
 * Nibbles are expanded to 32 unsigned bytes (low nibbles = weights 0-15, high =
 * 16-31) and multiplied with vpmaddubsw (pairs <= 2*15*127, no saturation); the
 * -8 offset is removed per int32 lane with 8 * sum(q), computed once per block
 * and shared by the four rows.  Each lane is the exact sum(w * q) of its four
 * weights, scaled and accumulated in float as the scalar path does. */
#include <immintrin.h>

#include "q4_0.h"
#include "../common/mp_rows4.h"
#include "../common/mp_x86.h"

enum { PF_BYTES = 8192 };

/* c = 8 * (sum of the 4 activations of each int32 lane). */
static inline __m256i offset8(__m256i a)
{
    return _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(8), a), _mm256_set1_epi16(1));
}

static inline __m256 block_term(const uint8_t *blk, __m256i a, __m256i c, float dx)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(blk + 2));
    __m256i nib = _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(v, 4), v), _mm256_set1_epi8(15));
    __m256i p = _mm256_madd_epi16(_mm256_maddubs_epi16(nib, a), _mm256_set1_epi16(1));
    p = _mm256_sub_epi32(p, c);
    return _mm256_mul_ps(_mm256_cvtepi32_ps(p), _mm256_set1_ps(mp_x86_half_at(blk) * dx));
}

static inline void rows4(const uint8_t *const *wr, const uint8_t *pf0, size_t step,
                         const void *act, int k, int t, int prefetch, float *out)
{
    const float *dx = mp_q80act_d(act, k, t);
    const int8_t *qx = mp_q80act_q(act, k, t);
    const int nb = k / MP_Q40_QK;
    __m256 ea[4], oa[4];
    for (int i = 0; i < 4; i++)
        ea[i] = oa[i] = _mm256_setzero_ps();
    int b = 0;
    for (; b + 2 <= nb; b += 2) {
        mp_x86_prefetch_unit(pf0, (size_t)b / 2, 2 * step, prefetch);
        __m256i a0 = _mm256_loadu_si256((const __m256i *)(qx + 32 * b));
        __m256i a1 = _mm256_loadu_si256((const __m256i *)(qx + 32 * b + 32));
        __m256i c0 = offset8(a0), c1 = offset8(a1);
        for (int i = 0; i < 4; i++) {
            const uint8_t *blk = wr[i] + (size_t)b * MP_Q40_BYTES;
            ea[i] = _mm256_add_ps(ea[i], block_term(blk, a0, c0, dx[b]));
            oa[i] = _mm256_add_ps(oa[i], block_term(blk + MP_Q40_BYTES, a1, c1, dx[b + 1]));
        }
    }
    if (b < nb) {
        __m256i a0 = _mm256_loadu_si256((const __m256i *)(qx + 32 * b));
        __m256i c0 = offset8(a0);
        for (int i = 0; i < 4; i++)
            ea[i] = _mm256_add_ps(ea[i], block_term(wr[i] + (size_t)b * MP_Q40_BYTES, a0, c0, dx[b]));
    }
    for (int i = 0; i < 4; i++)
        out[i] = mp_x86_fold2x8(ea[i], oa[i]);
}

/* Contract: K % 32 == 0, rows [m0, m1), all N tokens; no over-reads. */
void mp_q4_0_gemm__avx2(const mp_op *op, const void *act, int n, float *y, int m0,
                        int m1, void *scratch)
{
    (void)scratch;
    const size_t row_bytes = (size_t)(op->k / MP_Q40_QK) * MP_Q40_BYTES;
    mp_rows4_gemm(op, act, n, y, m0, m1, row_bytes, MP_Q40_BYTES, PF_BYTES, 1, rows4, rows4);
}
