/* test_variants.c - the grid every variant in the registry goes through: all
 * distinct ternary shapes of the nine real models and odd shapes, N in {1, 3, 32},
 * judged by mp_check_variant (lossless: bit for bit against the reference; SIMD:
 * against the scalar path).  A variant whose ISA this CPU lacks (or a peer whose
 * library is absent) is skipped with the reason, never passed.  Adding a variant
 * to variants/ adds it here. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "mp_test.h"
#include "../variants/mp_registry.h"

static void run_grid(int idx, int real)
{
    const mp_variant *v = mp_registry_get(idx);
    cr_assert(v, "registry index %d", idx);
    char why_[512];
    if (mp_variant_unavailable_reason(v, why_, sizeof why_))
        cr_skip_test("%s: %s", v->name, why_);
    const int wrong = !strcmp(v->method, "WRONG_ON_PURPOSE");
    int shapes[64][2], ns = 0;
    if (real) {
        ns = mp_test_real_shapes(shapes, 64);
        cr_assert_geq(ns, 20, "expected the real models' shapes, got %d", ns);
    } else {
        ns = mp_test_odd_shapes(shapes, 64);
    }
    static const int ns_tok[] = {1, 3, 32};
    int ran = 0;
    for (int s = 0; s < ns; s++)
        for (int t = 0; t < 3; t++) {
            mp_check c;
            mp_check_variant(v, NULL, shapes[s][0], shapes[s][1], ns_tok[t],
                             (uint64_t)(1000 + s), &c);
            if (c.skipped)
                continue;
            if (wrong) /* the test build's wrong variant: the grid must catch it every time */
                cr_assert(!c.ok, "%s was judged correct on %dx%d n=%d", v->name, shapes[s][0],
                          shapes[s][1], ns_tok[t]);
            else
                cr_assert(c.ok, "%s", c.why);
            ran++;
        }
    /* something must have run: a variant that skips everything is not tested */
    cr_assert_gt(ran, 0, "%s accepted none of the %s shapes", v->name, real ? "real" : "odd");
    fprintf(stderr, "%s: %d %s cases passed\n", v->name, ran, real ? "real-model" : "odd-shape");
}

ParameterizedTestParameters(variants, real_shapes)
{
    static int idx[1024];
    int n = mp_registry_count();
    for (int i = 0; i < n; i++)
        idx[i] = i;
    return cr_make_param_array(int, idx, (size_t)n);
}

ParameterizedTest(int *i, variants, real_shapes, .timeout = 600)
{
    run_grid(*i, 1);
}

ParameterizedTestParameters(variants, odd_shapes)
{
    static int idx[1024];
    int n = mp_registry_count();
    for (int i = 0; i < n; i++)
        idx[i] = i;
    return cr_make_param_array(int, idx, (size_t)n);
}

ParameterizedTest(int *i, variants, odd_shapes, .timeout = 300)
{
    run_grid(*i, 0);
}

/* DESIGN.md: lossless variants must hold in the worst case for narrow
 * accumulators: activations saturated at +-127 with all-(+1) or all-(-1) weights
 * over the largest K of the real models (23040). */
#include "../kernels/common/mp_numerics.h"
#include <math.h>
#include <string.h>

ParameterizedTestParameters(variants, saturated_worst_case)
{
    static int idx[1024];
    int n = mp_registry_count();
    for (int i = 0; i < n; i++)
        idx[i] = i;
    return cr_make_param_array(int, idx, (size_t)n);
}

ParameterizedTest(int *i, variants, saturated_worst_case)
{
    const mp_variant *v = mp_registry_get(*i);
    char why_[512];
    if (mp_variant_unavailable_reason(v, why_, sizeof why_))
        cr_skip_test("%s: %s", v->name, why_);
    if (v->exactness != MP_LOSSLESS)
        cr_skip_test("%s is not lossless; its error is measured elsewhere", v->name);
    const int k = 23040, m = 8, n = 2;
    int param[MP_MAX_PARAMS];
    mp_variant_defaults(v, param);
    char why[256];
    cr_assert_eq(mp_variant_check(v, m, k, param, why, sizeof why), 0, "%s: %s", v->name, why);
    int8_t *w = mp_alloc((size_t)m * k);
    for (int r = 0; r < m; r++)
        for (int j = 0; j < k; j++) /* rows alternate all +1 / all -1 */
            w[(size_t)r * k + j] = (int8_t)(r % 2 ? -1 : 1);
    float *x = mp_alloc(sizeof(float) * n * k);
    for (int j = 0; j < n * k; j++) /* token 0 all at +absmax, token 1 all at -absmax */
        x[j] = j < k ? 3.0f : -3.0f;
    float y[16], ref[16];
    mp_ref_gemm(w, 0.5f, m, k, x, n, ref, 0, m);
    cr_assert_eq(ref[0], 127.0f * k * 0.5f / (127.0f / 3.0f), "reference sanity");
    mp_test_op t;
    mp_test_op_make(&t, v, param, w, 0.5f, m, k, x, n);
    v->compute(&t.op, t.act, n, y, 0, m, t.scratch);
    int differ = 0;
    for (int j = 0; j < m * n; j++) {
        if (!strcmp(v->method, "WRONG_ON_PURPOSE")) { /* test build: must be caught */
            differ |= memcmp(&y[j], &ref[j], sizeof(float)) != 0;
            continue;
        }
        cr_assert(memcmp(&y[j], &ref[j], sizeof(float)) == 0,
                  "%s saturated K=%d: y[%d] = %.9g, reference %.9g", v->name, k, j, y[j], ref[j]);
    }
    if (!strcmp(v->method, "WRONG_ON_PURPOSE"))
        cr_assert(differ, "%s was judged correct in the saturated case", v->name);
    mp_test_op_free(&t);
    mp_free(x);
    mp_free(w);
}
