/* mp_rows4.h - the row-group driver every MAD path shares (I2_S, Q4_0, Q8_0,
 * TQ1_0, TQ2_0, F16 on every ISA): rows are taken four at a time so that they
 * share each activation load; a tail group repeats its last row (computed,
 * never stored); tokens are taken `tt` at a time (1 for most paths).  Software
 * prefetch runs on the first token only, `ahead` bytes along the group's rows
 * rounded up to whole groups, at the rate the group consumes them.
 *
 * A path writes only its tile function, the inner loop where the instructions
 * differ:
 *   tile(wr, pf, step, act, k, t, prefetch, out)
 *     wr[4]     the four rows' packed bytes (tail: last row repeated)
 *     pf, step  prefetch pointer at unit 0 and bytes per unit
 *     prefetch  the hint of the prefetches (MP_PFH_*, for mp_x86_prefetch_unit),
 *               or -1: none (pf_bytes 0, or a token after the first)
 *     act, k, t the prepared activations, K, the first token of the tile
 *     out       out[t' * 4 + i] = row i, token t + t'
 * The driver is always inlined, so the tile function is called directly (and
 * inlined) in each path: no indirect call in the hot loop. */
#ifndef MP_ROWS4_H
#define MP_ROWS4_H

#include <stddef.h>
#include <stdint.h>

#include "../mp_kernel.h"

enum { MP_ROWS4_MAX_TT = 8 };

typedef void mp_rows4_tile(const uint8_t *const *wr, const uint8_t *pf, size_t step,
                           const void *act, int k, int t, int prefetch, float *out);

/* Rows [m0, m1) of Y for all n tokens.  row_bytes: one packed row; unit_bytes:
 * what one row consumes per prefetch unit; pf_bytes: the prefetch distance (0 =
 * none) and pfh its hint (MP_PFH_*): the row's "pf" and "pfh"; tt tokens per
 * call of `tile` (<= MP_ROWS4_MAX_TT), the token tail one at a time through
 * `one`. */
static inline __attribute__((always_inline)) void
mp_rows4_gemm(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
              size_t row_bytes, size_t unit_bytes, size_t pf_bytes, int pfh, int tt,
              mp_rows4_tile *tile, mp_rows4_tile *one)
{
    const int k = op->k;
    for (int r = m0; r < m1; r += 4) {
        const int R = m1 - r < 4 ? m1 - r : 4;
        const uint8_t *wr[4];
        for (int i = 0; i < 4; i++) /* tail group: repeat the last row */
            wr[i] = op->w + (size_t)(r + (i < R ? i : R - 1)) * row_bytes;
        const size_t span = (size_t)R * row_bytes;
        const size_t ahead = span * ((pf_bytes + span - 1) / span);
        const size_t step = (size_t)R * unit_bytes;
        float o[4 * MP_ROWS4_MAX_TT];
        for (int t0 = 0; t0 < n; t0 += tt) {
            const int T = n - t0 < tt ? n - t0 : tt;
            if (T == tt)
                tile(wr, wr[0] + ahead, step, act, k, t0, pf_bytes && t0 == 0 ? pfh : -1, o);
            else
                for (int t = 0; t < T; t++) /* token tail one at a time */
                    one(wr, wr[0] + ahead, step, act, k, t0 + t,
                        pf_bytes && t0 == 0 && t == 0 ? pfh : -1, o + 4 * t);
            for (int t = 0; t < T; t++)
                for (int i = 0; i < R; i++)
                    y[(size_t)(t0 + t) * op->m + r + i] = o[t * 4 + i];
        }
    }
}

#endif
