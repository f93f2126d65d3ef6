/* probe.c - the machine figures rooflines need (DESIGN.md "Measurement"):
 * read-only, copy and triad bandwidth for every thread count and for working
 * sets sized for L1, L2, L3 and DRAM, and the int8 dot-product and
 * byte-shuffle throughput of one core.
 *
 * Bandwidth is measured the way STREAM does it: every thread is pinned (the
 * pool), allocates and first-touches its own buffers (so on a multi-socket
 * machine its pages sit on its own node), all threads start each pass
 * together (one pool run = one barrier-started region) and the figure is the
 * best of several passes; copy counts 2 bytes moved per byte, triad 3.
 *
 * Reads are tried with every method the CPU has (mp_registry_probe_reads:
 * plain 256-bit loads, 512-bit loads, software-prefetched and non-temporal
 * loads), each stored as read_<level>_<method>, and read_<level> is the best
 * of them: the bandwidth roof (issue 37: with plain loads alone the 2-thread
 * read_DRAM, 58.8 GB/s, was below copy and triad, 67, and below what the
 * kernels' own prefetched streams reached). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_engine.h"
#include "../store/mp_probe_store.h"
#include "../../kernels/common/mp_numerics.h"
#include "../../variants/mp_registry.h"

enum { MAX_T = 64 };

typedef struct bw_task {
    const mp_probe_ops *ops;
    uint64_t (*read)(const void *p, size_t n); /* the read method of kind 0 */
    int kind;     /* 0 read, 1 copy, 2 triad; -1 allocate + first touch; -2 free */
    int nbuf;     /* buffers per thread */
    size_t bytes; /* per thread and buffer */
    int passes;
    int huge; /* buffers on 2 MiB pages (mp_big_alloc_as) */
    uint8_t *buf[MAX_T][3];
    uint64_t sink[MAX_T];
} bw_task;

static void bw_run(void *arg, int tid, int nt)
{
    (void)nt;
    bw_task *t = arg;
    if (t->kind == -1) {
        for (int b = 0; b < t->nbuf; b++) {
            t->buf[tid][b] = mp_big_alloc_as(t->bytes, t->huge);
            memset(t->buf[tid][b], tid + b + 1, t->bytes);
            mp_big_settle_as(t->buf[tid][b], t->bytes, t->huge);
        }
        return;
    }
    if (t->kind == -2) {
        for (int b = 0; b < t->nbuf; b++)
            mp_big_free(t->buf[tid][b]);
        return;
    }
    for (int p = 0; p < t->passes; p++) {
        if (t->kind == 0)
            t->sink[tid] ^= t->read(t->buf[tid][0], t->bytes);
        else if (t->kind == 1)
            t->ops->copy(t->buf[tid][1], t->buf[tid][0], t->bytes);
        else
            t->ops->triad((float *)t->buf[tid][2], (const float *)t->buf[tid][0],
                          (const float *)t->buf[tid][1], 1.5f, t->bytes / 4);
    }
}

/* GB/s of one timed round of `passes` sweeps of each thread's buffers. */
static double timed_pass(mp_pool *pool, bw_task *t)
{
    double moved = (double)t->bytes * t->passes * mp_pool_size(pool) * (t->kind + 1);
    double t0 = mp_now();
    mp_pool_run(pool, bw_run, t);
    double dt = mp_now() - t0;
    return dt > 0 ? moved / dt * 1e-9 : 0;
}

/* Best GB/s over reps of `passes` sweeps of each thread's buffers. */
static double measure_bw(mp_pool *pool, bw_task *t, int reps)
{
    double best = 0;
    mp_pool_run(pool, bw_run, t); /* warm-up: fill caches, settle the clocks */
    for (int r = 0; r < reps; r++) {
        double gbps = timed_pass(pool, t);
        best = gbps > best ? gbps : best;
    }
    return best;
}

static void buffers(mp_pool *pool, bw_task *t, int alloc)
{
    int kind = t->kind;
    t->kind = alloc ? -1 : -2;
    mp_pool_run(pool, bw_run, t);
    t->kind = kind;
}

typedef struct stream_task {
    const mp_probe_ops *ops;
    const uint8_t *p;
    size_t bytes;
    uint64_t sink[MAX_T];
} stream_task;

static void stream_run(void *arg, int tid, int nt)
{
    stream_task *t = arg;
    /* contiguous parts of whole 256-byte units, like a kernel's row ranges */
    size_t units = t->bytes / 256, per = (units + (size_t)nt - 1) / (size_t)nt;
    size_t u0 = (size_t)tid * per, u1 = u0 + per < units ? u0 + per : units;
    if (u0 < u1 && tid < MAX_T)
        t->sink[tid] ^= t->ops->read(t->p + u0 * 256, (u1 - u0) * 256);
}

uint64_t mp_probe_stream(mp_pool *pool, const void *p, size_t bytes)
{
    stream_task t = {mp_registry_probe_ops(), p, bytes & ~(size_t)255, {0}};
    if (mp_pool_size(pool) > MAX_T)
        return 0;
    mp_pool_run(pool, stream_run, &t);
    uint64_t x = 0;
    for (int i = 0; i < MAX_T; i++)
        x ^= t.sink[i];
    return x;
}

/* Read bandwidth over `total` bytes split over the pool's threads: the best of
 * the nr read methods. */
static double dram_reads(mp_pool *pool, size_t total, int reps, int huge,
                         const mp_probe_ops *ops, const mp_probe_read *rd, int nr)
{
    int nt = mp_pool_size(pool);
    if (nt > MAX_T)
        return 0;
    bw_task *t = calloc(1, sizeof *t);
    if (!t)
        return 0;
    t->ops = ops;
    t->huge = huge;
    t->nbuf = 1;
    t->bytes = (total / (size_t)nt) & ~(size_t)255;
    t->passes = 1;
    buffers(pool, t, 1);
    double bw = 0;
    for (int i = 0; i < nr; i++) {
        t->read = rd[i].read;
        double g = measure_bw(pool, t, reps);
        bw = g > bw ? g : bw;
    }
    buffers(pool, t, 0);
    free(t);
    return bw;
}

double mp_probe_dram_read(mp_pool *pool, size_t total, int reps)
{
    mp_probe_read rd[8];
    int nr = mp_registry_probe_reads(rd, 8);
    return dram_reads(pool, total, reps, mp_big_pages(), mp_registry_probe_ops(), rd, nr);
}

double mp_probe_dram_read_ops(mp_pool *pool, size_t total, int reps, int huge,
                              const struct mp_probe_ops *ops)
{
    mp_probe_read rd = {"given", ops->read};
    return dram_reads(pool, total, reps, huge, ops, &rd, 1);
}

/* A read kept for passes at chosen moments (the e2e decode bound, issue 17):
 * the buffers of mp_probe_dram_read, allocated and first-touched once. */
struct mp_probe_reader {
    bw_task t;
    int given;        /* ops given by the caller: its read only */
    const char *name; /* the read method of the passes */
};

mp_probe_reader *mp_probe_reader_new(mp_pool *pool, size_t total, int huge,
                                     const mp_probe_ops *ops)
{
    int nt = mp_pool_size(pool);
    if (nt > MAX_T)
        return NULL;
    mp_probe_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    /* the probe's best method for streams, so that no kernel's prefetched
     * stream beats the bound it is measured against (issue 37) */
    r->t.ops = ops ? ops : mp_registry_probe_ops();
    r->t.read = ops ? ops->read : mp_registry_probe_read_pf().read;
    r->given = ops != NULL;
    r->name = ops ? "given" : mp_registry_probe_read_pf().name;
    r->t.huge = huge;
    r->t.nbuf = 1;
    r->t.bytes = (total / (size_t)nt + 255) & ~(size_t)255;
    r->t.passes = 1;
    buffers(pool, &r->t, 1);
    mp_pool_run(pool, bw_run, &r->t); /* warm-up, as measure_bw's */
    return r;
}

size_t mp_probe_reader_bytes(const mp_probe_reader *r, const mp_pool *pool)
{
    return r->t.bytes * (size_t)mp_pool_size(pool);
}

double mp_probe_reader_pass(mp_probe_reader *r, mp_pool *pool)
{
    double t0 = mp_now();
    mp_pool_run(pool, bw_run, &r->t);
    double sec = mp_now() - t0;
    return sec > 0 ? (double)mp_probe_reader_bytes(r, pool) / sec * 1e-9 : 0;
}

double mp_probe_reader_pass_best(mp_probe_reader *r, mp_pool *pool)
{
    if (r->given)
        return mp_probe_reader_pass(r, pool);
    mp_probe_read rd[8];
    int n = mp_registry_probe_reads(rd, 8);
    double best = 0;
    mp_probe_read win = {r->name, r->t.read};
    for (int i = 0; i < n; i++) {
        r->t.read = rd[i].read;
        double g = mp_probe_reader_pass(r, pool);
        if (g > best)
            best = g, win = rd[i];
    }
    r->t.read = win.read, r->name = win.name;
    return best;
}

const char *mp_probe_reader_method(const mp_probe_reader *r)
{
    return r->name;
}

void mp_probe_reader_free(mp_probe_reader *r, mp_pool *pool)
{
    if (!r)
        return;
    buffers(pool, &r->t, 0);
    free(r);
}

size_t mp_probe_level_bytes(const mp_machine *mach, int level, int threads, int quick)
{
    size_t l1 = (size_t)mach->l1d_kib << 10, l2 = (size_t)mach->l2_kib << 10;
    size_t l3 = (size_t)mach->l3_kib << 10, per;
    if (threads < 1)
        threads = 1;
    switch (level) {
    case 0: per = l1 / 2; break;
    case 1: per = l2 / 2; break;
    case 2:
        /* half the L3 in all, split over the threads (an L3 is shared), but
         * never less than twice a thread's L2 (then it is no L2 figure) */
        per = l3 / 2 / (size_t)threads;
        if (per < 2 * l2)
            per = 2 * l2;
        break;
    default: {
        /* 4 GiB (this VM's caches flattered a 1 GiB stream, measure.c) and at
         * least 4x the last-level cache: a buffer that really is DRAM */
        size_t total = (size_t)(quick ? 256 : 4096) << 20;
        if (total < 4 * mp_machine_llc_bytes(mach))
            total = 4 * mp_machine_llc_bytes(mach);
        per = total / (size_t)threads;
    }
    }
    per &= ~(size_t)255;
    return per < 256 ? 256 : per;
}

void mp_probe_peaks(const mp_probe_ops *ops, long iters, mp_probe_peak *out)
{
    memset(out, 0, sizeof *out);
    char binding[256];
    mp_pool *one = mp_pool_create(1, binding, sizeof binding); /* the clock of this core */
    const int cap = MP_PROBE_PEAK_SAMPLES * MP_CEILING_FULL_CAP;
    for (int r = 0; !mp_engine_interrupted(); r++) {
        if (r >= MP_PROBE_PEAK_SAMPLES && (out->full >= MP_CEILING_FULL_SAMPLES || r >= cap))
            break;
        double c0 = mp_clock_now(one), t0 = mp_now();
        double macs = ops->dot(iters);
        double g = 2 * macs / (mp_now() - t0) * 1e-9;
        out->dot_gops = g > out->dot_gops ? g : out->dot_gops;
        t0 = mp_now();
        double bytes = ops->shuffle(iters);
        g = bytes / (mp_now() - t0) * 1e-9;
        out->shuffle_gbs = g > out->shuffle_gbs ? g : out->shuffle_gbs;
        double c1 = mp_clock_now(one);
        out->samples++;
        out->full += (c0 < c1 ? c0 : c1) >= MP_CEILING_FULL * mp_clock_best();
    }
    mp_pool_destroy(one);
}

int mp_probe_peaks_again(const mp_probe_ops *ops, long iters, mp_probe_row *rows, int n)
{
    mp_probe_peak pk;
    mp_probe_peaks(ops, iters, &pk);
    char dot[48], shuf[48];
    snprintf(dot, sizeof dot, "int8_dot_%s", ops->isa);
    snprintf(shuf, sizeof shuf, "byte_shuffle_%s", ops->isa);
    int raised = 0;
    for (int i = 0; i < n; i++) {
        double v = !strcmp(rows[i].kind, dot) ? pk.dot_gops
                   : !strcmp(rows[i].kind, shuf) ? pk.shuffle_gbs
                                                 : 0;
        if (rows[i].threads == 1 && v > rows[i].value) {
            rows[i].value = v;
            raised++;
        }
    }
    return raised;
}

int mp_probe_dram_again(const mp_machine *mach, const int *tv, int nt, int quick,
                        mp_probe_row *rows, int n)
{
    mp_probe_read rd[8];
    int nr = mp_registry_probe_reads(rd, 8), raised = 0;
    for (int ti = 0; ti < nt && !mp_engine_interrupted(); ti++) {
        if (tv[ti] > MAX_T)
            continue;
        char binding[512];
        mp_pool *pool = mp_pool_create(tv[ti], binding, sizeof binding);
        bw_task *t = calloc(1, sizeof *t);
        if (!t) {
            mp_pool_destroy(pool);
            break;
        }
        size_t per = mp_probe_level_bytes(mach, 3, tv[ti], quick);
        t->ops = mp_registry_probe_ops();
        t->huge = mp_big_pages();
        t->nbuf = 1;
        t->bytes = per;
        t->passes = (int)((64u << 20) / (per * (size_t)tv[ti]) + 1);
        buffers(pool, t, 1);
        double got[8] = {0};
        for (int rep = -1; rep < (quick ? 3 : 7) && !mp_engine_interrupted(); rep++)
            for (int k = 0; k < nr; k++) {
                t->read = rd[k].read;
                double g = timed_pass(pool, t);
                if (rep >= 0 && g > got[k])
                    got[k] = g;
            }
        buffers(pool, t, 0);
        free(t);
        mp_pool_destroy(pool);
        for (int i = 0; i < n; i++) {
            if (rows[i].threads != tv[ti] || strncmp(rows[i].kind, "read_DRAM", 9))
                continue;
            double v = 0;
            for (int k = 0; k < nr; k++) {
                char kind[48];
                snprintf(kind, sizeof kind, "read_DRAM_%s", rd[k].name);
                if (!strcmp(rows[i].kind, "read_DRAM") || !strcmp(rows[i].kind, kind))
                    v = got[k] > v ? got[k] : v;
            }
            if (v > rows[i].value) {
                rows[i].value = v;
                raised++;
            }
        }
    }
    return raised;
}

int mp_probe_measure(const mp_machine *mach, const int *tv, int nt, int quick,
                     mp_probe_row *rows, int max, int quiet)
{
    const mp_probe_ops *ops = mp_registry_probe_ops();
    static const char *const names[4] = {"L1", "L2", "L3", "DRAM"};
    mp_probe_read rd[8];
    int nr = mp_registry_probe_reads(rd, 8);
    int nrows = 0;
    mp_progress pg;
    mp_progress_begin(&pg, (long)nt * 4 * (nr + 2) + 1, quiet);
    for (int ti = 0; ti < nt && !mp_engine_interrupted(); ti++) {
        if (tv[ti] > MAX_T)
            continue;
        char binding[512];
        mp_pool *pool = mp_pool_create(tv[ti], binding, sizeof binding);
        int nk = nr + 2, reps = quick ? 3 : 7;
        for (int l = 0; l < 4 && nrows + 1 + nk <= max && !mp_engine_interrupted(); l++) {
            size_t per = mp_probe_level_bytes(mach, l, tv[ti], quick);
            bw_task *t = calloc(1, sizeof *t);
            if (!t)
                break;
            t->ops = ops;
            t->huge = mp_big_pages();
            t->nbuf = 3;
            t->bytes = per;
            /* enough passes that one timed round streams >= 64 MiB */
            t->passes = (int)((64u << 20) / (per * (size_t)tv[ti]) + 1);
            buffers(pool, t, 1);
            /* rows: read_<level> (the best method), then each method, copy,
             * triad.  The kinds take turns, one timed pass each per round
             * (after one warm-up pass each), so that on a shared host a quiet
             * or a busy moment is not one kind's alone: measured one kind
             * after the other, 2-thread reads came out below copy and triad */
            mp_probe_row *best = &rows[nrows], *r = best + 1;
            for (int k = -1; k < nk; k++) {
                mp_probe_row *x = &rows[nrows++];
                memset(x, 0, sizeof *x);
                x->threads = tv[ti];
                x->bytes = (long long)per * tv[ti];
                snprintf(x->unit, sizeof x->unit, "GB/s");
                if (k < 0)
                    snprintf(x->kind, sizeof x->kind, "read_%s", names[l]);
                else if (k < nr)
                    snprintf(x->kind, sizeof x->kind, "read_%s_%s", names[l], rd[k].name);
                else
                    snprintf(x->kind, sizeof x->kind, "%s_%s", k == nr ? "copy" : "triad",
                             names[l]);
            }
            mp_progress_show(&pg, "read, copy, triad %s, %d threads", names[l], tv[ti]);
            for (int rep = -1; rep < reps && !mp_engine_interrupted(); rep++)
                for (int k = 0; k < nk; k++) {
                    t->kind = k < nr ? 0 : k - nr + 1;
                    t->read = k < nr ? rd[k].read : NULL;
                    double g = timed_pass(pool, t);
                    if (rep >= 0 && g > r[k].value)
                        r[k].value = g;
                    if (rep >= 0 && k < nr && g > best->value)
                        best->value = g;
                }
            mp_progress_step(&pg, nk);
            buffers(pool, t, 0);
            free(t);
        }
        mp_pool_destroy(pool);
    }
    /* per-core compute peaks */
    mp_progress_show(&pg, "int8 dot and byte shuffle peaks, one core");
    mp_probe_peak pk;
    mp_probe_peaks(ops, MP_PROBE_PEAK_ITERS(quick), &pk);
    double best_dot = pk.dot_gops, best_shuf = pk.shuffle_gbs;
    mp_progress_end(&pg);
    if (nrows + 2 > max)
        return nrows;
    mp_probe_row *r = &rows[nrows++];
    memset(r, 0, sizeof *r);
    snprintf(r->kind, sizeof r->kind, "int8_dot_%s", ops->isa);
    r->threads = 1, r->bytes = 0, r->value = best_dot;
    snprintf(r->unit, sizeof r->unit, "GOPS");
    r = &rows[nrows++];
    memset(r, 0, sizeof *r);
    snprintf(r->kind, sizeof r->kind, "byte_shuffle_%s", ops->isa);
    r->threads = 1, r->bytes = 0, r->value = best_shuf;
    snprintf(r->unit, sizeof r->unit, "GB/s");
    return nrows;
}
