/* mp_store_internal.h - for the store's own files (harness/store*.c) only: the
 * SQLite handle behind an mp_store.  Nothing else speaks SQL
 * (scripts/check-layers.sh checks it). */
#ifndef MP_STORE_INTERNAL_H
#define MP_STORE_INTERNAL_H

#include "mp_store.h"

/* The sqlite3 * of an open store. */
void *mp_store_db(mp_store *s);
/* A database file from elsewhere as a read-only SQLite URI (malloc'd), for
 * sqlite3_open_v2(..., SQLITE_OPEN_READONLY | SQLITE_OPEN_URI) or ATTACH on a
 * store: "file:PATH?mode=ro", plus immutable=1 when the file's folder is not
 * writable and no WAL is pending (see store.c). */
char *mp_store_ro_uri(const char *path);

#endif
