/* f32-avx2.c - F32 with AVX2 FMA: the template f32-simd.h over 8-float vectors. */
#include <immintrin.h>

#include "../common/mp_x86.h"

/* f32-simd.h's FN(mp_f32_gemm) is this file's compute slot, mp_f32_gemm__avx2 */
#define FN(x) x##__avx2
#define V __m256
#define VL 8
#define VZERO() _mm256_setzero_ps()
#define VLOAD(p) _mm256_loadu_ps(p)
#define VFMA(a, b, c) _mm256_fmadd_ps((a), (b), (c))
#define VSUM(v) mp_x86_sum8(v)
#include "f32-simd.h"
