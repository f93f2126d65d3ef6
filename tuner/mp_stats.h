/* mp_stats.h - the tests that decide whether a tuned winner is real. */
#ifndef MP_STATS_H
#define MP_STATS_H

/* One-sided Mann-Whitney U: p-value of "a tends to be smaller than b" (normal
 * approximation with tie correction and continuity correction; fine for the
 * >= 9 samples the tuner uses). */
double mp_mann_whitney_p(const double *a, int na, const double *b, int nb);
double mp_median(const double *v, int n);

#endif
