/* f16-avx512.c - F16 weights x float activations with AVX-512F (summation order
 * in f16.h).  A tile of four rows x up to four tokens: each 16-half chunk is
 * converted once (vcvtph2ps) and used by every token of the tile, so at N > 1
 * the conversion is amortized; 16 accumulators, one per (row, token), are the
 * scalar path's 16 lanes, updated with a multiply then an add (no FMA), so the
 * result equals the scalar path bit for bit. */
#include <immintrin.h>

#include "f16.h"
#include "../common/mp_rows4.h"
#include "../common/mp_x86.h"

/* PF_BYTES: the prefetch distance where the row has no "pf" (every x86 row has) */
enum { PF_BYTES = 8192, TT = 4 /* tokens per tile */ };

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
        mp_x86_prefetch_unit(pf0, (size_t)j / 16, step, prefetch);
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
            float s = mp_x86_fold16(acc[t][i]);
            for (int j = kv; j < k; j++) {
                uint16_t h;
                memcpy(&h, wr[i] + 2 * (size_t)j, 2);
                float p = _cvtsh_ss(h) * xt[j];
                s = s + p;
            }
            out[t * 4 + i] = s;
        }
}

static __attribute__((noinline)) void tile4(const uint8_t *const *wr, const uint8_t *pf0, size_t step, const void *act,
                  int k, int t, int prefetch, float *out)
{
    tile(wr, pf0, step, mp_f16_act_x(act) + (size_t)t * k, k, TT, prefetch, out);
}

static __attribute__((noinline)) void tile1(const uint8_t *const *wr, const uint8_t *pf0, size_t step, const void *act,
                  int k, int t, int prefetch, float *out)
{
    tile(wr, pf0, step, mp_f16_act_x(act) + (size_t)t * k, k, 1, prefetch, out);
}

/* Contract: any K, rows [m0, m1), all N tokens; no over-reads. */
void mp_f16_gemm__avx512(const mp_op *op, const void *act, int n, float *y, int m0,
                         int m1, void *scratch)
{
    (void)scratch;
    mp_rows4_gemm(op, act, n, y, m0, m1, (size_t)op->k * 2, 32,
                  (size_t)mp_op_param(op, "pf", PF_BYTES), mp_op_param(op, "pfh", MP_PFH_T1), TT,
                  tile4, tile1);
}
