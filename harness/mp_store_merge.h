/* mp_store_merge.h - folding another mpbench database into an open store
 * (`mpbench merge`, store-merge.c). */
#ifndef MP_STORE_MERGE_H
#define MP_STORE_MERGE_H

#include "mp_harness.h"

/* Merges the database at path `in` into s in one transaction: its machines (by
 * fingerprint), its runs not already in s (same machine, start, command, kind)
 * and everything hanging off them.  Counts the runs added and skipped.  MP_EUSAGE
 * when `in` is not a file, not an mpbench database or of another schema version;
 * MP_ERUN on a database error.  On failure s is as it was before the call. */
int mp_store_merge(mp_store *s, const char *in, long *runs_added, long *runs_skipped,
                   mp_err *e);

#endif
