/* store-tune.c - tuning decisions in the store (see mp_store_tune.h).  The
 * evaluations themselves are ordinary results rows whose sweep key is
 * "PLAN/eEFFORT", so a resumed tune finds each measured point again. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "mp_store_internal.h"
#include "mp_store_tune.h"

int mp_store_tuned_put(mp_store *s, int64_t run_id, const char *plan_key, const mp_tuned_row *r,
                       mp_err *e)
{
    /* a NULL plan_key binds NULL */
    if (mp_store_do(s,
                    "INSERT OR IGNORE INTO tuned(run_id,variant,m,k,n,threads,strategy,"
                    "best_params,default_params,chosen_params,best_us,default_us,gain_pct,"
                    "p_value,aba_confirmed,decision,evaluations,seconds,created,plan_key) "
                    "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,datetime('now'),?)",
                    "Itiiiittttdddditidt", (int64_t)run_id, r->variant, r->m, r->k, r->n,
                    r->threads, r->strategy, r->best_params, r->default_params, r->chosen_params,
                    r->best_us, r->default_us, r->gain_pct, r->p_value, r->aba_confirmed,
                    r->decision, r->evaluations, r->seconds, plan_key))
        return mp_store_db_error(s, e);
    return MP_OK;
}

/* Columns 0-15 of a tuned row, then the two exhaustive columns. */
#define TUNED_COLS                                                                          \
    "t.variant, t.m, t.k, t.n, t.threads, t.strategy, t.best_params, t.default_params,"     \
    " t.chosen_params, t.best_us, t.default_us, t.gain_pct, t.p_value, t.aba_confirmed,"   \
    " t.decision, t.evaluations, t.seconds"

static void read_row(sqlite3_stmt *q, mp_tuned_row *r)
{
    memset(r, 0, sizeof *r);
    mp_store_cols(q, 0, "tiiiittttdddditid", r->variant, sizeof r->variant, &r->m, &r->k, &r->n,
                  &r->threads, r->strategy, sizeof r->strategy, r->best_params,
                  sizeof r->best_params, r->default_params, sizeof r->default_params,
                  r->chosen_params, sizeof r->chosen_params, &r->best_us, &r->default_us,
                  &r->gain_pct, &r->p_value, &r->aba_confirmed, r->decision, sizeof r->decision,
                  &r->evaluations, &r->seconds);
}

int mp_store_tuned_get(mp_store *s, const char *plan_key, const char *variant, int m, int k,
                       int n, int threads, mp_tuned_row *r, mp_err *e)
{
    const char *sql = "SELECT " TUNED_COLS " FROM tuned t WHERE t.plan_key=? AND t.variant=? AND "
                      "t.m=? AND t.k=? AND t.n=? AND t.threads=?";
    sqlite3_stmt *q = mp_store_query(s, sql, "ttiiii", plan_key, variant, m, k, n, threads);
    if (!q)
        return -mp_store_db_error(s, e);
    int step = sqlite3_step(q), found = 0;
    if (step == SQLITE_ROW) {
        read_row(q, r);
        found = 1;
    }
    sqlite3_finalize(q);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return -mp_store_db_error(s, e);
    return found;
}

int mp_store_tuned_list(mp_store *s, const char *plan_key, mp_tuned_row **rows, int *n,
                        mp_err *e)
{
    static const char *const sql =
        "SELECT " TUNED_COLS ","
        " (SELECT x.best_us FROM tuned x WHERE x.variant=t.variant AND x.m=t.m AND x.k=t.k"
        "  AND x.n=t.n AND x.threads=t.threads AND x.strategy='exhaustive' AND x.run_id IN"
        "  (SELECT id FROM runs WHERE machine_id=u.machine_id) ORDER BY x.id DESC LIMIT 1),"
        " (SELECT x.best_params FROM tuned x WHERE x.variant=t.variant AND x.m=t.m AND x.k=t.k"
        "  AND x.n=t.n AND x.threads=t.threads AND x.strategy='exhaustive' AND x.run_id IN"
        "  (SELECT id FROM runs WHERE machine_id=u.machine_id) ORDER BY x.id DESC LIMIT 1),"
        " ifnull(mm.fingerprint,''), ifnull(mm.cpu_model,'')"
        " FROM tuned t JOIN runs u ON t.run_id=u.id JOIN machines mm ON u.machine_id=mm.id"
        " WHERE (?1 IS NULL OR t.plan_key=?1)"
        " ORDER BY mm.fingerprint, t.variant, t.m, t.k, t.n, t.threads, t.strategy, t.id";
    *rows = NULL;
    *n = 0;
    sqlite3_stmt *q = mp_store_query(s, sql, "t", plan_key); /* NULL: every plan */
    if (!q)
        return mp_store_db_error(s, e);
    int cap = 0, step;
    while ((step = sqlite3_step(q)) == SQLITE_ROW) {
        *rows = mp_store_grow(*rows, *n, &cap, sizeof **rows, 16);
        mp_tuned_row *r = &(*rows)[(*n)++];
        read_row(q, r);
        r->have_exhaustive = sqlite3_column_type(q, 17) != SQLITE_NULL;
        r->exhaustive_us = sqlite3_column_double(q, 17);
        mp_store_col_copy(q, 18, r->exhaustive_params, sizeof r->exhaustive_params);
        mp_store_col_copy(q, 19, r->machine, sizeof r->machine);
        mp_store_col_copy(q, 20, r->cpu_model, sizeof r->cpu_model);
    }
    sqlite3_finalize(q);
    if (step != SQLITE_DONE) {
        free(*rows);
        *rows = NULL;
        *n = 0;
        return mp_store_db_error(s, e);
    }
    return MP_OK;
}

int mp_store_sweep_grid(mp_store *s, void (*fn)(void *ctx, const mp_sweep_grid_row *r),
                        void *ctx, mp_err *e)
{
    /* newest row per key and machine; cold after warm so that cold decides last */
    static const char *const sql =
        "SELECT m.fingerprint, x.variant, x.m, x.k, x.n, x.threads, ifnull(x.cache_mode,'cold'),"
        " x.params, x.median_us, ifnull(x.times_us,'') FROM results x JOIN runs u ON"
        " x.run_id=u.id JOIN machines m ON u.machine_id=m.id WHERE x.id IN (SELECT max(y.id)"
        " FROM results y JOIN runs w ON y.run_id=w.id WHERE w.kind='sweep' AND"
        " y.sweep_key IS NOT NULL AND"
        " y.status IN ('ok','unstable') GROUP BY w.machine_id, y.variant, y.params, y.m, y.k,"
        " y.n, y.threads, y.cache_mode)"
        " ORDER BY m.fingerprint, x.variant, x.m, x.k, x.n, x.threads,"
        " ifnull(x.cache_mode,'cold')='cold', x.params";
    sqlite3_stmt *q;
    if (!(q = mp_store_prepare(s, sql)))
        return mp_store_db_error(s, e);
    int step;
    while ((step = sqlite3_step(q)) == SQLITE_ROW) {
        const char *txt[5];
        static const int col[5] = {0, 1, 6, 7, 9};
        for (int i = 0; i < 5; i++)
            txt[i] = mp_store_col_text(q, col[i]);
        mp_sweep_grid_row r = {txt[0], txt[1], txt[2], txt[3], txt[4],
                               sqlite3_column_int(q, 2), sqlite3_column_int(q, 3),
                               sqlite3_column_int(q, 4), sqlite3_column_int(q, 5),
                               sqlite3_column_double(q, 8)};
        fn(ctx, &r);
    }
    sqlite3_finalize(q);
    return step == SQLITE_DONE ? MP_OK : mp_store_db_error(s, e);
}
