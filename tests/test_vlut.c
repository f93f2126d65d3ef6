/* test_vlut.c - Vec-LUT (seed 001 §3-4): packing worked by hand (Fig. 5), the
 * mixed 4/5 packing (footnote 4) and its bpw, the §4 tile rules, lossless results
 * for every ISA path x every technique combination x several K_tile / N_tile, the
 * GEMV hand-over, and the §3.4 int16 overflow bound at saturated activations.
 * The generic grid (test_variants.c) covers the defaults on all real shapes. */
#include <criterion/criterion.h>
#include <string.h>

#include "mp_test.h"
#include "../kernels/common/mp_numerics.h"
#include "../kernels/vlut/vlut.h"
#include "../variants/mp_registry.h"

static const char *const paths[] = {"vlut_i2.scalar", "vlut_i2.avx2", "vlut_i2.avx512",
                                    "vlut_i1.scalar", "vlut_i1.avx2", "vlut_i1.avx512"};
enum { NPATHS = sizeof paths / sizeof paths[0] };

static const mp_variant *get(const char *name)
{
    const mp_variant *v = mp_registry_find(name);
    cr_assert(v, "%s is not registered", name);
    return v;
}

static void defaults(const mp_variant *v, int *param)
{
    mp_variant_defaults(v, param);
}

static void expect_ok(const mp_variant *v, const int *param, int m, int k, int n,
                      uint64_t seed)
{
    mp_check c;
    mp_check_variant(v, param, m, k, n, seed, &c);
    char ps[256];
    cr_assert(!c.skipped, "%s M=%d K=%d N=%d [%s] skipped: %s", v->name, m, k, n,
              mp_params_str(v, param, ps, sizeof ps), c.why);
    cr_assert(c.ok, "[%s] %s", mp_params_str(v, param, ps, sizeof ps), c.why);
}

/* ---- packing -------------------------------------------------------------------- */

Test(vlut, packs_by_hand_fig5)
{
    /* g = 4, seed 001 §3.2: index 23 = digits (0,2,1,2) = weights (-1,+1,0,+1);
     * (-1,-1,-1,-1) -> 0, (+1,+1,+1,+1) -> 80.  K = 12: three groups in one tile. */
    const mp_variant *v = get("vlut_i2.scalar");
    int param[MP_MAX_PARAMS];
    defaults(v, param);
    int8_t w[12] = {-1, 1, 0, 1, -1, -1, -1, -1, 1, 1, 1, 1};
    cr_assert_eq(v->packed_size(1, 12, param), 3 + 64, "3 bytes + 64-byte trailer");
    uint8_t p[67];
    v->pack(w, 0.5f, 1, 12, param, p);
    cr_assert_eq(p[0], 23, "byte 0 = %d", p[0]);
    cr_assert_eq(p[1], 0, "byte 1 = %d", p[1]);
    cr_assert_eq(p[2], 80, "byte 2 = %d", p[2]);
    float s;
    memcpy(&s, p + 3, 4);
    cr_assert_eq(s, 0.5f);
    mp_test_unpacks_to(v, p, 1, 12, param, w);

    /* g = 5: (+1,-1,0,0,+1) -> digits 2,0,1,1,2 -> 2*81 + 0*27 + 1*9 + 1*3 + 2 = 176.
     * K = 13 = 5 + 2*4 (footnote 4): one group of 5, then two groups of 4:
     * (0,0,0,0) -> 1*27+1*9+1*3+1 = 40, (+1,0,-1,+1) -> 2*27+9+0+2 = 65. */
    v = get("vlut_i1.scalar");
    defaults(v, param);
    int8_t w1[13] = {1, -1, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, 1};
    cr_assert_eq(v->packed_size(1, 13, param), 3 + 64);
    v->pack(w1, 0.5f, 1, 13, param, p);
    cr_assert_eq(p[0], 176, "byte 0 = %d", p[0]);
    cr_assert_eq(p[1], 40, "byte 1 = %d", p[1]);
    cr_assert_eq(p[2], 65, "byte 2 = %d", p[2]);
    mp_test_unpacks_to(v, p, 1, 13, param, w1);
}

Test(vlut, tile_contiguous_layout)
{
    /* M = 2, K = 16 (4 groups), K_tile = 8 (2 groups): tile 0 = row 0 groups 0-1,
     * row 1 groups 0-1; tile 1 = row 0 groups 2-3, row 1 groups 2-3. */
    const mp_variant *v = get("vlut_i2.scalar");
    int param[MP_MAX_PARAMS];
    defaults(v, param);
    param[MP_VLUT_P_KTILE] = 8;
    int8_t w[32];
    for (int r = 0; r < 2; r++)
        for (int gi = 0; gi < 4; gi++) /* group value = 10*r + gi as base-3 digits */
            for (int p = 0, d = 27, val = 10 * r + gi; p < 4; p++, d /= 3)
                w[r * 16 + gi * 4 + p] = (int8_t)(val / d % 3 - 1);
    uint8_t p[8 + 64];
    v->pack(w, 1.0f, 2, 16, param, p);
    const uint8_t want[8] = {0, 1, 10, 11, 2, 3, 12, 13};
    for (int i = 0; i < 8; i++)
        cr_assert_eq(p[i], want[i], "byte %d = %d, want %d", i, p[i], want[i]);
}

/* The Vec-LUT packing, tile by tile, one weight at a time: the packer of
 * vlut-scalar.c as first written (before it was rewritten to read rows in blocks,
 * several groups per 64-bit word), kept verbatim as the oracle of
 * pack_matches_definition. */
static void vlut_pack_by_definition(int g, const int8_t *w, float w_scale, int m, int k,
                                    const int *param, uint8_t *out)
{
    mp_vlut_geom gm;
    if (mp_vlut_geom_init(&gm, g, k, param[MP_VLUT_P_KTILE]))
        MP_ABORT("vlut pack: K=%d not packable with g=%d", k, g);
    for (int ti = 0; ti < gm.ntiles; ti++) {
        int f, cnt, gg;
        mp_vlut_tile(&gm, ti, &f, &cnt, &gg);
        uint8_t *o = out + (size_t)m * f;
        for (int r = 0; r < m; r++)
            for (int j = 0; j < cnt; j++) {
                const int8_t *wr = w + (size_t)r * k + mp_vlut_group_k(&gm, f + j);
                int idx = 0;
                for (int p = 0; p < gg; p++) /* first weight = most significant trit */
                    idx = idx * 3 + (wr[p] + 1);
                o[(size_t)r * cnt + j] = (uint8_t)idx;
            }
    }
    uint8_t *trailer = out + (size_t)m * gm.groups;
    memset(trailer, 0, 64);
    memcpy(trailer, &w_scale, sizeof w_scale);
}

static void i2_by_definition(const int8_t *w, float w_scale, int m, int k, const int *param,
                             uint8_t *out)
{
    vlut_pack_by_definition(4, w, w_scale, m, k, param, out);
}

static void i1_by_definition(const int8_t *w, float w_scale, int m, int k, const int *param,
                             uint8_t *out)
{
    vlut_pack_by_definition(5, w, w_scale, m, k, param, out);
}

/* mp_vlut_i2_pack / mp_vlut_i1_pack against the definition, on
 * mp_test_pack_cases at the default K_tile, then on the odd shapes alone at every
 * other K_tile of the space.  I2: K = 4 (one group), 8, 36 (one default tile), 40
 * (a tile and a partial one), 100.  I1 (K = 5b + 4a): K = 4 (b = 0, only the tail
 * tile), 5 (a = 0), 9, 17 (a = 1, 3), 133 (a = 2, full tiles and a partial one);
 * the real K have a = 0 (2560), 3 (6912) and 4 (4096, 14336). */
Test(vlut, pack_matches_definition, .timeout = 300)
{
    static const struct {
        const char *name;
        mp_pack_fn *def;
        int ks[5];
    } cases[] = {{"vlut_i2.scalar", i2_by_definition, {4, 8, 36, 40, 100}},
                 {"vlut_i1.scalar", i1_by_definition, {4, 5, 9, 17, 133}}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const mp_variant *v = get(cases[i].name);
        const mp_param_def *kt = &v->params[MP_VLUT_P_KTILE];
        for (int vi = -1; vi < kt->n_values; vi++) {
            int param[MP_MAX_PARAMS];
            defaults(v, param);
            if (vi >= 0 && kt->values[vi] == kt->def)
                continue;
            if (vi >= 0)
                param[MP_VLUT_P_KTILE] = kt->values[vi];
            mp_pack_case c[64];
            int n = mp_test_pack_cases(c, 64, vi < 0, cases[i].ks, 5);
            char why[768];
            cr_assert(!mp_test_pack_identity(v, param, cases[i].def, c, n, why, sizeof why),
                      "ktile=%d: %s", param[MP_VLUT_P_KTILE], why);
        }
    }
}

Test(vlut, mixed_packing_and_bpw)
{
    /* Which of the K values need groups of 4 in I1 (K = 5b + 4a). */
    static const int ks[] = {1600, 2048, 2560, 4352, 8640, 6912, 14336, 13, 12};
    static const int tails[] = {0, 2, 0, 3, 0, 3, 4, 2, 3};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        mp_vlut_geom gm;
        cr_assert_eq(mp_vlut_geom_init(&gm, 5, ks[i], 15), 0, "K=%d", ks[i]);
        cr_assert_eq(gm.ntail, tails[i], "K=%d: %d groups of 4", ks[i], gm.ntail);
        cr_assert_eq(gm.nmain * 5 + gm.ntail * 4, ks[i]);
    }
    /* footnote 4: only these K cannot be written 4a + 5b */
    static const int bad[] = {1, 2, 3, 6, 7, 11};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mp_vlut_geom gm;
        cr_assert_neq(mp_vlut_geom_init(&gm, 5, bad[i], 15), 0, "K=%d", bad[i]);
    }
    const mp_variant *v = get("vlut_i1.avx2");
    int param[MP_MAX_PARAMS];
    defaults(v, param);
    int shapes[64][2];
    int ns = mp_test_real_shapes(shapes, 64);
    for (int s = 0; s < ns; s++) {
        double bpw = 8.0 * (double)v->packed_size(shapes[s][0], shapes[s][1], param) /
                     ((double)shapes[s][0] * shapes[s][1]);
        cr_assert(bpw >= 1.6 && bpw < 1.605, "%dx%d: bpw %f", shapes[s][0], shapes[s][1], bpw);
    }
    v = get("vlut_i2.avx2");
    defaults(v, param);
    double bpw2 = 8.0 * (double)v->packed_size(6912, 2560, param) / (6912.0 * 2560);
    cr_assert(bpw2 >= 2.0 && bpw2 < 2.0001, "I2 bpw %f", bpw2);
}

Test(vlut, tile_rules)
{
    /* §4: 3^g * N_tile * K_tile/g * 2 bytes <= 48 KiB */
    cr_assert_eq(mp_vlut_rule_ktile(4, 32, 49152), 36);
    cr_assert_eq(mp_vlut_rule_ktile(5, 32, 49152), 15);
    cr_assert_eq(mp_vlut_rule_ktile(4, 16, 49152), 72);
    cr_assert_eq(mp_vlut_rule_ktile(5, 128, 49152), 5, "at least one group");
    cr_assert_eq(mp_vlut_rule_ntile(16, 1), 16);
    cr_assert_eq(mp_vlut_rule_ntile(32, 33), 64);
    int p2[MP_MAX_PARAMS], p1[MP_MAX_PARAMS];
    defaults(get("vlut_i2.scalar"), p2);
    defaults(get("vlut_i1.scalar"), p1);
    cr_assert_eq(p2[MP_VLUT_P_KTILE], mp_vlut_rule_ktile(4, p2[MP_VLUT_P_NTILE], MP_VLUT_L1D));
    cr_assert_eq(p1[MP_VLUT_P_KTILE], mp_vlut_rule_ktile(5, p1[MP_VLUT_P_NTILE], MP_VLUT_L1D));
    cr_assert_eq(p2[MP_VLUT_P_NTILE] % 16, 0);
    /* the §3.4 bound */
    cr_assert_eq(MP_VLUT_B4, 64);
    cr_assert_eq(MP_VLUT_B5, 51);
}

/* ---- lossless: every path x every technique combination ---------------------------- */

static void all_combos(const char *name)
{
    const mp_variant *v = get(name);
    if (!mp_variant_available(v))
        cr_skip_test("%s: this CPU lacks its ISA", name);
    static const int ns[] = {1, 2, 7, 16, 31, 32, 33};
    /* K = 2048 and 4352 need the mixed packing in I1; 1600 does not */
    static const int shapes[][2] = {{37, 2048}, {19, 4352}, {53, 1600}};
    int runs = 0;
    for (int combo = 0; combo < 16; combo++) {
        int param[MP_MAX_PARAMS];
        defaults(v, param);
        param[MP_VLUT_P_STREAM] = combo & 1;
        param[MP_VLUT_P_TOPO] = combo >> 1 & 1;
        param[MP_VLUT_P_HIER] = combo >> 2 & 1;
        param[MP_VLUT_P_TCL] = combo >> 3 & 1;
        param[MP_VLUT_P_GEMV] = 0; /* the table path at every N */
        for (size_t s = 0; s < 3; s++)
            for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
                if (!param[MP_VLUT_P_TCL] && ns[i] > 7 && s)
                    continue; /* per-token tables are slow: one shape for large N */
                expect_ok(v, param, shapes[s][0], shapes[s][1], ns[i],
                          (uint64_t)(7000 + combo * 31 + s * 7 + i));
                runs++;
            }
    }
    fprintf(stderr, "%s: %d technique/shape/N cases passed\n", name, runs);
}

Test(vlut, combos_i2_scalar, .timeout = 300) { all_combos("vlut_i2.scalar"); }
Test(vlut, combos_i2_avx2, .timeout = 300) { all_combos("vlut_i2.avx2"); }
Test(vlut, combos_i2_avx512, .timeout = 300) { all_combos("vlut_i2.avx512"); }
Test(vlut, combos_i1_scalar, .timeout = 300) { all_combos("vlut_i1.scalar"); }
Test(vlut, combos_i1_avx2, .timeout = 300) { all_combos("vlut_i1.avx2"); }
Test(vlut, combos_i1_avx512, .timeout = 300) { all_combos("vlut_i1.avx512"); }

/* K_tile / N_tile values, including partial last tiles and N tails. */
Test(vlut, tile_sizes, .timeout = 300)
{
    static const int kt2[] = {4, 16, 36, 64}, kt1[] = {5, 15, 30, 60};
    static const int nts[] = {16, 32, 64, 128};
    int runs = 0;
    for (int pi = 0; pi < NPATHS; pi++) {
        const mp_variant *v = get(paths[pi]);
        if (!mp_variant_available(v))
            continue;
        int g = mp_vlut_gmain(&(mp_op){.v = v});
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) {
                int param[MP_MAX_PARAMS];
                defaults(v, param);
                param[MP_VLUT_P_KTILE] = g == 4 ? kt2[a] : kt1[a];
                param[MP_VLUT_P_NTILE] = nts[b];
                param[MP_VLUT_P_GEMV] = 0;
                expect_ok(v, param, 45, 1028, b % 2 ? 33 : 70, (uint64_t)(900 + a * 4 + b));
                runs++;
            }
    }
    cr_assert_gt(runs, 0);
}

/* N in {1, 2, 7, 16, 31, 32, 33, 128} on sampled real shapes, defaults (GEMV
 * hand-over included) and with the GEMV off. */
Test(vlut, real_shapes_all_n, .timeout = 300)
{
    static const int ns[] = {1, 2, 7, 16, 31, 32, 33, 128};
    static const int shapes[][2] = {{6912, 2560}, {2560, 6912}, {14336, 4096}, {3072, 8640}};
    int runs = 0;
    for (int pi = 0; pi < NPATHS; pi++) {
        const mp_variant *v = get(paths[pi]);
        if (!mp_variant_available(v))
            continue;
        for (int s = 0; s < 4; s++)
            for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
                if (ns[i] == 128 && s != pi % 4 && s != 0)
                    continue; /* N = 128: two shapes per path */
                int param[MP_MAX_PARAMS];
                defaults(v, param);
                expect_ok(v, param, shapes[s][0], shapes[s][1], ns[i], (uint64_t)(500 + s));
                if (ns[i] < param[MP_VLUT_P_GEMV]) {
                    param[MP_VLUT_P_GEMV] = 0;
                    expect_ok(v, param, shapes[s][0], shapes[s][1], ns[i], (uint64_t)(500 + s));
                }
                runs++;
            }
    }
    cr_assert_gt(runs, 0);
}

/* GEMV path alone on odd shapes (partial tiles, mixed tails). */
Test(vlut, gemv_odd_shapes)
{
    static const int ks[] = {12, 13, 36, 44, 100, 1028, 2048, 4352};
    for (int pi = 0; pi < NPATHS; pi++) {
        const mp_variant *v = get(paths[pi]);
        if (!mp_variant_available(v))
            continue;
        int g = mp_vlut_gmain(&(mp_op){.v = v});
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
            if (g == 4 && ks[i] % 4)
                continue;
            static const int ns[] = {1, 2, 3, 5, 7};
            for (int t = 0; t < 5; t++) { /* AVX2 takes tokens 4 at a time */
                int param[MP_MAX_PARAMS];
                defaults(v, param);
                param[MP_VLUT_P_GEMV] = 16;
                expect_ok(v, param, 71, ks[i], ns[t], (uint64_t)(40 + i));
            }
        }
    }
}

/* ---- §3.4 overflow bound ------------------------------------------------------------ */

/* Activations at +-127 everywhere, rows of all +1 / all -1, K = 23040 (the
 * largest K of the models): every int16 block sum sits at its extreme. */
static void saturated(const mp_variant *v, const int *param)
{
    const int k = 23040, m = 4, n = 33;
    int8_t *w = mp_alloc((size_t)m * k);
    for (int r = 0; r < m; r++)
        for (int j = 0; j < k; j++)
            w[(size_t)r * k + j] = (int8_t)(r % 2 ? -1 : 1);
    float *x = mp_alloc(sizeof(float) * (size_t)n * k);
    for (int t = 0; t < n; t++)
        for (int j = 0; j < k; j++)
            x[(size_t)t * k + j] = t % 2 ? -2.5f : 2.5f;
    float *ref = mp_alloc(sizeof(float) * (size_t)n * m), *y = mp_alloc(sizeof(float) * (size_t)n * m);
    mp_ref_gemm(w, 0.5f, m, k, x, n, ref, 0, m);
    mp_test_op t;
    mp_test_op_make(&t, v, param, w, 0.5f, m, k, x, n);
    for (int nn = 1; nn <= n; nn += 32) { /* GEMV (N = 1) and table paths */
        for (int j = 0; j < n * m; j++)
            y[j] = -1.0f;
        v->prepare(&t.op, x, nn, t.act, 0, nn);
        v->compute(&t.op, t.act, nn, y, 0, m, t.scratch);
        for (int j = 0; j < nn * m; j++)
            cr_assert(!memcmp(&y[j], &ref[j], sizeof(float)),
                      "%s saturated K=%d N=%d: y[%d] = %.9g, reference %.9g", v->name, k, nn, j,
                      y[j], ref[j]);
    }
    mp_test_op_free(&t);
    mp_free(y);
    mp_free(ref);
    mp_free(x);
    mp_free(w);
}

Test(vlut, saturated_int16_bound, .timeout = 300)
{
    for (int pi = 0; pi < NPATHS; pi++) {
        const mp_variant *v = get(paths[pi]);
        if (!mp_variant_available(v))
            continue;
        int g = mp_vlut_gmain(&(mp_op){.v = v});
        for (int combo = 0; combo < 4; combo++) {
            int param[MP_MAX_PARAMS];
            defaults(v, param);
            param[MP_VLUT_P_STREAM] = combo & 1;
            param[MP_VLUT_P_KTILE] = combo & 2 ? (g == 4 ? 64 : 60) : param[MP_VLUT_P_KTILE];
            saturated(v, param);
        }
    }
}
