/* store-stmt.c - the small statement helpers every file of the store uses
 * (mp_store_internal.h): binding a row's values in one call (with the
 * statement prepared, or prepared and run, in the same call), reading text
 * columns with NULL as "", growing a result array, the time rows are stamped
 * with, and the error of a failed statement, so that each query reads as its
 * SQL, bindings and columns. */
#include <stdarg.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mp_store_internal.h"
#include "../../kernels/common/mp_numerics.h"

sqlite3_stmt *mp_store_prepare(mp_store *s, const char *sql)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(mp_store_db(s), sql, -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return NULL;
    }
    return st;
}

int mp_store_db_error(mp_store *s, mp_err *e)
{
    return mp_fail(e, MP_EIO, "database: %s", sqlite3_errmsg(mp_store_db(s)));
}

static void vbind(sqlite3_stmt *st, int first, const char *types, va_list ap)
{
    for (int i = first; *types; types++, i++) {
        switch (*types) {
        case 't':
            sqlite3_bind_text(st, i, va_arg(ap, const char *), -1, SQLITE_TRANSIENT);
            break;
        case 'i':
            sqlite3_bind_int(st, i, va_arg(ap, int));
            break;
        case 'I':
            sqlite3_bind_int64(st, i, va_arg(ap, int64_t));
            break;
        case 'd':
            sqlite3_bind_double(st, i, va_arg(ap, double));
            break;
        default:
            MP_ABORT("mp_store_bind: type '%c'", *types);
        }
    }
}

void mp_store_bind(sqlite3_stmt *st, int first, const char *types, ...)
{
    va_list ap;
    va_start(ap, types);
    vbind(st, first, types, ap);
    va_end(ap);
}

static sqlite3_stmt *vquery(mp_store *s, const char *sql, const char *types, va_list ap)
{
    sqlite3_stmt *st = mp_store_prepare(s, sql);
    if (st)
        vbind(st, 1, types, ap);
    return st;
}

sqlite3_stmt *mp_store_query(mp_store *s, const char *sql, const char *types, ...)
{
    va_list ap;
    va_start(ap, types);
    sqlite3_stmt *st = vquery(s, sql, types, ap);
    va_end(ap);
    return st;
}

int mp_store_do(mp_store *s, const char *sql, const char *types, ...)
{
    va_list ap;
    va_start(ap, types);
    sqlite3_stmt *st = vquery(s, sql, types, ap);
    va_end(ap);
    if (!st)
        return -1;
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

void mp_store_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void mp_store_cols(sqlite3_stmt *st, int first, const char *types, ...)
{
    va_list ap;
    va_start(ap, types);
    for (int i = first; *types; types++, i++) {
        switch (*types) {
        case 't': {
            char *dst = va_arg(ap, char *);
            size_t len = va_arg(ap, size_t);
            mp_store_col_copy(st, i, dst, len);
            break;
        }
        case 'i':
            *va_arg(ap, int *) = sqlite3_column_int(st, i);
            break;
        case 'I':
            *va_arg(ap, int64_t *) = sqlite3_column_int64(st, i);
            break;
        case 'z':
            *va_arg(ap, size_t *) = (size_t)sqlite3_column_int64(st, i);
            break;
        case 'd':
            *va_arg(ap, double *) = sqlite3_column_double(st, i);
            break;
        default:
            MP_ABORT("mp_store_cols: type '%c'", *types);
        }
    }
    va_end(ap);
}

const char *mp_store_col_text(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? (const char *)t : "";
}

void mp_store_col_copy(sqlite3_stmt *st, int i, char *dst, size_t len)
{
    snprintf(dst, len, "%s", mp_store_col_text(st, i));
}

void *mp_store_grow(void *p, int n, int *cap, size_t size, int first)
{
    if (n < *cap)
        return p;
    *cap = *cap ? 2 * *cap : first;
    return realloc(p, size * (size_t)*cap);
}
