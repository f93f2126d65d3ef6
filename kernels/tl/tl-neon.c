/* tl-neon.c - TL1/TL2 (_0 and _1) with AArch64 NEON: the table lookups are
 * vqtbl1q_u8 (tbl), the instruction bitnet.cpp designed TL1 around (seed 000
 * §3.1: a 16-entry byte table per register, a 4-bit index per weight group).
 *
 * The packed layout and the tables are tl.h's, shared with the scalar and x86
 * paths, so one pack serves all.  A 16-byte lane block of a step holds the
 * indices of 16 consecutive rows for one group pair: low nibbles index group 2p,
 * high nibbles group 2p+1, whose tables are one 16-byte load each (an int8
 * table for _0; the low-byte and the high-byte halves of the int16 table for
 * _1).  Each lane block j keeps its own int16 accumulators, so an int16 lane
 * takes two lookups per step: at most 2 * MP_TL_FLUSH * 382 < 32768 before it
 * is widened into int32 (|entry| <= 3 * 127 = 381, one more after eq. 5's xor).
 *
 * Signs (TL2, eq. 5): the 16 sign bits of a lane block are expanded to bytes
 * 0 / 0xff (dup, and with the bit weights, tst) and xor-ed into the looked-up
 * bytes; the +1 half of eq. 5 is the per-row count of negative triples stored
 * with the row block, added once.  _0 tables are stored biased by +128: xor
 * with 0x80 turns a looked-up byte into the signed entry (and a sign-xor-ed one
 * into its one's complement, as eq. 5 wants).  The integer sums equal the
 * scalar path's; the float scaling is mp_tl_store's.  Bit for bit equal to
 * tl-scalar.c.  Prepare is the scalar one (same tables). */
#include <arm_neon.h>

#include <string.h>

#include "tl.h"

#define INLINE static inline __attribute__((always_inline))

/* 16 sign bits at p (bit b <-> byte b, little endian) -> 16 bytes 0 / 0xff. */
INLINE uint8x16_t expand_signs16(const uint8_t *p)
{
    static const uint8_t w[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    uint8x16_t b = vcombine_u8(vdup_n_u8(p[0]), vdup_n_u8(p[1]));
    return vtstq_u8(b, vld1q_u8(w));
}

/* Table of group gr (its octet slot, tl.h); hb selects the high-byte half (_1). */
INLINE const uint8_t *table_of(const uint8_t *tab, int ll, int gr, int hb)
{
    int pos = gr % 8;
    return tab + (size_t)(gr / 8) * mp_tl_octet(ll) + (pos & 1) * 64 + (pos >> 1) * 16 +
           hb * 128;
}

/* int16 accumulators of one lane block: rows 0-7 and 8-15 of its 16 rows. */
typedef struct lane_acc {
    int16x8_t a16[2];
    int32x4_t a32[4];
} lane_acc;

/* One lane block (16 index bytes v) against the tables of groups ga (low
 * nibbles) and ga + 1 (high nibbles), signs sb (NULL: none) into acc. */
INLINE void lane_step(lane_acc *acc, uint8x16_t v, const uint8_t *tab, int ll, int ga,
                      const uint8_t *sb, int sign)
{
    const uint8x16_t m0f = vdupq_n_u8(0x0f);
    uint8x16_t il = vandq_u8(v, m0f), ih = vshrq_n_u8(v, 4);
    uint8x16_t sa = vdupq_n_u8(0), sh = sa;
    if (sign) {
        sa = expand_signs16(sb);
        sh = expand_signs16(sb + 8);
    }
    if (ll) {
        uint8x16_t al = vqtbl1q_u8(vld1q_u8(table_of(tab, 1, ga, 0)), il);
        uint8x16_t ah = vqtbl1q_u8(vld1q_u8(table_of(tab, 1, ga, 1)), il);
        uint8x16_t bl = vqtbl1q_u8(vld1q_u8(table_of(tab, 1, ga + 1, 0)), ih);
        uint8x16_t bh = vqtbl1q_u8(vld1q_u8(table_of(tab, 1, ga + 1, 1)), ih);
        if (sign) { /* xor of both byte halves = xor of the int16 entry */
            al = veorq_u8(al, sa), ah = veorq_u8(ah, sa);
            bl = veorq_u8(bl, sh), bh = veorq_u8(bh, sh);
        }
        /* zip rejoins (low, high) byte pairs into little-endian int16 entries */
        int16x8_t x0 = vreinterpretq_s16_u8(vzip1q_u8(al, ah));
        int16x8_t x1 = vreinterpretq_s16_u8(vzip2q_u8(al, ah));
        int16x8_t y0 = vreinterpretq_s16_u8(vzip1q_u8(bl, bh));
        int16x8_t y1 = vreinterpretq_s16_u8(vzip2q_u8(bl, bh));
        acc->a16[0] = vaddq_s16(acc->a16[0], vaddq_s16(x0, y0));
        acc->a16[1] = vaddq_s16(acc->a16[1], vaddq_s16(x1, y1));
    } else {
        const uint8x16_t bias = vdupq_n_u8(0x80);
        uint8x16_t x = vqtbl1q_u8(vld1q_u8(table_of(tab, 0, ga, 0)), il);
        uint8x16_t y = vqtbl1q_u8(vld1q_u8(table_of(tab, 0, ga + 1, 0)), ih);
        if (sign)
            x = veorq_u8(x, sa), y = veorq_u8(y, sh);
        int8x16_t xs = vreinterpretq_s8_u8(veorq_u8(x, bias));
        int8x16_t ys = vreinterpretq_s8_u8(veorq_u8(y, bias));
        acc->a16[0] = vaddq_s16(acc->a16[0], vaddl_s8(vget_low_s8(xs), vget_low_s8(ys)));
        acc->a16[1] = vaddq_s16(acc->a16[1], vaddl_high_s8(xs, ys));
    }
}

INLINE void lane_flush(lane_acc *acc)
{
    acc->a32[0] = vaddw_s16(acc->a32[0], vget_low_s16(acc->a16[0]));
    acc->a32[1] = vaddw_high_s16(acc->a32[1], acc->a16[0]);
    acc->a32[2] = vaddw_s16(acc->a32[2], vget_low_s16(acc->a16[1]));
    acc->a32[3] = vaddw_high_s16(acc->a32[3], acc->a16[1]);
    acc->a16[0] = acc->a16[1] = vdupq_n_s16(0);
}

/* One part (TL2 steps with signs, or TL1 steps) of one row block. */
INLINE const uint8_t *run_part(lane_acc *acc, const uint8_t *wp, int nsteps, int sign,
                               int ll, int bm, int gps, const uint8_t *tab)
{
    const size_t step = sign ? MP_TL2_STEP : MP_TL_STEP;
    for (int s0 = 0; s0 < nsteps; s0 += MP_TL_FLUSH) {
        int s1 = s0 + MP_TL_FLUSH < nsteps ? s0 + MP_TL_FLUSH : nsteps;
        for (int s = s0; s < s1; s++, wp += step)
            for (int j = 0; j < 4; j++) {
                int p = bm == 16 ? j : j % 2; /* lane block j: group pair p (tl.h) */
                lane_step(&acc[j], vld1q_u8(wp + 16 * j), tab, ll, s * gps + 2 * p,
                          wp + 64 + 2 * j, sign);
            }
        for (int j = 0; j < 4; j++)
            lane_flush(&acc[j]);
    }
    return wp;
}

INLINE void run_block(const mp_tl_geom *g, int ll, const uint8_t *blk, const uint8_t *tab3,
                      const uint8_t *tab2, int32_t *sums)
{
    const int bm = g->bm;
    lane_acc acc[4];
    for (int j = 0; j < 4; j++) {
        acc[j].a16[0] = acc[j].a16[1] = vdupq_n_s16(0);
        for (int i = 0; i < 4; i++)
            acc[j].a32[i] = vdupq_n_s32(0);
    }
    const uint8_t *wp = blk;
    if (g->tl2)
        wp = run_part(acc, wp, g->s3, 1, ll, bm, g->gps, tab3);
    wp = run_part(acc, wp, g->s1, 0, ll, bm, g->gps, tab2);
    /* lane block j covers rows 16h.. of the block, h = 0 (bm 16) or j / 2 (bm 32) */
    int32x4_t r[2][4];
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < 4; i++)
            r[h][i] = vdupq_n_s32(0);
    for (int j = 0; j < 4; j++) {
        int h = bm == 16 ? 0 : j / 2;
        for (int i = 0; i < 4; i++)
            r[h][i] = vaddq_s32(r[h][i], acc[j].a32[i]);
    }
    for (int h = 0; h < (bm == 16 ? 1 : 2); h++)
        for (int i = 0; i < 4; i++)
            vst1q_s32(sums + 16 * h + 4 * i, r[h][i]);
    if (g->tl2)
        for (int rr = 0; rr < bm; rr++) {
            int16_t c;
            memcpy(&c, wp + 2 * rr, 2);
            sums[rr] += c; /* the +1 half of eq. 5, once per negative triple */
        }
}

INLINE void gemm(const mp_op *op, int tl2, int ll, int bm, const void *act, int n, float *y,
                 int m0, int m1)
{
    mp_tl_geom g = mp_tl_geom_of(tl2, bm, op->m, op->k);
    int32_t sums[32];
    for (int r0 = m0; r0 < m1; r0 += bm) {
        const uint8_t *blk = op->w + (size_t)(r0 / bm) * g.blk_bytes;
        int nr = m1 - r0 < bm ? m1 - r0 : bm;
        for (int t = 0; t < n; t++) {
            run_block(&g, ll, blk, mp_tl_tab3(act, tl2, ll, op->k, t),
                      mp_tl_tab2(act, tl2, ll, op->k, t), sums);
            mp_tl_store(op, tl2, ll, act, t, sums, r0, nr, y);
        }
    }
}

void mp_tl_gemm__neon(MP_COMPUTE_ARGS)
{
    mp_tl_kind c = mp_tl_kind_of(op);
    (void)scratch;
    MP_TL_SPECIALIZE(gemm, op, c.tl2, c.lossless, c.bm, act, n, y, m0, m1);
}
