/* measure-open.c - opening a measurement session (measure.c, DESIGN.md
 * "Measurement"): seeded weights and activations, each case packed (its bpw
 * from the packed size) into enough copies to defeat the last-level cache,
 * its outputs checked against the reference on a sample of rows, then warmed
 * up; and the same-run read stream beside the variants. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_counters.h"
#include "measure.h"
#include "../../kernels/common/mp_numerics.h"
#include "../../kernels/common/mp_parse.h"
#include "../../variants/mp_registry.h"

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
    long rot = mp_env_long("MPBENCH_ROTATE_MB", 0); /* checked at start */
    if (rot > 0)
        target = (size_t)rot << 20;
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
        mp_measure_untimed_call(pool, s, x, n);
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
        mp_measure_untimed_call(pool, s, x, n); /* warm-up */
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

