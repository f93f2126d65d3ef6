/* tq2_0-avx2.c - TQ2_0 x Q8_K with AVX2 (llama.cpp's ternary 2-bit baseline,
 * our own kernel; layout and arithmetic in tq.h).
 *
 * Four rows at a time share each activation load.  Per 256-weight block a row's
 * two 32-byte code vectors are split by shift/and into four planes, each lining
 * up with 32 consecutive activations, and multiplied with vpmaddubsw (unsigned
 * code 0..2 x signed q).  int16 lanes stay small: 8 products of at most
 * 2*2*127 = 508 give 4064, minus a bsum (|bsum| <= 2032), well inside 32767.
 * The Q8_K bsums turn sum(code * q) into sum(w * q).  The four rows' block sums
 * are reduced together (hadd) and scaled as one 4-lane float vector, which is
 * the scalar arithmetic lane by lane: exact int32 dot, then acc + dot * (dw*dx).
 *
 * Written out, not over tq-x86.h as tq1_0-avx2.c and tq2_0-avx512.c are: on the
 * template this path ran 1.16-1.30x slower at N = 1 and 1.32-1.61x at N = 128
 * (2026-11-27, Xeon VM, 3 alternations, cold; with prefetch fixed): gcc unrolls
 * the template's four rows and spills ymm registers (20 stack accesses in the
 * loop, against 10 here, where the row loop stays rolled).  The row-group driver
 * (mp_rows4.h) and the x86 helpers (mp_x86.h) are shared. */
#include <immintrin.h>

#include "tq.h"
#include "../common/mp_rows4.h"
#include "../common/mp_x86.h"

enum { PF_BYTES = 8192 }; /* software prefetch distance along the row group */

/* out[i] for the 4 row pointers wr[] (duplicates allowed) and one token. */
static inline void rows4(const uint8_t *const *wr, const uint8_t *pf0, size_t step,
                         const void *act, int k, int t, int prefetch, float *out)
{
    const mp_block_q8_K *a = mp_q8k_token(act, k, t);
    const int nb = k / MP_QK_K;
    const __m256i mask = _mm256_set1_epi8(3), ones = _mm256_set1_epi16(1);
    __m128 acc = _mm_setzero_ps();
    for (int b = 0; b < nb; b++) {
        /* the group's rows are one contiguous span; walking them in parallel
         * defeats the hardware prefetcher, so fetch ahead at the rate of use */
        mp_x86_prefetch_unit(pf0, (size_t)b, step, prefetch);
        const int8_t *q = a[b].qs;
        __m256i q0 = _mm256_loadu_si256((const __m256i *)q);
        __m256i q1 = _mm256_loadu_si256((const __m256i *)(q + 32));
        __m256i q2 = _mm256_loadu_si256((const __m256i *)(q + 64));
        __m256i q3 = _mm256_loadu_si256((const __m256i *)(q + 96));
        __m256i q4 = _mm256_loadu_si256((const __m256i *)(q + 128));
        __m256i q5 = _mm256_loadu_si256((const __m256i *)(q + 160));
        __m256i q6 = _mm256_loadu_si256((const __m256i *)(q + 192));
        __m256i q7 = _mm256_loadu_si256((const __m256i *)(q + 224));
        __m256i bs = _mm256_loadu_si256((const __m256i *)a[b].bsums);
        __m256i s[4];
        const size_t off = (size_t)b * MP_TQ2_BYTES;
        for (int i = 0; i < 4; i++) {
            __m256i v0 = _mm256_loadu_si256((const __m256i *)(wr[i] + off));
            __m256i v1 = _mm256_loadu_si256((const __m256i *)(wr[i] + off + 32));
            __m256i p = _mm256_maddubs_epi16(_mm256_and_si256(v0, mask), q0);
            p = _mm256_add_epi16(p, _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(v0, 2), mask), q1));
            p = _mm256_add_epi16(p, _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(v0, 4), mask), q2));
            p = _mm256_add_epi16(p, _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(v0, 6), mask), q3));
            p = _mm256_add_epi16(p, _mm256_maddubs_epi16(_mm256_and_si256(v1, mask), q4));
            p = _mm256_add_epi16(p, _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(v1, 2), mask), q5));
            p = _mm256_add_epi16(p, _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(v1, 4), mask), q6));
            p = _mm256_add_epi16(p, _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(v1, 6), mask), q7));
            s[i] = _mm256_madd_epi16(_mm256_sub_epi16(p, bs), ones);
        }
        __m128 dot = _mm_cvtepi32_ps(mp_x86_hsum4_epi32(s[0], s[1], s[2], s[3]));
        __m128 db = _mm_mul_ps(mp_x86_half4_at(wr, off + MP_TQ2_BYTES - 2), _mm_set1_ps(a[b].d));
        acc = _mm_add_ps(acc, _mm_mul_ps(dot, db));
    }
    _mm_storeu_ps(out, acc);
}

/* Contract: K % 256 == 0, rows [m0, m1), all N tokens; reads only the packed
 * rows and the Q8_K blocks (prefetches may point past them: harmless). */
void mp_tq2_0_gemm__avx2(const mp_op *op, const void *act, int n, float *y, int m0,
                         int m1, void *scratch)
{
    (void)scratch;
    const size_t row_bytes = (size_t)(op->k / MP_QK_K) * MP_TQ2_BYTES;
    mp_rows4_gemm(op, act, n, y, m0, m1, row_bytes, MP_TQ2_BYTES, PF_BYTES, 1, rows4, rows4);
}
