/* store-e2e.c - end-to-end rows in the store (see mp_store_e2e.h).  NULL
 * columns: tokens/s of lossless or non-ok rows, the match counts of
 * performance rows, the logit figures of rows that did not measure them. */
#include <math.h>
#include <sqlite3.h>
#include <string.h>
#include <time.h>

#include "mp_store_internal.h"
#include "mp_store_e2e.h"

static int db_error(mp_store *s, mp_err *e)
{
    return mp_fail(e, MP_EIO, "database: %s", sqlite3_errmsg(mp_store_db(s)));
}

int mp_store_e2e_put(mp_store *s, int64_t run_id, const char *plan_key, const mp_e2e_row *r,
                     mp_err *e)
{
    sqlite3 *db = mp_store_db(s);
    const char *sql =
        "INSERT OR IGNORE INTO e2e(run_id,model,variant,method,layers,model_layers,test,n_prompt,"
        "n_gen,batch,threads,reps,tps_median,tps_min,tps_max,tps_spread,model_bytes,"
        "ternary_bytes,bpw,prompts,tokens,matched,match_share,seed,status,reason,times_s,created,"
        "plan_key,lm_head,setup_s,token_bytes,bw_gbs,bound_tps,bound_share,profile,"
        "logit_diff,first_diff) "
        "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return db_error(s, e);
    char now[32];
    time_t tt = time(NULL);
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);
    int c = 1, lossless = !strcmp(r->test, "lossless");
    sqlite3_bind_int64(st, c++, run_id);
    sqlite3_bind_text(st, c++, r->model, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, c++, r->variant, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, c++, r->method, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, c++, r->layers);
    sqlite3_bind_int(st, c++, r->model_layers);
    sqlite3_bind_text(st, c++, r->test, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, c++, r->n_prompt);
    sqlite3_bind_int(st, c++, r->n_gen);
    sqlite3_bind_int(st, c++, r->batch);
    sqlite3_bind_int(st, c++, r->threads);
    sqlite3_bind_int(st, c++, r->reps);
    double tps[4] = {r->tps_median, r->tps_min, r->tps_max, r->tps_spread};
    for (int k = 0; k < 4; k++) {
        if (lossless || strcmp(r->status, "ok"))
            sqlite3_bind_null(st, c++);
        else
            sqlite3_bind_double(st, c++, tps[k]);
    }
    sqlite3_bind_int64(st, c++, (sqlite3_int64)r->model_bytes);
    sqlite3_bind_int64(st, c++, (sqlite3_int64)r->ternary_bytes);
    sqlite3_bind_double(st, c++, r->bpw);
    if (lossless) {
        sqlite3_bind_int(st, c++, r->prompts);
        sqlite3_bind_int(st, c++, r->tokens);
        sqlite3_bind_int(st, c++, r->matched);
        sqlite3_bind_double(st, c++, r->share);
    } else {
        for (int k = 0; k < 4; k++)
            sqlite3_bind_null(st, c++);
    }
    sqlite3_bind_int64(st, c++, (sqlite3_int64)r->seed);
    sqlite3_bind_text(st, c++, r->status, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, c++, r->reason, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, c++, r->times, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, c++, now, -1, SQLITE_TRANSIENT);
    if (plan_key)
        sqlite3_bind_text(st, c++, plan_key, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, c++);
    sqlite3_bind_text(st, c++, r->lm_head[0] ? r->lm_head : "f16", -1, SQLITE_TRANSIENT);
    if (r->setup_s > 0)
        sqlite3_bind_double(st, c++, r->setup_s);
    else
        sqlite3_bind_null(st, c++);
    if (r->token_bytes)
        sqlite3_bind_int64(st, c++, (sqlite3_int64)r->token_bytes);
    else
        sqlite3_bind_null(st, c++);
    double b[3] = {r->bw_gbs, r->bound_tps, r->bound_share};
    for (int k = 0; k < 3; k++) {
        if (b[k] > 0 && !strcmp(r->status, "ok"))
            sqlite3_bind_double(st, c++, b[k]);
        else
            sqlite3_bind_null(st, c++);
    }
    if (r->profile[0])
        sqlite3_bind_text(st, c++, r->profile, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, c++);
    if (lossless && !isnan(r->logit_diff) && r->first_diff >= 0) {
        sqlite3_bind_double(st, c++, r->logit_diff);
        sqlite3_bind_int(st, c++, r->first_diff);
    } else {
        sqlite3_bind_null(st, c++);
        sqlite3_bind_null(st, c++);
    }
    int step = sqlite3_step(st);
    sqlite3_finalize(st);
    return step == SQLITE_DONE ? MP_OK : db_error(s, e);
}

static void copy_text(sqlite3_stmt *st, int i, char *dst, size_t len)
{
    const char *t = (const char *)sqlite3_column_text(st, i);
    snprintf(dst, len, "%s", t ? t : "");
}

int mp_store_e2e_get(mp_store *s, const char *plan_key, const char *model, const char *variant,
                     const char *test, int threads, mp_e2e_row *r, mp_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(mp_store_db(s),
                           "SELECT method, layers, model_layers, n_prompt, n_gen, batch, reps,"
                           " tps_median, tps_min, tps_max, tps_spread, model_bytes, ternary_bytes,"
                           " bpw, prompts, tokens, matched, match_share, seed, status, reason,"
                           " times_s, lm_head, setup_s, token_bytes, bw_gbs, bound_tps,"
                           " bound_share, profile, logit_diff, first_diff"
                           " FROM e2e WHERE plan_key=? AND model=? AND variant=? AND"
                           " test=? AND threads=?",
                           -1, &st, NULL) != SQLITE_OK)
        return -db_error(s, e);
    sqlite3_bind_text(st, 1, plan_key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, model, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, variant, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, test, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 5, threads);
    int step = sqlite3_step(st), found = 0;
    if (step == SQLITE_ROW) {
        found = 1;
        mp_e2e_row key = {0}; /* the arguments may point into *r */
        snprintf(key.model, sizeof key.model, "%s", model);
        snprintf(key.variant, sizeof key.variant, "%s", variant);
        snprintf(key.test, sizeof key.test, "%s", test);
        *r = key;
        r->threads = threads;
        copy_text(st, 0, r->method, sizeof r->method);
        r->layers = sqlite3_column_int(st, 1);
        r->model_layers = sqlite3_column_int(st, 2);
        r->n_prompt = sqlite3_column_int(st, 3);
        r->n_gen = sqlite3_column_int(st, 4);
        r->batch = sqlite3_column_int(st, 5);
        r->reps = sqlite3_column_int(st, 6);
        r->tps_median = sqlite3_column_double(st, 7);
        r->tps_min = sqlite3_column_double(st, 8);
        r->tps_max = sqlite3_column_double(st, 9);
        r->tps_spread = sqlite3_column_double(st, 10);
        r->model_bytes = (size_t)sqlite3_column_int64(st, 11);
        r->ternary_bytes = (size_t)sqlite3_column_int64(st, 12);
        r->bpw = sqlite3_column_double(st, 13);
        r->prompts = sqlite3_column_int(st, 14);
        r->tokens = sqlite3_column_int(st, 15);
        r->matched = sqlite3_column_int(st, 16);
        r->share = sqlite3_column_double(st, 17);
        r->seed = (uint64_t)sqlite3_column_int64(st, 18);
        copy_text(st, 19, r->status, sizeof r->status);
        copy_text(st, 20, r->reason, sizeof r->reason);
        copy_text(st, 21, r->times, sizeof r->times);
        copy_text(st, 22, r->lm_head, sizeof r->lm_head);
        r->setup_s = sqlite3_column_double(st, 23);
        r->token_bytes = (size_t)sqlite3_column_int64(st, 24);
        r->bw_gbs = sqlite3_column_double(st, 25);
        r->bound_tps = sqlite3_column_double(st, 26);
        r->bound_share = sqlite3_column_double(st, 27);
        copy_text(st, 28, r->profile, sizeof r->profile);
        int known = sqlite3_column_type(st, 29) != SQLITE_NULL;
        r->logit_diff = known ? sqlite3_column_double(st, 29) : NAN;
        r->first_diff = known ? sqlite3_column_int(st, 30) : -1;
    }
    sqlite3_finalize(st);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return -db_error(s, e);
    return found;
}
