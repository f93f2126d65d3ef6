/* f16-avx512.c - F16 weights x float activations with AVX-512F (summation order
 * in f16.h).  A tile of four rows x up to four tokens: each 16-half chunk is
 * converted once (vcvtph2ps) and used by every token of the tile, so at N > 1
 * the conversion is amortized; 16 accumulators, one per (row, token), are the
 * scalar path's 16 lanes, updated with a multiply then an add (no FMA), so the
 * result equals the scalar path bit for bit. */
#include <immintrin.h>

#include "f16.h"

enum { PF_BYTES = 8192, TT = 4 /* tokens per tile */ };

static inline float fold(__m512 a)
{
    __m256 s8 = _mm256_add_ps(_mm512_castps512_ps256(a),
                              _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1)));
    __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
    __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
    return _mm_cvtss_f32(_mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1)));
}

/* T tokens (1..TT) starting at x, token stride k; out[t * 4 + i].  Always
 * inlined and called with a constant T so the accumulators live in registers. */
static inline __attribute__((always_inline)) void tile(const uint8_t *const *wr, const uint8_t *pf0, size_t step,
                        const float *x, int k, int T, int prefetch, float *out)
{
    const int kv = k - k % 16;
    __m512 acc[TT][4];
    for (int t = 0; t < TT; t++)
        for (int i = 0; i < 4; i++)
            acc[t][i] = _mm512_setzero_ps();
    for (int j = 0; j < kv; j += 16) {
        if (prefetch) {
            const char *pf = (const char *)pf0 + (size_t)(j / 16) * step;
            for (size_t o = 0; o < step; o += 64)
                _mm_prefetch(pf + o, _MM_HINT_T0);
        }
        __m512 w[4];
        for (int i = 0; i < 4; i++)
            w[i] = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(wr[i] + 2 * (size_t)j)));
        for (int t = 0; t < T; t++) {
            __m512 xv = _mm512_loadu_ps(x + (size_t)t * k + j);
            for (int i = 0; i < 4; i++)
                acc[t][i] = _mm512_add_ps(acc[t][i], _mm512_mul_ps(w[i], xv));
        }
    }
    for (int t = 0; t < T; t++)
        for (int i = 0; i < 4; i++) {
            const float *xt = x + (size_t)t * k;
            float s = fold(acc[t][i]);
            for (int j = kv; j < k; j++) {
                uint16_t h;
                memcpy(&h, wr[i] + 2 * (size_t)j, 2);
                float p = _cvtsh_ss(h) * xt[j];
                s = s + p;
            }
            out[t * 4 + i] = s;
        }
}

static void tile4(const uint8_t *const *wr, const uint8_t *pf0, size_t step, const float *x,
                  int k, int prefetch, float *out)
{
    tile(wr, pf0, step, x, k, TT, prefetch, out);
}

static void tile1(const uint8_t *const *wr, const uint8_t *pf0, size_t step, const float *x,
                  int k, int prefetch, float *out)
{
    tile(wr, pf0, step, x, k, 1, prefetch, out);
}

/* Contract: any K, rows [m0, m1), all N tokens; no over-reads. */
void mp_f16_gemm__avx512(const mp_op *op, const void *act, int n, float *y, int m0,
                         int m1, void *scratch)
{
    (void)scratch;
    const int k = op->k;
    const float *x = mp_f16_act_x(act);
    const size_t row_bytes = (size_t)k * 2;
    for (int r = m0; r < m1; r += 4) {
        const int R = m1 - r < 4 ? m1 - r : 4;
        const uint8_t *wr[4];
        for (int i = 0; i < 4; i++)
            wr[i] = op->w + (size_t)(r + (i < R ? i : R - 1)) * row_bytes;
        const size_t span = (size_t)R * row_bytes;
        const size_t ahead = span * ((PF_BYTES + span - 1) / span);
        float o[TT * 4];
        for (int t0 = 0; t0 < n; t0 += TT) {
            const int T = n - t0 < TT ? n - t0 : TT;
            if (T == TT)
                tile4(wr, wr[0] + ahead, (size_t)R * 32, x + (size_t)t0 * k, k, t0 == 0, o);
            else
                for (int t = 0; t < T; t++) /* token tail one at a time */
                    tile1(wr, wr[0] + ahead, (size_t)R * 32, x + (size_t)(t0 + t) * k, k,
                          t0 == 0 && t == 0, o + 4 * t);
            for (int t = 0; t < T; t++)
                for (int i = 0; i < R; i++)
                    y[(size_t)(t0 + t) * op->m + r + i] = o[t * 4 + i];
        }
    }
}
