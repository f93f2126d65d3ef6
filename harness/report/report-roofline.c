/* report-roofline.c - section 7 of the report: GEMV (N = 1) bandwidth against
 * seed 003's roofline (eq. 1-3), with both of its ceilings per variant:
 *
 *   bandwidth roof  for a cold-cache row, the probe's read_DRAM at the row's
 *                   thread count - the best of the probe's read methods (plain,
 *                   prefetched, wide, non-temporal loads; engine/probe.c) - or
 *                   the figure the row's own run stored (`sweep --probe-bw`),
 *                   whichever is higher: both measure the same limit, and a
 *                   roof is what no measurement can exceed.  A warm-cache row
 *                   has none (its weights do not come from DRAM);
 *   compute roof    the variant's own compute loop measured by `mpbench probe`
 *                   (engine/ceiling.c) at a real shape, for the row's N and
 *                   thread count, in wall time with warm weights: "ceiling_<variant>"
 *                   rows in GOPS with their N, turned into GB/s of the row's
 *                   packed weights (GOPS x bytes / (2 M K N)).  When the probe
 *                   has no ceiling at the row's N and threads, the nearest it
 *                   has stands in, then an older probe's one-core ceiling times
 *                   the threads, then the int8 dot-product peak; each is
 *                   labelled where it is used.
 *
 * The roof is the lower of the two and names the bound; "achieved" is the
 * measured GB/s over it.  A measurement above its roof means the roof is wrong
 * (a probe taken under load, a cache the VM misreports), so the cell says so
 * instead of printing a share above 100%.  The body shows the best variant per
 * method; every row goes to gemv-roofline.csv beside the report. */
#include <math.h>
#include <string.h>

#include "mp_report.h"

enum { MAXV = 160, MAXS = 64, MAXT = 16 };

const char *const mp_rep_src_ceiling = "ceiling";

double mp_rep_clock_scale(const mp_rep *r, const mp_rep_row *x)
{
    double probe = mp_rep_probe(r, "clock", 1, NULL);
    return probe > 0 && x->clock_ghz > probe ? x->clock_ghz / probe : 1;
}

double mp_rep_roof(const mp_rep *r, const mp_rep_row *x, double *bw_roof, double *compute_roof,
                   const char **bound, const char **compute_src)
{
    double bw = 0;
    if (strcmp(x->cache, "warm")) {
        /* the most the memory system was seen to move at these threads: the
         * best read method, and copy and triad (a triad on this VM has come out
         * above every read method on one thread: a roof is what nothing exceeds) */
        static const char *const kinds[] = {"read_DRAM", "copy_DRAM", "triad_DRAM"};
        bw = mp_store_rep_run_bw(r->store, x->run_id, x->threads);
        for (int i = 0; i < 3; i++) {
            double v = mp_rep_probe(r, kinds[i], x->threads, NULL);
            bw = v > bw ? v : bw;
        }
    }
    int n = x->n > 0 ? x->n : 1, gn = 0, gt = 0;
    double gops = mp_rep_ceiling(r, x->variant, n, x->threads, &gn, &gt);
    if (gops > 0)
        *compute_src = gn == n && gt == x->threads ? mp_rep_src_ceiling
                       : gt == x->threads          ? "ceiling at another N"
                       : gn == n                   ? "ceiling at another thread count"
                                                   : "ceiling at another N and thread count";
    else if ((gops = mp_rep_ceiling_legacy(r, x->variant) * x->threads) > 0)
        *compute_src = "old one-core L1 ceiling x threads";
    else if ((gops = mp_rep_probe(r, "int8_dot_", 1, NULL) * x->threads) > 0)
        *compute_src = "int8 dot peak";
    gops *= mp_rep_clock_scale(r, x);
    double ops = 2.0 * x->m * (double)x->k * n;
    double comp = gops > 0 && x->packed_bytes > 0 ? gops * (double)x->packed_bytes / ops : 0;
    if (!(comp > 0))
        *compute_src = "none";
    *bw_roof = bw;
    *compute_roof = comp;
    *bound = "bandwidth";
    double roof = bw;
    if (comp > 0 && (!(roof > 0) || comp < roof))
        roof = comp, *bound = "compute";
    return roof > 0 ? roof : 0;
}

static int measured(const mp_rep_row *x)
{
    return !strcmp(x->status, "ok") || !strcmp(x->status, "unstable");
}

/* Achieved cell: the share of the roof as measured; past 100% it is flagged
 * (the roof is wrong there: nothing may exceed a roof), never clamped.
 * Returns 1 for a row above its roof. */
static int achieved(char *buf, size_t len, const mp_rep_row *x, double roof)
{
    if (!measured(x) || !(roof > 0)) {
        snprintf(buf, len, "–");
        return 0;
    }
    snprintf(buf, len, "%.0f%%%s", 100.0 * x->gbps / roof, x->gbps > roof ? " (above: roof wrong)" : "");
    return x->gbps > roof;
}

/* The rows of r the section uses: N = 1 in the report's cache mode, the picked
 * row per (variant, shape, threads). */
static int gemv_rows(const mp_rep *r, const mp_rep_row **out, int max)
{
    int n = 0;
    for (int i = 0; i < r->nrows && n < max; i++) {
        const mp_rep_row *x = &r->rows[i];
        if (x->n != 1 || strcmp(x->cache, r->cache))
            continue;
        if (mp_rep_pick(r, x->variant, x->m, x->k, 1, x->threads) != x)
            continue;
        out[n++] = x;
    }
    return n;
}

int mp_rep_sec_roofline(FILE *f, const mp_rep *r, mp_rep_out *o)
{
    fputs("## 7. GEMV bandwidth against the roofline model (seed 003 Fig. 5–7, eq. 1–3)\n\n", f);
    enum { MAXR = 8192 };
    static const mp_rep_row *rows[MAXR];
    int nr = gemv_rows(r, rows, MAXR);
    if (!nr) {
        fputs("No N = 1 results on this machine: run `mpbench run --variant "
              "'i2_s*,tq2_0*,q8_0*,vnni*' --model llama3-8b-1.58 --n 1`.\n\n",
              f);
    }
    int tv[MAXT], nt = 0, above = 0, fallback = 0;
    for (int i = 0; i < nr; i++) {
        int j;
        for (j = 0; j < nt && tv[j] != rows[i]->threads; j++)
            ;
        if (j == nt && nt < MAXT)
            tv[nt++] = rows[i]->threads;
    }
    for (int a = 0; a < nt; a++)
        for (int b = a + 1; b < nt; b++)
            if (tv[b] < tv[a]) {
                int t = tv[a];
                tv[a] = tv[b], tv[b] = t;
            }
    for (int t = 0; t < nt; t++) {
        int got = 0;
        double bw = mp_rep_probe(r, "read_DRAM", tv[t], &got);
        fprintf(f, "N = 1, %d thread%s, %s cache; best variant per method (highest mean GB/s "
                   "over the shapes), its range over the shapes.  ", tv[t], tv[t] > 1 ? "s" : "",
                r->cache);
        if (bw > 0)
            fprintf(f, "Bandwidth roof: read_DRAM %.2f GB/s (probe run %lld, %d thread%s%s).\n\n",
                    bw, (long long)r->probe_run, got, got > 1 ? "s" : "",
                    got != tv[t] ? ", the nearest probed thread count" : "");
        else
            fputs("No read_DRAM probe (run `mpbench probe`): no bandwidth roof.\n\n", f);
        fputs("| variant (method) | bpw | shapes | GB/s | bound | achieved | roofs (bandwidth / "
              "compute GB/s) |\n|---|--:|--:|--:|---|--:|---|\n",
              f);
        /* methods, then the best variant of each */
        const char *methods[MAXV];
        int nm = 0;
        for (int i = 0; i < nr; i++) {
            if (rows[i]->threads != tv[t])
                continue;
            int j;
            for (j = 0; j < nm && strcmp(methods[j], rows[i]->method); j++)
                ;
            if (j == nm && nm < MAXV && mp_rep_body_method(rows[i]->method))
                methods[nm++] = rows[i]->method;
        }
        for (int a = 0; a < nm; a++)
            for (int b = a + 1; b < nm; b++)
                if (strcmp(methods[b], methods[a]) < 0) {
                    const char *s = methods[a];
                    methods[a] = methods[b], methods[b] = s;
                }
        for (int m = 0; m < nm; m++) {
            const char *best = NULL;
            double best_mean = -1;
            for (int i = 0; i < nr; i++) {
                const mp_rep_row *x = rows[i];
                if (x->threads != tv[t] || strcmp(x->method, methods[m]))
                    continue;
                double sum = 0;
                int cnt = 0;
                for (int j = 0; j < nr; j++)
                    if (rows[j]->threads == tv[t] && !strcmp(rows[j]->variant, x->variant))
                        sum += measured(rows[j]) ? rows[j]->gbps : 0, cnt++;
                double mean = cnt ? sum / cnt : 0;
                if (mean > best_mean || (mean == best_mean && strcmp(x->variant, best) < 0))
                    best_mean = mean, best = x->variant;
            }
            /* one line per method: the best variant's range over the shapes */
            double glo = INFINITY, ghi = 0, slo = INFINITY, shi = 0, blo = INFINITY, bhi = 0,
                   clo = INFINITY, chi = 0, bpw = 0;
            int ns = 0, nbw = 0, ncomp = 0, unstable = 0, over = 0, fb = 0;
            for (int i = 0; i < nr; i++) {
                const mp_rep_row *x = rows[i];
                if (x->threads != tv[t] || strcmp(x->variant, best))
                    continue;
                double bwr, cr;
                const char *bound, *src;
                double roof = mp_rep_roof(r, x, &bwr, &cr, &bound, &src);
                char a[48];
                int up = achieved(a, sizeof a, x, roof);
                over += up, above += up;
                ns++, bpw = x->bpw;
                unstable |= !strcmp(x->status, "unstable");
                if (cr > 0 && src != mp_rep_src_ceiling)
                    fb = fallback = 1;
                if (!measured(x) || !(roof > 0))
                    continue;
                glo = fmin(glo, x->gbps), ghi = fmax(ghi, x->gbps);
                slo = fmin(slo, x->gbps / roof), shi = fmax(shi, x->gbps / roof);
                if (bwr > 0)
                    blo = fmin(blo, bwr), bhi = fmax(bhi, bwr);
                if (cr > 0)
                    clo = fmin(clo, cr), chi = fmax(chi, cr);
                nbw += !strcmp(bound, "bandwidth"), ncomp += !strcmp(bound, "compute");
            }
            if (!(ghi > 0)) {
                fprintf(f, "| %s (%s) | %.2f | %d | – | – | – | – |\n", best, methods[m], bpw, ns);
                continue;
            }
            fprintf(f, "| %s (%s) | %.2f | %d | %.1f–%.1f%s | %s | %.0f–%.0f%%%s | %.1f–%.1f / "
                       "%.1f–%.1f%s |\n",
                    best, methods[m], bpw, ns, glo, ghi, unstable ? "†" : "",
                    nbw && ncomp ? "both" : ncomp ? "compute" : "bandwidth", 100 * slo, 100 * shi,
                    over ? " (above: roof wrong)" : "", blo, bhi, clo, chi, fb ? "*" : "");
        }
        fputc('\n', f);
    }
    /* every row, every thread count, into the CSV */
    if (nr) {
        char path[4200], err[512];
        FILE *c = mp_rep_out_csv(o, "gemv-roofline.csv", path, sizeof path, err, sizeof err);
        if (c) {
            fputs("variant,method,params,bpw,m,k,threads,status,gbps,bandwidth_roof_gbps,"
                  "compute_roof_gbps,compute_roof_source,bound,achieved_pct,run\n",
                  c);
            for (int i = 0; i < nr; i++) {
                const mp_rep_row *x = rows[i];
                double bwr, cr;
                const char *bound, *src;
                double roof = mp_rep_roof(r, x, &bwr, &cr, &bound, &src);
                char a[32];
                int over = achieved(a, sizeof a, x, roof);
                fprintf(c, "%s,%s,\"%s\",%.4f,%d,%d,%d,%s,%.4f,%.4f,%.4f,%s,%s,%s", x->variant,
                        x->method, x->params, x->bpw, x->m, x->k, x->threads, x->status,
                        measured(x) ? x->gbps : 0, bwr, cr, src, roof > 0 ? bound : "",
                        over ? "above roof" : "");
                if (!over && measured(x) && roof > 0)
                    fprintf(c, "%.1f", 100.0 * x->gbps / roof);
                fprintf(c, ",%lld\n", (long long)x->run_id);
            }
            fprintf(f, "Every variant, shape and thread count: [%s](%s) (the roofs, the bound "
                       "and the run of each row).\n\n", path, path);
        } else {
            fprintf(f, "(The full table could not be written: %s.)\n\n", err);
        }
        int total_above = 0;
        for (int i = 0; i < nr; i++) {
            double bwr, cr;
            const char *bound, *src;
            double roof = mp_rep_roof(r, rows[i], &bwr, &cr, &bound, &src);
            total_above += measured(rows[i]) && roof > 0 && rows[i]->gbps > roof;
        }
        if (total_above)
            fprintf(f, "**Roof wrong for %d of %d rows** (%d in the table above): they read faster "
                       "than their roof, which cannot be; the roof (the probe's read_DRAM, or the "
                       "compute ceiling) was measured low — a probe taken while the machine was "
                       "busy, or weights partly served from a cache the VM misreports.  Those rows "
                       "keep their share, flagged \"above: roof wrong\"; rerun `mpbench probe` on "
                       "a quiet machine.\n\n",
                    total_above, nr, above);
    }
    int own = 0;
    for (int i = 0; i < nr && !own; i++)
        own = mp_store_rep_run_bw(r->store, rows[i]->run_id, rows[i]->threads) > 0;
    if (own)
        fputs("Rows whose own run stored its read_DRAM bandwidth (`sweep --probe-bw`) take that "
              "figure as their bandwidth roof instead of the probe's.\n\n", f);
    if (fallback)
        fputs("\\* no compute ceiling stored for this variant at the row's N and thread count "
              "(run `mpbench probe` without `--no-ceilings`): the nearest stored ceiling stands "
              "in (the CSV's compute_roof_source says which), else an older probe's one-core "
              "ceiling times the threads, else the int8 dot-product peak.\n\n", f);
    fputs("Model (seed 003 eq. 1–3): cycles per output vector = max(B/bw_core, C), so the "
          "effective bandwidth is min(bandwidth, B/C).  The bandwidth roof is the best of the "
          "probe's read methods (plain, software-prefetched, wide and non-temporal loads) at "
          "the row's thread count.  B/C, the compute roof, is measured per variant by `mpbench "
          "probe`: its own compute loop at a real model shape (M ≥ 1024, stored with each ceiling) with warm weights, over the "
          "harness's threads, for the row's N and thread count, in wall time, best of several "
          "calls (the per-call activation work, prepare, left out: a roof must not be below a "
          "row).  \"bound\" is the lower roof; \"achieved\" is GB/s over it.\n\n"
          "Paper (seed 003 Fig. 5–7, bars plot only; §IV-B text): on ARL and ARLH the int2 GEMV "
          "kernels are within 10–20% of the int8 roofline and near peak bandwidth (within 2–5% "
          "of int8 for the larger shapes on ARL); for the smallest shape on ARL the ideal int2 "
          "time is 6 µs against 8.9 µs measured (98 GB/s peak); on ARLH the 1-bit model gives "
          "55 GB/s (E cores capped at 0.85 bytes/cycle, 2.85 GB/s); on LNL int2 is within "
          "20–25% of peak for the larger shapes and int1 is around 30 GB/s (model: about "
          "37 GB/s, 6.5 GB/s per P core and 2.92 GB/s per E core).\n\n",
          f);
    return above;
}

int mp_rep_roof_check(const mp_rep *r, const mp_rep_e2e *e, int ne, double tol,
                      void (*fn)(const char *line, void *ctx), void *ctx, int *checked)
{
    int above = 0, n = 0;
    char line[512];
    for (int i = 0; i < r->nrows; i++) {
        const mp_rep_row *x = &r->rows[i];
        if (!measured(x))
            continue;
        double bw, comp;
        const char *bound, *src;
        mp_rep_roof(r, x, &bw, &comp, &bound, &src);
        /* a stand-in compute ceiling (another N or thread count, the int8
         * peak) is no roof of the row: not held against it; an older probe's
         * one-core ceiling times the threads was the roof it claimed for a
         * GEMV row, and is */
        int own = src == mp_rep_src_ceiling ||
                  (x->n == 1 && !strcmp(src, "old one-core L1 ceiling x threads"));
        double roof = bw;
        if (comp > 0 && own && (!(roof > 0) || comp < roof))
            roof = comp, bound = "compute";
        else
            bound = "bandwidth";
        if (!(roof > 0))
            continue;
        n++;
        if (x->gbps > (1 + tol) * roof) {
            above++;
            snprintf(line, sizeof line, "%s %dx%d N=%d t=%d %s (run %lld): %.2f GB/s, %.3f x "
                                        "its %s roof %.2f",
                     x->variant, x->m, x->k, x->n, x->threads, x->cache, (long long)x->run_id,
                     x->gbps, x->gbps / roof, bound, roof);
            if (fn)
                fn(line, ctx);
        }
    }
    for (int i = 0; i < ne; i++) {
        const mp_rep_e2e *x = &e[i];
        /* decode rows: their bound is bytes per step over the read bandwidth */
        if (strncmp(x->test, "tg", 2) || !(x->bound_tps > 0) ||
            (strcmp(x->status, "ok") && strcmp(x->status, "unstable")))
            continue;
        n++;
        if (x->tps > (1 + tol) * x->bound_tps) {
            above++;
            snprintf(line, sizeof line, "e2e %s %s %s t=%d (run %lld): %.2f tokens/s, %.3f x "
                                        "its decode bound %.2f",
                     x->model, x->variant, x->test, x->threads, (long long)x->run, x->tps,
                     x->tps / x->bound_tps, x->bound_tps);
            if (fn)
                fn(line, ctx);
        }
    }
    if (checked)
        *checked = n;
    return above;
}
