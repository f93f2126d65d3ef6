/* tq2_0-avx512.c - TQ2_0 x Q8_K with AVX-512BW (layout and arithmetic in
 * tq.h).  A whole 64-byte code block is one register: its four 2-bit planes
 * line up with activations (32n..32n+31 | 128+32n..) that are joined once per
 * block and shared by four rows, halving the AVX2 path's instruction count.
 * int16 lanes: 4 products of at most 508, minus a bsum: < 32767.  The per-block
 * int32 sums of four rows are reduced together and scaled as one float4, lane
 * by lane the scalar path's operations. */
#include <immintrin.h>

#include "tq.h"

enum { PF_BYTES = 8192 };

static inline __m512i join(const int8_t *lo, const int8_t *hi)
{
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)lo)),
                              _mm256_loadu_si256((const __m256i *)hi), 1);
}

static inline __m256i fold(__m512i v)
{
    return _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
}

static inline __m128i hsum4(__m512i a, __m512i b, __m512i c, __m512i d)
{
    __m256i ab = _mm256_hadd_epi32(fold(a), fold(b)), cd = _mm256_hadd_epi32(fold(c), fold(d));
    __m256i s = _mm256_hadd_epi32(ab, cd);
    return _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
}

static inline __m128 load_d4(const uint8_t *const *wr, size_t off)
{
    uint16_t h[4];
    for (int i = 0; i < 4; i++)
        memcpy(&h[i], wr[i] + off + MP_TQ2_BYTES - 2, 2);
    return _mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)h));
}

static inline void rows4(const uint8_t *const *wr, const uint8_t *pf0, size_t step,
                         const mp_block_q8_K *a, int nb, int prefetch, float *out)
{
    const __m512i mask = _mm512_set1_epi8(3), ones = _mm512_set1_epi16(1);
    __m128 acc = _mm_setzero_ps();
    for (int b = 0; b < nb; b++) {
        if (prefetch) {
            const char *pf = (const char *)pf0 + (size_t)b * step;
            for (size_t o = 0; o < step; o += 64)
                _mm_prefetch(pf + o, _MM_HINT_T0);
        }
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
        __m128 dot = _mm_cvtepi32_ps(hsum4(s[0], s[1], s[2], s[3]));
        __m128 db = _mm_mul_ps(load_d4(wr, off), _mm_set1_ps(a[b].d));
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
    const int k = op->k, nb = k / MP_QK_K;
    const size_t row_bytes = (size_t)nb * MP_TQ2_BYTES;
    for (int r = m0; r < m1; r += 4) {
        const int R = m1 - r < 4 ? m1 - r : 4;
        const uint8_t *wr[4];
        for (int i = 0; i < 4; i++)
            wr[i] = op->w + (size_t)(r + (i < R ? i : R - 1)) * row_bytes;
        const size_t span = (size_t)R * row_bytes;
        const size_t ahead = span * ((PF_BYTES + span - 1) / span);
        float o[4];
        for (int t = 0; t < n; t++) {
            rows4(wr, wr[0] + ahead, (size_t)R * MP_TQ2_BYTES, mp_q8k_token(act, k, t), nb,
                  t == 0, o);
            for (int i = 0; i < R; i++)
                y[(size_t)t * op->m + r + i] = o[i];
        }
    }
}
