/* store-merge.c - the store side of `mpbench merge` (mp_store_merge.h): one
 * input database folded into the open store in one transaction.  Machines are
 * matched by fingerprint and keep it; a run already present (same machine,
 * start time, command, kind) is skipped whole; the tables hanging off runs are
 * copied with their run_id remapped, and counters follow their result through
 * the result's natural key, so shards of one sweep merge into exactly the
 * unsharded set.  A failure rolls the input back: the store is left as it was
 * before that input.  The input is read, never written: it is attached
 * read-only (a URI with mode=ro; the store is opened with URIs enabled). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mp_store_internal.h"
#include "mp_store_merge.h"
#include "mp_store_schema.h"

/* Tables that hang off runs(id) through a run_id column, copied generically. */
static const char *const run_tables[] = {"results", "run_counters", "probe", "tuned", "e2e"};

static int table_exists(sqlite3 *db, const char *schema, const char *table)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT 1 FROM %s.sqlite_master WHERE type='table' AND name='%s'",
             schema, table);
    sqlite3_stmt *st;
    int ok = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
             sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return ok;
}

/* "a,b,c" of the columns of schema.table except id; with run_id replaced by expr
 * in sel (the SELECT list). */
static void columns(sqlite3 *db, const char *schema, const char *table, const char *run_expr,
                    char *cols, char *sel, size_t len)
{
    char sql[256];
    snprintf(sql, sizeof sql, "PRAGMA %s.table_info(%s)", schema, table);
    sqlite3_stmt *st;
    cols[0] = sel[0] = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return;
    size_t uc = 0, us = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 1);
        if (!strcmp(name, "id"))
            continue;
        uc += (size_t)snprintf(cols + uc, len - uc, "%s%s", uc ? "," : "", name);
        us += (size_t)snprintf(sel + us, len - us, "%s%s", us ? "," : "",
                               !strcmp(name, "run_id") ? run_expr : name);
    }
    sqlite3_finalize(st);
}

static int exec(sqlite3 *db, const char *sql, mp_err *e, const char *what)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        int rc = mp_fail(e, MP_EIO, "merge %s: %s", what, msg ? msg : "error");
        sqlite3_free(msg);
        return rc;
    }
    return MP_OK;
}

/* Inside the merge's transaction: every result row of the input is in the
 * output, under its run (by uid, or the legacy identity) or, for a sweep row,
 * under its sweep key.  A row missing rolls the input back. */
static int verify_rows(sqlite3 *db, const char *in, mp_err *e)
{
    static const char *const sql =
        "SELECT count(*) FROM src.results sr JOIN src.runs su ON sr.run_id=su.id "
        "JOIN src.machines sm ON su.machine_id=sm.id WHERE NOT EXISTS ("
        " SELECT 1 FROM main.results r JOIN main.runs u ON r.run_id=u.id"
        " JOIN main.machines m ON u.machine_id=m.id"
        " WHERE r.variant=sr.variant AND r.params=sr.params AND r.m IS sr.m AND r.k IS sr.k"
        " AND r.n IS sr.n AND r.threads IS sr.threads AND r.cache_mode IS sr.cache_mode AND ("
        "  (sr.sweep_key IS NOT NULL AND r.sweep_key=sr.sweep_key) OR"
        "  (su.uid IS NOT NULL AND u.uid=su.uid) OR"
        "  (su.uid IS NULL AND u.uid IS NULL AND m.fingerprint=sm.fingerprint AND"
        "   u.started IS su.started AND u.command IS su.command AND u.kind IS su.kind)))";
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
        return mp_fail(e, MP_EIO, "merge %s: verifying: %s", in, sqlite3_errmsg(db));
    long missing = -1;
    if (sqlite3_step(q) == SQLITE_ROW)
        missing = (long)sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    if (missing < 0)
        return mp_fail(e, MP_EIO, "merge %s: verifying: %s", in, sqlite3_errmsg(db));
    if (missing)
        return mp_fail(e, MP_EIO, "merge %s: %ld result rows of the input would not be in the "
                                  "output; nothing of this input merged", in, missing);
    return MP_OK;
}

int mp_store_merge_check(const char *in, mp_err *e)
{
    int version, rc = mp_store_verify(in, "merge: input", &version, e);
    if (rc)
        return rc;
    if (version == 0)
        return mp_fail(e, MP_EIO, "merge: input %s: an empty database, nothing to merge", in);
    if (version != MP_SCHEMA_VERSION)
        return mp_fail(e, MP_EUSAGE,
                       "merge: input %s has schema version %d, this mpbench writes %d: open it "
                       "once with this mpbench (e.g. 'mpbench sweep --dry-run ... --db %s') to "
                       "migrate it",
                       in, version, MP_SCHEMA_VERSION, in);
    return MP_OK;
}

/* Rows of src.tab in run `old`; -1 on an error. */
static long src_rows(sqlite3 *db, const char *tab, sqlite3_int64 old)
{
    char *q = sqlite3_mprintf("SELECT count(*) FROM src.%s WHERE run_id=%lld", tab, old);
    sqlite3_stmt *st = NULL;
    long n = -1;
    if (q && sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = (long)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_free(q);
    return n;
}

/* The plan-keyed tables and the columns that make a row of one plan: a row of
 * the input's run `old` and a row of the store agreeing on all of them are the
 * same point of the same plan (the unique indexes results_sweep, e2e_plan,
 * tuned_plan). */
static const struct {
    const char *table, *on;
} plan_keys[] = {
    {"results", "d.sweep_key=s.sweep_key AND d.variant=s.variant AND d.params=s.params AND "
                "d.m=s.m AND d.k=s.k AND d.n=s.n AND d.threads=s.threads AND "
                "d.cache_mode=s.cache_mode"},
    {"e2e", "d.plan_key=s.plan_key AND d.model=s.model AND d.variant=s.variant AND "
            "d.test=s.test AND d.threads=s.threads"},
    {"tuned", "d.plan_key=s.plan_key AND d.variant=s.variant AND d.m=s.m AND d.k=s.k AND "
              "d.n=s.n AND d.threads=s.threads"},
};

/* --replace: removes from main the rows of the plans the input's run `old`
 * holds rows of (a result's counters cascade), then the runs this left
 * without a row of any plan (with their probe rows and refused events).
 * Counts into *rows, *runs. */
static int replace_plans(sqlite3 *db, sqlite3_int64 old, const char *in, long *rows,
                         long *runs, mp_err *e)
{
    int rc = exec(db, "CREATE TEMP TABLE IF NOT EXISTS merge_emptied(run_id INTEGER PRIMARY KEY);"
                      "DELETE FROM merge_emptied",
                  e, in);
    for (size_t i = 0; !rc && i < sizeof plan_keys / sizeof plan_keys[0]; i++) {
        const char *t = plan_keys[i].table;
        if (!table_exists(db, "src", t) || !table_exists(db, "main", t))
            continue;
        char *match = sqlite3_mprintf("SELECT d.id FROM main.%s d JOIN src.%s s ON %s "
                                      "WHERE s.run_id=%lld",
                                      t, t, plan_keys[i].on, old);
        /* a result's counters go with it (ON DELETE CASCADE) */
        char *sql = sqlite3_mprintf(
            "INSERT OR IGNORE INTO merge_emptied SELECT run_id FROM main.%s WHERE id IN (%s);"
            "DELETE FROM main.%s WHERE id IN (%s);",
            t, match, t, match);
        rc = exec(db, sql, e, in);
        if (!rc) /* the changes of the last statement: the rows removed */
            *rows += sqlite3_changes(db);
        sqlite3_free(sql);
        sqlite3_free(match);
    }
    /* a run of the removed rows left without any row of a plan is superseded
     * whole: it goes, with what hangs off it (a sweep's --probe-bw figure) */
    static const char *const gone =
        "DELETE FROM merge_emptied WHERE run_id IN (SELECT run_id FROM main.results UNION "
        "SELECT run_id FROM main.e2e UNION SELECT run_id FROM main.tuned);"
        "DELETE FROM main.probe WHERE run_id IN (SELECT run_id FROM merge_emptied);"
        "DELETE FROM main.run_counters WHERE run_id IN (SELECT run_id FROM merge_emptied);"
        "DELETE FROM main.runs WHERE id IN (SELECT run_id FROM merge_emptied);";
    if (!rc && !(rc = exec(db, gone, e, in)))
        *runs += sqlite3_changes(db);
    return rc;
}

static int merge(mp_store *s, const char *in, int replace, long *runs_added, long *runs_skipped,
                 long *rows_kept, long *rows_replaced, long *runs_removed, mp_err *e)
{
    *rows_kept = 0;
    sqlite3 *db = mp_store_db(s);
    int rc = mp_store_merge_check(in, e);
    if (rc)
        return rc;
    /* read-only: nothing of the input is ever written, not even a checkpoint of
     * its WAL into the file when it is detached (SQLite checkpoints and removes a
     * WAL when its last read-write connection closes) */
    char *uri = mp_store_ro_uri(in);
    char *sql = sqlite3_mprintf("ATTACH %Q AS src", uri);
    free(uri);
    rc = exec(db, sql, e, in);
    sqlite3_free(sql);
    if (rc)
        return rc;
    rc = exec(db, "BEGIN IMMEDIATE", e, in);
    if (!rc)
        rc = exec(db,
                  "INSERT OR IGNORE INTO machines(fingerprint,cpu_model,cores,pus,isa_flags,"
                  "mem_gib,l1d_kib,l2_kib,l3_kib,caches_note,hypervisor,first_seen) "
                  "SELECT fingerprint,cpu_model,cores,pus,isa_flags,mem_gib,l1d_kib,l2_kib,"
                  "l3_kib,caches_note,hypervisor,first_seen FROM src.machines",
                  e, in);
    sqlite3_stmt *runs = NULL;
    if (!rc && sqlite3_prepare_v2(db,
                                  "SELECT r.id, m.fingerprint, r.started, r.command, r.kind, r.uid "
                                  "FROM src.runs r JOIN src.machines m ON r.machine_id=m.id "
                                  "ORDER BY r.id",
                                  -1, &runs, NULL) != SQLITE_OK)
        rc = mp_fail(e, MP_EIO, "merge %s: %s", in, sqlite3_errmsg(db));
    while (!rc && sqlite3_step(runs) == SQLITE_ROW) {
        sqlite3_int64 old = sqlite3_column_int64(runs, 0);
        const char *fp = (const char *)sqlite3_column_text(runs, 1);
        sqlite3_stmt *chk;
        /* a run is the same run only by its uid (issue 20: two runs started in
         * one second by one command are two runs); runs from before schema 6
         * have none and are matched as before, by machine, start, command, kind */
        int has_uid = sqlite3_column_type(runs, 5) != SQLITE_NULL;
        if (sqlite3_prepare_v2(db,
                               has_uid ? "SELECT id FROM runs WHERE uid=?"
                                       : "SELECT r.id FROM runs r JOIN machines m ON "
                                         "r.machine_id=m.id WHERE m.fingerprint=? AND r.started "
                                         "IS ? AND r.command IS ? AND r.kind IS ? AND r.uid IS NULL",
                               -1, &chk, NULL) != SQLITE_OK) {
            rc = mp_fail(e, MP_EIO, "merge %s: %s", in, sqlite3_errmsg(db));
            break;
        }
        if (has_uid)
            sqlite3_bind_value(chk, 1, sqlite3_column_value(runs, 5));
        else
            for (int i = 1; i <= 4; i++)
                sqlite3_bind_value(chk, i, sqlite3_column_value(runs, i));
        int exists = sqlite3_step(chk) == SQLITE_ROW;
        sqlite3_finalize(chk);
        if (exists) {
            (*runs_skipped)++;
            continue;
        }
        if (replace && (rc = replace_plans(db, old, in, rows_replaced, runs_removed, e)))
            break;
        char cols[2048], sel[2048];
        columns(db, "src", "runs", "", cols, sel, sizeof cols);
        /* machine_id must be remapped through the fingerprint */
        char *ins = sqlite3_mprintf(
            "INSERT INTO runs(%s) SELECT %s FROM src.runs WHERE id=%lld", cols, sel, old);
        rc = exec(db, ins, e, in);
        sqlite3_free(ins);
        if (rc)
            break;
        sqlite3_int64 nid = sqlite3_last_insert_rowid(db);
        char *upd = sqlite3_mprintf(
            "UPDATE runs SET machine_id=(SELECT id FROM machines WHERE fingerprint=%Q) WHERE id=%lld",
            fp, nid);
        rc = exec(db, upd, e, in);
        sqlite3_free(upd);
        for (size_t t = 0; !rc && t < sizeof run_tables / sizeof run_tables[0]; t++) {
            const char *tab = run_tables[t];
            if (!table_exists(db, "src", tab) || !table_exists(db, "main", tab))
                continue;
            char expr[64];
            snprintf(expr, sizeof expr, "%lld", nid);
            columns(db, "src", tab, expr, cols, sel, sizeof cols);
            char *cp = sqlite3_mprintf("INSERT OR IGNORE INTO main.%s(%s) SELECT %s FROM src.%s "
                                       "WHERE run_id=%lld",
                                       tab, cols, sel, tab, old);
            long want = src_rows(db, tab, old);
            rc = exec(db, cp, e, in);
            sqlite3_free(cp);
            /* a row the store already holds under the same plan (an e2e row's
             * plan key, a result's sweep key) is kept and the input's is not
             * added: counted, so that the caller can say so */
            if (!rc && want > 0)
                *rows_kept += want - (long)sqlite3_changes(db);
        }
        if (!rc) {
            /* counters follow their result through the result's natural key */
            char *cp = sqlite3_mprintf(
                "INSERT OR IGNORE INTO counters(result_id,event,value,status,reason) "
                "SELECT nr.id, c.event, c.value, c.status, c.reason FROM src.counters c "
                "JOIN src.results sr ON c.result_id=sr.id JOIN results nr ON nr.run_id=%lld "
                "AND nr.variant=sr.variant AND nr.params=sr.params AND nr.m=sr.m AND "
                "nr.k=sr.k AND nr.n=sr.n AND nr.threads=sr.threads AND "
                "nr.cache_mode=sr.cache_mode WHERE sr.run_id=%lld",
                nid, old);
            rc = exec(db, cp, e, in);
            sqlite3_free(cp);
        }
        (*runs_added)++;
    }
    sqlite3_finalize(runs);
    if (!rc)
        rc = verify_rows(db, in, e);
    mp_err ignore;
    /* the COMMIT is where a full disk shows (the WAL grows): nothing is
     * reported as merged unless it succeeded */
    if (!rc && (rc = exec(db, "COMMIT", e, in)))
        *runs_added = 0, *rows_kept = 0, *rows_replaced = 0, *runs_removed = 0;
    if (rc)
        exec(db, "ROLLBACK", &ignore, in);
    exec(db, "DETACH src", &ignore, in);
    return rc;
}

int mp_store_merge(mp_store *s, const char *in, long *runs_added, long *runs_skipped,
                   long *rows_kept, mp_err *e)
{
    long replaced = 0, removed = 0;
    return merge(s, in, 0, runs_added, runs_skipped, rows_kept, &replaced, &removed, e);
}

int mp_store_merge_replace(mp_store *s, const char *in, long *runs_added, long *runs_skipped,
                           long *rows_replaced, long *runs_removed, mp_err *e)
{
    long kept = 0;
    *rows_replaced = *runs_removed = 0;
    return merge(s, in, 1, runs_added, runs_skipped, &kept, rows_replaced, runs_removed, e);
}
