/* cli-compare.c - `mpbench compare`: regression tracking between two runs.
 *
 * Per (variant, params, shape, n, threads, cache mode) present in both runs, the
 * ratio of medians new/base with a 95% bootstrap interval from the stored
 * repetition times.  That ratio is then divided by the run's drift, so that a
 * machine that is slower or busier today than when the baseline was recorded
 * does not read as a regression of every kernel:
 *   common (default): the drift of a problem (shape, n, threads, cache mode) is
 *     the median ratio over the variants timed on it.  The sweep interleaves the
 *     repetitions of all variants of one problem, so they share whatever the
 *     machine was doing; the median is unmoved by a minority of keys that really
 *     changed.  A problem with fewer than 3 keys in common takes the median over
 *     all keys, and with fewer than 3 in all there is no common mode: then a
 *     memory-bound key (cold cache, N = 1) falls back to the bandwidth drift.
 *   bw: only memory-bound keys, by the ratio of the runs' DRAM read bandwidth
 *     probes (sweep --probe-bw).
 *   none: the ratio as measured.
 * The price of the common mode: a change that slows every kernel alike is read
 * as drift.  It is never hidden: the shift of every problem is printed, with the
 * runs' bandwidth probes beside it, and a shift beyond the threshold is called
 * out on stderr.  A key is a regression when the whole interval lies above
 * 1 + threshold, an improvement when it lies below 1/(1 + threshold); both are
 * always printed.  Results marked unstable in either run are listed apart and
 * never fail the gate.  Runs of different machines are refused unless forced;
 * two runs with nothing in common fail loudly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mp_cli.h"
#include "../core/mp_core.h"
#include "../report/mp_output.h"
#include "../store/mp_store_compare.h"
#include "../../kernels/common/mp_numerics.h"
#include "mp_options.h"

typedef struct row {
    char key[256];
    char problem[96]; /* shape, n, threads, cache mode: what the sweep interleaved */
    char variant[64], params[128];
    int m, k, n, threads;
    char status[16];
    int cold;
    double median;
    double *t;
    int nt;
} row;

typedef struct runset {
    char path[1024];
    long long run_id;
    char fingerprint[64];
    row *rows;
    int n;
    double bw[65]; /* read_DRAM per thread count, 0 = none */
} runset;

typedef struct pair {
    row *a, *b;
    int unst;
    double raw;   /* stat(new) / stat(base) */
    double drift; /* what raw is divided by */
} pair;

static void free_runset(runset *r)
{
    for (int i = 0; i < r->n; i++)
        free(r->rows[i].t);
    free(r->rows);
}

/* "PATH" (its newest run with results) or "PATH:RUN_ID". */
/* spec: PATH or PATH:RUN.  Without :RUN, the newest run on `machine` when the
 * database holds one (NULL: the newest run). */
static int load(const char *spec, const char *what, const char *machine, runset *out, mp_err *e)
{
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", spec);
    char *colon = strrchr(out->path, ':');
    struct stat st;
    if (colon && stat(out->path, &st) != 0) {
        char *end;
        out->run_id = strtoll(colon + 1, &end, 10);
        if (*end || out->run_id <= 0)
            return mp_fail(e, MP_EUSAGE, "%s %s: ':%s' is not a run id", what, spec, colon + 1);
        *colon = 0;
    }
    if (stat(out->path, &st) != 0)
        return mp_fail(e, MP_EUSAGE, "%s %s: no such database file", what, out->path);
    if (!S_ISREG(st.st_mode))
        return mp_fail(e, MP_EIO, "%s %s: %s", what, out->path,
                       S_ISDIR(st.st_mode) ? "is a directory, not a database file"
                                           : "not a regular file");
    mp_cmp_run run;
    int rc = mp_store_compare_read(out->path, what, out->run_id, machine, &run, e);
    if (rc)
        return rc;
    out->run_id = run.run_id;
    snprintf(out->fingerprint, sizeof out->fingerprint, "%s", run.fingerprint);
    memcpy(out->bw, run.read_bw, sizeof out->bw);
    out->rows = calloc((size_t)(run.n ? run.n : 1), sizeof *out->rows);
    for (int i = 0; i < run.n; i++) {
        const mp_cmp_result *x = &run.rows[i];
        row *r = &out->rows[out->n++];
        snprintf(r->variant, sizeof r->variant, "%s", x->variant);
        snprintf(r->params, sizeof r->params, "%s", x->params);
        r->m = x->m, r->k = x->k, r->n = x->n, r->threads = x->threads;
        snprintf(r->key, sizeof r->key, "%s%s%s%s %dx%d n=%d t=%d %s", r->variant,
                 r->params[0] ? "[" : "", r->params, r->params[0] ? "]" : "", r->m, r->k, r->n,
                 r->threads, x->cache);
        snprintf(r->problem, sizeof r->problem, "%dx%d n=%d t=%d %s", r->m, r->k, r->n,
                 r->threads, x->cache);
        snprintf(r->status, sizeof r->status, "%s", x->status);
        r->cold = !strcmp(x->cache, "cold");
        r->median = x->median_us;
        r->t = x->times_us; /* ownership moves to the row */
        r->nt = x->ntimes;
        run.rows[i].times_us = NULL;
    }
    mp_store_compare_free(&run);
    return MP_OK;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile of v (sorted in place), interpolated: q = 0.5 is the median. */
static double quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    double pos = q * (n - 1);
    int i = (int)pos;
    return i + 1 < n ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[n - 1];
}

static double median(double *v, int n)
{
    return quantile(v, n, 0.5);
}

/* The statistic a key is judged on: the median, or a low quantile, which
 * estimates the time of a call nobody interrupted (see --stat). */
static double g_q = 0.5;

static double stat_of(const row *r)
{
    double *v = malloc(sizeof *v * (size_t)r->nt);
    memcpy(v, r->t, sizeof *v * (size_t)r->nt);
    double x = quantile(v, r->nt, g_q);
    free(v);
    return x;
}

/* 95% percentile-bootstrap interval of stat(b)/stat(a). */
static void boot_ratio(const row *a, const row *b, mp_rng *rng, double *lo, double *hi)
{
    enum { B = 2000 };
    double *ra = malloc(sizeof *ra * (size_t)a->nt), *rb = malloc(sizeof *rb * (size_t)b->nt);
    double *r = malloc(sizeof *r * B);
    for (int i = 0; i < B; i++) {
        for (int j = 0; j < a->nt; j++)
            ra[j] = a->t[mp_rng_next(rng) % (uint64_t)a->nt];
        for (int j = 0; j < b->nt; j++)
            rb[j] = b->t[mp_rng_next(rng) % (uint64_t)b->nt];
        r[i] = quantile(rb, b->nt, g_q) / quantile(ra, a->nt, g_q);
    }
    qsort(r, B, sizeof *r, cmp_d);
    *lo = r[(int)(0.025 * B)];
    *hi = r[(int)(0.975 * B) - 1];
    free(ra);
    free(rb);
    free(r);
}

enum { NORM_NONE, NORM_BW, NORM_COMMON };

typedef struct compare_opts {
    const char *base, *newp, *normalize;
    double thr, q;
    int no_normalize, force;
    mp_format fmt;
} compare_opts;

static int threshold_arg(const char *arg, void *target, mp_err *e)
{
    if (mp_parse_double(arg, "--threshold", 0, 1000, target, e))
        return mp_fail(e, MP_EUSAGE, "--threshold: '%s' is not a percentage in [0, 1000]", arg);
    return MP_OK;
}

static int stat_arg(const char *arg, void *target, mp_err *e)
{
    char *end;
    double q = 0;
    if (!strcmp(arg, "median"))
        q = 0.5;
    else if (arg[0] == 'p' && arg[1] && !arg[1 + strspn(arg + 1, "0123456789.")])
        q = strtod(arg + 1, &end) / 100.0, q = *end ? 0 : q; /* digits: no 1e1, no blank */
    if (!(q > 0 && q < 1))
        return mp_fail(e, MP_EUSAGE, "--stat: '%s' is not median or pNN (a percentile, 1..99)",
                       arg);
    *(double *)target = q;
    return MP_OK;
}

static const mp_opt compare_table[] = {
    MP_OPT_S("base", compare_opts, base, "DB[:RUN]", "the base run (default: its newest on the new run's machine)"),
    MP_OPT_S("new", compare_opts, newp, "DB[:RUN]", "the new run (default: its newest)"),
    MP_OPT_FN_("threshold", compare_opts, thr, threshold_arg, "PCT", "a regression is slower by more (default 15)"),
    MP_OPT_C("normalize", compare_opts, normalize, "common|bw|none", "the drift each key is divided by (below)"),
    MP_OPT_F("no-normalize", 0, compare_opts, no_normalize, "--normalize none"),
    MP_OPT_FN_("stat", compare_opts, q, stat_arg, "median|pNN", "the statistic judged (default median)"),
    MP_OPT_F("force", 0, compare_opts, force, "compare runs of different machines"),
    MP_OPT_FMT_OF(compare_opts, fmt, "table|md|csv", "output format (default table)"),
    MP_OPT_END};

static const mp_cmd_spec compare_spec = MP_CMD_SPEC("compare", compare_table,
    .once = "base new",
    .synopsis = "--base DB[:RUN] --new DB[:RUN] [--threshold PCT] [--normalize common|bw|none]\n"
                "                       [--stat median|pNN] [--force] [--format table|md|csv]",
    .about = "Ratio of medians new/base per key with a 95% bootstrap interval, divided by\n"
             "the run's drift (common: the median ratio of the variants timed on the same\n"
             "problem; bw: DRAM bandwidth probes, memory-bound keys only; none); exit 1\n"
             "if any key is slower beyond the threshold (default 15%) with confidence.\n"
             "--stat p20 judges the 20th percentile of the repetitions instead of the\n"
             "median: on a machine whose CPU is taken away now and then (a busy host),\n"
             "the low quantile is the time of the calls nobody interrupted.\n"
             "Without :RUN, --new is its database's newest run and --base its database's\n"
             "newest run on the same machine (a baseline database may hold one per\n"
             "machine kind); runs of different machines are refused unless --force.\n");

/* Both runs: the new first, so that a base database holding runs of several
 * machines (results/baseline/regress.db, one baseline per machine kind) gives
 * its newest run on the new run's machine. */
static int compare_load(const compare_opts *o, runset *A, runset *B)
{
    mp_err e;
    int rc;
    if (!o->base || !o->newp)
        return mp_die(2, "compare: --base and --new are required");
    if ((rc = load(o->newp, "--new", NULL, B, &e)))
        return mp_die(rc, "%s", e.msg);
    if ((rc = load(o->base, "--base", B->fingerprint, A, &e))) {
        free_runset(B);
        return mp_die(rc, "%s", e.msg);
    }
    if (strcmp(A->fingerprint, B->fingerprint) && !o->force) {
        free_runset(A);
        free_runset(B);
        return mp_die(2, "compare: base ran on machine %s, new on %s: different machines are "
                         "not comparable (without :RUN, --base takes its newest run on the "
                         "new run's machine when it holds one: record one with `make "
                         "regress-baseline` there; or --force to compare anyway)",
                      A->fingerprint, B->fingerprint);
    }
    return 0;
}

/* The keys of both runs paired, stable pairs first, the unstable ones apart;
 * *only_new counts the new run's keys the base lacks.  Returns the pairs. */
static int compare_pairs(runset *A, runset *B, pair *P, int *only_new)
{
    int np = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < B->n; i++) {
            row *b = &B->rows[i], *a = NULL;
            for (int j = 0; j < A->n && !a; j++)
                if (!strcmp(A->rows[j].key, b->key))
                    a = &A->rows[j];
            if (!a) {
                *only_new += pass == 0;
                continue;
            }
            int unst = !strcmp(a->status, "unstable") || !strcmp(b->status, "unstable") ||
                       a->nt < 3 || b->nt < 3;
            if (unst != pass)
                continue;
            if (a->nt >= 1 && b->nt >= 1) {
                a->median = stat_of(a);
                b->median = stat_of(b);
            }
            P[np++] = (pair){a, b, unst, b->median / a->median, 1.0};
        }
    return np;
}

/* The drift each key is divided by; returns the median ratio over every
 * stable key (0: fewer than 3), *nall their count. */
static double compare_drift(const runset *A, const runset *B, pair *P, int np, int normalize,
                            int *nall)
{
    double *buf = malloc(sizeof *buf * (size_t)(np ? np : 1));
    *nall = 0;
    for (int i = 0; i < np; i++)
        if (!P[i].unst)
            buf[(*nall)++] = P[i].raw;
    double global = *nall >= 3 ? median(buf, *nall) : 0;
    for (int i = 0; i < np; i++) {
        row *b = P[i].b;
        if (normalize == NORM_COMMON) {
            int ng = 0;
            for (int j = 0; j < np; j++)
                if (!P[j].unst && !strcmp(P[j].b->problem, b->problem))
                    buf[ng++] = P[j].raw;
            if (ng >= 3)
                P[i].drift = median(buf, ng);
            else if (global > 0)
                P[i].drift = global;
        }
        /* bandwidth drift explains the time of memory-bound calls only: cold N = 1 */
        if (normalize != NORM_NONE && P[i].drift == 1.0 && b->cold && b->n == 1 &&
            b->threads <= 64 && A->bw[b->threads] > 0 && B->bw[b->threads] > 0)
            P[i].drift = A->bw[b->threads] / B->bw[b->threads];
    }
    free(buf);
    return global;
}

/* One line per pair with its decision; counts[4]: regressions, improvements,
 * same, unstable. */
static void compare_print(mp_format fmt, const pair *P, int np, double thr, int *counts)
{
    mp_rng rng = {12345};
    const double up = 1.0 + thr / 100.0, down = 1.0 / up;
    if (fmt == MP_FMT_CSV)
        puts("key,base_us,new_us,drift,ratio,ci_lo,ci_hi,decision");
    else if (fmt == MP_FMT_MD)
        puts("| key | base µs | new µs | drift | ratio | 95% CI | decision |\n|---|--:|--:|--:|--:|---|---|");
    else
        printf("%-52s %10s %10s %6s %7s %17s  %s\n", "key", "base_us", "new_us", "drift",
               "ratio", "95% interval", "decision");
    for (int i = 0; i < np; i++) {
        const row *a = P[i].a, *b = P[i].b;
        double drift = P[i].drift, ratio = P[i].raw / drift, lo = ratio, hi = ratio;
        const char *dec;
        if (P[i].unst) {
            dec = "unstable: not judged";
            counts[3]++;
        } else {
            boot_ratio(a, b, &rng, &lo, &hi);
            lo /= drift, hi /= drift;
            if (lo > up)
                dec = "REGRESSION", counts[0]++;
            else if (hi < down)
                dec = "improvement", counts[1]++;
            else
                dec = "same", counts[2]++;
        }
        if (fmt == MP_FMT_CSV)
            printf("\"%s\",%.3f,%.3f,%.4f,%.4f,%.4f,%.4f,%s\n", b->key, a->median, b->median,
                   drift, ratio, lo, hi, dec);
        else if (fmt == MP_FMT_MD)
            printf("| %s | %.1f | %.1f | %.3f | %.3f | [%.3f, %.3f] | %s |\n", b->key, a->median,
                   b->median, drift, ratio, lo, hi, dec);
        else
            printf("%-52s %10.1f %10.1f %6.3f %7.3f  [%6.3f, %6.3f]  %s\n", b->key, a->median,
                   b->median, drift, ratio, lo, hi, dec);
    }
}

/* The common shifts, never hidden: a change that slows every kernel alike looks like drift. */
static void compare_shift(const runset *A, const runset *B, const pair *P, int np, double global,
                          int nall, double thr)
{
    const double up = 1.0 + thr / 100.0, down = 1.0 / up;
    double lo = 1e300, hi = 0;
    for (int i = 0; i < np; i++)
        if (!P[i].unst) {
            lo = P[i].drift < lo ? P[i].drift : lo;
            hi = P[i].drift > hi ? P[i].drift : hi;
        }
    char bw[160] = "";
    for (int t = 1; t <= 64; t++)
        if (A->bw[t] > 0 && B->bw[t] > 0) {
            size_t u = strlen(bw);
            snprintf(bw + u, sizeof bw - u, "%s%d thread%s %.1f -> %.1f GB/s", u ? ", " : "",
                     t, t > 1 ? "s" : "", A->bw[t], B->bw[t]);
        }
    fprintf(stderr, "mpbench: common shift new/base: median %.3f over %d keys, per problem "
                    "%.3f .. %.3f%s%s%s\n", global, nall, lo, hi, bw[0] ? " (read bandwidth " : "",
            bw, bw[0] ? ")" : "");
    if (hi > up || lo < down)
        fprintf(stderr, "mpbench: note: whole problems moved by more than %.0f%% together; "
                        "judged relative to that shift, as a busier or different machine "
                        "would.  A change that slows every kernel alike is not caught this "
                        "way: compare with --normalize none on a quiet machine to see it.\n",
                thr);
}

int mp_cmd_compare(int argc, char **argv)
{
    compare_opts o = {.thr = 15.0, .q = 0.5, .normalize = "common", .fmt = MP_FMT_TABLE};
    mp_opts_out po;
    runset A, B;
    int rc, only_base = 0, only_new = 0, nall, c[4] = {0};
    if ((rc = mp_opts_parse(&compare_spec, argc, argv, &o, &po)) || po.help)
        return rc;
    int normalize = o.no_normalize || !strcmp(o.normalize, "none") ? NORM_NONE
                    : !strcmp(o.normalize, "bw")                   ? NORM_BW
                                                                   : NORM_COMMON;
    g_q = o.q;
    if ((rc = compare_load(&o, &A, &B)))
        return rc;
    pair *P = malloc(sizeof *P * (size_t)(B.n ? B.n : 1));
    int np = compare_pairs(&A, &B, P, &only_new);
    double global = compare_drift(&A, &B, P, np, normalize, &nall);
    compare_print(o.fmt, P, np, o.thr, c);
    if (normalize == NORM_COMMON && global > 0)
        compare_shift(&A, &B, P, np, global, nall, o.thr);
    free(P);
    for (int j = 0; j < A.n; j++) {
        int found = 0;
        for (int i = 0; i < B.n && !found; i++)
            found = !strcmp(A.rows[j].key, B.rows[i].key);
        only_base += !found;
    }
    char qs[16] = "";
    if (g_q != 0.5)
        snprintf(qs, sizeof qs, "%g", g_q * 100);
    fprintf(stderr,
            "mpbench: compare %s (run %lld) -> %s (run %lld), %s%s, threshold %.0f%%: %d regressions, "
            "%d improvements, %d unchanged, %d unstable (not judged); %d keys only in base, %d "
            "only in new\n",
            A.path, A.run_id, B.path, B.run_id, g_q == 0.5 ? "median" : "p", qs, o.thr, c[0],
            c[1], c[2], c[3], only_base, only_new);
    free_runset(&A);
    free_runset(&B);
    if (!np)
        return mp_die(2, "compare: the two runs have no result in common: nothing was compared");
    if (!c[0] && !c[1] && !c[2]) /* every common key unstable: no verdict is a pass */
        return mp_die(1, "compare: judged nothing: all %d common keys are unstable in %s or %s",
                      c[3], A.path, B.path);
    return c[0] ? mp_die(1, "%d regression%s beyond %.0f%%", c[0], c[0] > 1 ? "s" : "", o.thr)
                : 0;
}
