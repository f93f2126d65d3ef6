/* store-probe.c - the machine probe in the store (mp_probe_store.h): one row
 * per (kind, threads[, N]) written with its run (a compute ceiling with the N
 * and shape it was measured at, schema 10), and the newest probe of a machine
 * (a run of kind "probe": runs and sweeps keep their own read figures too, for
 * `compare` and the same-run read stream, and must not stand in for a probe)
 * read back for `list machine`, the VNNI roofline model and the reports.  Text
 * read back is checked: a NULL kind or unit reads as empty, never crashes. */
#include <sqlite3.h>
#include <string.h>

#include "mp_store_internal.h"
#include "mp_probe_store.h"

int mp_probe_store(mp_store *s, int64_t run_id, const mp_probe_row *r, int n, mp_err *e)
{
    sqlite3 *db = mp_store_db(s);
    sqlite3_stmt *st;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return mp_fail(e, MP_EIO, "database: %s", sqlite3_errmsg(db));
    if (!(st = mp_store_prepare(s, "INSERT INTO probe(run_id,kind,threads,bytes,value,unit,n,m,"
                                   "k) VALUES(?,?,?,?,?,?,?,?,?)"))) {
        int rc = mp_fail(e, MP_EIO, "database: %s", sqlite3_errmsg(db));
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL); /* no transaction left open */
        return rc;
    }
    int rc = MP_OK;
    for (int i = 0; i < n && !rc; i++) {
        mp_store_bind(st, 1, "ItiIdt", (int64_t)run_id, r[i].kind, r[i].threads,
                      (int64_t)r[i].bytes, r[i].value, r[i].unit);
        /* NULL, not 0, where the row has no N or shape (bandwidth, peaks) */
        const int nmk[3] = {r[i].n, r[i].m, r[i].k};
        for (int j = 0; j < 3; j++)
            if (nmk[j] > 0)
                sqlite3_bind_int(st, 7 + j, nmk[j]);
            else
                sqlite3_bind_null(st, 7 + j);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = mp_fail(e, MP_EIO, "database: %s", sqlite3_errmsg(db));
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    sqlite3_exec(db, rc ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL);
    return rc;
}

/* The newest run of kind 'probe' with probe rows of the machine ?1. */
#define NEWEST_PROBE                                                                       \
    "SELECT max(r.id) FROM runs r JOIN machines m ON r.machine_id=m.id JOIN probe q ON "   \
    "q.run_id=r.id WHERE m.fingerprint=?1 AND r.kind='probe'"

int mp_probe_latest(mp_store *s, const char *fingerprint, mp_probe_row *r, int max)
{
    sqlite3 *db = mp_store_db(s);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT p.kind, p.threads, p.bytes, p.value, p.unit, "
                           "ifnull(p.n,0), ifnull(p.m,0), ifnull(p.k,0) FROM probe p "
                           "WHERE p.run_id = (" NEWEST_PROBE ") ORDER BY p.id",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, fingerprint, -1, SQLITE_TRANSIENT);
    int n = 0;
    while (n < max && sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *kind = sqlite3_column_text(st, 0), *unit = sqlite3_column_text(st, 4);
        snprintf(r[n].kind, sizeof r[n].kind, "%s", kind ? (const char *)kind : "");
        r[n].threads = sqlite3_column_int(st, 1);
        r[n].bytes = sqlite3_column_int64(st, 2);
        r[n].value = sqlite3_column_double(st, 3);
        snprintf(r[n].unit, sizeof r[n].unit, "%s", unit ? (const char *)unit : "");
        r[n].n = sqlite3_column_int(st, 5);
        r[n].m = sqlite3_column_int(st, 6);
        r[n].k = sqlite3_column_int(st, 7);
        n++;
    }
    sqlite3_finalize(st);
    return n;
}

double mp_probe_value(mp_store *s, const char *fingerprint, const char *kind, int threads)
{
    sqlite3_stmt *st;
    double v = 0;
    /* asked of the store, not of a bounded copy of the probe: with the compute
     * ceilings a probe has hundreds of rows */
    if (sqlite3_prepare_v2(mp_store_db(s),
                           "SELECT value FROM probe WHERE run_id = (" NEWEST_PROBE ") AND "
                           "kind=?2 AND threads=?3 ORDER BY id DESC LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    mp_store_bind(st, 1, "tti", fingerprint, kind, threads);
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}
