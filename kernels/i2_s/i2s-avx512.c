/* i2s-avx512.c - I2_S with AVX-512BW: one 64-byte load covers two 128-weight
 * blocks; the matching activation halves are joined with one insert per code
 * plane and shared by four rows.  Each int16 lane sees one block per pair, so
 * the AVX2 bound holds: 16 pairs (16 x 2032 < 32767) before widening. */
#include <immintrin.h>

#include "../common/mp_x86.h"

#include "i2s-rows.h"


static inline __m512i join(const int8_t *lo, const int8_t *hi)
{
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)lo)),
                              _mm256_loadu_si256((const __m256i *)hi), 1);
}

/* pf: software prefetch distance in bytes (the `pf` parameter; 0 = none), rounded
 * up to whole row groups; pfh its hint (the `pfh` parameter, MP_PFH_*).  Out of
 * line, one copy for R = 4 and R = 1, as GCC 12 compiled it before pfh was a
 * parameter (with it, GCC inlined both calls).  The near
 * prefetch into L1 is T0 whatever pfh is, on while pf is. */
static __attribute__((noinline)) void dot_rows(const uint8_t *w0, size_t row_bytes, int R,
                                               const int8_t *q, int nblk, int32_t *out,
                                               size_t pf, int pfh)
{
    const size_t span = (size_t)R * row_bytes;
    const size_t ahead = span * ((pf + span - 1) / span);
    const __m512i mask = _mm512_set1_epi8(3);
    const __m512i ones = _mm512_set1_epi16(1);
    __m512i acc[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(),
                      _mm512_setzero_si512(), _mm512_setzero_si512()};
    int npair = nblk / 2;
    for (int p0 = 0; p0 < npair; p0 += 16) {
        int p1 = p0 + 16 < npair ? p0 + 16 : npair;
        __m512i s16[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(),
                          _mm512_setzero_si512(), _mm512_setzero_si512()};
        for (int pb = p0; pb < p1; pb++) {
            const int8_t *qb = q + pb * 256;
            /* The R rows are one contiguous span; walking them in parallel defeats
             * the hardware prefetcher, so fetch the span `ahead` bytes on at the
             * rate it is consumed (4 lines per step). */
            if (pf) {
                const uint8_t *at = w0 + ahead + (size_t)pb * 256;
                mp_x86_prefetch(at, pfh);
                mp_x86_prefetch(at + 64, pfh);
                mp_x86_prefetch(at + 128, pfh);
                mp_x86_prefetch(at + 192, pfh);
            }
            __m512i a0 = join(qb, qb + 128);
            __m512i a1 = join(qb + 32, qb + 160);
            __m512i a2 = join(qb + 64, qb + 192);
            __m512i a3 = join(qb + 96, qb + 224);
            for (int r = 0; r < R; r++) {
                /* and each row 512 bytes on into L1 (kernels/common/mp_x86.h) */
                if (pf)
                    _mm_prefetch((const char *)w0 + r * row_bytes + (pb + 8) * 64, _MM_HINT_T0);
                __m512i v = _mm512_loadu_si512((const void *)(w0 + r * row_bytes + pb * 64));
                __m512i c0 = _mm512_and_si512(_mm512_srli_epi16(v, 6), mask);
                __m512i c1 = _mm512_and_si512(_mm512_srli_epi16(v, 4), mask);
                __m512i c2 = _mm512_and_si512(_mm512_srli_epi16(v, 2), mask);
                __m512i c3 = _mm512_and_si512(v, mask);
                __m512i p = _mm512_add_epi16(_mm512_maddubs_epi16(c0, a0),
                                             _mm512_maddubs_epi16(c1, a1));
                p = _mm512_add_epi16(p, _mm512_maddubs_epi16(c2, a2));
                p = _mm512_add_epi16(p, _mm512_maddubs_epi16(c3, a3));
                s16[r] = _mm512_add_epi16(s16[r], p);
            }
        }
        for (int r = 0; r < R; r++)
            acc[r] = _mm512_add_epi32(acc[r], _mm512_madd_epi16(s16[r], ones));
    }
    /* odd block count: the last block with 256-bit operations */
    if (nblk & 1) {
        const int8_t *qb = q + (nblk - 1) * 128;
        const __m256i m8 = _mm256_set1_epi8(3);
        __m256i a0 = _mm256_loadu_si256((const __m256i *)qb);
        __m256i a1 = _mm256_loadu_si256((const __m256i *)(qb + 32));
        __m256i a2 = _mm256_loadu_si256((const __m256i *)(qb + 64));
        __m256i a3 = _mm256_loadu_si256((const __m256i *)(qb + 96));
        for (int r = 0; r < R; r++) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(w0 + r * row_bytes + (nblk - 1) * 32));
            __m256i p = _mm256_add_epi16(
                _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(v, 6), m8), a0),
                _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(v, 4), m8), a1));
            p = _mm256_add_epi16(p, _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(v, 2), m8), a2));
            p = _mm256_add_epi16(p, _mm256_maddubs_epi16(_mm256_and_si256(v, m8), a3));
            __m256i p32 = _mm256_madd_epi16(p, _mm256_set1_epi16(1));
            acc[r] = _mm512_add_epi32(acc[r], _mm512_zextsi256_si512(p32));
        }
    }
    for (int r = 0; r < R; r++)
        out[r] = _mm512_reduce_add_epi32(acc[r]);
}

void mp_i2s_gemm__avx512(const mp_op *op, const void *act, int n, float *y, int m0,
                       int m1, void *scratch)
{
    (void)scratch;
    mp_i2s_gemm_rows(op, act, n, y, m0, m1, (size_t)mp_op_param(op, "pf", 8192),
                     mp_op_param(op, "pfh", MP_PFH_T1), dot_rows);
}
