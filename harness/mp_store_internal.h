/* mp_store_internal.h - for the store's own files (harness/store*.c) only: the
 * SQLite handle behind an mp_store.  Nothing else speaks SQL
 * (scripts/check-layers.sh checks it). */
#ifndef MP_STORE_INTERNAL_H
#define MP_STORE_INTERNAL_H

#include "mp_harness.h"

/* The sqlite3 * of an open store. */
void *mp_store_db(mp_store *s);

#endif
