/* measure.c - the measurement engine (DESIGN.md "Measurement").
 *
 * For one problem (M, K, N, threads) and a list of cases (variant + parameter
 * values) it: generates seeded weights and activations; packs each case and
 * measures its bpw from the packed size; checks its outputs against the
 * reference on a sample of rows (bit for bit for lossless variants); then times
 * prepare+compute with the repetitions of all cases interleaved in random order,
 * rotating through enough copies of the packed weights to defeat the last-level
 * cache unless a warm run was asked for.  A case whose spread stays high after a
 * second round is marked unstable. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_counters.h"
#include "../core/mp_core.h"
#include "mp_engine.h"
#include "../../kernels/common/mp_numerics.h"
#include "../../variants/mp_registry.h"

enum { SAMPLE_BLOCK = 16, SAMPLE_ROWS = 256, MAX_COPIES = 4096 };

typedef struct slot {
    mp_result *r;
    mp_op op;
    uint8_t **copies; /* carved from arena, stride bytes apart */
    uint8_t *arena;
    int ncopies, cur;
    void *act;
    float *y;
    void **scratch;
    int active;
    double total;
    double slow_total; /* seconds of calls discarded by the clock gate */
    double *clk;       /* with a clock gate: the clock of each kept call (cap entries) */
    int in_round;      /* measured by the current time_rounds (slot_reset) */
    int cap;
    int stream; /* the same-run read stream, not a variant (mp_session.sres) */
} slot;

/* Threads split a call's rows as the end-to-end runner does (harness/e2e.c):
 * each thread takes its own contiguous share (equal m_align units, i.e. equal
 * bytes) in up to CALL_SPLIT chunks of at least CHUNK_MIN_BYTES packed bytes,
 * then the chunks another thread has not started.  On a shared host one vCPU is
 * often slowed for a while; with a fixed half each, every call waits for it
 * (2-thread decode medians run 1.5-2x their best calls here).  Smaller chunks
 * cost more than they save: at 200 KB (2560x2560 in 4 per thread) medians were
 * 8-11% slower, at 550 KB (6912x2560) 6-11% faster (3 alternations with the
 * fixed split, 2 threads, 21 reps; the session note of issue 17).  Rows are
 * computed whole by one call, so the output does not depend on who took them.
 * Vector-LUT variants build their tables inside compute: one chunk per thread. */
enum { CALL_SPLIT = 4, CHUNK_MIN_BYTES = 512 << 10, MAX_CALL_THREADS = 64 };

typedef struct call_ctx {
    slot *s;
    const float *x;
    int n;
    int split; /* chunks per thread (comp_task); 1: each thread its share, no stealing */
    _Atomic int next[MAX_CALL_THREADS][16]; /* per thread, 64 bytes apart */
} call_ctx;

void mp_bench_defaults(mp_bench_opts *o)
{
    memset(o, 0, sizeof *o);
    o->min_reps = 9;
    o->min_time = 0.2;
    o->max_time = 10.0;
    o->seed = 1;
    o->llc_bytes = 32u << 20;
    o->cv_threshold = 0.10;
    o->stream = 1;
}

/* Weight copies: one arena on 2 MiB pages (bigmem.c: advised before the first
 * touch and collapsed once filled, so khugepaged has nothing to do while we time;
 * advice given after the touch once let it stall timed calls for milliseconds).
 * A 64 KiB gap after each copy keeps a prefetcher running off the end of one
 * copy out of the next one, which is the next call's. */
enum { COPY_GAP = 64 << 10 };

static size_t copy_stride(size_t bytes)
{
    return ((bytes + 4095) & ~(size_t)4095) + COPY_GAP;
}

static void prep_task(void *arg, int tid, int nt)
{
    call_ctx *c = arg;
    int per = (c->n + nt - 1) / nt, t0 = tid * per, t1 = t0 + per < c->n ? t0 + per : c->n;
    if (t0 < t1)
        c->s->op.v->prepare(&c->s->op, c->x, c->n, c->s->act, t0, t1);
}

/* Rows [m0, m1) of chunk k of thread u's share. */
static void chunk_of(const mp_op *op, int u, int k, int nt, int split, int *m0, int *m1)
{
    int m = op->m, align = op->v->m_align > 0 ? op->v->m_align : 1;
    int units = (m + align - 1) / align, per = (units + nt - 1) / nt;
    int cper = (per + split - 1) / split;
    long a = ((long)u * per + (long)k * cper) * align;
    long b = ((long)u * per + (long)(k + 1 < split ? (k + 1) * cper : per)) * align;
    long end = (long)(u + 1) * per * align;
    if (b > end)
        b = end;
    *m0 = a < m ? (int)a : m;
    *m1 = b < m ? (int)b : m;
}

static void comp_task(void *arg, int tid, int nt)
{
    call_ctx *c = arg;
    const mp_op *op = &c->s->op;
    if (c->split == 1) {
        int m0, m1;
        chunk_of(op, tid, 0, nt, 1, &m0, &m1);
        if (m0 < m1)
            op->v->compute(op, c->s->act, c->n, c->s->y, m0, m1, c->s->scratch[tid]);
        return;
    }
    for (int k = 0; k < nt; k++) { /* its own chunks first, then the others' */
        int u = (tid + k) % nt;
        for (;;) {
            int i = atomic_fetch_add_explicit(&c->next[u][0], 1, memory_order_relaxed);
            if (i >= c->split)
                break;
            int m0, m1;
            chunk_of(op, u, i, nt, c->split, &m0, &m1);
            if (m0 < m1)
                op->v->compute(op, c->s->act, c->n, c->s->y, m0, m1, c->s->scratch[tid]);
        }
    }
}

/* Chunks per thread for a call of op on nt threads. */
static int call_split(const mp_op *op, int nt)
{
    if (nt < 2 || nt > MAX_CALL_THREADS || op->v->family == MP_FAMILY_VECLUT)
        return 1;
    size_t share = op->v->packed_size(op->m, op->k, op->param) / (size_t)nt;
    int split = (int)(share / CHUNK_MIN_BYTES);
    return split < 1 ? 1 : split > CALL_SPLIT ? CALL_SPLIT : split;
}

/* One timed call: prepare over tokens, then compute over rows. */
static void call(mp_pool *pool, slot *s, const float *x, int n)
{
    call_ctx c; /* not zeroed whole: call() resets the counters it uses */
    c.s = s, c.x = x, c.n = n, c.split = 1;
    if (s->op.v->self_threaded) { /* issue 15: a peer library threads itself; our
                                   * workers rest since around_call */
        s->op.threads = mp_pool_size(pool);
        s->op.v->prepare(&s->op, x, n, s->act, 0, n);
        s->op.v->compute(&s->op, s->act, n, s->y, 0, s->op.m, s->scratch[0]);
        return;
    }
    if (n == 1 || mp_pool_size(pool) == 1)
        prep_task(&c, 0, 1);
    else
        mp_pool_run(pool, prep_task, &c);
    const int nt = mp_pool_size(pool);
    c.split = call_split(&s->op, nt);
    if (c.split > 1)
        for (int t = 0; t < nt; t++)
            atomic_store_explicit(&c.next[t][0], 0, memory_order_relaxed);
    mp_pool_run(pool, comp_task, &c);
}

static void wake_task(void *arg, int tid, int nt)
{
    (void)arg, (void)tid, (void)nt;
}

/* Issue 37: a self-threaded variant's call is timed as it runs in inference,
 * its own threads awake and alone on the cores.  Before it, untimed: our
 * workers sleep (mp_pool_rest, see pool.c) and the variant's threads are
 * brought awake (keep_awake).  After it: they sleep again, and our workers are
 * brought back to spinning, so the next case's call is charged neither the
 * peer's polling threads nor our workers' wake-up. */
static void around_call(mp_pool *pool, slot *s, int before)
{
    if (s->stream || !s->op.v->self_threaded)
        return;
    s->op.threads = mp_pool_size(pool);
    if (before) {
        mp_pool_rest(pool, 1);
        if (s->op.v->keep_awake)
            s->op.v->keep_awake(&s->op, 1);
    } else {
        if (s->op.v->keep_awake)
            s->op.v->keep_awake(&s->op, 0);
        mp_pool_run(pool, wake_task, NULL);
    }
}

/* An untimed call (the output check, the warm-up), made like a timed one. */
static void untimed_call(mp_pool *pool, slot *s, const float *x, int n)
{
    around_call(pool, s, 1);
    call(pool, s, x, n);
    around_call(pool, s, 0);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void stats(mp_result *r)
{
    int n = r->reps;
    if (n == 0)
        return;
    double *t = malloc(sizeof *t * (size_t)n);
    memcpy(t, r->times_us, sizeof *t * (size_t)n);
    r->median_us = median_of(t, n);
    r->min_us = t[0];
    r->max_us = t[n - 1];
    double sum = 0;
    for (int i = 0; i < n; i++) {
        sum += t[i];
        t[i] = fabs(t[i] - r->median_us);
    }
    r->mean_us = sum / n;
    r->mad_us = median_of(t, n);
    r->cv = r->median_us > 0 ? 1.4826 * r->mad_us / r->median_us : 0;
    free(t);
    double sec = r->median_us * 1e-6;
    r->gbps = sec > 0 ? (double)r->packed_bytes / sec * 1e-9 : 0;
    r->gops = sec > 0 ? 2.0 * r->m * (double)r->k * r->n / sec * 1e-9 : 0;
}

static void shuffle(int *a, int n, mp_rng *rng)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(mp_rng_next(rng) % (uint64_t)(i + 1));
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* Whether a slot has what it needs (kept calls and their time) or spent its budget. */
static int slot_done(const slot *s, const mp_bench_opts *o)
{
    const mp_result *r = s->r;
    return (r->reps >= o->min_reps && s->total >= o->min_time) ||
           (s->total >= o->max_time && r->reps >= 3) || r->reps >= 100000 ||
           s->total + s->slow_total >= 2 * o->max_time;
}

/* The process saw a faster clock than before: calls kept against the slower one
 * were not made at full speed after all.  They are discarded now, and a slot
 * that had enough without them measures on. */
static void prune(slot *sl, int ns, double floor)
{
    for (int i = 0; i < ns; i++) {
        slot *s = &sl[i];
        mp_result *r = s->r;
        if (!r || !s->clk || !s->in_round)
            continue;
        int kept = 0;
        for (int j = 0; j < r->reps; j++) {
            if (s->clk[j] >= floor) {
                s->clk[kept] = s->clk[j];
                r->times_us[kept++] = r->times_us[j];
            } else {
                s->total -= r->times_us[j] * 1e-6;
                s->slow_total += r->times_us[j] * 1e-6;
                r->slow_reps++;
            }
        }
        if (kept < r->reps)
            s->active = 1;
        r->reps = kept;
    }
}

/* Interleaved timing rounds over the active slots until each has enough. */
static void time_rounds(mp_pool *pool, slot *sl, int ns, const float *x, int n,
                        const mp_bench_opts *o, mp_rng *rng)
{
    int *order = malloc(sizeof *order * (size_t)(ns ? ns : 1));
    const double gate = o->clock_gate;
    if (gate > 0 && mp_clock_best() == 0)
        for (int i = 0; i < 16; i++) /* a first idea of full speed */
            mp_clock_now(pool);
    /* SIGINT/SIGTERM: stop at the next call (the engine abandons the point) */
    while (!mp_engine_interrupted()) {
        int na = 0;
        for (int i = 0; i < ns; i++)
            if (sl[i].active)
                order[na++] = i;
        if (!na)
            break;
        shuffle(order, na, rng);
        for (int j = 0; j < na; j++) {
            slot *s = &sl[order[j]];
            s->op.w = s->copies[s->cur];
            s->cur = (s->cur + 1) % s->ncopies;
            mp_result *r = s->r;
            if (mp_engine_interrupted())
                break;
            double best = mp_clock_best(), dt, c0 = gate ? mp_clock_now(pool) : 0;
            if (s->stream) {
                double t0 = mp_now();
                volatile uint64_t sink = mp_probe_stream(pool, s->op.w, r->packed_bytes);
                (void)sink;
                dt = mp_now() - t0;
            } else {
                around_call(pool, s, 1);
                mp_counters_start(o->counters);
                double t0 = mp_now();
                call(pool, s, x, n);
                dt = mp_now() - t0;
                mp_counters_stop(o->counters, r->events);
                around_call(pool, s, 0);
            }
            double clk = 0;
            if (gate) {
                double c1 = mp_clock_now(pool);
                if (mp_clock_best() > best)
                    prune(sl, ns, gate * mp_clock_best());
                clk = c0 < c1 ? c0 : c1;
                if (clk < gate * mp_clock_best()) { /* not at full speed: retried */
                    r->slow_reps++;
                    s->slow_total += dt;
                    if (slot_done(s, o))
                        s->active = 0;
                    continue;
                }
            }
            if (r->reps == s->cap) {
                s->cap *= 2;
                r->times_us = realloc(r->times_us, sizeof(double) * (size_t)s->cap);
                s->clk = realloc(s->clk, sizeof(double) * (size_t)s->cap);
            }
            s->clk[r->reps] = clk;
            r->times_us[r->reps++] = dt * 1e6;
            s->total += dt;
            if (slot_done(s, o))
                s->active = 0;
        }
    }
    for (int i = 0; i < ns; i++)
        sl[i].in_round = 0;
    free(order);
}

/* Rows on which outputs are checked: all of them for small problems, otherwise
 * the first and last blocks and evenly spaced blocks in between. */
static int sample_rows(int m, int k, int n, int *r0, int *r1, int max)
{
    if ((double)m * k * n <= 64e6 || m <= SAMPLE_ROWS) {
        r0[0] = 0;
        r1[0] = m;
        return 1;
    }
    int nb = SAMPLE_ROWS / SAMPLE_BLOCK, cnt = 0;
    if (nb > max)
        nb = max;
    for (int b = 0; b < nb; b++) {
        int start = (int)((double)(m - SAMPLE_BLOCK) * b / (nb - 1));
        if (cnt && start < r1[cnt - 1])
            start = r1[cnt - 1];
        if (start >= m)
            break;
        r0[cnt] = start;
        r1[cnt] = start + SAMPLE_BLOCK < m ? start + SAMPLE_BLOCK : m;
        cnt++;
    }
    return cnt;
}

double mp_bench_memory(const mp_case *cases, int ncase, int m, int k, int n, int threads)
{
    double dm = m, dk = k, dn = n;
    /* seeded weights (twice with a binary case), activations, up to 4 oracles */
    double need = 2 * dm * dk + 4 * dn * dk + 4 * 4 * dn * dm;
    /* beyond any machine already: do not ask the variants (their sizes are size_t) */
    if (need > 0x1p50)
        return need;
    for (int c = 0; c < ncase; c++) {
        const mp_variant *v = cases[c].v;
        char why[200];
        if (!mp_variant_available(v) || mp_variant_check(v, m, k, cases[c].param, why, sizeof why))
            continue;
        need += (double)v->packed_size(m, k, cases[c].param) +
                (double)v->act_size(n, k, cases[c].param) + 4 * dn * dm;
        if (v->scratch_size)
            need += (double)threads * (double)v->scratch_size(n, k, cases[c].param);
    }
    return need;
}

struct mp_session {
    mp_pool *pool;
    const mp_bench_opts *o;
    int m, k, n, ncase;
    int8_t *w, *wb;
    float *x;
    float *yref[2], *yflt[2]; /* [domain] */
    slot *sl;     /* ncase + 1: the last is the read stream when has_stream */
    mp_result *res;
    mp_rng rng;
    int has_stream;
    mp_result sres; /* the read stream's timings */
};

int mp_session_open(mp_pool *pool, const mp_case *cases, int ncase, int m, int k, int n,
                    const mp_bench_opts *o, mp_result *res, mp_session **out, mp_err *e)
{
    (void)e;
    const int nt = mp_pool_size(pool);
    mp_session *ss = calloc(1, sizeof *ss);
    ss->pool = pool, ss->o = o, ss->m = m, ss->k = k, ss->n = n, ss->ncase = ncase;
    ss->res = res;
    ss->rng.s = o->seed ^ 0xa5a5a5a5ull;
    /* issue 20: estimate before allocating; a point beyond the machine is
     * skipped with the reason (a sweep goes on), never an abort */
    const double need = mp_bench_memory(cases, ncase, m, k, n, nt);
    const size_t limit = mp_mem_limit();
    if (need > (double)limit) {
        for (int c = 0; c < ncase; c++) {
            mp_result *r = &res[c];
            memset(r, 0, sizeof *r);
            r->v = cases[c].v;
            r->m = m, r->k = k, r->n = n, r->threads = nt, r->warm = o->warm;
            r->max_rel_err = r->mean_rel_err = NAN;
            r->counters = o->counters;
            mp_params_str(cases[c].v, cases[c].param, r->params, sizeof r->params);
            r->status = MP_ST_SKIPPED;
            snprintf(r->reason, sizeof r->reason,
                     "memory: %dx%d n=%d needs ~%.1f GiB, over the limit of %.1f GiB (3/4 of "
                     "this machine's RAM)", m, k, n, need / 1073741824.0,
                     (double)limit / 1073741824.0);
        }
        ss->sl = calloc((size_t)ncase + 1, sizeof *ss->sl);
        *out = ss;
        return MP_OK;
    }
    int8_t *w = ss->w = mp_alloc((size_t)m * k);
    float *x = ss->x = mp_alloc(sizeof(float) * (size_t)n * k);
    mp_gen_weights(o->seed, w, (size_t)m * k, 0);
    mp_gen_acts(o->seed + 1, x, (size_t)n * k);
    const float w_scale = 0.0123f; /* any per-tensor scale; not a power of two on purpose */

    int r0[SAMPLE_ROWS / SAMPLE_BLOCK + 1], r1[SAMPLE_ROWS / SAMPLE_BLOCK + 1];
    int nblk = sample_rows(m, k, n, r0, r1, SAMPLE_ROWS / SAMPLE_BLOCK);

    slot *sl = ss->sl = calloc((size_t)ncase + 1, sizeof *sl);
    /* 3x the LLC, and never less than 4 GiB.  Measured on this VM (EPYC Zen 5,
     * hwloc says L3 = 508 MB): a GEMV rotating through 512 MiB ran 1.5x faster
     * than through 6 GiB, through 2 GiB still 1.1x; results stop changing at
     * 4-6 GiB.  A reported cache size is not to be trusted either way.  At most a
     * quarter of the machine's memory. */
    size_t target = o->llc_bytes * 3;
    if (target < ((size_t)4 << 30))
        target = (size_t)4 << 30;
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    if (pages > 0 && psz > 0 && target > (size_t)pages * (size_t)psz / 4)
        target = (size_t)pages * (size_t)psz / 4;
    /* and the copies fit beside what the point needs anyway */
    if ((double)target > (double)limit - need)
        target = (size_t)((double)limit - need);
    /* MPBENCH_ROTATE_MB overrides it, to check that a result does not change
     * when the rotation grows (i.e. that it is not flattered by a cache) */
    const char *rot = getenv("MPBENCH_ROTATE_MB");
    if (rot && atol(rot) > 0)
        target = (size_t)atol(rot) << 20;
    /* Repetitions are interleaved, so between two uses of one copy every other
     * case's data passes through the cache too: rotate enough copies that the
     * bytes touched in between exceed the target, counting all cases. */
    size_t all_bytes = 0;
    for (int c = 0; c < ncase; c++) {
        char why[200];
        if (mp_variant_available(cases[c].v) &&
            !mp_variant_check(cases[c].v, m, k, cases[c].param, why, sizeof why))
            all_bytes += cases[c].v->packed_size(m, k, cases[c].param);
    }
    /* Decode points (N <= 4, cold) also time a plain read of M*K/4 bytes (a 2-bit
     * tensor's size), rotated and interleaved like the variants: "x% of read" is
     * then a ratio within one run, free of the drift a shared VM shows between a
     * probe taken earlier and this point (on this VM the probe's best-of-reps and
     * a kernel's median could sit 30% apart for that reason alone). */
    const size_t sbytes = ((size_t)m * (size_t)k / 4 + 255) & ~(size_t)255;
    const int want_stream = o->stream && !o->warm && n <= 4 && ncase > 0 && sbytes >= 256;
    if (want_stream)
        all_bytes += sbytes;

    for (int c = 0; c < ncase; c++) {
        const mp_variant *v = cases[c].v;
        mp_result *r = &res[c];
        memset(r, 0, sizeof *r);
        r->v = v;
        r->m = m, r->k = k, r->n = n, r->threads = nt, r->warm = o->warm;
        r->max_rel_err = r->mean_rel_err = NAN;
        r->counters = o->counters;
        mp_params_str(v, cases[c].param, r->params, sizeof r->params);
        char why[200];
        if (mp_variant_unavailable_reason(v, why, sizeof why)) {
            r->status = MP_ST_SKIPPED;
            snprintf(r->reason, sizeof r->reason, "%s", why);
            continue;
        }
        if (mp_variant_check(v, m, k, cases[c].param, why, sizeof why)) {
            r->status = MP_ST_SKIPPED;
            snprintf(r->reason, sizeof r->reason, "%s", why);
            continue;
        }
        int dom = v->domain == MP_DOMAIN_BINARY;
        const int8_t *wd = w;
        if (dom) {
            if (!ss->wb) {
                ss->wb = mp_alloc((size_t)m * k);
                mp_gen_weights(o->seed, ss->wb, (size_t)m * k, 1);
            }
            wd = ss->wb;
        }
        slot *s = &sl[c];
        s->r = r;
        s->op.v = v;
        s->op.m = m, s->op.k = k, s->op.w_scale = w_scale;
        memcpy(s->op.param, cases[c].param, sizeof s->op.param);
        size_t bytes = v->packed_size(m, k, cases[c].param);
        r->packed_bytes = bytes;
        r->bpw = 8.0 * (double)bytes / ((double)m * k);
        s->ncopies = 1;
        if (!o->warm) {
            size_t need = (target + all_bytes - 1) / all_bytes;
            s->ncopies = need < 1 ? 1 : need > MAX_COPIES ? MAX_COPIES : (int)need;
        }
        r->copies = s->ncopies;
        s->copies = calloc((size_t)s->ncopies, sizeof *s->copies);
        const size_t stride = copy_stride(bytes);
        s->arena = mp_big_alloc(stride * (size_t)s->ncopies);
        for (int i = 0; i < s->ncopies; i++)
            s->copies[i] = s->arena + stride * (size_t)i;
        v->pack(wd, w_scale, m, k, cases[c].param, s->copies[0]);
        for (int i = 1; i < s->ncopies; i++)
            memcpy(s->copies[i], s->copies[0], bytes);
        mp_big_settle(s->arena, stride * (size_t)s->ncopies);
        s->act = mp_alloc(v->act_size(n, k, cases[c].param));
        s->y = mp_alloc(sizeof(float) * (size_t)n * m);
        s->scratch = calloc((size_t)nt, sizeof *s->scratch);
        size_t scr = v->scratch_size ? v->scratch_size(n, k, cases[c].param) : 0;
        for (int i = 0; i < nt; i++)
            s->scratch[i] = scr ? mp_alloc(scr) : NULL;

        /* correctness: poisoned outputs, one call, compare on the sampled rows */
        for (size_t i = 0; i < (size_t)n * m; i++)
            s->y[i] = NAN;
        s->op.w = s->copies[0];
        untimed_call(pool, s, x, n);
        float **oracle = v->exactness == MP_FLOAT ? &ss->yflt[dom] : &ss->yref[dom];
        if (!*oracle) {
            *oracle = mp_alloc(sizeof(float) * (size_t)n * m);
            for (int b = 0; b < nblk; b++) {
                if (v->exactness == MP_FLOAT)
                    mp_float_gemm(wd, w_scale, m, k, x, n, *oracle, r0[b], r1[b]);
                else
                    mp_ref_gemm(wd, w_scale, m, k, x, n, *oracle, r0[b], r1[b]);
            }
        }
        double emax = 0, rmax = 0, esum = 0, rsum = 0;
        long bad = -1;
        for (int t = 0; t < n && r->status == MP_ST_OK; t++)
            for (int b = 0; b < nblk; b++)
                for (int i = r0[b]; i < r1[b]; i++) {
                    size_t at = (size_t)t * m + i;
                    float yv = s->y[at], rv = (*oracle)[at];
                    double d = fabs((double)yv - rv);
                    if (isnan(yv) || (v->exactness == MP_LOSSLESS && memcmp(&yv, &rv, sizeof yv))) {
                        if (bad < 0) {
                            bad = (long)at;
                            r->status = MP_ST_FAILED;
                            snprintf(r->reason, sizeof r->reason,
                                     "output t=%d row=%d is %.9g, reference %.9g (seed %llu)",
                                     t, i, yv, rv, (unsigned long long)o->seed);
                        }
                    }
                    if (d > emax)
                        emax = d;
                    if (fabs(rv) > rmax)
                        rmax = fabs(rv);
                    esum += d;
                    rsum += fabs(rv);
                }
        r->max_rel_err = rmax > 0 ? emax / rmax : emax;
        r->mean_rel_err = rsum > 0 ? esum / rsum : esum;
        if (r->status != MP_ST_OK)
            continue;
        untimed_call(pool, s, x, n); /* warm-up */
        s->active = 1;
        s->cap = 64;
        r->times_us = malloc(sizeof(double) * (size_t)s->cap);
        s->clk = malloc(sizeof(double) * (size_t)s->cap);
    }
    int any = 0;
    for (int c = 0; c < ncase; c++)
        any |= mp_session_ready(ss, c);
    if (want_stream && any) {
        slot *s = &sl[ncase];
        mp_result *r = &ss->sres;
        ss->has_stream = 1;
        s->stream = 1;
        s->r = r;
        r->m = m, r->k = k, r->n = n, r->threads = nt;
        r->packed_bytes = sbytes;
        size_t need = (target + all_bytes - 1) / all_bytes;
        s->ncopies = need < 1 ? 1 : need > MAX_COPIES ? MAX_COPIES : (int)need;
        s->copies = calloc((size_t)s->ncopies, sizeof *s->copies);
        const size_t stride = copy_stride(sbytes);
        s->arena = mp_big_alloc(stride * (size_t)s->ncopies);
        for (int i = 0; i < s->ncopies; i++) {
            s->copies[i] = s->arena + stride * (size_t)i;
            memset(s->copies[i], 0x5a ^ i, sbytes);
        }
        mp_big_settle(s->arena, stride * (size_t)s->ncopies);
        s->op.w = s->copies[0];
        (void)mp_probe_stream(pool, s->op.w, sbytes); /* warm-up, like a variant's */
        s->cap = 64;
        r->times_us = malloc(sizeof(double) * (size_t)s->cap);
        s->clk = malloc(sizeof(double) * (size_t)s->cap);
    }
    *out = ss;
    return MP_OK;
}

int mp_session_ready(const mp_session *ss, int i)
{
    return ss->sl[i].r && ss->res[i].status == MP_ST_OK;
}

double mp_session_time1(mp_session *ss, int i)
{
    slot *s = &ss->sl[i];
    s->op.w = s->copies[s->cur];
    s->cur = (s->cur + 1) % s->ncopies;
    around_call(ss->pool, s, 1);
    double t0 = mp_now();
    call(ss->pool, s, ss->x, ss->n);
    double dt = mp_now() - t0;
    around_call(ss->pool, s, 0);
    return dt;
}

/* A slot about to be (re-)measured: its repetitions and counts start over. */
static void slot_reset(slot *s)
{
    s->active = 1;
    s->in_round = 1;
    s->total = 0;
    s->slow_total = 0;
    s->r->reps = 0;
    s->r->slow_reps = 0;
    memset(s->r->events, 0, sizeof s->r->events);
}

/* A slot measured in this round: the clock gate's last word, counters per call
 * (they were summed over every call made, kept or not), then the statistics. */
static void slot_finish(slot *s, double gate)
{
    mp_result *r = s->r;
    int calls = r->reps + r->slow_reps;
    if (gate > 0 && r->reps) { /* the median clock of the kept calls */
        double *c = malloc(sizeof *c * (size_t)r->reps);
        memcpy(c, s->clk, sizeof *c * (size_t)r->reps);
        r->clock_ghz = median_of(c, r->reps);
        free(c);
    }
    for (int i = 0; i < mp_counters_n(r->counters) && calls > 0; i++)
        r->events[i] /= calls;
    stats(r);
}

void mp_session_rounds(mp_session *ss)
{
    const mp_bench_opts *o = ss->o;
    slot *sl = ss->sl;
    mp_result *res = ss->res;
    int ncase = ss->ncase;
    const double gate = o->clock_gate;
    for (int c = 0; c < ncase; c++)
        if (mp_session_ready(ss, c))
            slot_reset(&sl[c]);
    slot *st = ss->has_stream ? &sl[ncase] : NULL;
    if (st)
        slot_reset(st);
    time_rounds(ss->pool, sl, ncase + ss->has_stream, ss->x, ss->n, o, &ss->rng);
    for (int c = 0; c < ncase; c++)
        if (mp_session_ready(ss, c))
            slot_finish(&sl[c], gate);
    /* second round for noisy cases: if the spread stays high, say so */
    int again = 0, redo[ncase ? ncase : 1];
    for (int c = 0; c < ncase; c++) {
        redo[c] = mp_session_ready(ss, c) && res[c].cv > o->cv_threshold;
        if (redo[c]) {
            slot_reset(&sl[c]);
            again = 1;
        }
    }
    if (again && st) /* the stream is timed again beside the re-measured variants */
        slot_reset(st);
    if (again) {
        time_rounds(ss->pool, sl, ncase + ss->has_stream, ss->x, ss->n, o, &ss->rng);
        for (int c = 0; c < ncase; c++)
            if (redo[c]) {
                slot_finish(&sl[c], gate);
                if (res[c].cv > o->cv_threshold) {
                    res[c].status = MP_ST_UNSTABLE;
                    snprintf(res[c].reason, sizeof res[c].reason,
                             "robust CV %.1f%% > %.0f%% after re-measurement",
                             100 * res[c].cv, 100 * o->cv_threshold);
                }
            }
    }
    /* a gate that kept too few calls: the CPU was slowed for the whole budget */
    for (int c = 0; c < ncase && gate > 0; c++)
        if (mp_session_ready(ss, c) && res[c].reps < 3) {
            res[c].status = MP_ST_UNSTABLE;
            snprintf(res[c].reason, sizeof res[c].reason,
                     "clock gate: %d of %d calls ran at full speed (%.0f%% of %.2f G adds/s)",
                     res[c].reps, res[c].reps + res[c].slow_reps, 100 * gate, mp_clock_best());
        }
    if (st) {
        slot_finish(st, gate);
        if (ss->sres.reps)
            for (int c = 0; c < ncase; c++)
                if (mp_session_ready(ss, c) || res[c].status == MP_ST_UNSTABLE) {
                    res[c].read_gbps = ss->sres.gbps;
                    res[c].read_bytes = (long long)ss->sres.packed_bytes;
                }
    }
}

void mp_session_close(mp_session *ss)
{
    if (!ss)
        return;
    const int nt = mp_pool_size(ss->pool);
    for (int c = 0; c < ss->ncase; c++) {
        slot *s = &ss->sl[c];
        if (!s->r)
            continue;
        mp_big_free(s->arena);
        free(s->copies);
        mp_free(s->act);
        mp_free(s->y);
        free(s->clk);
        for (int i = 0; i < nt; i++)
            mp_free(s->scratch[i]);
        free(s->scratch);
    }
    if (ss->has_stream) {
        mp_big_free(ss->sl[ss->ncase].arena);
        free(ss->sl[ss->ncase].copies);
        free(ss->sres.times_us);
        free(ss->sl[ss->ncase].clk);
    }
    free(ss->sl);
    for (int d = 0; d < 2; d++) {
        mp_free(ss->yref[d]);
        mp_free(ss->yflt[d]);
    }
    mp_free(ss->w);
    mp_free(ss->wb);
    mp_free(ss->x);
    free(ss);
}

int mp_bench_point(mp_pool *pool, const mp_case *cases, int ncase, int m, int k, int n,
                   const mp_bench_opts *o, mp_result *res, mp_err *e)
{
    mp_session *ss;
    int rc = mp_session_open(pool, cases, ncase, m, k, n, o, res, &ss, e);
    if (rc)
        return rc;
    mp_session_rounds(ss);
    mp_session_close(ss);
    return MP_OK;
}
