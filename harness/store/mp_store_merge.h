/* mp_store_merge.h - folding another mpbench database into an open store
 * (`mpbench merge`, store-merge.c). */
#ifndef MP_STORE_MERGE_H
#define MP_STORE_MERGE_H

#include "mp_store.h"

/* Checks, read-only, that `in` can be merged: a sound mpbench database
 * (mp_store_verify) of this schema version.  MP_EIO or MP_EUSAGE naming it. */
int mp_store_merge_check(const char *in, mp_err *e);
/* Merges the database at path `in` into s in one transaction: its machines (by
 * fingerprint), its runs not already in s (same uid; runs from before schema 6:
 * same machine, start, command, kind) and everything hanging off them, then
 * verifies that every result row of `in` is in s.  Counts the runs added and
 * skipped, and the rows of added runs not added because s holds a row of the
 * same plan already (the same e2e plan key or sweep key: the first is kept).  MP_EIO / MP_EUSAGE as mp_store_merge_check, MP_EIO on a database
 * error or a failed verification.  On failure s is as it was before the call. */
int mp_store_merge(mp_store *s, const char *in, long *runs_added, long *runs_skipped,
                   long *rows_kept, mp_err *e);
/* As mp_store_merge, but the input's rows replace the rows of the same plan s
 * holds (`merge --replace`: a re-recorded baseline): those rows, their
 * counters, and a run left without any row are removed first.  *rows_replaced
 * counts the rows removed, *runs_removed the runs. */
int mp_store_merge_replace(mp_store *s, const char *in, long *runs_added, long *runs_skipped,
                           long *rows_replaced, long *runs_removed, mp_err *e);

#endif
