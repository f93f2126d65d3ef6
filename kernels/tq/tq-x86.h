/* tq-x86.h - the TQ1_0 / TQ2_0 row-group loop written once for AVX2 and AVX-512
 * (included by tq1_0-avx2.c, tq1_0-avx512.c, tq2_0-avx2.c and tq2_0-avx512.c after
 * they define what differs: the vector width and how one block's codes meet the
 * activations).  Per 256-weight block and row: sum(code * q) in int16 lanes
 * (codes 0..2, so at most 2 x 2 x 127 per pair), minus the Q8_K bsums (which
 * turns codes into weights -1..1), widened with vpmaddwd; the four rows' int32
 * sums go to float and are scaled by d_w * d_x in float, lane by lane the
 * scalar arithmetic (tq.h), so SIMD equals scalar bit for bit.
 *
 * The includer defines (its vectors are VI below: __m512i where AVX-512BW is on,
 * __m256i otherwise):
 *   load_q(a, q)      the block's 256 int8 activations into q[NQ]
 *   block16(blk, q)   int16 lanes of sum(code * q) over one packed block
 *   TQ_BYTES, TQ_GEMM block bytes, the entry point's name
 *   TQ_ROW_UNROLL     (optional, default 4) how far gcc may unroll the 4-row
 *                     loop: 1 where the activations fill the register file
 * This file gives the rest per vector width: VI, NQ (vectors of activations per
 * block), load_bsums (the 16 int16 bsums lined up with block16's lanes),
 * MADD_ONES, VSUB16, HSUM4 (widen, subtract, the four rows' sums). */
#include "tq.h"
#include "../common/mp_rows4.h"
#include "../common/mp_x86.h"

#if defined(__AVX512BW__)
#define VI __m512i
#define NQ 4
#define MADD_ONES(v) _mm512_madd_epi16((v), _mm512_set1_epi16(1))
#define VSUB16(a, b) _mm512_sub_epi16((a), (b))
#define HSUM4(a, b, c, d) mp_x86_hsum4_epi32x16((a), (b), (c), (d))
/* the 16 bsums in int16 lanes 0-15, zeros above: the sum over all lanes is
 * what the row's total needs (the block16 of both formats lines them up so) */
static inline __m512i load_bsums(const mp_block_q8_K *a)
{
    return _mm512_zextsi256_si512(_mm256_loadu_si256((const __m256i *)a->bsums));
}
#else
#define VI __m256i
#define NQ 8
#define MADD_ONES(v) _mm256_madd_epi16((v), _mm256_set1_epi16(1))
#define VSUB16(a, b) _mm256_sub_epi16((a), (b))
#define HSUM4(a, b, c, d) mp_x86_hsum4_epi32((a), (b), (c), (d))
static inline __m256i load_bsums(const mp_block_q8_K *a)
{
    return _mm256_loadu_si256((const __m256i *)a->bsums);
}
#endif

#ifndef TQ_ROW_UNROLL
#define TQ_ROW_UNROLL 4
#endif
#define TQ_PRAGMA_(x) _Pragma(#x)
#define TQ_UNROLL_(n) TQ_PRAGMA_(GCC unroll n)

/* software prefetch distance along the row group where the row has no "pf"
 * (every x86 row has; its hint "pfh": T0 for TQ2_0, variants/mad.c) */
enum { PF_BYTES = 8192 };

/* out[i] for the 4 row pointers wr[] (duplicates allowed) and one token. */
static inline __attribute__((always_inline)) void
rows4(const uint8_t *const *wr, const uint8_t *pf0, size_t step, const void *act, int k, int t,
      int prefetch, float *out)
{
    const mp_block_q8_K *a = mp_q8k_token(act, k, t);
    const int nb = k / MP_QK_K;
    __m128 acc = _mm_setzero_ps();
    for (int b = 0; b < nb; b++) {
        /* the group's rows are one contiguous span; walking them in parallel
         * defeats the hardware prefetcher, so fetch ahead at the rate of use */
        mp_x86_prefetch_unit(pf0, (size_t)b, step, prefetch);
        VI q[NQ];
        load_q(&a[b], q);
        VI bs = load_bsums(&a[b]), s[4];
        const size_t off = (size_t)b * TQ_BYTES;
        TQ_UNROLL_(TQ_ROW_UNROLL)
        for (int i = 0; i < 4; i++)
            s[i] = MADD_ONES(VSUB16(block16(wr[i] + off, q), bs));
        __m128 dot = _mm_cvtepi32_ps(HSUM4(s[0], s[1], s[2], s[3]));
        __m128 db = _mm_mul_ps(mp_x86_half4_at(wr, off + TQ_BYTES - 2), _mm_set1_ps(a[b].d));
        acc = _mm_add_ps(acc, _mm_mul_ps(dot, db));
    }
    _mm_storeu_ps(out, acc);
}

/* Contract: K % 256 == 0, rows [m0, m1), all N tokens; reads only the packed
 * rows and the Q8_K blocks (prefetches may point past them: harmless). */
void TQ_GEMM(const mp_op *op, const void *act, int n, float *y, int m0, int m1, void *scratch)
{
    (void)scratch;
    const size_t row_bytes = (size_t)(op->k / MP_QK_K) * TQ_BYTES;
    mp_rows4_gemm(op, act, n, y, m0, m1, row_bytes, TQ_BYTES,
                  (size_t)mp_op_param(op, "pf", PF_BYTES), mp_op_param(op, "pfh", MP_PFH_T1), 1,
                  rows4, rows4);
}
