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
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <unistd.h>

#include "mp_cli.h"
#include "mp_counters.h"
#include "mp_gguf.h"
#include "mp_harness.h"
#include "mp_probe_store.h"
#include "mp_sweep.h"
#include "../variants/mp_registry.h"

enum { MAX_SEL = 512, MAX_SHAPES = 256, MAX_LIST = 32, MAX_CASES = 4096 };

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

static void sweep_usage(FILE *f)
{
    fputs("usage: mpbench sweep [--quick] [--variant GLOB[,GLOB]] [--model NAME|all] [--gguf FILE]...\n"
          "                     [--shape MxK]... [--n LIST] [--threads LIST]\n"
          "                     [--params default|all] [--shard I/N] [--reps R]\n"
          "                     [--min-time SEC] [--warm] [--counters LIST|none]\n"
          "                     [--counters-backend pfm|papi] [--seed S] [--db PATH]\n"
          "                     [--format table|csv|json|md] [--dry-run] [--probe-bw]\n"
          "  --quick: the most specialized available path of every method on the\n"
          "  bitnet-b1.58-2b-4t shapes, n=1,32, threads=1,2, short timing.\n"
          "  Re-running the same command measures only what is missing.\n"
          "  --probe-bw stores this run's DRAM read bandwidth per thread count (used by\n"
          "  'mpbench compare' to cancel machine-speed drift).\n",
          f);
}

/* For --quick: per method, the available variant with the richest ISA. */
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
    return n;
}

int mp_sweep_cases(const mp_variant *const *sel, int nsel, int all_params, mp_case *cases,
                   int max, int *ncase, mp_err *e)
{
    int n = 0;
    for (int i = 0; i < nsel; i++) {
        const mp_variant *v = sel[i];
        int idx[MP_MAX_PARAMS] = {0};
        for (;;) {
            if (n == max)
                return mp_fail(e, MP_EUSAGE,
                               "--params all: more than %d parameter combinations; narrow "
                               "--variant or use 'mpbench tune'", max);
            cases[n].v = v;
            mp_variant_defaults(v, cases[n].param);
            if (all_params)
                for (int p = 0; p < v->n_params; p++)
                    cases[n].param[p] = v->params[p].values[idx[p]];
            n++;
            if (!all_params)
                break;
            int p = 0;
            while (p < v->n_params && ++idx[p] == v->params[p].n_values)
                idx[p++] = 0;
            if (p == v->n_params)
                break;
        }
    }
    *ncase = n;
    return MP_OK;
}

static uint64_t fnv(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* key of one result inside a sweep, for the done-set */
static void item_key(char *buf, size_t len, const char *variant, const char *params, int m,
                     int k, int n, int t)
{
    snprintf(buf, len, "%s|%s|%d|%d|%d|%d", variant, params, m, k, n, t);
}

typedef struct done_set {
    char **keys;
    int n, cap;
} done_set;

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_done(sqlite3 *db, const char *sweep_key, const char *cache_mode, done_set *d)
{
    sqlite3_stmt *st;
    memset(d, 0, sizeof *d);
    if (sqlite3_prepare_v2(db,
                           "SELECT variant, params, m, k, n, threads FROM results "
                           "WHERE sweep_key=? AND cache_mode=?",
                           -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_text(st, 1, sweep_key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, cache_mode, -1, SQLITE_TRANSIENT);
    while (sqlite3_step(st) == SQLITE_ROW) {
        char k[512];
        item_key(k, sizeof k, (const char *)sqlite3_column_text(st, 0),
                 (const char *)sqlite3_column_text(st, 1), sqlite3_column_int(st, 2),
                 sqlite3_column_int(st, 3), sqlite3_column_int(st, 4), sqlite3_column_int(st, 5));
        if (d->n == d->cap) {
            d->cap = d->cap ? 2 * d->cap : 256;
            d->keys = realloc(d->keys, sizeof *d->keys * (size_t)d->cap);
        }
        d->keys[d->n++] = strdup(k);
    }
    sqlite3_finalize(st);
    if (d->n)
        qsort(d->keys, (size_t)d->n, sizeof *d->keys, cmp_key);
}

static int is_done(const done_set *d, const char *key)
{
    return d->n && bsearch(&key, d->keys, (size_t)d->n, sizeof *d->keys, cmp_key) != NULL;
}

static void free_done(done_set *d)
{
    for (int i = 0; i < d->n; i++)
        free(d->keys[i]);
    free(d->keys);
}

int mp_cmd_sweep(int argc, char **argv)
{
    static const struct option opts[] = {
        {"quick", no_argument, 0, 'q'},         {"variant", required_argument, 0, 'v'},
        {"model", required_argument, 0, 'M'},   {"gguf", required_argument, 0, 'G'},   {"shape", required_argument, 0, 's'},
        {"n", required_argument, 0, 'n'},       {"threads", required_argument, 0, 't'},
        {"params", required_argument, 0, 'p'},  {"shard", required_argument, 0, 'x'},
        {"reps", required_argument, 0, 'r'},    {"min-time", required_argument, 0, 'T'},
        {"warm", no_argument, 0, 'w'},          {"counters", required_argument, 0, 'c'},
        {"counters-backend", required_argument, 0, 'b'},
        {"seed", required_argument, 0, 'S'},    {"db", required_argument, 0, 'd'},
        {"format", required_argument, 0, 'f'},  {"dry-run", no_argument, 0, 'D'},
        {"probe-bw", no_argument, 0, 'P'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    char globs[1024] = "", models[2048] = "", shapes_arg[2048] = "", cmdline[4096];
    const char *nlist = NULL, *tlist = NULL, *params = "default", *counters = NULL,
               *backend = "pfm", *db = "results/mpbench.db";
    int quick = 0, shard_i = 1, shard_n = 1, seed = 1, dry = 0, have_fmt = 0, probe_bw = 0, c, rc;
    mp_format fmt = MP_FMT_TABLE;
    mp_bench_opts bo;
    mp_bench_defaults(&bo);
    int reps_given = 0, time_given = 0;
    mp_err e;
    mp_join_argv(argc - 1, argv + 1, cmdline, sizeof cmdline);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'q': quick = 1; break;
        case 'v': {
            size_t l = strlen(globs);
            snprintf(globs + l, sizeof globs - l, "%s%s", l ? "," : "", optarg);
            break;
        }
        case 'G': /* --gguf FILE (issue 19): mp_model_load reads GGUF files */
            if ((rc = mp_cli_gguf_arg(optarg)))
                return rc;
            /* fall through */
        case 'M': {
            size_t l = strlen(models);
            snprintf(models + l, sizeof models - l, "%s%s", l ? "," : "", optarg);
            break;
        }
        case 's': {
            size_t l = strlen(shapes_arg);
            snprintf(shapes_arg + l, sizeof shapes_arg - l, "%s%s", l ? "," : "", optarg);
            break;
        }
        case 'n': nlist = optarg; break;
        case 't': tlist = optarg; break;
        case 'p':
            if (strcmp(optarg, "all") && strcmp(optarg, "default"))
                return mp_die(2, "--params: '%s' is not all or default", optarg);
            params = optarg;
            break;
        case 'x':
            if (sscanf(optarg, "%d/%d", &shard_i, &shard_n) != 2 || shard_n < 1 ||
                shard_i < 1 || shard_i > shard_n || strspn(optarg, "0123456789/") != strlen(optarg))
                return mp_die(2, "--shard: '%s' is not I/N with 1 <= I <= N", optarg);
            break;
        case 'r':
            if ((rc = mp_parse_int(optarg, "--reps", 1, 1000000, &bo.min_reps, &e)))
                return mp_die(rc, "%s", e.msg);
            reps_given = 1;
            break;
        case 'T': {
            char *end;
            bo.min_time = strtod(optarg, &end);
            if (*end || bo.min_time < 0 || bo.min_time > 3600)
                return mp_die(2, "--min-time: '%s' is not a number of seconds in [0, 3600]",
                              optarg);
            time_given = 1;
            break;
        }
        case 'w': bo.warm = 1; break;
        case 'c': counters = optarg; break;
        case 'b': backend = optarg; break;
        case 'S':
            if ((rc = mp_parse_int(optarg, "--seed", 0, 2147483647, &seed, &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'd': db = optarg; break;
        case 'f':
            if (mp_format_parse(optarg, &fmt))
                return mp_die(2, "--format: '%s' is not one of table, csv, json, md", optarg);
            have_fmt = 1;
            break;
        case 'D': dry = 1; break;
        case 'P': probe_bw = 1; break;
        case 'h': sweep_usage(stdout); return 0;
        default:
            sweep_usage(stderr);
            return mp_die(2, "sweep: unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return mp_die(2, "sweep: unexpected argument '%s'", argv[optind]);
    if (strcmp(backend, "pfm") && strcmp(backend, "papi"))
        return mp_die(2, "--counters-backend: '%s' is not pfm or papi", backend);
    if (quick) {
        if (!models[0] && !shapes_arg[0])
            snprintf(models, sizeof models, "bitnet-b1.58-2b-4t");
        if (!nlist)
            nlist = "1,32";
        if (!tlist)
            tlist = "1,2";
        if (!reps_given)
            bo.min_reps = 5;
        if (!time_given)
            bo.min_time = 0.03;
    }
    if (!models[0] && !shapes_arg[0])
        return mp_die(2, "sweep: give --model NAME|all, --shape MxK, or --quick");
    bo.seed = (uint64_t)seed;

    /* variants */
    const mp_variant *sel[MAX_SEL];
    int nsel = 0;
    if (globs[0]) {
        if ((rc = mp_select_variants(globs, sel, MAX_SEL, &nsel, &e)))
            return mp_die(rc, "%s", e.msg);
    } else if (quick) {
        nsel = best_per_method(sel, MAX_SEL);
    } else {
        if ((rc = mp_select_variants("*", sel, MAX_SEL, &nsel, &e)))
            return mp_die(rc, "%s", e.msg);
    }
    static mp_case cases[MAX_CASES];
    int ncase;
    if ((rc = mp_sweep_cases(sel, nsel, !strcmp(params, "all"), cases, MAX_CASES, &ncase, &e)))
        return mp_die(rc, "%s", e.msg);

    /* shapes: from models (deduplicated) and --shape */
    static int shapes[MAX_SHAPES][2];
    int ns = 0;
    if (models[0]) {
        char buf[2048];
        snprintf(buf, sizeof buf, "%s", models);
        char **all = NULL;
        int nall = 0;
        if (!strcmp(buf, "all")) {
            nall = mp_model_list(&all);
            buf[0] = 0;
            for (int i = 0; i < nall; i++) {
                size_t l = strlen(buf);
                snprintf(buf + l, sizeof buf - l, "%s%s", i ? "," : "", all[i]);
                free(all[i]);
            }
            free(all);
        }
        char *save = NULL;
        for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            mp_model mdl;
            int sh[8][2];
            char names[8][32];
            if ((rc = mp_model_load(tok, &mdl, &e)))
                return mp_die(rc, "%s", e.msg);
            int k = mp_model_shapes(&mdl, sh, names);
            for (int i = 0; i < k; i++) {
                int dup = 0;
                for (int j = 0; j < ns; j++)
                    dup |= shapes[j][0] == sh[i][0] && shapes[j][1] == sh[i][1];
                if (!dup && ns < MAX_SHAPES)
                    shapes[ns][0] = sh[i][0], shapes[ns][1] = sh[i][1], ns++;
            }
        }
    }
    if (shapes_arg[0]) {
        char buf[2048];
        snprintf(buf, sizeof buf, "%s", shapes_arg);
        char *save = NULL;
        for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            int m, k;
            if ((rc = mp_parse_shape(tok, &m, &k, NULL, &e)))
                return mp_die(rc, "%s", e.msg);
            if (ns < MAX_SHAPES)
                shapes[ns][0] = m, shapes[ns][1] = k, ns++;
        }
    }
    int nv[MAX_LIST], tv[MAX_LIST], nn = 1, nt = 1;
    nv[0] = 1, tv[0] = 1;
    if (nlist && (rc = mp_parse_int_list(nlist, "--n", 1, 65536, nv, MAX_LIST, &nn, &e)))
        return mp_die(rc, "%s", e.msg);
    if (tlist && (rc = mp_parse_int_list(tlist, "--threads", 1, 1024, tv, MAX_LIST, &nt, &e)))
        return mp_die(rc, "%s", e.msg);

    /* the sweep key: everything that defines the set of results and how they are measured */
    char cfg[8192];
    size_t used = (size_t)snprintf(cfg, sizeof cfg, "sweep1|warm=%d|reps=%d|min=%.4f|seed=%d|params=%s|v=",
                                   bo.warm, bo.min_reps, bo.min_time, seed, params);
    for (int i = 0; i < nsel && used < sizeof cfg; i++)
        used += (size_t)snprintf(cfg + used, sizeof cfg - used, "%s,", sel[i]->name);
    for (int i = 0; i < ns && used < sizeof cfg; i++)
        used += (size_t)snprintf(cfg + used, sizeof cfg - used, "|%dx%d", shapes[i][0], shapes[i][1]);
    used += (size_t)snprintf(cfg + used, sizeof cfg - used, "|n=%s|t=%s|c=%s", nlist ? nlist : "1",
                             tlist ? tlist : "1", counters ? counters : "");
    char sweep_key[32];
    snprintf(sweep_key, sizeof sweep_key, "%016llx", (unsigned long long)fnv(cfg));

    /* points in a fixed order; the shard takes every shard_n-th */
    int npoints = ns * nn * nt, mine = 0;
    for (int p = 0; p < npoints; p++)
        mine += p % shard_n == shard_i - 1;
    if (dry) {
        printf("sweep key %s: %d variants/parameter sets x %d shapes x %d n x %d threads = %d "
               "points (%d in shard %d/%d)\n",
               sweep_key, ncase, ns, nn, nt, npoints, mine, shard_i, shard_n);
        return 0;
    }

    if (counters && strcmp(counters, "none")) {
        /* validate the event names before anything is stored */
        mp_counters *probe;
        if ((rc = mp_counters_open(counters, backend, NULL, 0, &probe, &e)))
            return mp_die(rc, "%s", e.msg);
        mp_counters_close(probe);
    }
    mp_machine mach;
    mp_machine_probe_info(&mach);
    bo.llc_bytes = mp_machine_llc_bytes(&mach);
    mp_machine_warn(&mach);
    mp_store *store;
    int64_t machine_id, run_id;
    if ((rc = mp_store_open(db, &store, &e)) ||
        (rc = mp_store_machine(store, &mach, &machine_id, &e)))
        return mp_die(rc, "%s", e.msg);
    sqlite3 *sdb = mp_store_db(store);
    done_set done;
    load_done(sdb, sweep_key, bo.warm ? "warm" : "cold", &done);
    /* count what is left, to report progress honestly */
    long total = 0, todo = 0;
    for (int p = 0; p < npoints; p++) {
        if (p % shard_n != shard_i - 1)
            continue;
        int si = p / (nn * nt), ni = (p / nt) % nn, ti = p % nt;
        for (int q = 0; q < ncase; q++) {
            char k[512], ps[128];
            mp_params_str(cases[q].v, cases[q].param, ps, sizeof ps);
            item_key(k, sizeof k, cases[q].v->name, ps, shapes[si][0], shapes[si][1], nv[ni], tv[ti]);
            total++;
            todo += !is_done(&done, k);
        }
    }
    if (todo == 0) {
        fprintf(stderr, "mpbench: sweep %s: all %ld results already stored in %s\n", sweep_key,
                total, db);
        free_done(&done);
        mp_store_close(store);
        return 0;
    }
    if (total != todo)
        fprintf(stderr, "mpbench: sweep %s: resuming, %ld of %ld results already stored\n",
                sweep_key, total - todo, total);
    if ((rc = mp_store_run_begin(store, machine_id, "sweep", &mach, cmdline, "", &run_id, &e)) ||
        (rc = mp_store_set_config_key(store, run_id, sweep_key, &e))) {
        free_done(&done);
        mp_store_close(store);
        return mp_die(rc, "%s", e.msg);
    }
    signal(SIGINT, on_sigint);
    signal(SIGTERM, on_sigint);
    int tty = isatty(2), failed = 0, counters_recorded = 0;
    long measured = 0;
    double t0 = mp_now();
    mp_result *printed = NULL;
    int nprinted = 0;
    char bindings[2048] = "";
    mp_counters *all_cs[MAX_LIST] = {0};
    mp_case *pending = malloc(sizeof *pending * (size_t)ncase);
    mp_result *res = calloc((size_t)ncase, sizeof *res);
    for (int ti = 0; ti < nt && !interrupted && !rc; ti++) {
        char binding[512];
        mp_pool *pool = NULL;
        mp_counters *cs = NULL;
        for (int si = 0; si < ns && !interrupted && !rc; si++)
            for (int ni = 0; ni < nn && !interrupted && !rc; ni++) {
                int p = si * nn * nt + ni * nt + ti;
                if (p % shard_n != shard_i - 1)
                    continue;
                int np = 0;
                for (int q = 0; q < ncase; q++) {
                    char k[512], ps[128];
                    mp_params_str(cases[q].v, cases[q].param, ps, sizeof ps);
                    item_key(k, sizeof k, cases[q].v->name, ps, shapes[si][0], shapes[si][1],
                             nv[ni], tv[ti]);
                    if (!is_done(&done, k))
                        pending[np++] = cases[q];
                }
                if (!np)
                    continue;
                if (!pool) {
                    pool = mp_pool_create(tv[ti], binding, sizeof binding);
                    size_t bl = strlen(bindings);
                    snprintf(bindings + bl, sizeof bindings - bl, "%st=%d[%s]", bl ? " " : "",
                             tv[ti], binding);
                    if (counters && !strcmp(counters, "none")) {
                        cs = NULL;
                    } else if ((rc = mp_counters_open(counters, backend, mp_pool_tids(pool),
                                                      tv[ti], &cs, &e))) {
                        mp_die(rc, "%s", e.msg);
                        break;
                    }
                    if (cs && !counters_recorded) {
                        for (int i = 0; i < mp_counters_n(cs); i++)
                            if (mp_counters_unavailable(cs, i))
                                fprintf(stderr, "mpbench: counter %s unavailable: %s\n",
                                        mp_counters_name(cs, i), mp_counters_unavailable(cs, i));
                        mp_store_run_counters(store, run_id, cs, &e);
                        counters_recorded = 1;
                    }
                    bo.counters = cs;
                    if (probe_bw) {
                        /* this run's own bandwidth, so `compare` can cancel machine drift */
                        mp_probe_row pr = {"read_DRAM", tv[ti], 256ll << 20,
                                           mp_probe_dram_read(pool, 256u << 20, 5), "GB/s"};
                        mp_probe_store(store, run_id, &pr, 1, &e);
                    }
                }
                if (tty) {
                    double el = mp_now() - t0;
                    double eta = measured ? el / measured * (double)(todo - measured) : 0;
                    fprintf(stderr, "\r\033[K[%ld/%ld] %.0fs elapsed, ETA %.0fs  %dx%d n=%d t=%d (%d cases)",
                            measured, todo, el, eta, shapes[si][0], shapes[si][1], nv[ni],
                            tv[ti], np);
                }
                mp_bench_point(pool, pending, np, shapes[si][0], shapes[si][1], nv[ni], &bo,
                               res, &e);
                if ((rc = mp_store_results(store, run_id, sweep_key, res, np, &e))) {
                    mp_die(rc, "%s", e.msg);
                    break;
                }
                measured += np;
                for (int i = 0; i < np; i++) {
                    failed |= res[i].status == MP_ST_FAILED;
                    if (have_fmt) {
                        printed = realloc(printed, sizeof *printed * (size_t)(nprinted + 1));
                        printed[nprinted] = res[i];
                        printed[nprinted].times_us = NULL;
                        nprinted++;
                    }
                    mp_result_free(&res[i]);
                }
            }
        all_cs[ti] = cs; /* printed results refer to its event names: close at the end */
        bo.counters = NULL;
        mp_pool_destroy(pool);
    }
    if (tty)
        fputs("\r\033[K", stderr);
    const char *status = rc ? "error" : interrupted ? "interrupted" : failed ? "failed" : "ok";
    mp_err e2;
    sqlite3_stmt *bst;
    if (sqlite3_prepare_v2(sdb, "UPDATE runs SET binding=? WHERE id=?", -1, &bst, NULL) == SQLITE_OK) {
        sqlite3_bind_text(bst, 1, bindings, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(bst, 2, run_id);
        sqlite3_step(bst);
        sqlite3_finalize(bst);
    }
    mp_store_run_end(store, run_id, status, &e2);
    fprintf(stderr, "mpbench: sweep %s: %ld results measured in %.1fs (%s), stored in %s\n",
            sweep_key, measured, mp_now() - t0, status, db);
    if (have_fmt && nprinted)
        mp_results_print(stdout, fmt, printed, nprinted);
    free(printed);
    for (int i = 0; i < nt; i++)
        mp_counters_close(all_cs[i]);
    free(res);
    free(pending);
    free_done(&done);
    mp_store_close(store);
    if (rc)
        return rc;
    if (interrupted)
        return mp_die(130, "interrupted: re-run the same command to measure the rest");
    return failed ? mp_die(1, "some variants gave wrong results (status failed)") : 0;
}
