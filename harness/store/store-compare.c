/* store-compare.c - the store read for `mpbench compare` (mp_store_compare.h).
 *
 * Compare reads two databases that may come from anywhere (a CI artifact, a
 * colleague's laptop, an older mpbench), so it opens them read-only, never
 * migrates them, and trusts no value: the text columns that make up a result's
 * key must be present, numbers must be numbers, repetition times must parse.
 * A run with a row that breaks this is refused whole (MP_EUSAGE) rather than
 * compared on a guess; the message names the database, the run and the row. */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "mp_store_compare.h"
#include "mp_store_internal.h"
#include "mp_store_schema.h"

void mp_store_compare_free(mp_cmp_run *r)
{
    for (int i = 0; i < r->n; i++)
        free(r->rows[i].times_us);
    free(r->rows);
    r->rows = NULL;
    r->n = 0;
}

/* Text column i into dst; MP_EUSAGE naming the column when it is NULL. */
static int text_col(sqlite3_stmt *q, int i, char *dst, size_t len, const char *what,
                    const char *path, long long run, long long id, mp_err *e)
{
    const unsigned char *t = sqlite3_column_text(q, i);
    if (!t)
        return mp_fail(e, MP_EUSAGE, "%s %s: run %lld, result %lld has no %s (NULL): not a "
                                     "result mpbench can compare; refusing this run",
                       what, path, run, id, sqlite3_column_name(q, i));
    snprintf(dst, len, "%s", (const char *)t);
    return MP_OK;
}

/* Numeric column i: MP_EUSAGE when NULL or not a number. */
static int num_col(sqlite3_stmt *q, int i, double *out, const char *what, const char *path,
                   long long run, long long id, mp_err *e)
{
    int type = sqlite3_column_type(q, i);
    if (type != SQLITE_INTEGER && type != SQLITE_FLOAT)
        return mp_fail(e, MP_EUSAGE, "%s %s: run %lld, result %lld: %s is %s, not a number; "
                                     "refusing this run",
                       what, path, run, id, sqlite3_column_name(q, i),
                       type == SQLITE_NULL ? "NULL" : "text");
    *out = sqlite3_column_double(q, i);
    return MP_OK;
}

/* "t1,t2,..." (microseconds) into a malloc'd array; NULL or "" is no repetitions. */
static int parse_times(const char *ts, mp_cmp_result *r, const char *what, const char *path,
                       long long run, long long id, mp_err *e)
{
    size_t len = ts ? strlen(ts) : 0;
    r->times_us = malloc(sizeof(double) * (len / 2 + 1));
    r->ntimes = 0;
    const char *p = ts ? ts : "";
    while (*p) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || (*end && *end != ',') || !isfinite(v) || v < 0)
            return mp_fail(e, MP_EUSAGE, "%s %s: run %lld, result %lld: times_us holds '%.40s', "
                                         "not a list of times; refusing this run",
                           what, path, run, id, ts);
        r->times_us[r->ntimes++] = v;
        p = *end ? end + 1 : end;
    }
    return MP_OK;
}

static int read_rows(sqlite3 *db, const char *path, const char *what, mp_cmp_run *out,
                     mp_err *e)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db,
                           /* the parameter names of today, also in a database
                            * from before migration 8 (read, not migrated) */
                           "SELECT id, variant, CASE WHEN " MP_SCHEMA8_VNNI " THEN "
                           MP_SCHEMA8_PARAMS("params") " ELSE params END AS params,"
                           " cache_mode, status, m, k, n, threads,"
                           " median_us, times_us FROM results WHERE run_id=? AND"
                           " status IN ('ok','unstable') ORDER BY id",
                           -1, &q, NULL) != SQLITE_OK)
        return mp_fail(e, MP_EUSAGE, "%s %s: cannot read results (%s)", what, path,
                       sqlite3_errmsg(db));
    sqlite3_bind_int64(q, 1, out->run_id);
    long long run = out->run_id;
    int cap = 0, rc = MP_OK;
    while (!rc && sqlite3_step(q) == SQLITE_ROW) {
        out->rows = mp_store_grow(out->rows, out->n, &cap, sizeof *out->rows, 64);
        mp_cmp_result *r = &out->rows[out->n++];
        memset(r, 0, sizeof *r);
        long long id = sqlite3_column_int64(q, 0);
        double v[5];
        rc = text_col(q, 1, r->variant, sizeof r->variant, what, path, run, id, e);
        if (!rc)
            rc = text_col(q, 2, r->params, sizeof r->params, what, path, run, id, e);
        if (!rc)
            rc = text_col(q, 3, r->cache, sizeof r->cache, what, path, run, id, e);
        if (!rc)
            rc = text_col(q, 4, r->status, sizeof r->status, what, path, run, id, e);
        for (int i = 0; i < 5 && !rc; i++)
            rc = num_col(q, 5 + i, &v[i], what, path, run, id, e);
        if (rc)
            break;
        /* untrusted values: a shape that no run could have, a time that is no time */
        int sane = isfinite(v[4]) && v[4] > 0;
        for (int i = 0; i < 4; i++)
            sane &= v[i] >= 1 && v[i] <= 2147483647.0 && v[i] == (double)(long long)v[i];
        if (!sane) {
            rc = mp_fail(e, MP_EUSAGE, "%s %s: run %lld, result %lld: m, k, n, threads or "
                                       "median_us out of range; refusing this run",
                         what, path, run, id);
            break;
        }
        r->m = (int)v[0], r->k = (int)v[1], r->n = (int)v[2], r->threads = (int)v[3];
        r->median_us = v[4];
        rc = parse_times((const char *)sqlite3_column_text(q, 10), r, what, path, run, id, e);
    }
    sqlite3_finalize(q);
    return rc;
}

int mp_store_compare_read(const char *path, const char *what, int64_t run_id,
                          const char *machine, mp_cmp_run *out, mp_err *e)
{
    memset(out, 0, sizeof *out);
    out->run_id = run_id;
    int version;
    int vrc = mp_store_verify(path, what, &version, e);
    if (vrc)
        return vrc;
    sqlite3 *db;
    char *uri = mp_store_ro_uri(path);
    int orc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    free(uri);
    if (orc != SQLITE_OK) {
        sqlite3_close(db);
        return mp_fail(e, MP_EIO, "%s %s: cannot open", what, path);
    }
    sqlite3_stmt *q;
    int rc = MP_OK;
    if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key='schema_version'", -1, &q,
                           NULL) != SQLITE_OK || sqlite3_step(q) != SQLITE_ROW) {
        sqlite3_finalize(q);
        sqlite3_close(db);
        return mp_fail(e, MP_EIO, "%s %s: not an mpbench database", what, path);
    }
    sqlite3_finalize(q);
    if (!out->run_id && machine) { /* the newest run with results on that machine */
        if (sqlite3_prepare_v2(db, "SELECT max(x.run_id) FROM results x JOIN runs r ON "
                                   "x.run_id=r.id JOIN machines m ON r.machine_id=m.id WHERE "
                                   "m.fingerprint=?", -1, &q, NULL) == SQLITE_OK) {
            sqlite3_bind_text(q, 1, machine, -1, SQLITE_STATIC);
            if (sqlite3_step(q) == SQLITE_ROW)
                out->run_id = sqlite3_column_int64(q, 0);
        }
        sqlite3_finalize(q);
    }
    if (!out->run_id) {
        if (sqlite3_prepare_v2(db, "SELECT max(run_id) FROM results", -1, &q, NULL) == SQLITE_OK &&
            sqlite3_step(q) == SQLITE_ROW)
            out->run_id = sqlite3_column_int64(q, 0);
        sqlite3_finalize(q);
        if (!out->run_id) {
            sqlite3_close(db);
            return mp_fail(e, MP_EUSAGE, "%s %s: has no results", what, path);
        }
    }
    if (sqlite3_prepare_v2(db, "SELECT m.fingerprint FROM runs r JOIN machines m ON "
                               "r.machine_id=m.id WHERE r.id=?", -1, &q, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(q, 1, out->run_id);
        if (sqlite3_step(q) != SQLITE_ROW)
            rc = mp_fail(e, MP_EUSAGE, "%s %s: no run %lld", what, path,
                         (long long)out->run_id);
        else if (!sqlite3_column_text(q, 0))
            rc = mp_fail(e, MP_EUSAGE, "%s %s: run %lld has a machine without a fingerprint "
                                       "(NULL); refusing this run",
                         what, path, (long long)out->run_id);
        else
            snprintf(out->fingerprint, sizeof out->fingerprint, "%s",
                     (const char *)sqlite3_column_text(q, 0));
        sqlite3_finalize(q);
    }
    /* probe rows are optional (older databases, runs without --probe-bw) */
    if (!rc && sqlite3_prepare_v2(db, "SELECT threads, value FROM probe WHERE run_id=? AND "
                                      "kind='read_DRAM'", -1, &q, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(q, 1, out->run_id);
        while (sqlite3_step(q) == SQLITE_ROW) {
            int t = sqlite3_column_int(q, 0);
            double v = sqlite3_column_double(q, 1);
            if (t >= 1 && t <= 64 && isfinite(v) && v > 0)
                out->read_bw[t] = v;
        }
        sqlite3_finalize(q);
    }
    if (!rc)
        rc = read_rows(db, path, what, out, e);
    sqlite3_close(db);
    if (rc)
        mp_store_compare_free(out);
    return rc;
}
