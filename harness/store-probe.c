/* store-probe.c - the machine probe in the store (mp_probe_store.h): one row
 * per (kind, threads) written with its run, and the newest probe of a machine
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
    if (sqlite3_prepare_v2(db, "INSERT INTO probe(run_id,kind,threads,bytes,value,unit) "
                               "VALUES(?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK) {
        int rc = mp_fail(e, MP_EIO, "database: %s", sqlite3_errmsg(db));
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL); /* no transaction left open */
        return rc;
    }
    int rc = MP_OK;
    for (int i = 0; i < n && !rc; i++) {
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_text(st, 2, r[i].kind, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(st, 3, r[i].threads);
        sqlite3_bind_int64(st, 4, r[i].bytes);
        sqlite3_bind_double(st, 5, r[i].value);
        sqlite3_bind_text(st, 6, r[i].unit, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = mp_fail(e, MP_EIO, "database: %s", sqlite3_errmsg(db));
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    sqlite3_exec(db, rc ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL);
    return rc;
}

int mp_probe_latest(mp_store *s, const char *fingerprint, mp_probe_row *r, int max)
{
    sqlite3 *db = mp_store_db(s);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT p.kind, p.threads, p.bytes, p.value, p.unit FROM probe p "
                           "WHERE p.run_id = (SELECT max(r.id) FROM runs r JOIN machines m ON "
                           "r.machine_id=m.id JOIN probe q ON q.run_id=r.id WHERE "
                           "m.fingerprint=? AND r.kind='probe') ORDER BY p.id",
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
        n++;
    }
    sqlite3_finalize(st);
    return n;
}

double mp_probe_value(mp_store *s, const char *fingerprint, const char *kind, int threads)
{
    mp_probe_row r[256];
    int n = mp_probe_latest(s, fingerprint, r, 256);
    for (int i = 0; i < n; i++)
        if (r[i].threads == threads && !strcmp(r[i].kind, kind))
            return r[i].value;
    return 0;
}
