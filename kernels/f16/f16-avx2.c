/* f16-avx2.c - F16 weights x float activations with AVX2 + F16C (llama.cpp's
 * F16 baseline, our own kernel; summation order in f16.h).
 *
 * Four rows share each activation load; per 16 weights a row converts two
 * 8-half vectors with vcvtph2ps and adds the products to its lanes 0-7 and
 * 8-15 with a multiply then an add (no FMA: the order and rounding are the
 * scalar path's, so the result is bit for bit the same).  Eight independent
 * add chains per token hide the add latency; the memory stream is the limit. */
#include <immintrin.h>

#include "f16.h"

enum { PF_BYTES = 8192 };

static inline float fold(__m256 a, __m256 b)
{
    __m256 s8 = _mm256_add_ps(a, b);
    __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
    __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
    return _mm_cvtss_f32(_mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1)));
}

static inline __m256 load_half8(const uint8_t *p)
{
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p));
}

static inline void rows4(const uint8_t *const *wr, const uint8_t *pf0, size_t step,
                         const float *x, int k, int prefetch, float *out)
{
    const int kv = k - k % 16;
    __m256 lo[4], hi[4];
    for (int i = 0; i < 4; i++)
        lo[i] = hi[i] = _mm256_setzero_ps();
    for (int j = 0; j < kv; j += 16) {
        if (prefetch) {
            const char *pf = (const char *)pf0 + (size_t)(j / 16) * step;
            for (size_t o = 0; o < step; o += 64)
                _mm_prefetch(pf + o, _MM_HINT_T0);
        }
        __m256 x0 = _mm256_loadu_ps(x + j), x1 = _mm256_loadu_ps(x + j + 8);
        for (int i = 0; i < 4; i++) {
            lo[i] = _mm256_add_ps(lo[i], _mm256_mul_ps(load_half8(wr[i] + 2 * (size_t)j), x0));
            hi[i] = _mm256_add_ps(hi[i], _mm256_mul_ps(load_half8(wr[i] + 2 * (size_t)j + 16), x1));
        }
    }
    for (int i = 0; i < 4; i++) {
        float s = fold(lo[i], hi[i]);
        for (int j = kv; j < k; j++) {
            uint16_t h;
            memcpy(&h, wr[i] + 2 * (size_t)j, 2);
            float p = _cvtsh_ss(h) * x[j];
            s = s + p;
        }
        out[i] = s;
    }
}

/* Contract: any K, rows [m0, m1), all N tokens; no over-reads. */
void mp_f16_gemm__avx2(const mp_op *op, const void *act, int n, float *y, int m0,
                       int m1, void *scratch)
{
    (void)scratch;
    const int k = op->k;
    const float *x = mp_f16_act_x(act);
    const size_t row_bytes = (size_t)k * 2;
    for (int r = m0; r < m1; r += 4) {
        const int R = m1 - r < 4 ? m1 - r : 4;
        const uint8_t *wr[4];
        for (int i = 0; i < 4; i++) /* tail group: repeat the last row */
            wr[i] = op->w + (size_t)(r + (i < R ? i : R - 1)) * row_bytes;
        const size_t span = (size_t)R * row_bytes;
        const size_t ahead = span * ((PF_BYTES + span - 1) / span);
        float o[4];
        for (int t = 0; t < n; t++) {
            rows4(wr, wr[0] + ahead, (size_t)R * 32, x + (size_t)t * k, k, t == 0, o);
            for (int i = 0; i < R; i++)
                y[(size_t)t * op->m + r + i] = o[i];
        }
    }
}
