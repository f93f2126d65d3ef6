/* tq1_0-x86.h - TQ1_0's byte helpers shared by tq1_0-avx2.c and tq1_0-avx512.c
 * (trit extraction in tq1_0-avx2.c's comment): times 3 on signed-rep bytes
 * (two byte adds: s_{n+1} = 3 s_n mod 256) and the qh plane. */
#ifndef MP_TQ1_0_X86_H
#define MP_TQ1_0_X86_H

#include <immintrin.h>
#include <stdint.h>

static inline __m256i mul3y(__m256i s)
{
    return _mm256_add_epi8(s, _mm256_add_epi8(s, s));
}

static inline __m128i mul3x(__m128i s)
{
    return _mm_add_epi8(s, _mm_add_epi8(s, s));
}

/* qh's 4 bytes, byte j's trit m placed at byte 4m + j, as signed-rep bytes
 * 3^m s: dword m of the broadcast times 3^m, even and odd bytes multiplied
 * apart in 16-bit lanes so that no carry crosses a byte. */
static inline __m128i qh_plane(uint32_t qh)
{
    const __m128i pw = _mm_set_epi16(27, 27, 9, 9, 3, 3, 1, 1);
    __m128i s = _mm_xor_si128(_mm_set1_epi32((int)qh), _mm_set1_epi8((char)0x80));
    __m128i lo = _mm_and_si128(_mm_mullo_epi16(s, pw), _mm_set1_epi16(0xff));
    __m128i hi = _mm_mullo_epi16(_mm_andnot_si128(_mm_set1_epi16(0xff), s), pw);
    return _mm_or_si128(lo, hi);
}

#endif
