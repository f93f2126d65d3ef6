/* mptest-arm.c - the variant grid for an AArch64 build, without Criterion.
 *
 * `make test-arm` cross-builds this driver with the kernels and the catalog
 * (no SQLite, hwloc, PAPI or Criterion: see the Makefile's AArch64 section) and
 * runs it under qemu-aarch64 with three CPU models, so each dispatch level runs.
 * It judges variants exactly as tests/test_variants.c does on x86, through the
 * same oracle (tests/check.c, mp_check_variant):
 *   - every real-model shape (the nine models' distinct ternary shapes) and the
 *     odd shapes (K at, below and above the common blocks; M tails; one row),
 *     N in {1, 3, 32}: lossless variants bit for bit against the reference,
 *     lossy and float ones bit for bit against their scalar sibling;
 *   - the saturated worst case of every lossless variant (activations at +-127,
 *     all-(+1) / all-(-1) rows, K = 23040);
 *   - every value of every runtime parameter of the Arm rows (one at a time).
 * --real-stride S samples the real shapes deterministically (every S-th, offset
 * by the variant's registry index, plus the largest K; scalar rows every 3S-th)
 * to keep the run under qemu bounded; 1 runs them all.
 * Which variants: every row whose ISA is an Arm one, plus the scalar rows (the
 * oracles: run on AArch64 they catch what differs there, e.g. plain char being
 * unsigned).  A variant whose ISA the CPU lacks is reported SKIP, never passed.
 * Before anything, the detected ISA must equal --expect (the CPU model's
 * features), so a detection bug cannot silently turn the run into a scalar one.
 * Output: one line per variant and test, a summary; exit 0 when nothing failed,
 * 1 when something did, 2 on bad arguments. */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../mp_test.h"
#include "../../kernels/common/mp_isa.h"
#include "../../kernels/common/mp_numerics.h"
#include "../../variants/mp_registry.h"

static const unsigned ARM_BITS = MP_ISA_NEON | MP_ISA_DOTPROD | MP_ISA_I8MM;

static int n_pass, n_fail, n_skip;
/* Real-model shapes per variant: every real_stride-th one, starting at an offset
 * that moves with the variant (so the variants of a run cover all shapes between
 * them), plus always the shape with the largest K.  1 = all shapes. */
static int real_stride = 1;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The shapes of one grid: real-model ones or the odd ones. */
static int grid_shapes(int real, int (*shapes)[2])
{
    return real ? mp_test_real_shapes(shapes, 64) : mp_test_odd_shapes(shapes, 64);
}

/* One variant (registry index vi) over one grid; returns 1 when it passed. */
static int run_grid(const mp_variant *v, int vi, int real)
{
    int shapes[64][2];
    int ns = grid_shapes(real, shapes);
    if (real && ns < 20) {
        printf("FAIL %s %s: expected the real models' shapes, found %d (run from the "
               "repository root or set MPBENCH_MODELS)\n",
               v->name, "real", ns);
        return 0;
    }
    static const int ns_tok[] = {1, 3, 32};
    int ran = 0, kmax = 0;
    for (int s = 0; s < ns; s++)
        kmax = shapes[s][1] > shapes[kmax][1] ? s : kmax;
    for (int s = 0; s < ns; s++)
        for (int t = 0; t < 3; t++) {
            /* scalar rows: a third of the sample (their arithmetic also runs on
             * every real shape as the sibling of the lossy SIMD rows) */
            int stride = real_stride > 1 && !v->isa ? 3 * real_stride : real_stride;
            if (real && stride > 1 && s != kmax && (s + vi) % stride)
                continue;
            mp_check c;
            mp_check_variant(v, NULL, shapes[s][0], shapes[s][1], ns_tok[t],
                             (uint64_t)(1000 + s), &c);
            if (c.skipped)
                continue;
            if (!c.ok) {
                printf("FAIL %s %s: %s\n", v->name, real ? "real" : "odd", c.why);
                return 0;
            }
            ran++;
        }
    if (!ran) {
        printf("FAIL %s %s: accepted none of the shapes\n", v->name, real ? "real" : "odd");
        return 0;
    }
    printf("PASS %s %s: %d cases%s\n", v->name, real ? "real-model" : "odd-shape", ran,
           real && real_stride > 1 ? " (sampled)" : "");
    return 1;
}

/* Every value of every runtime parameter, one parameter at a time (the others
 * at their defaults), over a subset of the odd shapes: the paths a tuner or an
 * ablation (seed 001 Fig. 11) selects are checked too.  Returns 1 when passed. */
static int run_params(const mp_variant *v)
{
    static const int pm[] = {7, 33}, pk[] = {128, 192, 576, 1600}, pn[] = {1, 3, 32};
    int ran = 0;
    for (int p = 0; p < v->n_params; p++)
        for (int j = 0; j < v->params[p].n_values; j++) {
            int param[MP_MAX_PARAMS];
            mp_variant_defaults(v, param);
            if (v->params[p].values[j] == param[p])
                continue;
            param[p] = v->params[p].values[j];
            for (size_t a = 0; a < sizeof pm / sizeof pm[0]; a++)
                for (size_t b = 0; b < sizeof pk / sizeof pk[0]; b++)
                    for (size_t c = 0; c < sizeof pn / sizeof pn[0]; c++) {
                        mp_check ck;
                        mp_check_variant(v, param, pm[a], pk[b], pn[c], 77, &ck);
                        if (ck.skipped)
                            continue;
                        if (!ck.ok) {
                            printf("FAIL %s params %s=%d: %s\n", v->name, v->params[p].name,
                                   param[p], ck.why);
                            return 0;
                        }
                        ran++;
                    }
        }
    printf("PASS %s params: %d cases over %d parameters\n", v->name, ran, v->n_params);
    return 1;
}

/* DESIGN.md: the worst case for narrow accumulators (as test_variants.c). */
static int run_saturated(const mp_variant *v)
{
    const int k = 23040, m = 8, n = 2;
    int param[MP_MAX_PARAMS];
    mp_variant_defaults(v, param);
    char why[256];
    if (mp_variant_check(v, m, k, param, why, sizeof why)) {
        printf("FAIL %s saturated: does not take K=%d: %s\n", v->name, k, why);
        return 0;
    }
    int8_t *w = mp_alloc((size_t)m * k);
    for (int r = 0; r < m; r++)
        for (int j = 0; j < k; j++)
            w[(size_t)r * k + j] = (int8_t)(r % 2 ? -1 : 1);
    float *x = mp_alloc(sizeof(float) * n * k);
    for (int j = 0; j < n * k; j++)
        x[j] = j < k ? 3.0f : -3.0f;
    float y[16], ref[16];
    for (int j = 0; j < 16; j++)
        y[j] = NAN;
    mp_ref_gemm(w, 0.5f, m, k, x, n, ref, 0, m);
    int ok = ref[0] == 127.0f * k * 0.5f / (127.0f / 3.0f);
    mp_test_op t;
    mp_test_op_make(&t, v, param, w, 0.5f, m, k, x, n);
    v->compute(&t.op, t.act, n, y, 0, m, t.scratch);
    int bad = -1;
    for (int j = 0; j < m * n && bad < 0; j++)
        if (memcmp(&y[j], &ref[j], sizeof(float)))
            bad = j;
    if (!ok)
        printf("FAIL %s saturated: reference sanity (%.9g)\n", v->name, ref[0]);
    else if (bad >= 0)
        printf("FAIL %s saturated K=%d: y[%d] = %.9g, reference %.9g\n", v->name, k, bad,
               y[bad], ref[bad]);
    else
        printf("PASS %s saturated: K=%d, %d outputs\n", v->name, k, m * n);
    mp_test_op_free(&t);
    mp_free(x);
    mp_free(w);
    return ok && bad < 0;
}

static void count(int passed)
{
    if (passed)
        n_pass++;
    else
        n_fail++;
}

static void usage(FILE *f)
{
    fputs("usage: mptest-arm [--expect ISA|any] [--filter GLOB] [--real-stride S] [--arm-only]\n"
          "                  [--list]\n"
          "  --expect ISA     detected ISA must be exactly this (e.g. neon+dotprod+i8mm)\n"
          "  --filter GLOB    only variants whose name matches (fnmatch; comma list)\n"
          "  --real-stride S  each variant takes every S-th real-model shape (offset by its\n"
          "                   registry index; scalar rows every 3S-th) and the largest-K\n"
          "                   one; 1 = all (default)\n"
          "  --arm-only       leave out the scalar rows (run them once, not per CPU model)\n"
          "  --list           print the variants this build has and exit\n",
          f);
}

static int selected(const mp_variant *v, const char *filter)
{
    if (!filter)
        return 1;
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s", filter);
    char *save = NULL;
    for (char *g = strtok_r(tmp, ",", &save); g; g = strtok_r(NULL, ",", &save))
        if (!fnmatch(g, v->name, 0))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *expect = NULL, *filter = NULL;
    int list = 0, arm_only = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--expect") && i + 1 < argc)
            expect = argv[++i];
        else if (!strcmp(argv[i], "--filter") && i + 1 < argc)
            filter = argv[++i];
        else if (!strcmp(argv[i], "--real-stride") && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 1 || v > 64) {
                fprintf(stderr, "mptest-arm: --real-stride '%s' is not an integer in 1..64\n",
                        argv[i]);
                return 2;
            }
            real_stride = (int)v;
        } else if (!strcmp(argv[i], "--arm-only"))
            arm_only = 1;
        else if (!strcmp(argv[i], "--list"))
            list = 1;
        else if (!strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "mptest-arm: unknown or incomplete argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    char hw[96], en[96], emu[256] = "";
    unsigned have = mp_isa_detect();
    mp_isa_str(mp_isa_hardware(), hw, sizeof hw);
    mp_isa_str(have, en, sizeof en);
    int emulated = mp_cpu_emulated(emu, sizeof emu);
    printf("mptest-arm: hardware ISA %s, enabled %s; %s%s\n", hw, en,
           emulated ? "emulated: " : "not emulated", emu);
    if (list) {
        for (int i = 0; i < mp_registry_count(); i++) {
            const mp_variant *v = mp_registry_get(i);
            printf("%-28s %s\n", v->name, mp_variant_available(v) ? "available" : "unavailable");
        }
        return 0;
    }
    if (expect && strcmp(expect, "any") && strcmp(expect, en)) {
        printf("FAIL detection: expected ISA %s, detected %s\n", expect, en);
        return 1;
    }
    double t0 = now_s();
    int n_arm = 0;
    for (int i = 0; i < mp_registry_count(); i++) {
        const mp_variant *v = mp_registry_get(i);
        if ((v->isa && !(v->isa & ARM_BITS)) || (arm_only && !v->isa) || !selected(v, filter))
            continue;
        if (v->isa & ARM_BITS)
            n_arm++;
        if (!mp_variant_available(v)) {
            char need[96];
            printf("SKIP %s: this CPU lacks %s\n", v->name, mp_isa_str(v->isa, need, sizeof need));
            n_skip++;
            continue;
        }
        double tv = now_s();
        count(run_grid(v, i, 0));
        double to = now_s();
        count(run_grid(v, i, 1));
        double tr = now_s();
        if (v->exactness == MP_LOSSLESS)
            count(run_saturated(v));
        double ts = now_s();
        if (v->n_params && (v->isa & ARM_BITS))
            count(run_params(v));
        printf("     %s: %.1f s (odd %.1f, real %.1f, saturated %.1f, params %.1f)\n", v->name,
               now_s() - tv, to - tv, tr - to, ts - tr, now_s() - ts);
    }
    printf("mptest-arm: %s: %d Arm variants in this build; %d passed, %d failed, %d "
           "variants skipped (ISA not present); %.0f s\n",
           en, n_arm, n_pass, n_fail, n_skip, now_s() - t0);
    if (n_pass + n_fail == 0) {
        printf("FAIL nothing ran (filter '%s')\n", filter ? filter : "");
        return 1;
    }
    return n_fail ? 1 : 0;
}
