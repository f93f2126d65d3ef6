/* report-data.c - the store, read for `mpbench report` and `mpbench plot` (see
 * mp_report.h).  A report is about one machine: results from other machines
 * (merged databases) are never mixed into its tables.  Of repeated measurements
 * of the same key the newest row wins, so re-running a point updates reports. */
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_report.h"
#include "../variants/mp_registry.h"

static void copy_col(sqlite3_stmt *st, int i, char *dst, size_t len)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    snprintf(dst, len, "%s", t ? (const char *)t : "");
}

int mp_rep_has_table(mp_rep *r, const char *name)
{
    sqlite3_stmt *st;
    int found = 0;
    if (sqlite3_prepare_v2(r->db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

static int load_machine(mp_rep *r, const char *want, mp_err *e)
{
    sqlite3_stmt *st;
    const char *sql =
        want ? "SELECT id,fingerprint,cpu_model,isa_flags,caches_note,hypervisor,cores,pus,"
               "mem_gib,l1d_kib,l2_kib,l3_kib FROM machines WHERE fingerprint LIKE ?1||'%' "
               "ORDER BY fingerprint=?1 DESC, id"
             : "SELECT m.id,m.fingerprint,m.cpu_model,m.isa_flags,m.caches_note,m.hypervisor,"
               "m.cores,m.pus,m.mem_gib,m.l1d_kib,m.l2_kib,m.l3_kib FROM machines m "
               "LEFT JOIN runs u ON u.machine_id=m.id ORDER BY u.id IS NULL, u.id DESC, m.id "
               "DESC";
    if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
        return mp_fail(e, MP_EUSAGE, "--db %s: no machines table (%s)", r->db_path,
                       sqlite3_errmsg(r->db));
    if (want)
        sqlite3_bind_text(st, 1, want, -1, SQLITE_TRANSIENT);
    int n = 0, exact = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (n++)
            break;
        /* a whole fingerprint is never ambiguous, even when it prefixes another
         * (a tagged machine: MPBENCH_MACHINE_TAG) */
        exact = want && !strcmp((const char *)sqlite3_column_text(st, 1), want);
        mp_rep_machine *m = &r->mach;
        m->id = sqlite3_column_int64(st, 0);
        copy_col(st, 1, m->fingerprint, sizeof m->fingerprint);
        copy_col(st, 2, m->cpu_model, sizeof m->cpu_model);
        copy_col(st, 3, m->isa_flags, sizeof m->isa_flags);
        copy_col(st, 4, m->caches_note, sizeof m->caches_note);
        copy_col(st, 5, m->hypervisor, sizeof m->hypervisor);
        m->cores = sqlite3_column_int(st, 6);
        m->pus = sqlite3_column_int(st, 7);
        m->mem_gib = sqlite3_column_int(st, 8);
        m->l1d_kib = sqlite3_column_int(st, 9);
        m->l2_kib = sqlite3_column_int(st, 10);
        m->l3_kib = sqlite3_column_int(st, 11);
    }
    sqlite3_finalize(st);
    if (!n)
        return want ? mp_fail(e, MP_EUSAGE, "--machine %s: no machine in %s has this fingerprint",
                              want, r->db_path)
                    : mp_fail(e, MP_EUSAGE, "--db %s: no machine recorded yet (run 'mpbench "
                                            "probe' or 'mpbench run' first)", r->db_path);
    if (want && n > 1 && !exact)
        return mp_fail(e, MP_EUSAGE, "--machine %s: more than one machine in %s matches; give "
                                     "more of the fingerprint", want, r->db_path);
    return MP_OK;
}

/* Is params the variant's default setting?  Unknown variants (built elsewhere)
 * and parameterless ones count as default. */
int mp_rep_params_default(const char *variant, const char *params)
{
    const mp_variant *v = mp_registry_find(variant);
    if (!v || !v->n_params)
        return 1;
    int def[MP_MAX_PARAMS];
    char buf[256];
    mp_variant_defaults(v, def);
    mp_params_str(v, def, buf, sizeof buf);
    return !strcmp(buf, params);
}

static int load_results(mp_rep *r, mp_err *e)
{
    sqlite3_stmt *st;
    const char *sql =
        "SELECT x.id,x.run_id,x.variant,ifnull(x.method,''),ifnull(x.family,''),"
        "ifnull(x.isa,''),x.params,ifnull(x.cache_mode,'cold'),ifnull(x.status,''),"
        "ifnull(x.reason,''),x.m,x.k,x.n,x.threads,x.bpw,x.median_us,x.gbps,x.gops,"
        "x.max_rel_err,x.packed_bytes FROM results x WHERE x.id IN (SELECT max(y.id) FROM "
        "results y JOIN runs u ON y.run_id=u.id WHERE u.machine_id=? GROUP BY y.variant,"
        "y.params,y.m,y.k,y.n,y.threads,y.cache_mode) ORDER BY x.id";
    if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
        return mp_fail(e, MP_EUSAGE, "--db %s: cannot read results (%s)", r->db_path,
                       sqlite3_errmsg(r->db));
    sqlite3_bind_int64(st, 1, r->mach.id);
    int cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (r->nrows == cap) {
            cap = cap ? 2 * cap : 256;
            r->rows = realloc(r->rows, sizeof *r->rows * (size_t)cap);
        }
        mp_rep_row *x = &r->rows[r->nrows++];
        memset(x, 0, sizeof *x);
        x->id = sqlite3_column_int64(st, 0);
        x->run_id = sqlite3_column_int64(st, 1);
        copy_col(st, 2, x->variant, sizeof x->variant);
        copy_col(st, 3, x->method, sizeof x->method);
        copy_col(st, 4, x->family, sizeof x->family);
        copy_col(st, 5, x->isa, sizeof x->isa);
        copy_col(st, 6, x->params, sizeof x->params);
        copy_col(st, 7, x->cache, sizeof x->cache);
        copy_col(st, 8, x->status, sizeof x->status);
        copy_col(st, 9, x->reason, sizeof x->reason);
        x->m = sqlite3_column_int(st, 10);
        x->k = sqlite3_column_int(st, 11);
        x->n = sqlite3_column_int(st, 12);
        x->threads = sqlite3_column_int(st, 13);
        x->bpw = sqlite3_column_double(st, 14);
        x->median_us = sqlite3_column_double(st, 15);
        x->gbps = sqlite3_column_double(st, 16);
        x->gops = sqlite3_column_double(st, 17);
        x->max_rel_err = sqlite3_column_type(st, 18) == SQLITE_NULL ? NAN
                                                                    : sqlite3_column_double(st, 18);
        x->packed_bytes = sqlite3_column_int64(st, 19);
        x->is_default = mp_rep_params_default(x->variant, x->params);
    }
    sqlite3_finalize(st);
    return MP_OK;
}

/* The newest full probe (`mpbench probe`, run kind 'probe') of the machine; else
 * the newest probe rows of any run (`sweep --probe-bw` stores only read_DRAM). */
static void load_probe(mp_rep *r)
{
    sqlite3_stmt *st;
    if (!mp_rep_has_table(r, "probe") ||
        sqlite3_prepare_v2(r->db, "SELECT p.run_id FROM probe p JOIN runs u ON p.run_id=u.id "
                                  "WHERE u.machine_id=? ORDER BY u.kind='probe' DESC, p.run_id "
                                  "DESC LIMIT 1", -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(st, 1, r->mach.id);
    if (sqlite3_step(st) == SQLITE_ROW)
        r->probe_run = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (!r->probe_run || sqlite3_prepare_v2(r->db, "SELECT kind, threads, bytes, value, "
                                                   "ifnull(unit,'') FROM probe WHERE run_id=? "
                                                   "ORDER BY id", -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(st, 1, r->probe_run);
    while (r->nprobe < 256 && sqlite3_step(st) == SQLITE_ROW) {
        mp_probe_row *p = &r->probe[r->nprobe++];
        copy_col(st, 0, p->kind, sizeof p->kind);
        p->threads = sqlite3_column_int(st, 1);
        p->bytes = sqlite3_column_int64(st, 2);
        p->value = sqlite3_column_double(st, 3);
        copy_col(st, 4, p->unit, sizeof p->unit);
    }
    sqlite3_finalize(st);
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
        return mp_fail(e, MP_EUSAGE, "--db %s: not a regular file", db_path);
    if (sb.st_size == 0)
        return mp_fail(e, MP_EUSAGE, "--db %s: empty file, not an mpbench database; left untouched",
                       db_path);
    int rc = mp_store_open(db_path, &r->store, e);
    if (rc)
        return rc;
    r->db = mp_store_db(r->store);
    if ((rc = load_machine(r, machine, e)) || (rc = load_results(r, e))) {
        mp_rep_close(r);
        return rc;
    }
    load_probe(r);
    return MP_OK;
}

void mp_rep_close(mp_rep *r)
{
    mp_store_close(r->store);
    free(r->rows);
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

int mp_rep_distinct_int(const mp_rep *r, int col, mp_rep_filter f, const void *ctx, int *out,
                        int max)
{
    int n = 0;
    for (int i = 0; i < r->nrows; i++) {
        const mp_rep_row *x = &r->rows[i];
        if (strcmp(x->cache, r->cache) || (f && !f(x, ctx)))
            continue;
        int v = col == MP_REP_N ? x->n : x->threads, j;
        for (j = 0; j < n && out[j] != v; j++)
            ;
        if (j == n && n < max)
            out[n++] = v;
    }
    qsort(out, (size_t)n, sizeof *out, cmp_int);
    return n;
}

int mp_rep_distinct_shapes(const mp_rep *r, mp_rep_filter f, const void *ctx, int (*out)[2],
                           int max)
{
    int n = 0;
    for (int i = 0; i < r->nrows; i++) {
        const mp_rep_row *x = &r->rows[i];
        if (strcmp(x->cache, r->cache) || (f && !f(x, ctx)))
            continue;
        int j;
        for (j = 0; j < n && (out[j][0] != x->m || out[j][1] != x->k); j++)
            ;
        if (j == n && n < max) {
            out[n][0] = x->m;
            out[n][1] = x->k;
            n++;
        }
    }
    return n;
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
    for (int i = 0; i < r->nrows; i++) {
        const mp_rep_row *x = &r->rows[i];
        if (strcmp(x->cache, r->cache) || (f && !f(x, ctx)))
            continue;
        int j;
        for (j = 0; j < n && strcmp(out[j], x->variant); j++)
            ;
        if (j == n && n < max)
            out[n++] = x->variant;
    }
    sort_ctx = r;
    qsort(out, (size_t)n, sizeof *out, cmp_variant);
    return n;
}

double mp_rep_probe(const mp_rep *r, const char *kind_prefix, int threads, int *got_threads)
{
    int best = -1;
    size_t pl = strlen(kind_prefix);
    for (int i = 0; i < r->nprobe; i++) {
        const mp_probe_row *p = &r->probe[i];
        if (strncmp(p->kind, kind_prefix, pl))
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
