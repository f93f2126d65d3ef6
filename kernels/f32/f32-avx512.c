/* f32-avx512.c - F32 with AVX-512F FMA: the template f32-simd.h over 16-float
 * vectors. */
#include <immintrin.h>

/* f32-simd.h's FN(mp_f32_gemm) is this file's compute slot, mp_f32_gemm__avx512 */
#define FN(x) x##__avx512
#define V __m512
#define VL 16
#define VZERO() _mm512_setzero_ps()
#define VLOAD(p) _mm512_loadu_ps(p)
#define VFMA(a, b, c) _mm512_fmadd_ps((a), (b), (c))
#define VSUM(v) _mm512_reduce_add_ps(v)
#include "f32-simd.h"
