/* mp_search.h - search strategies over a variant's parameter space.
 *
 * A space is the cartesian product of each parameter's allowed values (from the
 * variant's catalog row); a point is one index per parameter.  The strategies
 * only see a cost oracle, so they are tested on synthetic cost functions with a
 * known optimum and driven by real timings in `mpbench tune`.
 *   exhaustive: every point (the ground truth on small spaces);
 *   random:     `budget` distinct points drawn with a seeded generator, the
 *               start point always included;
 *   halving:    successive halving: all points (or `budget` random ones)
 *               measured at effort 1, the best half re-measured at twice the
 *               effort, until one remains;
 *   model:      start at the analytic choice and hill-climb: move to the best
 *               neighbour (one parameter one step up or down) while it improves,
 *               within the budget. */
#ifndef MP_SEARCH_H
#define MP_SEARCH_H

#include <stdint.h>

#include "../kernels/mp_kernel.h"

typedef enum mp_strategy { MP_EXHAUSTIVE, MP_RANDOM, MP_HALVING, MP_MODEL } mp_strategy;

typedef struct mp_space {
    int n;                       /* parameters */
    int size[MP_MAX_PARAMS];     /* values per parameter */
    int values[MP_MAX_PARAMS][MP_MAX_PARAM_VALUES];
} mp_space;

/* Costs of `count` points (each n indices) at an effort level (1, 2, 4 ...: more
 * repetitions); a point the variant cannot take costs INFINITY.  Lower is better. */
typedef void (*mp_cost_fn)(void *ctx, const int (*points)[MP_MAX_PARAMS], int count,
                           int effort, double *cost);

typedef struct mp_search_result {
    int best[MP_MAX_PARAMS];
    double best_cost;
    int evaluations; /* point evaluations, all efforts counted */
} mp_search_result;

int mp_strategy_parse(const char *s, mp_strategy *out);
const char *mp_strategy_name(mp_strategy s);
void mp_space_of(const mp_variant *v, mp_space *sp);
long mp_space_size(const mp_space *sp);
/* Index vector of a parameter-value vector (-1 if a value is not in the space). */
int mp_space_index(const mp_space *sp, const int *param, int *idx);
void mp_space_values(const mp_space *sp, const int *idx, int *param);

/* Runs the strategy from `start` (indices).  budget <= 0: strategy default
 * (exhaustive ignores it; random 16; halving all points; model 64). */
void mp_search(const mp_space *sp, mp_strategy st, int budget, const int *start,
               uint64_t seed, mp_cost_fn cost, void *ctx, mp_search_result *out);

#endif
