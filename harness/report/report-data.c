/* report-data.c - what `mpbench report` and `mpbench plot` share (see
 * mp_report.h): the machine's newest results and probe, loaded through the
 * store's typed readers (store-report.c), and the choices made over them (which
 * row a table cell shows, distinct axes, probe lookups).  No SQL here. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../store/mp_store_internal.h"
#include "mp_report.h"
#include "../../variants/mp_registry.h"

/* Is params the variant's default setting on the machine that measured it
 * (the catalog's, or a per-CPU prefetch line's: the same answer wherever the
 * report is made)?  Unknown variants (built elsewhere) and parameterless ones
 * count as default. */
int mp_rep_params_default(const char *variant, const char *params)
{
    const mp_variant *v = mp_registry_find(variant);
    if (!v || !v->n_params)
        return 1;
    int p[MP_MAX_PARAMS];
    char why[256], canon[256];
    if (mp_params_parse(v, params, p, why, sizeof why))
        return 0;
    /* as stored (mp_params_str): an old spelling is not a row of this schema */
    mp_params_str(v, p, canon, sizeof canon);
    return !strcmp(canon, params) && mp_variant_default_somewhere(v, p);
}

/* Copies src to dst (created or truncated); MP_EIO naming src on failure. */
static int copy_file(const char *src, const char *dst, mp_err *e, int must_exist)
{
    FILE *in = fopen(src, "rb");
    if (!in)
        return must_exist ? mp_fail(e, MP_EUSAGE, "--db %s: cannot read (%s)", src,
                                    strerror(errno))
                          : MP_OK;
    FILE *out = fopen(dst, "wb");
    if (!out) {
        fclose(in);
        return mp_fail(e, MP_EIO, "--db %s: cannot copy to %s (%s)", src, dst, strerror(errno));
    }
    char buf[1 << 16];
    size_t n;
    int bad = 0;
    int err = 0;
    while (!bad && (n = fread(buf, 1, sizeof buf, in)) > 0)
        if ((bad = fwrite(buf, 1, n, out) != n))
            err = errno;
    bad |= ferror(in);
    fclose(in);
    if (fclose(out) != 0 && !err)
        bad = 1, err = errno;
    return bad ? mp_fail(e, MP_EIO, "--db %s: copying to %s failed: %s", src, dst,
                         err ? strerror(err) : "read error")
               : MP_OK;
}

int mp_rep_open(const char *db_path, const char *machine, mp_rep *r, mp_err *e)
{
    memset(r, 0, sizeof *r);
    r->db_path = db_path;
    r->cache = "cold";
    struct stat sb;
    if (!db_path || !*db_path)
        return mp_fail(e, MP_EUSAGE, "--db: empty path");
    if (stat(db_path, &sb) != 0)
        return mp_fail(e, MP_EUSAGE, "--db %s: no such database (run 'mpbench run', 'sweep' or "
                                     "'probe' first)", db_path);
    if (!S_ISREG(sb.st_mode))
        return mp_fail(e, MP_EIO, "--db %s: %s", db_path,
                       S_ISDIR(sb.st_mode) ? "is a directory, not a database file"
                                           : "not a regular file");
    if (sb.st_size == 0)
        return mp_fail(e, MP_EIO, "--db %s: empty file, not an mpbench database; left untouched",
                       db_path);
    /* Issue 16: a report never writes its database (the committed
     * results/report.db must stay byte for byte what was committed, and opening
     * a store switches it to WAL and migrates it to this build's schema), so it
     * reads a private copy, removed on close. */
    snprintf(r->copy, sizeof r->copy, "/tmp/mpbench-report-XXXXXX");
    int fd = mkstemp(r->copy);
    if (fd < 0)
        return mp_fail(e, MP_EUSAGE, "--db %s: cannot make a temporary copy (%s)", db_path,
                       strerror(errno));
    close(fd);
    if (copy_file(db_path, r->copy, e, 1)) {
        unlink(r->copy);
        r->copy[0] = 0;
        return MP_EIO;
    }
    char wal[4200], wal_copy[4200];
    snprintf(wal, sizeof wal, "%s-wal", db_path);
    snprintf(wal_copy, sizeof wal_copy, "%s-wal", r->copy);
    if (stat(wal, &sb) == 0 && copy_file(wal, wal_copy, e, 0)) {
        mp_rep_close(r);
        return MP_EIO;
    }
    int rc = mp_store_open(r->copy, &r->store, e);
    if (rc) {
        /* name the user's file, not the copy */
        char msg[sizeof e->msg];
        snprintf(msg, sizeof msg, "%s", e->msg);
        char *at = strstr(msg, r->copy);
        if (at)
            snprintf(e->msg, sizeof e->msg, "%.*s%s%s", (int)(at - msg), msg, db_path,
                     at + strlen(r->copy));
        mp_rep_close(r);
        return rc;
    }
    if ((rc = mp_store_rep_machine(r->store, db_path, machine, &r->mach, e)) ||
        (rc = mp_store_rep_results(r->store, db_path, r->mach.id, &r->rows, &r->nrows, e))) {
        mp_rep_close(r);
        return rc;
    }
    for (int i = 0; i < r->nrows; i++)
        r->rows[i].is_default = mp_rep_params_default(r->rows[i].variant, r->rows[i].params);
    if (!(r->probe = calloc(MP_REP_MAX_PROBE, sizeof *r->probe))) {
        mp_rep_close(r);
        return mp_fail(e, MP_EIO, "report: out of memory");
    }
    r->nprobe = mp_store_rep_probe(r->store, r->mach.id, r->probe, MP_REP_MAX_PROBE,
                                   &r->probe_run);
    return MP_OK;
}

void mp_rep_close(mp_rep *r)
{
    mp_store_close(r->store);
    if (r->copy[0]) {
        static const char *const sfx[] = {"", "-wal", "-shm", "-journal"};
        for (int i = 0; i < 4; i++) {
            char p[4200];
            snprintf(p, sizeof p, "%s%s", r->copy, sfx[i]);
            unlink(p);
        }
    }
    free(r->rows);
    free(r->probe);
    memset(r, 0, sizeof *r);
}

static int status_rank(const char *s)
{
    return !strcmp(s, "ok") ? 0 : !strcmp(s, "unstable") ? 1 : !strcmp(s, "failed") ? 2 : 3;
}

const mp_rep_row *mp_rep_pick(const mp_rep *r, const char *variant, int m, int k, int n,
                              int threads)
{
    const mp_rep_row *best = NULL;
    for (int i = 0; i < r->nrows; i++) {
        const mp_rep_row *x = &r->rows[i];
        if (x->m != m || x->k != k || x->n != n || x->threads != threads ||
            strcmp(x->cache, r->cache) || strcmp(x->variant, variant))
            continue;
        if (!best || x->is_default > best->is_default ||
            (x->is_default == best->is_default &&
             (status_rank(x->status) < status_rank(best->status) ||
              (status_rank(x->status) == status_rank(best->status) && x->id > best->id))))
            best = x;
    }
    return best;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

const mp_rep_row *mp_rep_next(const mp_rep *r, int *i, mp_rep_filter f, const void *ctx)
{
    while (*i < r->nrows) {
        const mp_rep_row *x = &r->rows[(*i)++];
        if (!strcmp(x->cache, r->cache) && (!f || f(x, ctx)))
            return x;
    }
    return NULL;
}

void mp_rep_ints_add(int *v, int *n, int max, int x)
{
    int j;
    for (j = 0; j < *n && v[j] != x; j++)
        ;
    if (j == *n && *n < max)
        v[(*n)++] = x;
}

int mp_rep_e2e_reads_match(const mp_rep_e2e *a, const mp_rep_e2e *b)
{
    double x = a->bw_row_gbs, y = b->bw_row_gbs;
    if (!(x > 0) || !(y > 0))
        return 1;
    return (x > y ? x / y : y / x) <= MP_REP_READS_APART;
}

int mp_rep_strs_add(const char **v, int *n, int max, const char *s)
{
    int j;
    for (j = 0; j < *n && strcmp(v[j], s); j++)
        ;
    if (j < *n)
        return j;
    if (*n == max)
        return -1;
    v[(*n)++] = s;
    return j;
}

void mp_rep_ints_sort(int *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_int);
}

enum { SHAPE = -1 }; /* distinct's col for (M, K) */

/* The distinct keys of the rows kept (r's cache, passing f) in order of first
 * appearance, at most max: nk ints each, N or threads (col), or M and K. */
static int distinct(const mp_rep *r, int col, int nk, mp_rep_filter f, const void *ctx, int *out,
                    int max)
{
    int n = 0;
    const mp_rep_row *x;
    for (int i = 0; (x = mp_rep_next(r, &i, f, ctx));) {
        int k[2] = {col == SHAPE ? x->m : col == MP_REP_N ? x->n : x->threads, x->k}, j;
        for (j = 0; j < n && memcmp(out + nk * j, k, sizeof(int) * (size_t)nk); j++)
            ;
        if (j == n && n < max)
            memcpy(out + nk * n++, k, sizeof(int) * (size_t)nk);
    }
    return n;
}

int mp_rep_distinct_int(const mp_rep *r, int col, mp_rep_filter f, const void *ctx, int *out,
                        int max)
{
    int n = distinct(r, col, 1, f, ctx, out, max);
    mp_rep_ints_sort(out, n);
    return n;
}

int mp_rep_distinct_shapes(const mp_rep *r, mp_rep_filter f, const void *ctx, int (*out)[2],
                           int max)
{
    return distinct(r, SHAPE, 2, f, ctx, &out[0][0], max);
}

static const mp_rep *sort_ctx;

static int method_of(const char *variant, char *buf, size_t len)
{
    for (int i = 0; i < sort_ctx->nrows; i++)
        if (!strcmp(sort_ctx->rows[i].variant, variant)) {
            snprintf(buf, len, "%s", sort_ctx->rows[i].method);
            return 1;
        }
    buf[0] = 0;
    return 0;
}

static int cmp_variant(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    char mx[32], my[32];
    method_of(x, mx, sizeof mx);
    method_of(y, my, sizeof my);
    int c = strcmp(mx, my);
    return c ? c : strcmp(x, y);
}

int mp_rep_distinct_variants(const mp_rep *r, mp_rep_filter f, const void *ctx,
                             const char **out, int max)
{
    int n = 0;
    const mp_rep_row *x;
    for (int i = 0; (x = mp_rep_next(r, &i, f, ctx));)
        mp_rep_strs_add(out, &n, max, x->variant);
    sort_ctx = r;
    qsort(out, (size_t)n, sizeof *out, cmp_variant);
    return n;
}

double mp_rep_probe(const mp_rep *r, const char *kind, int threads, int *got_threads)
{
    int best = -1;
    size_t pl = strlen(kind);
    /* "int8_dot_" names a family of kinds; "read_DRAM" one kind, not also
     * read_DRAM_pf and the other read methods */
    int prefix = pl && kind[pl - 1] == '_';
    for (int i = 0; i < r->nprobe; i++) {
        const mp_probe_row *p = &r->probe[i];
        if (prefix ? strncmp(p->kind, kind, pl) != 0 : strcmp(p->kind, kind) != 0)
            continue;
        if (best < 0) {
            best = i;
            continue;
        }
        int bt = r->probe[best].threads, pt = p->threads;
        /* exact, else the largest below, else the smallest above */
        int bscore = bt == threads ? INT_MAX : bt < threads ? bt : -bt;
        int pscore = pt == threads ? INT_MAX : pt < threads ? pt : -pt;
        if (pscore > bscore)
            best = i;
    }
    if (best < 0)
        return 0;
    if (got_threads)
        *got_threads = r->probe[best].threads;
    return r->probe[best].value;
}

const char *mp_rep_numerics(const char *variant)
{
    const mp_variant *v = mp_registry_find(variant);
    if (!v)
        return "unknown";
    return v->exactness == MP_LOSSLESS ? "lossless" : v->exactness == MP_LOSSY ? "lossy" : "float";
}

/* How close a stored ceiling (n, t) is to the one wanted (want_n, want_t):
 * the thread count first (exact, else the largest below, else the smallest
 * above), then N (exact, else the smallest above: more tokens per call reuse
 * each weight more, so its GOPS stands above the row's; else the largest
 * below).  Higher is closer. */
static long ceiling_score(int n, int t, int want_n, int want_t)
{
    long ts = t == want_t ? 3000000 : t < want_t ? 1000000 + t : 1000000 - t;
    long ns = n == want_n ? 300000 : n > want_n ? 200000 - n : 100000 + n;
    return ts * 1000000 + ns;
}

double mp_rep_ceiling(const mp_rep *r, const char *variant, int n, int threads, int *got_n,
                      int *got_threads)
{
    int best = -1;
    long best_score = 0;
    for (int i = 0; i < r->nprobe; i++) {
        const mp_probe_row *p = &r->probe[i];
        if (p->n <= 0 || strncmp(p->kind, "ceiling_", 8) || strcmp(p->kind + 8, variant) ||
            !(p->value > 0))
            continue;
        long sc = ceiling_score(p->n, p->threads, n, threads);
        if (best < 0 || sc > best_score)
            best = i, best_score = sc;
    }
    if (best < 0)
        return 0;
    if (got_n)
        *got_n = r->probe[best].n;
    if (got_threads)
        *got_threads = r->probe[best].threads;
    return r->probe[best].value;
}

double mp_rep_ceiling_legacy(const mp_rep *r, const char *variant)
{
    for (int i = 0; i < r->nprobe; i++)
        if (r->probe[i].n <= 0 && !strncmp(r->probe[i].kind, "ceiling_", 8) &&
            !strcmp(r->probe[i].kind + 8, variant))
            return r->probe[i].value;
    return 0;
}

int mp_rep_has_ceilings(const mp_rep *r)
{
    for (int i = 0; i < r->nprobe; i++)
        if (r->probe[i].n > 0 && !strncmp(r->probe[i].kind, "ceiling_", 8))
            return 1;
    return 0;
}

const char *mp_rep_scripts_dir(void)
{
    static char dir[4096];
    const char *env = getenv("MPBENCH_SCRIPTS");
    if (env && *env)
        return env;
    struct stat sb;
    if (stat("scripts/roofline.gp", &sb) == 0)
        return "scripts";
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 32);
    if (n > 0) {
        dir[n] = 0;
        char *slash = strrchr(dir, '/');
        if (slash) {
            strcpy(slash, "/scripts");
            char probe[4200];
            snprintf(probe, sizeof probe, "%s/roofline.gp", dir);
            if (stat(probe, &sb) == 0)
                return dir;
            /* build/mpbench -> ../scripts */
            *slash = 0;
            slash = strrchr(dir, '/');
            if (slash) {
                strcpy(slash, "/scripts");
                snprintf(probe, sizeof probe, "%s/roofline.gp", dir);
                if (stat(probe, &sb) == 0)
                    return dir;
            }
        }
    }
    return "scripts";
}

void mp_rep_table_head(FILE *f, const char *first, const char *const *cols, int n)
{
    fprintf(f, "| %s |", first);
    for (int i = 0; i < n; i++)
        fprintf(f, " %s |", cols[i]);
    fputs("\n|---|", f);
    for (int i = 0; i < n; i++)
        fputs("--:|", f);
    fputc('\n', f);
}

int mp_rep_body_method(const char *method)
{
    return strcmp(method, "F32") && strcmp(method, "LLAMACPP_F32");
}
