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
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mp_bigmem.h"
#include "../../kernels/common/mp_numerics.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

enum { HUGE_PAGE = 2u << 20 };

int mp_big_pages(void)
{
    static int on = -1;
    if (on < 0) {
        const char *e = getenv("MPBENCH_HUGEPAGES");
        on = e && strcmp(e, "1") == 0;
    }
    return on;
}

void *mp_big_alloc(size_t bytes)
{
    return mp_big_alloc_as(bytes, mp_big_pages());
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
    free(p); /* posix_memalign and mp_alloc memory are both free()d */
}
