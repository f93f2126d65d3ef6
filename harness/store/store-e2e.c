/* store-e2e.c - end-to-end rows in the store (see mp_store_e2e.h).  NULL
 * columns: tokens/s of lossless or non-ok rows, the match counts of
 * performance rows, the logit figures of rows that did not measure them. */
#include <math.h>
#include <sqlite3.h>
#include <string.h>

#include "mp_store_internal.h"
#include "mp_store_e2e.h"

int mp_store_e2e_put(mp_store *s, int64_t run_id, const char *plan_key, const mp_e2e_row *r,
                     mp_err *e)
{
    const char *sql =
        "INSERT OR IGNORE INTO e2e(run_id,model,variant,method,layers,model_layers,test,n_prompt,"
        "n_gen,batch,threads,reps,tps_median,tps_min,tps_max,tps_spread,model_bytes,"
        "ternary_bytes,bpw,prompts,tokens,matched,match_share,seed,status,reason,times_s,created,"
        "plan_key,lm_head,setup_s,token_bytes,bw_gbs,bound_tps,bound_share,profile,"
        "logit_diff,first_diff,steps_matched,bw_row_gbs) "
        "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
    sqlite3_stmt *st;
    if (!(st = mp_store_prepare(s, sql)))
        return mp_store_db_error(s, e);
    char now[32];
    mp_store_now(now, sizeof now);
    /* bits-per-byte rows (issue 42) keep chunks, bytes and bpb in the lossless
     * columns, a zero-share row the weights and zeros (millions) and the share */
    int c = 1, lossless = !strcmp(r->test, "lossless") || !strcmp(r->test, "bpb") ||
                          !strcmp(r->test, "zeros");
    mp_store_bind(st, c, "Itttiitiiiii", (int64_t)run_id, r->model, r->variant, r->method,
                  r->layers, r->model_layers, r->test, r->n_prompt, r->n_gen, r->batch,
                  r->threads, r->reps);
    c += 12;
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
    /* a NULL plan_key binds NULL */
    mp_store_bind(st, c, "Itttttt", (int64_t)r->seed, r->status, r->reason, r->times, now,
                  plan_key, r->lm_head[0] ? r->lm_head : "f16");
    c += 7;
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
    if (lossless && r->steps_matched >= 0)
        sqlite3_bind_int(st, c++, r->steps_matched);
    else
        sqlite3_bind_null(st, c++);
    if (r->bw_row_gbs > 0 && !strcmp(r->status, "ok"))
        sqlite3_bind_double(st, c++, r->bw_row_gbs);
    else
        sqlite3_bind_null(st, c++);
    int step = sqlite3_step(st);
    sqlite3_finalize(st);
    return step == SQLITE_DONE ? MP_OK : mp_store_db_error(s, e);
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
                           " bound_share, profile, logit_diff, first_diff, steps_matched,"
                           " bw_row_gbs FROM e2e WHERE plan_key=? AND model=? AND variant=? AND"
                           " test=? AND threads=?",
                           -1, &st, NULL) != SQLITE_OK)
        return -mp_store_db_error(s, e);
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
        int64_t seed;
        mp_store_cols(st, 0, "tiiiiiiddddzzdiiidItttt", r->method, sizeof r->method, &r->layers,
                      &r->model_layers, &r->n_prompt, &r->n_gen, &r->batch, &r->reps,
                      &r->tps_median, &r->tps_min, &r->tps_max, &r->tps_spread, &r->model_bytes,
                      &r->ternary_bytes, &r->bpw, &r->prompts, &r->tokens, &r->matched,
                      &r->share, &seed, r->status, sizeof r->status, r->reason,
                      sizeof r->reason, r->times, sizeof r->times, r->lm_head,
                      sizeof r->lm_head);
        r->seed = (uint64_t)seed;
        mp_store_cols(st, 23, "dzdddt", &r->setup_s, &r->token_bytes, &r->bw_gbs,
                      &r->bound_tps, &r->bound_share, r->profile, sizeof r->profile);
        int known = sqlite3_column_type(st, 29) != SQLITE_NULL;
        r->logit_diff = known ? sqlite3_column_double(st, 29) : NAN;
        r->first_diff = known ? sqlite3_column_int(st, 30) : -1;
        r->steps_matched = sqlite3_column_type(st, 31) != SQLITE_NULL
                               ? sqlite3_column_int(st, 31) : -1;
        r->bw_row_gbs = sqlite3_column_double(st, 32); /* NULL reads 0 */
    }
    sqlite3_finalize(st);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return -mp_store_db_error(s, e);
    return found;
}
