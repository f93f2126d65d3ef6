/* report-claims.c - the papers' claims judged against the store (issue 16,
 * remade for issue 37: the baseline the paper used, the paper's conditions,
 * backing from the very rows a ratio came from).  The papers' figures live in
 * a data file (results/claims.tsv, one claim per line, tab-separated), never in
 * this code; this file only knows how to compute a metric and judge it:
 *
 *   kernel A B N T     speed of method A over method B (B's time / A's time),
 *                      the fastest variant of each per shape, every shape of
 *                      the run that measured both on the most shapes (the
 *                      newest of those) at N tokens, T threads;
 *                      A may be a comma list (the fastest of those methods)
 *   gbps A B N T       the same points, A's GB/s over B's GB/s
 *   e2e A B TEST T     end-to-end tokens/s of A over B per whole bitnetcpp-*
 *                      model, both from ONE run (the newest that measured both:
 *                      a later run of one of them does not mix in), TEST "tg",
 *                      "pp" or "tgb" (parallel decoding), T threads (0: the most)
 *   e2eshare A TEST T  A's end-to-end rate over its row's own memory bound
 *   lossless A         the lossless check's exact-match share of method A
 *   bpb A B            issue 42: on a real model's held-out text, A's per-byte
 *                      perplexity over B's, 2^(bpb A - bpb B), both from the
 *                      newest run that measured both (`e2e --ppl`)
 *   zeros              issue 42: the share of a real model's ternary weights
 *                      that are zero (the "zeros" row `e2e --ppl` stores)
 *   none               not reproducible here: the why column says why
 *
 * Options after the metric, space-separated: models=700m,1.5b keeps only those
 * model sizes (the sizes where the paper's figure lies, or the overlap of its
 * sizes with ours); paper=700m:4.08,1.5b:5.18 gives the paper's own figure per
 * size, and then each model is judged against its own figure.
 *
 * Verdict: the claim's statistic of ours (median over points, max for "up to")
 * inside the paper's range widened by MP_CLAIM_TOL -> "yes"; outside but our
 * min..max overlaps it -> "partly"; else "no".  With per-size figures: every
 * size within MP_CLAIM_TOL of the paper's figure at that size -> "yes", some ->
 * "partly", none -> "no".
 *
 * Baseline: where the paper's baseline is llama.cpp, a kernel claim must use
 * the llamacpp.* peer (method LLAMACPP_*) of the same run; an end-to-end claim
 * uses our re-implementation and says so (llama.cpp end to end: issue 39).
 * The backing is computed for the point that gives the statistic: the two
 * variants, shape, N and threads of that ratio, each with its share of its own
 * roof (mp_rep_roof) or, end to end, of its row's memory bound. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mp_report.h"


enum { MAXF = 12, MAXP = 64, MAXM = 16 };

typedef struct point {
    double v;                    /* the ratio (or share) */
    const mp_rep_row *ka, *kb;   /* kernel rows behind it */
    const mp_rep_e2e *ea, *eb;   /* e2e rows behind it */
    double paper;                /* the paper's figure at this size (0: none given) */
} point;

typedef struct opts {
    char models[MAXM][16];
    int nmodels;
    char psize[MAXM][16];
    double pval[MAXM];
    int npaper;
} opts;

static int measured(const mp_rep_row *x)
{
    return !strcmp(x->status, "ok") || !strcmp(x->status, "unstable");
}

static int cmp_point(const void *a, const void *b)
{
    double x = ((const point *)a)->v, y = ((const point *)b)->v;
    return x < y ? -1 : x > y;
}

/* Fastest measured row of methods at (run, shape, n, threads); NULL if none. */
static const mp_rep_row *fastest(const mp_rep *r, int64_t run, const char *methods, int m, int k,
                                 int n, int t)
{
    const mp_rep_row *best = NULL;
    for (int i = 0; i < r->nrows; i++) {
        const mp_rep_row *x = &r->rows[i];
        if (x->run_id != run || x->m != m || x->k != k || x->n != n || x->threads != t ||
            !mp_list_has(methods, ',', x->method) || strcmp(x->cache, r->cache) || !measured(x) ||
            !(x->median_us > 0))
            continue;
        if (!best || x->median_us < best->median_us)
            best = x;
    }
    return best;
}

/* kernel / gbps metrics: one point per shape of the newest run with both. */
static int kernel_points(const mp_rep *r, const char *a, const char *b, int n, int t, int gbps,
                         point *pts, int64_t *run_out)
{
    /* the run with the most shapes holding both (a run over the model's shapes
     * before a one-shape run of a few variants), the newest of those */
    int64_t run = 0;
    int best_shapes = 0;
    for (int i = 0; i < r->nrows; i++) {
        const mp_rep_row *x = &r->rows[i];
        if (x->n != n || x->threads != t || !mp_list_has(a, ',', x->method) || !measured(x) ||
            strcmp(x->cache, r->cache) || x->run_id == run)
            continue;
        int shapes = 0;
        for (int j = 0; j < r->nrows; j++) {
            const mp_rep_row *y = &r->rows[j];
            int first = 1;
            for (int q = 0; q < j && first; q++)
                first = !(r->rows[q].run_id == y->run_id && r->rows[q].m == y->m &&
                          r->rows[q].k == y->k && r->rows[q].n == n && r->rows[q].threads == t &&
                          mp_list_has(a, ',', r->rows[q].method));
            if (first && y->run_id == x->run_id && y->n == n && y->threads == t &&
                mp_list_has(a, ',', y->method) && fastest(r, x->run_id, a, y->m, y->k, n, t) &&
                fastest(r, x->run_id, b, y->m, y->k, n, t))
                shapes++;
        }
        if (shapes > best_shapes || (shapes == best_shapes && shapes && x->run_id > run))
            run = x->run_id, best_shapes = shapes;
    }
    *run_out = run;
    if (!run)
        return 0;
    int np = 0;
    for (int i = 0; i < r->nrows && np < MAXP; i++) {
        const mp_rep_row *x = &r->rows[i];
        if (x->run_id != run || x->n != n || x->threads != t || !mp_list_has(a, ',', x->method))
            continue;
        int dup = 0;
        for (int s = 0; s < np; s++)
            dup |= pts[s].ka->m == x->m && pts[s].ka->k == x->k;
        const mp_rep_row *xa = fastest(r, run, a, x->m, x->k, n, t);
        const mp_rep_row *xb = fastest(r, run, b, x->m, x->k, n, t);
        if (dup || !xa || !xb)
            continue;
        if (gbps && !(xb->gbps > 0))
            continue;
        pts[np++] = (point){gbps ? xa->gbps / xb->gbps : xb->median_us / xa->median_us, xa, xb,
                            NULL, NULL, 0};
    }
    return np;
}

static int e2e_kind(const mp_rep_e2e *x, const char *test)
{
    return !strcmp(test, "tgb") ? !strncmp(x->test, "tg", 2) && strchr(x->test, ' ')
                                : !strncmp(x->test, test, 2) && !strchr(x->test, ' ');
}

/* Fastest ok whole-model e2e row of method for (run, model, test kind, threads). */
static const mp_rep_e2e *e2e_fastest(const mp_rep_e2e *e, int ne, int64_t run, const char *method,
                                     const char *model, const char *test, int t)
{
    const mp_rep_e2e *best = NULL;
    for (int i = 0; i < ne; i++) {
        const mp_rep_e2e *x = &e[i];
        if ((run && x->run != run) || !e2e_kind(x, test) || !mp_list_has(method, ',', x->method) ||
            strcmp(x->model, model) || x->threads != t || strcmp(x->status, "ok") ||
            !(x->tps > 0) || (x->layers > 0 && x->layers < x->model_layers))
            continue;
        if (!best || x->tps > best->tps)
            best = x;
    }
    return best;
}

/* "bitnetcpp-700m" -> "700m" (NULL for other models). */
static const char *model_size(const char *model)
{
    return strncmp(model, "bitnetcpp-", 10) ? NULL : model + 10;
}

static int size_wanted(const opts *o, const char *size)
{
    if (!o->nmodels)
        return 1;
    for (int i = 0; i < o->nmodels; i++)
        if (!strcmp(o->models[i], size))
            return 1;
    return 0;
}

static double paper_at(const opts *o, const char *size)
{
    for (int i = 0; i < o->npaper; i++)
        if (!strcmp(o->psize[i], size))
            return o->pval[i];
    return 0;
}

static int most_threads(const mp_rep_e2e *e, int ne)
{
    int t = 0;
    for (int i = 0; i < ne; i++)
        t = e[i].threads > t ? e[i].threads : t;
    return t;
}

/* e2e / e2eshare: one point per model size, A and B from one run (the newest
 * run holding both that read at one bandwidth level: mp_rep_e2e_reads_match). */
static int e2e_points(const mp_rep_e2e *e, int ne, const char *a, const char *b, const char *test,
                      int t, const opts *o, point *pts, int *t_out)
{
    if (t <= 0)
        t = most_threads(e, ne);
    *t_out = t;
    int np = 0;
    for (int i = 0; i < ne && np < MAXP; i++) {
        const char *size = model_size(e[i].model);
        if (!size || !size_wanted(o, size))
            continue;
        int dup = 0;
        for (int j = 0; j < np; j++)
            dup |= !strcmp(pts[j].ea->model, e[i].model);
        if (dup)
            continue;
        /* the newest run with both rows of this model */
        const mp_rep_e2e *xa = NULL, *xb = NULL;
        for (int j = 0; j < ne; j++) {
            const mp_rep_e2e *ca = &e[j];
            if (strcmp(ca->model, e[i].model) || (xa && ca->run <= xa->run))
                continue;
            const mp_rep_e2e *fa = e2e_fastest(e, ne, ca->run, a, e[i].model, test, t);
            const mp_rep_e2e *fb = b ? e2e_fastest(e, ne, ca->run, b, e[i].model, test, t) : NULL;
            if (fa && (!b || (fb && mp_rep_e2e_reads_match(fa, fb))))
                xa = fa, xb = fb;
        }
        if (!xa)
            continue;
        double v = b ? xa->tps / xb->tps : xa->bound_tps > 0 ? xa->tps / xa->bound_tps : -1;
        if (v < 0)
            continue;
        pts[np++] = (point){v, NULL, NULL, xa, xb, paper_at(o, size)};
    }
    return np;
}

static int lossless_points(const mp_rep_e2e *e, int ne, const char *a, point *pts)
{
    int np = 0;
    for (int i = 0; i < ne && np < MAXP; i++)
        if (!strcmp(e[i].test, "lossless") && mp_list_has(a, ',', e[i].method) &&
            !strcmp(e[i].status, "ok") && e[i].prompts > 0 &&
            (!e[i].lm_head[0] || !strcmp(e[i].lm_head, "f16"))) /* not a q8_0 head's row */
            pts[np++] = (point){e[i].share, NULL, NULL, &e[i], NULL, 0};
    return np;
}

/* bpb A B: one point per real model, A's and B's bits per byte from the
 * newest run holding both; zeros (a == NULL): one per model's newest row. */
static int text_points(const mp_rep_e2e *e, int ne, const char *a, const char *b, point *pts)
{
    int np = 0;
    for (int i = 0; i < ne && np < MAXP; i++) {
        const mp_rep_e2e *x = &e[i];
        if (strcmp(x->status, "ok") || strcmp(x->test, a ? "bpb" : "zeros") ||
            (a && !mp_list_has(a, ',', x->method)))
            continue;
        const mp_rep_e2e *y = NULL;
        for (int j = 0; a && j < ne && !y; j++)
            if (e[j].run == x->run && !strcmp(e[j].test, "bpb") &&
                !strcmp(e[j].model, x->model) && !strcmp(e[j].status, "ok") &&
                mp_list_has(b, ',', e[j].method))
                y = &e[j];
        if (a && !y)
            continue;
        int k = 0; /* the model's point so far: the newer run's replaces it */
        while (k < np && strcmp(pts[k].ea->model, x->model))
            k++;
        if (k < np && pts[k].ea->run >= x->run)
            continue;
        pts[k] = (point){a ? exp2(x->share - y->share) : x->share, NULL, NULL, x, y, 0};
        np += k == np;
    }
    return np;
}

/* "vnni_int2.avx512vnni 84% of its bandwidth roof (38.2 GB/s)" for one kernel row. */
static int roof_text(char *buf, size_t len, const mp_rep *r, const mp_rep_row *x)
{
    double bw, comp;
    const char *bound, *src;
    double roof = mp_rep_roof(r, x, &bw, &comp, &bound, &src);
    if (!(roof > 0))
        return snprintf(buf, len, "%s: no roof stored", x->variant);
    if (strcmp(bound, "compute") || !(x->packed_bytes > 0))
        return snprintf(buf, len, "%s %.0f%% of its %s roof (%.1f GB/s)", x->variant,
                        100 * x->gbps / roof, bound, roof);
    /* a compute roof reads better in operations: GB/s of weights x ops per byte */
    double gops = roof * 2.0 * x->m * (double)x->k * x->n / (double)x->packed_bytes;
    return snprintf(buf, len, "%s %.0f%% of its compute roof (%.1f GOPS, %s)", x->variant,
                    100 * x->gbps / roof, gops, src);
}

static int bound_text(char *buf, size_t len, const mp_rep_e2e *x)
{
    if (!(x->bound_tps > 0))
        return snprintf(buf, len, "%.64s: no memory bound stored", x->variant);
    return snprintf(buf, len, "%.64s %.0f%% of its memory bound (%.1f tokens/s)", x->variant,
                    fmin(1e4, 100 * x->tps / x->bound_tps), fmin(1e9, x->bound_tps));
}

/* The backing of one point: the rows behind it, each against its own bound. */
static void backing(char *buf, size_t len, const mp_rep *r, const point *p)
{
    char ta[400] = "", tb[400] = "";
    if (p->ka) {
        roof_text(ta, sizeof ta, r, p->ka);
        roof_text(tb, sizeof tb, r, p->kb);
        snprintf(buf, len, "at %dx%d, N = %d, %d thread%s, run %lld: %s; %s", p->ka->m, p->ka->k,
                 p->ka->n, p->ka->threads, p->ka->threads > 1 ? "s" : "",
                 (long long)p->ka->run_id, ta, tb);
    } else if (p->ea) {
        bound_text(ta, sizeof ta, p->ea);
        if (p->eb)
            bound_text(tb, sizeof tb, p->eb);
        snprintf(buf, len, "%s, %s, %d thread%s, run %lld: %s%s%s", p->ea->model, p->ea->test,
                 p->ea->threads, p->ea->threads > 1 ? "s" : "", (long long)p->ea->run, ta,
                 p->eb ? "; " : "", tb);
    } else
        buf[0] = 0;
}

/* Splits line at tabs into f (in place); returns the field count. */
static int split(char *line, char **f)
{
    int nf = 0;
    char *p = line;
    while (nf < MAXF) {
        f[nf++] = p;
        char *t = strchr(p, '\t');
        if (!t)
            break;
        *t = 0;
        p = t + 1;
    }
    char *nl = strpbrk(f[nf - 1], "\r\n");
    if (nl)
        *nl = 0;
    return nf;
}

static double parse_bound(const char *s)
{
    return !strcmp(s, "inf") ? INFINITY : atof(s);
}

/* models=a,b and paper=a:x,b:y after the metric's positional words. */
static void parse_opts(const char *metric, opts *o)
{
    memset(o, 0, sizeof *o);
    const char *p = strstr(metric, " models=");
    if (p)
        for (p += 8; *p && *p != ' ' && o->nmodels < MAXM;) {
            int l = (int)strcspn(p, ", ");
            snprintf(o->models[o->nmodels++], sizeof o->models[0], "%.*s", l, p);
            p += l + (p[l] == ',');
        }
    p = strstr(metric, " paper=");
    if (p)
        for (p += 7; *p && *p != ' ' && o->npaper < MAXM;) {
            int l = (int)strcspn(p, ":, ");
            snprintf(o->psize[o->npaper], sizeof o->psize[0], "%.*s", l, p);
            p += l;
            if (*p != ':')
                break;
            char *end;
            o->pval[o->npaper++] = strtod(p + 1, &end);
            p = end + (*end == ',');
        }
}

static int is_llamacpp(const char *paper_baseline)
{
    return !strncmp(paper_baseline, "llama.cpp", 9);
}

/* The row's baseline label, and 0 when the claim cannot be judged for want of
 * the paper's baseline (a kernel claim against llama.cpp without the peer). */
static int baseline_label(char *buf, size_t len, const char *kind, const char *b,
                          const char *paper_baseline)
{
    if (!*paper_baseline || !strcmp(paper_baseline, "-")) {
        snprintf(buf, len, "–");
        return 1;
    }
    if (!strncmp(b, "LLAMACPP_", 9)) {
        snprintf(buf, len, "llama.cpp's own (llamacpp.%s), same run", b + 9);
        for (char *c = buf; *c; c++)
            if (c > buf + 20 && *c >= 'A' && *c <= 'Z')
                *c = (char)(*c - 'A' + 'a');
        return 1;
    }
    if (is_llamacpp(paper_baseline) && !strcmp(kind, "e2e")) {
        snprintf(buf, len, "ours (re-implementation of %s); llama.cpp end to end is not "
                           "measured here (issue 39)", paper_baseline);
        return 1;
    }
    if (is_llamacpp(paper_baseline) && !strcmp(kind, "bpb")) {
        snprintf(buf, len, "ours (re-implementation of %s); llama.cpp's bits per byte are not "
                           "measured here", paper_baseline);
        return 1;
    }
    if (is_llamacpp(paper_baseline)) {
        snprintf(buf, len, "missing: the paper's baseline is %s, this claim's metric uses ours",
                 paper_baseline);
        return 0;
    }
    snprintf(buf, len, "ours (re-implementation of %s)", paper_baseline);
    return 1;
}

/* The conditions this row was computed under. */
static void here_text(char *buf, size_t len, const char *kind, int n, int t, const point *pts,
                      int np, int64_t run, const char *cache)
{
    if (!strcmp(kind, "kernel") || !strcmp(kind, "gbps")) {
        int off = snprintf(buf, len, "N = %d, %d thread%s, %s, run %lld, shapes", n, t,
                           t > 1 ? "s" : "", cache, (long long)run);
        for (int i = 0; i < np && off > 0 && (size_t)off < len; i++)
            off += snprintf(buf + off, len - (size_t)off, "%s%dx%d", i ? ", " : " ",
                            pts[i].ka->m, pts[i].ka->k);
    } else if (!strcmp(kind, "e2e") || !strcmp(kind, "e2eshare")) {
        int off = snprintf(buf, len, "%s, %d thread%s, whole models", np ? pts[0].ea->test : "",
                           t, t > 1 ? "s" : "");
        for (int i = 0; i < np && off > 0 && (size_t)off < len; i++)
            off += snprintf(buf + off, len - (size_t)off, "%s%s (run %lld)", i ? ", " : " ",
                            model_size(pts[i].ea->model), (long long)pts[i].ea->run);
    } else if (!strcmp(kind, "bpb") && np) {
        snprintf(buf, len, "%s, %d/%d layers, %d bytes of held-out text, run %lld",
                 pts[0].ea->model, pts[0].ea->layers, pts[0].ea->model_layers,
                 pts[0].ea->tokens, (long long)pts[0].ea->run);
    } else if (!strcmp(kind, "zeros") && np) {
        snprintf(buf, len, "%s, %d/%d layers, run %lld: %s", pts[0].ea->model,
                 pts[0].ea->layers, pts[0].ea->model_layers, (long long)pts[0].ea->run,
                 pts[0].ea->reason);
    } else if (!strcmp(kind, "lossless") && np) {
        /* every model the points come from, once each, in row order */
        int off = 0;
        buf[0] = 0;
        for (int i = 0; i < np && off >= 0 && (size_t)off < len; i++) {
            int seen = 0;
            for (int j = 0; j < i && !seen; j++)
                seen = !strcmp(pts[j].ea->model, pts[i].ea->model);
            if (!seen)
                off += snprintf(buf + off, len - (size_t)off,
                                "%s%s, %d/%d layers, %d prompts × %d tokens, run %lld",
                                off ? "; " : "", pts[i].ea->model, pts[i].ea->layers,
                                pts[i].ea->model_layers, pts[i].ea->prompts, pts[i].ea->tokens,
                                (long long)pts[i].ea->run);
        }
    } else
        buf[0] = 0;
}

static void judge(mp_claim *c, point *pts, int np, const char *stat, double lo, double hi,
                  int pct, const char *unit, const char *what, const mp_rep *r)
{
    int per_size = np > 0;
    for (int i = 0; i < np; i++)
        per_size &= pts[i].paper > 0;
    if (per_size) { /* each size against the paper's own figure there */
        int in = 0, off = 0;
        off += snprintf(c->ours, sizeof c->ours, "per size, ours / paper:");
        for (int i = 0; i < np; i++) {
            double d = pts[i].v / pts[i].paper;
            in += d >= 1 - MP_CLAIM_TOL && d <= 1 + MP_CLAIM_TOL;
            off += snprintf(c->ours + off, sizeof c->ours - (size_t)off, "%s %s %.2f / %.2f",
                            i ? "," : "", model_size(pts[i].ea->model), pts[i].v, pts[i].paper);
            if (off < 0 || (size_t)off >= sizeof c->ours)
                break;
        }
        snprintf(c->verdict, sizeof c->verdict, "%s",
                 in == np ? "yes" : in ? "partly" : "no");
        qsort(pts, (size_t)np, sizeof *pts, cmp_point);
        c->np = np, c->mn = pts[0].v, c->mx = pts[np - 1].v, c->stat = pts[np / 2].v;
        c->stat_point = np / 2;
        return;
    }
    qsort(pts, (size_t)np, sizeof *pts, cmp_point);
    double mn = pts[0].v, mx = pts[np - 1].v;
    int at = !strcmp(stat, "max") ? np - 1 : !strcmp(stat, "min") ? 0 : (np - 1) / 2;
    double v = !strcmp(stat, "max") ? mx : !strcmp(stat, "min") ? mn
               : np % 2 ? pts[np / 2].v : (pts[np / 2 - 1].v + pts[np / 2].v) / 2;
    double sc = pct ? 100 : 1;
    if (np == 1)
        snprintf(c->ours, sizeof c->ours, "%.2f%s", v * sc, unit);
    else
        snprintf(c->ours, sizeof c->ours, "%s %.2f%s (%.2f–%.2f, %d %s)", stat, v * sc, unit,
                 mn * sc, mx * sc, np, what);
    double wlo = lo * (1 - MP_CLAIM_TOL), whi = isinf(hi) ? hi : hi * (1 + MP_CLAIM_TOL);
    snprintf(c->verdict, sizeof c->verdict, "%s",
             v >= wlo && v <= whi ? "yes" : mx >= wlo && mn <= whi ? "partly" : "no");
    c->np = np, c->mn = mn, c->mx = mx, c->stat = v, c->stat_point = at;
    (void)r;
}

/* One number of a claim row, checked: NULL when s is a whole integer in
 * [lo, hi] (kind 'i') or a finite number ("inf" allowed when inf, kind 'd'),
 * else the reason, naming the file, the line, the field and the value. */
static int bad_number(const char *path, int lineno, const char *field, const char *s, int kind,
                      long lo, long hi, int inf, char *err, size_t len)
{
    mp_err e;
    long lv;
    double dv;
    if (kind == 'i' ? !mp_parse_long(s, lo, hi, &lv)
                    : (inf && !strcmp(s, "inf")) ||
                          !mp_parse_double(s, field, -1e300, 1e300, &dv, &e))
        return 0;
    if (kind == 'i')
        snprintf(err, len, "claims file %s, line %d, %s: '%s' is not an integer in [%ld, %ld]",
                 path, lineno, field, s, lo, hi);
    else
        snprintf(err, len, "claims file %s, line %d, %s: '%s' is not a number%s", path, lineno,
                 field, s, inf ? " (or inf)" : "");
    return 1;
}

int mp_rep_claims_check(const char *path, char *err, size_t len)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        int no = errno;
        snprintf(err, len, "claims file %s: cannot read it (%s)", path, strerror(no));
        return no == ENOENT ? MP_EUSAGE : MP_EIO;
    }
    char line[4096];
    int lineno = 0, rc = 0;
    while (!rc && fgets(line, sizeof line, in)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n' || !strcmp(line, "\r\n"))
            continue;
        int tabs = 0; /* split stops at MAXF fields: count them first */
        for (const char *q = line; *q; q++)
            tabs += *q == '\t';
        char *f[MAXF];
        split(line, f);
        if (tabs + 1 != MAXF) {
            snprintf(err, len, "claims file %s, line %d: %d fields, not %d", path, lineno,
                     tabs + 1, MAXF);
            rc = MP_EUSAGE;
            break;
        }
        /* the metric's words: kind, then per kind which are integers */
        char w[8][128] = {{0}};
        int nw = sscanf(f[6], "%127s %127s %127s %127s %127s %127s", w[0], w[1], w[2], w[3],
                        w[4], w[5]);
        static const struct {
            const char *kind;
            int words;        /* positional words after the kind */
            int n_at, t_at;   /* the word holding N, T (0: none) */
        } kinds[] = {{"kernel", 4, 3, 4}, {"gbps", 4, 3, 4}, {"e2e", 4, 0, 4},
                     {"e2eshare", 3, 0, 3}, {"lossless", 1, 0, 0}, {"bpb", 2, 0, 0},
                     {"zeros", 0, 0, 0}, {"none", 0, 0, 0}};
        int k = -1;
        for (int i = 0; i < (int)(sizeof kinds / sizeof kinds[0]) && k < 0; i++)
            if (nw > 0 && !strcmp(w[0], kinds[i].kind))
                k = i;
        rc = MP_EUSAGE;
        if (k < 0)
            snprintf(err, len, "claims file %s, line %d, metric: unknown metric '%s' (kernel, "
                     "gbps, e2e, e2eshare, lossless, bpb, zeros or none)", path, lineno,
                     nw > 0 ? w[0] : "");
        else if (nw < 1 + kinds[k].words || (nw > 1 + kinds[k].words &&
                                             !strchr(w[1 + kinds[k].words], '=')))
            snprintf(err, len, "claims file %s, line %d, metric: '%s' wants %d words after "
                     "'%s'", path, lineno, f[6], kinds[k].words, kinds[k].kind);
        else if (!(kinds[k].n_at && bad_number(path, lineno, "metric's N", w[kinds[k].n_at],
                                               'i', 1, 65536, 0, err, len)) &&
                 !(kinds[k].t_at && bad_number(path, lineno, "metric's T", w[kinds[k].t_at],
                                               'i', 0, 1024, 0, err, len)) &&
                 !(strcmp(kinds[k].kind, "none") &&
                   (bad_number(path, lineno, "lo", f[8], 'd', 0, 0, 0, err, len) ||
                    bad_number(path, lineno, "hi", f[9], 'd', 0, 0, 1, err, len))))
            rc = 0;
        /* paper=SIZE:X,...: every X a number */
        const char *p = rc ? NULL : strstr(f[6], " paper=");
        for (p = p ? p + 7 : NULL; p && *p && *p != ' ' && !rc;) {
            p += strcspn(p, ":, ");
            if (*p != ':')
                break;
            char num[64];
            size_t l = strcspn(p + 1, ", ");
            snprintf(num, sizeof num, "%.*s", (int)(l < sizeof num ? l : sizeof num - 1), p + 1);
            if (bad_number(path, lineno, "metric's paper=", num, 'd', 0, 0, 0, err, len))
                rc = MP_EUSAGE;
            p += 1 + l;
            p += *p == ',';
        }
    }
    if (!rc && ferror(in)) {
        snprintf(err, len, "claims file %s: read error (%s)", path, strerror(errno));
        rc = MP_EIO;
    }
    fclose(in);
    return rc;
}

int mp_rep_claims_eval(const mp_rep *r, const mp_rep_e2e *e, int ne, const char *claims_path,
                       mp_claim *out, int max, char *err, size_t errlen)
{
    FILE *in = fopen(claims_path, "r");
    if (!in) {
        snprintf(err, errlen, "cannot read the claims file %s", claims_path);
        return -1;
    }
    char line[4096];
    int lineno = 0, nc = 0;
    while (fgets(line, sizeof line, in) && nc < max) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        char *f[MAXF];
        mp_claim *c = &out[nc++];
        memset(c, 0, sizeof *c);
        int nf = split(line, f);
        if (nf < MAXF) {
            snprintf(c->id, sizeof c->id, "L%d", lineno);
            snprintf(c->claim, sizeof c->claim, "(line %d of %s has %d fields, not %d)",
                     lineno, claims_path, nf, MAXF);
            snprintf(c->verdict, sizeof c->verdict, "–");
            continue;
        }
        snprintf(c->id, sizeof c->id, "%s", f[0]);
        snprintf(c->seed, sizeof c->seed, "%s %s", f[1], f[2]);
        snprintf(c->claim, sizeof c->claim, "%s", f[3]);
        snprintf(c->paper, sizeof c->paper, "%s%s%s%s", f[4], *f[5] ? " (" : "", f[5],
                 *f[5] ? ")" : "");
        snprintf(c->metric, sizeof c->metric, "%s", f[6]);
        snprintf(c->why, sizeof c->why, "%s", f[11]);
        const char *metric = f[6], *stat = f[7], *paper_baseline = f[10];
        double lo = parse_bound(f[8]), hi = parse_bound(f[9]);
        char kind[16] = "", a[128] = "", b[64] = "", x3[64] = "";
        int t = 0;
        sscanf(metric, "%15s %127s %63s %15s %d", kind, a, b, x3, &t);
        opts o;
        parse_opts(metric, &o);
        snprintf(c->verdict, sizeof c->verdict, "–");
        if (!strcmp(kind, "none")) {
            snprintf(c->ours, sizeof c->ours, "not measured here");
            continue;
        }
        if (!strcmp(kind, "e2eshare")) /* e2eshare A TEST T: shift the words */
            t = atoi(x3), snprintf(x3, sizeof x3, "%s", b), b[0] = 0;
        c->judged = baseline_label(c->baseline, sizeof c->baseline, kind, b, paper_baseline);
        if (!c->judged) {
            snprintf(c->ours, sizeof c->ours, "not judged");
            continue;
        }
        point pts[MAXP];
        int np = 0, n = 0;
        int64_t run = 0;
        const char *unit = "×", *what = "shapes";
        int pct = 0;
        if (!strcmp(kind, "kernel") || !strcmp(kind, "gbps")) {
            n = atoi(x3);
            np = kernel_points(r, a, b, n, t, kind[0] == 'g', pts, &run);
        } else if (!strcmp(kind, "e2e")) {
            np = e2e_points(e, ne, a, b, x3, t, &o, pts, &t);
            what = "models";
        } else if (!strcmp(kind, "e2eshare")) {
            np = e2e_points(e, ne, a, NULL, x3, t, &o, pts, &t);
            unit = "%", pct = 1, what = "models";
        } else if (!strcmp(kind, "lossless")) {
            np = lossless_points(e, ne, a, pts);
            unit = "%", pct = 1, what = "rows";
        } else if (!strcmp(kind, "bpb")) {
            np = text_points(e, ne, a, b, pts);
            unit = "", what = "models";
        } else if (!strcmp(kind, "zeros")) {
            np = text_points(e, ne, NULL, NULL, pts);
            unit = "%", pct = 1, what = "models";
        } else {
            snprintf(c->ours, sizeof c->ours, "unknown metric `%s`", metric);
            c->judged = 0;
            continue;
        }
        if (!np) {
            snprintf(c->ours, sizeof c->ours, "not measured");
            snprintf(c->backing, sizeof c->backing,
                     "no stored rows for `%s`: `scripts/report-data.sh` measures them", metric);
            c->judged = 0;
            continue;
        }
        judge(c, pts, np, stat, lo, hi, pct, unit, what, r);
        here_text(c->here, sizeof c->here, kind, n, t, pts, np, run, r->cache);
        if (!strcmp(kind, "bpb"))
            snprintf(c->backing, sizeof c->backing, "%s %.6f bits per byte, %s %.6f (run %lld)",
                     pts[c->stat_point].ea->variant, pts[c->stat_point].ea->share,
                     pts[c->stat_point].eb->variant, pts[c->stat_point].eb->share,
                     (long long)pts[c->stat_point].ea->run);
        else if (strcmp(kind, "lossless") && strcmp(kind, "zeros"))
            backing(c->backing, sizeof c->backing, r, &pts[c->stat_point]);
    }
    fclose(in);
    return nc;
}
