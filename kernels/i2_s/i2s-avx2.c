/* i2s-avx2.c - I2_S with AVX2: four rows at a time share the activation loads;
 * codes are split by shift/and and multiplied with vpmaddubsw (unsigned code x
 * signed int8).  int16 partial sums stay below 2032 per 128-weight block, so up to
 * 16 blocks are summed in int16 before widening (16 x 2032 < 32767). */
#include <immintrin.h>

#include "i2s-rows.h"
#include "../common/mp_x86.h"


/* Dot of R rows of packed codes with one token; R is 1..4 (unrolled by the compiler). */
/* pf: software prefetch distance in bytes (the `pf` parameter; 0 = none), rounded
 * up to whole row groups; pfh its hint (the `pfh` parameter, MP_PFH_*).  Out of
 * line, one copy for R = 4 and R = 1, as GCC 12 compiled it before pfh was a
 * parameter (with it, GCC inlined both calls). */
static __attribute__((noinline)) void dot_rows(const uint8_t *w0, size_t row_bytes, int R,
                                               const int8_t *q, int nblk, int32_t *out,
                                               size_t pf, int pfh)
{
    const size_t span = (size_t)R * row_bytes;
    const size_t ahead = span * ((pf + span - 1) / span);
    const __m256i mask = _mm256_set1_epi8(3);
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i acc[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(),
                      _mm256_setzero_si256(), _mm256_setzero_si256()};
    for (int b0 = 0; b0 < nblk; b0 += 16) {
        int b1 = b0 + 16 < nblk ? b0 + 16 : nblk;
        __m256i s16[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(),
                          _mm256_setzero_si256(), _mm256_setzero_si256()};
        for (int b = b0; b < b1; b++) {
            const int8_t *qb = q + b * 128;
            /* The R rows are one contiguous span; walking them in parallel defeats
             * the hardware prefetcher, so fetch the span `ahead` bytes on at the
             * rate it is consumed (2 lines per step). */
            if (pf) {
                const uint8_t *at = w0 + ahead + (size_t)b * 128;
                mp_x86_prefetch(at, pfh);
                mp_x86_prefetch(at + 64, pfh);
            }
            __m256i a0 = _mm256_loadu_si256((const __m256i *)qb);
            __m256i a1 = _mm256_loadu_si256((const __m256i *)(qb + 32));
            __m256i a2 = _mm256_loadu_si256((const __m256i *)(qb + 64));
            __m256i a3 = _mm256_loadu_si256((const __m256i *)(qb + 96));
            for (int r = 0; r < R; r++) {
                __m256i v = _mm256_loadu_si256((const __m256i *)(w0 + r * row_bytes + b * 32));
                __m256i c0 = _mm256_and_si256(_mm256_srli_epi16(v, 6), mask);
                __m256i c1 = _mm256_and_si256(_mm256_srli_epi16(v, 4), mask);
                __m256i c2 = _mm256_and_si256(_mm256_srli_epi16(v, 2), mask);
                __m256i c3 = _mm256_and_si256(v, mask);
                __m256i p = _mm256_add_epi16(_mm256_maddubs_epi16(c0, a0),
                                             _mm256_maddubs_epi16(c1, a1));
                p = _mm256_add_epi16(p, _mm256_maddubs_epi16(c2, a2));
                p = _mm256_add_epi16(p, _mm256_maddubs_epi16(c3, a3));
                s16[r] = _mm256_add_epi16(s16[r], p);
            }
        }
        for (int r = 0; r < R; r++)
            acc[r] = _mm256_add_epi32(acc[r], _mm256_madd_epi16(s16[r], ones));
    }
    for (int r = 0; r < R; r++)
        out[r] = mp_x86_hsum_epi32(acc[r]);
}

void mp_i2s_gemm__avx2(const mp_op *op, const void *act, int n, float *y, int m0,
                       int m1, void *scratch)
{
    (void)scratch;
    mp_i2s_gemm_rows(op, act, n, y, m0, m1, (size_t)mp_op_param(op, "pf", 8192),
                     mp_op_param(op, "pfh", MP_PFH_T1), dot_rows);
}
