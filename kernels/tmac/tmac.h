/* tmac.h - T-MAC's bit-wise LUT kernel for ternary weights (seed 001 §2.2, seed
 * 000 §2.3 and Fig. 4(2)): the int2 variant the bitnet.cpp paper measures TL2_0
 * against.
 *
 * Weights: code c = w + 1 in {0, 1, 2} as two bit planes b0 = c & 1, b1 = c >> 1;
 * per row, groups of g = 4 columns give one 4-bit index per plane.  With the bits
 * read as signs s = 2b - 1, the table of a group is T[i] = sum_j s_j(i) a_j over
 * the 16 patterns i: T[15 - i] = -T[i] (mirror consolidation: 8 entries computed,
 * 8 negated), and sum_j b_j a_j = (T[i] + sum a) / 2, so per token
 *     acc = sum w q = (S0 + 2 S1 + sum q) / 2,   S_p = sum over groups of T[i_p]
 * (each plane looked up, the second shifted by one bit, then accumulated).
 * Tables are quantized to int8 with one scale per token, 127 / tmax, tmax =
 * max over groups of sum |a_j| (= the largest |entry|): lossy, as in T-MAC.
 *
 * Packed layout (contiguous, consumption order): rows in blocks of 32 (the last
 * padded with zero weights); per block, K/8 steps of 64 bytes = four 16-byte lane
 * blocks (rows 0-15, group 2s), (rows 0-15, group 2s+1), (rows 16-31, 2s),
 * (rows 16-31, 2s+1); byte i of a lane block = row i of its half, plane-0 index
 * in the low nibble, plane-1 index in the high nibble.  Both nibbles use the same
 * table, so one table register serves a whole step.  32-byte trailer with the
 * float scale.  2 bits per weight.  K % 8 == 0.
 *
 * Tables (per token): a 64-byte header {float x_scale; int32 tmax; int32 qsum},
 * then K/4 tables of 16 bytes (int8 entries biased by +128: unsigned lookups),
 * then the K int8 activations.
 */
#ifndef MP_TMAC_H
#define MP_TMAC_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../mp_kernel.h"
#include "../common/mp_numerics.h"

enum { MP_TMAC_BM = 32, MP_TMAC_STEP = 64, MP_TMAC_HDR = 64, MP_TMAC_FLUSH = 64 };

typedef struct mp_tmac_hdr {
    float x_scale;
    int32_t tmax;
    int32_t qsum;
} mp_tmac_hdr;

static inline size_t mp_tmac_blk_bytes(int k)
{
    return (size_t)k / 8 * MP_TMAC_STEP;
}
static inline size_t mp_tmac_act_stride(int k)
{
    return MP_TMAC_HDR + (size_t)k / 4 * 16 + ((size_t)k + 63) / 64 * 64;
}
static inline const mp_tmac_hdr *mp_tmac_act_hdr(const void *act, int k, int t)
{
    return (const mp_tmac_hdr *)((const uint8_t *)act + (size_t)t * mp_tmac_act_stride(k));
}
static inline const uint8_t *mp_tmac_tab(const void *act, int k, int t)
{
    return (const uint8_t *)mp_tmac_act_hdr(act, k, t) + MP_TMAC_HDR;
}

/* Output from s8 = S0 + 2 S1 (int8-table sums); every path uses this. */
static inline float mp_tmac_dequant(int32_t s8, const mp_tmac_hdr *h, float w_scale)
{
    float acc = ((float)s8 * ((float)h->tmax / 127.0f) + (float)h->qsum) * 0.5f;
    return acc / h->x_scale * w_scale;
}

int mp_tmac_check(int m, int k, const int *param, char *why, size_t len);
size_t mp_tmac_packed_size(int m, int k, const int *param);
void mp_tmac_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                  uint8_t *out);
void mp_tmac_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w);
size_t mp_tmac_act_size(int n, int k, const int *param);
void mp_tmac_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1);
/* The same tables built with AVX2 (tmac-avx2.c), for the AVX2 and AVX-512 rows. */
void mp_tmac_prepare__avx2(const mp_op *op, const float *x, int n, void *act, int t0, int t1);
/* Rows [row0, row0 + nrows) of token t from their sums s8 -> y. */
void mp_tmac_store(const mp_op *op, const void *act, int t, const int32_t *s8, int row0,
                   int nrows, float *y);

/* The start of prepare for token t, shared by the scalar and AVX2 table
 * builders: the int8 activations quantized into their place after the tables,
 * their sum and the largest group sum of |a| (the table scale) into *h.
 * Returns the token's tables (its header is MP_TMAC_HDR bytes before them). */
static inline uint8_t *mp_tmac_prep_token(const float *x, int k, void *act, int t,
                                          mp_tmac_hdr *h)
{
    uint8_t *tab = (uint8_t *)act + (size_t)t * mp_tmac_act_stride(k) + MP_TMAC_HDR;
    int8_t *q = (int8_t *)(tab + (size_t)k / 4 * 16);
    *h = (mp_tmac_hdr){mp_quant_row(x + (size_t)t * k, k, q), 1, 0};
    for (int j = 0; j < k; j++)
        h->qsum += q[j];
    for (int gr = 0; gr < k / 4; gr++) {
        const int8_t *a = q + 4 * gr;
        int s = abs(a[0]) + abs(a[1]) + abs(a[2]) + abs(a[3]);
        h->tmax = s > h->tmax ? s : h->tmax;
    }
    return tab;
}

/* The compute of every SIMD path around its block function: every
 * MP_TMAC_BM-row block for each token, its int32 sums by block (K / 8 steps,
 * prefetching pf bytes ahead with hint pfh, MP_PFH_*, which NEON ignores), then
 * stored.  Always inlined, so block is a direct call. */
typedef void mp_tmac_block_fn(const uint8_t *wp, int nsteps, const uint8_t *tab, size_t pf,
                              int pfh, int32_t *sums);
static inline __attribute__((always_inline)) void
mp_tmac_gemm_blocks(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                    size_t pf, int pfh, mp_tmac_block_fn *block)
{
    const int k = op->k;
    int32_t sums[MP_TMAC_BM];
    for (int r0 = m0; r0 < m1; r0 += MP_TMAC_BM) {
        const uint8_t *blk = op->w + (size_t)(r0 / MP_TMAC_BM) * mp_tmac_blk_bytes(k);
        int nr = m1 - r0 < MP_TMAC_BM ? m1 - r0 : MP_TMAC_BM;
        for (int t = 0; t < n; t++) {
            block(blk, k / 8, mp_tmac_tab(act, k, t), pf, pfh, sums);
            mp_tmac_store(op, act, t, sums, r0, nr, y);
        }
    }
}

MP_DECLARE_COMPUTE(mp_tmac_gemm); /* mp_tmac_gemm__<isa>, one per kernel file */

#endif
