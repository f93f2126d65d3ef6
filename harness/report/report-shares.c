/* report-shares.c - "at the limit" in one command (issue 41): each measured
 * point's best variant and every method's best, with its share of the roof the
 * conclusions judge it against (DESIGN.md "Roofs and conclusions"), printed by
 * `mpbench report --shares` and `make bench`.
 *
 *   N = 1    the read roof: the bandwidth roof of mp_rep_roof at the row's
 *            thread count (the best the probe saw any read method, copy or
 *            triad move from DRAM, or the row's own run's read); the rate is
 *            the row's GB/s of packed weights;
 *   N > 1    the compute roof: the probe's ceiling of the row's own variant at
 *            the row's N and thread count (or the stand-in mp_rep_roof names);
 *            the rate is the row's GOPS.  Beside it, its share of the probe's
 *            int8 dot peak at the row's thread count: the quantity issue 41's
 *            prefill target is set on (a variant's own ceiling can sit far
 *            below the peak, so 85% of it says nothing about the machine).
 *
 * A point is one (shape, N, threads) of the report's cache mode; its rows come
 * from the newest run that measured it, so the variants compared share a run
 * (a ratio comes from one run).  A share is printed as measured: above 1 the
 * roof is wrong (nothing may exceed a roof) and the row says so; never clamped.
 * The summary per N is the worst share of the best variant over the shapes and
 * thread counts, against the targets of mp_rep_share_target: at N = 1 of the
 * read roof, at N > 1 of the int8 dot peak (then, without a target, of each
 * variant's own compute roof). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mp_report.h"

static int measured(const mp_rep_row *x)
{
    return !strcmp(x->status, "ok") || !strcmp(x->status, "unstable");
}

double mp_rep_share_target(int n)
{
    return n == 1 ? MP_REP_TARGET_READ : n == 128 ? MP_REP_TARGET_COMPUTE : 0;
}

/* The roof of row x in the unit of its rate, into s. */
static void share_of(const mp_rep *r, const mp_rep_row *x, mp_rep_share *s)
{
    double bw, comp;
    const char *bound, *src;
    mp_rep_roof(r, x, &bw, &comp, &bound, &src);
    s->x = x;
    s->note[0] = 0;
    if (x->n == 1) {
        s->roof_kind = "read";
        s->rate = x->gbps;
        s->roof = bw;
        int got = 0;
        mp_rep_probe(r, "read_DRAM", x->threads, &got);
        if (bw > 0 && got && got != x->threads)
            snprintf(s->note, sizeof s->note, "read roof probed at %d thread%s", got,
                     got > 1 ? "s" : "");
        else if (bw > 0 && comp > 0 && comp < bw && src == mp_rep_src_ceiling)
            snprintf(s->note, sizeof s->note, "own compute ceiling %.1f GB/s is lower", comp);
    } else {
        s->roof_kind = "compute";
        s->rate = x->gops;
        double ops = 2.0 * x->m * (double)x->k * x->n;
        s->roof = comp > 0 && x->packed_bytes > 0 ? comp * ops / (double)x->packed_bytes : 0;
        if (s->roof > 0 && src != mp_rep_src_ceiling)
            snprintf(s->note, sizeof s->note, "%s", src);
        int got = 0;
        double pk = mp_rep_probe(r, "int8_dot_", x->threads, &got);
        if (pk > 0 && got != x->threads) {
            snprintf(s->peak_note, sizeof s->peak_note, "int8 peak probed at %d thread%s, x %g",
                     got, got > 1 ? "s" : "", (double)x->threads / got);
            pk *= (double)x->threads / got;
        }
        /* mp_rep_roof raised the compute roof by the same factor */
        const double sc = mp_rep_clock_scale(r, x);
        if (sc > 1) {
            pk *= sc;
            size_t u = strlen(s->note);
            snprintf(s->note + u, sizeof s->note - u, "%sroofs x %.3f (row's clock)",
                     u ? "; " : "", sc);
        }
        s->peak = pk;
        s->peak_share = pk > 0 ? s->rate / pk : 0;
    }
    s->share = s->roof > 0 ? s->rate / s->roof : 0;
}

static int cmp_share(const void *pa, const void *pb)
{
    const mp_rep_share *a = pa, *b = pb;
    const mp_rep_row *x = a->x, *y = b->x;
    if (x->m != y->m)
        return x->m < y->m ? -1 : 1;
    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    if (x->threads != y->threads)
        return x->threads < y->threads ? -1 : 1;
    if (a->best != b->best)
        return a->best ? -1 : 1;
    if (x->gops != y->gops)
        return x->gops > y->gops ? -1 : 1;
    return strcmp(x->method, y->method);
}

int mp_rep_shares(const mp_rep *r, mp_rep_share *out, int max)
{
    int n = 0;
    for (int i = 0; i < r->nrows; i++) {
        const mp_rep_row *x = &r->rows[i];
        if (!measured(x) || strcmp(x->cache, r->cache))
            continue;
        /* the point's newest run, and the fastest row of that run (of any
         * parameters) for x's method: x stays only if it is that row */
        int64_t run = 0;
        const mp_rep_row *fast = NULL, *top = NULL;
        for (int j = 0; j < r->nrows; j++) {
            const mp_rep_row *y = &r->rows[j];
            if (measured(y) && !strcmp(y->cache, r->cache) && y->m == x->m && y->k == x->k &&
                y->n == x->n && y->threads == x->threads && y->run_id > run)
                run = y->run_id;
        }
        if (x->run_id != run)
            continue;
        for (int j = 0; j < r->nrows; j++) {
            const mp_rep_row *y = &r->rows[j];
            if (!measured(y) || strcmp(y->cache, r->cache) || y->run_id != run ||
                y->m != x->m || y->k != x->k || y->n != x->n || y->threads != x->threads)
                continue;
            if (!top || y->gops > top->gops || (y->gops == top->gops && y->id < top->id))
                top = y;
            if (!strcmp(y->method, x->method) &&
                (!fast || y->gops > fast->gops || (y->gops == fast->gops && y->id < fast->id)))
                fast = y;
        }
        if (fast != x || n == max)
            continue;
        share_of(r, x, &out[n]);
        out[n++].best = top == x;
    }
    qsort(out, (size_t)n, sizeof *out, cmp_share);
    return n;
}

/* the share the summary judges: of the roof, or of the int8 dot peak */
static double judged(const mp_rep_share *s, int of_peak)
{
    return of_peak ? s->peak_share : s->share;
}

int mp_rep_shares_worst(const mp_rep_share *s, int n, int tokens, int of_peak,
                        mp_rep_share_sum *sum)
{
    memset(sum, 0, sizeof *sum);
    sum->n = tokens;
    sum->target = mp_rep_share_target(tokens);
    int shapes[256][2], ns = 0, tv[64], nt = 0;
    for (int i = 0; i < n; i++) {
        const mp_rep_row *x = s[i].x;
        if (!s[i].best || x->n != tokens)
            continue;
        sum->points++;
        int j;
        for (j = 0; j < ns && (shapes[j][0] != x->m || shapes[j][1] != x->k); j++)
            ;
        if (j == ns && ns < 256)
            shapes[ns][0] = x->m, shapes[ns][1] = x->k, ns++;
        mp_rep_ints_add(tv, &nt, 64, x->threads);
        const double v = judged(&s[i], of_peak);
        if (!((of_peak ? s[i].peak : s[i].roof) > 0)) {
            sum->no_roof++;
            continue;
        }
        sum->above += v > 1;
        sum->at_target += sum->target > 0 && v >= sum->target;
        if (!sum->worst || v < judged(sum->worst, of_peak))
            sum->worst = &s[i];
    }
    sum->shapes = ns, sum->thread_counts = nt;
    return sum->points;
}

/* Appends part to the note in buf, "; "-separated. */
static void add(char *buf, size_t len, const char *part)
{
    size_t u = strlen(buf);
    if (*part && u + 1 < len)
        snprintf(buf + u, len - u, "%s%s", u ? "; " : "", part);
}

/* "89.2%" of a roof or peak of v > 0, or "-" without one */
static const char *pct(char *buf, size_t len, double share, double of)
{
    if (of > 0)
        snprintf(buf, len, "%.1f%%", 100.0 * share);
    else
        snprintf(buf, len, "-");
    return buf;
}

/* One summary line of N = tokens: of the read roof (N = 1), of the int8 dot
 * peak x threads (N > 1, of_peak, the target's quantity) or of each variant's
 * own compute roof (N > 1, for reference: no target is set on it). */
static void summary(FILE *f, const mp_rep_share *s, int n, int tokens, int of_peak)
{
    mp_rep_share_sum sum;
    mp_rep_shares_worst(s, n, tokens, of_peak, &sum);
    const char *what = tokens == 1 ? "the read roof"
                       : of_peak   ? "the int8 dot peak x threads"
                                   : "its own compute roof";
    const int own = tokens > 1 && !of_peak;
    fprintf(f, "N = %d%s: ", tokens, own ? ", for reference" : "");
    if (!sum.worst) {
        fprintf(f, "no best variant of the %d point%s has %s\n", sum.points,
                sum.points > 1 ? "s" : "", what);
        return;
    }
    const mp_rep_row *w = sum.worst->x;
    char sh[32];
    double v = judged(sum.worst, of_peak);
    fprintf(f, "worst share of the best variant over %d shape%s x %d thread count%s: %s of "
               "%s (%s, %dx%d, %d thread%s)",
            sum.shapes, sum.shapes > 1 ? "s" : "", sum.thread_counts,
            sum.thread_counts > 1 ? "s" : "", pct(sh, sizeof sh, v, 1), what, w->variant, w->m,
            w->k, w->threads, w->threads > 1 ? "s" : "");
    /* a roof too low only raises shares: a share under the target is under it
     * whatever the roofs, but with a best row above its roof (a wrong roof)
     * "at the limit" cannot be said */
    const char *verdict = v < sum.target ? "below" : sum.above ? "not judged" : "at the limit";
    if (own)
        fprintf(f, "; %d of %d points at %.0f%% of it", sum.at_target, sum.points,
                100 * sum.target);
    else if (sum.target > 0)
        fprintf(f, "; target %.0f%%: %s (%d of %d points at it)", 100 * sum.target, verdict,
                sum.at_target, sum.points);
    else
        fputs("; no target at this N", f);
    if (sum.no_roof)
        fprintf(f, "; %d point%s without %s", sum.no_roof, sum.no_roof > 1 ? "s" : "",
                of_peak ? "a probed int8 dot peak" : "a roof");
    if (sum.above)
        fprintf(f, "; %d best row%s above %s: %s WRONG, rerun `mpbench probe` on a quiet "
                   "machine", sum.above, sum.above > 1 ? "s" : "", of_peak ? "the peak" : "the roof",
                of_peak ? "PEAK" : "ROOF");
    fputc('\n', f);
}

int mp_rep_shares_print(FILE *f, const mp_rep *r, const char *db)
{
    enum { MAXS = 8192 };
    mp_rep_share *s = calloc(MAXS, sizeof *s);
    if (!s)
        return -1;
    int n = mp_rep_shares(r, s, MAXS);
    if (!n) {
        free(s);
        return 0;
    }
    fprintf(f, "# Shares of the roof: %s, machine %s (%s), probe run %lld, %s cache.\n"
               "# Per (shape, N, threads): its newest run's fastest variant (best) and each "
               "method's best;\n# N = 1: GB/s against the read roof, N > 1: GOPS against the "
               "variant's compute roof\n# and (int8 pk) against the probe's int8 dot peak at "
               "the row's thread count.\n",
            db, r->mach.fingerprint, r->mach.cpu_model, (long long)r->probe_run, r->cache);
    fprintf(f, "%-11s %4s %3s %4s %-4s %-28s %-14s %9s %-4s %9s %-7s %7s %7s  %s\n", "shape",
            "N", "T", "run", "", "variant", "method", "rate", "", "roof", "roof", "share",
            "int8 pk", "note");
    int wrong = 0;
    for (int i = 0; i < n; i++) {
        const mp_rep_row *x = s[i].x;
        const char *unit = x->n == 1 ? "GB/s" : "GOPS";
        char shape[32], roof[32], sh[32], pk[32], note[256];
        snprintf(shape, sizeof shape, "%dx%d", x->m, x->k);
        if (s[i].roof > 0)
            snprintf(roof, sizeof roof, "%.2f", s[i].roof);
        else
            snprintf(roof, sizeof roof, "-");
        note[0] = 0;
        if (s[i].roof > 0 && s[i].share > 1)
            add(note, sizeof note, "ROOF WRONG (above its roof)");
        if (s[i].peak > 0 && s[i].peak_share > 1)
            add(note, sizeof note, "PEAK WRONG (above the int8 dot peak)");
        if (!(s[i].roof > 0))
            add(note, sizeof note, x->n == 1 ? "no read roof" : "no compute roof");
        add(note, sizeof note, s[i].note);
        add(note, sizeof note, s[i].peak_note);
        if (!strcmp(x->status, "unstable"))
            add(note, sizeof note, "unstable");
        if (!x->is_default && x->params[0]) {
            char p[160];
            snprintf(p, sizeof p, "params %s", x->params);
            add(note, sizeof note, p);
        }
        wrong += (s[i].roof > 0 && s[i].share > 1) || (s[i].peak > 0 && s[i].peak_share > 1);
        char line[768];
        snprintf(line, sizeof line, "%-11s %4d %3d %4lld %-4s %-28s %-14s %9.2f %-4s %9s %-7s "
                 "%7s %7s%s%s", shape, x->n, x->threads, (long long)x->run_id,
                 s[i].best ? "best" : "", x->variant, x->method, s[i].rate, unit, roof,
                 s[i].roof_kind, pct(sh, sizeof sh, s[i].share, s[i].roof),
                 x->n == 1 ? "" : pct(pk, sizeof pk, s[i].peak_share, s[i].peak),
                 note[0] ? "  " : "", note);
        size_t l = strlen(line);
        while (l && line[l - 1] == ' ') /* N = 1 rows have no int8 pk */
            line[--l] = 0;
        fprintf(f, "%s\n", line);
    }
    /* the summary: one line per N, in ascending N (two at N > 1) */
    int nv[64], nn = 0;
    for (int i = 0; i < n; i++)
        mp_rep_ints_add(nv, &nn, 64, s[i].x->n);
    mp_rep_ints_sort(nv, nn);
    fputc('\n', f);
    for (int j = 0; j < nn; j++) {
        summary(f, s, n, nv[j], nv[j] > 1);
        if (nv[j] > 1)
            summary(f, s, n, nv[j], 0);
    }
    if (wrong)
        fprintf(f, "%d row%s above %s roof or peak: the roof is wrong (a probe taken under "
                   "load, a cache the VM misreports), not the row; shares are printed as "
                   "measured.\n",
                wrong, wrong > 1 ? "s" : "", wrong > 1 ? "their" : "its");
    free(s);
    return n;
}
