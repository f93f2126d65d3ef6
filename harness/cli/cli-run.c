/* cli-run.c - `mpbench run`: measure the selected variants on one or more
 * shapes or on every distinct ternary shape of a model: a plan of one problem
 * per shape for the engine, which stores each problem's results as they are
 * measured; the results are printed at the end.  Options: the table below
 * (cli/mp_options.h); --shape, --n and --threads take lists and repeats. */
#include <stdlib.h>
#include <string.h>

#include "mp_paths.h"
#include "mp_cli.h"
#include "../gguf/mp_gguf.h"
#include "../core/mp_core.h"
#include "../report/mp_output.h"
#include "../engine/mp_engine.h"
#include "../../variants/mp_registry.h"
#include "../../tuner/mp_tuned.h"
#include "mp_options.h"

enum { MAX_SEL = 512, MAX_SHAPES = 64, MAX_SETS = 32 };

typedef struct run_opts {
    char globs[1024], shapes[2048];
    const char *model, *params, *tuned, *db;
    int nv[32], nn, tv[32], nt, seed, no_db, quiet, force;
    mp_format fmt;
    mp_bench_opts bo;
} run_opts;

static const mp_opt run_table[] = {
    MP_OPT_SL("variant", run_opts, globs, "GLOB", "variants to measure (see mpbench list variants)"),
    MP_OPT_SL("shape", run_opts, shapes, "MxK[xN]", "shapes to measure"),
    MP_OPT_S("model", run_opts, model, "NAME", "every distinct ternary shape of a model"),
    MP_OPT_FN_("gguf", run_opts, model, mp_opt_gguf, "FILE", "every ternary shape of a GGUF model file"),
    MP_OPT_N_THREADS(run_opts, "N", "T"),
    MP_OPT_TIMING_ROWS(run_opts, "keep only calls made at full speed (see mpbench sweep --help)",
                       "warm cache (default: weights rotated out of cache)"),
    MP_OPT_S("params", run_opts, params, "name=value,...[;...]",
             "runtime parameters of the variants; sets split by ';' are measured side by side"),
    MP_OPT_S("tuned", run_opts, tuned, "FILE",
             "each key's parameters from a tuned config (defaults where it has none)"),
    MP_OPT_F("force", 0, run_opts, force, "accept a config tuned on another machine"),
    MP_OPT_SEED(run_opts, seed, "seed of the random inputs"),
    MP_OPT_STORE_ROWS(run_opts),
    MP_OPT_END};

static const mp_cmd_spec run_spec = MP_CMD_SPEC("run", run_table,
    .once = "model|gguf",
    .synopsis = "--variant GLOB[,GLOB] (--shape MxK[xN][,...] | --model NAME | --gguf FILE) [options]",
    .about = "Measures each variant (cold cache unless --warm) on each shape, N and thread\n"
             "count, and stores the results in the database.  --tuned FILE (a config\n"
             "written by `mpbench tune`, results/tuned/FINGERPRINT.conf) measures each\n"
             "variant on each (shape, N, threads) with the parameters the file gives that\n"
             "key, and with its defaults on keys the file lacks.\n");

/* --tuned: one case per variant and distinct parameter set among its
 * entries, plus its defaults; tuned_applies pairs each with its keys. */
static int tuned_cases(const mp_tuned *t, const mp_variant *const *sel, int nsel,
                       mp_case **out, int *n)
{
    mp_case *cases = calloc((size_t)nsel * (size_t)(t->count + 1), sizeof *cases);
    if (!cases)
        return mp_die(3, "run --tuned: out of memory for %d variants x %d entries", nsel,
                      t->count);
    int nc = 0;
    for (int i = 0; i < nsel; i++) {
        int first = nc;
        cases[nc].v = sel[i];
        mp_variant_defaults(sel[i], cases[nc++].param);
        for (int j = 0; j < t->count; j++) {
            int dup = t->e[j].v != sel[i];
            for (int c = first; c < nc && !dup; c++)
                dup = !memcmp(cases[c].param, t->e[j].param, sizeof cases[c].param);
            if (!dup) {
                cases[nc].v = sel[i];
                memcpy(cases[nc++].param, t->e[j].param, sizeof cases[0].param);
            }
        }
    }
    *out = cases;
    *n = nc;
    return 0;
}

/* The key's entry in the config (exactly this variant, shape, N and threads), or NULL. */
static const mp_tuned_entry *tuned_entry(const mp_tuned *t, const mp_variant *v,
                                         const mp_problem *pr)
{
    for (int i = 0; i < t->count; i++) {
        const mp_tuned_entry *x = &t->e[i];
        if (x->v == v && x->m == pr->m && x->k == pr->k && x->n == pr->n &&
            x->threads == pr->threads)
            return x;
    }
    return NULL;
}

/* a case is measured on a key with its entry's parameters, or its defaults
 * where the config has no entry for the key */
static int tuned_applies(const mp_case *c, const mp_problem *pr, const void *ctx)
{
    const mp_tuned_entry *x = tuned_entry(ctx, c->v, pr);
    int def[MP_MAX_PARAMS];
    if (!x)
        mp_variant_defaults(c->v, def);
    return !memcmp(x ? x->param : def, c->param, sizeof def);
}

/* One case per selected variant and --params set that fits it: "A;B;..."
 * measures each set of a variant as a case of its own, interleaved with the
 * others in the same run (settings compared as ratios within one run).  A
 * variant no set fits keeps its defaults; a set that fits no selected variant
 * is an error (with one variant, its reason). */
static int run_cases(const run_opts *o, const mp_tuned *t, mp_case **out, int *n)
{
    const mp_variant *sel[MAX_SEL];
    int nsel, rc = 0;
    mp_err e;
    if ((rc = mp_select_variants(o->globs, sel, MAX_SEL, &nsel, &e)))
        return mp_die(rc, "%s", e.msg);
    if (t)
        return tuned_cases(t, sel, nsel, out, n);
    char sets[MAX_SETS][256];
    int nset = 0;
    if (o->params) {
        const char *p = o->params;
        for (;;) {
            const char *end = strchr(p, ';');
            size_t len = end ? (size_t)(end - p) : strlen(p);
            if (!len)
                return mp_die(2, "--params: empty set in '%.80s' (name=value,...[;...])",
                              o->params);
            if (nset == MAX_SETS || len >= sizeof sets[0])
                return mp_die(2, "--params: more than %d sets, or a set over %zu characters",
                              MAX_SETS, sizeof sets[0] - 1);
            memcpy(sets[nset], p, len);
            sets[nset++][len] = 0;
            if (!end)
                break;
            p = end + 1;
        }
    }
    mp_case *cases = calloc((size_t)nsel * (size_t)(nset ? nset : 1), sizeof *cases);
    int nc = 0, used[MAX_SETS] = {0};
    char why[MAX_SETS][256];
    for (int i = 0; i < nsel; i++) {
        int first = nc;
        for (int s = 0; s < nset; s++) {
            mp_case c = {.v = sel[i]};
            mp_variant_defaults(sel[i], c.param);
            if (mp_params_parse(sel[i], sets[s], c.param, why[s], sizeof why[s]))
                continue;
            used[s] = 1;
            int dup = 0;
            for (int j = first; j < nc; j++)
                dup |= !memcmp(cases[j].param, c.param, sizeof c.param);
            if (!dup)
                cases[nc++] = c;
        }
        if (nc == first) {
            cases[nc].v = sel[i];
            mp_variant_defaults(sel[i], cases[nc++].param);
        }
    }
    for (int s = 0; s < nset && !rc; s++)
        if (!used[s])
            rc = nsel == 1 ? mp_die(2, "--params '%s': %s", sets[s], why[s])
                           : mp_die(2, "--params '%s': no selected variant has these parameters",
                                    sets[s]);
    if (rc) {
        free(cases);
        return rc;
    }
    *out = cases;
    *n = nc;
    return 0;
}

/* The shapes of --shape (each MxK or MxKxN; an N given in a shape sets --n and
 * must agree with --n and the other shapes) or of the model. */
static int run_shapes(run_opts *o, int n_given, int (*shapes)[2], int *ns)
{
    mp_err e;
    int rc;
    if (o->model) {
        mp_model mdl;
        char names[MAX_SHAPES][32];
        if ((rc = mp_model_load(o->model, &mdl, &e)))
            return mp_die(rc, "%s", e.msg);
        *ns = mp_model_shapes(&mdl, shapes, names);
        return 0;
    }
    char buf[sizeof o->shapes], *save = NULL;
    const char *first_n = NULL;
    snprintf(buf, sizeof buf, "%s", o->shapes);
    if (buf[0] == ',' || buf[strlen(buf) - 1] == ',' || strstr(buf, ",,"))
        return mp_die(2, "--shape: empty item in the list '%.80s'", buf);
    *ns = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int m, k, sn;
        if (*ns == MAX_SHAPES)
            return mp_die(2, "--shape: more than %d shapes", MAX_SHAPES);
        if ((rc = mp_parse_shape(t, &m, &k, &sn, &e)))
            return mp_die(rc, "%s", e.msg);
        if (sn && n_given && (o->nn != 1 || sn != o->nv[0]))
            return mp_die(2, "--shape %s gives N=%d but %s gives %s", t, sn,
                          first_n ? first_n : "--n", o->nn == 1 ? "another" : "a list");
        if (sn && !n_given) {
            o->nv[0] = sn, o->nn = 1, n_given = 1;
            first_n = "an earlier --shape";
        }
        shapes[*ns][0] = m, shapes[*ns][1] = k, ++*ns;
    }
    return 0;
}

/* issue 20: a point beyond the machine's memory is refused before anything runs */
static int run_check_memory(const run_opts *o, const mp_case *cases, int nsel,
                            int (*shapes)[2], int ns)
{
    double lim = (double)mp_mem_limit();
    for (int s = 0; s < ns; s++)
        for (int a = 0; a < o->nn; a++)
            for (int b = 0; b < o->nt; b++) {
                double need = mp_bench_memory(cases, nsel, shapes[s][0], shapes[s][1], o->nv[a],
                                              o->tv[b]);
                if (need > lim)
                    return mp_die(2, "run: %dx%d n=%d needs ~%.1f GiB, over the limit of %.1f "
                                     "GiB (3/4 of this machine's RAM)", shapes[s][0],
                                  shapes[s][1], o->nv[a], need / 1073741824.0,
                                  lim / 1073741824.0);
            }
    return 0;
}

/* How many of the plan's keys (variant, shape, N, threads) the config tunes. */
static void tuned_say(const char *path, const mp_plan *plan)
{
    long keys = 0, tuned = 0;
    for (int q = 0; q < plan->ncase; q++) {
        int first = 1; /* each variant once: its first case */
        for (int r = 0; r < q && first; r++)
            first = plan->cases[r].v != plan->cases[q].v;
        for (int p = 0; p < plan->nprob && first; p++) {
            keys++;
            tuned += tuned_entry(plan->applies_ctx, plan->cases[q].v, &plan->probs[p]) != NULL;
        }
    }
    fprintf(stderr, "mpbench: --tuned %s: %ld of %ld keys (variant, shape, n, threads) take "
                    "its parameters, the others their defaults\n", path, tuned, keys);
}

/* Measures the plan, prints the rows; the exit code. */
static int run_measure(const run_opts *o, const mp_machine *mach, const mp_tuned *t,
                       const char *cmdline, mp_case *cases, int nsel, int (*shapes)[2], int ns)
{
    mp_store *store = NULL;
    mp_err e;
    int rc, threads = 1;
    /* open the store before measuring: a bad --db fails fast */
    if (!o->no_db && (rc = mp_store_open(o->db, &store, &e)))
        return mp_die(rc, "%s", e.msg);
    mp_machine_warn(mach);
    for (int i = 0; i < o->nt; i++)
        threads = o->tv[i] > threads ? o->tv[i] : threads;
    if (threads > mach->pus)
        fprintf(stderr, "mpbench: warning: %d threads on %d hardware threads: timings are "
                        "oversubscribed\n", threads, mach->pus);
    mp_plan plan;
    mp_engine_opts eo = {.bench = o->bo, .kind = "run", .cmdline = cmdline, .annotate = 1,
                         .quiet = o->quiet};
    mp_engine_out out = {0};
    if ((rc = mp_plan_kernels(&plan, cases, nsel, (const int(*)[2])shapes, ns, o->nv, o->nn,
                              o->tv, o->nt, 1, 1, o->bo.warm, &e))) {
        mp_store_close(store);
        return mp_die(rc, "%s", e.msg);
    }
    if (t) {
        plan.applies = tuned_applies, plan.applies_ctx = t;
        tuned_say(o->tuned, &plan);
    }
    if ((rc = mp_engine_run(store, mach, &plan, &eo, &out, &e)))
        mp_die(rc, "%s", e.msg);
    else
        mp_results_print(stdout, o->fmt, out.rows, out.nrows);
    mp_plan_free(&plan);
    int failed = !rc && out.failed, interrupted = !rc && out.interrupted;
    long stored = !rc ? out.stored : 0;
    if (!rc)
        mp_engine_out_free(&out);
    mp_store_close(store);
    if (rc)
        return rc;
    if (interrupted)
        return mp_die(130, "interrupted: %ld results stored%s; the point in flight was not",
                      stored, store ? "" : " (--no-db: none)");
    return failed ? mp_die(1, "some variants gave wrong results (status failed)") : 0;
}

int mp_cmd_run(int argc, char **argv)
{
    run_opts o = {.db = "results/mpbench.db", .seed = 1, .fmt = MP_FMT_TABLE};
    mp_bench_defaults(&o.bo);
    mp_opts_out po;
    char cmdline[2048];
    int rc, shapes[MAX_SHAPES][2], ns = 0, nsel = 0;
    if ((rc = mp_opts_parse(&run_spec, argc, argv, &o, &po)) || po.help)
        return rc;
    mp_join_argv(argc - 1, argv + 1, cmdline, sizeof cmdline);
    if (!o.globs[0])
        return mp_die(2, "run: --variant is required (see 'mpbench list variants')");
    if (!!o.shapes[0] == !!o.model)
        return mp_die(2, "run: give exactly one of --shape MxK[xN] or --model NAME");
    int n_given = o.nn > 0;
    if (!o.nn)
        o.nv[0] = 1, o.nn = 1;
    if (!o.nt)
        o.tv[0] = 1, o.nt = 1;
    o.bo.seed = (uint64_t)o.seed;
    const mp_path paths[] = {
        {mp_opts_seen(&run_spec, &po, "gguf") ? "--gguf" : "--model", o.model, MP_PATH_IN, NULL},
        {"--db", o.no_db ? NULL : o.db, MP_PATH_DB, NULL}};
    if ((rc = mp_paths_check("run", paths, 2)))
        return rc;
    if (o.tuned && o.params)
        return mp_die(2, "run: give one of --params and --tuned");
    if (o.force && !o.tuned)
        return mp_die(2, "run: --force applies only to --tuned FILE");
    mp_machine mach;
    mp_machine_probe_info(&mach);
    mp_tuned t = {0};
    if (o.tuned) {
        char why[512];
        if ((rc = mp_tuned_load(o.tuned, mach.fingerprint, o.force, &t, why, sizeof why)))
            return mp_die(rc, "--tuned: %s", why);
    }
    mp_case *cases = NULL;
    if (!(rc = run_cases(&o, o.tuned ? &t : NULL, &cases, &nsel)) &&
        !(rc = run_shapes(&o, n_given, shapes, &ns)) &&
        !(rc = run_check_memory(&o, cases, nsel, shapes, ns)) &&
        !mp_parse_only_stop("run"))
        rc = run_measure(&o, &mach, o.tuned ? &t : NULL, cmdline, cases, nsel, shapes, ns);
    free(cases);
    mp_tuned_free(&t);
    return rc;
}
