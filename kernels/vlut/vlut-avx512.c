/* vlut-avx512.c - Vec-LUT (seed 001 §3-4) with AVX-512BW: one 512-bit vector
 * holds 32 int16 token lanes, so the default N_tile = 32 makes each 1 -> N lookup
 * one load + one vpaddw of a table row.  The table path is the shared template
 * vlut-simd.h; the GEMV path for small N (decode the base-3 byte into trits with
 * multiply-high, multiply with the activations permuted by vpermt2w) is here.
 * tcl = 0 (the per-token-table baseline) runs the portable code. */
#include <immintrin.h>

#include "vlut.h"
#include "../common/mp_numerics.h"

#define FN(x) x##__avx512
#define V __m512i
#define VL 32
#define VLOAD(p) _mm512_loadu_si512((const void *)(p))
#define VSTORE(p, v) _mm512_storeu_si512((void *)(p), (v))
#define VADD(a, b) _mm512_add_epi16((a), (b))
#define VSUB(a, b) _mm512_sub_epi16((a), (b))
#define VZERO() _mm512_setzero_si512()

typedef struct w512 {
    __m512i lo, hi;
} w512;
#define W w512

static inline w512 wzero512(void)
{
    return (w512){_mm512_setzero_si512(), _mm512_setzero_si512()};
}

static inline w512 wadd16_512(w512 w, __m512i v)
{
    w.lo = _mm512_add_epi32(w.lo, _mm512_cvtepi16_epi32(_mm512_castsi512_si256(v)));
    w.hi = _mm512_add_epi32(w.hi, _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(v, 1)));
    return w;
}

static inline void wstore512(int32_t *p, w512 w)
{
    _mm512_storeu_si512((void *)p, w.lo);
    _mm512_storeu_si512((void *)(p + 16), w.hi);
}

static inline void vacc32_512(int32_t *p, __m512i v)
{
    __m512i lo = _mm512_cvtepi16_epi32(_mm512_castsi512_si256(v));
    __m512i hi = _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(v, 1));
    _mm512_storeu_si512((void *)p, _mm512_add_epi32(_mm512_loadu_si512((const void *)p), lo));
    _mm512_storeu_si512((void *)(p + 16),
                        _mm512_add_epi32(_mm512_loadu_si512((const void *)(p + 16)), hi));
}

#define WZERO() wzero512()
#define WADD16(w, v) wadd16_512((w), (v))
#define WSTORE(p, w) wstore512((p), (w))
#define VACC32(p, v) vacc32_512((p), (v))

#include "vlut-simd.h"

/* Contract: as mp_vlut_gemm__scalar (any rows, any N, scratch_size bytes). */
void mp_vlut_gemm__avx512(const mp_op *op, const void *act, int n, float *y, int m0,
                          int m1, void *scratch)
{
    const int *P = op->param;
    if (!P[MP_VLUT_P_TCL]) {
        mp_vlut_gemm__scalar(op, act, n, y, m0, m1, scratch);
        return;
    }
    if (n < P[MP_VLUT_P_GEMV]) {
        mp_vlut_gemv__scalar(op, act, n, y, m0, m1, scratch);
        return;
    }
    if (P[MP_VLUT_P_NTILE] % VL) { /* N_tile = 16: half a vector, the AVX2 code */
        mp_vlut_gemm__avx2(op, act, n, y, m0, m1, scratch);
        return;
    }
    job__avx512 c;
    job_init__avx512(&c, op, act, n);
    const int stream = P[MP_VLUT_P_STREAM];
    switch (P[MP_VLUT_P_NTILE] / VL) {
    case 1:
        gemm_nv__avx512(&c, y, m0, m1, scratch, stream, 1);
        break;
    case 2:
        gemm_nv__avx512(&c, y, m0, m1, scratch, stream, 2);
        break;
    default:
        gemm_nv__avx512(&c, y, m0, m1, scratch, stream, 4);
        break;
    }
}
