/* e2e-codes-avx512.c - ternary weights to and from 2-bit codes
 * (mp_e2e_codes.h), 64 weights a step with AVX-512 F/BW: each dword lane holds
 * four weights (one code byte); shifts move the four 2-bit codes between the
 * lane's bytes and its low byte.  The rest of a tensor goes to the portable
 * copy, which gives the same bytes. */
#include <immintrin.h>

#include "mp_e2e_codes.h"

void mp_e2e_codes_pack__avx512(const int8_t *w, size_t n, uint8_t *c)
{
    const __m512i one = _mm512_set1_epi8(1), m0 = _mm512_set1_epi32(0x03),
                  m1 = _mm512_set1_epi32(0x0c), m2 = _mm512_set1_epi32(0x30),
                  m3 = _mm512_set1_epi32(0xc0);
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m512i x = _mm512_add_epi8(_mm512_loadu_si512(w + i), one); /* codes, a byte each */
        __m512i y = _mm512_and_si512(x, m0);
        y = _mm512_or_si512(y, _mm512_and_si512(_mm512_srli_epi32(x, 6), m1));
        y = _mm512_or_si512(y, _mm512_and_si512(_mm512_srli_epi32(x, 12), m2));
        y = _mm512_or_si512(y, _mm512_and_si512(_mm512_srli_epi32(x, 18), m3));
        _mm_storeu_si128((__m128i *)(c + i / 4), _mm512_cvtepi32_epi8(y));
    }
    mp_e2e_codes_pack_portable(w + i, n - i, c + i / 4);
}

void mp_e2e_codes_unpack__avx512(const uint8_t *c, size_t n, int8_t *w)
{
    const __m512i one = _mm512_set1_epi8(1), m0 = _mm512_set1_epi32(0x03),
                  m1 = _mm512_set1_epi32(0x300), m2 = _mm512_set1_epi32(0x30000),
                  m3 = _mm512_set1_epi32(0x3000000);
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m512i x = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(c + i / 4)));
        __m512i y = _mm512_and_si512(x, m0);
        y = _mm512_or_si512(y, _mm512_and_si512(_mm512_slli_epi32(x, 6), m1));
        y = _mm512_or_si512(y, _mm512_and_si512(_mm512_slli_epi32(x, 12), m2));
        y = _mm512_or_si512(y, _mm512_and_si512(_mm512_slli_epi32(x, 18), m3));
        _mm512_storeu_si512(w + i, _mm512_sub_epi8(y, one));
    }
    mp_e2e_codes_unpack_portable(c + i / 4, n - i, w + i);
}
