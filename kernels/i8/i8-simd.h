/* i8-simd.h - the I8 product once for every x86 SIMD path (the pattern of
 * kernels/vlut/vlut-simd.h: one template, several ISAs).  The including file
 * (i8-avx2.c, i8-avxvnni.c, i8-avx512vnni.c, each built with its own flags)
 * defines:
 *
 *   I8_FN           the function's name
 *   I8_VEC          the vector type; I8_BYTES its width in bytes (32 or 64)
 *   I8_LOAD(p)      an unaligned load; I8_ZERO() a zero vector
 *   I8_DOT(a, u, q) a += the int32 sums of 4 adjacent products of the stored
 *                   weight bytes u with the int8 activations q
 *   I8_HSUM(a)      the sum of a's int32 lanes
 *   I8_OFFSET       what I8_DOT leaves to subtract per unit of sum(q): 128 when
 *                   it multiplies the stored unsigned bytes (w + 128, VNNI's
 *                   vpdpbusd), 0 when it recovers the signed weights itself
 *   I8_GEMM_MR, I8_GEMM_NR  rows and tokens of the GEMM's register block:
 *                   MR x NR accumulators beside NR activations, one weight
 *                   vector and I8_DOT's temporaries, in the ISA's registers
 *
 * GEMV (N = 1): four rows share each activation load.  GEMM (N > 1): a block
 * of MR rows x NR tokens in registers, each weight vector loaded once for NR
 * tokens and each activation vector once for MR rows (the GEMV read every
 * weight vector once per token: 80-93 GOPS at N = 128 on the AMD EPYC AVX2
 * VM); the MR rows' weights stay in L1/L2 while every token passes.
 * Every path produces the reference's int32 sum exactly and dequantizes it
 * with mp_dequant (lossless).
 *
 * Software prefetch (the rows' "pf" and "pfh"; default pf = 0, none, as before
 * they were parameters), GEMV only: the nr rows are one contiguous span walked
 * in parallel, fetched pf bytes on (rounded up to whole spans) at the rate
 * they are consumed.  The GEMM reads each row block from memory once, for its
 * first tokens, and leaves it to the hardware prefetcher (MR sequential rows). */
#include "i8.h"

#include "../common/mp_numerics.h"
#include "../common/mp_x86.h"

/* Token t of rows r .. r + nr - 1, prefetching `ahead` bytes on with hint pfh
 * (a constant: MP_X86_PFH_DISPATCH; -1 none). */
static inline __attribute__((always_inline)) void i8_token(const mp_op *op, const void *act,
                                                           float *y, int r, int nr, int t,
                                                           size_t ahead, int pfh)
{
    const int k = op->k;
    const size_t rb = mp_i8_row_bytes(k);
    const uint8_t *w0 = op->w + (size_t)r * rb;
    const mp_q8hdr *h = mp_q8act_hdr(act, k, t);
    const int8_t *q = mp_q8act_q(act, k, t);
    I8_VEC a0 = I8_ZERO(), a1 = I8_ZERO(), a2 = I8_ZERO(), a3 = I8_ZERO();
    for (size_t j = 0; j < rb; j += I8_BYTES) {
        mp_x86_prefetch_unit(w0 + ahead, j / I8_BYTES, (size_t)nr * I8_BYTES, pfh);
        I8_VEC qv = I8_LOAD(q + j);
        I8_DOT(a0, I8_LOAD(w0 + j), qv);
        if (nr > 1)
            I8_DOT(a1, I8_LOAD(w0 + rb + j), qv);
        if (nr > 2)
            I8_DOT(a2, I8_LOAD(w0 + 2 * rb + j), qv);
        if (nr > 3)
            I8_DOT(a3, I8_LOAD(w0 + 3 * rb + j), qv);
    }
    const int32_t corr = I8_OFFSET * h->qsum;
    float *yt = y + (size_t)t * op->m + r;
    yt[0] = mp_dequant(I8_HSUM(a0) - corr, op->w_scale, h->x_scale);
    if (nr > 1)
        yt[1] = mp_dequant(I8_HSUM(a1) - corr, op->w_scale, h->x_scale);
    if (nr > 2)
        yt[2] = mp_dequant(I8_HSUM(a2) - corr, op->w_scale, h->x_scale);
    if (nr > 3)
        yt[3] = mp_dequant(I8_HSUM(a3) - corr, op->w_scale, h->x_scale);
}

static inline __attribute__((always_inline)) void i8_rows(const mp_op *op, const void *act, int n,
                                                          float *y, int r, int nr, size_t pf,
                                                          int pfh)
{
    const size_t span = (size_t)nr * mp_i8_row_bytes(op->k);
    const size_t ahead = span * ((pf + span - 1) / span);
    for (int t = 0; t < n; t++) {
        if (t == 0 && pf) {
#define I8_TOKEN(H) i8_token(op, act, y, r, nr, t, ahead, H)
            MP_X86_PFH_DISPATCH(pfh, I8_TOKEN);
#undef I8_TOKEN
        } else {
            i8_token(op, act, y, r, nr, t, 0, -1);
        }
    }
}

/* Rows r .. r + MR - 1 times tokens t0 .. t0 + nt - 1 (nt <= I8_GEMM_NR, a
 * constant where inlined): MR x nt accumulators over the padded row. */
static inline __attribute__((always_inline)) void i8_block(const mp_op *op, const void *act,
                                                          float *y, int r, int t0, const int nt)
{
    const int k = op->k;
    const size_t rb = mp_i8_row_bytes(k);
    const uint8_t *w0 = op->w + (size_t)r * rb;
    const int8_t *q[I8_GEMM_NR];
    I8_VEC acc[I8_GEMM_MR][I8_GEMM_NR];
    MP_UNROLL for (int t = 0; t < nt; t++) {
        q[t] = mp_q8act_q(act, k, t0 + t);
        MP_UNROLL for (int i = 0; i < I8_GEMM_MR; i++)
            acc[i][t] = I8_ZERO();
    }
    for (size_t j = 0; j < rb; j += I8_BYTES) {
        I8_VEC qv[I8_GEMM_NR];
        MP_UNROLL for (int t = 0; t < nt; t++)
            qv[t] = I8_LOAD(q[t] + j);
        MP_UNROLL for (int i = 0; i < I8_GEMM_MR; i++) {
            const I8_VEC u = I8_LOAD(w0 + (size_t)i * rb + j);
            MP_UNROLL for (int t = 0; t < nt; t++)
                I8_DOT(acc[i][t], u, qv[t]);
        }
    }
    MP_UNROLL for (int t = 0; t < nt; t++) {
        const mp_q8hdr *h = mp_q8act_hdr(act, k, t0 + t);
        const int32_t corr = I8_OFFSET * h->qsum;
        float *yt = y + (size_t)(t0 + t) * op->m + r;
        MP_UNROLL for (int i = 0; i < I8_GEMM_MR; i++)
            yt[i] = mp_dequant(I8_HSUM(acc[i][t]) - corr, op->w_scale, h->x_scale);
    }
}

/* Rows r .. r + MR - 1, every token: full register blocks, then the tail's width. */
static void i8_gemm_rows(const mp_op *op, const void *act, int n, float *y, int r)
{
    int t = 0;
    for (; t + I8_GEMM_NR <= n; t += I8_GEMM_NR)
        i8_block(op, act, y, r, t, I8_GEMM_NR);
    switch (n - t) { /* each width a constant: the block's arrays stay in registers */
#define I8_TAIL(W)                                      case W:                                                 if (W < I8_GEMM_NR)                                     i8_block(op, act, y, r, t, W);                  break;
        I8_TAIL(1) I8_TAIL(2) I8_TAIL(3) I8_TAIL(4) I8_TAIL(5)
#undef I8_TAIL
    default:
        break;
    }
}
_Static_assert(I8_GEMM_NR >= 1 && I8_GEMM_NR <= 6, "i8_gemm_rows' tail covers NR <= 6");

void I8_FN(const mp_op *op, const void *act, int n, float *y, int m0, int m1, void *scratch)
{
    (void)scratch;
    const size_t pf = (size_t)mp_op_param(op, "pf", 0);
    const int pfh = mp_op_param(op, "pfh", MP_PFH_T1);
    int r = m0;
    if (n > 1)
        for (; r + I8_GEMM_MR <= m1; r += I8_GEMM_MR)
            i8_gemm_rows(op, act, n, y, r);
    for (; r + 4 <= m1; r += 4)
        i8_rows(op, act, n, y, r, 4, pf, pfh);
    for (; r < m1; r++)
        i8_rows(op, act, n, y, r, 1, pf, pfh);
}
