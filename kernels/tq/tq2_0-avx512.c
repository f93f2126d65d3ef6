/* tq2_0-avx512.c - TQ2_0 x Q8_K with AVX-512BW (layout and arithmetic in
 * tq.h).  A whole 64-byte code block is one register: its four 2-bit planes
 * line up with activations (32n..32n+31 | 128+32n..) that are joined once per
 * block and shared by four rows, halving the AVX2 path's instruction count.
 * int16 lanes: 4 products of at most 508, minus a bsum: < 32767.  The per-block
 * int32 sums of four rows are reduced together and scaled as one float4, lane
 * by lane the scalar path's operations. */
#include <immintrin.h>

#include "tq.h"
#include "../common/mp_rows4.h"
#include "../common/mp_x86.h"

enum { PF_BYTES = 8192 };

static inline __m512i join(const int8_t *lo, const int8_t *hi)
{
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)lo)),
                              _mm256_loadu_si256((const __m256i *)hi), 1);
}

static inline void rows4(const uint8_t *const *wr, const uint8_t *pf0, size_t step,
                         const void *act, int k, int t, int prefetch, float *out)
{
    const mp_block_q8_K *a = mp_q8k_token(act, k, t);
    const int nb = k / MP_QK_K;
    const __m512i mask = _mm512_set1_epi8(3), ones = _mm512_set1_epi16(1);
    __m128 acc = _mm_setzero_ps();
    for (int b = 0; b < nb; b++) {
        mp_x86_prefetch_unit(pf0, (size_t)b, step, prefetch);
        const int8_t *q = a[b].qs;
        __m512i q0 = join(q, q + 128), q1 = join(q + 32, q + 160);
        __m512i q2 = join(q + 64, q + 192), q3 = join(q + 96, q + 224);
        __m512i bs = _mm512_zextsi256_si512(_mm256_loadu_si256((const __m256i *)a[b].bsums));
        __m512i s[4];
        const size_t off = (size_t)b * MP_TQ2_BYTES;
        for (int i = 0; i < 4; i++) {
            __m512i v = _mm512_loadu_si512((const void *)(wr[i] + off));
            __m512i p = _mm512_maddubs_epi16(_mm512_and_si512(v, mask), q0);
            p = _mm512_add_epi16(p, _mm512_maddubs_epi16(_mm512_and_si512(_mm512_srli_epi16(v, 2), mask), q1));
            p = _mm512_add_epi16(p, _mm512_maddubs_epi16(_mm512_and_si512(_mm512_srli_epi16(v, 4), mask), q2));
            p = _mm512_add_epi16(p, _mm512_maddubs_epi16(_mm512_and_si512(_mm512_srli_epi16(v, 6), mask), q3));
            s[i] = _mm512_madd_epi16(_mm512_sub_epi16(p, bs), ones);
        }
        __m128 dot = _mm_cvtepi32_ps(mp_x86_hsum4_epi32x16(s[0], s[1], s[2], s[3]));
        __m128 db = _mm_mul_ps(mp_x86_half4_at(wr, off + MP_TQ2_BYTES - 2), _mm_set1_ps(a[b].d));
        acc = _mm_add_ps(acc, _mm_mul_ps(dot, db));
    }
    _mm_storeu_ps(out, acc);
}

/* Contract: K % 256 == 0, rows [m0, m1), all N tokens; reads only the packed
 * rows (64 of each block's 66 bytes per load) and the Q8_K blocks. */
void mp_tq2_0_gemm__avx512(const mp_op *op, const void *act, int n, float *y, int m0,
                           int m1, void *scratch)
{
    (void)scratch;
    const size_t row_bytes = (size_t)(op->k / MP_QK_K) * MP_TQ2_BYTES;
    mp_rows4_gemm(op, act, n, y, m0, m1, row_bytes, MP_TQ2_BYTES, PF_BYTES, 1, rows4, rows4);
}
