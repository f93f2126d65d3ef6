/* tmac-avx512.c - T-MAC int2 with AVX-512BW (seed 001 §2.2): each 64-byte step
 * (32 rows x 2 groups) is split into its plane-0 and plane-1 nibbles, both looked
 * up with vpshufb in the same table register (the two groups' tables broadcast
 * to both 256-bit halves).  Lookups are unsigned (biased) bytes summed as 16-bit
 * words: the whole word and its high byte, from which the low-byte sum is
 * recovered exactly (< 2^16 for MP_TMAC_FLUSH = 64 steps); plane 1 is shifted by
 * one bit when widened.  Bit for bit equal to tmac-scalar.c.  Layout in tmac.h. */
#include <immintrin.h>

#include "../common/mp_x86.h"

#include "tmac.h"
#include "../common/mp_numerics.h"

enum { PF_DEFAULT = 8192 };

static void block(const uint8_t *wp, int nsteps, const uint8_t *tab, size_t pf, int pfh,
                  int32_t *sums)
{
    const __m512i m0f = _mm512_set1_epi8(0x0f), lo16 = _mm512_set1_epi32(0xffff);
    __m512i a32[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                      _mm512_setzero_si512()};
    for (int s0 = 0; s0 < nsteps; s0 += MP_TMAC_FLUSH) {
        int s1 = s0 + MP_TMAC_FLUSH < nsteps ? s0 + MP_TMAC_FLUSH : nsteps;
        __m512i w0 = _mm512_setzero_si512(), h0 = w0, w1 = w0, h1 = w0;
        for (int s = s0; s < s1; s++, wp += MP_TMAC_STEP) {
            if (pf) { /* far (hint pfh), near (2 KB) into L1: mp_x86.h */
                mp_x86_prefetch(wp + pf, pfh);
                _mm_prefetch((const char *)wp + 2048, _MM_HINT_T0);
            }
            __m512i v = _mm512_loadu_si512((const void *)wp);
            __m512i t = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(tab + (size_t)s * 32)));
            __m512i x = _mm512_shuffle_epi8(t, _mm512_and_si512(v, m0f));
            __m512i y = _mm512_shuffle_epi8(t, _mm512_and_si512(_mm512_srli_epi16(v, 4), m0f));
            w0 = _mm512_add_epi16(w0, x);
            h0 = _mm512_add_epi16(h0, _mm512_srli_epi16(x, 8));
            w1 = _mm512_add_epi16(w1, y);
            h1 = _mm512_add_epi16(h1, _mm512_srli_epi16(y, 8));
        }
        __m512i e0 = _mm512_sub_epi16(w0, _mm512_slli_epi16(h0, 8));
        __m512i e1 = _mm512_sub_epi16(w1, _mm512_slli_epi16(h1, 8));
        a32[0] = _mm512_add_epi32(a32[0], _mm512_add_epi32(_mm512_and_si512(e0, lo16),
                                                           _mm512_slli_epi32(_mm512_and_si512(e1, lo16), 1)));
        a32[1] = _mm512_add_epi32(a32[1], _mm512_add_epi32(_mm512_srli_epi32(e0, 16),
                                                           _mm512_slli_epi32(_mm512_srli_epi32(e1, 16), 1)));
        a32[2] = _mm512_add_epi32(a32[2], _mm512_add_epi32(_mm512_and_si512(h0, lo16),
                                                           _mm512_slli_epi32(_mm512_and_si512(h1, lo16), 1)));
        a32[3] = _mm512_add_epi32(a32[3], _mm512_add_epi32(_mm512_srli_epi32(h0, 16),
                                                           _mm512_slli_epi32(_mm512_srli_epi32(h1, 16), 1)));
    }
    static const int off[4] = {0, 2, 1, 3}; /* byte of dword d: 4d + off[i] */
    int32_t lanes[4][16];
    for (int i = 0; i < 4; i++)
        _mm512_storeu_si512((void *)lanes[i], a32[i]);
    for (int r = 0; r < MP_TMAC_BM; r++)
        sums[r] = -128 * 3 * 2 * nsteps; /* bias: 2 groups per step, planes 1 + 2 */
    for (int i = 0; i < 4; i++)
        for (int l = 0; l < 4; l++)
            for (int d = 0; d < 4; d++)
                sums[(l >> 1) * 16 + 4 * d + off[i]] += lanes[i][l * 4 + d];
}

void mp_tmac_gemm__avx512(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                          void *scratch)
{
    (void)scratch;
    mp_tmac_gemm_blocks(op, act, n, y, m0, m1, (size_t)mp_op_param(op, "pf", PF_DEFAULT),
                        mp_op_param(op, "pfh", MP_PFH_T1), block);
}
