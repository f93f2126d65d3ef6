/* tune-from-sweep.c - `mpbench tune --from-sweep`: tuned configs per machine from the
 * parameter grids a sweep stored (`sweep --params all`), so one sweep over a
 * heterogeneous Slurm partition, merged, yields results/tuned/FINGERPRINT.conf
 * for every CPU kind in it (issue 21).
 *
 * For every machine and every (variant, M, K, N, threads) swept with more than
 * one parameter setting, the fastest setting (median) replaces the default only
 * if a one-sided Mann-Whitney U test over the stored repetitions gives p < alpha
 * and its median gain reaches the margin: the decision `mpbench tune` takes,
 * without its A-B-A round, which needs the machine itself (a sweep interleaves
 * the repetitions of all settings of a point, so they shared the machine's
 * state).  Cold-cache results win over warm ones for the same key.  An existing
 * config of the same fingerprint keeps its other entries; one of another
 * machine under that name is an error. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/mp_core.h"
#include "../store/mp_store_tune.h"
#include "mp_tune_sweep.h"
#include "../../tuner/mp_stats.h"
#include "../../tuner/mp_tuned.h"
#include "../../variants/mp_registry.h"

typedef struct setting {
    char params[128];
    double median;
    double *t;
    int nt;
} setting;

typedef struct group {
    char fp[64], variant[64], cache[8];
    int m, k, n, threads;
    setting *s;
    int ns, cap;
} group;

static void group_reset(group *g)
{
    for (int i = 0; i < g->ns; i++)
        free(g->s[i].t);
    free(g->s);
    memset(g, 0, sizeof *g);
}

static int parse_times(const char *txt, double **out)
{
    int n = 0, cap = 16;
    double *t = malloc(sizeof *t * (size_t)cap);
    for (const char *p = txt; p && *p;) {
        char *end;
        double v = strtod(p, &end);
        if (end == p)
            break;
        if (n == cap)
            t = realloc(t, sizeof *t * (size_t)(cap *= 2));
        t[n++] = v;
        p = *end == ',' ? end + 1 : end;
    }
    *out = t;
    return n;
}

typedef struct conf_set {
    mp_tuned *t; /* one per fingerprint */
    int n;
    int winners, kept;
} conf_set;

static mp_tuned *conf_for(conf_set *cs, const char *dir, const char *fp, mp_err *e, int *rc)
{
    for (int i = 0; i < cs->n; i++)
        if (!strcmp(cs->t[i].fingerprint, fp))
            return &cs->t[i];
    cs->t = realloc(cs->t, sizeof *cs->t * (size_t)(cs->n + 1));
    mp_tuned *t = &cs->t[cs->n];
    memset(t, 0, sizeof *t);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.conf", dir, fp);
    if (access(path, F_OK) == 0 && (*rc = mp_tuned_load(path, fp, 0, t, e->msg, sizeof e->msg)))
        return NULL;
    snprintf(t->fingerprint, sizeof t->fingerprint, "%s", fp);
    cs->n++;
    return t;
}

/* decides one group and upserts the choice into its machine's config */
static int decide(conf_set *cs, const char *dir, group *g, double margin, double alpha,
                  mp_err *e)
{
    const mp_variant *v = mp_registry_find(g->variant);
    if (!v || !v->n_params || g->ns < 2)
        return MP_OK; /* built elsewhere, nothing to tune, or no grid swept */
    int def[MP_MAX_PARAMS], chosen[MP_MAX_PARAMS];
    char defs[128], why[256];
    mp_variant_defaults(v, def);
    mp_params_str(v, def, defs, sizeof defs);
    const setting *d = NULL, *best = NULL;
    for (int i = 0; i < g->ns; i++) {
        if (!strcmp(g->s[i].params, defs))
            d = &g->s[i];
        if (!best || g->s[i].median < best->median)
            best = &g->s[i];
    }
    if (!d)
        return MP_OK; /* the default was not swept: nothing to compare with */
    double gain = 100.0 * (1.0 - best->median / d->median);
    double p = best == d ? 1.0 : mp_mann_whitney_p(best->t, best->nt, d->t, d->nt);
    int win = best != d && best->nt >= 3 && d->nt >= 3 && p < alpha && gain >= margin;
    memcpy(chosen, def, sizeof chosen);
    if (win && mp_params_parse(v, best->params, chosen, why, sizeof why))
        return MP_OK; /* a setting this build does not know */
    int rc = MP_OK;
    mp_tuned *t = conf_for(cs, dir, g->fp, e, &rc);
    if (!t)
        return rc;
    int slot = -1;
    for (int i = 0; i < t->count; i++)
        if (t->e[i].v == v && t->e[i].m == g->m && t->e[i].k == g->k && t->e[i].n == g->n &&
            t->e[i].threads == g->threads)
            slot = i;
    if (slot < 0) {
        t->e = realloc(t->e, sizeof *t->e * (size_t)(t->count + 1));
        slot = t->count++;
    }
    t->e[slot] = (mp_tuned_entry){v, g->m, g->k, g->n, g->threads, {0}};
    memcpy(t->e[slot].param, chosen, sizeof t->e[slot].param);
    if (win)
        cs->winners++;
    else
        cs->kept++;
    printf("%s %s %dx%d n=%d threads=%d %s: %s %s (%.1f%% vs default %s, p=%.2g)\n", g->fp,
           g->variant, g->m, g->k, g->n, g->threads, g->cache, win ? "winner" : "keep default",
           win ? best->params : defs, gain, defs, p);
    return MP_OK;
}

/* The walk over the stored grid: rows arrive grouped by machine, variant,
 * problem and cache mode; each finished group is decided. */
typedef struct walk {
    const char *dir;
    double margin, alpha;
    conf_set cs;
    group g;
    int rc;
    mp_err e;
} walk;

static void grid_row(void *ctx, const mp_sweep_grid_row *r)
{
    walk *w = ctx;
    group *g = &w->g;
    if (w->rc)
        return;
    if (g->ns && (strcmp(g->fp, r->fingerprint) || strcmp(g->variant, r->variant) ||
                  strcmp(g->cache, r->cache_mode) || g->m != r->m || g->k != r->k ||
                  g->n != r->n || g->threads != r->threads)) {
        w->rc = decide(&w->cs, w->dir, g, w->margin, w->alpha, &w->e);
        group_reset(g);
    }
    if (!g->ns) {
        snprintf(g->fp, sizeof g->fp, "%s", r->fingerprint);
        snprintf(g->variant, sizeof g->variant, "%s", r->variant);
        snprintf(g->cache, sizeof g->cache, "%s", r->cache_mode);
        g->m = r->m, g->k = r->k, g->n = r->n, g->threads = r->threads;
    }
    if (g->ns == g->cap)
        g->s = realloc(g->s, sizeof *g->s * (size_t)(g->cap = g->cap ? 2 * g->cap : 8));
    setting *x = &g->s[g->ns++];
    snprintf(x->params, sizeof x->params, "%s", r->params);
    x->median = r->median_us;
    x->nt = parse_times(r->times_us, &x->t);
}

int mp_tune_from_sweep(const char *db, const char *dir, double margin, double alpha)
{
    struct stat sb;
    if (stat(db, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size == 0)
        return mp_die(2, "tune --from-sweep: --db %s: no such database", db);
    mp_store *s;
    mp_err e;
    int rc = mp_store_open(db, &s, &e);
    if (rc)
        return mp_die(rc, "%s", e.msg);
    char mk[4096];
    snprintf(mk, sizeof mk, "%s", dir);
    for (char *p = mk + 1; *p; p++) /* mkdir -p */
        if (*p == '/') {
            *p = 0;
            mkdir(mk, 0755);
            *p = '/';
        }
    mkdir(mk, 0755);
    walk w = {.dir = dir, .margin = margin, .alpha = alpha};
    int qrc = mp_store_sweep_grid(s, grid_row, &w, &e);
    if (!qrc && !w.rc && w.g.ns)
        w.rc = decide(&w.cs, dir, &w.g, margin, alpha, &w.e);
    group_reset(&w.g);
    mp_store_close(s);
    if (qrc) {
        for (int i = 0; i < w.cs.n; i++)
            mp_tuned_free(&w.cs.t[i]);
        free(w.cs.t);
        return mp_die(2, "tune --from-sweep: --db %s: %s", db, e.msg);
    }
    rc = w.rc;
    if (rc)
        e = w.e;
    conf_set cs = w.cs;
    for (int i = 0; i < cs.n && !rc; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.conf", dir, cs.t[i].fingerprint);
        if (!(rc = mp_tuned_save(path, &cs.t[i], e.msg, sizeof e.msg)))
            fprintf(stderr, "mpbench: tuned parameters of machine %s written to %s\n",
                    cs.t[i].fingerprint, path);
    }
    for (int i = 0; i < cs.n; i++)
        mp_tuned_free(&cs.t[i]);
    free(cs.t);
    if (rc)
        return mp_die(rc, "%s", e.msg);
    if (!cs.n)
        fprintf(stderr, "mpbench: tune --from-sweep: no parameter grid in %s's sweeps (sweep "
                        "with --params all)\n", db);
    else
        fprintf(stderr, "mpbench: %d winners, %d keys keep their default, %d machines\n",
                cs.winners, cs.kept, cs.n);
    return 0;
}
