/* e2e-spare.c - the decoder's weight-sized buffers: huge pages, and the
 * buffers of the last freed instance kept for the next one. */
#include "e2e-private.h"
#include "../../kernels/common/mp_parse.h"

/* Weight-sized buffers (packed tensors, embedding, head, KV cache) ask for
 * transparent huge pages: a decoded token streams about a gigabyte, and with
 * 4 KB pages every 4 KB of it is a TLB miss and a page walk (the common THP
 * setting, "madvise", gives huge pages only to memory that asks).  The
 * buffers come from mp_big_alloc_as (harness/bigmem.c, shared with the probe
 * that bounds a token's time, so both sit on the same page kind); mp_free
 * (free) releases them.  MPBENCH_E2E_HUGEPAGES=0 turns the advice off (for
 * comparisons). */
int mp_e2e_huge_pages(void)
{
    static int on = -1;
    if (on < 0) {
        on = mp_env_long("MPBENCH_E2E_HUGEPAGES", 1) != 0;
    }
    return on;
}

void *mp_e2e_big_alloc(size_t n)
{
    return mp_big_alloc_as(n, mp_e2e_huge_pages());
}

/* The weight buffers of the last freed instance are kept for the next one
 * (issue 17): every variant of a run builds an instance with the same
 * vocab x head_row embedding/head buffers and a packed arena of about the same
 * size, and on a VM fresh memory costs the kernel's page zeroing (here 38% of
 * the samples of a one-variant 2B-4T setup on 2 threads and a quarter of a
 * three-variant one, perf cpu-clock) before a byte of it is written.
 *  - The embedding/head (SPARE_HEAD) is taken only by a buffer of the same
 *    size built on as many threads: its rows then have the same owners
 *    (head_rows_of), so its pages already sit on the NUMA node of the thread
 *    that reads them.
 *  - The packed arena (SPARE_ARENA) is taken by an arena of at most its size
 *    and at least 7/8 of it (the 2-bit layouts of most variants), built on as
 *    many threads, and only on a machine of one NUMA node: another variant's
 *    layout maps rows to other bytes, so on several nodes its pages would sit
 *    on the wrong ones; there every instance first-touches fresh memory.
 * The first-touch pass (touch_task) writes every byte of either, fresh or
 * kept, so nothing of the last instance survives.  A request that no spare
 * fits frees them all first, so a run never holds more than one instance's
 * buffers plus at most an eighth of an arena.  mp_e2e_spares_free() returns
 * them (the end of a run). */
enum { NSPARE = 3 };
static struct spare {
    void *p;
    size_t bytes;
    int nt, kind;
} spares[NSPARE];
static pthread_mutex_t spares_mu = PTHREAD_MUTEX_INITIALIZER;

/* 1 when /sys says this machine has one NUMA node (0 when it has several or
 * cannot tell). */
static int one_numa_node(void)
{
    static int one = -1;
    if (one < 0) {
        char buf[64] = "";
        FILE *f = fopen("/sys/devices/system/node/online", "r");
        if (f) {
            if (!fgets(buf, sizeof buf, f))
                buf[0] = 0;
            fclose(f);
        }
        one = !strcmp(buf, "0\n") || !strcmp(buf, "0");
    }
    return one;
}

static int spare_fits(const struct spare *sp, size_t n, int nt, int kind)
{
    if (!sp->p || sp->kind != kind || sp->nt != nt)
        return 0;
    if (kind == SPARE_HEAD)
        return sp->bytes == n;
    return one_numa_node() && sp->bytes >= n && n >= sp->bytes - sp->bytes / 8;
}

void *mp_e2e_spare_alloc(size_t n, int nt, int kind, size_t *kept)
{
    void *p = NULL;
    pthread_mutex_lock(&spares_mu);
    for (int i = 0; i < NSPARE && !p; i++)
        if (spare_fits(&spares[i], n, nt, kind)) {
            p = spares[i].p;
            spares[i].p = NULL;
        }
    if (!p)
        for (int i = 0; i < NSPARE; i++) {
            mp_free(spares[i].p);
            spares[i].p = NULL;
        }
    pthread_mutex_unlock(&spares_mu);
    if (p)
        *kept += n;
    return p ? p : mp_e2e_big_alloc(n);
}

void mp_e2e_spare_release(void *p, size_t n, int nt, int kind)
{
    pthread_mutex_lock(&spares_mu);
    for (int i = 0; i < NSPARE && p; i++)
        if (!spares[i].p) {
            spares[i] = (struct spare){p, n, nt, kind};
            p = NULL;
        }
    pthread_mutex_unlock(&spares_mu);
    mp_free(p);
}

void mp_e2e_spares_free(void)
{
    pthread_mutex_lock(&spares_mu);
    for (int i = 0; i < NSPARE; i++) {
        mp_free(spares[i].p);
        spares[i].p = NULL;
    }
    pthread_mutex_unlock(&spares_mu);
}

