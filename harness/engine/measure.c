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
#include "measure.h"
#include "../../kernels/common/mp_numerics.h"
#include "../../variants/mp_registry.h"

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
void mp_measure_untimed_call(mp_pool *pool, slot *s, const float *x, int n)
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
