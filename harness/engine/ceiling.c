/* ceiling.c - a variant's compute throughput: the "C" of seed 003's roofline
 * (eq. 1-3), measured for any variant through the public kernel interface
 * instead of inside a kernel (kernels contain no timing).
 *
 * The compute roof (issue 37, "Roofs that hold"; DESIGN.md "Roofs and
 * conclusions") is what no measurement of the variant can exceed, so it is
 * measured the way the rows it bounds run, only without what slows them:
 *
 *   - at a real model shape, the first of MP_CEILING_SHAPES the variant takes
 *     (6912 x 2560, BitNet b1.58 2B-4T's gate/up: the largest M of the report's
 *     shapes).  Work a variant does once per call and thread (Vec-LUT builds
 *     its tables inside compute) is spread over more rows at a larger M: at
 *     M = 32 vlut_i2 ran 3x below its own cold 2560 x 2560 rows, and at
 *     2 threads 2560 x 2560 was still ~20% below 6912 x 2560 per row;
 *   - per N (1 and 128 by default: the report's GEMV and GEMM) and per thread
 *     count, each thread computing its contiguous share of the rows through
 *     the harness's pool, as engine/measure.c splits a call (no roof times
 *     the thread count);
 *   - in wall time (the monotonic clock, mp_now): what the rows are timed in;
 *     a thread's CPU time leaves out the time it waits for the others;
 *   - with warm weights: the packed tensor is read by a warm-up call and
 *     stays in the caches between calls (4.4 MB at 2 bits: the L3 here, not
 *     L2: keeping each thread's share in its L2 would mean M < 1024, whose
 *     per-call work the rows do not pay), so it is no memory roof;
 *   - compute alone: prepare (the per-call activation work: quantizing X,
 *     lookup tables of T-MAC and TL) runs once before, untimed; it is per
 *     token, not per weight, and leaving it out keeps the roof above rows of
 *     any M;
 *   - best of several calls (a best, not a median: a roof is an upper bound,
 *     and on a shared host most calls are slowed by someone else), within a
 *     time budget: about 0.1-0.5 s per (variant, N, threads), longer (up to
 *     MP_CEILING_FULL_CAP x the budget) until MP_CEILING_FULL_SAMPLES samples
 *     ran with the CPU at full speed (the clock of engine/clock.c, both
 *     readings at MP_CEILING_FULL of the fastest seen): the rows it bounds are
 *     timed clock-gated, so a window that fell wholly in a slow stretch of the
 *     vCPU gave a roof they exceeded (make bench, AMD EPYC VM: vnni_int2.avx2
 *     at N = 128, one thread, 201.9 GOPS against gated rows of 221-257); on several
 *     threads, each thread's best rate over the calls, summed (sample_rates:
 *     a call waits for its slower thread, rows that steal chunks do not).  A variant
 *     whose call over all rows would take longer than MP_CEILING_SLOW_S
 *     (scalar paths at N = 128: f32.scalar needs 7 s; AVX2 float paths) is
 *     measured over its first MP_CEILING_MIN_M = 1024 rows, and the stored M
 *     says so (per-call work is no share of a call that long); when that call
 *     too is slower, it is the only one (its weights read cold: milliseconds
 *     of a second).
 *
 * The figure is GOPS: 2 M K N / seconds of the best call, the unit every
 * variant's compute roof is stored in whatever its bits per weight; the
 * report turns it into GB/s of a row's packed weights.
 *
 * mp_ceiling_bytes_per_sec is the older one-core figure seed 003's model
 * (eq. 3, harness/model.c) uses: per-core up-convert throughput on an L1 tile. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mp_engine.h"
#include "../store/mp_probe_store.h"
#include "../../kernels/common/mp_numerics.h"
#include "../../variants/mp_registry.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seed 003 eq. 3's per-core C: the compute slot at N = 1 on a 32 x 2048 tile
 * (16 KB at 2 bits per weight, 8 KB at 1) resident in L1, bytes of packed
 * weights per second of the calling thread's CPU time, best of 9 repetitions
 * of ~2 ms after a warm-up.  About 30 ms.  Not a roof (see above). */
double mp_ceiling_bytes_per_sec(const mp_variant *v, const int *param_in)
{
    enum { M = 32, K = 2048 };
    char why[128];
    if (!v || !mp_variant_available(v))
        return 0.0;
    int param[MP_MAX_PARAMS];
    if (param_in)
        memcpy(param, param_in, sizeof param);
    else
        mp_variant_defaults(v, param);
    if (mp_variant_check(v, M, K, param, why, sizeof why))
        return 0.0;
    int8_t *w = mp_alloc((size_t)M * K);
    float *x = mp_alloc(sizeof(float) * K);
    float y[M];
    mp_gen_weights(7, w, (size_t)M * K, v->domain == MP_DOMAIN_BINARY);
    mp_gen_acts(8, x, K);
    size_t bytes = v->packed_size(M, K, param);
    uint8_t *p = mp_alloc(bytes);
    v->pack(w, 1.0f, M, K, param, p);
    mp_op op = {.v = v, .m = M, .k = K, .w_scale = 1.0f, .w = p};
    memcpy(op.param, param, sizeof op.param);
    void *a = mp_alloc(v->act_size(1, K, param));
    v->prepare(&op, x, 1, a, 0, 1);
    size_t ssz = v->scratch_size ? v->scratch_size(1, K, param) : 0;
    void *scr = ssz ? mp_alloc(ssz) : NULL;
    /* the weights the loop streams: 2 (or 1) bits each, not per-tensor trailers */
    const double tile_bytes = (double)M * K * (v->domain == MP_DOMAIN_BINARY ? 1 : 2) / 8;
    int calls = 16;
    double t0 = cpu_now();
    for (int i = 0; i < calls; i++)
        v->compute(&op, a, 1, y, 0, M, scr);
    double dt = cpu_now() - t0;
    if (dt > 0 && dt < 2e-3)
        calls = (int)(calls * 2e-3 / dt) + 1;
    double best = INFINITY;
    for (int rep = 0; rep < 9; rep++) {
        t0 = cpu_now();
        for (int i = 0; i < calls; i++)
            v->compute(&op, a, 1, y, 0, M, scr);
        dt = (cpu_now() - t0) / calls;
        best = dt < best ? dt : best;
    }
    mp_free(scr);
    mp_free(a);
    mp_free(p);
    mp_free(x);
    mp_free(w);
    return best > 0 && isfinite(best) ? tile_bytes / best : 0.0;
}

/* ---- the compute roof ------------------------------------------------------------ */

/* Real shapes (M x K), tried in order: BitNet b1.58 2B-4T's gate/up, q/o and
 * down; Llama-3 8B's q/o; BitNet b1.58 3B's; BitNet b1.58 large's. */
static const int shapes[][2] = {{6912, 2560}, {2560, 2560}, {2560, 6912},
                                {4096, 4096}, {3200, 3200}, {1536, 1536}};

/* The which-th real shape v accepts, cyclically (which 0: the first). */
static int shape_at(const mp_variant *v, const int *param, int which, int *m, int *k, char *why,
                    size_t len)
{
    int ok[sizeof shapes / sizeof shapes[0]], n = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        if (!mp_variant_check(v, shapes[i][0], shapes[i][1], param, why, len))
            ok[n++] = (int)i;
    if (!n)
        return -1;
    int i = ok[(which < 0 ? 0 : which) % n];
    *m = shapes[i][0], *k = shapes[i][1];
    return 0;
}

int mp_ceiling_shape(const mp_variant *v, const int *param, int *m, int *k, char *why,
                     size_t len)
{
    return shape_at(v, param, 0, m, k, why, len);
}

enum { MAX_T = 64 };

typedef struct comp_ctx {
    const mp_op *op;
    const void *act;
    int n;
    int rows; /* the call computes rows [0, rows) of op->m */
    float *y;
    void *scratch[MAX_T];
    double busy[MAX_T]; /* wall seconds thread t spent computing, summed over calls */
    int share[MAX_T];   /* rows thread t computes per call */
} comp_ctx;

/* Thread tid's contiguous share of the rows, in whole m_align units (the
 * split engine/measure.c gives a call when it does not steal chunks). */
static void comp_task(void *arg, int tid, int nt)
{
    comp_ctx *c = arg;
    const mp_op *op = c->op;
    int m = c->rows, align = op->v->m_align > 0 ? op->v->m_align : 1;
    int units = (m + align - 1) / align, per = (units + nt - 1) / nt;
    long a = (long)tid * per * align, b = (long)(tid + 1) * per * align;
    int m0 = a < m ? (int)a : m, m1 = b < m ? (int)b : m;
    c->share[tid] = m1 > m0 ? m1 - m0 : 0;
    if (m0 < m1) {
        double t0 = mp_now();
        op->v->compute(op, c->act, c->n, c->y, m0, m1, c->scratch[tid]);
        c->busy[tid] += mp_now() - t0;
    }
}

/* Rows per second the threads sustain together, from each thread's own best
 * rate: best[t] over samples, summed.  On this shared host one vCPU is often
 * slowed for a while; a call's wall time is its slower thread's, so a roof
 * taken from whole calls sat below rows measured in a quieter minute (4 of
 * 531 rows, all N = 128 on two threads, 3-18% above it).  Each thread is still
 * timed in wall time while the others run beside it (sharing L3 and memory),
 * so nothing is multiplied by the thread count. */
static void sample_rates(comp_ctx *c, int nt, int calls, double *best)
{
    for (int t = 0; t < nt; t++) {
        double r = c->busy[t] > 0 ? (double)c->share[t] * calls / c->busy[t] : 0;
        best[t] = r > best[t] ? r : best[t];
        c->busy[t] = 0;
    }
}

static double rates_seconds(const comp_ctx *c, int nt, const double *best)
{
    double sum = 0;
    for (int t = 0; t < nt; t++)
        sum += best[t];
    return sum > 0 ? c->rows / sum : INFINITY;
}

/* Best wall seconds of one call on pool (see the top of the file); *rows_out
 * the rows a call computed: all of them, or MP_CEILING_MIN_M when a call over
 * all of them would take longer than MP_CEILING_SLOW_S; when even that call
 * does, it is the measurement (scalar paths at N = 128 take seconds). */
static double best_call(mp_pool *pool, comp_ctx *c, double budget, int *calls_out,
                        int *rows_out, int *full_out)
{
    int align = c->op->v->m_align > 0 ? c->op->v->m_align : 1;
    int few = (MP_CEILING_MIN_M + align - 1) / align * align;
    c->rows = few < c->op->m ? few : c->op->m;
    const int nt = mp_pool_size(pool);
    double rate[MAX_T] = {0};
    memset(c->busy, 0, sizeof c->busy);
    double t0 = mp_now();
    mp_pool_run(pool, comp_task, c); /* warm-up: weights into the caches */
    double first = mp_now() - t0;
    *calls_out = 1;
    *rows_out = c->rows;
    *full_out = 0;
    if (c->rows < c->op->m && first * c->op->m / c->rows < MP_CEILING_SLOW_S) {
        c->rows = *rows_out = c->op->m;
        memset(c->busy, 0, sizeof c->busy);
        t0 = mp_now();
        mp_pool_run(pool, comp_task, c); /* the warm-up of the other rows */
        first = mp_now() - t0;
        *calls_out = 2;
    }
    if (first >= MP_CEILING_SLOW_S) { /* a slow path: this call is the measurement */
        sample_rates(c, nt, 1, rate);
        mp_pool_rest(pool, 1); /* the next pool's threads need the cores */
        return rates_seconds(c, nt, rate);
    }
    memset(c->busy, 0, sizeof c->busy);
    /* samples of >= 2 ms each (a GEMV call is tens of microseconds) */
    int per = first > 0 && first < 2e-3 ? (int)(2e-3 / first) + 1 : 1;
    double spent = 0;
    int samples = 0;
    for (;;) {
        int within_budget = samples < 15 && (spent < budget || samples < 2);
        int want_full =
            *full_out < MP_CEILING_FULL_SAMPLES && spent < budget * MP_CEILING_FULL_CAP;
        if (!within_budget && !want_full)
            break;
        double c0 = mp_clock_now(pool);
        t0 = mp_now();
        for (int i = 0; i < per; i++)
            mp_pool_run(pool, comp_task, c);
        double dt = mp_now() - t0;
        double c1 = mp_clock_now(pool);
        spent += dt;
        samples++;
        *full_out += (c0 < c1 ? c0 : c1) >= MP_CEILING_FULL * mp_clock_best();
        sample_rates(c, nt, per, rate);
        if (dt >= MP_CEILING_SLOW_S)
            break;
    }
    *calls_out += samples * per;
    mp_pool_rest(pool, 1); /* the next pool's threads need the cores */
    return rates_seconds(c, nt, rate);
}

int mp_ceiling_measure(const mp_variant *v, const int *param_in, const int *nv, int nn,
                       mp_pool *const *pools, int np, double budget, mp_ceiling *out,
                       char *why, size_t len)
{
    return mp_ceiling_measure_at(v, param_in, 0, nv, nn, pools, np, budget, out, why, len);
}

int mp_ceiling_measure_at(const mp_variant *v, const int *param_in, int which, const int *nv,
                          int nn, mp_pool *const *pools, int np, double budget, mp_ceiling *out,
                          char *why, size_t len)
{
    int param[MP_MAX_PARAMS], m, k;
    if (param_in)
        memcpy(param, param_in, sizeof param);
    else
        mp_variant_defaults(v, param);
    if (v->self_threaded) {
        snprintf(why, len, "threads itself (a peer): no row split to measure");
        return -1;
    }
    if (shape_at(v, param, which, &m, &k, why, len))
        return -1;
    for (int p = 0; p < np; p++)
        if (mp_pool_size(pools[p]) > MAX_T) {
            snprintf(why, len, "more than %d threads", MAX_T);
            return -1;
        }
    int8_t *w = mp_alloc((size_t)m * k);
    mp_gen_weights(7, w, (size_t)m * k, v->domain == MP_DOMAIN_BINARY);
    size_t bytes = v->packed_size(m, k, param);
    uint8_t *packed = mp_alloc(bytes);
    v->pack(w, 1.0f, m, k, param, packed);
    mp_free(w);
    mp_op op = {.v = v, .m = m, .k = k, .w_scale = 1.0f, .w = packed};
    memcpy(op.param, param, sizeof op.param);
    int got = 0;
    for (int i = 0; i < nn; i++) {
        int n = nv[i];
        float *x = mp_alloc(sizeof(float) * (size_t)n * k);
        mp_gen_acts(8, x, (size_t)n * k);
        void *act = mp_alloc(v->act_size(n, k, param));
        v->prepare(&op, x, n, act, 0, n); /* untimed: see the top of the file */
        comp_ctx c = {.op = &op, .act = act, .n = n};
        c.y = mp_alloc(sizeof(float) * (size_t)n * m);
        size_t ssz = v->scratch_size ? v->scratch_size(n, k, param) : 0;
        for (int p = 0; p < np; p++) {
            int nt = mp_pool_size(pools[p]);
            for (int t = 0; t < nt; t++)
                c.scratch[t] = ssz ? mp_alloc(ssz) : NULL;
            op.threads = nt;
            mp_ceiling *o = &out[got++];
            memset(o, 0, sizeof *o);
            o->k = k, o->n = n, o->threads = nt;
            o->seconds = best_call(pools[p], &c, budget, &o->calls, &o->m, &o->full);
            o->packed_bytes = (long long)((double)bytes * o->m / m);
            o->gops = o->seconds > 0 && isfinite(o->seconds)
                          ? 2.0 * o->m * (double)k * n / o->seconds * 1e-9
                          : 0;
            for (int t = 0; t < nt; t++)
                mp_free(c.scratch[t]);
        }
        mp_free(c.y);
        mp_free(act);
        mp_free(x);
    }
    mp_free(packed);
    return got;
}

int mp_ceiling_rows(const mp_variant *const *sel, int nsel, const int *tv, int nt,
                    const int *nv, int nn, double budget, mp_probe_row *rows, int n, int max,
                    int quiet)
{
    mp_pool *pools[64];
    int np = 0;
    for (int i = 0; i < nt && np < 64; i++) {
        if (tv[i] > MAX_T)
            continue;
        char binding[512];
        pools[np] = mp_pool_create(tv[i], binding, sizeof binding);
        mp_pool_rest(pools[np++], 1);
    }
    mp_ceiling *c = calloc((size_t)(nn > 0 ? nn : 1) * (size_t)(np > 0 ? np : 1), sizeof *c);
    /* MP_CEILING_ROUNDS passes over every variant, each at another shape, the
     * best of each kept (its m, k stored with it): on a
     * shared host a variant's window can fall in a slow stretch (i2_s.avx2 at
     * 6912x2560, N = 1, one thread: 64 to 147 GOPS in three back-to-back probes
     * of 0.6 s each), and rounds spread its windows over the whole probe */
    int first = n;
    mp_progress pg;
    mp_progress_begin(&pg, nsel * MP_CEILING_ROUNDS, quiet);
    for (int round = 0; round < MP_CEILING_ROUNDS && c && !mp_engine_interrupted(); round++)
        for (int i = 0; i < nsel && n < max; i++) {
            const mp_variant *v = sel[i];
            mp_progress_show(&pg, "compute ceiling of %s (round %d of %d)", v->name, round + 1,
                             MP_CEILING_ROUNDS);
            mp_progress_step(&pg, 1);
            char why[160];
            if (v->family == MP_FAMILY_PEER || v->self_threaded || !mp_variant_available(v))
                continue;
            /* each round at another real shape: a ceiling bounds rows of every
             * shape (at N = 128 on two threads 2560x2560 ran up to 1.3x faster
             * per weight than 6912x2560 here, and f32's 6912x2560 is 68 MiB,
             * not in any cache) */
            int got = mp_ceiling_measure_at(v, NULL, round, nv, nn, pools, np,
                                            budget > 0 ? budget : MP_CEILING_BUDGET_S, c, why,
                                            sizeof why);
            for (int j = 0; j < got && n < max; j++) {
                if (!(c[j].gops > 0))
                    continue;
                char kind[sizeof rows[0].kind];
                snprintf(kind, sizeof kind, "ceiling_%s", v->name);
                mp_probe_row *r = NULL;
                for (int q = first; q < n && !r; q++)
                    if (!strcmp(rows[q].kind, kind) && rows[q].threads == c[j].threads &&
                        rows[q].n == c[j].n)
                        r = &rows[q];
                if (r) { /* a later round: keep the best */
                    if (c[j].gops > r->value)
                        r->value = c[j].gops, r->m = c[j].m, r->k = c[j].k,
                        r->bytes = c[j].packed_bytes;
                    continue;
                }
                r = &rows[n++];
                memset(r, 0, sizeof *r);
                snprintf(r->kind, sizeof r->kind, "%s", kind);
                r->threads = c[j].threads, r->n = c[j].n, r->m = c[j].m, r->k = c[j].k;
                r->bytes = c[j].packed_bytes, r->value = c[j].gops;
                snprintf(r->unit, sizeof r->unit, "GOPS");
            }
            if (mp_engine_interrupted())
                break;
        }
    mp_progress_end(&pg);
    free(c);
    for (int p = 0; p < np; p++)
        mp_pool_destroy(pools[p]);
    return n;
}
