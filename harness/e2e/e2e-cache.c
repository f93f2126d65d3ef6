/* e2e-cache.c - the on-disk packed-weight cache of the end-to-end runner
 * (issue 17: repeated runs start at once instead of generating and packing a
 * model's ternary weights again).
 *
 * One file per (model, weight source and seed, variant, parameters, linear,
 * ternary or ±1), named by a hash of that identity, holding the linear's packed
 * tensors of all layers.  Layout (little-endian, this machine's):
 *   "MPBPACK1" | u32 key length | key | u32 n |
 *   n x {u64 bytes, f32 scale, u32 0, u64 checksum} | u64 checksum of the table |
 *   the n payloads, in order.
 * The key repeats the identity and adds what else decides the bytes: the build
 * (git commit), the layer count, the shape and the packed sizes.  A file is used
 * only when its key is the expected one (else STALE) and the table's and every
 * payload's checksum verify (else CORRUPT): a wrong file is rebuilt, never used.
 * A dirty working tree keeps its commit's name, so packs made by uncommitted
 * kernel edits are trusted by the next build of that tree: clear the directory
 * when editing a pack routine.
 *
 * The checksum is four interleaved 64-bit multiply-xor lanes over 8-byte words
 * (fast enough to verify a 2B model's 0.5 GB in a fraction of a second; it
 * detects corruption, it is not a defence against an adversary). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_e2e_cache.h"

#ifndef MP_GIT_COMMIT
#define MP_GIT_COMMIT "unknown"
#endif

static const char magic[8] = {'M', 'P', 'B', 'P', 'A', 'C', 'K', '1'};

typedef struct entry {
    uint64_t bytes;
    float scale;
    uint32_t zero;
    uint64_t sum;
} entry;

const char *mp_e2e_cache_build(void)
{
    return MP_GIT_COMMIT;
}

static uint64_t checksum(const uint8_t *p, size_t n)
{
    const uint64_t k = 0x9e3779b97f4a7c15ull;
    uint64_t h[4] = {1, 2, 3, 4};
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int l = 0; l < 4; l++) {
            uint64_t w;
            memcpy(&w, p + i + 8 * l, 8);
            h[l] = (h[l] ^ w) * k;
            h[l] ^= h[l] >> 29;
        }
    uint64_t r = n;
    for (int l = 0; l < 4; l++)
        r = (r ^ h[l]) * k;
    for (; i < n; i++)
        r = (r ^ p[i]) * 0x100000001b3ull;
    return r ^ (r >> 31);
}

static uint64_t fnv(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

void mp_e2e_cache_path(const char *dir, const char *ident, char *path, size_t len)
{
    snprintf(path, len, "%s/%016llx.mpwpack", dir, (unsigned long long)fnv(ident));
}

/* All n bytes through read or write (wr), in chunks of at most 1 GiB: 0, or -1. */
static int io_all(int fd, void *buf, size_t n, int wr)
{
    uint8_t *p = buf;
    while (n) {
        size_t c = n > (1u << 30) ? (1u << 30) : n;
        ssize_t r = wr ? write(fd, p, c) : read(fd, p, c);
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t n)
{
    return io_all(fd, buf, n, 0);
}

static int write_all(int fd, const void *buf, size_t n)
{
    return io_all(fd, (void *)buf, n, 1);
}

int mp_e2e_cache_load(const char *dir, const char *ident, const char *key, int n,
                      uint8_t *const *buf, const size_t *size, float *scale, char *note,
                      size_t notelen)
{
    char path[4096];
    mp_e2e_cache_path(dir, ident, path, sizeof path);
    note[0] = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return MP_E2E_CACHE_MISS;
    int st = MP_E2E_CACHE_CORRUPT;
    char m8[8];
    uint32_t klen = 0, fn = 0;
    char *fkey = NULL;
    entry *tab = NULL;
    if (read_all(fd, m8, 8) || memcmp(m8, magic, 8) || read_all(fd, &klen, 4) ||
        klen > 65536) {
        snprintf(note, notelen, "%s: not a packed-weight file or bad header", path);
        goto out;
    }
    fkey = calloc(1, (size_t)klen + 1);
    if (read_all(fd, fkey, klen) || read_all(fd, &fn, 4)) {
        snprintf(note, notelen, "%s: truncated header", path);
        goto out;
    }
    if (strcmp(fkey, key) || (int)fn != n) {
        st = MP_E2E_CACHE_STALE;
        snprintf(note, notelen, "%s: stale (made for '%.80s')", path, fkey);
        goto out;
    }
    tab = calloc((size_t)n, sizeof *tab);
    uint64_t tsum;
    if (read_all(fd, tab, sizeof *tab * (size_t)n) || read_all(fd, &tsum, 8) ||
        tsum != checksum((const uint8_t *)tab, sizeof *tab * (size_t)n)) {
        snprintf(note, notelen, "%s: header table corrupt", path);
        goto out;
    }
    for (int i = 0; i < n; i++)
        if (tab[i].bytes != size[i]) {
            snprintf(note, notelen, "%s: tensor %d has %llu bytes, expected %zu", path, i,
                     (unsigned long long)tab[i].bytes, size[i]);
            goto out;
        }
    for (int i = 0; i < n; i++) {
        if (read_all(fd, buf[i], size[i])) {
            snprintf(note, notelen, "%s: truncated in tensor %d", path, i);
            goto out;
        }
        if (checksum(buf[i], size[i]) != tab[i].sum) {
            snprintf(note, notelen, "%s: checksum of tensor %d does not match", path, i);
            goto out;
        }
        scale[i] = tab[i].scale;
    }
    char extra;
    if (read(fd, &extra, 1) != 0) {
        snprintf(note, notelen, "%s: trailing bytes", path);
        goto out;
    }
    st = MP_E2E_CACHE_HIT;
out:
    free(fkey);
    free(tab);
    close(fd);
    return st;
}

int mp_e2e_cache_save(const char *dir, const char *ident, const char *key, int n,
                      uint8_t *const *buf, const size_t *size, const float *scale, mp_err *e)
{
    char path[4096], tmp[4200];
    mp_e2e_cache_path(dir, ident, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (mkdir(dir, 0777) && errno != EEXIST)
        return mp_fail(e, MP_ERUN, "--weight-cache %s: cannot create: %s", dir, strerror(errno));
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0)
        return mp_fail(e, MP_ERUN, "--weight-cache: cannot write %s: %s", tmp, strerror(errno));
    entry *tab = calloc((size_t)n, sizeof *tab);
    for (int i = 0; i < n; i++) {
        tab[i].bytes = size[i];
        tab[i].scale = scale[i];
        tab[i].sum = checksum(buf[i], size[i]);
    }
    uint32_t klen = (uint32_t)strlen(key), fn = (uint32_t)n;
    uint64_t tsum = checksum((const uint8_t *)tab, sizeof *tab * (size_t)n);
    int bad = write_all(fd, magic, 8) || write_all(fd, &klen, 4) || write_all(fd, key, klen) ||
              write_all(fd, &fn, 4) || write_all(fd, tab, sizeof *tab * (size_t)n) ||
              write_all(fd, &tsum, 8);
    for (int i = 0; i < n && !bad; i++)
        bad = write_all(fd, buf[i], size[i]);
    free(tab);
    bad |= close(fd) != 0;
    if (bad || rename(tmp, path)) {
        int err = errno;
        unlink(tmp);
        return mp_fail(e, MP_ERUN, "--weight-cache: writing %s failed: %s", path, strerror(err));
    }
    return MP_OK;
}
