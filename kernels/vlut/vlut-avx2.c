/* vlut-avx2.c - Vec-LUT (seed 001 §3-4) with AVX2: one 256-bit vector holds 16
 * int16 token lanes (§4: N_tile a multiple of 16), so the default N_tile = 32 is
 * two vpaddw per 1 -> N lookup.  The table path is the shared template
 * vlut-simd.h.  tcl = 0 (the per-token-table baseline) runs the portable code. */
#include <immintrin.h>

#include "vlut.h"
#include "../common/mp_numerics.h"

#define FN(x) x##__avx2
#define V __m256i
#define VL 16
#define VLOAD(p) _mm256_loadu_si256((const __m256i *)(p))
#define VSTORE(p, v) _mm256_storeu_si256((__m256i *)(p), (v))
#define VADD(a, b) _mm256_add_epi16((a), (b))
#define VSUB(a, b) _mm256_sub_epi16((a), (b))
#define VZERO() _mm256_setzero_si256()

typedef struct w256 {
    __m256i lo, hi;
} w256;
#define W w256

static inline w256 wzero256(void)
{
    return (w256){_mm256_setzero_si256(), _mm256_setzero_si256()};
}

static inline w256 wadd16_256(w256 w, __m256i v)
{
    w.lo = _mm256_add_epi32(w.lo, _mm256_cvtepi16_epi32(_mm256_castsi256_si128(v)));
    w.hi = _mm256_add_epi32(w.hi, _mm256_cvtepi16_epi32(_mm256_extracti128_si256(v, 1)));
    return w;
}

static inline void wstore256(int32_t *p, w256 w)
{
    _mm256_storeu_si256((__m256i *)p, w.lo);
    _mm256_storeu_si256((__m256i *)(p + 8), w.hi);
}

static inline void vacc32_256(int32_t *p, __m256i v)
{
    __m256i lo = _mm256_cvtepi16_epi32(_mm256_castsi256_si128(v));
    __m256i hi = _mm256_cvtepi16_epi32(_mm256_extracti128_si256(v, 1));
    _mm256_storeu_si256((__m256i *)p, _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)p), lo));
    _mm256_storeu_si256((__m256i *)(p + 8),
                        _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(p + 8)), hi));
}

#define WZERO() wzero256()
#define WADD16(w, v) wadd16_256((w), (v))
#define WSTORE(p, w) wstore256((p), (w))
#define VACC32(p, v) vacc32_256((p), (v))

#include "vlut-simd.h"

/* Contract: as mp_vlut_gemm__scalar (any rows, any N, scratch_size bytes). */
void mp_vlut_gemm__avx2(const mp_op *op, const void *act, int n, float *y, int m0,
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
    job__avx2 c;
    job_init__avx2(&c, op, act, n);
    const int stream = P[MP_VLUT_P_STREAM];
    switch (P[MP_VLUT_P_NTILE] / VL) {
    case 1:
        gemm_nv__avx2(&c, y, m0, m1, scratch, stream, 1);
        break;
    case 2:
        gemm_nv__avx2(&c, y, m0, m1, scratch, stream, 2);
        break;
    case 4:
        gemm_nv__avx2(&c, y, m0, m1, scratch, stream, 4);
        break;
    default:
        gemm_nv__avx2(&c, y, m0, m1, scratch, stream, 8);
        break;
    }
}
