/* test_vnni.c - VNNI_INT2 / VNNI_INT1 (seed 003 §III): the packed layouts
 * against bytes worked out by hand, every ISA path over the blocking
 * parameters the generic grid leaves at their defaults (odd M and K tails, token
 * counts that leave partial register blocks, both the GEMV and the GEMM paths),
 * the register-budget checks, and the §III-E up-convert probe. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mp_test.h"
#include "../kernels/common/mp_numerics.h"
#include "../kernels/vnni/vnni.h"
#include "../harness/engine/mp_engine.h"
#include "../variants/mp_registry.h"

Test(vnni, int2_layout_by_hand)
{
    /* M = 1, K = 16: one tile.  Row 0 weights k = 0..15:
     *   +1  0 -1  0 | -1 +1  0  0 |  0  0 +1 -1 | +1 +1 +1 +1
     * codes c = w + 1:
     *    2  1  0  1 |  0  2  1  1 |  1  1  2  0 |  2  2  2  2
     * Byte b of row 0's 32-bit word holds k = b, 4 + b, 8 + b, 12 + b in bits
     * 1-0, 3-2, 5-4, 7-6 (k mod 4 = b):
     *   byte 0: k0=2, k4=0, k8=1,  k12=2 -> 2 | 0<<2 | 1<<4 | 2<<6 = 0x92
     *   byte 1: k1=1, k5=2, k9=1,  k13=2 -> 1 | 2<<2 | 1<<4 | 2<<6 = 0x99
     *   byte 2: k2=0, k6=1, k10=2, k14=2 -> 0 | 1<<2 | 2<<4 | 2<<6 = 0xa4
     *   byte 3: k3=1, k7=1, k11=0, k15=2 -> 1 | 1<<2 | 0<<4 | 2<<6 = 0x85
     * Rows 1-15 are padding (w = 0, code 1 everywhere): 0b01010101 = 0x55.
     * Up-convert check on byte 0: 0x92 & 0x0f = 0x2 -> lut01 gives 2 (k0's code),
     * lut23 gives 0 (k4); 0x92 >> 4 = 0x9 -> lut01 gives 1 (k8), lut23 gives 2
     * (k12): byte 0 of the four VNNI4 vectors is k 0, 4, 8, 12, as the dword
     * broadcasts of q[0..3], q[4..7], q[8..11], q[12..15] expect.
     * Then the 64-byte trailer: the scale, zeros. */
    const mp_variant *v = mp_registry_find("vnni_int2.scalar");
    cr_assert(v);
    const int8_t w[16] = {1, 0, -1, 0, -1, 1, 0, 0, 0, 0, 1, -1, 1, 1, 1, 1};
    int param[MP_MAX_PARAMS] = {0};
    cr_assert_eq(v->packed_size(1, 16, param), 64 + 64);
    uint8_t p[128];
    v->pack(w, 0.5f, 1, 16, param, p);
    const uint8_t row0[4] = {0x92, 0x99, 0xa4, 0x85};
    for (int i = 0; i < 4; i++)
        cr_assert_eq(p[i], row0[i], "byte %d = 0x%02x, expected 0x%02x", i, p[i], row0[i]);
    for (int i = 4; i < 64; i++)
        cr_assert_eq(p[i], 0x55, "padding byte %d = 0x%02x", i, p[i]);
    float s;
    memcpy(&s, p + 64, 4);
    cr_assert_eq(s, 0.5f);
    mp_test_unpacks_to(v, p, 1, 16, param, w);
}

Test(vnni, int2_tile_order)
{
    /* M = 17, K = 33: 2 row blocks x 3 tiles; tile (block b, tile j) at
     * (3 b + j) x 64.  Weight (16, 32) = -1 (code 0) is row 0 of block 1, tile 2,
     * k 0 of the tile: byte (3 + 2) x 64 + 0, bits 1-0 -> 0x54 (other fields 1). */
    const mp_variant *v = mp_registry_find("vnni_int2.scalar");
    int8_t w[17 * 33];
    memset(w, 0, sizeof w);
    w[16 * 33 + 32] = -1;
    int param[MP_MAX_PARAMS] = {0};
    cr_assert_eq(v->packed_size(17, 33, param), 2 * 3 * 64 + 64);
    uint8_t p[6 * 64 + 64];
    v->pack(w, 1.0f, 17, 33, param, p);
    for (int i = 0; i < 6 * 64; i++)
        cr_assert_eq(p[i], i == 5 * 64 ? 0x54 : 0x55, "byte %d = 0x%02x", i, p[i]);
}

Test(vnni, int1_layout_by_hand)
{
    /* M = 4, K = 16, weights +1 except row 0: k = 1, 6, 15 and row 3: k = 13.
     * Group g = k / 4 is bytes 8g .. 8g + 7; bit i = 4 r + k mod 4 (byte i / 8,
     * bit i % 8) is set for -1:
     *   (0, 1):  g 0, i 1  -> byte 0,  bit 1 -> 0x02
     *   (0, 6):  g 1, i 2  -> byte 8,  bit 2 -> 0x04
     *   (0, 15): g 3, i 3  -> byte 24, bit 3 -> 0x08
     *   (3, 13): g 3, i 13 -> byte 25, bit 5 -> 0x20
     * everything else (and rows 4-15, padding with +1) is 0. */
    const mp_variant *v = mp_registry_find("vnni_int1.scalar");
    cr_assert(v);
    int8_t w[4 * 16];
    memset(w, 1, sizeof w);
    w[1] = w[6] = w[15] = -1;
    w[3 * 16 + 13] = -1;
    int param[MP_MAX_PARAMS] = {0};
    cr_assert_eq(v->packed_size(4, 16, param), 32 + 64);
    uint8_t p[96];
    v->pack(w, 2.0f, 4, 16, param, p);
    for (int i = 0; i < 32; i++) {
        int expect = i == 0 ? 0x02 : i == 8 ? 0x04 : i == 24 ? 0x08 : i == 25 ? 0x20 : 0;
        cr_assert_eq(p[i], expect, "byte %d = 0x%02x, expected 0x%02x", i, p[i], expect);
    }
    mp_test_unpacks_to(v, p, 4, 16, param, w);
    /* measured bpw: 1 bit per weight plus the trailer */
    double bpw = 8.0 * (double)v->packed_size(6912, 2560, param) / (6912.0 * 2560);
    cr_assert(bpw > 1.0 && bpw < 1.0001, "bpw %f", bpw);
}

/* ---- packing against its definition ------------------------------------------ */

/* The tiled layouts written tile by tile, row by row, one weight at a time:
 * vnni-scalar.c's packers and their helpers as first written (before they were
 * rewritten to read each row in order, 16 weights per two 64-bit words), kept
 * verbatim as the oracles of int2_pack_matches_definition and
 * int1_pack_matches_definition. */
static size_t def_n_blocks(int m) { return ((size_t)m + 15) / 16; }
static size_t def_n_tiles(int k) { return ((size_t)k + 15) / 16; }

static void def_put_trailer(uint8_t *t, float w_scale)
{
    memset(t, 0, MP_VNNI_TRAILER);
    memcpy(t, &w_scale, sizeof w_scale);
}

/* Weight (r, c) of the canonical tensor, 0 in the padding. */
static inline int def_wat(const int8_t *w, int m, int k, size_t r, size_t c)
{
    return r < (size_t)m && c < (size_t)k ? w[r * (size_t)k + c] : 0;
}

/* Row r's 16 weights of tile j (zeros past M and K) into buf. */
static inline const int8_t *def_tile_row(const int8_t *w, int m, int k, size_t r, size_t j,
                                         int8_t buf[16])
{
    if (r < (size_t)m && (j + 1) * 16 <= (size_t)k)
        return w + r * (size_t)k + j * 16; /* interior: no copy */
    for (int kk = 0; kk < 16; kk++)
        buf[kk] = (int8_t)def_wat(w, m, k, r, j * 16 + (size_t)kk);
    return buf;
}

/* One row of one tile in a packing written from its definition. */
typedef void def_row_fn(uint8_t *tile, int r, const int8_t src[16]);

/* Walks the (block, tile, row) grid of a 16 x 16 tiled packing, zeroing each
 * tile of tile_bytes before put_row fills it, then writes the trailer. */
static void def_pack(const int8_t *w, float w_scale, int m, int k, size_t tile_bytes,
                     def_row_fn *put_row, uint8_t *out)
{
    const size_t nb = def_n_blocks(m), nt = def_n_tiles(k);
    int8_t buf[16];
    for (size_t b = 0; b < nb; b++)
        for (size_t j = 0; j < nt; j++) {
            uint8_t *tile = out + (b * nt + j) * tile_bytes;
            memset(tile, 0, tile_bytes);
            for (int r = 0; r < 16; r++)
                put_row(tile, r, def_tile_row(w, m, k, b * 16 + (size_t)r, j, buf));
        }
    def_put_trailer(out + nb * nt * tile_bytes, w_scale);
}

/* byte i holds k = i, 4 + i, 8 + i, 12 + i in bits 1-0 .. 7-6 */
static void int2_def_row(uint8_t *tile, int r, const int8_t src[16])
{
    for (int i = 0; i < 4; i++)
        tile[4 * r + i] = (uint8_t)((src[i] + 1) | (src[4 + i] + 1) << 2 |
                                    (src[8 + i] + 1) << 4 | (src[12 + i] + 1) << 6);
}

/* bits i = 4r .. 4r + 3 of group g: byte r / 2, nibble r % 2 */
static void int1_def_row(uint8_t *tile, int r, const int8_t src[16])
{
    for (int g = 0; g < 4; g++) {
        unsigned nib = (src[4 * g] < 0) | (src[4 * g + 1] < 0) << 1 |
                       (src[4 * g + 2] < 0) << 2 | (unsigned)(src[4 * g + 3] < 0) << 3;
        tile[8 * g + r / 2] |= (uint8_t)(nib << (4 * (r & 1)));
    }
}

static void int2_pack_by_definition(const int8_t *w, float w_scale, int m, int k,
                                    const int *param, uint8_t *out)
{
    (void)param;
    def_pack(w, w_scale, m, k, MP_VNNI_INT2_TILE_BYTES, int2_def_row, out);
}

static void int1_pack_by_definition(const int8_t *w, float w_scale, int m, int k,
                                    const int *param, uint8_t *out)
{
    (void)param;
    def_pack(w, w_scale, m, k, MP_VNNI_INT1_TILE_BYTES, int1_def_row, out);
}

/* K tails of a 16-column tile: 1 (a partial tile only), 15, 16, 17, 40. */
static const int pack_ks[] = {1, 15, 16, 17, 40};

/* The named variant's packer against oracle on mp_test_pack_cases. */
static void pack_matches(const char *name, mp_pack_fn *oracle)
{
    const mp_variant *v = mp_registry_find(name);
    cr_assert(v, "%s", name);
    int param[MP_MAX_PARAMS];
    mp_variant_defaults(v, param);
    mp_pack_case c[64];
    int n = mp_test_pack_cases(c, 64, 1, pack_ks, 5);
    char why[768];
    cr_assert(!mp_test_pack_identity(v, param, oracle, c, n, why, sizeof why), "%s: %s", name,
              why);
}

/* mp_vnni_int2_pack against int2_pack_by_definition on mp_test_pack_cases. */
Test(vnni, int2_pack_matches_definition, .timeout = 300)
{
    pack_matches("vnni_int2.scalar", int2_pack_by_definition);
}

/* mp_vnni_int1_pack against int1_pack_by_definition on mp_test_pack_cases: the
 * binary fill is the variant's own domain; the others check that a weight's bit
 * is its sign, as before, whatever the weight. */
Test(vnni, int1_pack_matches_definition, .timeout = 300)
{
    pack_matches("vnni_int1.scalar", int1_pack_by_definition);
}

/* Every SIMD path, each mtile with every ntile its registers allow, ktile cycling
 * over its values, GEMM forced (gemv = 2) and GEMV (N below gemv), on shapes
 * with M and K tails; bit for bit against the reference (mp_check_variant). */
static void sweep(const char *name)
{
    const mp_variant *v = mp_registry_find(name);
    cr_assert(v, "%s registered", name);
    if (!mp_variant_available(v))
        cr_skip_test("%s: this CPU lacks its ISA", name);
    static const int shapes[][2] = {{100, 1000}, {49, 200}, {16, 528}, {33, 17}};
    static const int ns[] = {13, 1, 3};
    const int ibm = mp_variant_param_index(v, "mtile"), ibn = mp_variant_param_index(v, "ntile");
    const int ibk = mp_variant_param_index(v, "ktile"), ign = mp_variant_param_index(v, "gemv");
    const int iseq = mp_variant_param_index(v, "seq");
    cr_assert(ibm >= 0 && ibn >= 0 && ibk >= 0 && ign >= 0);
    int ran = 0, combo = 0;
    for (int a = 0; a < v->params[ibm].n_values; a++)
        for (int b = 0; b < v->params[ibn].n_values; b++) {
            int param[MP_MAX_PARAMS];
            mp_variant_defaults(v, param);
            param[ibm] = v->params[ibm].values[a];
            param[ibn] = v->params[ibn].values[b];
            param[ibk] = v->params[ibk].values[combo % v->params[ibk].n_values];
            param[ign] = 2;
            if (iseq >= 0)
                param[iseq] = combo & 1;
            char why[256];
            if (mp_variant_check(v, 64, 64, param, why, sizeof why))
                continue; /* register block too large for this ISA */
            combo++;
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
                for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
                    if (ns[t] == 3)
                        param[ign] = 4; /* the GEMV with several tokens */
                    mp_check c;
                    mp_check_variant(v, param, shapes[s][0], shapes[s][1], ns[t],
                                     (uint64_t)(77 + s), &c);
                    param[ign] = 2;
                    cr_assert(!c.skipped, "%s: %s", name, c.why);
                    cr_assert(c.ok, "%s [mtile=%d ntile=%d ktile=%d]: %s", name, param[ibm], param[ibn],
                              param[ibk], c.why);
                    ran++;
                }
        }
    cr_assert_gt(combo, 3, "%s: too few parameter combinations accepted", name);
    fprintf(stderr, "%s: %d parameter combinations, %d cases passed\n", name, combo, ran);
}

Test(vnni, int2_avx512vnni_params) { sweep("vnni_int2.avx512vnni"); }
Test(vnni, int2_avxvnni_params) { sweep("vnni_int2.avxvnni"); }
Test(vnni, int2_avx2_params) { sweep("vnni_int2.avx2"); }
Test(vnni, int1_avx512vnni_params) { sweep("vnni_int1.avx512vnni"); }
Test(vnni, int1_avxvnni_params) { sweep("vnni_int1.avxvnni"); }
Test(vnni, int1_avx2_params) { sweep("vnni_int1.avx2"); }

Test(vnni, register_budget_is_checked)
{
    const mp_variant *z = mp_registry_find("vnni_int2.avx512vnni");
    const mp_variant *y = mp_registry_find("vnni_int2.avxvnni");
    int pz[MP_MAX_PARAMS], py[MP_MAX_PARAMS];
    char why[256];
    mp_variant_defaults(z, pz);
    mp_variant_defaults(y, py);
    cr_assert_eq(mp_variant_check(z, 64, 64, pz, why, sizeof why), 0, "%s", why);
    cr_assert_eq(mp_variant_check(y, 64, 64, py, why, sizeof why), 0, "%s", why);
    pz[MP_VNNI_P_MTILE] = 64, pz[MP_VNNI_P_NTILE] = 8; /* 32 accumulators */
    cr_assert_neq(mp_variant_check(z, 64, 64, pz, why, sizeof why), 0);
    cr_assert(strstr(why, "accumulators"), "%s", why);
    py[MP_VNNI_P_MTILE] = 32, py[MP_VNNI_P_NTILE] = 4; /* 16 ymm accumulators */
    cr_assert_neq(mp_variant_check(y, 64, 64, py, why, sizeof why), 0);
}

/* Many tokens against the scalar oracle on the same packed data: the GEMM's
 * K blocks and token blocks both have tails (K = 16 x 37, N = 29). */
Test(vnni, gemm_matches_scalar_sibling)
{
    static const char *const names[] = {"vnni_int2.avx512vnni", "vnni_int2.avxvnni",
                                        "vnni_int2.avx2", "vnni_int1.avx512vnni",
                                        "vnni_int1.avxvnni", "vnni_int1.avx2"};
    const int m = 80, k = 16 * 37 - 5, n = 29;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const mp_variant *v = mp_registry_find(names[i]);
        if (!mp_variant_available(v))
            continue;
        const mp_variant *s = mp_variant_scalar_sibling(v);
        cr_assert(s, "%s has a scalar sibling", v->name);
        int param[MP_MAX_PARAMS];
        mp_variant_defaults(v, param);
        param[MP_VNNI_P_KTILE] = 64;
        int8_t *w = mp_alloc((size_t)m * k);
        mp_gen_weights(5, w, (size_t)m * k, v->domain == MP_DOMAIN_BINARY);
        float *x = mp_alloc(sizeof(float) * (size_t)n * k);
        mp_gen_acts(6, x, (size_t)n * k);
        mp_test_op t;
        mp_test_op_make(&t, v, param, w, 0.25f, m, k, x, n);
        float *y = mp_alloc(sizeof(float) * (size_t)n * m);
        float *ys = mp_alloc(sizeof(float) * (size_t)n * m);
        v->compute(&t.op, t.act, n, y, 0, 48, t.scratch); /* two row ranges, as two threads */
        v->compute(&t.op, t.act, n, y, 48, m, t.scratch);
        mp_op os = t.op;
        os.v = s;
        s->compute(&os, t.act, n, ys, 0, m, NULL);
        for (int j = 0; j < n * m; j++)
            cr_assert(memcmp(&y[j], &ys[j], sizeof(float)) == 0, "%s: y[%d] = %g, scalar %g",
                      v->name, j, y[j], ys[j]);
        mp_free(ys);
        mp_free(y);
        mp_test_op_free(&t);
        mp_free(x);
        mp_free(w);
    }
}

Test(vnni, upconvert_probe)
{
    int tested = 0;
    for (int i = 0; i < mp_registry_count(); i++) {
        const mp_variant *v = mp_registry_get(i);
        if (v->family != MP_FAMILY_VNNI)
            continue;
        int b = mp_vnni_bytes_per_vector(v);
        cr_assert_eq(b, v->domain == MP_DOMAIN_BINARY ? 4 : 8, "%s: B = %d", v->name, b);
        double bps = mp_ceiling_bytes_per_sec(v, NULL);
        if (!mp_variant_available(v)) {
            cr_assert_eq(bps, 0.0, "%s unavailable: 0", v->name);
            continue;
        }
        cr_assert(bps > 0 && isfinite(bps), "%s: %g bytes/s", v->name, bps);
        fprintf(stderr, "%s: B = %d bytes, up-convert-and-compute %.2f GB/s on one core (L1)\n",
                v->name, b, bps / 1e9);
        tested++;
    }
    cr_assert_geq(tested, 2, "the scalar paths at least");
    cr_assert_eq(mp_vnni_bytes_per_vector(mp_registry_find("i2_s.scalar")), 0);
    cr_assert_eq(mp_ceiling_bytes_per_sec(NULL, NULL), 0.0);
    cr_assert_eq(mp_vnni_model_bw(30e9, 50e9), 30e9);
    cr_assert_eq(mp_vnni_model_bw(30e9, 20e9), 20e9);
}

/* The vectorized prepares of the SIMD rows (AVX2, AVX-512) write the same
 * bytes as the shared mp_q8act_fill: seeded activations with K tails (2573:
 * whole 64-blocks then 13; 2600: then two 16-blocks and 8), and exact ties
 * (absmax 127 makes the scale exactly 1, so x = 2.5 must round to 2 and 3.5
 * to 4). */
Test(vnni, prepare_simd_matches_reference)
{
    static const char *const rows[] = {"vnni_int2.avx2", "vnni_int2.avxvnni",
                                       "vnni_int2.avx512vnni", "vnni_int1.avx512vnni"};
    static const int ks[] = {2560 + 13, 2560 + 40};
    int ran = 0;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        const mp_variant *v = mp_registry_find(rows[r]);
        if (!mp_variant_available(v)) {
            cr_log_info("%s: not run by this CPU or build", rows[r]);
            continue;
        }
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++, ran++) {
            const int k = ks[ki], n = 3;
            float *x = mp_alloc(sizeof(float) * n * k);
            mp_gen_acts(9, x, (size_t)n * k);
            for (int i = 0; i < k; i++) /* token 2: ties */
                x[2 * k + i] = i == 0 ? 127.0f : (float)((i % 254) - 127) + 0.5f;
            x[2 * k + 1] = -127.0f;
            /* the absmax after the whole 64-blocks (token 0), in the scalar
             * tail (token 1) */
            x[0 * k + k / 64 * 64 + 3] = -90.0f;
            x[1 * k + k - 1] = 70.0f;
            size_t sz = mp_q8act_size(n, k);
            uint8_t *a = mp_alloc(sz), *b = mp_alloc(sz);
            memset(a, 0, sz);
            memset(b, 0, sz);
            mp_op op = {.v = v, .m = 16, .k = k};
            v->prepare(&op, x, n, a, 0, 2);
            v->prepare(&op, x, n, a, 2, n);
            mp_q8act_fill(x, k, b, 0, n);
            for (size_t i = 0; i < sz; i++)
                cr_assert_eq(a[i], b[i], "%s K %d: byte %zu (token %zu): 0x%02x, reference 0x%02x",
                             rows[r], k, i, i / mp_q8act_stride(k), a[i], b[i]);
            cr_assert_eq(mp_q8act_q(a, k, 2)[2], -124, "x = -124.5 -> -124 (even)");
            cr_assert_eq(mp_q8act_q(a, k, 2)[4], -122, "x = -122.5 -> -122 (even)");
            cr_assert_eq(mp_q8act_q(a, k, 2)[3], -124, "x = -123.5 -> -124 (even)");
            mp_free(b);
            mp_free(a);
            mp_free(x);
        }
    }
    if (!ran)
        cr_skip_test("no AVX2");
}

/* The grid's saturated worst case runs N = 2, i.e. the GEMV; this one forces
 * the GEMM (the AVX2 path's int16 sums over 64 k steps are the narrowest
 * accumulator of the family): rows alternate all +1 / all -1, tokens alternate
 * all +absmax / all -absmax, K = 23040 (the largest real K), largest bk. */

/* Packs w, prepares x and computes all rows with v and param; every output
 * must equal ref bit for bit (what names the test in the message). */
static void expect_exact(const mp_variant *v, const int *param, const int8_t *w, float w_scale,
                         int m, int k, const float *x, int n, const float *ref, float *y,
                         const char *what)
{
    uint8_t *p = mp_alloc(v->packed_size(m, k, param));
    v->pack(w, w_scale, m, k, param, p);
    mp_op op = {.v = v, .m = m, .k = k, .w_scale = w_scale, .w = p};
    memcpy(op.param, param, sizeof op.param);
    void *act = mp_alloc(v->act_size(n, k, param));
    v->prepare(&op, x, n, act, 0, n);
    void *scr = mp_alloc(v->scratch_size(n, k, param));
    v->compute(&op, act, n, y, 0, m, scr);
    for (int j = 0; j < n * m; j++)
        cr_assert(memcmp(&y[j], &ref[j], sizeof(float)) == 0,
                  "%s %s: y[%d] = %.9g, reference %.9g", v->name, what, j, y[j], ref[j]);
    mp_free(scr);
    mp_free(act);
    mp_free(p);
}

/* Sets a test's own parameters over a variant's defaults. */
typedef void vnni_adjust_fn(const mp_variant *v, int *param, int n);

/* expect_exact on every variant of names this CPU has, each with its defaults
 * and then adjust, against the reference GEMM of w and x. */
static void expect_exact_each(const char *const *names, size_t count, vnni_adjust_fn *adjust,
                              const int8_t *w, float w_scale, int m, int k, const float *x,
                              int n, const char *what)
{
    float *ref = mp_alloc(sizeof(float) * (size_t)n * m);
    float *y = mp_alloc(sizeof(float) * (size_t)n * m);
    mp_ref_gemm(w, w_scale, m, k, x, n, ref, 0, m);
    for (size_t i = 0; i < count; i++) {
        const mp_variant *v = mp_registry_find(names[i]);
        if (!mp_variant_available(v))
            continue;
        int param[MP_MAX_PARAMS];
        mp_variant_defaults(v, param);
        adjust(v, param, n);
        expect_exact(v, param, w, w_scale, m, k, x, n, ref, y, what);
    }
    mp_free(y);
    mp_free(ref);
}

/* The GEMM at its largest K tile. */
static void gemm_largest_ktile(const mp_variant *v, int *param, int n)
{
    (void)n;
    const mp_param_def *kt = &v->params[MP_VNNI_P_KTILE];
    param[MP_VNNI_P_GEMV] = 2;
    param[MP_VNNI_P_KTILE] = kt->values[kt->n_values - 1];
}

/* The defaults, which must send n to the GEMV. */
static void gemv_by_default(const mp_variant *v, int *param, int n)
{
    cr_assert_gt(param[MP_VNNI_P_GEMV], n, "%s: n = %d must take the GEMV", v->name, n);
}

Test(vnni, gemm_saturated_worst_case)
{
    static const char *const names[] = {"vnni_int2.avx512vnni", "vnni_int2.avxvnni",
                                        "vnni_int2.avx2", "vnni_int1.avx512vnni",
                                        "vnni_int1.avxvnni", "vnni_int1.avx2"};
    const int m = 32, k = 23040, n = 5;
    int8_t *w = mp_alloc((size_t)m * k);
    for (int r = 0; r < m; r++)
        memset(w + (size_t)r * k, r % 2 ? -1 : 1, (size_t)k);
    float *x = mp_alloc(sizeof(float) * n * k);
    for (int t = 0; t < n; t++)
        for (int j = 0; j < k; j++)
            x[(size_t)t * k + j] = t % 2 ? -3.0f : 3.0f;
    expect_exact_each(names, sizeof names / sizeof names[0], gemm_largest_ktile, w, 0.5f, m, k,
                      x, n, "saturated GEMM");
    mp_free(x);
    mp_free(w);
}

/* The AVX-512 int2 GEMV keeps 4^p-scaled sums and folds them every CHUNK_TILES
 * (8192) tiles: a K of more than two chunks with a tail that is not a multiple of
 * 16, every weight at the largest operand (+1 -> code 2, 128 in the 4^3 group)
 * or -1 against activations at +-127, and a seeded mixed row, must equal the
 * reference bit for bit on every ISA path of the GEMV. */
Test(vnni, gemv_long_k_chunks_exact)
{
    static const char *const names[] = {"vnni_int2.avx512vnni", "vnni_int2.avxvnni",
                                        "vnni_int2.avx2"};
    const int m = 18, k = 16 * 8192 * 2 + 16 * 3 + 5, n = 1;
    int8_t *w = mp_alloc((size_t)m * k);
    for (int r = 0; r < m - 2; r++)
        memset(w + (size_t)r * k, r % 2 ? -1 : 1, (size_t)k);
    mp_gen_weights(7, w + (size_t)(m - 2) * k, (size_t)2 * k, 0);
    float *x = mp_alloc(sizeof(float) * n * k);
    for (int j = 0; j < k; j++)
        x[j] = j % 3 ? 3.0f : -3.0f;
    expect_exact_each(names, sizeof names / sizeof names[0], gemv_by_default, w, 0.25f, m, k, x,
                      n, "long-K GEMV");
    mp_free(x);
    mp_free(w);
}

/* mp_vnni_pf_end, the bound of the AVX-512 GEMV's prefetching steps: every step
 * the loop runs below it prefetches inside the stream, and the first step it
 * leaves out would have reached past the end (so no prefetch is lost either),
 * for stream lengths on and off the 64-byte grid, both prefetch distances and
 * steps of 1, 2 and 4 tiles. */
Test(vnni, gemv_prefetch_bound_stays_inside_the_stream)
{
    const size_t ahead[] = {2048, 8192}, step[] = {1, 2, 4};
    for (size_t left = 0; left <= 64 * 300 + 63; left += 21)
        for (int a = 0; a < 2; a++)
            for (int s = 0; s < 3; s++) {
                const size_t e = mp_vnni_pf_end(left, ahead[a]);
                size_t j = 0;
                for (; j + step[s] <= e; j += step[s])
                    cr_assert_leq(64 * (j + step[s]) + ahead[a], left,
                                  "left %zu ahead %zu step %zu: step at tile %zu prefetches past "
                                  "the end", left, ahead[a], step[s], j);
                cr_assert_gt(64 * (j + step[s]) + ahead[a], left,
                             "left %zu ahead %zu step %zu: the step at tile %zu stays inside, "
                             "but the bound %zu leaves it out", left, ahead[a], step[s], j, e);
            }
}
