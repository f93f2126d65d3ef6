/* mp_test.c - the helpers the Criterion tests share (declared in mp_test.h):
 * scratch folders, the mpbench binary as a child process, one-value SQL queries
 * on a test database, whole files read into memory.  Failures that leave the
 * test nothing to check (no scratch folder, no fork) abort it through
 * cr_assert; queries return a sentinel instead, so the caller's own assertion
 * names what was expected.  Linked into build/mptest only (not mptest-arm,
 * which has no Criterion and no SQLite). */
#include <criterion/criterion.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mp_test.h"

enum { BUSY_MS = 10000 }; /* a child may hold the write lock for a while */

const char *mp_test_bin(void)
{
    const char *b = getenv("MPBENCH_BIN");
    return b && *b ? b : "./mpbench";
}

void mp_test_tmpdir(char *buf, size_t len, const char *tag)
{
    int n = snprintf(buf, len, "/tmp/mptest-%s-XXXXXX", tag);
    cr_assert(n > 0 && (size_t)n < len, "tmpdir: %zu bytes are too few for tag '%s'", len, tag);
    cr_assert(mkdtemp(buf), "mkdtemp %s", buf);
}

void mp_test_scratch(char *dir, size_t dlen, char *path, size_t plen, const char *tag,
                     const char *name)
{
    mp_test_tmpdir(dir, dlen, tag);
    int n = snprintf(path, plen, "%s/%s", dir, name);
    cr_assert(n > 0 && (size_t)n < plen, "%s/%s: %zu bytes are too few", dir, name, plen);
}

void mp_test_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0, "cannot write %s", path);
}

pid_t mp_test_spawn(char *const *args, const char *err)
{
    pid_t pid = fork();
    cr_assert(pid >= 0, "fork");
    if (pid == 0) {
        if (!freopen(err ? err : "/dev/null", "w", stderr) || !freopen("/dev/null", "w", stdout))
            _exit(126);
        execv(mp_test_bin(), args);
        _exit(127);
    }
    return pid;
}

long mp_test_kill_midway(char *const *args, const char *db, const char *sql, long at_least)
{
    pid_t pid = mp_test_spawn(args, NULL);
    cr_assert_geq(mp_test_wait_rows(db, sql, at_least, 60), at_least, "%s: fewer than %ld in 60 s",
                  sql, at_least);
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    cr_assert(WIFSIGNALED(st), "%s %s finished before it was killed: make it longer", args[0],
              args[1]);
    return mp_test_query_long(db, sql);
}

void mp_test_sh(const char *cmd)
{
    int st = system(cmd);
    cr_assert(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s failed (status %d)", cmd, st);
}

/* Opens db read-only and steps sql once; returns the statement on a row (the
 * caller finalizes it and closes *h), else NULL with *h closed. */
static sqlite3_stmt *first_row(const char *db, const char *sql, sqlite3 **h)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_open_v2(db, h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        sqlite3_busy_timeout(*h, BUSY_MS);
        if (sqlite3_prepare_v2(*h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
            return st;
    }
    sqlite3_finalize(st);
    sqlite3_close(*h);
    return NULL;
}

long mp_test_query_long(const char *db, const char *sql)
{
    sqlite3 *h;
    sqlite3_stmt *st = first_row(db, sql, &h);
    if (!st)
        return -1;
    long v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

/* The first column of up to max_rows rows (when more than one, each followed
 * by a newline). */
static void query_rows(const char *db, const char *sql, char *buf, size_t len, int max_rows)
{
    sqlite3 *h;
    sqlite3_stmt *st = first_row(db, sql, &h);
    buf[0] = 0;
    if (!st)
        return;
    size_t used = 0;
    int rows = 0;
    do {
        const unsigned char *t = sqlite3_column_text(st, 0);
        used += (size_t)snprintf(buf + used, len - used, max_rows == 1 ? "%s" : "%s\n",
                                 t ? (const char *)t : "NULL");
    } while (++rows < max_rows && used < len && sqlite3_step(st) == SQLITE_ROW);
    sqlite3_finalize(st);
    sqlite3_close(h);
}

void mp_test_query_text(const char *db, const char *sql, char *buf, size_t len)
{
    query_rows(db, sql, buf, len, 1);
}

void mp_test_query_rows(const char *db, const char *sql, char *buf, size_t len)
{
    query_rows(db, sql, buf, len, INT_MAX);
}

long mp_test_wait_rows(const char *db, const char *sql, long at_least, int seconds)
{
    long rows = mp_test_query_long(db, sql);
    for (int i = 0; i < seconds * 200 && rows < at_least; i++) {
        usleep(5000);
        rows = mp_test_query_long(db, sql);
    }
    return rows;
}

int mp_test_integrity_ok(const char *db)
{
    char r[64];
    mp_test_query_text(db, "PRAGMA integrity_check", r, sizeof r);
    return !strcmp(r, "ok");
}

void mp_test_sql(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    cr_assert_eq(rc, SQLITE_OK, "fixture SQL failed: %s\n%s", msg ? msg : "?", sql);
    sqlite3_free(msg);
}

void mp_test_sqlf(sqlite3 *db, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *q = sqlite3_vmprintf(fmt, ap);
    va_end(ap);
    cr_assert(q, "sqlite3_vmprintf: out of memory");
    mp_test_sql(db, q);
    sqlite3_free(q);
}

sqlite3 *mp_test_schema(const char *db, const char *const *migrations, int n)
{
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK, "cannot open %s", db);
    for (int v = 1; v <= n; v++)
        cr_assert_eq(sqlite3_exec(h, migrations[v - 1], NULL, NULL, NULL), SQLITE_OK,
                     "migration %d: %s", v, sqlite3_errmsg(h));
    return h;
}

void mp_test_exec(const char *db, const char *sql)
{
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK, "cannot open %s", db);
    mp_test_sql(h, sql);
    sqlite3_close(h);
}

char *mp_test_slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    long n = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
    cr_assert_geq(n, 0, "cannot size %s", path);
    rewind(f);
    char *b = malloc((size_t)n + 1);
    cr_assert(b);
    cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n, "short read of %s", path);
    b[n] = 0; /* callers search and print it as a string */
    fclose(f);
    if (len)
        *len = n;
    return b;
}

void mp_test_unpacks_to(const mp_variant *v, const void *p, int m, int k, const int *param,
                        const int8_t *w)
{
    size_t count = (size_t)m * (size_t)k;
    int8_t *back = malloc(count ? count : 1);
    cr_assert(back, "unpack: no memory for %zu weights", count);
    v->unpack(p, m, k, param, back);
    for (size_t i = 0; i < count; i++)
        cr_assert_eq(back[i], w[i], "%s: unpack gives weight %zu = %d, packed %d", v->name, i,
                     back[i], w[i]);
    free(back);
}
