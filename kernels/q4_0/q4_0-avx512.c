/* q4_0-avx512.c - Q4_0 x Q8_0 with AVX-512BW (layout in q4_0.h, summation
 * order in q8_0.h).  Two blocks per register: the two 16-byte nibble arrays are
 * spread to [qs_b, qs_b, qs_b+1, qs_b+1], the upper copy of each shifted down a
 * nibble, giving the 64 weights in order; even-block lanes land in float lanes
 * 0-7 and odd-block lanes in 8-15, as in the scalar 16-lane accumulator. */
#include <immintrin.h>

#include "q4_0.h"
#include "../common/mp_rows4.h"
#include "../common/mp_x86.h"

enum { PF_BYTES = 8192 };

static __attribute__((noinline)) void rows4(const uint8_t *const *wr, const uint8_t *pf0, size_t step,
                         const void *act, int k, int t, int prefetch, float *out)
{
    const float *dx = mp_q80act_d(act, k, t);
    const int8_t *qx = mp_q80act_q(act, k, t);
    const int nb = k / MP_Q40_QK;
    const __m512i ones = _mm512_set1_epi16(1), m15 = _mm512_set1_epi8(15);
    const __m512i spread = _mm512_set_epi64(3, 2, 3, 2, 1, 0, 1, 0);
    __m512 acc[4];
    for (int i = 0; i < 4; i++)
        acc[i] = _mm512_setzero_ps();
    int b = 0;
    for (; b + 2 <= nb; b += 2) {
        mp_x86_prefetch_unit(pf0, (size_t)b / 2, 2 * step, prefetch);
        __m512i a = _mm512_loadu_si512((const void *)(qx + 32 * b));
        __m512i c = _mm512_madd_epi16(_mm512_maddubs_epi16(_mm512_set1_epi8(8), a), ones);
        for (int i = 0; i < 4; i++) {
            const uint8_t *blk = wr[i] + (size_t)b * MP_Q40_BYTES;
            __m256i v = _mm256_set_m128i(_mm_loadu_si128((const __m128i *)(blk + MP_Q40_BYTES + 2)),
                                         _mm_loadu_si128((const __m128i *)(blk + 2)));
            __m512i x = _mm512_permutexvar_epi64(spread, _mm512_castsi256_si512(v));
            x = _mm512_mask_srli_epi16(x, 0xff00ff00u, x, 4);
            __m512i p = _mm512_madd_epi16(_mm512_maddubs_epi16(_mm512_and_si512(x, m15), a), ones);
            p = _mm512_sub_epi32(p, c);
            __m512 d = _mm512_insertf32x8(
                _mm512_castps256_ps512(_mm256_set1_ps(mp_x86_half_at(blk) * dx[b])),
                _mm256_set1_ps(mp_x86_half_at(blk + MP_Q40_BYTES) * dx[b + 1]), 1);
            acc[i] = _mm512_add_ps(acc[i], _mm512_mul_ps(_mm512_cvtepi32_ps(p), d));
        }
    }
    if (b < nb) { /* odd block count: the last (even) block into lanes 0-7 only */
        __m256i a = _mm256_loadu_si256((const __m256i *)(qx + 32 * b));
        __m256i c = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(8), a),
                                      _mm256_set1_epi16(1));
        for (int i = 0; i < 4; i++) {
            const uint8_t *blk = wr[i] + (size_t)b * MP_Q40_BYTES;
            __m128i v = _mm_loadu_si128((const __m128i *)(blk + 2));
            __m256i nib = _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(v, 4), v),
                                           _mm256_set1_epi8(15));
            __m256i p = _mm256_sub_epi32(
                _mm256_madd_epi16(_mm256_maddubs_epi16(nib, a), _mm256_set1_epi16(1)), c);
            __m256 t = _mm256_mul_ps(_mm256_cvtepi32_ps(p), _mm256_set1_ps(mp_x86_half_at(blk) * dx[b]));
            acc[i] = _mm512_mask_add_ps(acc[i], 0x00ff, acc[i], _mm512_castps256_ps512(t));
        }
    }
    for (int i = 0; i < 4; i++)
        out[i] = mp_x86_fold16(acc[i]);
}

/* Contract: K % 32 == 0, rows [m0, m1), all N tokens; no over-reads. */
void mp_q4_0_gemm__avx512(const mp_op *op, const void *act, int n, float *y, int m0,
                          int m1, void *scratch)
{
    (void)scratch;
    const size_t row_bytes = (size_t)(op->k / MP_Q40_QK) * MP_Q40_BYTES;
    mp_rows4_gemm(op, act, n, y, m0, m1, row_bytes, MP_Q40_BYTES, PF_BYTES, 1, rows4, rows4);
}
