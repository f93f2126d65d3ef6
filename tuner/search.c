/* search.c - the tuner's strategies (mp_search.h).  Pure: no timing here. */
#include "mp_search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/common/mp_numerics.h"

int mp_strategy_parse(const char *s, mp_strategy *out)
{
    static const char *const names[] = {"exhaustive", "random", "halving", "model"};
    for (int i = 0; i < 4; i++)
        if (s && !strcmp(s, names[i])) {
            *out = (mp_strategy)i;
            return 0;
        }
    return -1;
}

const char *mp_strategy_name(mp_strategy s)
{
    static const char *const names[] = {"exhaustive", "random", "halving", "model"};
    return names[s];
}

void mp_space_of(const mp_variant *v, mp_space *sp)
{
    memset(sp, 0, sizeof *sp);
    sp->n = v->n_params;
    for (int i = 0; i < v->n_params; i++) {
        sp->size[i] = v->params[i].n_values;
        memcpy(sp->values[i], v->params[i].values, sizeof sp->values[i]);
    }
}

long mp_space_size(const mp_space *sp)
{
    long s = 1;
    for (int i = 0; i < sp->n; i++)
        s *= sp->size[i];
    return s;
}

int mp_space_index(const mp_space *sp, const int *param, int *idx)
{
    for (int i = 0; i < sp->n; i++) {
        idx[i] = -1;
        for (int j = 0; j < sp->size[i]; j++)
            if (sp->values[i][j] == param[i])
                idx[i] = j;
        if (idx[i] < 0)
            return -1;
    }
    return 0;
}

void mp_space_values(const mp_space *sp, const int *idx, int *param)
{
    memset(param, 0, sizeof(int) * MP_MAX_PARAMS);
    for (int i = 0; i < sp->n; i++)
        param[i] = sp->values[i][idx[i]];
}

static void point_of(const mp_space *sp, long linear, int *idx)
{
    memset(idx, 0, sizeof(int) * MP_MAX_PARAMS);
    for (int i = 0; i < sp->n; i++) {
        idx[i] = (int)(linear % sp->size[i]);
        linear /= sp->size[i];
    }
}

static long linear_of(const mp_space *sp, const int *idx)
{
    long l = 0, mul = 1;
    for (int i = 0; i < sp->n; i++) {
        l += idx[i] * mul;
        mul *= sp->size[i];
    }
    return l;
}

static void take_best(mp_search_result *out, const int *idx, double c)
{
    if (c < out->best_cost) {
        out->best_cost = c;
        memcpy(out->best, idx, sizeof out->best);
    }
}

/* Evaluates points in one oracle call and keeps the best. */
static void eval(const mp_space *sp, int (*pts)[MP_MAX_PARAMS], int count, int effort,
                 mp_cost_fn cost, void *ctx, double *c, mp_search_result *out)
{
    (void)sp;
    if (count <= 0)
        return;
    cost(ctx, (const int(*)[MP_MAX_PARAMS])pts, count, effort, c);
    out->evaluations += count;
    for (int i = 0; i < count; i++)
        take_best(out, pts[i], c[i]);
}

typedef struct ranked {
    double cost;
    long lin;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost < y->cost ? -1 : 1;
    return x->lin < y->lin ? -1 : x->lin > y->lin;
}

void mp_search(const mp_space *sp, mp_strategy st, int budget, const int *start,
               uint64_t seed, mp_cost_fn cost, void *ctx, mp_search_result *out)
{
    memset(out, 0, sizeof *out);
    out->best_cost = INFINITY;
    memcpy(out->best, start, sizeof out->best);
    long size = mp_space_size(sp);
    mp_rng rng = {seed * 2654435761u + 17};
    int (*pts)[MP_MAX_PARAMS] = calloc((size_t)size + 1, sizeof *pts);
    double *c = calloc((size_t)size + 1, sizeof *c);
    switch (st) {
    case MP_EXHAUSTIVE:
        for (long l = 0; l < size; l++)
            point_of(sp, l, pts[l]);
        eval(sp, pts, (int)size, 1, cost, ctx, c, out);
        break;
    case MP_RANDOM: {
        long want = budget > 0 ? budget : 16;
        if (want > size)
            want = size;
        /* a seeded partial Fisher-Yates over the linear indices, start first */
        long *perm = malloc(sizeof *perm * (size_t)size);
        for (long l = 0; l < size; l++)
            perm[l] = l;
        long s0 = linear_of(sp, start);
        perm[s0] = 0;
        perm[0] = s0;
        for (long i = 1; i < want; i++) {
            long j = i + (long)(mp_rng_next(&rng) % (uint64_t)(size - i));
            long t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        for (long i = 0; i < want; i++)
            point_of(sp, perm[i], pts[i]);
        eval(sp, pts, (int)want, 1, cost, ctx, c, out);
        free(perm);
        break;
    }
    case MP_HALVING: {
        long n = budget > 0 && budget < size ? budget : size;
        ranked *cand = malloc(sizeof *cand * (size_t)size);
        if (n == size) {
            for (long l = 0; l < size; l++)
                cand[l].lin = l;
        } else {
            /* a random subset that includes the start point */
            long *perm = malloc(sizeof *perm * (size_t)size);
            for (long l = 0; l < size; l++)
                perm[l] = l;
            long s0 = linear_of(sp, start);
            perm[s0] = 0;
            perm[0] = s0;
            for (long i = 1; i < n; i++) {
                long j = i + (long)(mp_rng_next(&rng) % (uint64_t)(size - i));
                long t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
            }
            for (long i = 0; i < n; i++)
                cand[i].lin = perm[i];
            free(perm);
        }
        int effort = 1;
        for (;;) {
            for (long i = 0; i < n; i++)
                point_of(sp, cand[i].lin, pts[i]);
            cost(ctx, (const int(*)[MP_MAX_PARAMS])pts, (int)n, effort, c);
            out->evaluations += (int)n;
            for (long i = 0; i < n; i++)
                cand[i].cost = c[i];
            qsort(cand, (size_t)n, sizeof *cand, cmp_ranked);
            if (n == 1)
                break;
            n = (n + 1) / 2;
            effort *= 2;
        }
        /* the survivor, with its cost at the highest effort */
        point_of(sp, cand[0].lin, out->best);
        out->best_cost = cand[0].cost;
        free(cand);
        break;
    }
    case MP_MODEL: {
        int limit = budget > 0 ? budget : 64;
        int cur[MP_MAX_PARAMS];
        memcpy(cur, start, sizeof cur);
        memcpy(pts[0], cur, sizeof cur);
        eval(sp, pts, 1, 1, cost, ctx, c, out);
        double cur_cost = c[0];
        char *seen = calloc((size_t)size, 1);
        seen[linear_of(sp, cur)] = 1;
        while (out->evaluations < limit) {
            int cnt = 0;
            for (int p = 0; p < sp->n; p++)
                for (int d = -1; d <= 1; d += 2) {
                    int v = cur[p] + d;
                    if (v < 0 || v >= sp->size[p])
                        continue;
                    memcpy(pts[cnt], cur, sizeof cur);
                    pts[cnt][p] = v;
                    if (seen[linear_of(sp, pts[cnt])])
                        continue;
                    if (out->evaluations + cnt >= limit)
                        break;
                    seen[linear_of(sp, pts[cnt])] = 1;
                    cnt++;
                }
            if (!cnt)
                break;
            eval(sp, pts, cnt, 1, cost, ctx, c, out);
            int bi = -1;
            for (int i = 0; i < cnt; i++)
                if (c[i] < cur_cost && (bi < 0 || c[i] < c[bi]))
                    bi = i;
            if (bi < 0)
                break; /* a local optimum */
            memcpy(cur, pts[bi], sizeof cur);
            cur_cost = c[bi];
        }
        free(seen);
        break;
    }
    }
    free(pts);
    free(c);
}
