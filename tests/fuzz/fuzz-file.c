/* fuzz-file.c - the fuzz input as a file on disk, for parsers that take a path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#undef MP_FUZZ_TARGET /* the entry point is the target file's, not this helper's */
#include "mp_fuzz.h"

static char path[256];

/* at exit: the file and any journal or WAL SQLite left beside it */
static void remove_file(void)
{
    static const char *const sfx[] = {"", "-journal", "-wal", "-shm"};
    char p[300];
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s%s", path, sfx[i]);
        unlink(p);
    }
}

const char *mp_fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
    struct stat st;
    if (!path[0])
        atexit(remove_file);
    const char *dir = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
    snprintf(path, sizeof path, "%s/mpfuzz-%d%s", dir, (int)getpid(), suffix);
    /* a fresh file each time: SQLite must not see a stale journal of the last one */
    char side[300];
    snprintf(side, sizeof side, "%s-journal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort(); /* the fuzzer's own environment, not the input */
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
    return path;
}
