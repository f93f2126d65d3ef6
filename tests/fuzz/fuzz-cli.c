/* fuzz-cli.c - the mpbench command line as a whole.  The input is a command
 * line, one argument per line ('\n' separates them, at most 64 arguments after
 * the program name), dispatched through the program's own command table
 * (mp_cmd_main, harness/cli.c) in parse-only mode (mp_parse_only): each command
 * parses and validates its arguments exactly as `mpbench` does, reads what
 * validation reads (model, GGUF, tuned config and weights files, the databases
 * merge and compare check), and stops before it measures, opens a database
 * read-write or writes a file.
 *
 * Commands run in a scratch folder (under /dev/shm, else /tmp; removed at
 * exit) holding small files an argument can name: a.db and b.db (a sweep's
 * database, migrated to this build's schema), m.txt (a model), g.gguf, t.conf (a tuned config), w.bin (128x128
 * ternary int8 weights) and the folder d/.  Besides "no crash, no leak": the
 * exit code is 0, 1, 2 or 3, and nothing in the scratch folder was created,
 * changed or removed. */
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_fuzz.h"
#include "../../harness/cli/mp_cli.h"
#include "../../harness/core/mp_core.h"
#include "../../harness/store/mp_store.h"

enum { MAX_ARGS = 64 };

static const char *const fixtures[] = {"a.db", "b.db", "m.txt", "g.gguf", "t.conf", "w.bin", "d"};
enum { NFIX = sizeof fixtures / sizeof fixtures[0] };

static char scratch[128];
static int scratch_fd = -1;

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb");
    FILE *out = fopen(to, "wb");
    if (!in || !out) {
        fprintf(stderr, "fuzz-cli: cannot copy %s to %s (run from the repository root)\n", from,
                to);
        abort(); /* the fuzzer's own environment, not the input */
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            abort();
    fclose(in);
    if (fclose(out))
        abort();
}

static void remove_scratch(void)
{
    if (!scratch[0])
        return;
    char p[256];
    snprintf(p, sizeof p, "%s/d", scratch);
    rmdir(p);
    for (int i = 0; i < NFIX - 1; i++) {
        snprintf(p, sizeof p, "%s/%s", scratch, fixtures[i]);
        unlink(p);
    }
    rmdir(scratch);
    scratch[0] = 0;
}

static void setup(void)
{
    if (scratch_fd >= 0)
        return;
    struct stat st;
    snprintf(scratch, sizeof scratch, "%s/mpfuzz-cli-XXXXXX",
             stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp");
    if (!mkdtemp(scratch))
        abort();
    atexit(remove_scratch);
    static const char *const src[][2] = {{"tests/fuzz/corpus/db/sweep.db", "a.db"},
                                         {"tests/fixtures/tiny.txt", "m.txt"},
                                         {"tests/fuzz/corpus/gguf/mini-i2s.gguf", "g.gguf"},
                                         {"tests/fuzz/corpus/tuned/epyc.conf", "t.conf"}};
    char to[256];
    for (size_t i = 0; i < sizeof src / sizeof src[0]; i++) {
        snprintf(to, sizeof to, "%s/%s", scratch, src[i][1]);
        copy_file(src[i][0], to);
    }
    /* a.db migrated to this build's schema (merge takes no other), then out of
     * WAL mode: SQLite reads a WAL database only with -wal and -shm files beside
     * it, created on the first read, which would read as a command writing */
    snprintf(to, sizeof to, "%s/a.db", scratch);
    mp_store *store;
    mp_err e;
    sqlite3 *h;
    if (mp_store_open(to, &store, &e)) {
        fprintf(stderr, "fuzz-cli: %s\n", e.msg);
        abort();
    }
    mp_store_close(store);
    if (sqlite3_open(to, &h) != SQLITE_OK ||
        sqlite3_exec(h, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL) != SQLITE_OK)
        abort();
    sqlite3_close(h);
    char b[256];
    snprintf(b, sizeof b, "%s/b.db", scratch);
    copy_file(to, b);
    snprintf(to, sizeof to, "%s/w.bin", scratch);
    FILE *f = fopen(to, "wb");
    if (!f)
        abort();
    for (int i = 0; i < 128 * 128; i++)
        fputc((i * 7 + i / 128) % 3 - 1, f); /* -1, 0, 1 */
    if (fclose(f))
        abort();
    snprintf(to, sizeof to, "%s/d", scratch);
    if (mkdir(to, 0755))
        abort();
    scratch_fd = open(scratch, O_RDONLY | O_DIRECTORY);
    if (scratch_fd < 0)
        abort();
}

/* What must not change: the folder (entries added or removed) and every fixture. */
typedef struct snap {
    struct stat st[NFIX + 1];
} snap;

static void take(snap *s)
{
    memset(s, 0, sizeof *s);
    fstat(scratch_fd, &s->st[NFIX]);
    for (int i = 0; i < NFIX; i++)
        fstatat(scratch_fd, fixtures[i], &s->st[i], 0);
}

static const char *changed(const snap *a, const snap *b)
{
    for (int i = 0; i <= NFIX; i++) {
        const struct stat *x = &a->st[i], *y = &b->st[i];
        if (x->st_ino != y->st_ino || x->st_size != y->st_size ||
            x->st_mtim.tv_sec != y->st_mtim.tv_sec || x->st_mtim.tv_nsec != y->st_mtim.tv_nsec ||
            x->st_mode != y->st_mode)
            return i < NFIX ? fixtures[i] : "the scratch folder (a file created or removed)";
    }
    return NULL;
}

const char *mp_fuzz_cli_dir(void)
{
    setup();
    return scratch;
}

int mp_fuzz_cli_exec(const char *args, size_t len, const char **stopped)
{
    setup();
    char *argv[MAX_ARGS + 2], *own[MAX_ARGS + 1];
    int argc = 0;
    own[argc] = argv[argc] = strdup("mpbench");
    argc++;
    for (size_t at = 0; at <= len && argc <= MAX_ARGS;) {
        const char *nl = memchr(args + at, '\n', len - at);
        size_t l = nl ? (size_t)(nl - (args + at)) : len - at;
        /* each argument its own allocation of exactly its size: ASan sees a read past it */
        char *a = malloc(l + 1);
        memcpy(a, args + at, l);
        a[l] = 0;
        own[argc] = argv[argc] = a;
        argc++;
        at += l + 1;
        if (!nl)
            break;
    }
    argv[argc] = NULL;
    /* glibc's getopt keeps a position inside the last argv between calls; only
     * optind = 0 resets it (the commands set optind = 1, enough in a process
     * that parses one command line) */
    static const struct option none[] = {{0, 0, 0, 0}};
    char *reset[] = {argv[0], NULL};
    optind = 0;
    opterr = 0;
    getopt_long(1, reset, "", none, NULL);

    int cwd = open(".", O_RDONLY | O_DIRECTORY);
    if (cwd < 0 || fchdir(scratch_fd))
        abort();
    snap before, after;
    take(&before);
    mp_parse_only = 1;
    mp_parse_only_stopped = NULL;
    int rc = mp_cmd_main(argc, argv);
    mp_parse_only = 0;
    fflush(stdout);
    take(&after);
    if (fchdir(cwd))
        abort();
    close(cwd);
    for (int i = 0; i < argc; i++)
        free(own[i]);
    const char *what = changed(&before, &after);
    if (what) {
        fprintf(stderr, "fuzz-cli: the command line wrote to %s/%s\n", scratch, what);
        return -1;
    }
    if (stopped)
        *stopped = mp_parse_only_stopped;
    return rc;
}

int mp_fuzz_cli(const uint8_t *data, size_t size)
{
    int rc = mp_fuzz_cli_exec((const char *)data, size, NULL);
    if (rc < 0 || rc > 3) {
        fprintf(stderr, "fuzz-cli: exit code %d (0..3 expected)\n", rc);
        abort();
    }
    return 0;
}
