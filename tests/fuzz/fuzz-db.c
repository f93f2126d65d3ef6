/* fuzz-db.c - database files from elsewhere, as `merge` and `compare` meet
 * them: checked read-only (mp_store_verify); one that passes is read by
 * compare and merged into an in-memory store.  Nothing may crash, and the
 * input is never written.
 *
 * The program's own open and verify path runs unchanged: the input is a real
 * file, named by path, stat()ed, opened read-only by SQLite, attached by merge.
 * Three things make it fast (it ran ~350 executions/s opening a real SQLite
 * file per input):
 *  - SQLite reads the input's bytes from memory.  A VFS registered as the
 *    default wraps the unix one: every file is the unix VFS's (locks, a WAL
 *    and its -shm for an input that says it is in WAL mode), but for the input
 *    database the reads and the size come from the fuzz input, so no input is
 *    written to disk and read back page by page; a write or truncate of the
 *    input aborts (the input was written to: read-only means read-only).
 *  - The store merged into is made once: a fresh store runs every schema
 *    migration.  After each input it is reset to its image when new
 *    (sqlite3_deserialize of its sqlite3_serialize).
 *  - In the libFuzzer binary only, SQLite's own memory comes from glibc's
 *    allocator, past ASan's (which took half the time: SQLite, not
 *    instrumented, makes thousands of small allocations per open), with
 *    SQLite's mutexes and memory statistics off (one thread).  ASan still
 *    checks every access of our code; what it no longer sees, SQLite objects
 *    our code leaks (a statement not finalized, a connection not closed, an
 *    sqlite3_mprintf not freed), is checked here instead: after every input,
 *    with every connection closed and the store reset, the number of live
 *    SQLite allocations must be what it was after the first.  The corpus
 *    replay in the tests (tests/test_fuzz.c, also under make check-asan) runs
 *    with SQLite on the normal allocator, under ASan and LeakSanitizer. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_fuzz.h"
#include "../../harness/core/mp_core.h"
#include "../../harness/store/mp_store_compare.h"
#include "../../harness/store/mp_store_internal.h"
#include "../../harness/store/mp_store_merge.h"

/* ---- SQLite's memory (libFuzzer binary) ---------------------------------------------------- */

#ifdef MP_FUZZ_TARGET
extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_realloc(void *, size_t);

static long live_allocs; /* SQLite allocations not yet freed */

/* Each block carries its size in 16 bytes before it (SQLite asks for it). */
static void *s_malloc(int n)
{
    long long *p = __libc_malloc((size_t)n + 16);
    if (!p)
        return NULL;
    live_allocs++;
    p[0] = n;
    return p + 2;
}
static void s_free(void *p)
{
    if (p) {
        live_allocs--;
        __libc_free((long long *)p - 2);
    }
}
static void *s_realloc(void *p, int n)
{
    if (!p)
        return s_malloc(n);
    long long *q = __libc_realloc((long long *)p - 2, (size_t)n + 16);
    if (!q)
        return NULL;
    q[0] = n;
    return q + 2;
}
static int s_size(void *p) { return p ? (int)((long long *)p)[-2] : 0; }
static int s_roundup(int n) { return (n + 7) & ~7; }
static int s_init(void *a) { (void)a; return SQLITE_OK; }
static void s_shutdown(void *a) { (void)a; }
static const sqlite3_mem_methods libc_mem = {s_malloc, s_free, s_realloc, s_size, s_roundup,
                                             s_init, s_shutdown, NULL};

static void sqlite_setup(void)
{
    if (sqlite3_config(SQLITE_CONFIG_MALLOC, &libc_mem) != SQLITE_OK ||
        sqlite3_config(SQLITE_CONFIG_SINGLETHREAD) != SQLITE_OK ||
        sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) != SQLITE_OK) {
        fprintf(stderr, "fuzz-db: SQLite was initialized before the target configured it\n");
        abort();
    }
}

static void leak_check(void)
{
    static long baseline = -1;
    if (baseline < 0)
        baseline = live_allocs;
    else if (live_allocs != baseline) {
        fprintf(stderr, "fuzz-db: %ld SQLite allocations live after this input, %ld after the "
                        "first: an SQLite object leaked\n", live_allocs, baseline);
        abort();
    }
}
#else
static void sqlite_setup(void) {}
static void leak_check(void) {}
#endif

/* ---- the VFS --------------------------------------------------------------------------- */

static sqlite3_vfs *unix_vfs, mem_vfs;
static char in_path[512]; /* the input's full path, as SQLite names it */
static int side_files;    /* a journal or WAL of the input was opened: remove it */
static const uint8_t *in_data;
static size_t in_size;

typedef struct mem_file {
    sqlite3_file base;
    int is_input;
    sqlite3_file *real; /* the unix VFS's file, in the bytes after this struct */
} mem_file;

#define REAL(f) (((mem_file *)(f))->real)
#define INPUT(f) (((mem_file *)(f))->is_input)

static int m_close(sqlite3_file *f)
{
    return REAL(f)->pMethods->xClose(REAL(f));
}

static int m_read(sqlite3_file *f, void *buf, int amt, sqlite3_int64 off)
{
    if (!INPUT(f))
        return REAL(f)->pMethods->xRead(REAL(f), buf, amt, off);
    /* as the unix VFS does: a short read is zero-filled and said to be short */
    size_t got = off < 0 || (size_t)off >= in_size ? 0 : in_size - (size_t)off;
    if (got > (size_t)amt)
        got = (size_t)amt;
    if (got)
        memcpy(buf, in_data + off, got);
    if (got < (size_t)amt) {
        memset((char *)buf + got, 0, (size_t)amt - got);
        return SQLITE_IOERR_SHORT_READ;
    }
    return SQLITE_OK;
}

static int m_write(sqlite3_file *f, const void *buf, int amt, sqlite3_int64 off)
{
    if (INPUT(f)) {
        fprintf(stderr, "fuzz-db: SQLite wrote %d bytes at %lld of the input\n", amt,
                (long long)off);
        abort(); /* the input was written to */
    }
    return REAL(f)->pMethods->xWrite(REAL(f), buf, amt, off);
}

static int m_truncate(sqlite3_file *f, sqlite3_int64 size)
{
    if (INPUT(f)) {
        fprintf(stderr, "fuzz-db: SQLite truncated the input to %lld bytes\n", (long long)size);
        abort();
    }
    return REAL(f)->pMethods->xTruncate(REAL(f), size);
}

static int m_sync(sqlite3_file *f, int flags)
{
    return REAL(f)->pMethods->xSync(REAL(f), flags);
}

static int m_size(sqlite3_file *f, sqlite3_int64 *size)
{
    if (INPUT(f)) {
        *size = (sqlite3_int64)in_size;
        return SQLITE_OK;
    }
    return REAL(f)->pMethods->xFileSize(REAL(f), size);
}

static int m_lock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xLock(REAL(f), l); }
static int m_unlock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xUnlock(REAL(f), l); }
static int m_reserved(sqlite3_file *f, int *r)
{
    return REAL(f)->pMethods->xCheckReservedLock(REAL(f), r);
}
static int m_control(sqlite3_file *f, int op, void *arg)
{
    return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}
static int m_sector(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int m_device(sqlite3_file *f)
{
    return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}
static int m_shm_map(sqlite3_file *f, int pg, int pgsz, int extend, void volatile **p)
{
    return REAL(f)->pMethods->xShmMap(REAL(f), pg, pgsz, extend, p);
}
static int m_shm_lock(sqlite3_file *f, int off, int n, int flags)
{
    return REAL(f)->pMethods->xShmLock(REAL(f), off, n, flags);
}
static void m_shm_barrier(sqlite3_file *f) { REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int m_shm_unmap(sqlite3_file *f, int del)
{
    return REAL(f)->pMethods->xShmUnmap(REAL(f), del);
}

/* version 2: shared memory (WAL inputs) but no xFetch, so every page is read by m_read */
static const sqlite3_io_methods mem_methods = {
    2,       m_close,  m_read,     m_write,   m_truncate,   m_sync,         m_size,
    m_lock,  m_unlock, m_reserved, m_control, m_sector,     m_device,       m_shm_map,
    m_shm_lock, m_shm_barrier, m_shm_unmap, NULL, NULL};

static int m_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
    (void)vfs;
    mem_file *m = (mem_file *)f;
    m->real = (sqlite3_file *)(m + 1);
    m->is_input = name && (flags & SQLITE_OPEN_MAIN_DB) && !strcmp(name, in_path);
    side_files |= (flags & (SQLITE_OPEN_WAL | SQLITE_OPEN_MAIN_JOURNAL)) != 0;
    int rc = unix_vfs->xOpen(unix_vfs, name, m->real, flags, out);
    /* SQLite calls xClose only on a file whose open succeeded */
    f->pMethods = rc == SQLITE_OK ? &mem_methods : NULL;
    return rc;
}

/* The input's path is already full (mp_fuzz_file's, under /dev/shm or /tmp):
 * no lstat of every component, as the unix VFS does, for each open */
static int m_full(sqlite3_vfs *vfs, const char *name, int len, char *out)
{
    (void)vfs;
    if (!strcmp(name, in_path) && strlen(in_path) < (size_t)len) {
        strcpy(out, in_path);
        return SQLITE_OK;
    }
    return unix_vfs->xFullPathname(unix_vfs, name, len, out);
}

static void vfs_install(const char *path)
{
    unix_vfs = sqlite3_vfs_find(NULL);
    if (!unix_vfs)
        abort();
    mem_vfs = *unix_vfs;
    mem_vfs.zName = "mpfuzz-mem";
    mem_vfs.szOsFile = (int)sizeof(mem_file) + unix_vfs->szOsFile;
    mem_vfs.xOpen = m_open;
    mem_vfs.xFullPathname = m_full;
    if (unix_vfs->xFullPathname(unix_vfs, path, (int)sizeof in_path, in_path) != SQLITE_OK ||
        sqlite3_vfs_register(&mem_vfs, 1) != SQLITE_OK)
        abort();
}

/* ---- the target ------------------------------------------------------------------------ */

/* The in-memory store merged into, and its image when new. */
static mp_store *store;
static unsigned char *store_image;
static sqlite3_int64 store_len;

static void store_make(void)
{
    mp_err e;
    if (mp_store_open(":memory:", &store, &e) != MP_OK)
        abort(); /* the fuzzer's own environment, not the input */
    store_image = sqlite3_serialize(mp_store_db(store), "main", &store_len, 0);
    if (!store_image)
        abort();
}

static void store_reset(void);

/* Back to the image: the database a fresh mp_store_open(":memory:") gives. */
static void store_reset(void)
{
    unsigned char *copy = sqlite3_malloc64((sqlite3_uint64)store_len);
    if (!copy)
        abort();
    memcpy(copy, store_image, (size_t)store_len);
    if (sqlite3_deserialize(mp_store_db(store), "main", copy, store_len, store_len,
                            SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE) !=
        SQLITE_OK) {
        fprintf(stderr, "fuzz-db: the store cannot be reset: %s (did merge leave a "
                        "transaction or a statement open?)\n", sqlite3_errmsg(mp_store_db(store)));
        abort();
    }
    /* the schema read now, whatever the input made merge do (a failed ATTACH
     * leaves it unread, a merge read): one state, one allocation count */
    if (sqlite3_exec(mp_store_db(store), "SELECT count(*) FROM sqlite_master", NULL, NULL,
                     NULL) != SQLITE_OK)
        abort();
}

int mp_fuzz_db(const uint8_t *data, size_t size)
{
    /* the file the program opens: created once (empty: its bytes come from the
     * VFS); a WAL or journal of the last input must not be applied to this one */
    static const char *path;
    if (!path) {
        sqlite_setup();
        path = mp_fuzz_file(NULL, 0, ".db");
        vfs_install(path);
        store_make();
        store_reset(); /* the state it is in after every input, for leak_check */
    } else if (side_files) {
        char side[600];
        static const char *const sfx[] = {"-journal", "-wal", "-shm"};
        for (int i = 0; i < 3; i++) {
            snprintf(side, sizeof side, "%s%s", path, sfx[i]);
            unlink(side);
        }
        side_files = 0;
    }
    in_data = data;
    in_size = size;
    mp_err e;
    int version;
    if (mp_store_verify(path, "fuzz", &version, &e) == MP_OK && version > 0) {
        mp_cmp_run r;
        if (mp_store_compare_read(path, "--base", 0, NULL, &r, &e) == MP_OK)
            mp_store_compare_free(&r);
        if (mp_store_compare_read(path, "--base", 0, "fuzz-machine", &r, &e) == MP_OK)
            mp_store_compare_free(&r);
        long added = 0, skipped = 0, kept = 0;
        mp_store_merge(store, path, &added, &skipped, &kept, &e);
        store_reset();
    }
    in_data = NULL;
    in_size = 0;
    leak_check();
    return 0;
}
