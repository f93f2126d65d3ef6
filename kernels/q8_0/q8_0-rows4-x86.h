/* q8_0-rows4-x86.h - the four-row tile (mp_rows4.h) of the two weight formats
 * multiplied with Q8_0 activation blocks, Q4_0 and Q8_0, written once for both
 * and once per x86 ISA: included by q4_0-avx2.c, q8_0-avx2.c (AVX2: even and
 * odd blocks in two 8-lane accumulators) and q4_0-avx512.c, q8_0-avx512.c
 * (AVX-512BW: the even block in lanes 0-7, the odd one in 8-15 of one
 * accumulator), all in the summation order of q8_0.h; the includer's file
 * comment says how its format's block product works.  The includer defines
 * ROWS4_Q4_0 or ROWS4_Q8_0 (its weight format) and calls rows4_gemm from its
 * compute.  Only a block's integer dot product differs between the formats:
 *   act_c(a)              per 32 activations, what block_dot needs besides them
 *                         (Q4_0: 8 * each lane's activation sum, the -8 offset)
 *   block_dot(blk, a, c)  the 8 exact int32 lane sums of one block
 *   act_c2, pair_dot      the same for blocks blk and the next (AVX-512BW) */
#include <immintrin.h>

#include "q8_0.h"
#include "../q4_0/q4_0.h"
#include "../common/mp_rows4.h"
#include "../common/mp_x86.h"

/* the prefetch distance where the row has no "pf" (every x86 row has) */
enum { PF_BYTES = 8192 };

#if defined(ROWS4_Q4_0)
#define ROWS4_BYTES MP_Q40_BYTES

static inline __m256i act_c(__m256i a)
{
    return _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(8), a), _mm256_set1_epi16(1));
}

/* nibbles expanded to 32 unsigned bytes (low = weights 0-15, high = 16-31) */
static inline __m256i block_dot(const uint8_t *blk, __m256i a, __m256i c)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(blk + 2));
    __m256i nib = _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(v, 4), v), _mm256_set1_epi8(15));
    __m256i p = _mm256_madd_epi16(_mm256_maddubs_epi16(nib, a), _mm256_set1_epi16(1));
    return _mm256_sub_epi32(p, c);
}

#ifdef __AVX512BW__
static inline __m512i act_c2(__m512i a)
{
    return _mm512_madd_epi16(_mm512_maddubs_epi16(_mm512_set1_epi8(8), a), _mm512_set1_epi16(1));
}

/* the two nibble arrays spread to [qs_b, qs_b, qs_b+1, qs_b+1], the upper copy
 * of each shifted down a nibble: the 64 weights in order */
static inline __m512i pair_dot(const uint8_t *blk, __m512i a, __m512i c)
{
    const __m512i spread = _mm512_set_epi64(3, 2, 3, 2, 1, 0, 1, 0);
    __m256i v = _mm256_set_m128i(_mm_loadu_si128((const __m128i *)(blk + MP_Q40_BYTES + 2)),
                                 _mm_loadu_si128((const __m128i *)(blk + 2)));
    __m512i x = _mm512_permutexvar_epi64(spread, _mm512_castsi256_si512(v));
    x = _mm512_mask_srli_epi16(x, 0xff00ff00u, x, 4);
    __m512i p = _mm512_madd_epi16(_mm512_maddubs_epi16(_mm512_and_si512(x, _mm512_set1_epi8(15)), a),
                                  _mm512_set1_epi16(1));
    return _mm512_sub_epi32(p, c);
}
#endif

#elif defined(ROWS4_Q8_0)
#define ROWS4_BYTES MP_Q80_BYTES

static inline __m256i act_c(__m256i a)
{
    return a; /* unused: Q8_0 has no offset */
}

/* the sign trick: |w| * sign(w)q for vpmaddubsw's unsigned x signed */
static inline __m256i block_dot(const uint8_t *blk, __m256i a, __m256i c)
{
    (void)c;
    __m256i w = _mm256_loadu_si256((const __m256i *)(blk + 2));
    return _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_sign_epi8(w, w), _mm256_sign_epi8(a, w)),
                             _mm256_set1_epi16(1));
}

#ifdef __AVX512BW__
static inline __m512i act_c2(__m512i a)
{
    return a;
}

/* no vpsignb: |w| by vpabsb, sign(w)q by a masked subtract from zero */
static inline __m512i pair_dot(const uint8_t *blk, __m512i a, __m512i c)
{
    (void)c;
    __m512i w = _mm512_inserti64x4(
        _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(blk + 2))),
        _mm256_loadu_si256((const __m256i *)(blk + MP_Q80_BYTES + 2)), 1);
    __m512i sa = _mm512_mask_sub_epi8(a, _mm512_movepi8_mask(w), _mm512_setzero_si512(), a);
    return _mm512_madd_epi16(_mm512_maddubs_epi16(_mm512_abs_epi8(w), sa), _mm512_set1_epi16(1));
}
#endif

#else
#error "define ROWS4_Q4_0 or ROWS4_Q8_0 before including q8_0-rows4-x86.h"
#endif

/* One block's 8 float lane terms: sum * d_w * d_x. */
static inline __m256 block_term(const uint8_t *blk, __m256i a, __m256i c, float dx)
{
    return _mm256_mul_ps(_mm256_cvtepi32_ps(block_dot(blk, a, c)),
                         _mm256_set1_ps(mp_x86_half_at(blk) * dx));
}

#ifdef __AVX512BW__
static __attribute__((noinline)) void rows4(const uint8_t *const *wr, const uint8_t *pf0,
                                            size_t step, const void *act, int k, int t,
                                            int prefetch, float *out)
{
    const float *dx = mp_q80act_d(act, k, t);
    const int8_t *qx = mp_q80act_q(act, k, t);
    const int nb = k / MP_Q80_QK;
    __m512 acc[4];
    for (int i = 0; i < 4; i++)
        acc[i] = _mm512_setzero_ps();
    int b = 0;
    for (; b + 2 <= nb; b += 2) {
        mp_x86_prefetch_unit(pf0, (size_t)b / 2, 2 * step, prefetch);
        __m512i a = _mm512_loadu_si512((const void *)(qx + 32 * b));
        __m512i c = act_c2(a);
        for (int i = 0; i < 4; i++) {
            const uint8_t *blk = wr[i] + (size_t)b * ROWS4_BYTES;
            __m512i p = pair_dot(blk, a, c);
            __m512 d = _mm512_insertf32x8(
                _mm512_castps256_ps512(_mm256_set1_ps(mp_x86_half_at(blk) * dx[b])),
                _mm256_set1_ps(mp_x86_half_at(blk + ROWS4_BYTES) * dx[b + 1]), 1);
            acc[i] = _mm512_add_ps(acc[i], _mm512_mul_ps(_mm512_cvtepi32_ps(p), d));
        }
    }
    if (b < nb) { /* odd block count: the last (even) block into lanes 0-7 only */
        __m256i a = _mm256_loadu_si256((const __m256i *)(qx + 32 * b));
        __m256i c = act_c(a);
        for (int i = 0; i < 4; i++) {
            __m256 t = block_term(wr[i] + (size_t)b * ROWS4_BYTES, a, c, dx[b]);
            acc[i] = _mm512_mask_add_ps(acc[i], 0x00ff, acc[i], _mm512_castps256_ps512(t));
        }
    }
    for (int i = 0; i < 4; i++)
        out[i] = mp_x86_fold16(acc[i]);
}
#else
static inline void rows4(const uint8_t *const *wr, const uint8_t *pf0, size_t step,
                         const void *act, int k, int t, int prefetch, float *out)
{
    const float *dx = mp_q80act_d(act, k, t);
    const int8_t *qx = mp_q80act_q(act, k, t);
    const int nb = k / MP_Q80_QK;
    __m256 ea[4], oa[4];
    for (int i = 0; i < 4; i++)
        ea[i] = oa[i] = _mm256_setzero_ps();
    int b = 0;
    for (; b + 2 <= nb; b += 2) {
        mp_x86_prefetch_unit(pf0, (size_t)b / 2, 2 * step, prefetch);
        __m256i a0 = _mm256_loadu_si256((const __m256i *)(qx + 32 * b));
        __m256i a1 = _mm256_loadu_si256((const __m256i *)(qx + 32 * b + 32));
        __m256i c0 = act_c(a0), c1 = act_c(a1);
        for (int i = 0; i < 4; i++) {
            const uint8_t *blk = wr[i] + (size_t)b * ROWS4_BYTES;
            ea[i] = _mm256_add_ps(ea[i], block_term(blk, a0, c0, dx[b]));
            oa[i] = _mm256_add_ps(oa[i], block_term(blk + ROWS4_BYTES, a1, c1, dx[b + 1]));
        }
    }
    if (b < nb) {
        __m256i a0 = _mm256_loadu_si256((const __m256i *)(qx + 32 * b));
        __m256i c0 = act_c(a0);
        for (int i = 0; i < 4; i++)
            ea[i] = _mm256_add_ps(ea[i], block_term(wr[i] + (size_t)b * ROWS4_BYTES, a0, c0, dx[b]));
    }
    for (int i = 0; i < 4; i++)
        out[i] = mp_x86_fold2x8(ea[i], oa[i]);
}
#endif

/* Rows [m0, m1) of Y for all N tokens (K % 32 == 0), four rows per group. */
static inline void rows4_gemm(const mp_op *op, const void *act, int n, float *y, int m0, int m1)
{
    const size_t row_bytes = (size_t)(op->k / MP_Q80_QK) * ROWS4_BYTES;
    mp_rows4_gemm(op, act, n, y, m0, m1, row_bytes, ROWS4_BYTES,
                  (size_t)mp_op_param(op, "pf", PF_BYTES), mp_op_param(op, "pfh", MP_PFH_T1), 1,
                  rows4, rows4);
}
