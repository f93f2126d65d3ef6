/* output-summary.c - what a sweep ends with: per problem (M, K, N, threads) and
 * method, the fastest variant that computed correct results, with GB/s of
 * packed weights for decode (N = 1) or GOPS otherwise, and its speed against
 * TQ2_0 (llama.cpp's ternary format, the papers' common baseline) of the same
 * problem: llama.cpp's own (the llamacpp.tq2_0 peer) and our re-implementation
 * beside it.  Both come from the same run, so the ratios are free of the
 * machine's drift. */
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

void mp_results_summary(FILE *f, mp_format fmt, const mp_result *rows, int n)
{
    static const char *const cols[] = {"shape", "n", "threads", "method", "best variant",
                                       "median us", "GB/s", "GOPS", "x llama.cpp TQ2_0",
                                       "x our TQ2_0"};
    enum { NC = 10 };
    /* one line per (problem, method): its first usable row in stored order */
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
    char cell[NC][96];
    int w[NC];
    for (int c = 0; c < NC; c++)
        w[c] = (int)strlen(cols[c]);
    if (fmt == MP_FMT_CSV)
        fputs("m,k,n,threads,method,variant,median_us,gbps,gops,x_llamacpp_tq2_0,x_our_tq2_0\n", f);
    if (fmt == MP_FMT_JSON)
        fputs("[\n", f);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && (fmt == MP_FMT_TABLE || fmt == MP_FMT_MD)) {
            for (int c = 0; c < NC; c++)
                fprintf(f, fmt == MP_FMT_MD ? "| %-*s " : "%-*s  ", w[c], cols[c]);
            fputs(fmt == MP_FMT_MD ? "|\n" : "\n", f);
            if (fmt == MP_FMT_MD) {
                for (int c = 0; c < NC; c++) {
                    fputs("|", f);
                    for (int k = 0; k < w[c] + 1; k++)
                        fputc('-', f);
                    fputs(c >= 5 ? ":" : "-", f);
                }
                fputs("|\n", f);
            }
        }
        for (int l = 0; l < nl; l++) {
            const mp_result *r = line[l];
            const mp_result *peer = fastest(rows, n, r, "LLAMACPP_TQ2_0");
            const mp_result *ours = fastest(rows, n, r, "TQ2_0");
            double xp = peer ? peer->median_us / r->median_us : NAN;
            double xo = ours ? ours->median_us / r->median_us : NAN;
            if (pass == 1 && fmt == MP_FMT_CSV) {
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
            if (pass == 1 && fmt == MP_FMT_JSON) {
                fprintf(f, "  {\"m\": %d, \"k\": %d, \"n\": %d, \"threads\": %d, \"method\": \"%s\", "
                           "\"variant\": \"%s\", \"median_us\": %.3f, \"gbps\": %.3f, "
                           "\"gops\": %.3f, \"x_llamacpp_tq2_0\": ",
                        r->m, r->k, r->n, r->threads, r->v->method, r->v->name, r->median_us,
                        r->gbps, r->gops);
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
                continue;
            }
            if (fmt == MP_FMT_CSV || fmt == MP_FMT_JSON)
                continue;
            snprintf(cell[0], sizeof cell[0], "%dx%d", r->m, r->k);
            snprintf(cell[1], sizeof cell[1], "%d", r->n);
            snprintf(cell[2], sizeof cell[2], "%d", r->threads);
            snprintf(cell[3], sizeof cell[3], "%s", r->v->method);
            snprintf(cell[4], sizeof cell[4], "%s%s", r->v->name,
                     r->status == MP_ST_UNSTABLE ? " (unstable)" : "");
            snprintf(cell[5], sizeof cell[5], "%.1f", r->median_us);
            snprintf(cell[6], sizeof cell[6], r->n == 1 ? "%.1f" : "-", r->gbps);
            snprintf(cell[7], sizeof cell[7], r->n == 1 ? "-" : "%.0f", r->gops);
            if (isnan(xp))
                snprintf(cell[8], sizeof cell[8], "-");
            else
                snprintf(cell[8], sizeof cell[8], "%.2f", xp);
            if (isnan(xo))
                snprintf(cell[9], sizeof cell[9], "-");
            else
                snprintf(cell[9], sizeof cell[9], "%.2f", xo);
            for (int c = 0; c < NC; c++) {
                int len = (int)strlen(cell[c]);
                if (pass == 0) {
                    w[c] = len > w[c] ? len : w[c];
                    continue;
                }
                if (fmt == MP_FMT_MD)
                    fprintf(f, c >= 5 ? "| %*s " : "| %-*s ", w[c], cell[c]);
                else
                    fprintf(f, c >= 5 ? "%*s  " : "%-*s  ", w[c], cell[c]);
            }
            if (pass == 1)
                fputs(fmt == MP_FMT_MD ? "|\n" : "\n", f);
        }
    }
    if (fmt == MP_FMT_JSON)
        fputs("]\n", f);
    if (nl == 0 && (fmt == MP_FMT_TABLE || fmt == MP_FMT_MD))
        fputs("(no result measured correctly: see the status of each point with --rows)\n", f);
    free(line);
}
