/* store.c - the SQLite results store (DESIGN.md "Results store").
 *
 * One file, WAL mode, a busy timeout so concurrent writers wait instead of
 * failing, and every batch of results in one transaction.  The schema carries
 * a version in meta; opening an older database applies the migrations in order.
 * A file that is not SQLite, or SQLite that is not ours, is refused untouched. */
#include <errno.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "mp_store_internal.h"
#include "../core/mp_core.h"
#include "mp_store_schema.h"
#include "../../kernels/common/mp_isa.h"
#include "../../variants/mp_registry.h"

struct mp_store {
    sqlite3 *db;
    char path[1024];
    long inserted; /* result rows this process added (not those another had) */
    dev_t dev;     /* the file opened: a database deleted or replaced under a */
    ino_t ino;     /* running sweep is an error, not rows written into the void */
    int created;   /* this open made the file: removed at close if it holds no row */
};

/* MP_EIO when the path no longer names the file this store opened. */
static int still_there(mp_store *s, mp_err *e)
{
    struct stat st;
    if (!s->ino)
        return MP_OK; /* in memory */
    if (stat(s->path, &st) != 0)
        return mp_fail(e, MP_EIO, "database %s was deleted while this command ran (%s); "
                                  "nothing more is stored", s->path, strerror(errno));
    if (st.st_dev != s->dev || st.st_ino != s->ino)
        return mp_fail(e, MP_EIO, "database %s was replaced by another file while this command "
                                  "ran; nothing more is stored", s->path);
    return MP_OK;
}

long mp_store_inserted(const mp_store *s)
{
    return s ? s->inserted : 0;
}

void *mp_store_db(mp_store *s)
{
    return s->db;
}

static int exec(mp_store *s, const char *sql, mp_err *e)
{
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        int rc = mp_fail(e, MP_EIO, "database %s: %s", s->path, msg ? msg : "error");
        sqlite3_free(msg);
        return rc;
    }
    return MP_OK;
}

/* The folder holding the file path: "/" for "/x", "." for a bare name. */
static void path_dir(const char *path, char *dir, size_t len)
{
    snprintf(dir, len, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash == dir ? (void)(dir[1] = 0) : (void)(*slash = 0);
    else
        snprintf(dir, len, ".");
}

char *mp_store_ro_uri(const char *path)
{
    /* Every byte of the path but [A-Za-z0-9/._~-] percent-encoded; leading
     * slashes made one ("file://" would name a host). */
    size_t n = strlen(path);
    char *u = malloc(3 * n + 32), *o = u;
    o += sprintf(o, "file:");
    const char *p = path;
    while (p[0] == '/' && p[1] == '/')
        p++;
    for (; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            strchr("/._~-", c))
            *o++ = (char)c;
        else
            o += sprintf(o, "%%%02X", c);
    }
    o += sprintf(o, "?mode=ro");
    /* Every mpbench database is in WAL mode, and SQLite reads one only with its
     * -wal and -shm files beside it, creating them if missing: in a read-only
     * folder (a share, a mount, another user's results) it cannot, and the
     * database could not be read at all.  With no -wal file there, no
     * connection has the database open (a WAL connection keeps it until the
     * last one closes) and the file itself changes only in a checkpoint, which
     * needs a -wal: then it is read as immutable (no locks, no side files). */
    char dir[4096], wal[4200];
    path_dir(path, dir, sizeof dir);
    snprintf(wal, sizeof wal, "%s-wal", path);
    if (access(dir, W_OK) != 0 && access(wal, F_OK) != 0)
        strcpy(o, "&immutable=1");
    return u;
}

static int user_version(sqlite3 *db, int *out)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key='schema_version'", -1,
                                &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    *out = 0;
    if (sqlite3_step(st) == SQLITE_ROW)
        *out = atoi((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return SQLITE_OK;
}

/* ": its disk is full (No space left on device)" when the folder of path has
 * no free block: SQLite then says only "disk I/O error". */
static const char *disk_full_note(const char *path)
{
    char dir[1024];
    struct statvfs v;
    path_dir(path, dir, sizeof dir);
    return statvfs(dir, &v) == 0 && v.f_bavail == 0
               ? ": its disk is full (No space left on device)"
               : "";
}

int mp_store_verify(const char *path, const char *what, int *version, mp_err *e)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return mp_fail(e, MP_EIO, "%s %s: %s", what, path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return mp_fail(e, MP_EIO, "%s %s: not a regular file", what, path);
    sqlite3 *db = NULL;
    char *uri = mp_store_ro_uri(path);
    int orc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    free(uri);
    if (orc != SQLITE_OK) {
        int rc = mp_fail(e, MP_EIO, "%s %s: cannot open (%s)", what, path,
                         db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return rc;
    }
    sqlite3_busy_timeout(db, 30000);
    /* quick_check reads every page: a corrupt one is found here, before the
     * database is trusted or written to */
    sqlite3_stmt *q;
    char verdict[200] = "";
    int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &q, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(q);
        if (rc == SQLITE_ROW && sqlite3_column_text(q, 0))
            snprintf(verdict, sizeof verdict, "%s", (const char *)sqlite3_column_text(q, 0));
    }
    if (rc != SQLITE_ROW && !verdict[0])
        snprintf(verdict, sizeof verdict, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(q);
    if (strcmp(verdict, "ok")) {
        int code = sqlite3_errcode(db);
        sqlite3_close(db);
        if (code == SQLITE_NOTADB || code == SQLITE_OK || code == SQLITE_ROW ||
            code == SQLITE_DONE)
            return mp_fail(e, MP_EIO, "%s %s: not an mpbench database (%s); left untouched",
                           what, path, verdict);
        if (code == SQLITE_CORRUPT)
            return mp_fail(e, MP_EIO, "%s %s: corrupt (%s); left untouched", what, path,
                           verdict);
        return mp_fail(e, MP_EIO, "%s %s: cannot read (%s)%s", what, path, verdict,
                       disk_full_note(path));
    }
    int ntables = 0;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE type='table'", -1, &q,
                           NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
        ntables = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    *version = 0;
    int ok = ntables == 0;
    if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key='schema_version'", -1, &q,
                           NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW &&
        sqlite3_column_type(q, 0) != SQLITE_NULL) {
        const char *v = (const char *)sqlite3_column_text(q, 0);
        char *end;
        long n = strtol(v, &end, 10);
        if (!*end && n >= 1 && n < 1000000)
            *version = (int)n, ok = 1;
    }
    sqlite3_finalize(q);
    sqlite3_close(db);
    if (!ok)
        return mp_fail(e, MP_EIO, "%s %s: not an mpbench database: SQLite but not mpbench's (no "
                                  "valid schema version); left untouched", what, path);
    if (*version > MP_SCHEMA_VERSION)
        return mp_fail(e, MP_EIO, "%s %s: schema version %d is newer than this mpbench (%d)",
                       what, path, *version, MP_SCHEMA_VERSION);
    return MP_OK;
}

/* Runs of this host whose process is gone were killed: say so. */
static void mark_interrupted(mp_store *s)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    sqlite3_stmt *q;
    if (!(q = mp_store_prepare(s, "SELECT id, pid FROM runs WHERE status='running' AND host=? "
                                  "AND pid IS NOT NULL")))
        return;
    sqlite3_bind_text(q, 1, host, -1, SQLITE_TRANSIENT);
    int64_t ids[256];
    int n = 0;
    while (n < 256 && sqlite3_step(q) == SQLITE_ROW) {
        pid_t pid = (pid_t)sqlite3_column_int64(q, 1);
        if (pid > 0 && kill(pid, 0) != 0 && errno == ESRCH)
            ids[n++] = sqlite3_column_int64(q, 0);
    }
    sqlite3_finalize(q);
    for (int i = 0; i < n; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "UPDATE runs SET status='interrupted' WHERE id=%lld AND "
                                  "status='running'", (long long)ids[i]);
        sqlite3_exec(s->db, sql, NULL, NULL, NULL);
    }
}

int mp_store_open(const char *path, mp_store **out, mp_err *e)
{
    struct stat st;
    *out = NULL;
    if (!path || !*path)
        return mp_fail(e, MP_EUSAGE, "--db: empty path");
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
        return mp_fail(e, MP_EIO, "--db %s: is a directory, not a database file", path);
    if (exists && !S_ISREG(st.st_mode))
        return mp_fail(e, MP_EIO, "--db %s: not a regular file (a device or pipe); give a "
                                  "database file", path);
    if (exists) {
        /* the folder must take SQLite's journal and WAL files, the file our rows */
        char dir[1024];
        path_dir(path, dir, sizeof dir);
        if (access(path, W_OK) != 0)
            return mp_fail(e, MP_EIO, "--db %s: read-only (%s); left untouched", path,
                           strerror(errno));
        if (access(dir, W_OK) != 0)
            return mp_fail(e, MP_EIO, "--db %s: its folder %s is read-only (%s): SQLite writes "
                                      "its journal there; left untouched", path, dir,
                           strerror(errno));
        int version;
        int rc = st.st_size ? mp_store_verify(path, "--db", &version, e) : MP_OK;
        if (rc)
            return rc;
    }
    if (!exists) {
        /* create the parent folder of the default location */
        char dir[1024];
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash) {
            *slash = 0;
            if (*dir && stat(dir, &st) != 0 && mkdir(dir, 0755) != 0)
                return mp_fail(e, MP_EIO, "--db %s: cannot create folder %s (%s)", path,
                               dir, strerror(errno));
        }
    }
    mp_store *s = calloc(1, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", path);
    s->created = !exists; /* a failed open leaves no new file behind */
    /* URIs on: merge attaches its inputs as "file:...?mode=ro" (store-merge.c).  A
     * path of ours that starts with "file:" is given as ./file:..., so it stays a path */
    char open_path[1040];
    snprintf(open_path, sizeof open_path, "%s%s", strncmp(path, "file:", 5) ? "" : "./", path);
    if (sqlite3_open_v2(open_path, &s->db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI,
                        NULL) != SQLITE_OK) {
        int rc = mp_fail(e, MP_EIO, "--db %s: cannot open (%s)", path,
                         s->db ? sqlite3_errmsg(s->db) : "out of memory");
        mp_store_close(s);
        return rc;
    }
    sqlite3_busy_timeout(s->db, 30000);
    /* Is it SQLite, and is it ours?  Reading the schema fails on non-SQLite files. */
    sqlite3_stmt *q;
    int ntables = 0, has_meta = 0, prc = SQLITE_OK;
    for (int attempt = 0; attempt < 500; attempt++) {
        prc = sqlite3_prepare_v2(s->db, "SELECT name FROM sqlite_master WHERE type='table'", -1,
                                 &q, NULL);
        if (prc != SQLITE_BUSY && prc != SQLITE_LOCKED)
            break;
        usleep(10000); /* another process is creating the file right now */
    }
    if (prc != SQLITE_OK) {
        int rc = mp_fail(e, MP_EIO, "--db %s: not an mpbench database (%s); left untouched",
                         path, sqlite3_errmsg(s->db));
        mp_store_close(s);
        return rc;
    }
    int step;
    for (int attempt = 0;; attempt++) {
        ntables = has_meta = 0;
        while ((step = sqlite3_step(q)) == SQLITE_ROW) {
            ntables++;
            has_meta |= !strcmp((const char *)sqlite3_column_text(q, 0), "meta");
        }
        if ((step != SQLITE_BUSY && step != SQLITE_LOCKED) || attempt == 500)
            break;
        sqlite3_reset(q);
        usleep(10000);
    }
    sqlite3_finalize(q);
    if (step != SQLITE_DONE) {
        int rc = mp_fail(e, MP_EIO, "--db %s: not an mpbench database (%s); left untouched",
                         path, sqlite3_errmsg(s->db));
        mp_store_close(s);
        return rc;
    }
    int version = 0;
    if (ntables && (!has_meta || user_version(s->db, &version) != SQLITE_OK || version < 1)) {
        int rc = mp_fail(e, MP_EIO,
                         "--db %s: an SQLite database but not mpbench's (no schema version); "
                         "left untouched",
                         path);
        mp_store_close(s);
        return rc;
    }
    if (version > MP_SCHEMA_VERSION) {
        int rc = mp_fail(e, MP_EIO,
                         "--db %s: schema version %d is newer than this mpbench (%d)", path,
                         version, MP_SCHEMA_VERSION);
        mp_store_close(s);
        return rc;
    }
    /* Switching a new file to WAL needs a moment of exclusive access; two
     * processes creating one database at once can get SQLITE_BUSY here without
     * the busy handler being called, so retry for a while. */
    int rc = MP_OK;
    for (int attempt = 0; attempt < 500; attempt++) {
        rc = exec(s, "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;", e);
        int code = sqlite3_errcode(s->db);
        if (!rc || (code != SQLITE_BUSY && code != SQLITE_LOCKED))
            break;
        usleep(10000);
    }
    if (rc) {
        mp_store_close(s);
        return rc;
    }
    /* migrations, each in its own transaction; a concurrent opener waits, then
     * re-reads the version inside the transaction */
    for (int v = 1; v <= MP_SCHEMA_VERSION; v++) {
        if ((rc = exec(s, "BEGIN IMMEDIATE", e))) {
            mp_store_close(s);
            return rc;
        }
        int cur = 0;
        if (user_version(s->db, &cur) != SQLITE_OK)
            cur = 0;
        if (cur < v) {
            rc = exec(s, mp_schema_migrations[v - 1], e);
            if (!rc) {
                char sql[128];
                snprintf(sql, sizeof sql,
                         "INSERT OR REPLACE INTO meta(key,value) VALUES('schema_version','%d')",
                         v);
                rc = exec(s, sql, e);
            }
        }
        if (rc) {
            exec(s, "ROLLBACK", e);
            mp_store_close(s);
            return rc;
        }
        if ((rc = exec(s, "COMMIT", e))) {
            mp_store_close(s);
            return rc;
        }
    }
    mark_interrupted(s);
    if (stat(path, &st) == 0)
        s->dev = st.st_dev, s->ino = st.st_ino;
    *out = s;
    return MP_OK;
}

/* 1 when the database holds a machine or a run (0 when it cannot be read). */
static int holds_rows(mp_store *s)
{
    sqlite3_stmt *q;
    int any = 0;
    if (sqlite3_prepare_v2(s->db, "SELECT 1 FROM machines UNION ALL SELECT 1 FROM runs LIMIT 1",
                           -1, &q, NULL) == SQLITE_OK) {
        any = sqlite3_step(q) == SQLITE_ROW;
        sqlite3_finalize(q);
    }
    return any;
}

void mp_store_close(mp_store *s)
{
    if (!s)
        return;
    /* issue 40: a database this command created and could not store a row in
     * (a full disk, a file size limit, a failed open) is not left behind
     * half-made, nor are its journal, WAL and index */
    int remove = s->created && (!s->db || !holds_rows(s));
    if (s->db)
        sqlite3_close(s->db);
    if (remove && s->ino) {
        struct stat st;
        if (stat(s->path, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino)
            unlink(s->path);
    } else if (remove && !s->ino) {
        unlink(s->path); /* the open failed: the file is the one it just made */
    }
    if (remove) {
        static const char *const ext[] = {"-journal", "-wal", "-shm"};
        for (int i = 0; i < 3; i++) {
            char side[1100];
            snprintf(side, sizeof side, "%s%s", s->path, ext[i]);
            unlink(side);
        }
    }
    free(s);
}

/* The connection's last error, naming the database file. */
static int db_fail(mp_store *s, mp_err *e)
{
    return mp_fail(e, MP_EIO, "database %s: %s", s->path, sqlite3_errmsg(s->db));
}


int mp_store_machine(mp_store *s, const mp_machine *m, int64_t *machine_id, mp_err *e)
{
    /* issue 22: every command that stores timings registers its machine first;
     * timings of an emulated CPU mean nothing, so none are stored from one */
    char emu[256];
    if (mp_cpu_emulated(emu, sizeof emu))
        return mp_fail(e, MP_EUSAGE,
                       "database %s: refusing to store timings from an emulated CPU (%s); "
                       "correctness runs are fine with --no-db (or MPBENCH_EMULATED=0 if "
                       "this is wrong)", s->path, emu);
    char now[32];
    mp_store_now(now, sizeof now);
    sqlite3_stmt *st;
    const char *sql =
        "INSERT INTO machines(fingerprint,cpu_model,cores,pus,isa_flags,mem_gib,l1d_kib,"
        "l2_kib,l3_kib,caches_note,hypervisor,first_seen) VALUES(?,?,?,?,?,?,?,?,?,?,?,?) "
        "ON CONFLICT(fingerprint) DO UPDATE SET l1d_kib=excluded.l1d_kib";
    if (mp_store_do(s, sql, "ttiitiIIIttt", m->fingerprint, m->cpu_model, m->cores, m->pus,
                    m->isa_flags, m->mem_gib, (int64_t)m->l1d_kib, (int64_t)m->l2_kib,
                    (int64_t)m->l3_kib, m->caches_note, m->hypervisor, now) ||
        !(st = mp_store_query(s, "SELECT id FROM machines WHERE fingerprint=?", "t",
                              m->fingerprint)))
        return db_fail(s, e);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *machine_id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? MP_OK : mp_fail(e, MP_EIO, "database %s: machine row missing", s->path);
}

/* 128 random bits as 32 hex digits: the run's identity across machines. */
static void run_uid(char out[33])
{
    unsigned char b[16];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
        /* no entropy source: time, pid and address bits, still unique in practice */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
                     ((uint64_t)getpid() << 48) ^ (uint64_t)(uintptr_t)&ts;
        for (int i = 0; i < 16; i++) {
            x ^= x >> 33, x *= 0xff51afd7ed558ccdull, x ^= x >> 29;
            b[i] = (unsigned char)x;
        }
    }
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

int mp_store_run_begin(mp_store *s, int64_t machine_id, const char *kind,
                       const mp_machine *m, const char *command, const char *binding,
                       int64_t *run_id, mp_err *e)
{
    char now[32], uid[33], host[256] = "";
    mp_store_now(now, sizeof now);
    run_uid(uid);
    gethostname(host, sizeof host - 1);
    const char *sql =
        "INSERT INTO runs(machine_id,kind,started,git_commit,compiler,kernel,command,load_avg,"
        "governor,hypervisor,binding,status,peers,uid,host,pid) "
        "VALUES(?,?,?,?,?,?,?,?,?,?,?,'running',?,?,?,?)";
    if (mp_store_do(s, sql, "IttttttdttttttI", (int64_t)machine_id, kind, now, m->git_commit,
                    m->compiler, m->kernel, command, m->load_avg, m->governor, m->hypervisor,
                    binding, m->peers, uid, host, (int64_t)getpid()))
        return db_fail(s, e);
    *run_id = sqlite3_last_insert_rowid(s->db);
    return MP_OK;
}

int mp_store_run_end(mp_store *s, int64_t run_id, const char *status, mp_err *e)
{
    char now[32];
    mp_store_now(now, sizeof now);
    return mp_store_do(s, "UPDATE runs SET finished=?, status=? WHERE id=?", "ttI", now, status,
                       (int64_t)run_id)
               ? db_fail(s, e)
               : MP_OK;
}

static void bind_real_or_null(sqlite3_stmt *st, int i, double v)
{
    if (v != v)
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_double(st, i, v);
}

/* One row per event of c, keyed by id: with values (a result's counters, into
 * counters) the events that counted and their per-call values, the refused
 * ones being recorded once per run; without (a run's, into run_counters)
 * every event, refused or not, with the reason. */
static int put_counters(mp_store *s, int64_t id, const struct mp_counters *c,
                        const double *values, mp_err *e)
{
    sqlite3_stmt *st =
        mp_store_prepare(s, values ? "INSERT OR REPLACE INTO counters(result_id,event,value,"
                                     "status,reason) VALUES(?,?,?,?,?)"
                                   : "INSERT OR REPLACE INTO run_counters(run_id,event,status,"
                                     "reason) VALUES(?,?,?,?)");
    if (!st)
        return db_fail(s, e);
    int rc = MP_OK;
    for (int i = 0; i < mp_counters_n(c) && !rc; i++) {
        const char *why = mp_counters_unavailable(c, i);
        if (values && why)
            continue;
        if (values)
            mp_store_bind(st, 1, "Itdtt", (int64_t)id, mp_counters_name(c, i), values[i], "ok", "");
        else
            mp_store_bind(st, 1, "Ittt", (int64_t)id, mp_counters_name(c, i),
                          why ? "unavailable" : "ok", why ? why : "");
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = db_fail(s, e);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

int mp_store_run_counters(mp_store *s, int64_t run_id, const struct mp_counters *c, mp_err *e)
{
    return c ? put_counters(s, run_id, c, NULL, e) : MP_OK;
}

int mp_store_set_config_key(mp_store *s, int64_t run_id, const char *key, mp_err *e)
{
    return mp_store_do(s, "UPDATE runs SET config_key=? WHERE id=?", "tI", key, (int64_t)run_id)
               ? db_fail(s, e)
               : MP_OK;
}

int mp_store_results(mp_store *s, int64_t run_id, const char *sweep_key, const mp_result *r,
                     int n, mp_err *e)
{
    int rc = still_there(s, e);
    if (rc)
        return rc;
    rc = exec(s, "BEGIN IMMEDIATE", e);
    if (rc)
        return rc;
    sqlite3_stmt *st;
    const char *sql =
        "INSERT OR IGNORE INTO results(run_id,variant,method,family,isa,params,m,k,n,threads,"
        "cache_mode,bpw,packed_bytes,copies,reps,median_us,min_us,max_us,mad_us,mean_us,cv,"
        "gbps,gops,max_rel_err,mean_rel_err,status,reason,times_us,created,sweep_key,clock_ghz,"
        "slow_reps) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
    if (!(st = mp_store_prepare(s, sql))) {
        rc = db_fail(s, e);
        exec(s, "ROLLBACK", e);
        return rc;
    }
    char now[32];
    mp_store_now(now, sizeof now);
    long nnew = 0;
    for (int i = 0; i < n && !rc; i++) {
        const mp_result *x = &r[i];
        char isa[32];
        mp_variant_isa_token(x->v, isa, sizeof isa);
        size_t tl = (size_t)x->reps * 24 + 1;
        char *times = malloc(tl);
        size_t used = 0;
        times[0] = 0;
        for (int j = 0; j < x->reps; j++)
            used += (size_t)snprintf(times + used, tl - used, "%s%.3f", j ? "," : "",
                                     x->times_us[j]);
        mp_store_bind(st, 1, "ItttttiiiitdIiidddddddd", (int64_t)run_id, x->v->name, x->v->method,
                      mp_family_name(x->v->family), isa, x->params, x->m, x->k, x->n, x->threads,
                      x->warm ? "warm" : "cold", x->bpw, (int64_t)x->packed_bytes, x->copies,
                      x->reps, x->median_us, x->min_us, x->max_us, x->mad_us, x->mean_us, x->cv,
                      x->gbps, x->gops);
        bind_real_or_null(st, 24, x->max_rel_err);
        bind_real_or_null(st, 25, x->mean_rel_err);
        /* a NULL sweep_key binds NULL */
        mp_store_bind(st, 26, "ttttt", mp_status_name(x->status), x->reason, times, now, sweep_key);
        if (x->clock_ghz > 0 || x->slow_reps > 0) { /* measured behind the clock gate */
            if (x->clock_ghz > 0)
                sqlite3_bind_double(st, 31, x->clock_ghz);
            else /* no call kept */
                sqlite3_bind_null(st, 31);
            sqlite3_bind_int(st, 32, x->slow_reps);
        } else {
            sqlite3_bind_null(st, 31);
            sqlite3_bind_null(st, 32);
        }
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = db_fail(s, e);
        int inserted = sqlite3_changes(s->db) == 1;
        nnew += inserted;
        sqlite3_reset(st);
        free(times);
        if (!rc && inserted && x->counters && x->reps > 0)
            rc = put_counters(s, sqlite3_last_insert_rowid(s->db), x->counters, x->events, e);
    }
    sqlite3_finalize(st);
    if (rc) {
        mp_err ignore;
        exec(s, "ROLLBACK", &ignore);
        return rc;
    }
    if ((rc = exec(s, "COMMIT", e)))
        return rc;
    s->inserted += nnew;
    return MP_OK;
}
