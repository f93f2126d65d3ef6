/* mp_store_internal.h - for the store's own files (harness/store*.c) only: the
 * SQLite handle behind an mp_store.  Nothing else speaks SQL
 * (scripts/check-layers.sh checks it). */
#ifndef MP_STORE_INTERNAL_H
#define MP_STORE_INTERNAL_H

#include <stddef.h>

#include "mp_store.h"

struct sqlite3_stmt; /* sqlite3.h's statement, for the helpers below */

/* The sqlite3 * of an open store. */
void *mp_store_db(mp_store *s);
/* A database file from elsewhere as a read-only SQLite URI (malloc'd), for
 * sqlite3_open_v2(..., SQLITE_OPEN_READONLY | SQLITE_OPEN_URI) or ATTACH on a
 * store: "file:PATH?mode=ro", plus immutable=1 when the file's folder is not
 * writable and no WAL is pending (see store.c). */
char *mp_store_ro_uri(const char *path);

/* The store's own helpers, shared by its files so each statement reads as its
 * SQL, its bindings and its columns. */
/* sql prepared on the store, or NULL (mp_store_db_error says why). */
struct sqlite3_stmt *mp_store_prepare(mp_store *s, const char *sql);
/* Fails with MP_EIO and "database: " the connection's last error. */
int mp_store_db_error(mp_store *s, mp_err *e);
/* Binds from parameter `first` on, one per letter of types: 't' const char *
 * (NULL binds NULL), 'i' int, 'I' int64_t, 'd' double. */
void mp_store_bind(struct sqlite3_stmt *st, int first, const char *types, ...);
/* sql prepared with its parameters bound from 1 on (types as mp_store_bind),
 * or NULL (mp_store_db_error says why). */
struct sqlite3_stmt *mp_store_query(mp_store *s, const char *sql, const char *types, ...);
/* A statement that returns no row: prepared, bound (as mp_store_query), run
 * and finalized; 0 when it ran to completion, else -1 (the connection's last
 * error says why). */
int mp_store_do(mp_store *s, const char *sql, const char *types, ...);
/* Now in UTC as the rows store it: "2026-01-31T12:00:00Z". */
void mp_store_now(char *buf, size_t len);
/* Reads columns from `first` on into the pointers that follow, one per letter
 * of types: 't' char * and its size_t length (cut, "" for NULL), 'i' int *,
 * 'I' int64_t *, 'z' size_t *, 'd' double *. */
void mp_store_cols(struct sqlite3_stmt *st, int first, const char *types, ...);
/* Column i as text, "" for NULL. */
const char *mp_store_col_text(struct sqlite3_stmt *st, int i);
/* Column i's text copied into dst (cut to len, "" for NULL). */
void mp_store_col_copy(struct sqlite3_stmt *st, int i, char *dst, size_t len);
/* An array of n items of size bytes with room for *cap: when full, doubled
 * (first items the first time) and returned reallocated, else returned as is. */
void *mp_store_grow(void *p, int n, int *cap, size_t size, int first);

#endif
