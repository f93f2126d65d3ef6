/* q8_0-avx2.c - Q8_0 x Q8_0 with AVX2 (llama.cpp's 8-bit baseline, our own
 * kernel; layout and summation order in q8_0.h).
 *
 * Four rows share each activation load.  Per block: the sign trick turns the
 * signed x signed product into vpmaddubsw's unsigned x signed (|w| * sign(w)q;
 * pairs <= 2*127*127 = 32258, no saturation), vpmaddwd gives the 8 exact int32
 * lanes, which are scaled by dw*dx in float and added to the even- or
 * odd-block accumulator: lane for lane the scalar path's operations, without a
 * horizontal sum per block (llama.cpp's own trick). */
#include <immintrin.h>

#include "q8_0.h"
#include "../common/mp_rows4.h"
#include "../common/mp_x86.h"

enum { PF_BYTES = 8192 };

static inline __m256 block_term(const uint8_t *blk, __m256i a, float dx)
{
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i w = _mm256_loadu_si256((const __m256i *)(blk + 2));
    __m256i p = _mm256_madd_epi16(
        _mm256_maddubs_epi16(_mm256_sign_epi8(w, w), _mm256_sign_epi8(a, w)), ones);
    return _mm256_mul_ps(_mm256_cvtepi32_ps(p), _mm256_set1_ps(mp_x86_half_at(blk) * dx));
}

static inline void rows4(const uint8_t *const *wr, const uint8_t *pf0, size_t step,
                         const void *act, int k, int t, int prefetch, float *out)
{
    const float *dx = mp_q80act_d(act, k, t);
    const int8_t *qx = mp_q80act_q(act, k, t);
    const int nb = k / MP_Q80_QK;
    __m256 ea[4], oa[4];
    for (int i = 0; i < 4; i++)
        ea[i] = oa[i] = _mm256_setzero_ps();
    int b = 0;
    for (; b + 2 <= nb; b += 2) {
        mp_x86_prefetch_unit(pf0, (size_t)b / 2, 2 * step, prefetch);
        __m256i a0 = _mm256_loadu_si256((const __m256i *)(qx + 32 * b));
        __m256i a1 = _mm256_loadu_si256((const __m256i *)(qx + 32 * b + 32));
        for (int i = 0; i < 4; i++) {
            const uint8_t *blk = wr[i] + (size_t)b * MP_Q80_BYTES;
            ea[i] = _mm256_add_ps(ea[i], block_term(blk, a0, dx[b]));
            oa[i] = _mm256_add_ps(oa[i], block_term(blk + MP_Q80_BYTES, a1, dx[b + 1]));
        }
    }
    if (b < nb) {
        __m256i a0 = _mm256_loadu_si256((const __m256i *)(qx + 32 * b));
        for (int i = 0; i < 4; i++)
            ea[i] = _mm256_add_ps(ea[i], block_term(wr[i] + (size_t)b * MP_Q80_BYTES, a0, dx[b]));
    }
    for (int i = 0; i < 4; i++)
        out[i] = mp_x86_fold2x8(ea[i], oa[i]);
}

/* Contract: K % 32 == 0, rows [m0, m1), all N tokens; no over-reads (the
 * prefetches may point past the rows: harmless). */
void mp_q8_0_gemm__avx2(const mp_op *op, const void *act, int n, float *y, int m0,
                        int m1, void *scratch)
{
    (void)scratch;
    const size_t row_bytes = (size_t)(op->k / MP_Q80_QK) * MP_Q80_BYTES;
    mp_rows4_gemm(op, act, n, y, m0, m1, row_bytes, MP_Q80_BYTES, PF_BYTES, 1, rows4, rows4);
}
