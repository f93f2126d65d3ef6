/* clock.c - is the CPU running at full speed right now?
 *
 * Why: on a shared VM the speed of a vCPU is not constant.  On the Xeon VM of
 * the 2026-11-27 session a chain of dependent integer adds (one per cycle) ran
 * at 3.09 G adds/s for stretches and at 1.9-2.0 for others, each lasting from
 * 10 ms to several seconds (60 s sampled in 10 ms pieces: 68% fast); steal time
 * in /proc/stat did not move, so it is the core (its clock or a busy SMT
 * sibling on the host), not the scheduler.  A compute-bound call is then 1.5x
 * slower, a memory-bound one much less; CI's regression gate flagged unchanged
 * vlut_i2 (937 us in the baseline, 1363-1489 us in two later processes) and,
 * earlier, unchanged vnni_int2 GEMMs (1.33-1.43x) this way, and the common
 * shift of a problem cannot explain it because its variants are not all
 * compute-bound.
 *
 * What: the same fixed chain of dependent adds, timed on every thread of the
 * pool; the slowest thread's rate is the clock of that moment.  The engine
 * (measure.c, opts.clock_gate) times it before and after a call and keeps the
 * call only when both are within the gate of the fastest rate this session has
 * seen, so the stored repetitions are those run at full speed.  The chain runs
 * ~5 us at 3 GHz: short beside the calls the gate times, long beside the
 * timer's resolution. */
#include <stdint.h>

#include "mp_engine.h"

enum { CHAIN = 16384, MAX_THREADS = 256 };

static double chain_rate(void)
{
    uint64_t x = 0;
    double t0 = mp_now();
    for (int i = 0; i < CHAIN; i++) {
        x += (uint64_t)i;
        __asm__ volatile("" : "+r"(x)); /* one add per step, in order, kept */
    }
    double dt = mp_now() - t0;
    return dt > 0 ? CHAIN / dt * 1e-9 : 0;
}

/* Tests replace the chain by a scripted rate (mp_clock_set_source). */
static double (*source)(void) = chain_rate;
/* The fastest rate this process has seen: its full speed.  Kept for the whole
 * process, not per problem: one problem's calls may all fall in a slow stretch
 * of a few seconds, a sweep of a minute or more rarely does. */
static double best;

void mp_clock_set_source(double (*fn)(void))
{
    source = fn ? fn : chain_rate;
    best = 0;
}

double mp_clock_best(void)
{
    return best;
}

typedef struct clock_ctx {
    double rate[MAX_THREADS];
} clock_ctx;

static void clock_task(void *arg, int tid, int nt)
{
    (void)nt;
    clock_ctx *c = arg;
    if (tid < MAX_THREADS)
        c->rate[tid] = source();
}

double mp_clock_now(mp_pool *pool)
{
    clock_ctx c;
    int nt = mp_pool_size(pool);
    if (nt > MAX_THREADS)
        nt = MAX_THREADS;
    mp_pool_run(pool, clock_task, &c);
    double lo = c.rate[0];
    for (int i = 1; i < nt; i++)
        lo = c.rate[i] < lo ? c.rate[i] : lo;
    if (lo > best)
        best = lo;
    return lo;
}
