/* gen-avx512.c - the activation generator (mp_gen_acts) eight values at a
 * time with AVX-512 F/DQ.  An end-to-end run's synthetic 128256 x 2560
 * embedding is 328 M values, ~7 ns each on the portable loop (2.4 s of thread
 * time at every setup; issue 17).
 *
 * The same bits as the portable loop (tests/test_ref.c checks both against the
 * definition): lane j of a step holds splitmix64 state number i + j + 1, which
 * is the seed's state plus (i + j + 1) golden-ratio increments; each 16-bit
 * field becomes a float exactly (vcvtqq2ps) and is divided by 65535 with IEEE
 * division, the same quotient as the portable table; the four are summed in
 * the same order (0 + f0 = f0 exactly, as f0 >= 0); then (s - 2) * 1.7 and the
 * outliers' * 8, each one rounding as in the scalar code. */
#include <immintrin.h>

#include "mp_numerics.h"

void mp_gen_acts__avx512(uint64_t seed, float *x, size_t count)
{
    const uint64_t golden = 0x9e3779b97f4a7c15ull;
    const uint64_t s0 = seed * 0x9e3779b97f4a7c15ull + 7;
    __m512i state = _mm512_add_epi64(
        _mm512_set1_epi64((long long)s0),
        _mm512_mullo_epi64(_mm512_set_epi64(8, 7, 6, 5, 4, 3, 2, 1),
                           _mm512_set1_epi64((long long)golden)));
    const __m512i step = _mm512_set1_epi64((long long)(8 * golden));
    const __m512i c1 = _mm512_set1_epi64((long long)0xbf58476d1ce4e5b9ull);
    const __m512i c2 = _mm512_set1_epi64((long long)0x94d049bb133111ebull);
    const __m512i field = _mm512_set1_epi64(0xffff), low10 = _mm512_set1_epi64(0x3ff);
    const __m256 denom = _mm256_set1_ps(65535.0f), two = _mm256_set1_ps(2.0f);
    const __m256 k17 = _mm256_set1_ps(1.7f), eight = _mm256_set1_ps(8.0f);
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        __m512i z = state;
        state = _mm512_add_epi64(state, step);
        z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)), c1);
        z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)), c2);
        z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
        __m256 s = _mm256_div_ps(_mm512_cvtepi64_ps(_mm512_and_si512(z, field)), denom);
        for (int j = 1; j < 4; j++) {
            __m512i u = _mm512_and_si512(_mm512_srli_epi64(z, (unsigned)(16 * j)), field);
            s = _mm256_add_ps(s, _mm256_div_ps(_mm512_cvtepi64_ps(u), denom));
        }
        __m256 v = _mm256_mul_ps(_mm256_sub_ps(s, two), k17);
        __mmask8 outlier = _mm512_testn_epi64_mask(z, low10);
        v = _mm256_mask_mul_ps(v, outlier, v, eight);
        _mm256_storeu_ps(x + i, v);
    }
    mp_rng r = {s0 + (uint64_t)i * golden};
    for (; i < count; i++) {
        uint64_t b = mp_rng_next(&r);
        float s = 0.0f;
        for (int j = 0; j < 4; j++)
            s += (float)((b >> (16 * j)) & 0xffff) / 65535.0f;
        float v = (s - 2.0f) * 1.7f;
        if ((b & 0x3ff) == 0)
            v *= 8.0f;
        x[i] = v;
    }
}
