/* report-plot.c - the plots of `mpbench plot KIND` (cli/cli-plot.c): the data of one plot from the store into
 * OUTDIR/KIND.dat, then gnuplot (scripts/KIND.gp) draws OUTDIR/KIND.png and
 * OUTDIR/KIND.svg.
 *
 * Kinds: roofline (GOPS against arithmetic intensity with the probe's roofs),
 * gbps (GEMV GB/s per shape and variant, seed 003 Fig. 5-7), threads (scaling),
 * prompt (GOPS against N, seed 001 Fig. 12), tuner (a tune run's landscape),
 * all.  The scripts take their inputs as gnuplot variables (-e "datafile=...;
 * outpng=...; ..."), so they can be rerun by hand on the .dat files.  Everything
 * is written under temporary names and renamed at the end: a plot without data
 * or a failing gnuplot leaves no file behind (exit 1). */
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


/* Names the files of one plot and opens its temporary data file; 1 after
 * saying so if it cannot. */
int mp_plot_job_begin(plot_job *j, const char *outdir, const char *kind)
{
    memset(j, 0, sizeof *j);
    j->kind = kind;
    snprintf(j->dat, sizeof j->dat, "%s/%s.dat", outdir, kind);
    snprintf(j->png, sizeof j->png, "%s/%s.png", outdir, kind);
    snprintf(j->svg, sizeof j->svg, "%s/%s.svg", outdir, kind);
    snprintf(j->tdat, sizeof j->tdat, "%s/.%s.dat.tmp%d", outdir, kind, (int)getpid());
    snprintf(j->tpng, sizeof j->tpng, "%s/.%s.png.tmp%d", outdir, kind, (int)getpid());
    snprintf(j->tsvg, sizeof j->tsvg, "%s/.%s.svg.tmp%d", outdir, kind, (int)getpid());
    j->f = fopen(j->tdat, "w");
    return j->f ? 0 : mp_die(MP_EIO, "plot %s: cannot write in %s (%s)", kind, outdir,
                             strerror(errno));
}

/* Removes every temporary file of the plot (nothing final is ever touched). */
void mp_plot_job_abort(plot_job *j)
{
    if (j->f)
        fclose(j->f);
    j->f = NULL;
    unlink(j->tdat);
    unlink(j->tpng);
    unlink(j->tsvg);
}

/* Appends "name=value; " to the gnuplot variables. */
void mp_plot_addvar(plot_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mp_plot_addvar(plot_job *j, const char *fmt, ...)
{
    size_t u = strlen(j->vars);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->vars + u, sizeof j->vars - u, fmt, ap);
    va_end(ap);
    u = strlen(j->vars);
    if (u + 2 < sizeof j->vars)
        strcat(j->vars, "; ");
}

/* s as a gnuplot string literal in quotes q, cut to fit len: in '...' a quote
 * is doubled; in "..." \ and " are escaped and a newline becomes \n (a line
 * break in titles). */
static void gp_literal(char *dst, size_t len, const char *s, char q)
{
    size_t u = 0, reserve = q == '"' ? 4 : 3;
    if (len < 3)
        return;
    dst[u++] = q;
    for (; *s && u + reserve < len; s++) {
        if (q == '"' && *s == '\n') {
            dst[u++] = '\\';
            dst[u++] = 'n';
            continue;
        }
        if (*s == q)
            dst[u++] = q == '"' ? '\\' : q;
        else if (q == '"' && *s == '\\')
            dst[u++] = '\\';
        dst[u++] = *s;
    }
    dst[u++] = q;
    dst[u] = 0;
}

void mp_plot_gp_quote(char *dst, size_t len, const char *s)
{
    gp_literal(dst, len, s, '\'');
}

void mp_plot_gp_dquote(char *dst, size_t len, const char *s)
{
    gp_literal(dst, len, s, '"');
}

static int warm_titles; /* --cache warm: every title says so */

/* Sets gnuplot's plottitle to title (at most 1 KiB), quoted. */
void mp_plot_title(plot_job *j, const char *title)
{
    char q[2 * 1024 + 8];
    mp_plot_gp_dquote(q, sizeof q, title);
    mp_plot_addvar(j, "plottitle=%s", q);
}

/* Runs gnuplot on scripts/KIND.gp; renames the three files into place. 0 ok. */
int mp_plot_job_finish(plot_job *j)
{
    errno = 0; /* the reason of a failed write is the flush's (ENOSPC, EFBIG) */
    int werr = fflush(j->f) != 0 || ferror(j->f) ? (errno ? errno : EIO) : 0;
    if (fclose(j->f) != 0 && !werr)
        werr = errno;
    if (werr) {
        j->f = NULL;
        mp_plot_job_abort(j);
        return mp_die(MP_EIO, "plot %s: cannot write %s: %s", j->kind, j->tdat, strerror(werr));
    }
    j->f = NULL;
    char script[4096], qd[4300], qp[4300], qs[4300], all[24576];
    snprintf(script, sizeof script, "%s/%s.gp", mp_rep_scripts_dir(), j->kind);
    struct stat sb;
    if (stat(script, &sb) != 0) {
        mp_plot_job_abort(j);
        return mp_die(1, "plot %s: gnuplot script %s not found (set MPBENCH_SCRIPTS to the "
                         "scripts/ folder)", j->kind, script);
    }
    if (warm_titles)
        mp_plot_addvar(j, "plottitle=plottitle.\"\\n[warm cache: weights stay cached between calls]\"");
    mp_plot_gp_quote(qd, sizeof qd, j->tdat);
    mp_plot_gp_quote(qp, sizeof qp, j->tpng);
    mp_plot_gp_quote(qs, sizeof qs, j->tsvg);
    snprintf(all, sizeof all, "datafile=%s; outpng=%s; outsvg=%s; %s", qd, qp, qs, j->vars);
    pid_t pid = fork();
    if (pid < 0) {
        mp_plot_job_abort(j);
        return mp_die(1, "plot %s: fork: %s", j->kind, strerror(errno));
    }
    if (pid == 0) {
        execlp("gnuplot", "gnuplot", "-e", all, script, (char *)NULL);
        fprintf(stderr, "mpbench: plot: cannot run gnuplot (%s); install gnuplot-nox "
                        "(make deps)\n", strerror(errno));
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || stat(j->tpng, &sb) != 0 || sb.st_size == 0 ||
        stat(j->tsvg, &sb) != 0 || sb.st_size == 0) {
        mp_plot_job_abort(j);
        return mp_die(1, "plot %s: gnuplot failed on %s (variables: %s)", j->kind, script, all);
    }
    if (rename(j->tdat, j->dat) || rename(j->tpng, j->png) || rename(j->tsvg, j->svg)) {
        int err = errno;
        mp_plot_job_abort(j);
        return mp_die(1, "plot %s: cannot rename into %s (%s)", j->kind, j->png, strerror(err));
    }
    fprintf(stderr, "mpbench: plot %s: wrote %s, %s and %s\n", j->kind, j->png, j->svg, j->dat);
    return 0;
}

/* Abandons the plot: nothing written, exit code 1 with `what`. */
int mp_plot_no_data(plot_job *j, const char *what)
{
    mp_plot_job_abort(j);
    return mp_die(1, "plot %s: no data: %s", j->kind, what);
}

/* ---- choosing what to plot ------------------------------------------------------- */

typedef struct sel {
    int n, threads, m, k; /* -1 any */
} sel;

/* mp_rep_filter: usable (ok or unstable) rows matching a sel. */
static int f_sel(const mp_rep_row *x, const void *ctx)
{
    const sel *s = ctx;
    return (s->n < 0 || x->n == s->n) && (s->threads < 0 || x->threads == s->threads) &&
           (s->m < 0 || (x->m == s->m && x->k == s->k)) &&
           (!strcmp(x->status, "ok") || !strcmp(x->status, "unstable"));
}

/* Cold rows passing s. */
static int count_rows(const mp_rep *r, const sel *s)
{
    int c = 0;
    for (int i = 0; i < r->nrows; i++)
        c += !strcmp(r->rows[i].cache, r->cache) && f_sel(&r->rows[i], s);
    return c;
}

/* The thread count with the most usable rows among those passing s (or forced). */
static int pick_threads(const mp_rep *r, sel s, int forced)
{
    if (forced)
        return forced;
    int tv[MAXN], best = 0, bc = -1;
    int nt = mp_rep_distinct_int(r, MP_REP_THREADS, f_sel, &s, tv, MAXN);
    for (int i = 0; i < nt; i++) {
        sel t = s;
        t.threads = tv[i];
        int c = count_rows(r, &t);
        if (c > bc || (c == bc && tv[i] > best))
            bc = c, best = tv[i];
    }
    return best;
}

/* A row with a number to plot (ok or unstable). */
static int usable(const mp_rep_row *x)
{
    return x && (!strcmp(x->status, "ok") || !strcmp(x->status, "unstable"));
}

/* The distinct methods of the usable rows passing s, in order ("?" for a row
 * without one), as pointers into r. */
static int methods_of(const mp_rep *r, const sel *s, const char **out, int max)
{
    int n = 0;
    const mp_rep_row *x;
    for (int i = 0; (x = mp_rep_next(r, &i, f_sel, s));)
        mp_rep_strs_add(out, &n, max, x->method[0] ? x->method : "?");
    return n;
}

/* More than MAXLINES variants make an unreadable legend: keep, per method, the
 * variant with the highest mean GOPS over the rows passing s.  Returns 1 when
 * it reduced the list. */
enum { MAXLINES = 12 };
static int best_per_method(const mp_rep *r, const sel *s, const char **vars, int *nv)
{
    if (*nv <= MAXLINES)
        return 0;
    const char *keep[MAXV];
    double score[MAXV];
    const char *meth[MAXV];
    int nk = 0;
    for (int v = 0; v < *nv; v++) {
        double sum = 0;
        int cnt = 0;
        const char *method = "";
        for (int i = 0; i < r->nrows; i++) {
            const mp_rep_row *x = &r->rows[i];
            if (!strcmp(x->variant, vars[v]) && !strcmp(x->cache, r->cache) && f_sel(x, s)) {
                sum += x->gops, cnt++;
                method = x->method;
            }
        }
        double sc = cnt ? sum / cnt : 0;
        int was = nk, j = mp_rep_strs_add(meth, &nk, MAXV, method);
        if (nk > was) {
            keep[j] = vars[v];
            score[j] = sc;
        } else if (sc > score[j]) {
            keep[j] = vars[v];
            score[j] = sc;
        }
    }
    for (int j = 0; j < nk; j++)
        vars[j] = keep[j];
    *nv = nk;
    return 1;
}

/* The lines of a plot over col (N or threads) at q: the variants (the fastest
 * of each method when best_per_method reduces them, its answer) and col's
 * values. */
static int series(mp_rep *r, const sel *q, int col, const char **vars, int *nv, int *vals,
                  int *nvals)
{
    *nv = mp_rep_distinct_variants(r, f_sel, q, vars, MAXV);
    *nvals = mp_rep_distinct_int(r, col, f_sel, q, vals, MAXN);
    return best_per_method(r, q, vars, nv);
}

/* The data blocks of a plot over col (N or threads) at q: one per variant,
 * a line "value first second" for each of vals[0..nvals) at which it has a
 * usable row (over threads GB/s then GOPS, over N GOPS then GB/s), and the
 * variants' names, space-separated, appended to titles. */
static void series_blocks(mp_rep *r, plot_job *j, const sel *q, int col, const char **vars,
                          int nv, const int *vals, int nvals, char *titles, size_t tlen)
{
    int by_n = col == MP_REP_N;
    for (int v = 0; v < nv; v++) {
        fprintf(j->f, "# %s: %s\n", vars[v], by_n ? "N, GOPS, GB/s" : "threads, GB/s, GOPS");
        for (int i = 0; i < nvals; i++) {
            const mp_rep_row *x = mp_rep_pick(r, vars[v], q->m, q->k, by_n ? vals[i] : q->n,
                                              by_n ? q->threads : vals[i]);
            if (usable(x))
                fprintf(j->f, "%d %.4g %.4g\n", vals[i], by_n ? x->gops : x->gbps,
                        by_n ? x->gbps : x->gops);
        }
        fputs("\n\n", j->f);
        size_t u = strlen(titles);
        snprintf(titles + u, tlen - u, "%s%s", u ? " " : "", vars[v]);
    }
}

/* ---- the plots -------------------------------------------------------------------- */

/* Each plot_KIND: writes KIND.dat (j, opened by mp_plot_draw) and the gnuplot
 * variables, then job_finish; no_data when the store has nothing to draw. */
static int plot_roofline(mp_rep *r, const plot_opts *o, plot_job *j)
{
    sel s = {o->n ? o->n : -1, -1, -1, -1};
    int t = pick_threads(r, s, o->threads);
    s.threads = t;
    const char *meth[64];
    int nm = methods_of(r, &s, meth, 64);
    int bwt = 0, dott = 0;
    double bw = mp_rep_probe(r, "read_DRAM", t, &bwt);
    double dot = mp_rep_probe(r, "int8_dot_", 1, &dott);
    if (!nm)
        return mp_plot_no_data(j, "no ok kernel results on this machine (run 'mpbench sweep --quick')");
    if (!(bw > 0) && !(dot > 0))
        return mp_plot_no_data(j, "no probe of this machine for the roofs (run 'mpbench probe')");
    double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
    char titles[4096] = "", ceils[2048] = "";
    for (int mi = 0; mi < nm; mi++) {
        fprintf(j->f, "# method %s: arithmetic intensity (ops/byte of packed weights), GOPS, "
                     "variant, shape, N\n", meth[mi]);
        /* issue 16/37: the method's compute roof, its best variant's measured
         * ceiling (probe "ceiling_<variant>", GOPS) at the plotted N (without
         * --n: the largest N measured) and thread count; an older probe's
         * one-core ceiling times the threads */
        double ceil = 0;
        for (int i = 0; i < r->nrows; i++)
            if (!strcmp(r->rows[i].method, meth[mi])) {
                double c = mp_rep_ceiling(r, r->rows[i].variant, o->n ? o->n : 1 << 30, t,
                                          NULL, NULL);
                if (!(c > 0))
                    c = mp_rep_ceiling_legacy(r, r->rows[i].variant) * t;
                ceil = fmax(ceil, c);
            }
        size_t cu = strlen(ceils);
        snprintf(ceils + cu, sizeof ceils - cu, "%s%.6g", cu ? " " : "", ceil);
        if (ceil > 0)
            ymax = fmax(ymax, ceil);
        for (int i = 0; i < r->nrows; i++) {
            const mp_rep_row *x = &r->rows[i];
            if (strcmp(x->cache, r->cache) || !f_sel(x, &s) || strcmp(x->method, meth[mi]) ||
                !x->is_default || x->packed_bytes <= 0 || !(x->gops > 0))
                continue;
            double ai = 2.0 * x->m * (double)x->k * x->n / (double)x->packed_bytes;
            fprintf(j->f, "%.6g %.6g %s %dx%d %d\n", ai, x->gops, x->variant, x->m, x->k, x->n);
            xmin = fmin(xmin, ai), xmax = fmax(xmax, ai);
            ymin = fmin(ymin, x->gops), ymax = fmax(ymax, x->gops);
        }
        fputs("\n\n", j->f);
        size_t u = strlen(titles);
        snprintf(titles + u, sizeof titles - u, "%s%s", u ? " " : "", meth[mi]);
    }
    if (!(xmax > 0))
        return mp_plot_no_data(j, "no kernel results with packed sizes");
    double peak = dot > 0 ? dot * t : 0;
    if (peak > 0)
        ymax = fmax(ymax, peak);
    char qt[4200], title[1024];
    mp_plot_gp_quote(qt, sizeof qt, titles);
    mp_plot_addvar(j, "nblocks=%d", nm);
    mp_plot_addvar(j, "titles=%s", qt);
    mp_plot_addvar(j, "bw=%.6g", bw);
    mp_plot_addvar(j, "peak=%.6g", peak);
    mp_plot_gp_quote(qt, sizeof qt, ceils);
    mp_plot_addvar(j, "ceils=%s", qt);
    mp_plot_addvar(j, "xmin=%.6g", xmin / 4);
    mp_plot_addvar(j, "xmax=%.6g", xmax * 4);
    mp_plot_addvar(j, "ymin=%.6g", ymin / 4);
    mp_plot_addvar(j, "ymax=%.6g", ymax * 4);
    char roofs[256] = "", dots[128] = "";
    if (bw > 0)
        snprintf(roofs, sizeof roofs, "read_DRAM %.1f GB/s (%d thread%s)", bw, bwt,
                 bwt > 1 ? "s" : "");
    if (dot > 0)
        snprintf(dots, sizeof dots, "int8 dot %.1f GOPS per core x %d", dot, t);
    snprintf(title, sizeof title, "Roofline, %d thread%s: %s (%s)\nroofs from the probe: %s%s%s; "
             "dotted: each method's compute ceiling",
             t, t > 1 ? "s" : "", r->mach.cpu_model, r->mach.fingerprint, roofs,
             roofs[0] && dots[0] ? ", " : "", dots);
    mp_plot_title(j, title);
    return mp_plot_job_finish(j);
}

/* A table shape x variant of GB/s at N (default 1), for clustered bars. */
static int plot_gbps(mp_rep *r, const plot_opts *o, plot_job *j)
{
    int n = o->n ? o->n : 1;
    sel s = {n, -1, -1, -1};
    int t = pick_threads(r, s, o->threads);
    s.threads = t;
    const char *vars[MAXV];
    int shapes[MAXS][2];
    int nv = mp_rep_distinct_variants(r, f_sel, &s, vars, MAXV);
    int ns = mp_rep_distinct_shapes(r, f_sel, &s, shapes, MAXS);
    int reduced = best_per_method(r, &s, vars, &nv);
    if (!nv || !ns) {
        char why[128];
        snprintf(why, sizeof why, "no ok results at N = %d (run 'mpbench run --variant ... "
                                  "--model llama3-8b-1.58 --n %d')", n, n);
        return mp_plot_no_data(j, why);
    }
    fputs("shape", j->f);
    for (int v = 0; v < nv; v++)
        fprintf(j->f, " %s", vars[v]);
    fputc('\n', j->f);
    for (int si = 0; si < ns; si++) {
        fprintf(j->f, "%dx%d", shapes[si][0], shapes[si][1]);
        for (int v = 0; v < nv; v++) {
            const mp_rep_row *x = mp_rep_pick(r, vars[v], shapes[si][0], shapes[si][1], n, t);
            if (usable(x))
                fprintf(j->f, " %.4g", x->gbps);
            else
                fputs(" ?", j->f);
        }
        fputc('\n', j->f);
    }
    int bwt = 0;
    double bw = mp_rep_probe(r, "read_DRAM", t, &bwt);
    char title[512];
    mp_plot_addvar(j, "ncols=%d", nv + 1);
    mp_plot_addvar(j, "bw=%.6g", bw);
    snprintf(title, sizeof title, "GEMV bandwidth (N = %d), %d thread%s%s: %s (%s)%s", n, t,
             t > 1 ? "s" : "", reduced ? ", fastest variant per method" : "", r->mach.cpu_model,
             r->mach.fingerprint, bw > 0 ? ", dashed: read_DRAM probe" : "");
    mp_plot_title(j, title);
    return mp_plot_job_finish(j);
}

static int plot_threads(mp_rep *r, const plot_opts *o, plot_job *j)
{
    int n = o->n ? o->n : 1;
    sel s = {n, -1, -1, -1};
    /* the shape with the most thread counts (ties: the larger problem) */
    int shapes[MAXS][2], best = -1, bt = 0;
    int ns = mp_rep_distinct_shapes(r, f_sel, &s, shapes, MAXS);
    for (int i = 0; i < ns; i++) {
        sel q = {n, -1, shapes[i][0], shapes[i][1]};
        int tv[MAXN];
        int nt = mp_rep_distinct_int(r, MP_REP_THREADS, f_sel, &q, tv, MAXN);
        if (nt > bt || (nt == bt && best >= 0 &&
                        (double)shapes[i][0] * shapes[i][1] >
                            (double)shapes[best][0] * shapes[best][1]))
            bt = nt, best = i;
    }
    if (best < 0 || bt < 2) {
        char why[160];
        snprintf(why, sizeof why, "no shape measured at N = %d with more than one thread count "
                                  "(run 'mpbench sweep ... --threads 1,2 --n %d')", n, n);
        return mp_plot_no_data(j, why);
    }
    sel q = {n, -1, shapes[best][0], shapes[best][1]};
    const char *vars[MAXV];
    int tv[MAXN], nv, nt;
    int reduced = series(r, &q, MP_REP_THREADS, vars, &nv, tv, &nt);
    char titles[8192] = "";
    series_blocks(r, j, &q, MP_REP_THREADS, vars, nv, tv, nt, titles, sizeof titles);
    /* the probe's read bandwidth per thread count, as the last block */
    int probe = 0;
    fputs("# read_DRAM probe: threads, GB/s\n", j->f);
    for (int t = 0; t < nt; t++) {
        int got = 0;
        double bw = mp_rep_probe(r, "read_DRAM", tv[t], &got);
        if (bw > 0 && got == tv[t]) {
            fprintf(j->f, "%d %.4g 0\n", tv[t], bw);
            probe = 1;
        }
    }
    fputs("\n\n", j->f);
    char qt[8400], title[512];
    mp_plot_gp_quote(qt, sizeof qt, titles);
    mp_plot_addvar(j, "nblocks=%d", nv);
    mp_plot_addvar(j, "titles=%s", qt);
    mp_plot_addvar(j, "probe=%d", probe);
    mp_plot_addvar(j, "ycol=%d", n == 1 ? 2 : 3);
    mp_plot_addvar(j, "ylab='%s'", n == 1 ? "GB/s of packed weights" : "GOPS");
    mp_plot_addvar(j, "tmax=%d", tv[nt - 1]);
    snprintf(title, sizeof title, "Thread scaling, %dx%d, N = %d%s: %s (%s)", q.m, q.k, n,
             reduced ? ", fastest variant per method" : "", r->mach.cpu_model,
             r->mach.fingerprint);
    mp_plot_title(j, title);
    return mp_plot_job_finish(j);
}

static int plot_prompt(mp_rep *r, const plot_opts *o, plot_job *j)
{
    sel s = {-1, o->threads ? o->threads : -1, -1, -1};
    int shapes[MAXS][2], tv[MAXN];
    int ns = mp_rep_distinct_shapes(r, f_sel, &s, shapes, MAXS);
    int nt = mp_rep_distinct_int(r, MP_REP_THREADS, f_sel, &s, tv, MAXN);
    int bs = -1, btv = 0, bn = 0;
    for (int i = 0; i < ns; i++)
        for (int t = 0; t < nt; t++) {
            sel q = {-1, tv[t], shapes[i][0], shapes[i][1]};
            int nv[MAXN];
            int nn = mp_rep_distinct_int(r, MP_REP_N, f_sel, &q, nv, MAXN);
            if (nn > bn)
                bn = nn, bs = i, btv = tv[t];
        }
    if (bn < 2)
        return mp_plot_no_data(j, "no shape measured at more than one N (run 'mpbench sweep --variant "
                           "... --shape MxK --n 1,8,32,128')");
    sel q = {-1, btv, shapes[bs][0], shapes[bs][1]};
    const char *vars[MAXV];
    int nvals[MAXN], nv, nn;
    int reduced = series(r, &q, MP_REP_N, vars, &nv, nvals, &nn);
    char titles[8192] = "";
    series_blocks(r, j, &q, MP_REP_N, vars, nv, nvals, nn, titles, sizeof titles);
    char qt[8400], title[512];
    mp_plot_gp_quote(qt, sizeof qt, titles);
    mp_plot_addvar(j, "nblocks=%d", nv);
    mp_plot_addvar(j, "titles=%s", qt);
    mp_plot_addvar(j, "nmin=%d", nvals[0]);
    mp_plot_addvar(j, "nmax=%d", nvals[nn - 1]);
    snprintf(title, sizeof title, "Throughput against N (tokens per call), %dx%d, %d thread%s%s: "
                                  "%s (%s)",
             q.m, q.k, btv, btv > 1 ? "s" : "", reduced ? ", fastest variant per method" : "",
             r->mach.cpu_model, r->mach.fingerprint);
    mp_plot_title(j, title);
    return mp_plot_job_finish(j);
}

static const struct {
    const char *name;
    int (*fn)(mp_rep *, const plot_opts *, plot_job *);
} kinds[] = {
    {"roofline", plot_roofline}, {"gbps", plot_gbps},   {"threads", plot_threads},
    {"prompt", plot_prompt},     {"tuner", mp_plot_tuner},
};
enum { NKINDS = sizeof kinds / sizeof kinds[0] };


int mp_plot_kind(const char *name)
{
    for (int i = 0; i < NKINDS; i++)
        if (!strcmp(name, kinds[i].name))
            return i;
    return -1;
}

int mp_plot_nkinds(void)
{
    return NKINDS;
}

int mp_plot_draw(mp_rep *r, const mp_plot_opts *o, int kind)
{
    warm_titles = r->cache && !strcmp(r->cache, "warm");
    plot_job j;
    if (mp_plot_job_begin(&j, o->outdir, kinds[kind].name))
        return 1;
    return kinds[kind].fn(r, o, &j);
}
