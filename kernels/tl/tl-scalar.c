/* tl-scalar.c - TL1/TL2 packing, table precompute and the portable path (the
 * oracle of the SIMD paths).  Seed 000 §3 and Appendix E (Tables 5-6, Alg. 3-4),
 * seed 004 §2.  Layouts in tl.h.  No ISA flags. */
#include "tl.h"

#include <stdio.h>
#include <string.h>

#include "../common/mp_numerics.h"
#include "../common/mp_swar.h"

/* Where the index of (row rr of a block, group g) of one part lives: byte offset
 * from the part's start, nibble (0 low, 1 high) and the bit of its sign mask. */
typedef struct slot {
    size_t byte;
    int hi;
    int bit;
} slot;

static inline slot slot_of(int bm, int gps, size_t step_bytes, int rr, int g)
{
    int s = g / gps, gi = g % gps, p = gi / 2, h = rr / 16, i = rr % 16;
    int j = bm == 16 ? p : h * 2 + p;
    slot sl = {(size_t)s * step_bytes + (size_t)j * 16 + (size_t)i, gi & 1, j * 16 + i};
    return sl;
}

/* Balanced-ternary digits of TL2 index i (0..13): i = 9a + 3b + c (Table 6). */
static const int8_t tl2_digits[14][3] = {
    {0, 0, 0},  {0, 0, 1},  {0, 1, -1}, {0, 1, 0}, {0, 1, 1},
    {1, -1, -1}, {1, -1, 0}, {1, -1, 1}, {1, 0, -1}, {1, 0, 0},
    {1, 0, 1},  {1, 1, -1}, {1, 1, 0},  {1, 1, 1},
};

int mp_tl_check(int tl2, int bm, int m, int k, char *why, size_t len)
{
    int kmul = bm == 16 ? 16 : 8;
    if (m < 1 || k < 1) {
        snprintf(why, len, "M and K must be positive");
        return 1;
    }
    if (k % kmul) {
        snprintf(why, len,
                 "K %% %d != 0: the TL1 pairs (%s) are consumed in whole %d-column steps "
                 "of bm=%d rows",
                 kmul, tl2 ? "the K remainder after ThreeK" : "all of K", kmul, bm);
        return 1;
    }
    if (tl2 && k >= 98304) {
        snprintf(why, len, "K >= 98304: a row's count of negative triples must fit int16");
        return 1;
    }
    return 0;
}

size_t mp_tl_packed_size(int tl2, int bm, int m, int k)
{
    mp_tl_geom g = mp_tl_geom_of(tl2, bm, m, k);
    return (size_t)g.nblk * g.blk_bytes + 32;
}

/* Lane block j of a step: its row half h and group pair p (tl.h). */
static inline void lane_of(int bm, int j, int *h, int *p)
{
    *h = bm == 16 ? 0 : j / 2;
    *p = bm == 16 ? j : j % 2;
}

/* The packing of two triples from u = v + 13 = 9(w0+1) + 3(w1+1) + (w2+1) of each
 * (0..26), at key 27 u0 + u1: the index byte |v0| | |v1| << 4, then the signs
 * v0 < 0 in bit 8 and v1 < 0 in bit 12.  Keys past 728 (no ternary pair gives
 * one) are 0. */
#define TL2_ABS(u) ((u) < 13 ? 13 - (u) : (u) - 13)
#define TL2_PAIR_(u0, u1)                                                               \
    (uint16_t)((u0) > 26 ? 0                                                            \
                         : TL2_ABS(u0) | TL2_ABS(u1) << 4 | ((u0) < 13) << 8 | ((u1) < 13) << 12)
#define TL2_PAIR(key) TL2_PAIR_((key) / 27, (key) % 27)
#define TL2_P4(k) TL2_PAIR(k), TL2_PAIR(k + 1), TL2_PAIR(k + 2), TL2_PAIR(k + 3)
#define TL2_P16(k) TL2_P4(k), TL2_P4(k + 4), TL2_P4(k + 8), TL2_P4(k + 12)
#define TL2_P64(k) TL2_P16(k), TL2_P16(k + 16), TL2_P16(k + 32), TL2_P16(k + 48)
#define TL2_P256(k) TL2_P64(k), TL2_P64(k + 64), TL2_P64(k + 128), TL2_P64(k + 192)
static const uint16_t tl2_pair[1024] = {TL2_P256(0), TL2_P256(256), TL2_P256(512),
                                        TL2_P256(768)};

/* TL2 steps packed per pass over a block's rows (each row read as one run of up
 * to 24 TL_RUN bytes); bounds the per-step sign masks kept on the stack. */
enum { TL_RUN = 256 };

/* tl2_pair entry of the two triples in bytes 0-5 (last = 0: of the 64-bit word
 * at c) or bytes 2-7 (last = 1: of the word at c - 2; a step's last pair, so that
 * no word reads past the step).  The codes times 0x090301 put 9 c0 + 3 c1 + c2
 * of bytes n-2..n at byte n (every byte <= 39: no carry), so u0 and u1 at bytes
 * 2 and 5 (4 and 7, shifted down to 2 and 5); masked to those two bytes, a
 * multiply by 1 + 27 << 24 adds 27 u0 to u1 at bit 40 (u1 * 27 << 24 falls off
 * the top). */
static inline unsigned tl2_pair_at(const int8_t *c, int last)
{
    uint64_t u = (mp_swar_tern_codes(mp_swar_ld64(c - 2 * last)) * 0x090301u) >> 16 * last;
    return tl2_pair[((u & 0x0000ff0000ff0000ull) * (1 + (27ull << 24)) >> 40) & 1023];
}

/* ns <= TL_RUN consecutive TL2 steps (80 bytes each from o) of a row block of BM
 * rows whose first nr are real (the rest zero weights: index 0, no sign); w is
 * the block's first row at the first step's first column.  Row by row rather
 * than the stream's lane order: each row's 3 gps ns weights are read as one
 * sequential run (not 16 or 32 rows a few bytes at a time), 24 bytes = 4 pairs
 * of triples at a time: one step of bm 16, two of bm 32 (ns is even: ThreeK is a
 * multiple of 192 columns = 16 bm-32 steps).  The 4 pair entries side by side in
 * the 16-bit lanes of e give the row's sign bits at bits 16 p; lane block j is p
 * (bm 16) or 2h + p (bm 32), so the row's bit of pair p of a step is 16 p + off.
 * Sign masks are collected in lo/hi and stored once (no read-modify-write of
 * the stream); neg[rr] counts the row's negative triples. */
static inline __attribute__((always_inline)) void
tl2_steps(const int8_t *w, size_t k, int nr, int BM, int ns, uint8_t *o, int *neg)
{
    const uint64_t lane0 = 0x0001000100010001ull;
    uint64_t lo[TL_RUN], hi[TL_RUN];
    memset(lo, 0, sizeof lo[0] * (size_t)ns);
    memset(hi, 0, sizeof hi[0] * (size_t)ns);
    for (int rr = 0; rr < nr; rr++) {
        const int8_t *c = w + (size_t)rr * k;
        int off = BM == 16 ? rr : rr / 16 * 32 + rr % 16, n = 0;
        uint8_t *os = o + off;
        for (int s = 0; s < ns; s += BM / 16, c += 24, os += BM / 16 * MP_TL2_STEP) {
            unsigned e0 = tl2_pair_at(c, 0), e1 = tl2_pair_at(c + 6, 0);
            unsigned e2 = tl2_pair_at(c + 12, 0), e3 = tl2_pair_at(c + 18, 1);
            uint64_t e = e0 | (uint64_t)e1 << 16 | (uint64_t)e2 << 32 | (uint64_t)e3 << 48;
            uint64_t sl = e >> 8 & lane0, sh = e >> 12 & lane0;
            n += (int)((sl + sh) * lane0 >> 48);
            os[0] = (uint8_t)e0, os[16] = (uint8_t)e1;
            if (BM == 16) {
                os[32] = (uint8_t)e2, os[48] = (uint8_t)e3;
                lo[s] |= sl << off;
                hi[s] |= sh << off;
            } else { /* pairs 2 and 3 are pairs 0 and 1 of the next step */
                os[MP_TL2_STEP] = (uint8_t)e2, os[MP_TL2_STEP + 16] = (uint8_t)e3;
                lo[s] |= (sl & 0xffffffffu) << off;
                hi[s] |= (sh & 0xffffffffu) << off;
                lo[s + 1] |= (sl >> 32) << off;
                hi[s + 1] |= (sh >> 32) << off;
            }
        }
        neg[rr] += n;
    }
    for (int s = 0; s < ns; s++) {
        uint8_t *os = o + (size_t)s * MP_TL2_STEP;
        for (int rr = nr; rr < BM; rr++)
            for (int p = 0; p < 64 / BM; p++) /* gps / 2 pairs */
                os[(BM == 16 ? p : 2 * (rr / 16) + p) * 16 + rr % 16] = 0;
        mp_swar_st64(os + 64, lo[s]);
        mp_swar_st64(os + 72, hi[s]);
    }
}

/* ns consecutive TL1 steps (64 bytes each from o), rows as in tl2_steps
 * (padding: zero pairs, index 4 in both nibbles), each row's whole TL1 part in
 * one run.  A row's 2 gps weights of a step are one or two 64-bit words: codes
 * c = w + 1 per byte, then 3 c0 + c1 per 16-bit lane (at most 8), two lanes per
 * index byte. */
static inline __attribute__((always_inline)) void
tl1_steps(const int8_t *w, size_t k, int nr, int BM, int ns, uint8_t *o)
{
    const uint64_t lanes = 0x00ff00ff00ff00ffull;
    for (int rr = 0; rr < nr; rr++) {
        const int8_t *c = w + (size_t)rr * k;
        int h = rr / 16, i = rr % 16;
        for (int s = 0; s < ns; s++)
            for (int x = 0; x < (BM == 16 ? 2 : 1); x++, c += 8) {
                uint64_t cw = mp_swar_tern_codes(mp_swar_ld64(c));
                uint64_t u = (cw & lanes) * 3 + (cw >> 8 & lanes);
                u |= u >> 12; /* lane 2q + 1 into the high nibble of lane 2q's byte */
                for (int q = 0; q < 2; q++) {
                    int p = 2 * x + q;
                    o[(size_t)s * MP_TL_STEP + (BM == 16 ? p : 2 * h + p) * 16 + i] =
                        (uint8_t)(u >> 32 * q);
                }
            }
    }
    for (int s = 0; s < ns; s++)
        for (int rr = nr; rr < BM; rr++)
            for (int p = 0; p < (BM == 16 ? 4 : 2); p++)
                o[(size_t)s * MP_TL_STEP + (BM == 16 ? p : 2 * (rr / 16) + p) * 16 + rr % 16] =
                    0x44;
}

/* Every row block, in stream order, specialized per bm. */
static inline __attribute__((always_inline)) void
tl_pack_blocks(const mp_tl_geom *g, const int8_t *w, int BM, uint8_t *out)
{
    const size_t k = (size_t)g->k;
    for (int b = 0; b < g->nblk; b++) {
        uint8_t *o = out + (size_t)b * g->blk_bytes;
        const int8_t *wb = w + (size_t)b * BM * k;
        int nr = g->m - b * BM < BM ? g->m - b * BM : BM;
        int neg[32] = {0};
        for (int s = 0; s < g->s3; s += TL_RUN) {
            int ns = g->s3 - s < TL_RUN ? g->s3 - s : TL_RUN;
            tl2_steps(wb + (size_t)3 * s * g->gps, k, nr, BM, ns, o, neg);
            o += (size_t)ns * MP_TL2_STEP;
        }
        tl1_steps(wb + g->three_k, k, nr, BM, g->s1, o);
        o += (size_t)g->s1 * MP_TL_STEP;
        if (g->tl2)
            for (int rr = 0; rr < BM; rr++) {
                int16_t n16 = (int16_t)neg[rr];
                memcpy(o + 2 * rr, &n16, 2);
            }
    }
}

/* Writes every byte of the stream (no memset first); each step is built from
 * whole rows of the block (see tl2_steps / tl1_steps).  The bytes are those of the
 * direct definition (walk the stream, one index byte at a time), which
 * tests/test_elut.c keeps as the oracle. */
void mp_tl_pack(int tl2, int bm, const int8_t *w, float w_scale, int m, int k, uint8_t *out)
{
    mp_tl_geom g = mp_tl_geom_of(tl2, bm, m, k);
    if (bm == 16)
        tl_pack_blocks(&g, w, 16, out);
    else
        tl_pack_blocks(&g, w, 32, out);
    uint8_t *trailer = out + (size_t)g.nblk * g.blk_bytes;
    memset(trailer, 0, 32);
    memcpy(trailer, &w_scale, sizeof w_scale);
}

void mp_tl_unpack(int tl2, int bm, const uint8_t *p, int m, int k, int8_t *w)
{
    mp_tl_geom g = mp_tl_geom_of(tl2, bm, m, k);
    for (int row = 0; row < m; row++) {
        int b = row / bm, rr = row % bm;
        const uint8_t *p3 = p + (size_t)b * g.blk_bytes;
        const uint8_t *p2 = p3 + (size_t)g.s3 * MP_TL2_STEP;
        int8_t *wr = w + (size_t)row * k;
        for (int gr = 0; gr < g.g3; gr++) {
            slot sl = slot_of(bm, g.gps, MP_TL2_STEP, rr, gr);
            int idx = (p3[sl.byte] >> (4 * sl.hi)) & 15;
            size_t s = sl.byte / MP_TL2_STEP;
            int neg = (p3[s * MP_TL2_STEP + 64 + 8 * sl.hi + sl.bit / 8] >> (sl.bit % 8)) & 1;
            for (int d = 0; d < 3; d++)
                wr[3 * gr + d] = (int8_t)(neg ? -tl2_digits[idx][d] : tl2_digits[idx][d]);
        }
        for (int gr = 0; gr < g.g2; gr++) {
            slot sl = slot_of(bm, g.gps, MP_TL_STEP, rr, gr);
            int idx = (p2[sl.byte] >> (4 * sl.hi)) & 15;
            wr[g.three_k + 2 * gr] = (int8_t)(idx / 3 - 1);
            wr[g.three_k + 2 * gr + 1] = (int8_t)(idx % 3 - 1);
        }
    }
}

/* The _0 table entry: e * 127 / tmax rounded half away from zero, |e| <= tmax.
 * rs = 127.0f / tmax; float arithmetic (no division per entry), deterministic. */
static inline int q8(int e, float rs)
{
    int t = (int)((float)(e < 0 ? -e : e) * rs + 0.5f);
    return e < 0 ? -t : t;
}

/* Writes the 16 entries e of group gr into its octet slot (layout in tl.h). */
static inline void put_table(uint8_t *tab, int lossless, int gr, const int *e)
{
    int pos = gr % 8;
    uint8_t *o = tab + (size_t)(gr / 8) * mp_tl_octet(lossless) + (pos & 1) * 64 + (pos >> 1) * 16;
    for (int i = 0; i < 16; i++) {
        if (lossless) {
            o[i] = (uint8_t)(e[i] & 0xff);
            o[128 + i] = (uint8_t)(((unsigned)e[i] >> 8) & 0xff);
        } else {
            o[i] = (uint8_t)(e[i] + 128);
        }
    }
}

void mp_tl_prepare(int tl2, int lossless, const float *x, int k, void *act, int t0, int t1)
{
    mp_tl_geom g = mp_tl_geom_of(tl2, 16, 1, k);
    for (int t = t0; t < t1; t++) {
        uint8_t *tab3, *tab2;
        int8_t *q;
        mp_tl_hdr h = mp_tl_token_start(&g, lossless, x, act, t, &tab3, &tab2, &q);
        int e[16];
        const float rs = 127.0f / (float)h.tmax;
        for (int gr = 0; gr < g.g3; gr++) {
            const int8_t *a = q + 3 * gr;
            for (int i = 0; i < 16; i++) {
                int v = i < 14 ? tl2_digits[i][0] * a[0] + tl2_digits[i][1] * a[1] +
                                     tl2_digits[i][2] * a[2]
                               : 0;
                e[i] = lossless ? v : q8(v, rs);
            }
            put_table(tab3, lossless, gr, e);
        }
        for (int gr = 0; gr < g.g2; gr++) {
            const int8_t *a = q + g.three_k + 2 * gr;
            for (int i = 0; i < 16; i++) {
                int v = i < 9 ? (i / 3 - 1) * a[0] + (i % 3 - 1) * a[1] : 0;
                e[i] = lossless ? v : q8(v, rs);
            }
            put_table(tab2, lossless, gr, e);
        }
        memcpy(tab3 - MP_TL_HDR, &h, sizeof h); /* the header heads the block */
    }
}

void mp_tl_store(const mp_op *op, int tl2, int lossless, const void *act, int t,
                 const int32_t *sums, int row0, int nrows, float *y)
{
    const mp_tl_hdr *h = mp_tl_act_hdr(act, tl2, lossless, op->k, t);
    float *yt = y + (size_t)t * op->m + row0;
    for (int i = 0; i < nrows; i++)
        yt[i] = lossless ? mp_dequant(sums[i], op->w_scale, h->x_scale)
                         : mp_tl_dequant8(sums[i], h->tmax, op->w_scale, h->x_scale);
}

/* Table entry of group gr at index idx: the int16 rejoined from its two byte
 * halves (_1) or the int8 entry with its bias removed (_0). */
static inline int entry(const uint8_t *tab, int lossless, int gr, int idx)
{
    int pos = gr % 8;
    const uint8_t *o = tab + (size_t)(gr / 8) * mp_tl_octet(lossless) + (pos & 1) * 64 +
                       (pos >> 1) * 16 + idx;
    if (lossless)
        return (int16_t)(uint16_t)(o[0] | (o[128] << 8));
    return (int)o[0] - 128;
}

void mp_tl_gemm__scalar(MP_COMPUTE_ARGS)
{
    mp_tl_kind c = mp_tl_kind_of(op);
    int tl2 = c.tl2, lossless = c.lossless, bm = c.bm;
    (void)scratch;
    mp_tl_geom g = mp_tl_geom_of(tl2, bm, op->m, op->k);
    int32_t sums[32];
    for (int t = 0; t < n; t++) {
        const uint8_t *tabs[2] = {mp_tl_tab3(act, tl2, lossless, op->k, t),
                                  mp_tl_tab2(act, tl2, lossless, op->k, t)};
        for (int r0 = m0; r0 < m1; r0 += bm) {
            int nr = m1 - r0 < bm ? m1 - r0 : bm;
            const uint8_t *o = op->w + (size_t)(r0 / bm) * g.blk_bytes;
            memset(sums, 0, sizeof sums);
            for (int part = tl2 ? 0 : 1; part < 2; part++) {
                int ns = part ? g.s1 : g.s3;
                for (int s = 0; s < ns; s++, o += part ? MP_TL_STEP : MP_TL2_STEP)
                    for (int j = 0; j < 4; j++) {
                        int h, p;
                        lane_of(bm, j, &h, &p);
                        int gr = s * g.gps + 2 * p;
                        for (int i = 0; i < 16; i++) {
                            int byte = o[j * 16 + i], bit = j * 16 + i;
                            int x0 = entry(tabs[part], lossless, gr, byte & 15);
                            int x1 = entry(tabs[part], lossless, gr + 1, byte >> 4);
                            if (part == 0) { /* eq. 5 on each looked-up entry */
                                int s0 = -((o[64 + bit / 8] >> (bit % 8)) & 1);
                                int s1 = -((o[72 + bit / 8] >> (bit % 8)) & 1);
                                x0 = s0 ^ (s0 + x0);
                                x1 = s1 ^ (s1 + x1);
                            }
                            sums[h * 16 + i] += x0 + x1;
                        }
                    }
            }
            mp_tl_store(op, tl2, lossless, act, t, sums, r0, nr, y);
        }
    }
}

/* ---- per-variant slots (tl.h), each spelled out for grep ----------------------- */
#define CHECK_ENTRY(FN, TL2, BM)                                                        \
    int FN(int m, int k, const int *param, char *why, size_t len)                       \
    {                                                                                   \
        (void)param;                                                                    \
        return mp_tl_check(TL2, BM, m, k, why, len);                                    \
    }
#define PACKED_SIZE_ENTRY(FN, TL2, BM)                                                  \
    size_t FN(int m, int k, const int *param)                                           \
    {                                                                                   \
        (void)param;                                                                    \
        return mp_tl_packed_size(TL2, BM, m, k);                                        \
    }
#define PACK_ENTRY(FN, TL2, BM)                                                         \
    void FN(const int8_t *w, float w_scale, int m, int k, const int *param, uint8_t *out) \
    {                                                                                   \
        (void)param;                                                                    \
        mp_tl_pack(TL2, BM, w, w_scale, m, k, out);                                     \
    }
#define UNPACK_ENTRY(FN, TL2, BM)                                                       \
    void FN(const uint8_t *p, int m, int k, const int *param, int8_t *w)                \
    {                                                                                   \
        (void)param;                                                                    \
        mp_tl_unpack(TL2, BM, p, m, k, w);                                              \
    }
#define ACT_SIZE_ENTRY(FN, TL2, LL)                                                     \
    size_t FN(int n, int k, const int *param)                                           \
    {                                                                                   \
        (void)param;                                                                    \
        return (size_t)n * mp_tl_act_stride(TL2, LL, k);                                \
    }

CHECK_ENTRY(mp_tl1_bm16_check, 0, 16)
CHECK_ENTRY(mp_tl1_bm32_check, 0, 32)
CHECK_ENTRY(mp_tl2_bm16_check, 1, 16)
CHECK_ENTRY(mp_tl2_bm32_check, 1, 32)
PACKED_SIZE_ENTRY(mp_tl1_bm16_packed_size, 0, 16)
PACKED_SIZE_ENTRY(mp_tl1_bm32_packed_size, 0, 32)
PACKED_SIZE_ENTRY(mp_tl2_bm16_packed_size, 1, 16)
PACKED_SIZE_ENTRY(mp_tl2_bm32_packed_size, 1, 32)
PACK_ENTRY(mp_tl1_bm16_pack, 0, 16)
PACK_ENTRY(mp_tl1_bm32_pack, 0, 32)
PACK_ENTRY(mp_tl2_bm16_pack, 1, 16)
PACK_ENTRY(mp_tl2_bm32_pack, 1, 32)
UNPACK_ENTRY(mp_tl1_bm16_unpack, 0, 16)
UNPACK_ENTRY(mp_tl1_bm32_unpack, 0, 32)
UNPACK_ENTRY(mp_tl2_bm16_unpack, 1, 16)
UNPACK_ENTRY(mp_tl2_bm32_unpack, 1, 32)
ACT_SIZE_ENTRY(mp_tl1_0_act_size, 0, 0)
ACT_SIZE_ENTRY(mp_tl1_1_act_size, 0, 1)
ACT_SIZE_ENTRY(mp_tl2_0_act_size, 1, 0)
ACT_SIZE_ENTRY(mp_tl2_1_act_size, 1, 1)
MP_TL_PREPARE_ENTRY(mp_tl1_0_prepare, mp_tl_prepare, 0, 0)
MP_TL_PREPARE_ENTRY(mp_tl1_1_prepare, mp_tl_prepare, 0, 1)
MP_TL_PREPARE_ENTRY(mp_tl2_0_prepare, mp_tl_prepare, 1, 0)
MP_TL_PREPARE_ENTRY(mp_tl2_1_prepare, mp_tl_prepare, 1, 1)
