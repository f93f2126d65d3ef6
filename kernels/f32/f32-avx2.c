/* f32-avx2.c - F32 with AVX2 FMA: four rows share each activation load; K
 * tails are handled by a scalar loop.  Streaming 4 bytes per weight, this path
 * is the memory-bound yardstick of the float baselines. */
#include <immintrin.h>

#include "f32.h"

static inline float hsum(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
}

void mp_f32_gemm__avx2(const mp_op *op, const void *act, int n, float *y, int m0,
                       int m1, void *scratch)
{
    (void)scratch;
    const int k = op->k, kv = k - k % 8;
    const float *x = mp_f32_act_x(act);
    const float *w = (const float *)op->w;
    for (int r = m0; r < m1; r += 4) {
        int R = m1 - r < 4 ? m1 - r : 4;
        for (int t = 0; t < n; t++) {
            const float *xt = x + (size_t)t * k;
            __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
            for (int i = 0; i < kv; i += 8) {
                __m256 a = _mm256_loadu_ps(xt + i);
                for (int j = 0; j < R; j++)
                    acc[j] = _mm256_fmadd_ps(_mm256_loadu_ps(w + (size_t)(r + j) * k + i), a, acc[j]);
            }
            for (int j = 0; j < R; j++) {
                float s = hsum(acc[j]);
                for (int i = kv; i < k; i++)
                    s += w[(size_t)(r + j) * k + i] * xt[i];
                y[(size_t)t * op->m + r + j] = s;
            }
        }
    }
}
