/* cli-tune.c - `mpbench tune`: the best parameters of a variant per (machine,
 * shape, n, threads), and proof that they are.
 *
 * A strategy (tuner/mp_search.h) explores the variant's parameter space through
 * the engine's cost function (engine/tune.c), which stores every evaluation as
 * it is measured; each decision is stored as it is made, so a killed tune run
 * again with the same arguments resumes where it stopped.  The best point found
 * replaces the default only if it is really faster: the two are re-measured
 * interleaved with >= 9 repetitions each, a one-sided Mann-Whitney U test must
 * give p < alpha and the median gain must reach the margin; then an A-B-A round
 * (default, winner, default, repeated) must confirm the gain.  Otherwise the
 * answer is "no significant winner, keep default".  Winners go to the tuned table
 * and to results/tuned/FINGERPRINT.conf, which `mpbench e2e --tuned` reads; the
 * command ends by printing this tune's report table. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_paths.h"
#include "mp_cli.h"
#include "../gguf/mp_gguf.h"
#include "../core/mp_core.h"
#include "../report/mp_output.h"
#include "../store/mp_store_tune.h"
#include "../engine/mp_tune_sweep.h"
#include "../engine/mp_engine.h"
#include "../../tuner/mp_search.h"
#include "../../tuner/mp_stats.h"
#include "../../tuner/mp_tuned.h"
#include "../../variants/mp_registry.h"
#include "mp_options.h"

enum { MAX_SEL = 256, MAX_LIST = 16 };

/* The report table: every decision in the store (plan_key NULL) or a plan's,
 * one table per machine (a merged database holds several; issue 21). */
static int print_report(mp_store *s, const char *plan_key, mp_format fmt, const char *db)
{
    mp_tuned_row *rows;
    int nrows;
    mp_err e;
    int rc = mp_store_tuned_list(s, plan_key, &rows, &nrows, &e);
    if (rc)
        return mp_die(rc, "tune --report: %s", e.msg);
    int md = fmt == MP_FMT_MD, csv = fmt == MP_FMT_CSV;
    if (csv)
        puts("machine,variant,m,k,n,threads,strategy,best_params,best_us,default_us,gain_pct,"
             "p_value,exhaustive_params,exhaustive_us,gap_pct,evaluations,seconds,decision");
    const char *group = NULL;
    for (int i = 0; i < nrows; i++) {
        const mp_tuned_row *r = &rows[i];
        if (!group || strcmp(group, r->machine)) {
            group = r->machine;
            if (md)
                printf("%s**machine `%s`** (%s)\n\n"
                       "| variant | shape | n | thr | strategy | best found | best µs | default µs "
                       "| gain | exhaustive best | gap | evals | s | decision |\n"
                       "|---|---|--:|--:|---|---|--:|--:|--:|---|--:|--:|--:|---|\n",
                       i ? "\n" : "", r->machine, r->cpu_model);
            else if (!csv)
                printf("%smachine %s (%s)\n"
                       "%-22s %-11s %4s %3s %-10s %-24s %9s %9s %6s %-24s %6s %5s %6s  %s\n",
                       i ? "\n" : "", r->machine, r->cpu_model, "variant", "shape", "n", "thr",
                       "strategy", "best found", "best_us", "dflt_us", "gain", "exhaustive best",
                       "gap", "evals", "secs", "decision");
        }
        char gap[32] = "-", exs[160] = "-", shape[32];
        int have_ex = r->have_exhaustive;
        if (have_ex && r->exhaustive_us > 0) {
            snprintf(gap, sizeof gap, "%.1f%%", 100.0 * (r->best_us / r->exhaustive_us - 1.0));
            snprintf(exs, sizeof exs, "%s (%.1f)",
                     r->exhaustive_params[0] ? r->exhaustive_params : "-", r->exhaustive_us);
        }
        snprintf(shape, sizeof shape, "%dx%d", r->m, r->k);
        if (csv)
            printf("%s,%s,%d,%d,%d,%d,%s,\"%s\",%.3f,%.3f,%.2f,%.3g,\"%s\",%s,%s,%d,%.1f,\"%s\"\n",
                   r->machine, r->variant, r->m, r->k, r->n, r->threads, r->strategy,
                   r->best_params, r->best_us, r->default_us, r->gain_pct, r->p_value,
                   have_ex ? r->exhaustive_params : "", have_ex ? exs : "", gap, r->evaluations,
                   r->seconds, r->decision);
        else if (md)
            printf("| %s | %s | %d | %d | %s | %s | %.1f | %.1f | %.1f%% | %s | %s | %d | %.0f | %s |\n",
                   r->variant, shape, r->n, r->threads, r->strategy, r->best_params, r->best_us,
                   r->default_us, r->gain_pct, exs, gap, r->evaluations, r->seconds, r->decision);
        else
            printf("%-22s %-11s %4d %3d %-10s %-24s %9.1f %9.1f %5.1f%% %-24s %6s %5d %6.0f  %s\n",
                   r->variant, shape, r->n, r->threads, r->strategy, r->best_params, r->best_us,
                   r->default_us, r->gain_pct, exs, gap, r->evaluations, r->seconds, r->decision);
    }
    free(rows);
    if (!nrows)
        fprintf(stderr, "mpbench: no tuned results in %s (run 'mpbench tune' first)\n", db);
    return 0;
}

static int report(const char *db, mp_format fmt)
{
    mp_store *s;
    mp_err e;
    struct stat st;
    if (stat(db, &st) != 0 && errno == ENOENT) /* a report creates no database */
        return mp_die(2, "--db %s: no such database file (nothing tuned there)", db);
    int rc = mp_store_open(db, &s, &e);
    if (rc)
        return mp_die(rc, "%s", e.msg);
    rc = print_report(s, NULL, fmt, db);
    mp_store_close(s);
    return rc;
}

typedef struct tune_opts {
    char globs[1024], shapes[1024];
    const char *model, *strategy, *db, *outp;
    int nv[MAX_LIST], nn, tv[MAX_LIST], nt;
    int budget, reps, seed, force, want_report, quiet, from_sweep;
    double margin, alpha;
    mp_format fmt;
    mp_bench_opts bo;
} tune_opts;

static int alpha_arg(const char *arg, void *target, mp_err *e)
{
    double a;
    if (mp_parse_double(arg, "--alpha", 0, 1, &a, e) || a <= 0 || a >= 1)
        return mp_fail(e, MP_EUSAGE, "--alpha: '%s' is not a number in (0, 1)", arg);
    *(double *)target = a;
    return MP_OK;
}

static int reps_arg(const char *arg, void *target, mp_err *e)
{
    int rc = mp_parse_int(arg, "--reps", 9, 100000, target, e);
    if (rc) {
        char m[sizeof e->msg];
        snprintf(m, sizeof m, "%s", e->msg);
        return mp_fail(e, rc, "%.900s (the rank test needs >= 9 repetitions)", m);
    }
    return MP_OK;
}

static const mp_opt tune_table[] = {
    MP_OPT_SL("variant", tune_opts, globs, "GLOB", "variants to tune"),
    MP_OPT_S("model", tune_opts, model, "NAME", "every distinct ternary shape of a model"),
    MP_OPT_FN_("gguf", tune_opts, model, mp_opt_gguf, "FILE", "every ternary shape of a GGUF model file"),
    MP_OPT_SL("shape", tune_opts, shapes, "MxK[xN]", "shapes to tune"),
    MP_OPT_N_THREADS(tune_opts, "LIST", "LIST"),
    MP_OPT_S("strategy", tune_opts, strategy, "exhaustive|random|halving|model", "the search"),
    MP_OPT_I("budget", tune_opts, budget, 1, 100000, "N", "evaluations per problem"),
    MP_OPT_D("margin", tune_opts, margin, 0, 90, "PCT", "gain a winner needs (default 3)"),
    MP_OPT_FN_("alpha", tune_opts, alpha, alpha_arg, "P", "rank test level, in (0, 1) (default 0.01)"),
    MP_OPT_FN_("reps", tune_opts, reps, reps_arg, "R", "repetitions of each side, >= 9 (default 9)"),
    MP_OPT_F("warm", 0, tune_opts, bo.warm, "warm cache"),
    MP_OPT_FN_("clock-gate", tune_opts, bo.clock_gate, mp_opt_clock_gate, "PCT",
               "time only calls run at full speed (50-100), as run --clock-gate"),
    MP_OPT_SEED(tune_opts, seed, "seed of the inputs and the search"),
    MP_OPT_DB(tune_opts, db),
    MP_OPT_S("out", tune_opts, outp, "FILE", "tuned config (default results/tuned/FINGERPRINT.conf; "
             "with --from-sweep a folder)"),
    MP_OPT_F("force", 0, tune_opts, force, "replace a config of another machine"),
    MP_OPT_F("report", 0, tune_opts, want_report, "print every stored decision and stop"),
    MP_OPT_F("from-sweep", 0, tune_opts, from_sweep, "tuned configs from the sweeps' grids (below)"),
    MP_OPT_FMT_OF(tune_opts, fmt, "table|csv|md", "report format (default table)"),
    MP_OPT_QUIET(tune_opts, quiet),
    MP_OPT_END};

static const mp_cmd_spec tune_spec = MP_CMD_SPEC("tune", tune_table,
    .once = "model|gguf",
    .synopsis = "--variant GLOB (--model NAME | --gguf FILE | --shape MxK[xN]) --strategy S [options]\n"
                "       mpbench tune --report [--db PATH] [--format table|csv|md]\n"
                "       mpbench tune --from-sweep [--db PATH] [--out DIR] [--margin PCT] [--alpha P]",
    .about = "--from-sweep: DIR/FINGERPRINT.conf (default results/tuned) for every machine in\n"
             "the database, from the parameter grids its sweeps stored (--params all): the\n"
             "same test on the stored repetitions, without the A-B-A round.\n"
             "A winner replaces the default only if it is faster by --margin percent\n"
             "(default 3) with a one-sided Mann-Whitney U test p < --alpha (default 0.01)\n"
             "over >= 9 interleaved repetitions each, confirmed by an A-B-A round.\n"
             "Every evaluation and decision is stored as it is made; the same command\n"
             "run again resumes.  It ends by printing the report table of this tune.\n");

/* What one tune run works with, beside its options. */
typedef struct tune_ctx {
    const tune_opts *o;
    mp_strategy st;
    const mp_variant *sel[MAX_SEL];
    int nsel, shapes[64][2], ns;
    mp_machine mach;
    mp_tuned tuned;
    char conf[1024];
    const char *plan_key;
    mp_store *store;
    int64_t run_id;
    mp_progress pg;
    int tuned_any, resumed;
} tune_ctx;

/* The variants, the shapes (each --shape MxK or MxKxN, an N setting --n when
 * --n is not given) and --n, --threads. */
static int tune_select(tune_opts *o, tune_ctx *c)
{
    mp_err e;
    int rc;
    if (!o->strategy || mp_strategy_parse(o->strategy, &c->st))
        return mp_die(2, "--strategy: '%s' is not exhaustive, random, halving or model",
                      o->strategy ? o->strategy : "");
    if (!o->globs[0])
        return mp_die(2, "tune: --variant is required");
    if (!!o->model == !!o->shapes[0])
        return mp_die(2, "tune: give exactly one of --model NAME or --shape MxK[xN]");
    if ((rc = mp_select_variants(o->globs, c->sel, MAX_SEL, &c->nsel, &e)))
        return mp_die(rc, "%s", e.msg);
    int shape_n = 0;
    if (o->model) {
        mp_model mdl;
        char names[64][32];
        if ((rc = mp_model_load(o->model, &mdl, &e)))
            return mp_die(rc, "%s", e.msg);
        c->ns = mp_model_shapes(&mdl, c->shapes, names);
    } else {
        char buf[sizeof o->shapes], *save = NULL;
        snprintf(buf, sizeof buf, "%s", o->shapes);
        if (buf[0] == ',' || buf[strlen(buf) - 1] == ',' || strstr(buf, ",,"))
            return mp_die(2, "--shape: empty item in the list '%.80s'", buf);
        for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            int sn;
            if (c->ns == 64)
                return mp_die(2, "--shape: more than 64 shapes");
            if ((rc = mp_parse_shape(t, &c->shapes[c->ns][0], &c->shapes[c->ns][1], &sn, &e)))
                return mp_die(rc, "%s", e.msg);
            c->ns++;
            shape_n = sn ? sn : shape_n;
        }
    }
    if (!o->nn)
        o->nv[0] = shape_n ? shape_n : 1;
    return 0;
}

/* The plan key: everything that decides what is measured and how, and the
 * machine (machines of different kinds keep their rows apart when merged). */
static void tune_key(tune_ctx *c, int n_given, mp_plan *keyed)
{
    const tune_opts *o = c->o;
    char cfg[4096], nl[256] = "-", tl[256] = "";
    for (int i = 0, u = 0; n_given && i < o->nn && u < (int)sizeof nl - 12; i++)
        u += snprintf(nl + u, sizeof nl - (size_t)u, "%s%d", i ? "," : "", o->nv[i]);
    for (int i = 0, u = 0; i < o->nt && u < (int)sizeof tl - 12; i++)
        u += snprintf(tl + u, sizeof tl - (size_t)u, "%s%d", i ? "," : "", o->tv[i]);
    int used = snprintf(cfg, sizeof cfg, "tune1|%s|%s|b=%d|g=%.3f|a=%.4g|r=%d|w=%d|s=%d|t=%s|n=%s",
                        o->globs, mp_strategy_name(c->st), o->budget, o->margin, o->alpha,
                        o->reps, o->bo.warm, o->seed, tl, nl);
    if (o->bo.clock_gate > 0 && used > 0 && (size_t)used < sizeof cfg) /* older keys unchanged */
        used += snprintf(cfg + used, sizeof cfg - (size_t)used, "|cg=%.2f", o->bo.clock_gate);
    for (int i = 0; i < c->ns && used > 0 && (size_t)used < sizeof cfg; i++)
        used += snprintf(cfg + used, sizeof cfg - (size_t)used, "|%dx%d", c->shapes[i][0],
                         c->shapes[i][1]);
    if (used > 0 && (size_t)used < sizeof cfg)
        snprintf(cfg + used, sizeof cfg - (size_t)used, "|fp=%s", c->mach.fingerprint);
    mp_plan_set_key(keyed, cfg);
    c->plan_key = keyed->key;
}

/* The tuned config this run updates: --out or this machine's under results/tuned. */
static int tune_conf(tune_ctx *c)
{
    mp_err e;
    int rc;
    if (c->o->outp)
        snprintf(c->conf, sizeof c->conf, "%s", c->o->outp);
    else {
        mkdir("results", 0755);
        mkdir("results/tuned", 0755);
        snprintf(c->conf, sizeof c->conf, "results/tuned/%s.conf", c->mach.fingerprint);
    }
    if (access(c->conf, F_OK) == 0 &&
        (rc = mp_tuned_load(c->conf, c->mach.fingerprint, c->o->force, &c->tuned, e.msg,
                            sizeof e.msg)))
        return mp_die(rc, "%s", e.msg);
    snprintf(c->tuned.fingerprint, sizeof c->tuned.fingerprint, "%s", c->mach.fingerprint);
    /* issue 40: the config's folder must take it before anything is measured
     * or stored (a full disk): the config as it stands, written beside it */
    char probe[sizeof c->conf + 16];
    snprintf(probe, sizeof probe, "%s.probe", c->conf);
    rc = mp_tuned_save(probe, &c->tuned, e.msg, sizeof e.msg);
    unlink(probe);
    if (rc)
        return mp_die(rc == MP_TUNED_EIO ? MP_EIO : MP_EUSAGE, "--out %s: %s", c->conf, e.msg);
    return 0;
}

/* Searches one problem and decides: the winner only if significant; the
 * decision stored.  chosen gets the parameters to keep.  1: interrupted. */
static int tune_search(tune_ctx *c, mp_pool *pool, const mp_variant *v, mp_space *sp,
                       int m, int k, int n, int threads, int *chosen)
{
    const tune_opts *o = c->o;
    int defp[MP_MAX_PARAMS], start[MP_MAX_PARAMS], di[MP_MAX_PARAMS], bestp[MP_MAX_PARAMS];
    mp_err e;
    int rc;
    mp_variant_defaults(v, defp);
    mp_space_index(sp, defp, di);
    memcpy(start, di, sizeof start);
    if (c->st == MP_MODEL && v->suggest) {
        int sug[MP_MAX_PARAMS];
        memcpy(sug, defp, sizeof sug);
        v->suggest(m, k, n, c->mach.l1d_kib * 1024, c->mach.l2_kib * 1024, sug);
        if (mp_space_index(sp, sug, start))
            memcpy(start, di, sizeof start);
    }
    mp_tune_problem t = {.pool = pool, .v = v, .sp = sp, .m = m, .k = k, .n = n, .base = o->bo,
                         .store = c->store, .run_id = c->run_id, .key = c->plan_key};
    double t0 = mp_now();
    mp_search_result sr;
    if (!c->pg.on && !o->quiet)
        fprintf(stderr, "mpbench: tune %s %dx%d n=%d t=%d: %s over %ld points...\n", v->name, m,
                k, n, threads, mp_strategy_name(c->st), mp_space_size(sp));
    mp_search(sp, c->st, o->budget, start, (uint64_t)o->seed, mp_tune_cost, &t, &sr);
    if (t.store_rc) { /* an evaluation was not stored: no decision, no config */
        rc = t.store_rc;
        mp_tune_problem_free(&t);
        return -rc;
    }
    if (mp_engine_interrupted()) {
        mp_tune_problem_free(&t);
        return 1; /* the evaluations so far are stored: a re-run resumes */
    }
    mp_space_values(sp, sr.best, bestp);
    mp_tune_decision d;
    if (!memcmp(sr.best, di, sizeof(int) * (size_t)sp->n) || !isfinite(sr.best_cost)) {
        memset(&d, 0, sizeof d);
        d.best_us = d.default_us = sr.best_cost;
        d.p_value = 1;
        snprintf(d.text, sizeof d.text, "default is the best found");
    } else {
        mp_tune_decide(&t, defp, bestp, o->reps, o->margin, o->alpha, &d);
    }
    memcpy(chosen, d.winner ? bestp : defp, sizeof(int) * MP_MAX_PARAMS);
    mp_tuned_row row = {.m = m, .k = k, .n = n, .threads = threads};
    snprintf(row.variant, sizeof row.variant, "%s", v->name);
    snprintf(row.strategy, sizeof row.strategy, "%s", mp_strategy_name(c->st));
    mp_params_str(v, bestp, row.best_params, sizeof row.best_params);
    mp_params_str(v, defp, row.default_params, sizeof row.default_params);
    mp_params_str(v, chosen, row.chosen_params, sizeof row.chosen_params);
    row.best_us = d.best_us, row.default_us = d.default_us;
    row.gain_pct = d.gain_pct, row.p_value = d.p_value;
    row.aba_confirmed = d.aba_confirmed;
    snprintf(row.decision, sizeof row.decision, "%s", d.text);
    row.evaluations = sr.evaluations;
    row.seconds = mp_now() - t0;
    mp_tune_problem_free(&t);
    if ((rc = mp_store_tuned_put(c->store, c->run_id, c->plan_key, &row, &e)))
        return -mp_die(rc, "%s", e.msg);
    return 0;
}

/* Upserts a problem's chosen parameters into the tuned config. */
static void tune_keep(tune_ctx *c, const mp_variant *v, int m, int k, int n, int threads,
                      const int *chosen)
{
    mp_tuned *tu = &c->tuned;
    int slot = -1;
    for (int i = 0; i < tu->count; i++)
        if (tu->e[i].v == v && tu->e[i].m == m && tu->e[i].k == k && tu->e[i].n == n &&
            tu->e[i].threads == threads)
            slot = i;
    if (slot < 0) {
        tu->e = realloc(tu->e, sizeof *tu->e * (size_t)(tu->count + 1));
        slot = tu->count++;
    }
    tu->e[slot] = (mp_tuned_entry){v, m, k, n, threads, {0}};
    memcpy(tu->e[slot].param, chosen, sizeof tu->e[slot].param);
    c->tuned_any = 1;
}

/* One variant on every shape and n at one thread count: a decision stored by
 * an earlier run of this tune is taken as it is, else searched. */
static int tune_variant(tune_ctx *c, mp_pool *pool, const mp_variant *v, int threads)
{
    const tune_opts *o = c->o;
    long probs = (long)c->ns * o->nn;
    if (!v->n_params || !mp_variant_available(v)) {
        fprintf(stderr, v->n_params ? "mpbench: %s: this CPU lacks its ISA: skipped\n"
                                    : "mpbench: %s has no tunable parameters: skipped\n", v->name);
        mp_progress_step(&c->pg, probs);
        return 0;
    }
    mp_space sp;
    mp_space_of(v, &sp);
    for (int si = 0; si < c->ns; si++)
        for (int ni = 0; ni < o->nn; ni++) {
            int m = c->shapes[si][0], k = c->shapes[si][1], n = o->nv[ni];
            int defp[MP_MAX_PARAMS], chosen[MP_MAX_PARAMS], rc;
            char why[256];
            mp_err e;
            if (mp_engine_interrupted())
                return 0;
            mp_variant_defaults(v, defp);
            mp_progress_show(&c->pg, "%s %dx%d n=%d t=%d", v->name, m, k, n, threads);
            if (mp_variant_check(v, m, k, defp, why, sizeof why)) {
                fprintf(stderr, "mpbench: %s cannot take %dx%d: %s\n", v->name, m, k, why);
                mp_progress_step(&c->pg, 1);
                continue;
            }
            mp_tuned_row row;
            int had = mp_store_tuned_get(c->store, c->plan_key, v->name, m, k, n, threads, &row, &e);
            if (had < 0)
                return mp_die(-had, "%s", e.msg);
            if (had) { /* decided by an earlier, interrupted run of this same tune */
                c->resumed++;
                if (mp_params_parse(v, row.chosen_params, chosen, why, sizeof why))
                    memcpy(chosen, defp, sizeof chosen);
            } else if ((rc = tune_search(c, pool, v, &sp, m, k, n, threads, chosen))) {
                return rc < 0 ? -rc : 0;
            }
            mp_progress_step(&c->pg, 1);
            tune_keep(c, v, m, k, n, threads, chosen);
        }
    return 0;
}

/* Every thread count x variant; the run recorded, the report printed, the
 * config saved. */
static int tune_all(tune_ctx *c, const char *cmdline)
{
    const tune_opts *o = c->o;
    mp_err e;
    int64_t machine_id;
    int rc;
    if ((rc = mp_store_open(o->db, &c->store, &e)) ||
        (rc = mp_store_machine(c->store, &c->mach, &machine_id, &e)) ||
        (rc = mp_store_run_begin(c->store, machine_id, "tune", &c->mach, cmdline, "", &c->run_id, &e)) ||
        (rc = mp_store_set_config_key(c->store, c->run_id, c->plan_key, &e))) {
        mp_store_close(c->store);
        return mp_die(rc, "%s", e.msg);
    }
    mp_progress_begin(&c->pg, (long)o->nt * c->nsel * c->ns * o->nn, o->quiet);
    mp_engine_catch_signals();
    for (int ti = 0; ti < o->nt && !rc && !mp_engine_interrupted(); ti++) {
        char binding[512];
        mp_pool *pool = mp_pool_create(o->tv[ti], binding, sizeof binding);
        for (int vi = 0; vi < c->nsel && !rc && !mp_engine_interrupted(); vi++)
            rc = tune_variant(c, pool, c->sel[vi], o->tv[ti]);
        mp_pool_destroy(pool);
    }
    mp_progress_end(&c->pg);
    int interrupted = mp_engine_interrupted();
    mp_store_run_end(c->store, c->run_id, rc ? "error" : interrupted ? "interrupted" : "ok", &e);
    if (c->resumed)
        fprintf(stderr, "mpbench: tune %s: %d decisions taken from an earlier run of this tune\n",
                c->plan_key, c->resumed);
    if (!rc && !interrupted)
        rc = print_report(c->store, c->plan_key, o->fmt, o->db);
    mp_store_close(c->store);
    if (c->tuned_any && !rc && !interrupted) {
        if ((rc = mp_tuned_save(c->conf, &c->tuned, e.msg, sizeof e.msg)))
            rc = mp_die(rc == MP_TUNED_EIO ? MP_EIO : MP_EUSAGE, "%s", e.msg);
        else
            fprintf(stderr, "mpbench: tuned parameters written to %s\n", c->conf);
    }
    if (!rc && interrupted)
        return mp_die(130, "interrupted: re-run the same command to resume (evaluations and "
                           "decisions so far are stored)");
    return rc;
}

int mp_cmd_tune(int argc, char **argv)
{
    tune_opts o = {.db = "results/mpbench.db", .reps = 9, .seed = 1, .margin = 3.0,
                   .alpha = 0.01, .fmt = MP_FMT_TABLE};
    mp_bench_defaults(&o.bo);
    mp_opts_out po;
    char cmdline[2048];
    int rc;
    if ((rc = mp_opts_parse(&tune_spec, argc, argv, &o, &po)) || po.help)
        return rc;
    mp_join_argv(argc - 1, argv + 1, cmdline, sizeof cmdline);
    if ((o.want_report || o.from_sweep) && mp_parse_only_stop("tune"))
        return 0; /* both open the store read-write */
    if (o.want_report)
        return report(o.db, o.fmt);
    static const char *const confs[] = {"*.conf", NULL};
    const char *mopt = mp_opts_seen(&tune_spec, &po, "gguf") ? "--gguf" : "--model";
    const mp_path paths[] = {{mopt, o.model, MP_PATH_IN, NULL},
                             {"--db", o.db, MP_PATH_DB, NULL},
                             {"--out", o.outp, o.from_sweep ? MP_PATH_DIR : MP_PATH_FILE, confs}};
    if ((rc = mp_paths_check("tune", paths, 3)))
        return rc;
    if (o.from_sweep)
        return mp_tune_from_sweep(o.db, o.outp ? o.outp : "results/tuned", o.margin, o.alpha);
    static tune_ctx c;
    memset(&c, 0, sizeof c);
    c.o = &o;
    int n_given = o.nn > 0;
    if ((rc = tune_select(&o, &c)))
        return rc;
    o.nn = o.nn ? o.nn : 1;
    o.tv[0] = o.nt ? o.tv[0] : 1, o.nt = o.nt ? o.nt : 1;
    o.bo.seed = (uint64_t)o.seed;
    if (mp_parse_only_stop("tune"))
        return 0;
    mp_machine_probe_info(&c.mach);
    o.bo.llc_bytes = mp_machine_llc_bytes(&c.mach);
    if ((rc = tune_conf(&c)))
        return rc;
    mp_plan keyed = {0};
    tune_key(&c, n_given, &keyed);
    rc = tune_all(&c, cmdline);
    mp_tuned_free(&c.tuned);
    return rc;
}
