/* store-plan.c - the store's answers about resumable plans: which points a
 * plan already holds (so a restarted sweep measures only what is missing), the
 * plan's results for the closing summary, and the bindings of a run's pools. */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "mp_store_internal.h"
#include "../core/mp_core.h"
#include "../../variants/mp_registry.h"

int mp_store_done_keys(mp_store *s, const char *plan_key, const char *cache_mode, char ***keys,
                       int *n, mp_err *e)
{
    *keys = NULL;
    *n = 0;
    sqlite3_stmt *st = mp_store_query(s, "SELECT variant, params, m, k, n, threads FROM results "
                                         "WHERE sweep_key=? AND cache_mode=?",
                                      "tt", plan_key, cache_mode);
    if (!st)
        return mp_store_db_error(s, e);
    int cap = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        char k[512];
        mp_point_key(k, sizeof k, mp_store_col_text(st, 0), mp_store_col_text(st, 1),
                     sqlite3_column_int(st, 2), sqlite3_column_int(st, 3),
                     sqlite3_column_int(st, 4), sqlite3_column_int(st, 5));
        *keys = mp_store_grow(*keys, *n, &cap, sizeof **keys, 256);
        (*keys)[(*n)++] = strdup(k);
    }
    sqlite3_finalize(st);
    return step == SQLITE_DONE ? MP_OK : mp_store_db_error(s, e);
}

int mp_store_plan_results(mp_store *s, const char *plan_key, const char *cache_mode,
                          mp_result **rows, int *n, mp_err *e)
{
    *rows = NULL;
    *n = 0;
    sqlite3_stmt *st = mp_store_query(s, "SELECT variant, params, m, k, n, threads, bpw,"
                                         " packed_bytes, reps, median_us, gbps, gops, max_rel_err,"
                                         " status, reason FROM results WHERE sweep_key=? AND"
                                         " cache_mode=? ORDER BY id",
                                      "tt", plan_key, cache_mode);
    if (!st)
        return mp_store_db_error(s, e);
    int cap = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const mp_variant *v = mp_registry_find(mp_store_col_text(st, 0));
        if (!v)
            continue; /* stored by a build with other variants */
        *rows = mp_store_grow(*rows, *n, &cap, sizeof **rows, 64);
        mp_result *r = &(*rows)[(*n)++];
        memset(r, 0, sizeof *r);
        r->v = v;
        snprintf(r->params, sizeof r->params, "%s", mp_store_col_text(st, 1));
        r->m = sqlite3_column_int(st, 2), r->k = sqlite3_column_int(st, 3);
        r->n = sqlite3_column_int(st, 4), r->threads = sqlite3_column_int(st, 5);
        r->warm = !strcmp(cache_mode, "warm");
        r->bpw = sqlite3_column_double(st, 6);
        r->packed_bytes = (size_t)sqlite3_column_int64(st, 7);
        r->reps = sqlite3_column_int(st, 8);
        r->median_us = sqlite3_column_double(st, 9);
        r->gbps = sqlite3_column_double(st, 10);
        r->gops = sqlite3_column_double(st, 11);
        r->max_rel_err = sqlite3_column_type(st, 12) == SQLITE_NULL ? NAN
                                                                     : sqlite3_column_double(st, 12);
        const char *status = mp_store_col_text(st, 13);
        r->status = !strcmp(status, "ok")         ? MP_ST_OK
                    : !strcmp(status, "unstable") ? MP_ST_UNSTABLE
                    : !strcmp(status, "failed")   ? MP_ST_FAILED
                                                  : MP_ST_SKIPPED;
        snprintf(r->reason, sizeof r->reason, "%s", mp_store_col_text(st, 14));
    }
    sqlite3_finalize(st);
    if (step != SQLITE_DONE) {
        free(*rows);
        *rows = NULL;
        *n = 0;
        return mp_store_db_error(s, e);
    }
    return MP_OK;
}

int mp_store_run_binding(mp_store *s, int64_t run_id, const char *binding, mp_err *e)
{
    return mp_store_do(s, "UPDATE runs SET binding=? WHERE id=?", "tI", binding, (int64_t)run_id)
               ? mp_store_db_error(s, e)
               : MP_OK;
}
