/* test_prefetch.c - the software prefetch of the weight stream as run-time
 * parameters (issue 41): every x86 SIMD row that streams weights has "pf" (the
 * distance, bytes) and "pfh" (the hint, MP_PFH_*) in its catalog row, so the
 * tuner's space holds them; every setting gives its scalar sibling's output bit
 * for bit (a prefetch changes no arithmetic); the params string of a stored row
 * at the defaults is the one it had before the parameters existed; and the
 * per-CPU defaults table (variants/registry.c) only holds values the space has. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mp_test.h"
#include "../kernels/common/mp_isa.h"
#include "../kernels/common/mp_numerics.h"
#include "../harness/report/mp_report.h"
#include "../tuner/mp_search.h"
#include "../variants/mp_registry.h"

static const int pf_values[] = {0, 2048, 4096, 8192, 16384};
static const int pfh_values[] = {MP_PFH_T0, MP_PFH_T1, MP_PFH_T2, MP_PFH_NTA};
enum { N_PF = sizeof pf_values / sizeof pf_values[0], N_PFH = sizeof pfh_values / sizeof pfh_values[0] };

/* The rows that stream weights on x86 SIMD, named in full: the list,
 * so a row that loses its prefetch parameters fails here by name. */
static const char *const streaming[] = {
    "i2_s.avx2", "i2_s.avx512",
    "f16.avx2", "f16.avx512", "q8_0.avx2", "q8_0.avx512", "q4_0.avx2", "q4_0.avx512",
    "tq1_0.avx2", "tq1_0.avx512", "tq2_0.avx2", "tq2_0.avx512",
    "tmac_int2.avx2", "tmac_int2.avx512",
    "tl1_0.avx2.bm16", "tl1_0.avx2.bm32", "tl1_1.avx2.bm16", "tl1_1.avx2.bm32",
    "tl2_0.avx2.bm16", "tl2_0.avx2.bm32", "tl2_1.avx2.bm16", "tl2_1.avx2.bm32",
    "tl1_0.avx512.bm16", "tl1_0.avx512.bm32", "tl1_1.avx512.bm16", "tl1_1.avx512.bm32",
    "tl2_0.avx512.bm16", "tl2_0.avx512.bm32", "tl2_1.avx512.bm16", "tl2_1.avx512.bm32",
    "vnni_int2.avx2", "vnni_int2.avxvnni", "vnni_int2.avx512vnni",
    "vnni_int1.avx2", "vnni_int1.avxvnni", "vnni_int1.avx512vnni",
    "i8.avx2", "i8.avxvnni", "i8.avx512vnni",
};
enum { N_STREAMING = sizeof streaming / sizeof streaming[0] };

/* today's defaults: 8 KB into L2; TQ2_0 into L1; I8 without software prefetch */
static int want_pf(const mp_variant *v) { return !strcmp(v->method, "I8") ? 0 : 8192; }
static int want_pfh(const mp_variant *v) { return !strcmp(v->method, "TQ2_0") ? MP_PFH_T0 : MP_PFH_T1; }

static int is_x86_simd(const mp_variant *v)
{
    return (v->isa & (MP_ISA_AVX2 | MP_ISA_AVX512 | MP_ISA_AVXVNNI | MP_ISA_AVX512VNNI)) != 0;
}

#if defined(__x86_64__) || defined(__i386__)
/* ---- the space the tuner explores ---------------------------------------------- */
Test(prefetch, every_streaming_x86_row_has_pf_and_pfh_in_its_space)
{
    for (int i = 0; i < N_STREAMING; i++) {
        const mp_variant *v = mp_registry_find(streaming[i]);
        cr_assert(v, "%s is registered", streaming[i]);
        const int ipf = mp_variant_param_index(v, "pf"), ipfh = mp_variant_param_index(v, "pfh");
        cr_assert(ipf >= 0 && ipfh >= 0, "%s: no pf/pfh parameter", v->name);
        const mp_param_def *pf = &v->params[ipf], *pfh = &v->params[ipfh];
        cr_assert_eq(pf->n_values, N_PF, "%s: pf has %d values", v->name, pf->n_values);
        for (int j = 0; j < N_PF; j++)
            cr_assert_eq(pf->values[j], pf_values[j], "%s: pf value %d", v->name, j);
        cr_assert_eq(pfh->n_values, N_PFH, "%s: pfh has %d values", v->name, pfh->n_values);
        for (int j = 0; j < N_PFH; j++)
            cr_assert_eq(pfh->values[j], pfh_values[j], "%s: pfh value %d", v->name, j);
        cr_assert_eq(pf->def, want_pf(v), "%s: pf default %d", v->name, pf->def);
        cr_assert_eq(pfh->def, want_pfh(v), "%s: pfh default %d", v->name, pfh->def);
        cr_assert(pfh->doc && strstr(pfh->doc, "T0") && strstr(pfh->doc, "NTA"),
                  "%s: pfh's doc names the hints", v->name);
        /* the tuner's space is the catalog's: both dimensions, every value */
        mp_space sp;
        mp_space_of(v, &sp);
        cr_assert_eq(sp.n, v->n_params);
        cr_assert_eq(sp.size[ipf], N_PF, "%s", v->name);
        cr_assert_eq(sp.size[ipfh], N_PFH, "%s", v->name);
        for (int j = 0; j < N_PFH; j++)
            cr_assert_eq(sp.values[ipfh][j], pfh_values[j]);
    }
    /* and no x86 SIMD row of these families is missing from the list */
    for (int i = 0; i < mp_registry_catalog_count(); i++) {
        const mp_variant *v = mp_registry_get(i);
        if (!is_x86_simd(v) || (v->family != MP_FAMILY_MAD && v->family != MP_FAMILY_BITLUT &&
                                v->family != MP_FAMILY_ELUT && v->family != MP_FAMILY_VNNI))
            continue;
        int listed = 0;
        for (int j = 0; j < N_STREAMING; j++)
            listed |= !strcmp(streaming[j], v->name);
        cr_assert(listed, "%s streams weights on x86 SIMD but is not in this test's list",
                  v->name);
    }
}
#endif

/* Scalar rows take no hint: they are the oracle, and ignore prefetching. */
Test(prefetch, scalar_rows_have_no_hint)
{
    for (int i = 0; i < mp_registry_catalog_count(); i++) {
        const mp_variant *v = mp_registry_get(i);
        if (!is_x86_simd(v))
            cr_assert_lt(mp_variant_param_index(v, "pfh"), 0, "%s has pfh", v->name);
    }
}

/* A stored row at the defaults keeps the key it had before pf/pfh existed;
 * another setting names them; both parse back to the same values. */
Test(prefetch, params_string_leaves_out_new_parameters_at_their_defaults)
{
    static const struct {
        const char *variant, *def, *set, *set_str;
    } cases[] = {
        {"i2_s.avx2", "pf=8192", "pfh=3", "pf=8192,pfh=3"},
        {"tl2_0.avx512.bm16", "pf=8192,rb=1", "pfh=0,rb=2", "pf=8192,pfh=0,rb=2"},
        {"vnni_int2.avx512vnni", "mtile=64,ntile=6,ktile=256,gemv=4", "pf=0",
         "mtile=64,ntile=6,ktile=256,gemv=4,pf=0"},
        {"f16.avx2", "", "pf=4096,pfh=2", "pf=4096,pfh=2"},
        {"tq2_0.avx2", "", "pfh=1", "pfh=1"},
        {"i8.avx2", "", "pf=2048", "pf=2048"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const mp_variant *v = mp_registry_find(cases[i].variant);
        if (!v)
            continue; /* an x86 row on another architecture */
        int p[MP_MAX_PARAMS], q[MP_MAX_PARAMS];
        char s[256], why[256];
        cr_assert_eq(mp_params_parse(v, "", p, why, sizeof why), 0); /* the catalog's */
        cr_assert_str_eq(mp_params_str(v, p, s, sizeof s), cases[i].def, "%s", v->name);
        cr_assert_eq(mp_params_parse(v, cases[i].set, p, why, sizeof why), 0, "%s", why);
        cr_assert_str_eq(mp_params_str(v, p, s, sizeof s), cases[i].set_str, "%s", v->name);
        cr_assert_eq(mp_params_parse(v, s, q, why, sizeof why), 0, "%s", why);
        cr_assert_eq(memcmp(p, q, sizeof p), 0, "%s: '%s' does not parse back", v->name, s);
        cr_assert_neq(mp_params_parse(v, "pfh=4", p, why, sizeof why), 0, "%s", v->name);
    }
}

/* The per-CPU defaults: every line holds values of the space, says why, and
 * (placeholders until measured) equals the catalog's defaults; this CPU's
 * defaults are what mp_variant_defaults gives. */
Test(prefetch, per_cpu_defaults_are_in_the_space_and_placeholders_equal_the_catalog)
{
    static const struct {
        const char *vendor;
        int family;
    } cpus[] = {{"GenuineIntel", 6}, {"AuthenticAMD", 23}, {"AuthenticAMD", 25},
                {"AuthenticAMD", 26}};
    int lines = 0;
    for (int i = 0; i < mp_registry_catalog_count(); i++) {
        const mp_variant *v = mp_registry_get(i);
        const int ipf = mp_variant_param_index(v, "pf"), ipfh = mp_variant_param_index(v, "pfh");
        for (size_t c = 0; c < sizeof cpus / sizeof cpus[0]; c++) {
            int pf, pfh;
            const char *reason = NULL;
            if (mp_variant_pf_default(v, cpus[c].vendor, cpus[c].family, &pf, &pfh, &reason)) {
                cr_assert(ipfh < 0, "%s has pfh but no line for %s family %d", v->name,
                          cpus[c].vendor, cpus[c].family);
                continue;
            }
            lines++;
            cr_assert(ipf >= 0 && ipfh >= 0, "%s: a default for a row without pf/pfh", v->name);
            cr_assert(reason && *reason, "%s: a per-CPU default without its reason", v->name);
            int in_pf = 0, in_pfh = 0;
            for (int j = 0; j < v->params[ipf].n_values; j++)
                in_pf |= v->params[ipf].values[j] == pf;
            for (int j = 0; j < v->params[ipfh].n_values; j++)
                in_pfh |= v->params[ipfh].values[j] == pfh;
            cr_assert(in_pf && in_pfh, "%s on %s %d: pf=%d pfh=%d outside the space", v->name,
                      cpus[c].vendor, cpus[c].family, pf, pfh);
            if (strstr(reason, "placeholder"))
                cr_assert(pf == v->params[ipf].def && pfh == v->params[ipfh].def,
                          "%s on %s %d: a placeholder must keep the catalog's default", v->name,
                          cpus[c].vendor, cpus[c].family);
        }
    }
#if defined(__x86_64__) || defined(__i386__)
    cr_assert_gt(lines, 0);
    char vendor[16];
    int family;
    cr_assert_eq(mp_cpu_vendor_family(vendor, sizeof vendor, &family), 0);
    for (int i = 0; i < N_STREAMING; i++) {
        const mp_variant *v = mp_registry_find(streaming[i]);
        int p[MP_MAX_PARAMS], pf, pfh;
        mp_variant_defaults(v, p);
        if (mp_variant_pf_default(v, vendor, family, &pf, &pfh, NULL) == 0) {
            cr_assert_eq(p[mp_variant_param_index(v, "pf")], pf, "%s", v->name);
            cr_assert_eq(p[mp_variant_param_index(v, "pfh")], pfh, "%s", v->name);
        }
    }
#endif
}

/* A stored params string means one setting on every machine: what it leaves out
 * is the catalog's default, whatever this CPU's prefetch line says (a row of
 * I8 measured at pf=0 before the AMD family 25 line existed reads "" here and
 * on the Xeon alike); and a row at its own machine's default is a default row
 * wherever the report is made. */
Test(prefetch, stored_params_mean_the_same_setting_on_every_machine)
{
    for (int i = 0; i < N_STREAMING; i++) {
        const mp_variant *v = mp_registry_find(streaming[i]);
        int p[MP_MAX_PARAMS];
        char why[256];
        cr_assert_eq(mp_params_parse(v, "", p, why, sizeof why), 0, "%s", why);
        for (int j = 0; j < v->n_params; j++)
            cr_assert_eq(p[j], v->params[j].def, "%s: '' parses %s=%d, the catalog says %d",
                         v->name, v->params[j].name, p[j], v->params[j].def);
        char cat[256];
        mp_params_str(v, p, cat, sizeof cat);
        cr_assert(mp_rep_params_default(v->name, cat), "%s: the catalog's default row '%s'",
                  v->name, cat);
    }
    /* the measured line that differs from the catalog (variants/registry.c) */
    int pf, pfh;
    const mp_variant *i8 = mp_registry_find("i8.avx2");
    cr_assert_eq(mp_variant_pf_default(i8, "AuthenticAMD", 25, &pf, &pfh, NULL), 0);
    cr_assert(pf != i8->params[mp_variant_param_index(i8, "pf")].def,
              "the AMD family 25 line of I8 is measured to differ from the catalog");
    int p[MP_MAX_PARAMS];
    char mine[64], why[256];
    cr_assert_eq(mp_params_parse(i8, "", p, why, sizeof why), 0);
    p[mp_variant_param_index(i8, "pf")] = pf;
    p[mp_variant_param_index(i8, "pfh")] = pfh;
    mp_params_str(i8, p, mine, sizeof mine); /* as a row measured there stores it */
    cr_assert(mp_rep_params_default("i8.avx2", mine), "%s: a default row (AMD family 25)", mine);
    cr_assert(!mp_rep_params_default("i8.avx2", "pf=4096,pfh=1"), "no CPU's default");
    cr_assert(!mp_rep_params_default("vnni_int2.avx2", "mtile=16"), "no CPU's default");
}

/* ---- every setting, the scalar sibling's bits -------------------------------------- */

/* v's output on (m, k, n) with pf/pfh set to every pair, each against the
 * scalar sibling on the same packed weights and prepared activations; rb (TL on
 * AVX-512: one or two weight streams) where v has it.  Returns the settings run
 * (0: v does not take the shape). */
static int all_settings_match_scalar(const mp_variant *v, int m, int k, int n, uint64_t seed,
                                     int rb)
{
    const mp_variant *s = mp_variant_scalar_sibling(v);
    cr_assert(s, "%s has a scalar sibling", v->name);
    int param[MP_MAX_PARAMS];
    char why[256];
    mp_variant_defaults(v, param);
    if (mp_variant_param_index(v, "rb") >= 0)
        param[mp_variant_param_index(v, "rb")] = rb;
    if (mp_variant_check(v, m, k, param, why, sizeof why))
        return 0;
    const int ipf = mp_variant_param_index(v, "pf"), ipfh = mp_variant_param_index(v, "pfh");
    int8_t *w = mp_alloc((size_t)m * k);
    mp_gen_weights(seed, w, (size_t)m * k, v->domain == MP_DOMAIN_BINARY);
    float *x = mp_alloc(sizeof(float) * (size_t)n * k);
    mp_gen_acts(seed + 1, x, (size_t)n * k);
    mp_test_op t;
    mp_test_op_make(&t, v, param, w, 0.0123f, m, k, x, n);
    float *ys = mp_alloc(sizeof(float) * (size_t)n * m), *y = mp_alloc(sizeof(float) * (size_t)n * m);
    const size_t ssz = s->scratch_size ? s->scratch_size(n, k, param) : 0;
    void *sscr = ssz ? mp_alloc(ssz) : NULL;
    mp_op os = t.op;
    os.v = s;
    for (size_t i = 0; i < (size_t)n * m; i++)
        ys[i] = NAN;
    s->compute(&os, t.act, n, ys, 0, m, sscr);
    int ran = 0;
    for (int a = 0; a < N_PF; a++)
        for (int b = 0; b < N_PFH; b++) {
            t.op.param[ipf] = pf_values[a];
            t.op.param[ipfh] = pfh_values[b];
            for (size_t i = 0; i < (size_t)n * m; i++)
                y[i] = NAN;
            /* two row ranges, as two threads would (the second starts aligned) */
            const int align = v->m_align > 0 ? v->m_align : 1;
            const int cut = m / 2 / align * align;
            if (cut > 0)
                v->compute(&t.op, t.act, n, y, 0, cut, t.scratch);
            v->compute(&t.op, t.act, n, y, cut, m, t.scratch);
            for (size_t i = 0; i < (size_t)n * m; i++)
                cr_assert(memcmp(&y[i], &ys[i], sizeof(float)) == 0,
                          "%s pf=%d pfh=%d M=%d K=%d N=%d seed=%llu: y[token %zu][row %zu] = "
                          "%.9g, scalar %.9g; rerun: ./mpbench run --variant %s --shape "
                          "%dx%dx%d --params pf=%d,pfh=%d --seed %llu --no-db",
                          v->name, pf_values[a], pfh_values[b], m, k, n,
                          (unsigned long long)seed, i / (size_t)m, i % (size_t)m, y[i], ys[i],
                          v->name, m, k, n, pf_values[a], pfh_values[b],
                          (unsigned long long)seed);
            ran++;
        }
    mp_free(sscr);
    mp_free(y);
    mp_free(ys);
    mp_test_op_free(&t);
    mp_free(x);
    mp_free(w);
    return ran;
}

/* An odd shape (M and K tails where the variant allows them: the first it
 * takes) with one token and with five (the token tail and, F16 on AVX-512, the
 * four-token tile), and BitNet b1.58 2B-4T's 2560x2560 with one token (TL on
 * AVX-512 there with two weight streams, rb = 2). */
static void every_setting(const char *name)
{
    const mp_variant *v = mp_registry_find(name);
    if (!v)
        cr_skip_test("%s: not in this build", name);
    char why[256];
    if (mp_variant_unavailable_reason(v, why, sizeof why))
        cr_skip_test("%s: %s", name, why);
    static const int odd[][2] = {{33, 1000}, {33, 800}, {49, 576}, {33, 768}};
    int ran = 0;
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        int r = all_settings_match_scalar(v, odd[i][0], odd[i][1], 1, 41, 1);
        if (!r)
            continue;
        ran += r + all_settings_match_scalar(v, odd[i][0], odd[i][1], 5, 42, 1);
        break;
    }
    int r = all_settings_match_scalar(v, 2560, 2560, 1, 43, 2);
    cr_assert_gt(r, 0, "%s does not take 2560x2560", name);
    ran += r;
    cr_assert_geq(ran, 3 * N_PF * N_PFH, "%s: no odd shape it takes", name);
}

Test(prefetch, i2s_avx2) { every_setting("i2_s.avx2"); }
Test(prefetch, i2s_avx512) { every_setting("i2_s.avx512"); }
Test(prefetch, f16_avx2) { every_setting("f16.avx2"); }
Test(prefetch, f16_avx512) { every_setting("f16.avx512"); }
Test(prefetch, q8_0_avx2) { every_setting("q8_0.avx2"); }
Test(prefetch, q8_0_avx512) { every_setting("q8_0.avx512"); }
Test(prefetch, q4_0_avx2) { every_setting("q4_0.avx2"); }
Test(prefetch, q4_0_avx512) { every_setting("q4_0.avx512"); }
Test(prefetch, tq1_0_avx2) { every_setting("tq1_0.avx2"); }
Test(prefetch, tq1_0_avx512) { every_setting("tq1_0.avx512"); }
Test(prefetch, tq2_0_avx2) { every_setting("tq2_0.avx2"); }
Test(prefetch, tq2_0_avx512) { every_setting("tq2_0.avx512"); }
Test(prefetch, tmac_avx2) { every_setting("tmac_int2.avx2"); }
Test(prefetch, tmac_avx512) { every_setting("tmac_int2.avx512"); }
Test(prefetch, vnni_int2_avx2) { every_setting("vnni_int2.avx2"); }
Test(prefetch, vnni_int2_avxvnni) { every_setting("vnni_int2.avxvnni"); }
Test(prefetch, vnni_int2_avx512vnni) { every_setting("vnni_int2.avx512vnni"); }
Test(prefetch, vnni_int1_avx2) { every_setting("vnni_int1.avx2"); }
Test(prefetch, vnni_int1_avxvnni) { every_setting("vnni_int1.avxvnni"); }
Test(prefetch, vnni_int1_avx512vnni) { every_setting("vnni_int1.avx512vnni"); }
Test(prefetch, i8_avx2) { every_setting("i8.avx2"); }
Test(prefetch, i8_avxvnni) { every_setting("i8.avxvnni"); }
Test(prefetch, i8_avx512vnni) { every_setting("i8.avx512vnni"); }

/* TL: every kind and bm on both ISAs */
static void every_tl(const char *isa)
{
    static const char *const kinds[] = {"tl1_0", "tl1_1", "tl2_0", "tl2_1"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        for (int bm = 16; bm <= 32; bm += 16) {
            char name[64];
            snprintf(name, sizeof name, "%s.%s.bm%d", kinds[i], isa, bm);
            const mp_variant *v = mp_registry_find(name);
            cr_assert(v, "%s registered", name);
            if (!mp_variant_available(v))
                cr_skip_test("%s: this CPU lacks its ISA", name);
            every_setting(name);
        }
}
Test(prefetch, tl_avx2, .timeout = 120) { every_tl("avx2"); }
Test(prefetch, tl_avx512, .timeout = 120) { every_tl("avx512"); }
