/* test_elut.c - the element-wise (TL1/TL2) and bit-wise (T-MAC) LUT kernels:
 * index/sign packing worked out by hand from seed 000 Tables 5-6, the tables
 * built by prepare, block-fitting splitting with a TL1 remainder and odd M,
 * runtime parameters other than the defaults, measured bpw, and the error of the
 * int8-table (lossy) variants against a bound derived from their rounding.
 * The generic grid (test_variants.c) covers every variant on every model shape. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mp_test.h"
#include "../kernels/common/mp_numerics.h"
#include "../kernels/tl/tl.h"
#include "../kernels/tmac/tmac.h"
#include "../variants/mp_registry.h"

static const mp_variant *find(const char *name)
{
    const mp_variant *v = mp_registry_find(name);
    cr_assert(v, "variant %s is registered", name);
    return v;
}

/* Seed 000 Table 6 (seed 004 Table 3): (w0, w1, w2) -> sign bit, 4-bit index.
 * One row, K = 192 (all TL2, ThreeK = 192), bm = 16: group 0 = (-1,-1,-1) ->
 * 1 1101; group 1 = (1,1,-1) -> 0 1011; group 2 = (-1,0,-1) -> 1 1010; group 3 =
 * (1,1,0) -> 0 1100; the rest (0,0,0) -> 0 0000.  Groups 0/1 share byte 0 of lane
 * block 0 (low/high nibble): 0xBD; groups 2/3 byte 0 of lane block 1: 0xCA.
 * Signs: low-nibble mask bit 0 (group 0) and bit 16 (group 2, lane block 1).
 * Negative triples in row 0: 2. */
Test(elut, tl2_packs_table6_by_hand)
{
    const mp_variant *v = find("tl2_1.scalar.bm16");
    int8_t w[192] = {-1, -1, -1, 1, 1, -1, -1, 0, -1, 1, 1, 0};
    int param[MP_MAX_PARAMS] = {0};
    size_t bytes = v->packed_size(1, 192, param);
    cr_assert_eq(bytes, 8 * 80 + 2 * 16 + 32, "8 steps of 80 bytes, 16 int16 counts, trailer");
    uint8_t p[8 * 80 + 32 + 32];
    v->pack(w, 0.5f, 1, 192, param, p);
    cr_assert_eq(p[0], 0xBD, "byte 0 = 0x%02x", p[0]);
    cr_assert_eq(p[16], 0xCA, "lane block 1 byte 0 = 0x%02x", p[16]);
    cr_assert_eq(p[64], 0x01, "low-nibble sign mask byte 0 = 0x%02x", p[64]);
    cr_assert_eq(p[66], 0x01, "low-nibble sign mask byte 2 = 0x%02x", p[66]);
    cr_assert_eq(p[72], 0x00, "high-nibble sign mask byte 0 = 0x%02x", p[72]);
    for (int i = 1; i < 64; i++)
        if (i != 16)
            cr_assert_eq(p[i], 0, "index byte %d = 0x%02x", i, p[i]);
    int16_t cnt;
    memcpy(&cnt, p + 8 * 80, 2);
    cr_assert_eq(cnt, 2, "row 0 has two negative triples");
    float s;
    memcpy(&s, p + 8 * 80 + 32, 4);
    cr_assert_eq(s, 0.5f, "scale in the trailer");
    mp_test_unpacks_to(v, p, 1, 192, param, w);
}

/* Seed 000 Table 5 (seed 004 Table 2): (w0, w1) -> 3(w0+1) + (w1+1).  One row,
 * K = 16, bm = 16: the eight pairs (-1,-1) .. (1,0) are indices 0..7; pairs 2p and
 * 2p+1 share byte 0 of lane block p: 0x10, 0x32, 0x54, 0x76.  The 15 padding rows
 * are all-zero pairs, index 4 in both nibbles: 0x44. */
Test(elut, tl1_packs_table5_by_hand)
{
    const mp_variant *v = find("tl1_0.scalar.bm16");
    int8_t w[16] = {-1, -1, -1, 0, -1, 1, 0, -1, 0, 0, 0, 1, 1, -1, 1, 0};
    int param[MP_MAX_PARAMS] = {0};
    cr_assert_eq(v->packed_size(1, 16, param), 64 + 32);
    uint8_t p[96];
    v->pack(w, 1.0f, 1, 16, param, p);
    static const uint8_t expect[4] = {0x10, 0x32, 0x54, 0x76};
    for (int j = 0; j < 4; j++) {
        cr_assert_eq(p[16 * j], expect[j], "lane block %d byte 0 = 0x%02x", j, p[16 * j]);
        for (int i = 1; i < 16; i++)
            cr_assert_eq(p[16 * j + i], 0x44, "padding row %d = 0x%02x", i, p[16 * j + i]);
    }
    mp_test_unpacks_to(v, p, 1, 16, param, w);
}

/* The TL2 table of one triple, by hand: activations (100, -127, 50) quantize to
 * themselves (absmax 127).  Index 13 = (1,1,1): 23; index 11 = (1,1,-1): -77 ->
 * int16 0xFFB3, low byte 0xB3 and high byte 0xFF (pack-and-unpack halves); index
 * 5 = (1,-1,-1): 177 -> 0xB1, 0x00.  The sign of eq. 5 with sign = -1 turns the
 * 23 of index 13 into -23 = the entry of (-1,-1,-1). */
Test(elut, tl2_tables_by_hand)
{
    const mp_variant *v = find("tl2_1.scalar.bm16");
    float x[192] = {100, -127, 50};
    int param[MP_MAX_PARAMS] = {0};
    uint8_t *act = mp_alloc(v->act_size(1, 192, param));
    mp_op op = {.v = v, .m = 16, .k = 192, .w_scale = 1};
    v->prepare(&op, x, 1, act, 0, 1);
    const uint8_t *tab = mp_tl_tab3(act, 1, 1, 192, 0);
    /* group 0: octet 0, even groups' low bytes at 0, high bytes at 128 */
    cr_assert_eq(tab[13], 23);
    cr_assert_eq(tab[128 + 13], 0);
    cr_assert_eq(tab[11], 0xB3);
    cr_assert_eq(tab[128 + 11], 0xFF);
    cr_assert_eq(tab[5], 0xB1);
    cr_assert_eq(tab[128 + 5], 0x00);
    int e = (int16_t)(uint16_t)(tab[13] | tab[128 + 13] << 8), s = -1;
    cr_assert_eq(s ^ (s + e), -23, "eq. 5 negates");
    mp_free(act);
}

/* Block-fitting splitting: K not a multiple of BK3 = 192 leaves a TL1 remainder
 * (2048 -> 1920 + 128, 1600 -> 1536 + 64, 2560 -> 2496 + 64); with odd M, every
 * path of TL1_1 and TL2_1 equals the reference bit for bit. */
Test(elut, block_fitting_remainder_lossless, .timeout = 300)
{
    static const char *const names[] = {
        "tl2_1.scalar.bm16", "tl2_1.avx2.bm16", "tl2_1.avx512.bm16",
        "tl2_1.scalar.bm32", "tl2_1.avx2.bm32", "tl2_1.avx512.bm32",
        "tl1_1.scalar.bm16", "tl1_1.avx2.bm16", "tl1_1.avx512.bm32"};
    static const int ks[] = {2048, 1600, 2560, 208};
    static const int ms[] = {1, 33, 100};
    static const int ns[] = {1, 3, 32};
    for (size_t a = 0; a < sizeof names / sizeof names[0]; a++) {
        const mp_variant *v = find(names[a]);
        if (!mp_variant_available(v))
            continue;
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
            for (size_t j = 0; j < sizeof ms / sizeof ms[0]; j++) {
                mp_check c;
                mp_check_variant(v, NULL, ms[j], ks[i], ns[(i + j) % 3], 77 + i * 10 + j, &c);
                cr_assert(!c.skipped, "%s skipped M=%d K=%d: %s", v->name, ms[j], ks[i], c.why);
                cr_assert(c.ok, "%s", c.why);
            }
    }
}

/* Every value of the runtime parameter (prefetch distance) on a few shapes:
 * lossless paths equal the reference, lossy paths their scalar path. */
Test(elut, runtime_params, .timeout = 300)
{
    static const int shapes[][3] = {{2560, 2560, 1}, {100, 2048, 3}, {64, 6912, 2}};
    int nv = mp_registry_count();
    for (int i = 0; i < nv; i++) {
        const mp_variant *v = mp_registry_get(i);
        if ((v->family != MP_FAMILY_ELUT && v->family != MP_FAMILY_BITLUT) ||
            !mp_variant_available(v))
            continue;
        for (int pi = 0; pi < v->n_params; pi++)
            for (int vi = 0; vi < v->params[pi].n_values; vi++) {
                int param[MP_MAX_PARAMS];
                mp_variant_defaults(v, param);
                param[pi] = v->params[pi].values[vi];
                if (param[pi] == v->params[pi].def)
                    continue;
                for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
                    mp_check c;
                    mp_check_variant(v, param, shapes[s][0], shapes[s][1], shapes[s][2], 5 + s, &c);
                    cr_assert(c.ok, "%s %s=%d: %s", v->name, v->params[pi].name, param[pi], c.why);
                }
            }
    }
}

Test(elut, bpw)
{
    int param[MP_MAX_PARAMS] = {0};
    /* 6912 x 2560: ThreeK = 2496 (TL2, 5/3 bpw) + 64 (TL1, 2 bpw) + counts */
    const mp_variant *v = find("tl2_0.avx512.bm32");
    double bpw = 8.0 * (double)v->packed_size(6912, 2560, param) / (6912.0 * 2560);
    cr_assert(bpw > 1.67 && bpw < 1.69, "TL2 6912x2560 bpw %f", bpw);
    /* 2560 x 6912: K = 36 * 192, all TL2 */
    bpw = 8.0 * (double)v->packed_size(2560, 6912, param) / (2560.0 * 6912);
    cr_assert(bpw > 1.666 && bpw < 1.672, "TL2 2560x6912 bpw %f", bpw);
    fprintf(stderr, "TL2 bpw: 6912x2560 %.4f, 2560x6912 %.4f\n",
            8.0 * (double)v->packed_size(6912, 2560, param) / (6912.0 * 2560), bpw);
    v = find("tl1_1.avx2.bm16");
    bpw = 8.0 * (double)v->packed_size(6912, 2560, param) / (6912.0 * 2560);
    cr_assert(bpw > 2.0 && bpw < 2.0001, "TL1 bpw %f", bpw);
    v = find("tmac_int2.avx512");
    bpw = 8.0 * (double)v->packed_size(6912, 2560, param) / (6912.0 * 2560);
    cr_assert(bpw > 2.0 && bpw < 2.0001, "T-MAC bpw %f", bpw);
}

/* ---- packing against its definition ------------------------------------------ */

/* The packed weight stream walked in order, one index byte and sign bit at a
 * time: mp_tl_pack as first written (before it was rewritten to read each row
 * once, several weights per 64-bit word), kept verbatim as the oracle of
 * pack_matches_definition. */
static inline void def_lane_of(int bm, int j, int *h, int *p)
{
    *h = bm == 16 ? 0 : j / 2;
    *p = bm == 16 ? j : j % 2;
}

static void tl_pack_by_definition(int tl2, int bm, const int8_t *w, float w_scale, int m, int k,
                                  uint8_t *out)
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
                    def_lane_of(bm, j, &h, &p);
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

#define TL_DEF_ENTRY(FN, TL2, BM)                                                        \
    static void FN(const int8_t *w, float w_scale, int m, int k, const int *param,        \
                   uint8_t *out)                                                          \
    {                                                                                     \
        (void)param;                                                                      \
        tl_pack_by_definition(TL2, BM, w, w_scale, m, k, out);                            \
    }
TL_DEF_ENTRY(tl1_bm16_by_definition, 0, 16)
TL_DEF_ENTRY(tl1_bm32_by_definition, 0, 32)
TL_DEF_ENTRY(tl2_bm16_by_definition, 1, 16)
TL_DEF_ENTRY(tl2_bm32_by_definition, 1, 32)

/* mp_tl_pack against tl_pack_by_definition, TL1 and TL2 at bm 16 and 32, on
 * mp_test_pack_cases (the real K = 6912 and 14336 span several of TL2's 256-step
 * runs) with K at the minimum multiple (all TL1 for TL2, K < 192), exactly one
 * TL2 block (192), TL2 plus the smallest TL1 remainder (192 + 16 or 8) and a
 * longer one (432 = 384 + 48). */
Test(elut, pack_matches_definition, .timeout = 300)
{
    static const struct {
        const char *name;
        mp_pack_fn *def;
        int kmul;
    } cases[] = {{"tl2_0.scalar.bm16", tl2_bm16_by_definition, 16},
                 {"tl2_0.scalar.bm32", tl2_bm32_by_definition, 8},
                 {"tl1_0.scalar.bm16", tl1_bm16_by_definition, 16},
                 {"tl1_0.scalar.bm32", tl1_bm32_by_definition, 8}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const mp_variant *v = find(cases[i].name);
        int param[MP_MAX_PARAMS], kmul = cases[i].kmul;
        mp_variant_defaults(v, param);
        const int ks[] = {kmul, 192, 192 + kmul, 432};
        mp_pack_case c[64];
        int n = mp_test_pack_cases(c, 64, 1, ks, 4);
        char why[768];
        cr_assert(!mp_test_pack_identity(v, param, cases[i].def, c, n, why, sizeof why), "%s", why);
    }
}

/* Lossy variants: each int8 table entry is round(e * 127 / tmax), off by at most
 * 0.5 * tmax / 127 from the exact sum e; a row adds L entries (TL: one per triple
 * or pair; T-MAC: per group plane 0 + 2 x plane 1, halved: 1.5/2 per group), so
 * |acc error| <= L * c * tmax / 127 with c = 0.5 (TL) or 0.75 (T-MAC), a hard
 * bound.  Rounding errors are close to independent and uniform, so the RMS error
 * over many outputs must stay within 2x the statistical sqrt(L / 12) * tmax / 127
 * (with c^2 weights for T-MAC: (1/4 + 1) / 4 per group).  The reference and the
 * lossy path run on the same seeded data; max/mean relative errors are printed. */
static void lossy_case(const mp_variant *v, int m, int k, int n, uint64_t seed)
{
    int param[MP_MAX_PARAMS];
    mp_variant_defaults(v, param);
    int8_t *w = mp_alloc((size_t)m * k);
    float *x = mp_alloc(sizeof(float) * (size_t)n * k);
    mp_gen_weights(seed, w, (size_t)m * k, 0);
    mp_gen_acts(seed + 1, x, (size_t)n * k);
    mp_test_op t;
    mp_test_op_make(&t, v, param, w, 0.02f, m, k, x, n);
    float *y = mp_alloc(sizeof(float) * (size_t)n * m), *ref = mp_alloc(sizeof(float) * (size_t)n * m);
    v->compute(&t.op, t.act, n, y, 0, m, t.scratch);
    mp_ref_gemm(w, 0.02f, m, k, x, n, ref, 0, m);
    int tmac = v->family == MP_FAMILY_BITLUT;
    int8_t *q = mp_alloc((size_t)k);
    double emax = 0, rmax = 0, esum = 0, rsum = 0;
    for (int t = 0; t < n; t++) {
        float xs = mp_quant_row(x + (size_t)t * k, k, q);
        int tmax = 1, L;
        double c, c2;
        if (tmac) {
            for (int g = 0; g < k / 4; g++) {
                int s = abs(q[4 * g]) + abs(q[4 * g + 1]) + abs(q[4 * g + 2]) + abs(q[4 * g + 3]);
                tmax = s > tmax ? s : tmax;
            }
            L = k / 4, c = 0.75, c2 = (0.25 + 1.0) / 4;
        } else {
            int three_k = strncmp(v->name, "tl2", 3) ? 0 : k / 192 * 192;
            for (int j = 0; j < three_k; j += 3) {
                int s = abs(q[j]) + abs(q[j + 1]) + abs(q[j + 2]);
                tmax = s > tmax ? s : tmax;
            }
            for (int j = three_k; j < k; j += 2) {
                int s = abs(q[j]) + abs(q[j + 1]);
                tmax = s > tmax ? s : tmax;
            }
            L = three_k / 3 + (k - three_k) / 2, c = 0.5, c2 = 1.0;
        }
        double unit = (double)tmax / 127.0 / xs * 0.02; /* one table step, in y units */
        double bound = L * c * unit, rms_bound = 2.0 * sqrt(L * c2 / 12.0) * unit;
        double se = 0;
        for (int r = 0; r < m; r++) {
            size_t at = (size_t)t * m + r;
            double d = fabs((double)y[at] - ref[at]);
            cr_assert(d <= bound + 1e-5 * fabs(ref[at]) + 1e-6,
                      "%s M=%d K=%d token %d row %d: error %g above the bound %g", v->name, m, k,
                      t, r, d, bound);
            se += d * d;
            emax = d > emax ? d : emax;
            rmax = fabs(ref[at]) > rmax ? fabs(ref[at]) : rmax;
            esum += d;
            rsum += fabs(ref[at]);
        }
        double rms = sqrt(se / m);
        cr_assert(rms <= rms_bound, "%s M=%d K=%d token %d: RMS error %g above 2 x statistical %g",
                  v->name, m, k, t, rms, rms_bound / 2);
    }
    fprintf(stderr, "%-20s M=%-5d K=%-5d N=%d: max rel err %.4f, mean rel err %.4f\n", v->name, m,
            k, n, emax / rmax, esum / rsum);
    mp_free(q);
    mp_free(ref);
    mp_free(y);
    mp_test_op_free(&t);
    mp_free(x);
    mp_free(w);
}

/* lossy_case on every variant of names this CPU has, for each shape
 * {m, k, n, seed}. */
static void lossy_each(const char *const *names, size_t count, const int (*shapes)[4],
                       int nshapes)
{
    for (size_t i = 0; i < count; i++) {
        const mp_variant *v = find(names[i]);
        if (!mp_variant_available(v))
            continue;
        for (int j = 0; j < nshapes; j++)
            lossy_case(v, shapes[j][0], shapes[j][1], shapes[j][2], (uint64_t)shapes[j][3]);
    }
}

Test(elut, lossy_error_bounded, .timeout = 300)
{
    static const char *const names[] = {"tl1_0.avx512.bm32", "tl2_0.avx512.bm32",
                                        "tl1_0.scalar.bm16", "tl2_0.avx2.bm16"};
    static const int shapes[][4] = {{2560, 2560, 4, 11}, {512, 6912, 2, 12}, {100, 2048, 3, 13}};
    lossy_each(names, sizeof names / sizeof names[0], shapes, 3);
}

/* T-MAC by hand: one row, K = 8.  Weights (1, 0, -1, 1 | 0, 0, 0, -1): codes
 * w + 1 = (2, 1, 0, 2 | 1, 1, 1, 0); plane 0 (c & 1) of group 0 = 0b0010, plane 1
 * (c >> 1) = 0b1001 -> byte 0x92; group 1: plane 0 = 0b0111, plane 1 = 0 -> 0x07,
 * in lane block 1.  Padding rows: codes 1 -> plane 0 = 0xF, plane 1 = 0 -> 0x0F. */
Test(tmac, packs_by_hand)
{
    const mp_variant *v = find("tmac_int2.scalar");
    int8_t w[8] = {1, 0, -1, 1, 0, 0, 0, -1};
    int param[MP_MAX_PARAMS] = {0};
    cr_assert_eq(v->packed_size(1, 8, param), 64 + 32);
    uint8_t p[96];
    v->pack(w, 1.0f, 1, 8, param, p);
    cr_assert_eq(p[0], 0x92, "byte 0 = 0x%02x", p[0]);
    cr_assert_eq(p[16], 0x07, "lane block 1 byte 0 = 0x%02x", p[16]);
    cr_assert_eq(p[1], 0x0F, "padding row = 0x%02x", p[1]);
    mp_test_unpacks_to(v, p, 1, 8, param, w);
}

/* The mirror-consolidated table: T[15 - i] = -T[i]; activations (127, -64, 32, 0)
 * with tmax = 223: T[15] = 127 - 64 + 32 + 0 = 95 -> round(95 * 127 / 223) = 54. */
Test(tmac, table_by_hand)
{
    const mp_variant *v = find("tmac_int2.scalar");
    float x[8] = {127, -64, 32, 0, 0, 0, 0, 0};
    int param[MP_MAX_PARAMS] = {0};
    uint8_t *act = mp_alloc(v->act_size(1, 8, param));
    mp_op op = {.v = v, .m = 32, .k = 8, .w_scale = 1};
    v->prepare(&op, x, 1, act, 0, 1);
    cr_assert_eq(mp_tmac_act_hdr(act, 8, 0)->tmax, 223);
    const uint8_t *t = mp_tmac_tab(act, 8, 0);
    cr_assert_eq((int)t[15] - 128, 54, "T[15] = %d", (int)t[15] - 128);
    for (int i = 0; i < 16; i++)
        cr_assert_eq((int)t[i] - 128, -((int)t[15 - i] - 128), "mirror at %d", i);
    mp_free(act);
}

Test(tmac, lossy_error_bounded, .timeout = 300)
{
    static const char *const names[] = {"tmac_int2.scalar", "tmac_int2.avx2", "tmac_int2.avx512"};
    static const int shapes[][4] = {{2560, 2560, 4, 21}, {100, 6912, 3, 22}};
    lossy_each(names, sizeof names / sizeof names[0], shapes, 2);
}

/* The packed T-MAC stream walked in order, one weight at a time: mp_tmac_pack as
 * first written (before it was rewritten to read each row once, 8 weights per
 * 64-bit word), kept verbatim as the oracle of tmac/pack_matches_definition. */
static void tmac_pack_by_definition(const int8_t *w, float w_scale, int m, int k, const int *param,
                                    uint8_t *out)
{
    size_t bytes = mp_tmac_packed_size(m, k, param);
    memset(out, 0, bytes);
    uint8_t *o = out;
    int nblk = (m + MP_TMAC_BM - 1) / MP_TMAC_BM;
    for (int b = 0; b < nblk; b++)
        for (int s = 0; s < k / 8; s++, o += MP_TMAC_STEP)
            for (int j = 0; j < 4; j++) {
                int col = (2 * s + (j & 1)) * 4;
                for (int i = 0; i < 16; i++) {
                    int row = b * MP_TMAC_BM + (j >> 1) * 16 + i;
                    unsigned i0 = 0, i1 = 0;
                    for (int d = 0; d < 4; d++) {
                        unsigned c = row < m ? (unsigned)(w[(size_t)row * k + col + d] + 1) : 1u;
                        i0 |= (c & 1) << d;
                        i1 |= (c >> 1) << d;
                    }
                    o[j * 16 + i] = (uint8_t)(i0 | i1 << 4);
                }
            }
    memcpy(out + bytes - 32, &w_scale, sizeof w_scale);
}

/* mp_tmac_pack against tmac_pack_by_definition on mp_test_pack_cases, K
 * at the minimum multiple (8: one step), two and three steps (16, 24) and 17
 * steps (136). */
Test(tmac, pack_matches_definition, .timeout = 300)
{
    const mp_variant *v = find("tmac_int2.scalar");
    int param[MP_MAX_PARAMS];
    mp_variant_defaults(v, param);
    static const int ks[] = {8, 16, 24, 136};
    mp_pack_case c[64];
    int n = mp_test_pack_cases(c, 64, 1, ks, 4);
    char why[768];
    cr_assert(!mp_test_pack_identity(v, param, tmac_pack_by_definition, c, n, why, sizeof why),
              "%s", why);
}
