/* report-plot-tuner.c - `mpbench plot tuner` (report-plot.h): the landscape of
 * one tune run, every evaluation the search made, and the decision it kept. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report-plot.h"
#include "../../variants/mp_registry.h"

/* "a=1,b=2" -> values in the order of names[] (names learned on the way). */
typedef struct pspace {
    char names[8][32];
    int nnames;
} pspace;

static int parse_params(pspace *ps, const char *s, int *vals)
{
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", s);
    char *save = NULL;
    for (int i = 0; i < 8; i++)
        vals[i] = 0;
    for (char *tok = strtok_r(tmp, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            return -1;
        *eq = 0;
        int i;
        for (i = 0; i < ps->nnames && strcmp(ps->names[i], tok); i++)
            ;
        if (i == ps->nnames) {
            if (i == 8)
                return -1;
            snprintf(ps->names[ps->nnames++], 32, "%s", tok);
        }
        vals[i] = atoi(eq + 1);
    }
    return 0;
}

/* One evaluation of a tune run: its parameter values and median. */
typedef struct tune_ev {
    int v[8];
    double us;
} tune_ev;

typedef struct tune_evals_ctx {
    tune_ev *e; /* MAXP of them */
    int *ne;
    pspace *ps;
} tune_evals_ctx;

/* Adds one stored evaluation to the plot's points; stops at MAXP. */
static int tune_eval(const char *params, double us, void *ctx)
{
    tune_evals_ctx *c = ctx;
    if (!parse_params(c->ps, params, c->e[*c->ne].v))
        c->e[(*c->ne)++].us = us;
    return *c->ne >= MAXP;
}

/* The tune run group (run, variant, shape, N, threads) with the most settings
 * (of --variant if given). */
int mp_plot_tuner(mp_rep *r, const plot_opts *o, plot_job *j)
{
    mp_rep_tune_group g;
    mp_err err;
    if (mp_store_rep_tune_group(r->store, r->mach.id, o->variant, &g, &err) < 0) {
        mp_plot_job_abort(j);
        return mp_die(1, "plot tuner: %s", err.msg);
    }
    int64_t run = g.run;
    char variant[64];
    snprintf(variant, sizeof variant, "%s", g.variant);
    int m = g.m, k = g.k, n = g.n, t = g.threads, count = g.settings;
    if (count < 2) {
        char why[256];
        snprintf(why, sizeof why, "no tune run with two or more evaluated settings%s%s (run "
                                  "'mpbench tune --variant ... --strategy exhaustive')",
                 o->variant ? " for " : "", o->variant ? o->variant : "");
        return mp_plot_no_data(j, why);
    }
    /* the evaluations */
    typedef tune_ev ev;
    ev *e = calloc(MAXP, sizeof *e);
    int ne = 0;
    pspace ps = {{{0}}, 0};
    tune_evals_ctx ec = {e, &ne, &ps};
    mp_store_rep_tune_evals(r->store, &g, tune_eval, &ec);
    if (ne < 2 || !ps.nnames) {
        free(e);
        return mp_plot_no_data(j, "the tune run's evaluations have no parameter values");
    }
    /* x: the parameter with the most distinct values; colour: the next one */
    int nd[8] = {0}, xp = 0, cp = -1;
    for (int p = 0; p < ps.nnames; p++) {
        int seen[MAXP], ns = 0;
        for (int i = 0; i < ne; i++) {
            int q;
            for (q = 0; q < ns && seen[q] != e[i].v[p]; q++)
                ;
            if (q == ns)
                seen[ns++] = e[i].v[p];
        }
        nd[p] = ns;
    }
    for (int p = 1; p < ps.nnames; p++)
        if (nd[p] > nd[xp])
            xp = p;
    for (int p = 0; p < ps.nnames; p++)
        if (p != xp && nd[p] > 1 && nd[p] <= 8 && (cp < 0 || nd[p] > nd[cp]))
            cp = p;
    int cv[8], ncv = 0;
    if (cp >= 0)
        for (int i = 0; i < ne; i++)
            mp_rep_ints_add(cv, &ncv, 8, e[i].v[cp]);
    mp_rep_ints_sort(cv, ncv);
    if (cp < 0)
        ncv = 1;
    char titles[2048] = "";
    int best = 0;
    for (int i = 1; i < ne; i++)
        if (e[i].us < e[best].us)
            best = i;
    /* the default setting, when the registry knows the variant */
    const mp_variant *v = mp_registry_find(variant);
    int dv[8], have_dv = 0, have_def = 0;
    if (v && v->n_params) {
        int def[MP_MAX_PARAMS];
        char ds[256];
        mp_variant_defaults(v, def);
        mp_params_str(v, def, ds, sizeof ds);
        have_dv = !parse_params(&ps, ds, dv);
    }
    /* Switch-like spaces (x has <= 3 values) read better as a ranked landscape:
     * every setting by time, labelled with the parameters that vary. */
    int settings = nd[xp] <= 3 && ne <= 48 && ps.nnames > 1;
    if (settings) {
        int *ord = malloc(sizeof *ord * (size_t)ne);
        for (int i = 0; i < ne; i++)
            ord[i] = i;
        for (int a = 1; a < ne; a++)
            for (int b = a; b > 0 && e[ord[b]].us < e[ord[b - 1]].us; b--) {
                int tmp = ord[b];
                ord[b] = ord[b - 1];
                ord[b - 1] = tmp;
            }
        fputs("# rank, median us, setting (parameters that vary)\n", j->f);
        int def_rank = -1;
        for (int i = 0; i < ne; i++) {
            char label[256] = "";
            for (int p = 0; p < ps.nnames; p++) {
                if (nd[p] < 2)
                    continue;
                size_t u = strlen(label);
                snprintf(label + u, sizeof label - u, "%s%s=%d", u ? "," : "", ps.names[p],
                         e[ord[i]].v[p]);
            }
            fprintf(j->f, "%d %.4g \"%s\"\n", i + 1, e[ord[i]].us, label);
            if (have_dv && !memcmp(dv, e[ord[i]].v, sizeof dv))
                def_rank = i;
        }
        fputs("\n\n# default setting\n", j->f);
        if (def_rank >= 0) {
            fprintf(j->f, "%d %.4g\n", def_rank + 1, e[ord[def_rank]].us);
            have_def = 1;
        } else {
            fputs("NaN NaN\n", j->f);
        }
        fprintf(j->f, "\n\n# best found\n1 %.4g\n\n\n", e[ord[0]].us);
        free(ord);
        ncv = 1;
        snprintf(titles, sizeof titles, "evaluations");
    } else {
        for (int b = 0; b < ncv; b++) {
            fprintf(j->f, "# %s=%d: %s, median us\n", cp >= 0 ? ps.names[cp] : "all",
                    cp >= 0 ? cv[b] : 0, ps.names[xp]);
            for (int i = 0; i < ne; i++)
                if (cp < 0 || e[i].v[cp] == cv[b])
                    fprintf(j->f, "%d %.4g\n", e[i].v[xp], e[i].us);
            fputs("\n\n", j->f);
            size_t u = strlen(titles);
            if (cp >= 0)
                snprintf(titles + u, sizeof titles - u, "%s%s=%d", u ? " " : "", ps.names[cp],
                         cv[b]);
            else
                snprintf(titles + u, sizeof titles - u, "%sevaluations", u ? " " : "");
        }
        fputs("# default setting\n", j->f);
        for (int i = 0; have_dv && i < ne; i++)
            if (!memcmp(dv, e[i].v, sizeof dv)) {
                fprintf(j->f, "%d %.4g\n", e[i].v[xp], e[i].us);
                have_def = 1;
                break;
            }
        if (!have_def)
            fputs("NaN NaN\n", j->f);
        fputs("\n\n# best found\n", j->f);
        fprintf(j->f, "%d %.4g\n\n\n", e[best].v[xp], e[best].us);
    }
    char bests[512] = "";
    for (int p = 0; p < ps.nnames; p++) {
        size_t u = strlen(bests);
        snprintf(bests + u, sizeof bests - u, "%s%s=%d", p ? "," : "", ps.names[p], e[best].v[p]);
    }
    char qt[4200], title[1024];
    mp_plot_gp_quote(qt, sizeof qt, titles);
    mp_plot_addvar(j, "nblocks=%d", ncv);
    mp_plot_addvar(j, "titles=%s", qt);
    mp_plot_addvar(j, "havedef=%d", have_def);
    mp_plot_gp_quote(qt, sizeof qt, settings ? "setting, fastest first" : ps.names[xp]);
    mp_plot_addvar(j, "xlab=%s", qt);
    int logx = 1;
    for (int i = 0; i < ne; i++)
        logx &= e[i].v[xp] > 0;
    mp_plot_addvar(j, "logx=%d", logx && nd[xp] > 2 && !settings);
    mp_plot_addvar(j, "settings=%d", settings);
    double lo = e[0].us, hi = e[0].us;
    for (int i = 1; i < ne; i++)
        lo = fmin(lo, e[i].us), hi = fmax(hi, e[i].us);
    mp_plot_addvar(j, "logy=%d", lo > 0 && hi / lo > 20);
    snprintf(title, sizeof title, "Tuner landscape: %s, %dx%d, N = %d, %d thread%s, %d settings "
                                  "(run %lld); best %s = %.1f us",
             variant, m, k, n, t, t > 1 ? "s" : "", ne, (long long)run, bests, e[best].us);
    mp_plot_title(j, title);
    /* the tuner's decision for this point, when stored */
    char sub[512] = "points: the search's own (short) measurements";
    char decision[1024];
    if (mp_store_rep_tune_decision(r->store, &g, decision, sizeof decision))
        snprintf(sub, sizeof sub, "decision after re-measuring: %.400s", decision);
    mp_plot_gp_quote(qt, sizeof qt, sub);
    mp_plot_addvar(j, "subtitle=%s", qt);
    free(e);
    return mp_plot_job_finish(j);
}

