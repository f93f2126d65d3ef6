/* test_edges.c - edge shapes derived from each catalog row, for every parameter
 * set of its grid (sampled), not one fixed list at the defaults.
 *
 * Per variant, from its row and its format's traits row (variants/mp_formats.h):
 *   K block   kb = the row's K multiple, at least the format's block (and 8);
 *             K in {K0 - kb, K0, K0 + kb} around K0 = the first multiple >= 256;
 *   M blocks  bm = the parameter "mtile" when the row has one, else m_align (at
 *             least 4: the MAD paths' row group; TL's packed row block bm);
 *             M in {1, bm-1, bm, bm+1, 3bm+1};
 *   N tiles   nt = the parameter "ntile", else 4 (F16's token tile);
 *             N in {1, nt-1, nt, nt+1};
 *   the saturated case of DESIGN.md (lossless rows): +-127 activations with all
 *             +1 / all -1 rows over the largest K of the real models that the
 *             row takes;
 *   refusals: K = K0 + kb/2 (when the row needs a multiple) and any parameter set
 *             its check refuses must be refused with a reason, and the oracle
 *             must report such a case skipped, not passed.
 * Parameter sets, deterministically: the defaults; each parameter through each of
 * its values with the others at their defaults; then 3 combinations drawn from a
 * generator seeded by the variant's name.  The defaults get the whole shape
 * cross (3 K x 5 M x 4 N); every other set a rotating sample of 4 shapes of it
 * (the set's index picks where the rotation starts), so every shape meets
 * several sets.  Sizes stay small (K <= ~300, M <= 3bm+1): the suite adds well
 * under a minute. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mp_test.h"
#include "../kernels/common/mp_numerics.h"
#include "../variants/mp_formats.h"
#include "../variants/mp_registry.h"

enum { MAX_SETS = 96, N_RANDOM = 3, SAMPLE = 4, K_SAT = 23040 };

typedef struct dims {
    int kb, k0, bm, nt;
} dims;

static int param_or(const mp_variant *v, const int *param, const char *name, int dflt)
{
    int i = mp_variant_param_index(v, name);
    return i >= 0 ? param[i] : dflt;
}

static dims dims_of(const mp_variant *v, const int *param)
{
    dims d;
    const mp_wformat_traits *t = mp_wformat_get(v->wformat);
    d.kb = v->k_multiple > 1 ? v->k_multiple : 1;
    if (t && t->block > d.kb && t->block % d.kb == 0)
        d.kb = t->block;
    while (d.kb < 8)
        d.kb *= 2;
    d.k0 = (256 + d.kb - 1) / d.kb * d.kb;
    d.bm = param_or(v, param, "mtile", v->m_align > 4 ? v->m_align : 4);
    d.nt = param_or(v, param, "ntile", 4);
    return d;
}

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The sampled grid of v into sets[][MP_MAX_PARAMS]; returns the count. */
static int param_sets(const mp_variant *v, int (*sets)[MP_MAX_PARAMS])
{
    int n = 0;
    mp_variant_defaults(v, sets[n++]);
    for (int p = 0; p < v->n_params; p++)
        for (int j = 0; j < v->params[p].n_values && n < MAX_SETS - N_RANDOM; j++) {
            if (v->params[p].values[j] == v->params[p].def)
                continue;
            mp_variant_defaults(v, sets[n]);
            sets[n++][p] = v->params[p].values[j];
        }
    uint64_t s = hash_name(v->name);
    for (int r = 0; r < N_RANDOM && v->n_params > 0; r++) {
        mp_variant_defaults(v, sets[n]);
        for (int p = 0; p < v->n_params; p++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            sets[n][p] = v->params[p].values[(s >> 33) % (uint64_t)v->params[p].n_values];
        }
        n++;
    }
    return n;
}

static const mp_variant *usable(int idx, int allow_wrong)
{
    const mp_variant *v = mp_registry_get(idx);
    cr_assert(v, "registry index %d", idx);
    char why[512];
    if (mp_variant_unavailable_reason(v, why, sizeof why))
        cr_skip_test("%s: %s", v->name, why);
    if (!allow_wrong && !strcmp(v->method, "WRONG_ON_PURPOSE"))
        cr_skip_test("%s fails on purpose (tests/test_variants.c checks it is caught)", v->name);
    return v;
}

static void edge_shapes(int idx)
{
    const mp_variant *v = usable(idx, 1);
    /* the test build's wrong variant: these edges must catch it */
    const int wrong = !strcmp(v->method, "WRONG_ON_PURPOSE");
    static int sets[MAX_SETS][MP_MAX_PARAMS];
    const int ns = param_sets(v, sets);
    int ran = 0, refused_sets = 0, caught = 0;
    for (int s = 0; s < ns; s++) {
        const int *param = sets[s];
        char ps[256];
        mp_params_str(v, param, ps, sizeof ps);
        const dims d = dims_of(v, param);
        const int ks[3] = {d.k0 - d.kb, d.k0, d.k0 + d.kb};
        const int ms[5] = {1, d.bm - 1, d.bm, d.bm + 1, 3 * d.bm + 1};
        const int nn[4] = {1, d.nt - 1, d.nt, d.nt + 1};
        char why[256] = "";
        /* a parameter set the row refuses: refused for every shape, with a reason */
        if (mp_variant_check(v, d.bm, d.k0, param, why, sizeof why)) {
            cr_assert(why[0], "%s {%s}: refused without a reason", v->name, ps);
            mp_check c;
            mp_check_variant(v, param, d.bm, d.k0, 1, 7, &c);
            cr_assert(c.skipped && c.why[0], "%s {%s}: refused (%s) but the oracle ran it",
                      v->name, ps, why);
            refused_sets++;
            continue;
        }
        /* K off its multiple: refused with a reason naming K */
        if (v->k_multiple > 1) {
            const int kbad = d.k0 + v->k_multiple / 2;
            why[0] = 0;
            cr_assert(mp_variant_check(v, d.bm, kbad, param, why, sizeof why) != 0,
                      "%s {%s} accepted K=%d (K multiple %d)", v->name, ps, kbad,
                      v->k_multiple);
            cr_assert(strstr(why, "K"), "%s: the refusal of K=%d does not name K: '%s'",
                      v->name, kbad, why);
        }
        const int total = 3 * 5 * 4;
        const int take = s == 0 ? total : SAMPLE;
        for (int c_ = 0; c_ < take; c_++) {
            const int i = s == 0 ? c_ : (s * 7 + c_ * (total / SAMPLE + 1)) % total;
            const int k = ks[i / 20], m = ms[(i / 4) % 5], n = nn[i % 4];
            if (m < 1 || n < 1 || k < 1)
                continue;
            mp_check c;
            mp_check_variant(v, param, m, k, n, (uint64_t)(2000 + 31 * s + i), &c);
            if (c.skipped) { /* a shape it refuses: with a reason, and so does check */
                cr_assert(c.why[0], "%s {%s} %dx%d n=%d skipped without a reason", v->name,
                          ps, m, k, n);
                why[0] = 0;
                cr_assert(mp_variant_check(v, m, k, param, why, sizeof why) != 0,
                          "%s {%s} %dx%d: skipped but its check accepts it", v->name, ps, m, k);
                continue;
            }
            if (wrong)
                caught += !c.ok;
            else
                cr_assert(c.ok, "%s {%s}: %s", v->name, ps, c.why);
            ran++;
        }
    }
    cr_assert_gt(ran, 0, "%s accepted none of its derived edge shapes", v->name);
    if (wrong)
        cr_assert_gt(caught, 0, "%s passed every derived edge shape", v->name);
    fprintf(stderr, "%s: %d parameter sets (%d refused), %d edge cases passed\n", v->name, ns,
            refused_sets, ran);
}

/* The saturated worst case for every sampled parameter set of a lossless row. */
static void saturated(int idx)
{
    const mp_variant *v = usable(idx, 0);
    if (v->exactness != MP_LOSSLESS)
        cr_skip_test("%s is not lossless; its error is measured elsewhere", v->name);
    static int sets[MAX_SETS][MP_MAX_PARAMS];
    const int ns = param_sets(v, sets);
    const int n = 2;
    int ran = 0;
    for (int s = 0; s < ns; s++) {
        const int *param = sets[s];
        const dims d = dims_of(v, param);
        const int m = d.bm;
        const int k = K_SAT / d.kb * d.kb;
        char why[256];
        if (mp_variant_check(v, m, k, param, why, sizeof why))
            continue; /* refused sets: edge_shapes checks the reason */
        int8_t *w = mp_alloc((size_t)m * k);
        for (int r = 0; r < m; r++) /* rows alternate all +1 / all -1 */
            memset(w + (size_t)r * k, r % 2 ? -1 : 1, (size_t)k);
        float *x = mp_alloc(sizeof(float) * n * k);
        for (int j = 0; j < n * k; j++) /* token 0 at +absmax, token 1 at -absmax */
            x[j] = j < k ? 3.0f : -3.0f;
        float *y = mp_alloc(sizeof(float) * m * n), *ref = mp_alloc(sizeof(float) * m * n);
        mp_ref_gemm(w, 0.5f, m, k, x, n, ref, 0, m);
        mp_test_op t;
        mp_test_op_make(&t, v, param, w, 0.5f, m, k, x, n);
        for (int j = 0; j < m * n; j++)
            y[j] = NAN;
        v->compute(&t.op, t.act, n, y, 0, m, t.scratch);
        char ps[256];
        for (int j = 0; j < m * n; j++)
            cr_assert(memcmp(&y[j], &ref[j], sizeof(float)) == 0,
                      "%s {%s} saturated %dx%d: y[%d] = %.9g, reference %.9g", v->name,
                      mp_params_str(v, param, ps, sizeof ps), m, k, j, y[j], ref[j]);
        mp_test_op_free(&t);
        mp_free(ref);
        mp_free(y);
        mp_free(x);
        mp_free(w);
        ran++;
    }
    cr_assert_gt(ran, 0, "%s took none of its parameter sets at K=%d", v->name, K_SAT);
}

static int all_idx[1024];

static size_t registry_params(void)
{
    int n = mp_registry_count();
    for (int i = 0; i < n; i++)
        all_idx[i] = i;
    return (size_t)n;
}

ParameterizedTestParameters(edges, derived_shapes)
{
    size_t n = registry_params();
    return cr_make_param_array(int, all_idx, n);
}

ParameterizedTest(int *i, edges, derived_shapes, .timeout = 300)
{
    edge_shapes(*i);
}

ParameterizedTestParameters(edges, saturated_every_param_set)
{
    size_t n = registry_params();
    return cr_make_param_array(int, all_idx, n);
}

ParameterizedTest(int *i, edges, saturated_every_param_set, .timeout = 300)
{
    saturated(*i);
}

/* The traits table agrees with the rows that name it and with the packed sizes
 * of the row-linear block formats (one more block per row = block_bytes more). */
Test(edges, traits_agree_with_rows)
{
    int named = 0;
    for (int i = 0; i < mp_registry_count(); i++) {
        const mp_variant *v = mp_registry_get(i);
        const mp_wformat_traits *t = mp_wformat_get(v->wformat);
        if (!t)
            continue;
        named++;
        cr_assert_str_eq(v->method, t->method, "%s", v->name);
        cr_assert_eq(v->family, t->family, "%s", v->name);
        cr_assert_eq(v->exactness, t->exactness, "%s", v->name);
        cr_assert_eq(v->k_multiple % t->k_multiple, 0, "%s: K multiple %d, format's %d",
                     v->name, v->k_multiple, t->k_multiple);
        if (t->family != MP_FAMILY_MAD && t->family != MP_FAMILY_BASELINE)
            continue;
        int param[MP_MAX_PARAMS];
        mp_variant_defaults(v, param);
        const int m = 8, k = 4 * t->block;
        size_t a = v->packed_size(m, k, param), b = v->packed_size(m, k + t->block, param);
        cr_assert_eq(b - a, (size_t)m * t->block_bytes,
                     "%s: %d rows, one more block of %d weights added %zu bytes, traits say %d "
                     "per row", v->name, m, t->block, b - a, t->block_bytes);
    }
    cr_assert_gt(named, 40, "only %d catalog rows name a weight format", named);
}
