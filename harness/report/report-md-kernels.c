/* report-md-kernels.c - the kernel sections of REPORT.md (report-md.h): seed
 * 001 Figures 8, 11 and 12, speed ratios against the baselines, tuned configurations. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report-md.h"
#include "../../variants/mp_registry.h"

/* ---- kernel sections -------------------------------------------------------------- */

/* The cell for one measured value of row x (NULL: not measured). */
static void cell(char *buf, size_t len, const mp_rep_row *x, double v, const char *fmt)
{
    if (!x) {
        snprintf(buf, len, "–");
        return;
    }
    if (!strcmp(x->status, "failed") || !strcmp(x->status, "skipped")) {
        snprintf(buf, len, "%s", x->status);
        return;
    }
    size_t u = (size_t)snprintf(buf, len, fmt, v);
    if (!strcmp(x->status, "unstable") && u < len)
        u += (size_t)snprintf(buf + u, len - u, "†");
    if (!x->is_default && u < len)
        snprintf(buf + u, len - u, "‡");
}

/* "MxK". */
static void shape_str(char *buf, size_t len, int m, int k)
{
    snprintf(buf, len, "%dx%d", m, k);
}

/* A table's head: first, then one column per shape (at most MAXS). */
static void shapes_head(FILE *f, const char *first, int (*shapes)[2], int ns)
{
    char cols[MAXS][32];
    const char *colp[MAXS];
    for (int s = 0; s < ns; s++) {
        shape_str(cols[s], sizeof cols[s], shapes[s][0], shapes[s][1]);
        colp[s] = cols[s];
    }
    mp_rep_table_head(f, first, colp, ns);
}

/* "variant (METHOD) b(bpw)" from the variant's first stored row. */
static const char *row_label(const mp_rep *r, const char *variant, char *buf, size_t len)
{
    for (int i = 0; i < r->nrows; i++)
        if (!strcmp(r->rows[i].variant, variant)) {
            snprintf(buf, len, "%s (%s) b(%.2f)", variant, r->rows[i].method, r->rows[i].bpw);
            return buf;
        }
    snprintf(buf, len, "%s", variant);
    return buf;
}

typedef struct flt {
    int n, threads, m, k; /* -1: any */
    const char *method_prefix;
} flt;

/* mp_rep_filter over a flt. */
static int f_match(const mp_rep_row *x, const void *ctx)
{
    const flt *c = ctx;
    return (c->n < 0 || x->n == c->n) && (c->threads < 0 || x->threads == c->threads) &&
           (c->m < 0 || (x->m == c->m && x->k == c->k)) &&
           (!c->method_prefix || !strncmp(x->method, c->method_prefix, strlen(c->method_prefix)));
}

/* Keeps, of vars (sorted by method), the variant of each method with the highest
 * mean value (gops or gbps) over the shapes at (n, threads): the body shows the
 * best path per method, the CSV beside the report every variant.  Returns the count. */
static int best_per_method(const mp_rep *r, const char **vars, int nv, int (*shapes)[2], int ns,
                           int n, int threads, int gbps)
{
    int out = 0;
    for (int v = 0; v < nv;) {
        const char *method = "";
        for (int i = 0; i < r->nrows; i++)
            if (!strcmp(r->rows[i].variant, vars[v]))
                method = r->rows[i].method;
        int best = v;
        double best_mean = -1;
        int w;
        for (w = v; w < nv; w++) {
            const char *m2 = "";
            for (int i = 0; i < r->nrows; i++)
                if (!strcmp(r->rows[i].variant, vars[w]))
                    m2 = r->rows[i].method;
            if (strcmp(m2, method))
                break;
            double sum = 0;
            for (int s = 0; s < ns; s++) {
                const mp_rep_row *x = mp_rep_pick(r, vars[w], shapes[s][0], shapes[s][1], n, threads);
                if (x && (!strcmp(x->status, "ok") || !strcmp(x->status, "unstable")))
                    sum += gbps ? x->gbps : x->gops;
            }
            if (sum / ns > best_mean)
                best_mean = sum / ns, best = w;
        }
        if (mp_rep_body_method(method))
            vars[out++] = vars[best];
        v = w;
    }
    return out;
}

/* Table: rows the best variant per method, columns shapes, value gops or gbps,
 * at (n, threads). */
static void grid(FILE *f, mp_rep *r, int n, int threads, int gbps)
{
    flt c = {n, threads, -1, -1, NULL};
    int shapes[MAXS][2];
    const char *vars[MAXV];
    int ns = mp_rep_distinct_shapes(r, f_match, &c, shapes, MAXS);
    int nv = mp_rep_distinct_variants(r, f_match, &c, vars, MAXV);
    nv = best_per_method(r, vars, nv, shapes, ns, n, threads, gbps);
    shapes_head(f, "variant (method) b(bpw)", shapes, ns);
    int64_t runs[MAXV * 4];
    int nruns = 0;
    for (int v = 0; v < nv; v++) {
        char label[160];
        fprintf(f, "| %s |", row_label(r, vars[v], label, sizeof label));
        for (int s = 0; s < ns; s++) {
            const mp_rep_row *x = mp_rep_pick(r, vars[v], shapes[s][0], shapes[s][1], n, threads);
            char buf[64];
            cell(buf, sizeof buf, x, x ? (gbps ? x->gbps : x->gops) : 0, gbps ? "%.2f" : "%.1f");
            fprintf(f, " %s |", buf);
            if (x && nruns < MAXV * 4)
                runs[nruns++] = x->run_id;
        }
        fputc('\n', f);
    }
    fputc('\n', f);
    mp_rep_runs_line(f, runs, nruns);
}

/* Section 4: GOPS per variant x shape at N = 128 (else the largest N), per thread count. */
void mp_rep_sec_fig8(FILE *f, mp_rep *r)
{
    fputs("## 4. Kernel benchmark: GOPS per variant and shape (seed 001 Fig. 8)\n\n", f);
    int nv[MAXN];
    int nn = mp_rep_distinct_int(r, MP_REP_N, NULL, NULL, nv, MAXN);
    if (!nn) {
        fputs("No kernel results on this machine: run `mpbench sweep --quick` or `mpbench run "
              "--variant ... --model bitnet-b1.58-2b-4t --n 128`.\n\n",
              f);
    } else {
        int n = nv[nn - 1];
        for (int i = 0; i < nn; i++)
            if (nv[i] == 128)
                n = 128;
        flt c = {n, -1, -1, -1, NULL};
        int tv[MAXN];
        int nt = mp_rep_distinct_int(r, MP_REP_THREADS, f_match, &c, tv, MAXN);
        for (int t = 0; t < nt; t++) {
            fprintf(f, "N = %d%s, %d thread%s, %s cache, GOPS (2·M·K·N / median time), the best "
                       "variant per method (every variant: the CSV below):\n\n", n,
                    n == 128 ? "" : " (no N = 128 stored: the largest N)", tv[t],
                    tv[t] > 1 ? "s" : "", r->cache);
            grid(f, r, n, tv[t], 0);
        }
    }
    fputs("Paper (seed 001 Fig. 8, plot only; §5.2 text): Vec-LUT I1 (b1.60) vs TQ1_0 (b1.69) "
          "3.4–4.7× and I2 (b2.00) vs TQ2_0 (b2.06) 1.7–2.9× in single-thread mpGeMM, 2.9–3.7× "
          "and 1.6–2.8× multi-thread, averaged over GeMM shapes; I2 vs T-MAC INT_N 1.8–3.2× "
          "single-thread and 1.5–1.9× multi-thread.  The paper compares runs/s; GOPS here is "
          "the same ordering per shape.\n\n",
          f);
}

/* Rows of the vector-LUT family. */
static int f_vlut(const mp_rep_row *x, const void *ctx)
{
    (void)ctx;
    return !strncmp(x->method, "VLUT", 4) || !strcmp(x->family, "veclut");
}

/* Section 5: up to four (variant, shape, N, threads) points of the vector-LUT family
 * measured with several parameter settings, fastest-relative speed-ups. */
void mp_rep_sec_fig11(FILE *f, mp_rep *r)
{
    fputs("## 5. Ablation: Vec-LUT techniques switched on and off (seed 001 Fig. 11)\n\n", f);
    /* groups: (variant, m, k, n, threads) with >= 2 distinct params, cold */
    typedef struct grp {
        const mp_rep_row *first;
        int count;
    } grp;
    grp g[256];
    int ng = 0;
    const mp_rep_row *x;
    for (int i = 0; (x = mp_rep_next(r, &i, f_vlut, NULL));) {
        int j;
        for (j = 0; j < ng; j++) {
            const mp_rep_row *y = g[j].first;
            if (!strcmp(y->variant, x->variant) && y->m == x->m && y->k == x->k && y->n == x->n &&
                y->threads == x->threads)
                break;
        }
        if (j == ng) {
            if (ng == 256)
                continue;
            g[ng].first = x;
            g[ng++].count = 0;
        }
        g[j].count++;
    }
    int shown = 0;
    for (int pass = 0; pass < 4; pass++) {
        int best = -1;
        for (int j = 0; j < ng; j++)
            if (g[j].count >= 2 && (best < 0 || g[j].count > g[best].count ||
                                    (g[j].count == g[best].count && g[j].first->n > g[best].first->n)))
                best = j;
        if (best < 0)
            break;
        const mp_rep_row *y = g[best].first;
        g[best].count = -g[best].count;
        double slow = 0;
        for (int i = 0; i < r->nrows; i++) {
            const mp_rep_row *x = &r->rows[i];
            if (!strcmp(x->cache, r->cache) && !strcmp(x->variant, y->variant) && x->m == y->m &&
                x->k == y->k && x->n == y->n && x->threads == y->threads &&
                (!strcmp(x->status, "ok") || !strcmp(x->status, "unstable")) && x->median_us > slow)
                slow = x->median_us;
        }
        shown++;
        fprintf(f, "%s, %dx%d, N = %d, %d thread%s (speed-up against the slowest setting):\n\n"
                   "| params | median µs | GOPS | speed-up |\n|---|--:|--:|--:|\n",
                y->variant, y->m, y->k, y->n, y->threads, y->threads > 1 ? "s" : "");
        for (int i = 0; i < r->nrows; i++) {
            const mp_rep_row *x = &r->rows[i];
            if (strcmp(x->cache, r->cache) || strcmp(x->variant, y->variant) || x->m != y->m ||
                x->k != y->k || x->n != y->n || x->threads != y->threads)
                continue;
            char us[64], gops[64];
            mp_rep_row tmp = *x;
            tmp.is_default = 1;
            cell(us, sizeof us, &tmp, x->median_us, "%.1f");
            cell(gops, sizeof gops, &tmp, x->gops, "%.1f");
            int known = mp_registry_find(x->variant) != NULL;
            fprintf(f, "| %s%s | %s | %s | ", x->params[0] ? x->params : "(none)",
                    known && x->is_default ? " (default)" : "", us, gops);
            if (slow > 0 && x->median_us > 0 && (!strcmp(x->status, "ok") || !strcmp(x->status, "unstable")))
                fprintf(f, "%.2f× |\n", slow / x->median_us);
            else
                fputs("– |\n", f);
        }
        fputc('\n', f);
    }
    if (!shown)
        fputs("No Vec-LUT results with differing parameters: run `mpbench sweep --variant "
              "'vlut_i2*' --params all --shape 3200x3200 --n 128` (the techniques are the "
              "parameters stream, topo, hier, tcl).\n\n",
              f);
    fputs("Paper (seed 001 Fig. 11, HF BitNet 3B prefilling on the Intel PC, plot only; §5.5 "
          "text): the layout optimizations give the initial 10.6–11.9× speed-up and the "
          "streamed LUT optimizations another 4.1–9.0×.\n\n",
          f);
}

/* Section 6: GOPS against N at the (shape, threads) with the most N values, and the
 * e2e prefill rows by prompt length. */
void mp_rep_sec_fig12(FILE *f, mp_rep *r, const e2e_row *e, int ne)
{
    fputs("## 6. Prompt length: throughput against N (seed 001 Fig. 12)\n\n", f);
    /* the (shape, threads) with the most distinct N */
    int shapes[MAXS][2], tv[MAXN];
    int ns = mp_rep_distinct_shapes(r, NULL, NULL, shapes, MAXS);
    int nt = mp_rep_distinct_int(r, MP_REP_THREADS, NULL, NULL, tv, MAXN);
    int bs = -1, bt = -1, bn = 0;
    for (int s = 0; s < ns; s++)
        for (int t = 0; t < nt; t++) {
            flt c = {-1, tv[t], shapes[s][0], shapes[s][1], NULL};
            int nv[MAXN];
            int nn = mp_rep_distinct_int(r, MP_REP_N, f_match, &c, nv, MAXN);
            if (nn > bn)
                bn = nn, bs = s, bt = t;
        }
    if (bn < 2) {
        fputs("No shape measured at more than one N: run `mpbench sweep --variant ... --shape "
              "3200x8640 --n 1,8,32,64,128,256`.\n\n",
              f);
    } else {
        flt c = {-1, tv[bt], shapes[bs][0], shapes[bs][1], NULL};
        int nv[MAXN];
        const char *vars[MAXV];
        int nn = mp_rep_distinct_int(r, MP_REP_N, f_match, &c, nv, MAXN);
        int nvar = mp_rep_distinct_variants(r, f_match, &c, vars, MAXV);
        /* only the variants measured at more than one N (the others are
         * section 4's and 7's rows) */
        int keep = 0;
        for (int v = 0; v < nvar; v++) {
            int got = 0;
            for (int i = 0; i < nn; i++) {
                const mp_rep_row *x =
                    mp_rep_pick(r, vars[v], shapes[bs][0], shapes[bs][1], nv[i], tv[bt]);
                got += x && (!strcmp(x->status, "ok") || !strcmp(x->status, "unstable"));
            }
            if (got > 2) /* N = 1 and 128 alone are sections 7 and 4 */
                vars[keep++] = vars[v];
        }
        nvar = keep;
        fprintf(f, "Kernel GOPS at %dx%d, %d thread%s, %s cache, against N (tokens per call); "
                   "the variants measured at three N or more:\n\n",
                shapes[bs][0], shapes[bs][1], tv[bt], tv[bt] > 1 ? "s" : "", r->cache);
        char cols[MAXN][24];
        const char *colp[MAXN];
        for (int i = 0; i < nn; i++) {
            snprintf(cols[i], sizeof cols[i], "N=%d", nv[i]);
            colp[i] = cols[i];
        }
        mp_rep_table_head(f, "variant (method) b(bpw)", colp, nn);
        for (int v = 0; v < nvar; v++) {
            char label[160];
            fprintf(f, "| %s |", row_label(r, vars[v], label, sizeof label));
            for (int i = 0; i < nn; i++) {
                const mp_rep_row *x = mp_rep_pick(r, vars[v], shapes[bs][0], shapes[bs][1], nv[i],
                                                  tv[bt]);
                char buf[64];
                cell(buf, sizeof buf, x, x ? x->gops : 0, "%.1f");
                fprintf(f, " %s |", buf);
            }
            fputc('\n', f);
        }
        fputc('\n', f);
    }
    /* end to end: prefill tokens/s against prompt length */
    int any = 0;
    for (int i = 0; i < ne; i++) {
        if (strncmp(e[i].test, "pp", 2) || strchr(e[i].test, ' '))
            continue;
        if (!any++)
            fputs("End-to-end prefill tokens/s by prompt length:\n\n| model | variant | threads | "
                  "prompt | tokens/s |\n|---|---|--:|--:|--:|\n", f);
        char buf[64];
        mp_rep_e2e_cell(buf, sizeof buf, &e[i]);
        fprintf(f, "| %s | ", e[i].model);
        mp_rep_md_escape(f, e[i].variant);
        fprintf(f, " | %d | %d | %s |\n", e[i].threads, e[i].n_prompt, buf);
    }
    if (any)
        fputc('\n', f);
    fputs("Paper (seed 001 Fig. 12, HF BitNet 3B prefilling on the Intel PC, plot only; §5.5 "
          "text): Vec-LUT's throughput increases linearly with the prompt length and peaks when "
          "the prompt length equals the N-tiling size; N_tile 32 outperforms 64; T-MAC's "
          "throughput stays nearly constant.\n\n",
          f);
}

/* ratios within one run against a baseline method */
/* base-method time / variant time at N = n, all from the newest non-tune run that
 * measured base at n (one table per thread count of that run). */
static void ratio_table(FILE *f, mp_rep *r, const char *base, int n)
{
    int64_t run = mp_store_rep_ratio_run(r->store, r->mach.id, base, n, r->cache);
    if (!run) {
        const char *hint = !strcmp(base, "LLAMACPP_TQ2_0") ? "llamacpp.tq2_0"
                           : !strcmp(base, "LLAMACPP_Q8_0") ? "llamacpp.q8_0"
                           : base[0] == 'T'                  ? "tq2_0"
                                                             : "i2_s";
        fprintf(f, "Against %s at N = %d: no run measured %s at N = %d on this machine (run "
                   "`mpbench run --variant '%s*,...' --model bitnet-b1.58-2b-4t --n %d`%s).\n\n",
                base, n, base, n, hint, n,
                strncmp(base, "LLAMACPP_", 9) ? "" : " after `make peers`");
        return;
    }
    /* rows of that run at n, cold: variant, method, m, k, threads, median, status, params */
    typedef struct rr {
        char variant[64], method[32], status[12], params[128];
        int m, k, t, def;
        double us;
    } rr;
    mp_rep_row *rows;
    int nx = mp_store_rep_run_rows(r->store, run, n, r->cache, &rows);
    rr *x = calloc((size_t)(nx ? nx : 1), sizeof *x);
    for (int i = 0; i < nx; i++) {
        rr *y = &x[i];
        snprintf(y->variant, sizeof y->variant, "%s", rows[i].variant);
        snprintf(y->method, sizeof y->method, "%s", rows[i].method);
        snprintf(y->status, sizeof y->status, "%s", rows[i].status);
        snprintf(y->params, sizeof y->params, "%s", rows[i].params);
        y->m = rows[i].m;
        y->k = rows[i].k;
        y->t = rows[i].threads;
        y->us = rows[i].median_us;
        y->def = mp_rep_params_default(y->variant, y->params);
    }
    free(rows);
    int tv[16], nt = 0, shapes[MAXS][2], ns = 0;
    const char *vars[MAXV];
    int nv = 0;
    for (int i = 0; i < nx; i++) {
        int j;
        for (j = 0; j < nt && tv[j] != x[i].t; j++)
            ;
        if (j == nt && nt < 16)
            tv[nt++] = x[i].t;
        for (j = 0; j < ns && (shapes[j][0] != x[i].m || shapes[j][1] != x[i].k); j++)
            ;
        if (j == ns && ns < MAXS)
            shapes[ns][0] = x[i].m, shapes[ns][1] = x[i].k, ns++;
        for (j = 0; j < nv && strcmp(vars[j], x[i].variant); j++)
            ;
        if (j == nv && nv < MAXV)
            vars[nv++] = x[i].variant;
    }
    /* the body: the run's largest thread count only (kernel-results.csv has the rest) */
    int tmax = 0;
    for (int t = 1; t < nt; t++)
        if (tv[t] > tv[tmax])
            tmax = t;
    for (int t = tmax; t < nt && t == tmax; t++) {
        fprintf(f, "Against %s at N = %d, %d thread%s, %s cache (run %lld; %s time ÷ variant "
                   "time, > 1: faster than %s; the fastest %s variant of the run is the baseline; "
                   "the fastest variant of each method):\n\n",
                base, n, tv[t], tv[t] > 1 ? "s" : "", r->cache, (long long)run, base, base, base);
        shapes_head(f, "variant (method)", shapes, ns);
        double bus[MAXS];
        for (int s = 0; s < ns; s++) {
            bus[s] = 0;
            for (int i = 0; i < nx; i++)
                if (x[i].t == tv[t] && x[i].m == shapes[s][0] && x[i].k == shapes[s][1] &&
                    !strcmp(x[i].method, base) &&
                    (!strcmp(x[i].status, "ok") || !strcmp(x[i].status, "unstable")) &&
                    (bus[s] == 0 || x[i].us < bus[s]))
                    bus[s] = x[i].us;
        }
        /* the body shows the fastest variant of each method (highest mean speed-up
         * over the shapes; every row is in kernel-results.csv) */
        double mean[MAXV];
        for (int v = 0; v < nv; v++) {
            double sum = 0;
            for (int s = 0; s < ns; s++) {
                double bt = 0;
                for (int i = 0; i < nx; i++)
                    if (x[i].t == tv[t] && x[i].m == shapes[s][0] && x[i].k == shapes[s][1] &&
                        !strcmp(x[i].variant, vars[v]) && x[i].us > 0 &&
                        (!strcmp(x[i].status, "ok") || !strcmp(x[i].status, "unstable")) &&
                        (bt == 0 || x[i].us < bt))
                        bt = x[i].us;
                if (bt > 0 && bus[s] > 0)
                    sum += bus[s] / bt;
            }
            mean[v] = ns ? sum / ns : 0;
        }
        for (int v = 0; v < nv; v++) {
            int present = 0, beaten = 0;
            for (int i = 0; i < nx; i++)
                present |= x[i].t == tv[t] && !strcmp(x[i].variant, vars[v]);
            const char *mv = "";
            for (int i = 0; i < nx; i++)
                if (!strcmp(x[i].variant, vars[v]))
                    mv = x[i].method;
            for (int w = 0; w < nv && present; w++) {
                if (w == v)
                    continue;
                const char *mw = "";
                int pw = 0;
                for (int i = 0; i < nx; i++)
                    if (!strcmp(x[i].variant, vars[w])) {
                        mw = x[i].method;
                        pw |= x[i].t == tv[t];
                    }
                if (pw && !strcmp(mv, mw) && (mean[w] > mean[v] || (mean[w] == mean[v] && w < v)))
                    beaten = 1;
            }
            if (!present || beaten || !mp_rep_body_method(mv))
                continue;
            const char *method = "";
            for (int i = 0; i < nx; i++)
                if (!strcmp(x[i].variant, vars[v]))
                    method = x[i].method;
            fprintf(f, "| %s (%s) |", vars[v], method);
            for (int s = 0; s < ns; s++) {
                const rr *best = NULL;
                for (int i = 0; i < nx; i++)
                    if (x[i].t == tv[t] && x[i].m == shapes[s][0] && x[i].k == shapes[s][1] &&
                        !strcmp(x[i].variant, vars[v]) &&
                        (!best || x[i].def > best->def ||
                         (x[i].def == best->def && !strcmp(x[i].status, "ok") &&
                          strcmp(best->status, "ok"))))
                        best = &x[i];
                if (!best)
                    fputs(" – |", f);
                else if (strcmp(best->status, "ok") && strcmp(best->status, "unstable"))
                    fprintf(f, " %s |", best->status);
                else if (bus[s] > 0 && best->us > 0 && bus[s] / best->us < 0.01)
                    fprintf(f, " <0.01×%s |", strcmp(best->status, "unstable") ? "" : "†");
                else if (bus[s] > 0 && best->us > 0)
                    fprintf(f, " %.2f×%s |", bus[s] / best->us,
                            strcmp(best->status, "unstable") ? "" : "†");
                else
                    fputs(" – |", f);
            }
            fputc('\n', f);
        }
        fputc('\n', f);
    }
    free(x);
}

/* Section 8: ratio tables against llama.cpp's own TQ2_0 and Q8_0 (the peers,
 * issue 15: our re-implementations are rows of the same tables), then against
 * our TQ2_0 and I2_S, at N = 1 and 128. */
void mp_rep_sec_ratios(FILE *f, mp_rep *r)
{
    fputs("## 8. Speed ratios within one run, N = 1 and N = 128\n\n", f);
    fputs("First against llama.cpp's own kernels (the `llamacpp.*` peers: ggml's CPU backend "
          "loaded from the pinned npm build, `make peers`), with our re-implementation of the "
          "same format as a row of the same table (our TQ2_0 is the baseline only where llama.cpp's "
          "was not measured; every other pair: kernel-results.csv, one run per N).\n\n", f);
    /* llama.cpp's Q8_0 as a baseline is in kernel-results.csv (every row): the body
     * keeps the ternary baselines (issue 37: at most 500 lines) */
    static const char *const bases[] = {"LLAMACPP_TQ2_0", "TQ2_0"};
    static const int ns[] = {1, 128};
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < 2; i++) {
            /* our TQ2_0 is a row of llama.cpp's TQ2_0 table when that was measured:
             * a second table against it would repeat the first (kernel-results.csv
             * has every row) */
            if (!strcmp(bases[b], "TQ2_0") &&
                mp_store_rep_ratio_run(r->store, r->mach.id, "LLAMACPP_TQ2_0", ns[i], r->cache))
                continue;
            ratio_table(f, r, bases[b], ns[i]);
        }
    fputs("Papers, for comparison: seed 001 §5.2 (Fig. 8) Vec-LUT I2 over TQ2_0 1.7–2.9× "
          "single-thread (kernel, N = prompt tokens); seed 000 Table 7 (i7-13700H, 7B): I2_S "
          "20.62 vs TQ2_0 19.92 tokens/s (1.04×), TL2_0 20.72; seed 003 §IV-B: int2 within "
          "10–20% of int8 at N = 1.\n\n",
          f);
}

/* One row of section 9's table (the header before the first). */
typedef struct tuned_ctx {
    FILE *f;
    int any;
} tuned_ctx;

static void tuned_row(const mp_rep_tuned *t, void *ctx)
{
    tuned_ctx *c = ctx;
    FILE *f = c->f;
    if (!c->any++)
        fputs("| variant | shape | N | threads | strategy | chosen | default | best µs | "
              "default µs | gain | p | evaluations | decision |\n"
              "|---|---|--:|--:|---|---|---|--:|--:|--:|--:|--:|---|\n", f);
    fprintf(f, "| %s | %dx%d | %d | %d | %s | %s | %s | %.1f | %.1f | %.1f%% | %.2g | %d "
               "| ",
            t->variant, t->m, t->k, t->n, t->threads, t->strategy, t->chosen, t->defaults,
            t->best_us, t->default_us, t->gain_pct, t->p_value, t->evaluations);
    mp_rep_md_escape(f, t->decision);
    fputs(" |\n", f);
}

/* Section 9: the newest tuner decision per (variant, shape, N, threads). */
void mp_rep_sec_tuned(FILE *f, mp_rep *r)
{
    fputs("## 9. Tuned parameters on this machine\n\n", f);
    tuned_ctx tc = {f, 0};
    int any = mp_store_rep_tuned(r->store, r->mach.id, tuned_row, &tc);
    if (!any)
        fputs("No tuner decisions for this machine: run `mpbench tune --variant 'i2_s.avx2' "
              "--model bitnet-b1.58-2b-4t --strategy exhaustive`.\n\n",
              f);
    else
        fputs("\nA chosen setting differs from the default only when the winner was faster by "
              "the margin with a significant rank test and an A-B-A confirmation "
              "(`mpbench tune --help`).\n\n",
              f);
}

/* Section 10: links to the plots that exist in `plots`, the command for the others. */
