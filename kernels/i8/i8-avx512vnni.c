/* i8-avx512vnni.c - I8 with AVX512-VNNI: vpdpbusd on 64 bytes (the stored
 * unsigned weight bytes times the signed activations), corrected by 128 * sum(q).
 * The template is i8-simd.h. */
#include <immintrin.h>

#define I8_FN mp_i8_gemm__avx512vnni
#define I8_VEC __m512i
#define I8_BYTES 64
#define I8_LOAD(p) _mm512_loadu_si512((const void *)(p))
#define I8_ZERO() _mm512_setzero_si512()
#define I8_DOT(a, u, q) ((a) = _mm512_dpbusd_epi32((a), (u), (q)))
#define I8_HSUM(a) _mm512_reduce_add_epi32(a)
#define I8_GEMM_MR 4
#define I8_GEMM_NR 6
#define I8_OFFSET 128
#include "i8-simd.h"
