/* output-summary.c - what a sweep ends with: per method, the variant that
 * computed correct results fastest over the sweep's shapes, with GB/s of
 * packed weights for decode (N = 1) or GOPS otherwise per (N, threads), and
 * its speed against TQ2_0 (llama.cpp's ternary format, the papers' common
 * baseline) on the same problems: llama.cpp's own (the llamacpp.tq2_0 peer)
 * and our re-implementation beside it.  Both come from the same run, so the
 * ratios are free of the machine's drift.  As a table it is one line per
 * method, geometric means over the shapes, so that `sweep --quick` ends with
 * one screen, not ~300 lines (issue 38); CSV and JSON keep one line per
 * (problem, method), and `sweep --rows` prints every row. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mp_output.h"
#include "../core/mp_core.h"
#include "../../variants/mp_registry.h"

static int usable(const mp_result *r)
{
    return (r->status == MP_ST_OK || r->status == MP_ST_UNSTABLE) && r->median_us > 0;
}

static int same_problem(const mp_result *a, const mp_result *b)
{
    return a->m == b->m && a->k == b->k && a->n == b->n && a->threads == b->threads;
}

/* The fastest usable row of a method on r's problem, or NULL. */
static const mp_result *fastest(const mp_result *rows, int n, const mp_result *r,
                                const char *method)
{
    const mp_result *b = NULL;
    for (int i = 0; i < n; i++)
        if (usable(&rows[i]) && same_problem(&rows[i], r) &&
            !strcmp(rows[i].v->method, method) && (!b || rows[i].median_us < b->median_us))
            b = &rows[i];
    return b;
}

enum { MAXC = 16, MAXM = 64 };

/* The fastest usable row of one variant on r's problem, or NULL. */
static const mp_result *fastest_of(const mp_result *rows, int n, const mp_result *r,
                                   const mp_variant *v)
{
    const mp_result *b = NULL;
    for (int i = 0; i < n; i++)
        if (rows[i].v == v && usable(&rows[i]) && same_problem(&rows[i], r) &&
            (!b || rows[i].median_us < b->median_us))
            b = &rows[i];
    return b;
}

/* One variant at one (n, threads) over the shapes: how many it took, the
 * geometric means of its rate and of its speed over the peer and ours (NAN
 * when never measured beside it). */
typedef struct agg {
    int shapes;
    double rate, xp, xo;
} agg;

static agg aggregate(const mp_result *rows, int n, const mp_variant *v, int nn, int th)
{
    double lr = 0, lp = 0, lo = 0;
    int np = 0, no = 0;
    agg a = {0, 0, NAN, NAN};
    for (int i = 0; i < n; i++) {
        const mp_result *r = &rows[i];
        if (r->v != v || r->n != nn || r->threads != th || fastest_of(rows, n, r, v) != r)
            continue;
        const mp_result *peer = fastest(rows, n, r, "LLAMACPP_TQ2_0");
        const mp_result *ours = fastest(rows, n, r, "TQ2_0");
        double rate = nn == 1 ? r->gbps : r->gops;
        if (!(rate > 0))
            continue;
        a.shapes++;
        lr += log(rate);
        if (peer)
            lp += log(peer->median_us / r->median_us), np++;
        if (ours)
            lo += log(ours->median_us / r->median_us), no++;
    }
    if (a.shapes)
        a.rate = exp(lr / a.shapes);
    if (np)
        a.xp = exp(lp / np);
    if (no)
        a.xo = exp(lo / no);
    return a;
}

static void fmt_ratio(char *buf, size_t len, double x)
{
    snprintf(buf, len, isnan(x) ? "-" : x < 9.995 ? "%.2f" : x < 99.95 ? "%.1f" : "%.0f", x);
}

/* The table: one line per method, its best variant (the most shapes, then the
 * highest geometric-mean rate over every (n, threads)), and per (n, threads)
 * its rate and ratios. */
static void summary_table(FILE *f, mp_format fmt, const mp_result *rows, int n)
{
    int cn[MAXC], ct[MAXC], nc = 0, nshape = 0, ms[256][2];
    const mp_variant *meth[MAXM];
    int nm = 0;
    for (int i = 0; i < n; i++) { /* the (n, threads) columns, the shapes, the methods */
        const mp_result *r = &rows[i];
        int j;
        for (j = 0; j < nc && !(cn[j] == r->n && ct[j] == r->threads); j++)
            ;
        if (j == nc && nc < MAXC)
            cn[nc] = r->n, ct[nc++] = r->threads;
        for (j = 0; j < nshape && !(ms[j][0] == r->m && ms[j][1] == r->k); j++)
            ;
        if (j == nshape && nshape < 256)
            ms[nshape][0] = r->m, ms[nshape++][1] = r->k;
        if (!usable(r))
            continue;
        for (j = 0; j < nm && strcmp(meth[j]->method, r->v->method); j++)
            ;
        if (j == nm && nm < MAXM)
            meth[nm++] = r->v;
    }
    for (int i = 1; i < nc; i++) /* ascending n, then threads */
        for (int j = i; j > 0 && (cn[j - 1] > cn[j] || (cn[j - 1] == cn[j] && ct[j - 1] > ct[j])); j--) {
            int a = cn[j], b = ct[j];
            cn[j] = cn[j - 1], ct[j] = ct[j - 1], cn[j - 1] = a, ct[j - 1] = b;
        }
    if (!nm) {
        fputs("(no result measured correctly: see the status of each point with --rows)\n", f);
        return;
    }
    /* per method, its best variant */
    for (int m = 0; m < nm; m++) {
        double best = -1;
        int best_cov = -1;
        const mp_variant *bv = meth[m];
        for (int i = 0; i < mp_registry_count(); i++) {
            const mp_variant *v = mp_registry_get(i);
            if (strcmp(v->method, meth[m]->method))
                continue;
            double l = 0;
            int cov = 0;
            for (int c = 0; c < nc; c++) {
                agg a = aggregate(rows, n, v, cn[c], ct[c]);
                cov += a.shapes;
                l += a.shapes ? log(a.rate) * a.shapes : 0;
            }
            if (cov && (cov > best_cov || (cov == best_cov && l / cov > best)))
                best_cov = cov, best = l / cov, bv = v;
        }
        meth[m] = bv;
    }
    int md = fmt == MP_FMT_MD, wv = 12, wm = 6, starred = 0;
    for (int m = 0; m < nm; m++) {
        wv = (int)strlen(meth[m]->name) > wv ? (int)strlen(meth[m]->name) : wv;
        wm = (int)strlen(meth[m]->method) > wm ? (int)strlen(meth[m]->method) : wm;
    }
    const char *sep = md ? " | " : "  ";
    if (md) { /* one header row: "N=1 t=1: GB/s xLL xTQ2" per column */
        fprintf(f, "| method | best variant |");
        for (int c = 0; c < nc; c++)
            fprintf(f, " N=%d t=%d: %s xLL xTQ2 |", cn[c], ct[c], cn[c] == 1 ? "GB/s" : "GOPS");
        fprintf(f, "\n|---|---|");
        for (int c = 0; c < nc; c++)
            fputs("--:|", f);
        fputc('\n', f);
    } else {
        fprintf(f, "%-*s%s%-*s", wm, "", sep, wv, "");
        for (int c = 0; c < nc; c++) {
            char h[40];
            snprintf(h, sizeof h, "N=%d t=%d %s", cn[c], ct[c], cn[c] == 1 ? "GB/s" : "GOPS");
            fprintf(f, "%s%-19.19s", sep, h);
        }
        fprintf(f, "\n%-*s%s%-*s", wm, "method", sep, wv, "best variant");
        for (int c = 0; c < nc; c++)
            fprintf(f, "%s%7s %5s %5s", sep, cn[c] == 1 ? "GB/s" : "GOPS", "xLL", "xTQ2");
        fputc('\n', f);
    }
    for (int m = 0; m < nm; m++) {
        fprintf(f, "%s%-*s%s%-*s", md ? "| " : "", wm, meth[m]->method, sep, wv, meth[m]->name);
        for (int c = 0; c < nc; c++) {
            agg a = aggregate(rows, n, meth[m], cn[c], ct[c]);
            char r[24] = "-", xp[16], xo[16];
            if (a.shapes)
                snprintf(r, sizeof r, cn[c] == 1 || a.rate < 100 ? "%.1f%s" : "%.0f%s", a.rate,
                         a.shapes < nshape ? "*" : "");
            starred |= a.shapes && a.shapes < nshape;
            fmt_ratio(xp, sizeof xp, a.xp);
            fmt_ratio(xo, sizeof xo, a.xo);
            fprintf(f, "%s%7s %5s %5s", sep, r, xp, xo);
        }
        fputs(md ? " |\n" : "\n", f);
    }
    fprintf(f, "%sGeometric means over the %d shape%s; xLL: speed over llama.cpp's own TQ2_0 "
               "(llamacpp.tq2_0),\nxTQ2: over our tq2_0, on the same problems of this run "
               "(- when not measured).%s  --rows: every row.\n",
            md ? "\n" : "", nshape, nshape == 1 ? "" : "s",
            starred ? "\n*: on fewer shapes (the others skipped or failed)." : "");
}

void mp_results_summary(FILE *f, mp_format fmt, const mp_result *rows, int n)
{
    if (fmt == MP_FMT_TABLE || fmt == MP_FMT_MD) {
        summary_table(f, fmt, rows, n);
        return;
    }
    /* CSV and JSON: one line per (problem, method), its first usable row in
     * stored order standing for the method's fastest on the problem */
    const mp_result **line = malloc(sizeof *line * (size_t)(n ? n : 1));
    int nl = 0;
    for (int i = 0; i < n; i++) {
        if (!usable(&rows[i]))
            continue;
        int seen = 0;
        for (int j = 0; j < nl && !seen; j++)
            seen = same_problem(line[j], &rows[i]) && !strcmp(line[j]->v->method, rows[i].v->method);
        if (!seen)
            line[nl++] = fastest(rows, n, &rows[i], rows[i].v->method);
    }
    fputs(fmt == MP_FMT_CSV ? "m,k,n,threads,method,variant,median_us,gbps,gops,"
                              "x_llamacpp_tq2_0,x_our_tq2_0\n" : "[\n", f);
    for (int l = 0; l < nl; l++) {
        const mp_result *r = line[l];
        const mp_result *peer = fastest(rows, n, r, "LLAMACPP_TQ2_0");
        const mp_result *ours = fastest(rows, n, r, "TQ2_0");
        double xp = peer ? peer->median_us / r->median_us : NAN;
        double xo = ours ? ours->median_us / r->median_us : NAN;
        if (fmt == MP_FMT_CSV) {
            fprintf(f, "%d,%d,%d,%d,%s,%s,%.3f,%.3f,%.3f,", r->m, r->k, r->n, r->threads,
                    r->v->method, r->v->name, r->median_us, r->gbps, r->gops);
            if (!isnan(xp))
                fprintf(f, "%.3f", xp);
            fputc(',', f);
            if (!isnan(xo))
                fprintf(f, "%.3f", xo);
            fputc('\n', f);
            continue;
        }
        fprintf(f, "  {\"m\": %d, \"k\": %d, \"n\": %d, \"threads\": %d, \"method\": \"%s\", "
                   "\"variant\": \"%s\", \"median_us\": %.3f, \"gbps\": %.3f, "
                   "\"gops\": %.3f, \"x_llamacpp_tq2_0\": ",
                r->m, r->k, r->n, r->threads, r->v->method, r->v->name, r->median_us, r->gbps,
                r->gops);
        if (isnan(xp))
            fputs("null", f);
        else
            fprintf(f, "%.3f", xp);
        fputs(", \"x_our_tq2_0\": ", f);
        if (isnan(xo))
            fputs("null", f);
        else
            fprintf(f, "%.3f", xo);
        fprintf(f, "}%s\n", l + 1 < nl ? "," : "");
    }
    if (fmt == MP_FMT_JSON)
        fputs("]\n", f);
    free(line);
}
