/* mp_store_e2e.h - end-to-end rows in the store: each (model, variant, test,
 * threads) row written as soon as it is measured, under the key of the e2e
 * plan that produced it, so a killed `mpbench e2e` run again resumes
 * (harness/store-e2e.c). */
#ifndef MP_STORE_E2E_H
#define MP_STORE_E2E_H

#include "mp_store.h"

/* Writes one row in its own transaction; a row already stored under the same
 * plan key is kept (plan_key NULL: never deduplicated). */
int mp_store_e2e_put(mp_store *s, int64_t run_id, const char *plan_key, const mp_e2e_row *r,
                     mp_err *e);
/* The row a plan already holds for (model, variant, test, threads): 1 found
 * (into r), 0 none, < 0 error. */
int mp_store_e2e_get(mp_store *s, const char *plan_key, const char *model, const char *variant,
                     const char *test, int threads, mp_e2e_row *r, mp_err *e);

#endif
