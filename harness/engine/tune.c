/* tune.c - the tuner's cost function over the engine, and its significance
 * test.  tuner/ knows only mp_cost_fn (tuner/mp_search.h); here a cost is the
 * median time of a parameter point measured by engine/measure.c, its
 * repetitions interleaved with the other points of the same request.
 *
 * Every evaluation is stored as soon as its batch is measured: a results row
 * whose sweep key is "PLAN/eEFFORT".  A tune started again with the same
 * arguments (same plan key) takes the evaluations it finds there instead of
 * measuring them again; since the strategies are deterministic given their
 * costs and seed, it walks the same path and picks up where it was killed.
 *
 * With a clock gate (tune --clock-gate, the base options' clock_gate) the
 * evaluations, the rank test's repetitions and the A-B-A rounds keep only what
 * ran at full speed, as run --clock-gate does.  Ungated on the AMD EPYC VM of
 * 2026-11-30, whose vCPUs run for seconds at a time at 55-65% of their speed,
 * two i2_s.avx2 winners (1024x4096 pf=16384,pfh=3: 3.3%, p=0.00018, A-B-A
 * confirmed) came out slower than the default in a later gated run of both
 * (85.2 against 79.2 us), and the two 2B-4T winners of an earlier tune ran at
 * 0.99x the default in a gated run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_engine.h"
#include "../../tuner/mp_search.h"
#include "../../tuner/mp_stats.h"
#include "../../variants/mp_registry.h"

/* GATE_TRIES: A-B-A rounds made per round kept, at most, under a clock gate */
enum { BATCH = 8, MAX_EVAL = 4096, GATE_TRIES = 8 };

static void record(mp_tune_problem *t, const mp_result *r, int effort)
{
    if (!t->ev)
        t->ev = calloc(MAX_EVAL, sizeof *t->ev);
    for (int i = 0; i < t->nev; i++)
        if (!strcmp(t->ev[i].params, r->params)) {
            if (effort >= t->ev[i].effort) {
                t->ev[i].effort = effort;
                t->ev[i].median_us = r->median_us;
                t->ev[i].status = r->status;
            }
            return;
        }
    if (t->nev < MAX_EVAL) {
        mp_tune_eval *x = &t->ev[t->nev++];
        snprintf(x->params, sizeof x->params, "%s", r->params);
        x->effort = effort;
        x->median_us = r->median_us;
        x->status = r->status;
    }
}

/* Stored evaluations of this plan at one effort (cached for the problem). */
typedef struct stored {
    int effort;
    mp_result *rows;
    int n;
} stored;

static const mp_result *find_stored(mp_tune_problem *t, stored *st, int effort,
                                    const char *params)
{
    if (!t->store || !t->key)
        return NULL;
    if (st->effort != effort) {
        free(st->rows);
        st->rows = NULL;
        st->n = 0;
        st->effort = effort;
        char key[64];
        mp_err e;
        snprintf(key, sizeof key, "%s/e%d", t->key, effort);
        if (mp_store_plan_results(t->store, key, t->base.warm ? "warm" : "cold", &st->rows,
                                  &st->n, &e))
            st->n = 0;
    }
    for (int i = 0; i < st->n; i++) {
        const mp_result *r = &st->rows[i];
        if (r->v == t->v && r->m == t->m && r->k == t->k && r->n == t->n &&
            r->threads == mp_pool_size(t->pool) && !strcmp(r->params, params))
            return r;
    }
    return NULL;
}

void mp_tune_cost(void *ctx, const int (*pts)[MP_MAX_PARAMS], int count, int effort,
                  double *cost)
{
    mp_tune_problem *t = ctx;
    mp_case *cases = calloc((size_t)count, sizeof *cases);
    mp_result *res = calloc((size_t)count, sizeof *res);
    int *idx = malloc(sizeof *idx * (size_t)count), todo = 0;
    stored st = {.effort = -1};
    for (int i = 0; i < count; i++) {
        mp_case c = {t->v, {0}};
        mp_space_values(t->sp, pts[i], c.param);
        char ps[128];
        mp_params_str(t->v, c.param, ps, sizeof ps);
        const mp_result *had = find_stored(t, &st, effort, ps);
        if (had) {
            cost[i] = (had->status == MP_ST_OK || had->status == MP_ST_UNSTABLE) && had->reps
                          ? had->median_us
                          : INFINITY;
            record(t, had, effort);
            t->reused++;
            continue;
        }
        cases[todo] = c;
        idx[todo++] = i;
    }
    free(st.rows);
    mp_bench_opts o = t->base;
    o.min_reps = 3 * effort;
    o.min_time = 0.01 * effort;
    o.cv_threshold = 1e9; /* the decision step judges noise; no re-measure here */
    char key[64];
    snprintf(key, sizeof key, "%s/e%d", t->key ? t->key : "", effort);
    /* in batches, so the weight copies of many candidates never pile up */
    for (int b = 0; b < todo; b += BATCH) {
        int nb = todo - b < BATCH ? todo - b : BATCH;
        mp_err e;
        if (mp_engine_interrupted()) {
            /* stopping: the rest are not measured, a cut-short batch not stored */
            for (int i = b; i < todo; i++) {
                memset(&res[i], 0, sizeof res[i]);
                res[i].status = MP_ST_SKIPPED;
            }
            break;
        }
        if (mp_bench_point(t->pool, cases + b, nb, t->m, t->k, t->n, &o, res + b, &e)) {
            for (int i = 0; i < nb; i++)
                res[b + i].status = MP_ST_FAILED;
            fprintf(stderr, "mpbench: tune %s: %s\n", t->v->name, e.msg);
        } else if (mp_engine_interrupted()) {
            for (int i = 0; i < nb; i++)
                res[b + i].status = MP_ST_SKIPPED;
        } else if (t->store && !t->store_rc &&
                   (t->store_rc = mp_store_results(t->store, t->run_id, t->key ? key : NULL,
                                                   res + b, nb, &e))) {
            fprintf(stderr, "mpbench: tune %s: %s\n", t->v->name, e.msg);
        }
        t->measured += nb;
    }
    for (int j = 0; j < todo; j++) {
        mp_result *r = &res[j];
        cost[idx[j]] = r->status == MP_ST_OK && r->reps ? r->median_us : INFINITY;
        if (r->status == MP_ST_FAILED)
            fprintf(stderr, "mpbench: %s [%s] gave wrong results: %s\n", t->v->name, r->params,
                    r->reason);
        record(t, r, effort);
        mp_result_free(r);
    }
    free(idx);
    free(cases);
    free(res);
}

void mp_tune_aba_rounds(mp_pool *pool, double (*time1)(void *arg, int which), void *arg,
                        int reps, double gate, mp_tune_aba *out)
{
    memset(out, 0, sizeof *out);
    if (reps < 1)
        return;
    const int tries = gate > 0 ? GATE_TRIES * reps : reps;
    double *a = malloc(sizeof *a * 2 * (size_t)tries), *b = malloc(sizeof *b * (size_t)tries);
    double *clk = malloc(sizeof *clk * (size_t)tries);
    int made = 0, kept = 0;
    while (made < tries && kept < reps) {
        double c0 = gate > 0 ? mp_clock_now(pool) : 0;
        a[2 * made] = time1(arg, 0);
        b[made] = time1(arg, 1);
        a[2 * made + 1] = time1(arg, 0);
        double c1 = gate > 0 ? mp_clock_now(pool) : 0;
        clk[made++] = c0 < c1 ? c0 : c1;
        /* counted again after every round: the fastest rate may have risen */
        kept = 0;
        for (int r = 0; r < made; r++)
            kept += gate <= 0 || clk[r] >= gate * mp_clock_best();
    }
    /* keep the kept rounds' times in place, in order */
    int k = 0;
    for (int r = 0; r < made; r++)
        if (gate <= 0 || clk[r] >= gate * mp_clock_best()) {
            a[2 * k] = a[2 * r], a[2 * k + 1] = a[2 * r + 1], b[k] = b[r];
            k++;
        }
    out->kept = k;
    out->dropped = made - k;
    if (k) {
        out->a_median_us = mp_median(a, 2 * k);
        out->b_median_us = mp_median(b, k);
    }
    free(a);
    free(b);
    free(clk);
}

static double session_time1(void *arg, int which)
{
    return mp_session_time1(arg, which);
}

void mp_tune_decide(mp_tune_problem *t, const int *def, const int *best, int reps,
                    double margin, double alpha, mp_tune_decision *d)
{
    memset(d, 0, sizeof *d);
    mp_case cases[2] = {{t->v, {0}}, {t->v, {0}}};
    memcpy(cases[0].param, def, sizeof cases[0].param);
    memcpy(cases[1].param, best, sizeof cases[1].param);
    mp_result res[2];
    mp_bench_opts o = t->base;
    o.min_reps = reps;
    o.cv_threshold = 1e9;
    o.stream = 0; /* a decision between two parameter sets needs no read stream */
    mp_session *s;
    mp_err e;
    if (mp_session_open(t->pool, cases, 2, t->m, t->k, t->n, &o, res, &s, &e)) {
        snprintf(d->text, sizeof d->text, "not measurable: %.100s", e.msg);
        return;
    }
    if (!mp_session_ready(s, 0) || !mp_session_ready(s, 1)) {
        snprintf(d->text, sizeof d->text, "not measurable: %.100s",
                 res[0].reason[0] ? res[0].reason : res[1].reason);
        mp_session_close(s);
        return;
    }
    mp_session_rounds(s);
    d->default_us = res[0].median_us;
    d->best_us = res[1].median_us;
    d->gain_pct = 100.0 * (1.0 - d->best_us / d->default_us);
    d->p_value = mp_mann_whitney_p(res[1].times_us, res[1].reps, res[0].times_us, res[0].reps);
    mp_tune_aba aba = {0};
    if (d->p_value < alpha && d->gain_pct >= margin) {
        mp_tune_aba_rounds(t->pool, session_time1, s, reps, o.clock_gate, &aba);
        d->aba_confirmed = aba.kept == reps &&
                           100.0 * (1.0 - aba.b_median_us / aba.a_median_us) >= margin;
    }
    d->winner = d->p_value < alpha && d->gain_pct >= margin && d->aba_confirmed;
    if (d->winner)
        snprintf(d->text, sizeof d->text, "winner: %.1f%% faster (p=%.2g, A-B-A confirmed)",
                 d->gain_pct, d->p_value);
    else if (d->p_value < alpha && d->gain_pct >= margin && aba.kept < reps)
        snprintf(d->text, sizeof d->text, "no significant winner, keep default (A-B-A: %d of %d "
                 "rounds at full speed)", aba.kept, reps);
    else if (d->p_value < alpha && d->gain_pct >= margin)
        snprintf(d->text, sizeof d->text, "no significant winner, keep default (A-B-A did not "
                                          "confirm %.1f%%)", d->gain_pct);
    else
        snprintf(d->text, sizeof d->text, "no significant winner, keep default (%.1f%%, p=%.2g)",
                 d->gain_pct, d->p_value);
    mp_result_free(&res[0]);
    mp_result_free(&res[1]);
    mp_session_close(s);
}

void mp_tune_problem_free(mp_tune_problem *t)
{
    free(t->ev);
    t->ev = NULL;
    t->nev = 0;
}
