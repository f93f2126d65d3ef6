/* stats.c - Mann-Whitney U and medians for the tuner's significance test. */
#include "mp_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct obs {
    double v;
    int from_a;
} obs;

static int cmp_obs(const void *x, const void *y)
{
    double a = ((const obs *)x)->v, b = ((const obs *)y)->v;
    return a < b ? -1 : a > b;
}

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

double mp_median(const double *v, int n)
{
    if (n <= 0)
        return NAN;
    double *t = malloc(sizeof *t * (size_t)n);
    memcpy(t, v, sizeof *t * (size_t)n);
    qsort(t, (size_t)n, sizeof *t, cmp_d);
    double m = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    free(t);
    return m;
}

double mp_mann_whitney_p(const double *a, int na, const double *b, int nb)
{
    int n = na + nb;
    obs *o = malloc(sizeof *o * (size_t)n);
    for (int i = 0; i < na; i++)
        o[i] = (obs){a[i], 1};
    for (int i = 0; i < nb; i++)
        o[na + i] = (obs){b[i], 0};
    qsort(o, (size_t)n, sizeof *o, cmp_obs);
    double ra = 0, tie = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && o[j].v == o[i].v)
            j++;
        double rank = 0.5 * (i + 1 + j); /* average rank of the tie group */
        for (int q = i; q < j; q++)
            if (o[q].from_a)
                ra += rank;
        double t = j - i;
        tie += t * t * t - t;
        i = j;
    }
    free(o);
    /* in double throughout: na * nb passes INT_MAX at ~46,341 repetitions
     * each (issue 40; tiny shapes reach ~65,000) */
    const double da = na, db = nb, dn = n;
    double ua = ra - da * (da + 1) / 2.0; /* small U_a: a's values are small */
    double mu = da * db / 2.0;
    double var = da * db / 12.0 * ((dn + 1) - tie / (dn * (dn - 1)));
    if (var <= 0)
        return 1.0;
    double z = (ua - mu + 0.5) / sqrt(var);
    return 0.5 * erfc(-z / sqrt(2.0)); /* P(Z <= z) */
}
