/* i8-avx2.c - I8 on AVX2 without VNNI: the signed weights are recovered
 * (u ^ 0x80) and multiplied with vpmaddubsw as |w| times q with w's sign, so
 * each int16 pair sum is at most 2 * 127 * 127 = 32258 and never saturates
 * (the plain unsigned-offset form would: 2 * 255 * 127 > 32767); vpmaddwd then
 * widens to int32.  No correction term.  The template is i8-simd.h. */
#include <immintrin.h>

static inline int32_t i8_hsum256(__m256i a)
{
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return _mm_cvtsi128_si32(s);
}

static inline __m256i i8_dot_avx2(__m256i a, __m256i u, __m256i q)
{
    const __m256i w = _mm256_xor_si256(u, _mm256_set1_epi8((char)0x80));
    const __m256i p = _mm256_maddubs_epi16(_mm256_abs_epi8(w), _mm256_sign_epi8(q, w));
    return _mm256_add_epi32(a, _mm256_madd_epi16(p, _mm256_set1_epi16(1)));
}

#define I8_FN mp_i8_gemm__avx2
#define I8_VEC __m256i
#define I8_BYTES 32
#define I8_LOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define I8_ZERO() _mm256_setzero_si256()
#define I8_DOT(a, u, q) ((a) = i8_dot_avx2((a), (u), (q)))
#define I8_HSUM(a) i8_hsum256(a)
#define I8_GEMM_MR 3
#define I8_GEMM_NR 2
#define I8_OFFSET 0
#include "i8-simd.h"
