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
#include "../common/mp_rows4.h"
#include "../common/mp_x86.h"

/* the prefetch distance where the row has no "pf" (every x86 row has) */
enum { PF_BYTES = 8192 };

static inline __m256 load_half8(const uint8_t *p)
{
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p));
}

static inline void rows4(const uint8_t *const *wr, const uint8_t *pf0, size_t step,
                         const void *act, int k, int t, int prefetch, float *out)
{
    const float *x = mp_f16_act_x(act) + (size_t)t * k;
    const int kv = k - k % 16;
    __m256 lo[4], hi[4];
    for (int i = 0; i < 4; i++)
        lo[i] = hi[i] = _mm256_setzero_ps();
    for (int j = 0; j < kv; j += 16) {
        mp_x86_prefetch_unit(pf0, (size_t)j / 16, step, prefetch);
        __m256 x0 = _mm256_loadu_ps(x + j), x1 = _mm256_loadu_ps(x + j + 8);
        for (int i = 0; i < 4; i++) {
            lo[i] = _mm256_add_ps(lo[i], _mm256_mul_ps(load_half8(wr[i] + 2 * (size_t)j), x0));
            hi[i] = _mm256_add_ps(hi[i], _mm256_mul_ps(load_half8(wr[i] + 2 * (size_t)j + 16), x1));
        }
    }
    for (int i = 0; i < 4; i++) {
        float s = mp_x86_fold2x8(lo[i], hi[i]);
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
    mp_rows4_gemm(op, act, n, y, m0, m1, (size_t)op->k * 2, 32,
                  (size_t)mp_op_param(op, "pf", PF_BYTES), mp_op_param(op, "pfh", MP_PFH_T1), 1,
                  rows4, rows4);
}
