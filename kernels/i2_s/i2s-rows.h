/* i2s-rows.h - the row loop every I2_S SIMD path shares (x86 and Arm): four
 * rows at a time, tokens inner so the group's R*K/4 bytes stay in L1, a tail
 * group row by row, and the lossless dequantization sum(code*q) - sum(q).
 * A path writes only its dot_rows(w0, row_bytes, R, q, nblk, out, pf, pfh): the
 * integer dots of R (1 or 4) contiguous rows with one token, prefetching `pf`
 * bytes ahead (0 = off) with hint pfh (MP_PFH_*; the Arm paths ignore it).
 * Always inlined: dot_rows is called directly. */
#ifndef MP_I2S_ROWS_H
#define MP_I2S_ROWS_H

#include "i2s.h"
#include "../common/mp_numerics.h"

typedef void mp_i2s_dot_rows(const uint8_t *w0, size_t row_bytes, int R, const int8_t *q,
                             int nblk, int32_t *out, size_t pf, int pfh);

/* Contract: K % 128 == 0, rows [m0, m1) (m0 % 4 == 0), all N tokens; reads only
 * the packed rows and the activations (prefetches may point past them). */
static inline __attribute__((always_inline)) void
mp_i2s_gemm_rows(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                 size_t pf, int pfh, mp_i2s_dot_rows *dot_rows)
{
    const int k = op->k, nblk = k / 128;
    const size_t row_bytes = (size_t)k / 4;
    int32_t s[4];
    for (int r = m0; r < m1; r += 4) {
        int R = m1 - r < 4 ? m1 - r : 4;
        const uint8_t *w0 = op->w + (size_t)r * row_bytes;
        for (int t = 0; t < n; t++) {
            const mp_q8hdr *h = mp_q8act_hdr(act, k, t);
            const int8_t *q = mp_q8act_q(act, k, t);
            if (R == 4)
                dot_rows(w0, row_bytes, 4, q, nblk, s, pf, pfh);
            else
                for (int i = 0; i < R; i++)
                    dot_rows(w0 + i * row_bytes, row_bytes, 1, q, nblk, s + i, pf, pfh);
            float *yt = y + (size_t)t * op->m + r;
            for (int i = 0; i < R; i++)
                yt[i] = mp_dequant(s[i] - h->qsum, op->w_scale, h->x_scale);
        }
    }
}

#endif
