/* cli-sweep.c - `mpbench sweep`: the cross product of variants (and their
 * parameter grids), shapes, token counts and thread counts, measured point by
 * point into the store.
 *
 * Resumable: the sweep's arguments (less --shard, --db, --format) hash to a
 * sweep key stored with every result; a restarted sweep reads the keys already
 * stored and measures only what is missing.  Each point's results are written in
 * one transaction as soon as they are measured, so an interruption (Ctrl-C, kill
 * -9, power loss) loses at most the point in flight, and a result stored twice
 * under one key is impossible (unique index).  --shard I/N takes every N-th
 * point, deterministically, so N machines can share a sweep and `mpbench merge`
 * their databases. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_paths.h"
#include "mp_cli.h"
#include "../engine/mp_counters.h"
#include "../gguf/mp_gguf.h"
#include "../core/mp_core.h"
#include "../report/mp_output.h"
#include "../engine/mp_engine.h"
#include "../../variants/mp_registry.h"
#include "mp_options.h"

enum { MAX_SEL = 512, MAX_SHAPES = 256, MAX_LIST = 32, MAX_CASES = 4096 };

typedef struct sweep_opts {
    char globs[1024], models[2048], shapes[8192];
    int nv[MAX_LIST], nn, tv[MAX_LIST], nt;
    const char *params, *counters, *backend, *db;
    int quick, shard[2], seed, dry, probe_bw, rows, quiet;
    mp_format fmt;
    mp_bench_opts bo;
} sweep_opts;

/* --gguf FILE: checked, then one more model of the list. */
static int gguf_append(const char *arg, void *target, mp_err *e)
{
    const char *path;
    int rc = mp_opt_gguf(arg, &path, e);
    return rc ? rc : mp_append(target, sizeof((sweep_opts *)0)->models, arg, "--model", e);
}

static const mp_opt sweep_table[] = {
    MP_OPT_F("quick", 0, sweep_opts, quick, "the quick set (below)"),
    MP_OPT_SL("variant", sweep_opts, globs, "GLOB", "variants (default: all)"),
    MP_OPT_SL("model", sweep_opts, models, "NAME|all", "the distinct ternary shapes of models"),
    MP_OPT_FN_("gguf", sweep_opts, models, gguf_append, "FILE", "the shapes of a GGUF model file; repeatable"),
    MP_OPT_SL("shape", sweep_opts, shapes, "MxK", "shapes"),
    MP_OPT_N_THREADS(sweep_opts, "LIST", "LIST"),
    MP_OPT_C("params", sweep_opts, params, "default|all", "each variant's default parameters or its whole grid"),
    MP_OPT_FN_("shard", sweep_opts, shard, mp_opt_shard, "I/N", "every N-th point from the I-th"),
    MP_OPT_TIMING_ROWS(sweep_opts, "keep only calls made at full speed (below)", "warm cache"),
    MP_OPT_S("counters", sweep_opts, counters, "LIST|none", "libpfm4 events (default: software events)"),
    MP_OPT_C("counters-backend", sweep_opts, backend, "pfm|papi", "counter library (default pfm)"),
    MP_OPT_SEED(sweep_opts, seed, "seed of the random inputs"),
    MP_OPT_DB(sweep_opts, db),
    MP_OPT_FMT(sweep_opts, fmt),
    MP_OPT_F("rows", 0, sweep_opts, rows, "print every stored row of the sweep, not the summary"),
    MP_OPT_F("dry-run", 0, sweep_opts, dry, "list this shard's points; measure nothing"),
    MP_OPT_F("probe-bw", 0, sweep_opts, probe_bw, "store this run's DRAM read bandwidth"),
    MP_OPT_QUIET(sweep_opts, quiet),
    MP_OPT_END};

/* --db against every --model / --gguf file of the list (mp_paths.h). */
static int sweep_check_paths(const sweep_opts *o)
{
    enum { MAXP = 64 };
    static char models[sizeof o->models];
    mp_path paths[MAXP] = {{"--db", o->db, MP_PATH_DB, NULL}};
    int n = 1;
    snprintf(models, sizeof models, "%s", o->models);
    for (char *save = NULL, *m = strtok_r(models, ",", &save); m && n < MAXP;
         m = strtok_r(NULL, ",", &save))
        paths[n++] = (mp_path){"--model/--gguf", m, MP_PATH_IN, NULL};
    return mp_paths_check("sweep", paths, n);
}

static const mp_cmd_spec sweep_spec = MP_CMD_SPEC("sweep", sweep_table,
    .synopsis = "[--quick] [--variant GLOB] [--model NAME|all] [--gguf FILE] [--shape MxK] [options]",
    .about = "--quick: the most specialized available path of every method that has a\n"
          "SIMD path here (not naive2.scalar) on the bitnet-b1.58-2b-4t shapes,\n"
          "n=1,32, threads=1,2, short timing.\n"
          "Re-running the same command measures only what is missing.  At the end it\n"
          "prints one line per method: its best variant over the shapes with GB/s\n"
          "(N = 1) or GOPS per N and thread count (geometric means) and its speed over\n"
          "llama.cpp's own TQ2_0 and our tq2_0 measured in the same run; --rows prints\n"
          "every stored result of the sweep instead (csv and json: a line per problem\n"
          "and method).\n"
          "--dry-run lists the results of the shard (--shard I/N) and the totals, and\n"
          "measures and stores nothing: to size a job array.\n"
          "--probe-bw stores this run's DRAM read bandwidth per thread count (used by\n"
          "'mpbench compare' to cancel machine-speed drift).\n"
          "--clock-gate PCT keeps only calls made at full speed: a 5 us chain of\n"
          "dependent adds before and after each call runs within PCT% (e.g. 90) of\n"
          "the fastest this process has seen, on every thread; the other calls are\n"
          "discarded and made again.  For shared hosts whose vCPUs slow down for\n"
          "seconds at a time (the regression gate uses it).\n");

/* For --quick: per method, the available variant with the richest ISA;
 * methods whose only path here is scalar (naive2: a teaching baseline) are
 * left out: naive2.scalar alone took 27% of a quick sweep's time (perf,
 * cpu-clock samples, one shape), which the issue wants under 90 s. */
static int best_per_method(const mp_variant **out, int max)
{
    int n = 0;
    for (int i = 0; i < mp_registry_count(); i++) {
        const mp_variant *v = mp_registry_get(i);
        if (!mp_variant_available(v))
            continue;
        int j;
        for (j = 0; j < n; j++)
            if (!strcmp(out[j]->method, v->method))
                break;
        if (j == n) {
            if (n < max)
                out[n++] = v;
        } else if (__builtin_popcount(v->isa) > __builtin_popcount(out[j]->isa) ||
                   (v->isa > out[j]->isa &&
                    __builtin_popcount(v->isa) == __builtin_popcount(out[j]->isa))) {
            out[j] = v;
        }
    }
    int kept = 0;
    for (int j = 0; j < n; j++)
        if (out[j]->isa != MP_ISA_SCALAR || out[j]->family == MP_FAMILY_PEER)
            out[kept++] = out[j];
    return kept;
}

/* --quick's defaults where the user gave none; the variants (--variant, the
 * quick set or all) and their parameter sets. */
static int sweep_cases(sweep_opts *o, const mp_opts_out *po, const mp_variant **sel, int *nsel_,
                       mp_case *cases, int *ncase)
{
    int nsel = 0, rc = 0;
    mp_err e;
    if (o->quick) {
        if (!o->models[0] && !o->shapes[0])
            snprintf(o->models, sizeof o->models, "bitnet-b1.58-2b-4t");
        if (!o->nn)
            o->nv[0] = 1, o->nv[1] = 32, o->nn = 2;
        if (!o->nt)
            o->tv[0] = 1, o->tv[1] = 2, o->nt = 2;
        if (!mp_opts_seen(&sweep_spec, po, "reps"))
            o->bo.min_reps = 5;
        if (!mp_opts_seen(&sweep_spec, po, "min-time"))
            o->bo.min_time = 0.03;
    }
    if (!o->models[0] && !o->shapes[0])
        return mp_die(2, "sweep: give --model NAME|all, --shape MxK, or --quick");
    if (!o->nn)
        o->nv[0] = 1, o->nn = 1;
    if (!o->nt)
        o->tv[0] = 1, o->nt = 1;
    o->bo.seed = (uint64_t)o->seed;
    if (!o->globs[0] && o->quick)
        nsel = best_per_method(sel, MAX_SEL);
    else
        rc = mp_select_variants(o->globs[0] ? o->globs : "*", sel, MAX_SEL, &nsel, &e);
    *nsel_ = nsel;
    if (!rc)
        rc = mp_plan_cases(sel, nsel, !strcmp(o->params, "all"), cases, MAX_CASES, ncase, &e);
    return rc ? mp_die(rc, "%s", e.msg) : 0;
}

/* The shapes of every --model (all: every model file), deduplicated, then --shape. */
static int sweep_shapes(const sweep_opts *o, int (*shapes)[2], int *ns)
{
    char buf[sizeof o->models], *save = NULL;
    mp_err e;
    int rc = 0;
    *ns = 0;
    snprintf(buf, sizeof buf, "%s", o->models);
    if (!strcmp(buf, "all")) {
        char **all = NULL;
        if ((rc = mp_models_dir_check(&e)))
            return mp_die(rc, "%s", e.msg);
        int nall = mp_model_list(&all);
        buf[0] = 0;
        for (int i = 0; i < nall; i++) {
            if (!rc)
                rc = mp_append(buf, sizeof buf, all[i], "--model all", &e);
            free(all[i]);
        }
        free(all);
        if (rc)
            return mp_die(rc, "%s", e.msg);
        if (nall <= 0)
            return mp_die(2, "--model all: no model files (*.txt) in %s", mp_models_dir());
    }
    size_t l = strlen(buf); /* an empty selection is refused, not a sweep of nothing */
    if (o->models[0] && (buf[0] == ',' || buf[l - 1] == ',' || strstr(buf, ",,")))
        return mp_die(2, "--model: empty item in the list '%.80s'", buf);
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        mp_model mdl;
        int sh[8][2];
        char names[8][32];
        if ((rc = mp_model_load(tok, &mdl, &e)))
            return mp_die(rc, "%s", e.msg);
        int k = mp_model_shapes(&mdl, sh, names);
        for (int i = 0; i < k; i++) {
            int dup = 0;
            for (int j = 0; j < *ns; j++)
                dup |= shapes[j][0] == sh[i][0] && shapes[j][1] == sh[i][1];
            if (!dup && *ns == MAX_SHAPES)
                return mp_die(2, "--model: more than %d distinct shapes", MAX_SHAPES);
            if (!dup)
                shapes[*ns][0] = sh[i][0], shapes[*ns][1] = sh[i][1], ++*ns;
        }
    }
    int more;
    if (o->shapes[0] &&
        (rc = mp_parse_shape_list(o->shapes, shapes + *ns, MAX_SHAPES - *ns, &more, &e)))
        return mp_die(rc, "%s", e.msg);
    *ns += o->shapes[0] ? more : 0;
    return 0;
}

/* The sweep key: everything that defines the set of results and how they are
 * measured, and the machine's fingerprint, so that machines of different kinds
 * sweeping the same plan keep their results apart in a merged database (issue 21). */
static void sweep_key(const sweep_opts *o, const mp_machine *mach, const mp_variant **sel,
                      int nsel, int (*shapes)[2], int ns, mp_plan *plan)
{
    char cfg[8192], gate[32] = ""; /* gated sweeps keep their own results */
    if (o->bo.clock_gate > 0)
        snprintf(gate, sizeof gate, "|gate=%.3f", o->bo.clock_gate);
    size_t used = (size_t)snprintf(cfg, sizeof cfg, "sweep1|warm=%d|reps=%d|min=%.4f|seed=%d|params=%s%s|v=",
                                   o->bo.warm, o->bo.min_reps, o->bo.min_time, o->seed, o->params, gate);
    for (int i = 0; i < nsel && used < sizeof cfg; i++)
        used += (size_t)snprintf(cfg + used, sizeof cfg - used, "%s,", sel[i]->name);
    for (int i = 0; i < ns && used < sizeof cfg; i++)
        used += (size_t)snprintf(cfg + used, sizeof cfg - used, "|%dx%d", shapes[i][0], shapes[i][1]);
    /* the lists as given ("1,32"): the key of sweeps stored before issue 38 */
    for (int l = 0; l < 2 && used < sizeof cfg; l++) {
        const int *v = l ? o->tv : o->nv;
        used += (size_t)snprintf(cfg + used, sizeof cfg - used, l ? "|t=" : "|n=");
        for (int i = 0; i < (l ? o->nt : o->nn) && used < sizeof cfg; i++)
            used += (size_t)snprintf(cfg + used, sizeof cfg - used, "%s%d", i ? "," : "", v[i]);
    }
    if (used < sizeof cfg)
        used += (size_t)snprintf(cfg + used, sizeof cfg - used, "|c=%s",
                                 o->counters ? o->counters : "");
    if (used < sizeof cfg)
        snprintf(cfg + used, sizeof cfg - used, "|fp=%s", mach->fingerprint);
    mp_plan_set_key(plan, cfg);
}

/* --dry-run: the plan, nothing measured or stored: this shard's results, then the totals. */
static void sweep_dry(const sweep_opts *o, const mp_plan *plan, const mp_case *cases, int ncase,
                      int ns, int nn, int nt)
{
    printf("# variant\tparams\tm\tk\tn\tthreads\n");
    for (int p = 0; p < plan->nprob; p++)
        for (int q = 0; q < ncase; q++) {
            char ps[128];
            mp_params_str(cases[q].v, cases[q].param, ps, sizeof ps);
            printf("%s\t%s\t%d\t%d\t%d\t%d\n", cases[q].v->name, ps, plan->probs[p].m,
                   plan->probs[p].k, plan->probs[p].n, plan->probs[p].threads);
        }
    printf("# sweep key %s: %d variants/parameter sets x %d shapes x %d n x %d threads = %d "
           "points, %ld results; shard %d/%d: %d points, %ld results\n",
           plan->key, ncase, ns, nn, nt, plan->all_probs, (long)plan->all_probs * ncase,
           o->shard[0], o->shard[1], plan->nprob, (long)plan->nprob * ncase);
}

/* Measures what is missing, then prints every row (--rows) or the summary. */
static int sweep_measure(const sweep_opts *o, const char *cmdline, mp_machine *mach,
                         mp_plan *plan)
{
    mp_err e;
    int rc;
    if (o->counters && strcmp(o->counters, "none")) {
        /* validate the event names before anything is stored */
        mp_counters *probe;
        if ((rc = mp_counters_open(o->counters, o->backend, NULL, 0, &probe, &e)))
            return mp_die(rc, "%s", e.msg);
        mp_counters_close(probe);
    }
    mp_machine_warn(mach);
    mp_store *store;
    if ((rc = mp_store_open(o->db, &store, &e)))
        return mp_die(rc, "%s", e.msg);
    mp_engine_opts eo = {.bench = o->bo, .kind = "sweep", .cmdline = cmdline,
                         .counters = o->counters, .backend = o->backend,
                         .probe_bw = o->probe_bw, .quiet = o->quiet};
    mp_engine_out out;
    double t0 = mp_now();
    if ((rc = mp_engine_run(store, mach, plan, &eo, &out, &e))) {
        mp_store_close(store);
        return mp_die(rc, "%s", e.msg);
    }
    const char *status = out.interrupted ? "interrupted" : out.failed ? "failed" : "ok";
    if (out.todo == 0)
        fprintf(stderr, "mpbench: sweep %s: all %ld results already stored in %s\n", plan->key,
                out.total, o->db);
    else
        fprintf(stderr, "mpbench: sweep %s: %d of %ld results measured by this process in "
                        "%.1fs (%s)%s; %ld new rows stored in %s by this process\n",
                plan->key, out.nrows, out.total, mp_now() - t0, status,
                out.total != out.todo ? ", the rest resumed from the store" : "", out.stored,
                o->db);
    /* what the user came for: every row (--rows) or the best per method */
    mp_result *all = NULL;
    int nall = 0;
    if ((rc = mp_store_plan_results(store, plan->key, o->bo.warm ? "warm" : "cold", &all, &nall,
                                    &e)))
        mp_die(rc, "%s", e.msg);
    else if (o->rows)
        mp_results_print(stdout, o->fmt, all, nall);
    else
        mp_results_summary(stdout, o->fmt, all, nall);
    free(all);
    int failed = out.failed, interrupted = out.interrupted;
    long stored = out.stored;
    mp_engine_out_free(&out);
    mp_store_close(store);
    if (rc)
        return rc;
    if (interrupted)
        return mp_die(130, "interrupted: %ld results stored by this process are kept; re-run the "
                           "same command to resume (stored points are skipped)", stored);
    return failed ? mp_die(1, "some variants gave wrong results (status failed)") : 0;
}

int mp_cmd_sweep(int argc, char **argv)
{
    sweep_opts o = {.params = "default", .backend = "pfm", .db = "results/mpbench.db",
                    .shard = {1, 1}, .seed = 1, .fmt = MP_FMT_TABLE};
    mp_bench_defaults(&o.bo);
    mp_opts_out po;
    char cmdline[4096];
    mp_err e;
    int rc, ncase, ns;
    if ((rc = mp_opts_parse(&sweep_spec, argc, argv, &o, &po)) || po.help)
        return rc;
    mp_join_argv(argc - 1, argv + 1, cmdline, sizeof cmdline);
    if (o.counters && !*o.counters)
        return mp_die(2, "--counters: empty (give events, or none)");
    if (!o.dry && (rc = sweep_check_paths(&o)))
        return rc;
    static mp_case cases[MAX_CASES];
    static int shapes[MAX_SHAPES][2];
    static const mp_variant *sel[MAX_SEL];
    int nsel = 0;
    if ((rc = sweep_cases(&o, &po, sel, &nsel, cases, &ncase)) || (rc = sweep_shapes(&o, shapes, &ns)))
        return rc;
    mp_plan plan;
    if ((rc = mp_plan_kernels(&plan, cases, ncase, (const int(*)[2])shapes, ns, o.nv, o.nn, o.tv,
                              o.nt, o.shard[0], o.shard[1], o.bo.warm, &e)))
        return mp_die(rc, "%s", e.msg);
    if (mp_parse_only_stop("sweep")) {
        mp_plan_free(&plan);
        return 0;
    }
    mp_machine mach;
    mp_machine_probe_info(&mach);
    sweep_key(&o, &mach, sel, nsel, shapes, ns, &plan);
    if (o.dry)
        sweep_dry(&o, &plan, cases, ncase, ns, o.nn, o.nt);
    else
        rc = sweep_measure(&o, cmdline, &mach, &plan);
    mp_plan_free(&plan);
    return rc;
}
