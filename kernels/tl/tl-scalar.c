/* tl-scalar.c - TL1/TL2 packing, table precompute and the portable path (the
 * oracle of the SIMD paths).  Seed 000 §3 and Appendix E (Tables 5-6, Alg. 3-4),
 * seed 004 §2.  Layouts in tl.h.  No ISA flags. */
#include "tl.h"

#include <stdio.h>
#include <string.h>

#include "../common/mp_numerics.h"

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

void mp_tl_pack(int tl2, int bm, const int8_t *w, float w_scale, int m, int k, uint8_t *out)
{
    mp_tl_geom g = mp_tl_geom_of(tl2, bm, m, k);
    memset(out, 0, (size_t)g.nblk * g.blk_bytes + 32);
    static const int8_t zero[6] = {0};
    /* walk the stream in order: sequential writes, 16 rows read per lane block */
    for (int b = 0; b < g.nblk; b++) {
        uint8_t *o = out + (size_t)b * g.blk_bytes;
        int neg[32] = {0};
        for (int part = tl2 ? 0 : 1; part < 2; part++) {
            int ns = part ? g.s1 : g.s3;
            for (int s = 0; s < ns; s++, o += part ? MP_TL_STEP : MP_TL2_STEP)
                for (int j = 0; j < 4; j++) {
                    int h, p;
                    lane_of(bm, j, &h, &p);
                    int gr = s * g.gps + 2 * p; /* low nibble; gr + 1 high */
                    for (int i = 0; i < 16; i++) {
                        int row = b * bm + h * 16 + i;
                        if (part == 0) {
                            const int8_t *c = row < m ? w + (size_t)row * k + 3 * gr : zero;
                            int v0 = 9 * c[0] + 3 * c[1] + c[2], v1 = 9 * c[3] + 3 * c[4] + c[5];
                            int bit = j * 16 + i;
                            o[j * 16 + i] = (uint8_t)((v0 < 0 ? -v0 : v0) | (v1 < 0 ? -v1 : v1) << 4);
                            o[64 + bit / 8] |= (uint8_t)((v0 < 0) << (bit % 8));
                            o[72 + bit / 8] |= (uint8_t)((v1 < 0) << (bit % 8));
                            neg[h * 16 + i] += (v0 < 0) + (v1 < 0);
                        } else {
                            const int8_t *c = row < m ? w + (size_t)row * k + g.three_k + 2 * gr : zero;
                            o[j * 16 + i] = (uint8_t)((3 * (c[0] + 1) + c[1] + 1) |
                                                      (3 * (c[2] + 1) + c[3] + 1) << 4);
                        }
                    }
                }
        }
        if (tl2)
            for (int rr = 0; rr < bm; rr++) {
                int16_t n16 = (int16_t)neg[rr];
                memcpy(o + 2 * rr, &n16, 2);
            }
    }
    memcpy(out + (size_t)g.nblk * g.blk_bytes, &w_scale, sizeof w_scale);
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
