/* cli-tune.c - `mpbench tune`: the best parameters of a variant per (machine,
 * shape, n, threads), and proof that they are.
 *
 * A strategy (tuner/mp_search.h) explores the variant's parameter space, each
 * evaluation measured by the sweep's engine and stored.  The best point found
 * replaces the default only if it is really faster: the two are re-measured
 * interleaved with >= 9 repetitions each, a one-sided Mann-Whitney U test must
 * give p < alpha and the median gain must reach the margin; then an A-B-A round
 * (default, winner, default, repeated) must confirm the gain.  Otherwise the
 * answer is "no significant winner, keep default".  Winners go to the tuned table
 * and to results/tuned/FINGERPRINT.conf, which `mpbench e2e --tuned` reads. */
#include <getopt.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mp_cli.h"
#include "mp_gguf.h"
#include "mp_harness.h"
#include "../tuner/mp_search.h"
#include "../tuner/mp_stats.h"
#include "../tuner/mp_tuned.h"
#include "../variants/mp_registry.h"

enum { MAX_SEL = 256, MAX_LIST = 16, MAX_EVAL = 4096 };

typedef struct eval_rec {
    mp_result r; /* the longest measurement of this parameter point */
    int effort;
} eval_rec;

typedef struct tune_ctx {
    mp_pool *pool;
    const mp_variant *v;
    const mp_space *sp;
    int m, k, n;
    mp_bench_opts base;
    eval_rec *ev;
    int nev;
    int verbose;
} tune_ctx;

static void record(tune_ctx *t, const mp_result *r, int effort)
{
    for (int i = 0; i < t->nev; i++)
        if (!strcmp(t->ev[i].r.params, r->params)) {
            if (effort >= t->ev[i].effort) {
                mp_result_free(&t->ev[i].r);
                t->ev[i].r = *r;
                t->ev[i].effort = effort;
            } else {
                mp_result tmp = *r;
                mp_result_free(&tmp);
            }
            return;
        }
    if (t->nev < MAX_EVAL) {
        t->ev[t->nev].r = *r;
        t->ev[t->nev++].effort = effort;
    } else {
        mp_result tmp = *r;
        mp_result_free(&tmp);
    }
}

/* The cost oracle: median microseconds of each point, measured together
 * (interleaved); more repetitions at higher effort. */
static void cost_timed(void *ctx, const int (*pts)[MP_MAX_PARAMS], int count, int effort,
                       double *cost)
{
    tune_ctx *t = ctx;
    mp_case *cases = calloc((size_t)count, sizeof *cases);
    mp_result *res = calloc((size_t)count, sizeof *res);
    for (int i = 0; i < count; i++) {
        cases[i].v = t->v;
        mp_space_values(t->sp, pts[i], cases[i].param);
    }
    mp_bench_opts o = t->base;
    o.min_reps = 3 * effort;
    o.min_time = 0.01 * effort;
    o.cv_threshold = 1e9; /* the decision step judges noise; no re-measure here */
    mp_err e;
    /* measure in batches so the weight copies of many candidates never pile up */
    for (int b = 0; b < count; b += 8) {
        int nb = count - b < 8 ? count - b : 8;
        mp_bench_point(t->pool, cases + b, nb, t->m, t->k, t->n, &o, res + b, &e);
    }
    for (int i = 0; i < count; i++) {
        cost[i] = res[i].status == MP_ST_OK && res[i].reps ? res[i].median_us : INFINITY;
        if (res[i].status == MP_ST_FAILED)
            fprintf(stderr, "mpbench: %s [%s] gave wrong results: %s\n", t->v->name,
                    res[i].params, res[i].reason);
        record(t, &res[i], effort);
    }
    free(cases);
    free(res);
}

typedef struct decision {
    double best_us, default_us, gain_pct, p_value;
    int aba_confirmed, winner;
    char text[128];
} decision;

/* Is `best` really faster than `def`?  (See the file comment.) */
static void decide(tune_ctx *t, const int *def, const int *best, int reps, double margin,
                   double alpha, decision *d)
{
    memset(d, 0, sizeof *d);
    mp_case cases[2] = {{t->v, {0}}, {t->v, {0}}};
    memcpy(cases[0].param, def, sizeof cases[0].param);
    memcpy(cases[1].param, best, sizeof cases[1].param);
    mp_result res[2];
    mp_bench_opts o = t->base;
    o.min_reps = reps;
    o.cv_threshold = 1e9;
    mp_session *s;
    mp_err e;
    mp_session_open(t->pool, cases, 2, t->m, t->k, t->n, &o, res, &s, &e);
    if (!mp_session_ready(s, 0) || !mp_session_ready(s, 1)) {
        snprintf(d->text, sizeof d->text, "not measurable: %.100s",
                 res[0].reason[0] ? res[0].reason : res[1].reason);
        mp_session_close(s);
        return;
    }
    mp_session_rounds(s);
    d->default_us = res[0].median_us;
    d->best_us = res[1].median_us;
    d->gain_pct = 100.0 * (1.0 - d->best_us / d->default_us);
    d->p_value = mp_mann_whitney_p(res[1].times_us, res[1].reps, res[0].times_us, res[0].reps);
    if (d->p_value < alpha && d->gain_pct >= margin) {
        /* A-B-A: default, winner, default, in every round */
        double *a = malloc(sizeof *a * 2 * (size_t)reps), *b = malloc(sizeof *b * (size_t)reps);
        for (int r = 0; r < reps; r++) {
            a[2 * r] = mp_session_time1(s, 0);
            b[r] = mp_session_time1(s, 1);
            a[2 * r + 1] = mp_session_time1(s, 0);
        }
        double ma = mp_median(a, 2 * reps), mb = mp_median(b, reps);
        d->aba_confirmed = 100.0 * (1.0 - mb / ma) >= margin;
        free(a);
        free(b);
    }
    d->winner = d->p_value < alpha && d->gain_pct >= margin && d->aba_confirmed;
    if (d->winner)
        snprintf(d->text, sizeof d->text, "winner: %.1f%% faster (p=%.2g, A-B-A confirmed)",
                 d->gain_pct, d->p_value);
    else if (d->p_value < alpha && d->gain_pct >= margin)
        snprintf(d->text, sizeof d->text, "no significant winner, keep default (A-B-A did not "
                                          "confirm %.1f%%)", d->gain_pct);
    else
        snprintf(d->text, sizeof d->text, "no significant winner, keep default (%.1f%%, p=%.2g)",
                 d->gain_pct, d->p_value);
    mp_result_free(&res[0]);
    mp_result_free(&res[1]);
    mp_session_close(s);
}

static int store_tuned(sqlite3 *db, int64_t run_id, const mp_variant *v, int m, int k, int n,
                       int threads, mp_strategy st, const char *best, const char *def,
                       const char *chosen, const decision *d, int evals, double secs)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO tuned(run_id,variant,m,k,n,threads,strategy,best_params,"
                           "default_params,chosen_params,best_us,default_us,gain_pct,p_value,"
                           "aba_confirmed,decision,evaluations,seconds,created) "
                           "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,datetime('now'))",
                           -1, &q, NULL) != SQLITE_OK)
        return -1;
    int c = 1;
    sqlite3_bind_int64(q, c++, run_id);
    sqlite3_bind_text(q, c++, v->name, -1, SQLITE_STATIC);
    sqlite3_bind_int(q, c++, m);
    sqlite3_bind_int(q, c++, k);
    sqlite3_bind_int(q, c++, n);
    sqlite3_bind_int(q, c++, threads);
    sqlite3_bind_text(q, c++, mp_strategy_name(st), -1, SQLITE_STATIC);
    sqlite3_bind_text(q, c++, best, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(q, c++, def, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(q, c++, chosen, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(q, c++, d->best_us);
    sqlite3_bind_double(q, c++, d->default_us);
    sqlite3_bind_double(q, c++, d->gain_pct);
    sqlite3_bind_double(q, c++, d->p_value);
    sqlite3_bind_int(q, c++, d->aba_confirmed);
    sqlite3_bind_text(q, c++, d->text, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(q, c++, evals);
    sqlite3_bind_double(q, c++, secs);
    int rc = sqlite3_step(q) == SQLITE_DONE ? 0 : -1;
    sqlite3_finalize(q);
    return rc;
}

static int report(const char *db, mp_format fmt)
{
    mp_store *s;
    mp_err e;
    int rc = mp_store_open(db, &s, &e);
    if (rc)
        return mp_die(rc, "%s", e.msg);
    sqlite3 *h = mp_store_db(s);
    sqlite3_stmt *q;
    const char *sql =
        "SELECT t.variant, t.m, t.k, t.n, t.threads, t.strategy, t.best_params, t.best_us,"
        " t.default_us, t.gain_pct, t.p_value, t.decision, t.evaluations, t.seconds,"
        " (SELECT x.best_us FROM tuned x WHERE x.variant=t.variant AND x.m=t.m AND x.k=t.k"
        "  AND x.n=t.n AND x.threads=t.threads AND x.strategy='exhaustive' ORDER BY x.id DESC"
        "  LIMIT 1),"
        " (SELECT x.best_params FROM tuned x WHERE x.variant=t.variant AND x.m=t.m AND x.k=t.k"
        "  AND x.n=t.n AND x.threads=t.threads AND x.strategy='exhaustive' ORDER BY x.id DESC"
        "  LIMIT 1)"
        " FROM tuned t ORDER BY t.variant, t.m, t.k, t.n, t.threads, t.strategy, t.id";
    if (sqlite3_prepare_v2(h, sql, -1, &q, NULL) != SQLITE_OK) {
        mp_store_close(s);
        return mp_die(1, "tune --report: %s", sqlite3_errmsg(h));
    }
    int md = fmt == MP_FMT_MD, csv = fmt == MP_FMT_CSV;
    if (csv)
        puts("variant,m,k,n,threads,strategy,best_params,best_us,default_us,gain_pct,p_value,"
             "exhaustive_params,exhaustive_us,gap_pct,evaluations,seconds,decision");
    else if (md)
        puts("| variant | shape | n | thr | strategy | best found | best µs | default µs | gain | "
             "exhaustive best | gap | evals | s | decision |\n"
             "|---|---|--:|--:|---|---|--:|--:|--:|---|--:|--:|--:|---|");
    else
        printf("%-22s %-11s %4s %3s %-10s %-24s %9s %9s %6s %-24s %6s %5s %6s  %s\n", "variant",
               "shape", "n", "thr", "strategy", "best found", "best_us", "dflt_us", "gain",
               "exhaustive best", "gap", "evals", "secs", "decision");
    int rows = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        rows++;
        const char *v = (const char *)sqlite3_column_text(q, 0);
        int m = sqlite3_column_int(q, 1), k = sqlite3_column_int(q, 2), n = sqlite3_column_int(q, 3),
            t = sqlite3_column_int(q, 4);
        const char *st = (const char *)sqlite3_column_text(q, 5);
        const char *bp = (const char *)sqlite3_column_text(q, 6);
        double bu = sqlite3_column_double(q, 7), du = sqlite3_column_double(q, 8),
               g = sqlite3_column_double(q, 9), p = sqlite3_column_double(q, 10);
        const char *dec = (const char *)sqlite3_column_text(q, 11);
        int ev = sqlite3_column_int(q, 12);
        double secs = sqlite3_column_double(q, 13);
        int have_ex = sqlite3_column_type(q, 14) != SQLITE_NULL;
        double ex = sqlite3_column_double(q, 14);
        const char *exp = have_ex ? (const char *)sqlite3_column_text(q, 15) : "";
        char gap[32] = "-", exs[96] = "-", shape[32];
        if (have_ex && ex > 0) {
            snprintf(gap, sizeof gap, "%.1f%%", 100.0 * (bu / ex - 1.0));
            snprintf(exs, sizeof exs, "%s (%.1f)", exp && *exp ? exp : "-", ex);
        }
        snprintf(shape, sizeof shape, "%dx%d", m, k);
        if (csv)
            printf("%s,%d,%d,%d,%d,%s,\"%s\",%.3f,%.3f,%.2f,%.3g,\"%s\",%s,%s,%d,%.1f,\"%s\"\n", v, m,
                   k, n, t, st, bp, bu, du, g, p, have_ex ? exp : "",
                   have_ex ? exs : "", gap, ev, secs, dec);
        else if (md)
            printf("| %s | %s | %d | %d | %s | %s | %.1f | %.1f | %.1f%% | %s | %s | %d | %.0f | %s |\n",
                   v, shape, n, t, st, bp, bu, du, g, exs, gap, ev, secs, dec);
        else
            printf("%-22s %-11s %4d %3d %-10s %-24s %9.1f %9.1f %5.1f%% %-24s %6s %5d %6.0f  %s\n",
                   v, shape, n, t, st, bp, bu, du, g, exs, gap, ev, secs, dec);
    }
    sqlite3_finalize(q);
    mp_store_close(s);
    if (!rows)
        fprintf(stderr, "mpbench: no tuned results in %s (run 'mpbench tune' first)\n", db);
    return 0;
}

static void tune_usage(FILE *f)
{
    fputs("usage: mpbench tune --variant GLOB (--model NAME | --gguf FILE | --shape MxK[xN]) [--n LIST]\n"
          "                    [--threads LIST] --strategy exhaustive|random|halving|model\n"
          "                    [--budget N] [--margin PCT] [--alpha P] [--reps R] [--warm]\n"
          "                    [--seed S] [--db PATH] [--out FILE] [--force]\n"
          "       mpbench tune --report [--db PATH] [--format table|csv|md]\n"
          "  A winner replaces the default only if it is faster by --margin percent\n"
          "  (default 3) with a one-sided Mann-Whitney U test p < --alpha (default 0.01)\n"
          "  over >= 9 interleaved repetitions each, confirmed by an A-B-A round.\n",
          f);
}

int mp_cmd_tune(int argc, char **argv)
{
    static const struct option opts[] = {
        {"variant", required_argument, 0, 'v'},  {"model", required_argument, 0, 'M'},   {"gguf", required_argument, 0, 'G'},
        {"shape", required_argument, 0, 's'},    {"n", required_argument, 0, 'n'},
        {"threads", required_argument, 0, 't'},  {"strategy", required_argument, 0, 'S'},
        {"budget", required_argument, 0, 'b'},   {"margin", required_argument, 0, 'g'},
        {"alpha", required_argument, 0, 'a'},    {"reps", required_argument, 0, 'r'},
        {"warm", no_argument, 0, 'w'},           {"seed", required_argument, 0, 'x'},
        {"db", required_argument, 0, 'd'},       {"out", required_argument, 0, 'o'},
        {"force", no_argument, 0, 'F'},          {"report", no_argument, 0, 'R'},
        {"format", required_argument, 0, 'f'},   {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *globs = NULL, *model = NULL, *shape = NULL, *nlist = NULL, *tlist = NULL,
               *strategy = NULL, *db = "results/mpbench.db", *outp = NULL;
    int budget = 0, reps = 9, seed = 1, force = 0, want_report = 0, c, rc;
    double margin = 3.0, alpha = 0.01;
    mp_format fmt = MP_FMT_TABLE;
    mp_bench_opts bo;
    mp_bench_defaults(&bo);
    mp_err e;
    char cmdline[2048];
    mp_join_argv(argc - 1, argv + 1, cmdline, sizeof cmdline);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'v': globs = optarg; break;
        case 'M': model = optarg; break;
        case 'G': /* --gguf FILE (issue 19): mp_model_load reads GGUF files */
            if ((rc = mp_cli_gguf_arg(optarg)))
                return rc;
            model = optarg;
            break;
        case 's': shape = optarg; break;
        case 'n': nlist = optarg; break;
        case 't': tlist = optarg; break;
        case 'S': strategy = optarg; break;
        case 'b':
            if ((rc = mp_parse_int(optarg, "--budget", 1, 100000, &budget, &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'g':
            margin = strtod(optarg, &end);
            if (*end || margin < 0 || margin > 90)
                return mp_die(2, "--margin: '%s' is not a percentage in [0, 90]", optarg);
            break;
        case 'a':
            alpha = strtod(optarg, &end);
            if (*end || alpha <= 0 || alpha >= 1)
                return mp_die(2, "--alpha: '%s' is not in (0, 1)", optarg);
            break;
        case 'r':
            if ((rc = mp_parse_int(optarg, "--reps", 9, 100000, &reps, &e)))
                return mp_die(rc, "%s (the rank test needs >= 9 repetitions)", e.msg);
            break;
        case 'w': bo.warm = 1; break;
        case 'x':
            if ((rc = mp_parse_int(optarg, "--seed", 0, 2147483647, &seed, &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'd': db = optarg; break;
        case 'o': outp = optarg; break;
        case 'F': force = 1; break;
        case 'R': want_report = 1; break;
        case 'f':
            if (mp_format_parse(optarg, &fmt) || fmt == MP_FMT_JSON)
                return mp_die(2, "--format: '%s' is not one of table, csv, md", optarg);
            break;
        case 'h': tune_usage(stdout); return 0;
        default:
            tune_usage(stderr);
            return mp_die(2, "tune: unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return mp_die(2, "tune: unexpected argument '%s'", argv[optind]);
    if (want_report)
        return report(db, fmt);
    mp_strategy st;
    if (!strategy || mp_strategy_parse(strategy, &st))
        return mp_die(2, "--strategy: '%s' is not exhaustive, random, halving or model",
                      strategy ? strategy : "");
    if (!globs)
        return mp_die(2, "tune: --variant is required");
    if (!!model == !!shape)
        return mp_die(2, "tune: give exactly one of --model NAME or --shape MxK[xN]");
    const mp_variant *sel[MAX_SEL];
    int nsel;
    if ((rc = mp_select_variants(globs, sel, MAX_SEL, &nsel, &e)))
        return mp_die(rc, "%s", e.msg);
    int shapes[16][2], ns = 0, nv[MAX_LIST] = {1}, tv[MAX_LIST] = {1}, nn = 1, nt = 1;
    if (shape) {
        int sn;
        if ((rc = mp_parse_shape(shape, &shapes[0][0], &shapes[0][1], &sn, &e)))
            return mp_die(rc, "%s", e.msg);
        ns = 1;
        if (sn)
            nv[0] = sn;
    } else {
        mp_model mdl;
        char names[16][32];
        if ((rc = mp_model_load(model, &mdl, &e)))
            return mp_die(rc, "%s", e.msg);
        ns = mp_model_shapes(&mdl, shapes, names);
    }
    if (nlist && (rc = mp_parse_int_list(nlist, "--n", 1, 65536, nv, MAX_LIST, &nn, &e)))
        return mp_die(rc, "%s", e.msg);
    if (tlist && (rc = mp_parse_int_list(tlist, "--threads", 1, 1024, tv, MAX_LIST, &nt, &e)))
        return mp_die(rc, "%s", e.msg);
    bo.seed = (uint64_t)seed;

    mp_machine mach;
    mp_machine_probe_info(&mach);
    bo.llc_bytes = mp_machine_llc_bytes(&mach);
    char conf[1024];
    if (outp)
        snprintf(conf, sizeof conf, "%s", outp);
    else {
        mkdir("results", 0755);
        mkdir("results/tuned", 0755);
        snprintf(conf, sizeof conf, "results/tuned/%s.conf", mach.fingerprint);
    }
    mp_tuned tuned = {{0}, 0, NULL};
    if (access(conf, F_OK) == 0) {
        if ((rc = mp_tuned_load(conf, mach.fingerprint, force, &tuned, &e)))
            return mp_die(rc, "%s", e.msg);
    }
    snprintf(tuned.fingerprint, sizeof tuned.fingerprint, "%s", mach.fingerprint);
    mp_store *store;
    int64_t machine_id, run_id;
    if ((rc = mp_store_open(db, &store, &e)) ||
        (rc = mp_store_machine(store, &mach, &machine_id, &e)) ||
        (rc = mp_store_run_begin(store, machine_id, "tune", &mach, cmdline, "", &run_id, &e))) {
        mp_tuned_free(&tuned);
        mp_store_close(store);
        return mp_die(rc, "%s", e.msg);
    }
    int tuned_any = 0;
    for (int ti = 0; ti < nt; ti++) {
        char binding[512];
        mp_pool *pool = mp_pool_create(tv[ti], binding, sizeof binding);
        for (int vi = 0; vi < nsel; vi++) {
            const mp_variant *v = sel[vi];
            if (!v->n_params) {
                fprintf(stderr, "mpbench: %s has no tunable parameters: skipped\n", v->name);
                continue;
            }
            if (!mp_variant_available(v)) {
                fprintf(stderr, "mpbench: %s: this CPU lacks its ISA: skipped\n", v->name);
                continue;
            }
            mp_space sp;
            mp_space_of(v, &sp);
            for (int si = 0; si < ns; si++)
                for (int ni = 0; ni < nn; ni++) {
                    int m = shapes[si][0], k = shapes[si][1], n = nv[ni];
                    int defp[MP_MAX_PARAMS], start[MP_MAX_PARAMS], di[MP_MAX_PARAMS];
                    char why[256];
                    mp_variant_defaults(v, defp);
                    if (mp_variant_check(v, m, k, defp, why, sizeof why)) {
                        fprintf(stderr, "mpbench: %s cannot take %dx%d: %s\n", v->name, m, k, why);
                        continue;
                    }
                    mp_space_index(&sp, defp, di);
                    memcpy(start, di, sizeof start);
                    if (st == MP_MODEL && v->suggest) {
                        int sug[MP_MAX_PARAMS];
                        memcpy(sug, defp, sizeof sug);
                        v->suggest(m, k, n, mach.l1d_kib * 1024, mach.l2_kib * 1024, sug);
                        if (mp_space_index(&sp, sug, start))
                            memcpy(start, di, sizeof start);
                    }
                    tune_ctx t = {pool, v, &sp, m, k, n, bo, calloc(MAX_EVAL, sizeof(eval_rec)),
                                  0, 0};
                    double t0 = mp_now();
                    mp_search_result sr;
                    fprintf(stderr, "mpbench: tune %s %dx%d n=%d t=%d: %s over %ld points...\n",
                            v->name, m, k, n, tv[ti], mp_strategy_name(st), mp_space_size(&sp));
                    mp_search(&sp, st, budget, start, (uint64_t)seed, cost_timed, &t, &sr);
                    int bestp[MP_MAX_PARAMS];
                    mp_space_values(&sp, sr.best, bestp);
                    decision d;
                    if (!memcmp(sr.best, di, sizeof(int) * (size_t)sp.n) || !isfinite(sr.best_cost)) {
                        memset(&d, 0, sizeof d);
                        d.best_us = d.default_us = sr.best_cost;
                        d.p_value = 1;
                        snprintf(d.text, sizeof d.text, "default is the best found");
                    } else {
                        decide(&t, defp, bestp, reps, margin, alpha, &d);
                    }
                    double secs = mp_now() - t0;
                    char bs[128], ds[128], cs[128];
                    mp_params_str(v, bestp, bs, sizeof bs);
                    mp_params_str(v, defp, ds, sizeof ds);
                    const int *chosen = d.winner ? bestp : defp;
                    mp_params_str(v, chosen, cs, sizeof cs);
                    /* store every evaluation, then the decision */
                    mp_result *rs = malloc(sizeof *rs * (size_t)(t.nev ? t.nev : 1));
                    for (int i = 0; i < t.nev; i++)
                        rs[i] = t.ev[i].r;
                    if ((rc = mp_store_results(store, run_id, NULL, rs, t.nev, &e)))
                        mp_die(rc, "%s", e.msg);
                    free(rs);
                    store_tuned(mp_store_db(store), run_id, v, m, k, n, tv[ti], st, bs, ds, cs,
                                &d, sr.evaluations, secs);
                    printf("%s %dx%d n=%d threads=%d [%s, %d evaluations, %.1fs]: best %s "
                           "(%.1f us) vs default %s (%.1f us): %s\n",
                           v->name, m, k, n, tv[ti], mp_strategy_name(st), sr.evaluations, secs,
                           bs[0] ? bs : "-", d.best_us, ds, d.default_us, d.text);
                    /* upsert into the tuned config */
                    int slot = -1;
                    for (int i = 0; i < tuned.count; i++)
                        if (tuned.e[i].v == v && tuned.e[i].m == m && tuned.e[i].k == k &&
                            tuned.e[i].n == n && tuned.e[i].threads == tv[ti])
                            slot = i;
                    if (slot < 0) {
                        tuned.e = realloc(tuned.e, sizeof *tuned.e * (size_t)(tuned.count + 1));
                        slot = tuned.count++;
                    }
                    tuned.e[slot] = (mp_tuned_entry){v, m, k, n, tv[ti], {0}};
                    memcpy(tuned.e[slot].param, chosen, sizeof tuned.e[slot].param);
                    tuned_any = 1;
                    for (int i = 0; i < t.nev; i++)
                        mp_result_free(&t.ev[i].r);
                    free(t.ev);
                }
        }
        mp_pool_destroy(pool);
    }
    mp_store_run_end(store, run_id, rc ? "error" : "ok", &e);
    mp_store_close(store);
    if (tuned_any && !rc) {
        if ((rc = mp_tuned_save(conf, &tuned, &e)))
            mp_die(rc, "%s", e.msg);
        else
            fprintf(stderr, "mpbench: tuned parameters written to %s\n", conf);
    }
    mp_tuned_free(&tuned);
    return rc;
}
