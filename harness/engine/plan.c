/* plan.c - kernel plans: which points a command measures, in which order, and
 * the keys that let a resumed plan skip what is stored.
 *
 * A plan is cases (variant + parameter values) x problems (M, K, N, threads).
 * Problems are numbered shapes-major (shape, then N, then threads) and a shard
 * I/N keeps problem p when p % N == I - 1, so N machines split one plan with no
 * overlap and no gap; within the shard they are measured threads-outer so that
 * one pool serves every problem of a thread count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_engine.h"
#include "../../variants/mp_registry.h"

int mp_plan_kernels(mp_plan *p, const mp_case *cases, int ncase, const int (*shapes)[2],
                    int ns, const int *nv, int nn, const int *tv, int nt, int shard_i,
                    int shard_n, int warm, mp_err *e)
{
    memset(p, 0, sizeof *p);
    long all = (long)ns * nn * nt;
    if (all > 10000000L)
        return mp_fail(e, MP_EUSAGE, "plan: %ld problems (shapes x n x threads) is too many", all);
    p->cases = malloc(sizeof *p->cases * (size_t)(ncase ? ncase : 1));
    p->probs = malloc(sizeof *p->probs * (size_t)(all ? all : 1));
    if (!p->cases || !p->probs) {
        mp_plan_free(p);
        return mp_fail(e, MP_ERUN, "plan: out of memory");
    }
    memcpy(p->cases, cases, sizeof *cases * (size_t)ncase);
    p->ncase = ncase;
    p->all_probs = (int)all;
    p->warm = warm;
    for (int ti = 0; ti < nt; ti++)
        for (int si = 0; si < ns; si++)
            for (int ni = 0; ni < nn; ni++) {
                long idx = (long)si * nn * nt + (long)ni * nt + ti;
                if (idx % shard_n != shard_i - 1)
                    continue;
                p->probs[p->nprob++] = (mp_problem){shapes[si][0], shapes[si][1], nv[ni], tv[ti]};
            }
    return MP_OK;
}

int mp_plan_cases(const mp_variant *const *sel, int nsel, int all_params, mp_case *cases,
                   int max, int *ncase, mp_err *e)
{
    int n = 0;
    for (int i = 0; i < nsel; i++) {
        const mp_variant *v = sel[i];
        int idx[MP_MAX_PARAMS] = {0};
        for (;;) {
            if (n == max)
                return mp_fail(e, MP_EUSAGE,
                               "--params all: more than %d parameter combinations; narrow "
                               "--variant or use 'mpbench tune'", max);
            cases[n].v = v;
            mp_variant_defaults(v, cases[n].param);
            if (all_params)
                for (int p = 0; p < v->n_params; p++)
                    cases[n].param[p] = v->params[p].values[idx[p]];
            n++;
            if (!all_params)
                break;
            int p = 0;
            while (p < v->n_params && ++idx[p] == v->params[p].n_values)
                idx[p++] = 0;
            if (p == v->n_params)
                break;
        }
    }
    *ncase = n;
    return MP_OK;
}

static unsigned long long fnv(const char *s)
{
    unsigned long long h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

void mp_plan_set_key(mp_plan *p, const char *config)
{
    snprintf(p->key, sizeof p->key, "%016llx", fnv(config));
}

void mp_plan_free(mp_plan *p)
{
    free(p->cases);
    free(p->probs);
    memset(p, 0, sizeof *p);
}

void mp_point_rerun(char *buf, size_t len, const mp_result *r, uint64_t seed)
{
    int used = snprintf(buf, len, "mpbench run --variant %s --shape %dx%d --n %d --threads %d",
                        r->v->name, r->m, r->k, r->n, r->threads);
    if (used > 0 && (size_t)used < len && r->params[0])
        used += snprintf(buf + used, len - (size_t)used, " --params %s", r->params);
    if (used > 0 && (size_t)used < len)
        snprintf(buf + used, len - (size_t)used, " --seed %llu%s --no-db",
                 (unsigned long long)seed, r->warm ? " --warm" : "");
}
