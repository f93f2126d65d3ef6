/* pool.c - the harness's thread pool: n threads (the caller is thread 0) pinned
 * with hwloc, one per core first, then per PU.  Work is handed over through a
 * generation counter the workers spin on (then yield), because a timed GEMV can
 * be a few microseconds and a condition-variable wake-up would dominate it.
 * With more threads than hardware threads (allowed: the e2e tests run 8 on 2
 * cores) spinning only burns the time slice the thread being waited for
 * needs, so then every wait yields at once.
 *
 * Resting (mp_pool_rest, issues 15, 37): while a self-threaded peer runs, its
 * own threads are pinned to our workers' PUs, and an idle worker must not spin
 * there.  One that yields still takes turns on the CPU: a peer's worker woken
 * beside it waited 49-62 us for the CPU, on a 2-thread llamacpp.tq2_0 GEMV of
 * ~25 us.  So the measurement engine has resting workers sleep in futex_wait
 * on the generation counter, taking no CPU at all, and wakes them untimed
 * after the peer's call.  The end-to-end runner, whose every hand-over is
 * timed, keeps them yielding: on this loaded 2-vCPU VM the wake-up of a
 * sleeping worker cost more than the peer's wait (32 peer linears, each
 * followed by a pool task: 51-73 ms sleeping against 26-42 ms yielding,
 * interleaved medians). */
#include <hwloc.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mp_core.h"

/* spin-wait hint (issue 22: the pool also builds on AArch64) */
#if defined(__x86_64__) || defined(__i386__)
#define MP_CPU_RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define MP_CPU_RELAX() __asm__ __volatile__("yield")
#else
#define MP_CPU_RELAX() ((void)0)
#endif

enum { REST_NONE, REST_YIELD, REST_SLEEP };

struct mp_pool {
    int n;
    pthread_t *tid;
    hwloc_topology_t topo;
    int have_topo;
    hwloc_cpuset_t *sets;
    _Atomic unsigned gen;
    _Atomic int done;
    _Atomic int quit;
    mp_task_fn fn;
    void *arg;
    int *tids;
    _Atomic int started;
    _Atomic int rest; /* until the next run, idle workers: REST_YIELD or REST_SLEEP on gen */
    int oversub;      /* more threads than PUs: never spin */
};

typedef struct worker_arg {
    mp_pool *p;
    int id;
} worker_arg;

static void bind_self(mp_pool *p, int id)
{
    if (p->have_topo && p->sets[id])
        hwloc_set_cpubind(p->topo, p->sets[id], HWLOC_CPUBIND_THREAD);
}

/* gen is a 32-bit word, so the kernel can compare it with what a worker saw. */
_Static_assert(sizeof(_Atomic unsigned) == 4, "futex word");

static void gen_wait(_Atomic unsigned *gen, unsigned seen)
{
    /* returns at once (EAGAIN) if gen moved on before the call: no lost wake-up */
    syscall(SYS_futex, (unsigned *)gen, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
}

static void gen_wake(_Atomic unsigned *gen)
{
    syscall(SYS_futex, (unsigned *)gen, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void *worker(void *a)
{
    worker_arg *wa = a;
    mp_pool *p = wa->p;
    int id = wa->id;
    free(wa);
    bind_self(p, id);
    p->tids[id] = (int)gettid();
    atomic_fetch_add(&p->started, 1);
    unsigned seen = 0;
    for (;;) {
        unsigned g;
        long spins = 0;
        while ((g = atomic_load_explicit(&p->gen, memory_order_acquire)) == seen) {
            if (atomic_load_explicit(&p->quit, memory_order_relaxed))
                return NULL;
            int rest = atomic_load_explicit(&p->rest, memory_order_relaxed);
            if (rest == REST_SLEEP)
                gen_wait(&p->gen, seen);
            else if (rest == REST_YIELD || p->oversub || ++spins > 200000)
                sched_yield();
            else
                MP_CPU_RELAX();
        }
        seen = g;
        if (atomic_load_explicit(&p->quit, memory_order_relaxed))
            return NULL;
        p->fn(p->arg, id, p->n);
        atomic_fetch_add_explicit(&p->done, 1, memory_order_acq_rel);
    }
}

mp_pool *mp_pool_create(int n, char *binding, size_t len)
{
    mp_pool *p = calloc(1, sizeof *p);
    if (!p)
        abort();
    p->n = n < 1 ? 1 : n;
    p->sets = calloc((size_t)p->n, sizeof *p->sets);
    binding[0] = 0;
    if (hwloc_topology_init(&p->topo) == 0 && hwloc_topology_load(p->topo) == 0) {
        p->have_topo = 1;
        int ncore = hwloc_get_nbobjs_by_type(p->topo, HWLOC_OBJ_CORE);
        int npu = hwloc_get_nbobjs_by_type(p->topo, HWLOC_OBJ_PU);
        size_t used = 0;
        for (int i = 0; i < p->n; i++) {
            hwloc_obj_t o = NULL;
            const char *kind = "core";
            if (i < ncore) {
                o = hwloc_get_obj_by_type(p->topo, HWLOC_OBJ_CORE, i);
            } else if (npu > 0) {
                /* more threads than cores: the second PU of each core, round robin */
                o = hwloc_get_obj_by_type(p->topo, HWLOC_OBJ_PU, i % npu);
                kind = "pu";
            }
            if (o && o->cpuset) {
                p->sets[i] = hwloc_bitmap_dup(o->cpuset);
                hwloc_bitmap_singlify(p->sets[i]);
                int pu = hwloc_bitmap_first(p->sets[i]);
                used += (size_t)snprintf(binding + used, used < len ? len - used : 0,
                                         "%s%d:%s%u/pu%d", i ? "," : "", i, kind,
                                         o->logical_index, pu);
            }
        }
    }
    if (!binding[0])
        snprintf(binding, len, "unbound");
    long pus = p->have_topo ? hwloc_get_nbobjs_by_type(p->topo, HWLOC_OBJ_PU) : 0;
    if (pus <= 0)
        pus = sysconf(_SC_NPROCESSORS_ONLN);
    p->oversub = pus > 0 && p->n > pus;
    bind_self(p, 0);
    p->tid = calloc((size_t)p->n, sizeof *p->tid);
    p->tids = calloc((size_t)p->n, sizeof *p->tids);
    p->tids[0] = (int)gettid();
    for (int i = 1; i < p->n; i++) {
        worker_arg *wa = malloc(sizeof *wa);
        wa->p = p;
        wa->id = i;
        pthread_create(&p->tid[i], NULL, worker, wa);
    }
    while (atomic_load(&p->started) != p->n - 1)
        sched_yield();
    return p;
}

void mp_pool_run(mp_pool *p, mp_task_fn fn, void *arg)
{
    if (p->n == 1) {
        fn(arg, 0, 1);
        return;
    }
    p->fn = fn;
    p->arg = arg;
    atomic_store_explicit(&p->done, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&p->gen, 1, memory_order_seq_cst);
    /* after the new gen: a worker that read REST_SLEEP either sleeps and gets
     * this wake-up, or calls futex_wait after it and finds gen changed */
    if (atomic_exchange_explicit(&p->rest, REST_NONE, memory_order_seq_cst) == REST_SLEEP)
        gen_wake(&p->gen);
    fn(arg, 0, p->n);
    while (atomic_load_explicit(&p->done, memory_order_acquire) != p->n - 1) {
        if (p->oversub)
            sched_yield();
        else
            MP_CPU_RELAX();
    }
}

void mp_pool_rest(mp_pool *p, int sleep)
{
    atomic_store_explicit(&p->rest, sleep ? REST_SLEEP : REST_YIELD, memory_order_relaxed);
}

const int *mp_pool_tids(const mp_pool *p)
{
    return p->tids;
}

int mp_pool_size(const mp_pool *p)
{
    return p->n;
}

void mp_pool_destroy(mp_pool *p)
{
    if (!p)
        return;
    atomic_store(&p->quit, 1);
    atomic_fetch_add(&p->gen, 1); /* so a worker about to sleep does not */
    gen_wake(&p->gen);
    for (int i = 1; i < p->n; i++)
        pthread_join(p->tid[i], NULL);
    /* the caller's own binding is left as it was set: harmless, and undoing it
     * would need the original mask */
    for (int i = 0; i < p->n; i++)
        if (p->sets[i])
            hwloc_bitmap_free(p->sets[i]);
    if (p->have_topo)
        hwloc_topology_destroy(p->topo);
    free(p->sets);
    free(p->tids);
    free(p->tid);
    free(p);
}
