/* cli-compare.c - `mpbench compare`: regression tracking between two runs.
 *
 * Per (variant, params, shape, n, threads, cache mode) present in both runs, the
 * ratio of medians new/base with a 95% bootstrap interval from the stored
 * repetition times.  When both runs stored their own DRAM read bandwidth
 * (sweep --probe-bw), the ratio of a memory-bound key (cold cache, N = 1) is
 * multiplied by bw_new/bw_base, cancelling a machine whose memory is faster or
 * slower today; compute-bound keys are compared as measured.  A key is a regression when
 * the whole interval lies above 1 + threshold, an improvement when it lies below
 * 1/(1 + threshold); both are always printed.  Results marked unstable in either
 * run are listed apart and never fail the gate.  Runs of different machines are
 * refused unless forced; two runs with nothing in common fail loudly. */
#include <getopt.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mp_cli.h"
#include "mp_harness.h"
#include "../kernels/common/mp_numerics.h"

typedef struct row {
    char key[256];
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

static void free_runset(runset *r)
{
    for (int i = 0; i < r->n; i++)
        free(r->rows[i].t);
    free(r->rows);
}

/* "PATH" (its newest run with results) or "PATH:RUN_ID". */
static int load(const char *spec, const char *what, runset *out, mp_err *e)
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
    if (stat(out->path, &st) != 0 || !S_ISREG(st.st_mode))
        return mp_fail(e, MP_EUSAGE, "%s %s: no such database file", what, out->path);
    sqlite3 *db;
    if (sqlite3_open_v2(out->path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return mp_fail(e, MP_EUSAGE, "%s %s: cannot open", what, out->path);
    }
    sqlite3_stmt *q;
    int rc = MP_OK;
    if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key='schema_version'", -1, &q,
                           NULL) != SQLITE_OK || sqlite3_step(q) != SQLITE_ROW) {
        sqlite3_finalize(q);
        sqlite3_close(db);
        return mp_fail(e, MP_EUSAGE, "%s %s: not an mpbench database", what, out->path);
    }
    sqlite3_finalize(q);
    if (!out->run_id) {
        if (sqlite3_prepare_v2(db, "SELECT max(run_id) FROM results", -1, &q, NULL) == SQLITE_OK &&
            sqlite3_step(q) == SQLITE_ROW)
            out->run_id = sqlite3_column_int64(q, 0);
        sqlite3_finalize(q);
        if (!out->run_id) {
            sqlite3_close(db);
            return mp_fail(e, MP_EUSAGE, "%s %s: has no results", what, out->path);
        }
    }
    if (sqlite3_prepare_v2(db, "SELECT m.fingerprint FROM runs r JOIN machines m ON "
                               "r.machine_id=m.id WHERE r.id=?", -1, &q, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(q, 1, out->run_id);
        if (sqlite3_step(q) == SQLITE_ROW)
            snprintf(out->fingerprint, sizeof out->fingerprint, "%s",
                     (const char *)sqlite3_column_text(q, 0));
        else
            rc = mp_fail(e, MP_EUSAGE, "%s %s: no run %lld", what, out->path, out->run_id);
        sqlite3_finalize(q);
    }
    if (!rc && sqlite3_prepare_v2(db, "SELECT threads, value FROM probe WHERE run_id=? AND "
                                      "kind='read_DRAM'", -1, &q, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(q, 1, out->run_id);
        while (sqlite3_step(q) == SQLITE_ROW) {
            int t = sqlite3_column_int(q, 0);
            if (t >= 1 && t <= 64)
                out->bw[t] = sqlite3_column_double(q, 1);
        }
        sqlite3_finalize(q);
    }
    if (!rc && sqlite3_prepare_v2(db,
                                  "SELECT variant, params, m, k, n, threads, cache_mode, status,"
                                  " median_us, times_us FROM results WHERE run_id=? AND"
                                  " status IN ('ok','unstable') ORDER BY id",
                                  -1, &q, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(q, 1, out->run_id);
        int cap = 0;
        while (sqlite3_step(q) == SQLITE_ROW) {
            if (out->n == cap) {
                cap = cap ? 2 * cap : 64;
                out->rows = realloc(out->rows, sizeof *out->rows * (size_t)cap);
            }
            row *r = &out->rows[out->n++];
            memset(r, 0, sizeof *r);
            snprintf(r->variant, sizeof r->variant, "%s", (const char *)sqlite3_column_text(q, 0));
            snprintf(r->params, sizeof r->params, "%s", (const char *)sqlite3_column_text(q, 1));
            r->m = sqlite3_column_int(q, 2), r->k = sqlite3_column_int(q, 3);
            r->n = sqlite3_column_int(q, 4), r->threads = sqlite3_column_int(q, 5);
            snprintf(r->key, sizeof r->key, "%s%s%s%s %dx%d n=%d t=%d %s", r->variant,
                     r->params[0] ? "[" : "", r->params, r->params[0] ? "]" : "",
                     r->m, r->k, r->n, r->threads, (const char *)sqlite3_column_text(q, 6));
            snprintf(r->status, sizeof r->status, "%s", (const char *)sqlite3_column_text(q, 7));
            r->cold = !strcmp((const char *)sqlite3_column_text(q, 6), "cold");
            r->median = sqlite3_column_double(q, 8);
            const char *ts = (const char *)sqlite3_column_text(q, 9);
            size_t len = ts ? strlen(ts) : 0;
            char *copy = malloc(len + 1);
            memcpy(copy, ts ? ts : "", len + 1);
            r->t = malloc(sizeof(double) * (len / 2 + 1));
            char *save = NULL;
            for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
                r->t[r->nt++] = strtod(tok, NULL);
            free(copy);
        }
        sqlite3_finalize(q);
    }
    sqlite3_close(db);
    return rc;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* 95% percentile-bootstrap interval of median(b)/median(a). */
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
        r[i] = median(rb, b->nt) / median(ra, a->nt);
    }
    qsort(r, B, sizeof *r, cmp_d);
    *lo = r[(int)(0.025 * B)];
    *hi = r[(int)(0.975 * B) - 1];
    free(ra);
    free(rb);
    free(r);
}

static void compare_usage(FILE *f)
{
    fputs("usage: mpbench compare --base DB[:RUN] --new DB[:RUN] [--threshold PCT]\n"
          "                       [--no-normalize] [--force] [--format table|md|csv]\n"
          "  Ratio of medians new/base per key with a 95% bootstrap interval; exit 1 if\n"
          "  any key is slower beyond the threshold (default 15%) with confidence.\n",
          f);
}

int mp_cmd_compare(int argc, char **argv)
{
    static const struct option opts[] = {
        {"base", required_argument, 0, 'b'},   {"new", required_argument, 0, 'n'},
        {"threshold", required_argument, 0, 't'}, {"no-normalize", no_argument, 0, 'N'},
        {"force", no_argument, 0, 'F'},        {"format", required_argument, 0, 'f'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    const char *base = NULL, *newp = NULL;
    double thr = 15.0;
    int normalize = 1, force = 0, c, rc;
    mp_format fmt = MP_FMT_TABLE;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'b': base = optarg; break;
        case 'n': newp = optarg; break;
        case 't':
            thr = strtod(optarg, &end);
            if (*end || thr < 0 || thr > 1000)
                return mp_die(2, "--threshold: '%s' is not a percentage", optarg);
            break;
        case 'N': normalize = 0; break;
        case 'F': force = 1; break;
        case 'f':
            if (mp_format_parse(optarg, &fmt) || fmt == MP_FMT_JSON)
                return mp_die(2, "--format: '%s' is not one of table, md, csv", optarg);
            break;
        case 'h': compare_usage(stdout); return 0;
        default:
            compare_usage(stderr);
            return mp_die(2, "compare: unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return mp_die(2, "compare: unexpected argument '%s'", argv[optind]);
    if (!base || !newp)
        return mp_die(2, "compare: --base and --new are required");
    runset A, B;
    mp_err e;
    if ((rc = load(base, "--base", &A, &e)))
        return mp_die(rc, "%s", e.msg);
    if ((rc = load(newp, "--new", &B, &e))) {
        free_runset(&A);
        return mp_die(rc, "%s", e.msg);
    }
    if (strcmp(A.fingerprint, B.fingerprint) && !force) {
        free_runset(&A);
        free_runset(&B);
        return mp_die(2, "compare: base ran on machine %s, new on %s: different machines are "
                         "not comparable (use --force to compare anyway)",
                      A.fingerprint, B.fingerprint);
    }
    mp_rng rng = {12345};
    int common = 0, regress = 0, improve = 0, same = 0, unstable = 0, only_base = 0, only_new = 0;
    const double up = 1.0 + thr / 100.0, down = 1.0 / up;
    if (fmt == MP_FMT_CSV)
        puts("key,base_us,new_us,drift,ratio,ci_lo,ci_hi,decision");
    else if (fmt == MP_FMT_MD)
        puts("| key | base µs | new µs | drift | ratio | 95% CI | decision |\n|---|--:|--:|--:|--:|---|---|");
    else
        printf("%-52s %10s %10s %6s %7s %17s  %s\n", "key", "base_us", "new_us", "drift",
               "ratio", "95% interval", "decision");
    for (int pass = 0; pass < 2; pass++) /* stable keys first, then the unstable ones apart */
        for (int i = 0; i < B.n; i++) {
            row *b = &B.rows[i], *a = NULL;
            for (int j = 0; j < A.n && !a; j++)
                if (!strcmp(A.rows[j].key, b->key))
                    a = &A.rows[j];
            if (!a) {
                only_new += pass == 0;
                continue;
            }
            int unst = !strcmp(a->status, "unstable") || !strcmp(b->status, "unstable") ||
                       a->nt < 3 || b->nt < 3;
            if (unst != pass)
                continue;
            common++;
            double drift = 1.0;
            /* bandwidth drift explains the time of memory-bound calls only: cold N = 1 */
            if (normalize && b->cold && b->n == 1 && b->threads <= 64 && A.bw[b->threads] > 0 &&
                B.bw[b->threads] > 0)
                drift = B.bw[b->threads] / A.bw[b->threads];
            double ratio = b->median / a->median * drift, lo = ratio, hi = ratio;
            const char *dec;
            if (unst) {
                dec = "unstable: not judged";
                unstable++;
            } else {
                boot_ratio(a, b, &rng, &lo, &hi);
                lo *= drift, hi *= drift;
                if (lo > up)
                    dec = "REGRESSION", regress++;
                else if (hi < down)
                    dec = "improvement", improve++;
                else
                    dec = "same", same++;
            }
            if (fmt == MP_FMT_CSV)
                printf("\"%s\",%.3f,%.3f,%.4f,%.4f,%.4f,%.4f,%s\n", b->key, a->median, b->median,
                       drift, ratio, lo, hi, dec);
            else if (fmt == MP_FMT_MD)
                printf("| %s | %.1f | %.1f | %.3f | %.3f | [%.3f, %.3f] | %s |\n", b->key,
                       a->median, b->median, drift, ratio, lo, hi, dec);
            else
                printf("%-52s %10.1f %10.1f %6.3f %7.3f  [%6.3f, %6.3f]  %s\n", b->key, a->median,
                       b->median, drift, ratio, lo, hi, dec);
        }
    for (int j = 0; j < A.n; j++) {
        int found = 0;
        for (int i = 0; i < B.n && !found; i++)
            found = !strcmp(A.rows[j].key, B.rows[i].key);
        only_base += !found;
    }
    fprintf(stderr,
            "mpbench: compare %s (run %lld) -> %s (run %lld), threshold %.0f%%: %d regressions, "
            "%d improvements, %d unchanged, %d unstable (not judged); %d keys only in base, %d "
            "only in new\n",
            A.path, A.run_id, B.path, B.run_id, thr, regress, improve, same, unstable, only_base,
            only_new);
    free_runset(&A);
    free_runset(&B);
    if (!common)
        return mp_die(2, "compare: the two runs have no result in common: nothing was compared");
    return regress ? mp_die(1, "%d regression%s beyond %.0f%%", regress, regress > 1 ? "s" : "", thr)
                   : 0;
}
