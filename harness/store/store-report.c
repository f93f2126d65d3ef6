/* store-report.c - the store read for `mpbench report` and `mpbench plot`
 * (mp_store_report.h).  A report is about one machine: results from other
 * machines (merged databases) are never mixed into its tables.  Of repeated
 * measurements of the same key the newest row wins, so re-running a point
 * updates reports.  Only reads; text read as NULL comes back as "". */
#include <math.h>
#include <stddef.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "mp_store_internal.h"
#include "mp_store_report.h"

/* One column of a SELECT read into a field of a row struct; a table of them,
 * in the order of the SELECT's columns, reads a row (read_row) instead of one
 * hand-written copy per column. */
typedef struct col {
    char kind;          /* 't' text (cut to the field), 'i' integer, 'd' double,
                         * 'n' double with NULL read as NAN */
    size_t off, size;   /* the field in the row struct */
} col;
#define COL(kind, type, field) {kind, offsetof(type, field), sizeof(((type *)0)->field)}

static void read_row(sqlite3_stmt *st, const col *c, int ncol, void *row)
{
    for (int i = 0; i < ncol; i++) {
        char *f = (char *)row + c[i].off;
        if (c[i].kind == 't') {
            mp_store_col_copy(st, i, f, c[i].size);
        } else if (c[i].kind == 'i') {
            if (c[i].size == sizeof(int)) {
                int v = sqlite3_column_int(st, i);
                memcpy(f, &v, sizeof v);
            } else {
                int64_t v = sqlite3_column_int64(st, i);
                memcpy(f, &v, sizeof v);
            }
        } else {
            double v = c[i].kind == 'n' && sqlite3_column_type(st, i) == SQLITE_NULL
                           ? NAN
                           : sqlite3_column_double(st, i);
            memcpy(f, &v, sizeof v);
        }
    }
}

int mp_store_rep_has_table(mp_store *s, const char *name)
{
    sqlite3_stmt *st =
        mp_store_prepare(s, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?");
    if (!st)
        return 0;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    int found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

int mp_store_rep_machine(mp_store *s, const char *db_path, const char *want, mp_rep_machine *m,
                         mp_err *e)
{
    sqlite3 *db = mp_store_db(s);
    sqlite3_stmt *st;
    const char *sql =
        want ? "SELECT id,fingerprint,cpu_model,isa_flags,caches_note,hypervisor,cores,pus,"
               "mem_gib,l1d_kib,l2_kib,l3_kib FROM machines WHERE fingerprint LIKE ?1||'%' "
               "ORDER BY fingerprint=?1 DESC, id"
             : "SELECT m.id,m.fingerprint,m.cpu_model,m.isa_flags,m.caches_note,m.hypervisor,"
               "m.cores,m.pus,m.mem_gib,m.l1d_kib,m.l2_kib,m.l3_kib FROM machines m "
               "LEFT JOIN runs u ON u.machine_id=m.id ORDER BY u.id IS NULL, u.id DESC, m.id "
               "DESC";
    if (!(st = mp_store_prepare(s, sql)))
        return mp_fail(e, MP_EUSAGE, "--db %s: no machines table (%s)", db_path,
                       sqlite3_errmsg(db));
    if (want)
        sqlite3_bind_text(st, 1, want, -1, SQLITE_TRANSIENT);
    int n = 0, exact = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (n++)
            break;
        /* a whole fingerprint is never ambiguous, even when it prefixes another
         * (a tagged machine: MPBENCH_MACHINE_TAG) */
        const unsigned char *fp = sqlite3_column_text(st, 1);
        exact = want && fp && !strcmp((const char *)fp, want);
        static const col cols[] = {
            COL('i', mp_rep_machine, id),          COL('t', mp_rep_machine, fingerprint),
            COL('t', mp_rep_machine, cpu_model),   COL('t', mp_rep_machine, isa_flags),
            COL('t', mp_rep_machine, caches_note), COL('t', mp_rep_machine, hypervisor),
            COL('i', mp_rep_machine, cores),       COL('i', mp_rep_machine, pus),
            COL('i', mp_rep_machine, mem_gib),     COL('i', mp_rep_machine, l1d_kib),
            COL('i', mp_rep_machine, l2_kib),      COL('i', mp_rep_machine, l3_kib)};
        read_row(st, cols, sizeof cols / sizeof cols[0], m);
    }
    sqlite3_finalize(st);
    if (!n)
        return want ? mp_fail(e, MP_EUSAGE, "--machine %s: no machine in %s has this fingerprint",
                              want, db_path)
                    : mp_fail(e, MP_EUSAGE, "--db %s: no machine recorded yet (run 'mpbench "
                                            "probe' or 'mpbench run' first)", db_path);
    if (want && n > 1 && !exact)
        return mp_fail(e, MP_EUSAGE, "--machine %s: more than one machine in %s matches; give "
                                     "more of the fingerprint", want, db_path);
    return MP_OK;
}

int mp_store_rep_results(mp_store *s, const char *db_path, int64_t machine_id, mp_rep_row **rows,
                         int *nrows, mp_err *e)
{
    sqlite3 *db = mp_store_db(s);
    sqlite3_stmt *st;
    const char *sql =
        "SELECT x.id,x.run_id,x.variant,ifnull(x.method,''),ifnull(x.family,''),"
        "ifnull(x.isa,''),x.params,ifnull(x.cache_mode,'cold'),ifnull(x.status,''),"
        "ifnull(x.reason,''),x.m,x.k,x.n,x.threads,x.bpw,x.median_us,x.gbps,x.gops,"
        "x.max_rel_err,x.packed_bytes,ifnull(x.clock_ghz,0) FROM results x WHERE x.id IN "
        "(SELECT max(y.id) FROM "
        "results y JOIN runs u ON y.run_id=u.id WHERE u.machine_id=? GROUP BY y.variant,"
        "y.params,y.m,y.k,y.n,y.threads,y.cache_mode) ORDER BY x.id";
    *rows = NULL;
    *nrows = 0;
    if (!(st = mp_store_prepare(s, sql)))
        return mp_fail(e, MP_EUSAGE, "--db %s: cannot read results (%s)", db_path,
                       sqlite3_errmsg(db));
    sqlite3_bind_int64(st, 1, machine_id);
    int cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        *rows = mp_store_grow(*rows, *nrows, &cap, sizeof **rows, 256);
        mp_rep_row *x = &(*rows)[(*nrows)++];
        memset(x, 0, sizeof *x);
        static const col cols[] = {
            COL('i', mp_rep_row, id),        COL('i', mp_rep_row, run_id),
            COL('t', mp_rep_row, variant),   COL('t', mp_rep_row, method),
            COL('t', mp_rep_row, family),    COL('t', mp_rep_row, isa),
            COL('t', mp_rep_row, params),    COL('t', mp_rep_row, cache),
            COL('t', mp_rep_row, status),    COL('t', mp_rep_row, reason),
            COL('i', mp_rep_row, m),         COL('i', mp_rep_row, k),
            COL('i', mp_rep_row, n),         COL('i', mp_rep_row, threads),
            COL('d', mp_rep_row, bpw),       COL('d', mp_rep_row, median_us),
            COL('d', mp_rep_row, gbps),      COL('d', mp_rep_row, gops),
            COL('n', mp_rep_row, max_rel_err), COL('i', mp_rep_row, packed_bytes),
            COL('d', mp_rep_row, clock_ghz)};
        read_row(st, cols, sizeof cols / sizeof cols[0], x);
    }
    sqlite3_finalize(st);
    return MP_OK;
}

int mp_store_rep_probe(mp_store *s, int64_t machine_id, mp_probe_row *out, int max, int64_t *run)
{
    sqlite3_stmt *st;
    int n = 0;
    *run = 0;
    if (!mp_store_rep_has_table(s, "probe") ||
        !(st = mp_store_prepare(s, "SELECT p.run_id FROM probe p JOIN runs u ON p.run_id=u.id "
                                   "WHERE u.machine_id=? ORDER BY u.kind='probe' DESC, p.run_id "
                                   "DESC LIMIT 1")))
        return 0;
    sqlite3_bind_int64(st, 1, machine_id);
    if (sqlite3_step(st) == SQLITE_ROW)
        *run = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    /* issue 37: a roof is what nothing exceeds, so each figure is the best that
     * any `mpbench probe` of the machine measured (a probe on a busy moment of a
     * shared host comes out low); SQLite takes the other columns from the row
     * holding the max.  Without a probe run, the newest run's own rows. */
    if (!*run || !(st = mp_store_prepare(s, "SELECT p.kind, p.threads, p.bytes, max(p.value), "
                                            "ifnull(p.unit,''), ifnull(p.n,0), ifnull(p.m,0), "
                                            "ifnull(p.k,0) FROM probe p JOIN runs u ON "
                                            "p.run_id=u.id WHERE (u.kind='probe' AND "
                                            "u.machine_id=?2 AND (SELECT kind FROM runs WHERE "
                                            "id=?1)='probe') OR p.run_id=?1 GROUP BY p.kind, "
                                            "p.threads, ifnull(p.n,0) ORDER BY min(p.id)")))
        return 0;
    sqlite3_bind_int64(st, 1, *run);
    sqlite3_bind_int64(st, 2, machine_id);
    while (n < max && sqlite3_step(st) == SQLITE_ROW) {
        mp_probe_row *p = &out[n++];
        mp_store_col_copy(st, 0, p->kind, sizeof p->kind);
        p->threads = sqlite3_column_int(st, 1);
        p->bytes = sqlite3_column_int64(st, 2);
        p->value = sqlite3_column_double(st, 3);
        mp_store_col_copy(st, 4, p->unit, sizeof p->unit);
        p->n = sqlite3_column_int(st, 5);
        p->m = sqlite3_column_int(st, 6);
        p->k = sqlite3_column_int(st, 7);
    }
    sqlite3_finalize(st);
    return n;
}

int mp_store_rep_run_load(mp_store *s, int64_t machine_id, double *max_load)
{
    sqlite3_stmt *st =
        mp_store_prepare(s, "SELECT count(*), max(load_avg) FROM runs WHERE machine_id=?");
    int n = 0;
    *max_load = 0;
    if (!st)
        return 0;
    sqlite3_bind_int64(st, 1, machine_id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        n = sqlite3_column_int(st, 0);
        *max_load = sqlite3_column_double(st, 1);
    }
    sqlite3_finalize(st);
    return n;
}

int mp_store_rep_run_span(mp_store *s, int64_t machine_id, char *first, char *last,
                          char *commits, size_t len)
{
    sqlite3_stmt *st = mp_store_prepare(s, "SELECT count(*), ifnull(min(started),''), "
                                           "ifnull(max(ifnull(finished,started)),''), "
                                           "ifnull((SELECT group_concat(c, ', ') FROM (SELECT "
                                           "DISTINCT git_commit AS c FROM runs WHERE "
                                           "machine_id=?1 AND git_commit IS NOT NULL ORDER BY "
                                           "id)),'') FROM runs WHERE machine_id=?1");
    int n = 0;
    first[0] = last[0] = commits[0] = 0;
    if (!st)
        return 0;
    sqlite3_bind_int64(st, 1, machine_id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        n = sqlite3_column_int(st, 0);
        mp_store_col_copy(st, 1, first, len);
        mp_store_col_copy(st, 2, last, len);
        mp_store_col_copy(st, 3, commits, len);
    }
    sqlite3_finalize(st);
    return n;
}

int mp_store_rep_unavailable_counters(mp_store *s, int64_t machine_id,
                                      void (*fn)(const char *event, const char *reason,
                                                 void *ctx),
                                      void *ctx)
{
    sqlite3_stmt *st;
    int n = 0;
    if (!mp_store_rep_has_table(s, "run_counters") ||
        !(st = mp_store_prepare(s, "SELECT c.event, min(c.reason), count(DISTINCT c.run_id) "
                                   "FROM run_counters c JOIN runs u ON c.run_id=u.id WHERE "
                                   "u.machine_id=? AND c.status='unavailable' GROUP BY c.event "
                                   "ORDER BY c.event")))
        return 0;
    sqlite3_bind_int64(st, 1, machine_id);
    while (sqlite3_step(st) == SQLITE_ROW) {
        fn(mp_store_col_text(st, 0), mp_store_col_text(st, 1), ctx);
        n++;
    }
    sqlite3_finalize(st);
    return n;
}

int mp_store_rep_e2e(mp_store *s, int64_t machine_id, int all, mp_rep_e2e **out, char *err,
                     size_t errlen)
{
    *out = NULL;
    if (!mp_store_rep_has_table(s, "e2e"))
        return -1;
    sqlite3 *db = mp_store_db(s);
    sqlite3_stmt *st;
    const char *sql =
        "SELECT x.model,x.variant,ifnull(x.method,''),x.test,ifnull(x.status,''),"
        "ifnull(x.reason,''),x.layers,x.model_layers,x.n_prompt,x.n_gen,x.batch,x.threads,"
        "x.prompts,x.tokens,x.matched,x.tps_median,x.bpw,x.match_share,ifnull(x.tps_min,0),"
        "ifnull(x.tps_max,0),ifnull(x.reps,0),x.run_id,ifnull(x.lm_head,''),"
        "ifnull(x.bound_tps,0),ifnull(x.bound_share,0),ifnull(x.profile,''),"
        "ifnull((SELECT git_commit FROM runs WHERE id=x.run_id),''),x.logit_diff,x.first_diff,"
        "x.steps_matched,ifnull(x.bw_row_gbs,0) FROM e2e x WHERE x.id IN "
        "(SELECT max(y.id) FROM e2e y JOIN runs u ON y.run_id=u.id WHERE u.machine_id=? GROUP BY "
        "y.model,y.variant,y.test,y.threads,y.layers,ifnull(y.lm_head,'f16'), "
        "CASE WHEN ? THEN y.id END) ORDER BY x.id";
    if (!(st = mp_store_prepare(s, sql))) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(db));
        return -2;
    }
    sqlite3_bind_int64(st, 1, machine_id);
    sqlite3_bind_int(st, 2, all != 0);
    int n = 0, cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        *out = mp_store_grow(*out, n, &cap, sizeof **out, 64);
        mp_rep_e2e *x = &(*out)[n++];
        memset(x, 0, sizeof *x);
        static const col cols[] = {
            COL('t', mp_rep_e2e, model),      COL('t', mp_rep_e2e, variant),
            COL('t', mp_rep_e2e, method),     COL('t', mp_rep_e2e, test),
            COL('t', mp_rep_e2e, status),     COL('t', mp_rep_e2e, reason),
            COL('i', mp_rep_e2e, layers),     COL('i', mp_rep_e2e, model_layers),
            COL('i', mp_rep_e2e, n_prompt),   COL('i', mp_rep_e2e, n_gen),
            COL('i', mp_rep_e2e, batch),      COL('i', mp_rep_e2e, threads),
            COL('i', mp_rep_e2e, prompts),    COL('i', mp_rep_e2e, tokens),
            COL('i', mp_rep_e2e, matched),    COL('d', mp_rep_e2e, tps),
            COL('d', mp_rep_e2e, bpw),        COL('d', mp_rep_e2e, share),
            COL('d', mp_rep_e2e, tps_min),    COL('d', mp_rep_e2e, tps_max),
            COL('i', mp_rep_e2e, reps),       COL('i', mp_rep_e2e, run),
            COL('t', mp_rep_e2e, lm_head),    COL('d', mp_rep_e2e, bound_tps),
            COL('d', mp_rep_e2e, bound_share), COL('t', mp_rep_e2e, profile),
            COL('t', mp_rep_e2e, commit)};
        read_row(st, cols, sizeof cols / sizeof cols[0], x);
        int known = sqlite3_column_type(st, 27) != SQLITE_NULL &&
                    sqlite3_column_type(st, 28) != SQLITE_NULL;
        x->logit_diff = known ? sqlite3_column_double(st, 27) : NAN;
        x->first_diff = known ? sqlite3_column_int(st, 28) : -1;
        x->steps_matched = sqlite3_column_type(st, 29) != SQLITE_NULL
                               ? sqlite3_column_int(st, 29) : -1;
        x->bw_row_gbs = sqlite3_column_double(st, 30);
    }
    sqlite3_finalize(st);
    return n;
}

double mp_store_rep_run_bw(mp_store *s, int64_t run, int threads)
{
    sqlite3_stmt *st = mp_store_prepare(s, "SELECT value FROM probe WHERE run_id=? AND "
                                           "kind='read_DRAM' AND threads=? ORDER BY id DESC "
                                           "LIMIT 1");
    double v = 0;
    if (!st)
        return 0;
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_int(st, 2, threads);
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

int64_t mp_store_rep_ratio_run(mp_store *s, int64_t machine_id, const char *method, int n,
                               const char *cache)
{
    sqlite3_stmt *st = mp_store_prepare(s, "SELECT max(x.run_id) FROM results x JOIN runs u ON "
                                           "x.run_id=u.id WHERE u.machine_id=? AND x.method=? "
                                           "AND x.n=? AND ifnull(u.kind,'') != 'tune' AND "
                                           "x.cache_mode=? AND x.status IN ('ok','unstable')");
    int64_t run = 0;
    if (!st)
        return 0;
    mp_store_bind(st, 1, "Itit", (int64_t)machine_id, method, n, cache);
    if (sqlite3_step(st) == SQLITE_ROW)
        run = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return run;
}

int mp_store_rep_run_rows(mp_store *s, int64_t run, int n, const char *cache, mp_rep_row **rows)
{
    sqlite3_stmt *st = mp_store_prepare(s, "SELECT variant, ifnull(method,''), status, params, "
                                           "m, k, threads, median_us FROM results WHERE run_id=? "
                                           "AND n=? AND cache_mode=? ORDER BY id");
    int nx = 0, cap = 0;
    *rows = NULL;
    if (!st)
        return 0;
    mp_store_bind(st, 1, "Iit", (int64_t)run, n, cache);
    while (sqlite3_step(st) == SQLITE_ROW) {
        *rows = mp_store_grow(*rows, nx, &cap, sizeof **rows, 64);
        mp_rep_row *y = &(*rows)[nx++];
        memset(y, 0, sizeof *y);
        y->run_id = run;
        y->n = n;
        static const col cols[] = {
            COL('t', mp_rep_row, variant), COL('t', mp_rep_row, method),
            COL('t', mp_rep_row, status),  COL('t', mp_rep_row, params),
            COL('i', mp_rep_row, m),       COL('i', mp_rep_row, k),
            COL('i', mp_rep_row, threads), COL('d', mp_rep_row, median_us)};
        read_row(st, cols, sizeof cols / sizeof cols[0], y);
    }
    sqlite3_finalize(st);
    return nx;
}

int mp_store_rep_tuned(mp_store *s, int64_t machine_id,
                       void (*fn)(const mp_rep_tuned *t, void *ctx), void *ctx)
{
    sqlite3_stmt *st;
    int n = 0;
    if (!mp_store_rep_has_table(s, "tuned") ||
        !(st = mp_store_prepare(s, "SELECT t.variant,t.m,t.k,t.n,t.threads,t.strategy,"
                                   "ifnull(t.chosen_params,''),ifnull(t.default_params,''),"
                                   "t.best_us,t.default_us,t.gain_pct,t.p_value,"
                                   "ifnull(t.decision,''),t.evaluations "
                                   "FROM tuned t WHERE t.id IN (SELECT max(y.id) FROM tuned y "
                                   "JOIN runs u ON y.run_id=u.id WHERE u.machine_id=? GROUP BY "
                                   "y.variant,y.m,y.k,y.n,y.threads) ORDER BY "
                                   "t.variant,t.m,t.k,t.n,t.threads")))
        return 0;
    sqlite3_bind_int64(st, 1, machine_id);
    while (sqlite3_step(st) == SQLITE_ROW) {
        mp_rep_tuned t = {
            .variant = mp_store_col_text(st, 0),
            .m = sqlite3_column_int(st, 1),
            .k = sqlite3_column_int(st, 2),
            .n = sqlite3_column_int(st, 3),
            .threads = sqlite3_column_int(st, 4),
            .strategy = mp_store_col_text(st, 5),
            .chosen = mp_store_col_text(st, 6),
            .defaults = mp_store_col_text(st, 7),
            .best_us = sqlite3_column_double(st, 8),
            .default_us = sqlite3_column_double(st, 9),
            .gain_pct = sqlite3_column_double(st, 10),
            .p_value = sqlite3_column_double(st, 11),
            .decision = mp_store_col_text(st, 12),
            .evaluations = sqlite3_column_int(st, 13),
        };
        fn(&t, ctx);
        n++;
    }
    sqlite3_finalize(st);
    return n;
}

int mp_store_rep_tune_group(mp_store *s, int64_t machine_id, const char *variant,
                            mp_rep_tune_group *g, mp_err *e)
{
    sqlite3 *db = mp_store_db(s);
    sqlite3_stmt *st;
    const char *sql =
        "SELECT x.run_id, x.variant, x.m, x.k, x.n, x.threads, count(DISTINCT x.params) c FROM "
        "results x JOIN runs u ON x.run_id=u.id WHERE u.machine_id=? AND u.kind='tune' AND "
        "x.status IN ('ok','unstable') AND (?2 IS NULL OR x.variant=?2) GROUP BY x.run_id, "
        "x.variant, x.m, x.k, x.n, x.threads ORDER BY c DESC, x.run_id DESC LIMIT 1";
    memset(g, 0, sizeof *g);
    if (!(st = mp_store_prepare(s, sql))) {
        mp_fail(e, MP_EIO, "%s", sqlite3_errmsg(db));
        return -1;
    }
    sqlite3_bind_int64(st, 1, machine_id);
    if (variant)
        sqlite3_bind_text(st, 2, variant, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, 2);
    int found = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        found = 1;
        g->run = sqlite3_column_int64(st, 0);
        mp_store_col_copy(st, 1, g->variant, sizeof g->variant);
        g->m = sqlite3_column_int(st, 2), g->k = sqlite3_column_int(st, 3);
        g->n = sqlite3_column_int(st, 4), g->threads = sqlite3_column_int(st, 5);
        g->settings = sqlite3_column_int(st, 6);
    }
    sqlite3_finalize(st);
    return found;
}

int mp_store_rep_tune_evals(mp_store *s, const mp_rep_tune_group *g,
                            int (*fn)(const char *params, double median_us, void *ctx),
                            void *ctx)
{
    sqlite3_stmt *st = mp_store_prepare(s, "SELECT params, median_us FROM results WHERE run_id=? "
                                           "AND variant=? AND m=? AND k=? AND n=? AND threads=? "
                                           "AND status IN ('ok','unstable') ORDER BY id");
    int n = 0;
    if (!st)
        return 0;
    mp_store_bind(st, 1, "Itiiii", (int64_t)g->run, g->variant, g->m, g->k, g->n, g->threads);
    while (sqlite3_step(st) == SQLITE_ROW) {
        n++;
        if (fn(mp_store_col_text(st, 0), sqlite3_column_double(st, 1), ctx))
            break;
    }
    sqlite3_finalize(st);
    return n;
}

int mp_store_rep_tune_decision(mp_store *s, const mp_rep_tune_group *g, char *buf, size_t len)
{
    sqlite3_stmt *st;
    int found = 0;
    if (!mp_store_rep_has_table(s, "tuned") ||
        !(st = mp_store_prepare(s, "SELECT decision FROM tuned WHERE run_id=? AND variant=? AND "
                                   "m=? AND k=? AND n=? AND threads=? ORDER BY id DESC LIMIT 1")))
        return 0;
    mp_store_bind(st, 1, "Itiiii", (int64_t)g->run, g->variant, g->m, g->k, g->n, g->threads);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
        snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
        found = 1;
    }
    sqlite3_finalize(st);
    return found;
}

int mp_store_rep_other_machines(mp_store *s, int64_t machine_id,
                                void (*fn)(void *ctx, const char *fingerprint, const char *cpu),
                                void *ctx)
{
    sqlite3_stmt *om;
    if (sqlite3_prepare_v2(mp_store_db(s),
                           "SELECT fingerprint, ifnull(cpu_model,'') FROM machines WHERE id != ? "
                           "AND id IN (SELECT machine_id FROM runs) ORDER BY fingerprint",
                           -1, &om, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(om, 1, machine_id);
    int n = 0;
    while (sqlite3_step(om) == SQLITE_ROW) {
        const unsigned char *fp = sqlite3_column_text(om, 0), *cpu = sqlite3_column_text(om, 1);
        fn(ctx, fp ? (const char *)fp : "", cpu ? (const char *)cpu : "");
        n++;
    }
    sqlite3_finalize(om);
    return n;
}
