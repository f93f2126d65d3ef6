/* mp_store_tune.h - the store's tuning rows: one decision per (plan, variant,
 * problem), written as soon as it is made, read back to resume a tune and for
 * `tune --report` (harness/store-tune.c). */
#ifndef MP_STORE_TUNE_H
#define MP_STORE_TUNE_H

#include "mp_store.h"

typedef struct mp_tuned_row {
    char machine[64], cpu_model[128]; /* list only: the machine of the run */
    char variant[96];
    int m, k, n, threads;
    char strategy[16];
    char best_params[128], default_params[128], chosen_params[128];
    double best_us, default_us, gain_pct, p_value;
    int aba_confirmed;
    char decision[128];
    int evaluations;
    double seconds;
    /* report only: the newest exhaustive search of the same key, if any */
    int have_exhaustive;
    double exhaustive_us;
    char exhaustive_params[128];
} mp_tuned_row;

/* Writes one decision; a row already stored under the same plan key and problem
 * is kept (resumed tunes never duplicate).  plan_key may be NULL. */
int mp_store_tuned_put(mp_store *s, int64_t run_id, const char *plan_key, const mp_tuned_row *r,
                       mp_err *e);
/* The decision of a plan for one problem: 1 found (into r), 0 none, < 0 error. */
int mp_store_tuned_get(mp_store *s, const char *plan_key, const char *variant, int m, int k,
                       int n, int threads, mp_tuned_row *r, mp_err *e);
/* Every decision (plan_key NULL) or a plan's, ordered by machine, variant,
 * shape, n, threads, strategy; with the machine and the exhaustive columns (the
 * newest exhaustive search of the same key on the same machine); *rows malloc'd. */
int mp_store_tuned_list(mp_store *s, const char *plan_key, mp_tuned_row **rows, int *n,
                        mp_err *e);

/* One stored result of a sweep's parameter grid: the newest per machine and key. */
typedef struct mp_sweep_grid_row {
    const char *fingerprint, *variant, *cache_mode, *params, *times_us;
    int m, k, n, threads;
    double median_us;
} mp_sweep_grid_row;

/* Calls fn for the newest ok/unstable sweep result of every (machine, variant,
 * params, problem, cache mode), ordered by machine, variant, problem, warm
 * before cold, params. */
int mp_store_sweep_grid(mp_store *s, void (*fn)(void *ctx, const mp_sweep_grid_row *r),
                        void *ctx, mp_err *e);

#endif
