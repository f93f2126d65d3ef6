/* mp_store.h - the results store (store/store.c): one SQLite database of
 * machines, runs, results and counters; the other store files add their
 * own tables (mp_store_*.h).  The only folder that speaks SQL. */
#ifndef MP_STORE_H
#define MP_STORE_H

#include <stdint.h>

#include "../core/mp_core.h"

/* ---- store (store/store.c) --------------------------------------------------- */
typedef struct mp_store mp_store;

/* Opens or creates the database; refuses (MP_EIO, untouched) directories,
 * non-regular files, non-SQLite files, SQLite files that are not mpbench's or
 * fail SQLite's quick_check (a corrupt page), and a read-only file or folder.
 * Runs this host left 'running' from a process that no longer exists are
 * marked 'interrupted'. */
int mp_store_open(const char *path, mp_store **out, mp_err *e);
/* Checks a database file without writing to it (opened read-only): a regular
 * file, SQLite, quick_check ok, an mpbench schema version (into *version).
 * MP_EIO naming `what` and path otherwise. */
int mp_store_verify(const char *path, const char *what, int *version, mp_err *e);
void mp_store_close(mp_store *s);
int mp_store_machine(mp_store *s, const mp_machine *m, int64_t *machine_id, mp_err *e);
int mp_store_run_begin(mp_store *s, int64_t machine_id, const char *kind,
                       const mp_machine *m, const char *command, const char *binding,
                       int64_t *run_id, mp_err *e);
int mp_store_run_end(mp_store *s, int64_t run_id, const char *status, mp_err *e);
/* Writes results in one transaction.  sweep_key (NULL for plain runs) marks the
 * rows of a resumable sweep; a row already stored under the same sweep key is kept
 * and the new one dropped, so concurrent or repeated sweeps never duplicate. */
int mp_store_results(mp_store *s, int64_t run_id, const char *sweep_key, const mp_result *r,
                     int n, mp_err *e);
/* Result rows mp_store_results added through this handle (a row another
 * process stored first is not counted). */
long mp_store_inserted(const mp_store *s);
/* Records, once per run, which events were refused and why. */
int mp_store_run_counters(mp_store *s, int64_t run_id, const struct mp_counters *c, mp_err *e);
int mp_store_set_config_key(mp_store *s, int64_t run_id, const char *key, mp_err *e);
int mp_store_run_binding(mp_store *s, int64_t run_id, const char *binding, mp_err *e);
/* Keys (core/result.c mp_point_key) of the results a plan already holds, in a
 * malloc'd array of malloc'd strings. */
int mp_store_done_keys(mp_store *s, const char *plan_key, const char *cache_mode, char ***keys,
                       int *n, mp_err *e);
/* Every stored result of a plan, oldest first (times_us NULL; variants this
 * build does not know are left out); *rows is malloc'd. */
int mp_store_plan_results(mp_store *s, const char *plan_key, const char *cache_mode,
                          mp_result **rows, int *n, mp_err *e);

#endif
