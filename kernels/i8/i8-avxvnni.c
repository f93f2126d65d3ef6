/* i8-avxvnni.c - I8 with AVX-VNNI: vpdpbusd on 32 bytes (VEX encoding, the
 * client cores without AVX-512), corrected by 128 * sum(q).  The template is
 * i8-simd.h. */
#include <immintrin.h>

static inline int32_t i8_hsum256(__m256i a)
{
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return _mm_cvtsi128_si32(s);
}

#define I8_FN mp_i8_gemm__avxvnni
#define I8_VEC __m256i
#define I8_BYTES 32
#define I8_LOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define I8_ZERO() _mm256_setzero_si256()
#define I8_DOT(a, u, q) ((a) = _mm256_dpbusd_avx_epi32((a), (u), (q)))
#define I8_HSUM(a) i8_hsum256(a)
#define I8_GEMM_MR 4
#define I8_GEMM_NR 3
#define I8_OFFSET 128
#include "i8-simd.h"
