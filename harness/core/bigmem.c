/* bigmem.c - large buffers (weight copies, probe streams) on 2 MiB pages.
 *
 * Why: a cold-cache measurement rotates through gigabytes of weight copies, so
 * the page-table entries of each copy are as cold as its bytes; on 4 KiB pages
 * a 4.4 MB tensor costs ~1,100 page walks whose PTE lines come from DRAM too,
 * and the hardware prefetchers stop at every 4 KiB boundary.  A runtime that
 * serves a model keeps its weights on large pages, so the roof (probe) and the
 * kernels are measured the same way: both through this file.
 *
 * How: 2 MiB-aligned allocation, MADV_HUGEPAGE *before* the first touch (so the
 * page faults themselves get huge pages, nothing is left for khugepaged to
 * collapse in the background while we time), then, once the caller has filled
 * the buffer, MADV_COLLAPSE for whatever still sits on small pages (Linux 6.1+;
 * refused harmlessly elsewhere).  Where THP is "never" the advice is ignored.
 *
 * Opt-in (MPBENCH_HUGEPAGES=1), not the default: on the EPYC VM this was tried on
 * (2 MiB guest pages over host pages we cannot see), four alternating probe runs
 * read 31.5/30.4 GB/s on 1 thread with huge pages against 35.5/34.0 without, and
 * 59.2/61.5 against 56.5/54.1 on 2; the kernels' medians moved within the noise.
 * Mixed evidence does not change how every stored figure was measured.
 *
 * Reuse: the engine's weight copies (mp_big_alloc on small pages, the default)
 * are about 4 GiB per point, allocated when a point opens and freed when it
 * closes; faulting them in again at every point was most of a quick sweep's
 * time (sys 87 s of 100 s wall, 16 points).  A freed buffer of at least
 * REUSE_MIN is kept and handed to the next allocation it can hold; on a miss
 * every kept buffer is released first, so the process never holds more than
 * it did without reuse.  The bytes are rewritten (packed, copied) before any
 * call is timed, and the pages are of the same kind either way.  Not under
 * AddressSanitizer, which should see each buffer's own bounds.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mp_bigmem.h"
#include "../../kernels/common/mp_numerics.h"
#include "../../kernels/common/mp_parse.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

enum { HUGE_PAGE = 2u << 20 };

int mp_big_pages(void)
{
    static int on = -1;
    if (on < 0) {
        on = mp_env_long("MPBENCH_HUGEPAGES", 0) == 1;
    }
    return on;
}

#if defined(__SANITIZE_ADDRESS__)
#define MP_BIG_REUSE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MP_BIG_REUSE 0
#endif
#endif
#ifndef MP_BIG_REUSE
#define MP_BIG_REUSE 1
#endif

enum { REUSE_MIN = 1u << 20, REUSE_SLOTS = 256 };

typedef struct block {
    void *p;
    size_t size;
} block;

static pthread_mutex_t reuse_lock = PTHREAD_MUTEX_INITIALIZER;
static block live[REUSE_SLOTS], kept[REUSE_SLOTS];
static int nlive, nkept;

/* A kept buffer that holds bytes (the smallest), or NULL after releasing them
 * all.  Called with the lock held. */
static void *take_kept(size_t bytes, size_t *size)
{
    int best = -1;
    for (int i = 0; i < nkept; i++)
        if (kept[i].size >= bytes && (best < 0 || kept[i].size < kept[best].size))
            best = i;
    if (best >= 0) {
        void *p = kept[best].p;
        *size = kept[best].size;
        kept[best] = kept[--nkept];
        return p;
    }
    for (int i = 0; i < nkept; i++)
        munmap(kept[i].p, kept[i].size);
    nkept = 0;
    return NULL;
}

void *mp_big_alloc(size_t bytes)
{
    if (!MP_BIG_REUSE || mp_big_pages() || bytes < REUSE_MIN)
        return mp_big_alloc_as(bytes, mp_big_pages());
    size_t size = (bytes + 4095) & ~(size_t)4095;
    pthread_mutex_lock(&reuse_lock);
    void *p = nlive < REUSE_SLOTS ? take_kept(size, &size) : NULL;
    if (!p && nlive < REUSE_SLOTS) {
        p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            p = NULL;
    }
    if (p)
        live[nlive++] = (block){p, size};
    pthread_mutex_unlock(&reuse_lock);
    return p ? p : mp_big_alloc_as(bytes, 0); /* mp_alloc: aborts naming the size */
}

/* 1 when p came from the reuse path (and is now kept or released). */
static int reuse_free(void *p)
{
    if (!MP_BIG_REUSE || !p)
        return 0;
    pthread_mutex_lock(&reuse_lock);
    int i;
    for (i = 0; i < nlive && live[i].p != p; i++)
        ;
    if (i == nlive) {
        pthread_mutex_unlock(&reuse_lock);
        return 0;
    }
    block b = live[i];
    live[i] = live[--nlive];
    if (nkept < REUSE_SLOTS)
        kept[nkept++] = b;
    else
        munmap(b.p, b.size);
    pthread_mutex_unlock(&reuse_lock);
    return 1;
}

void mp_big_settle(void *p, size_t bytes)
{
    mp_big_settle_as(p, bytes, mp_big_pages());
}

void *mp_big_alloc_as(size_t bytes, int huge)
{
#ifdef MADV_HUGEPAGE
    if (huge && bytes >= HUGE_PAGE / 2) {
        size_t sz = (bytes + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
        void *p = NULL;
        if (posix_memalign(&p, HUGE_PAGE, sz) == 0) {
            madvise(p, sz, MADV_HUGEPAGE);
            return p;
        }
    }
#else
    (void)huge;
#endif
    return mp_alloc(bytes);
}

void mp_big_settle_as(void *p, size_t bytes, int huge)
{
#ifdef MADV_HUGEPAGE
    if (huge && bytes >= HUGE_PAGE / 2 && ((uintptr_t)p & (HUGE_PAGE - 1)) == 0)
        madvise(p, (bytes + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1), MADV_COLLAPSE);
#else
    (void)p;
    (void)bytes;
    (void)huge;
#endif
}

void mp_big_free(void *p)
{
    if (reuse_free(p))
        return;
    free(p); /* posix_memalign and mp_alloc memory are both free()d */
}
