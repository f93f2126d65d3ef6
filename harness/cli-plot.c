/* cli-plot.c - `mpbench plot KIND`: the data of one plot from the store into
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
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mp_cli.h"
#include "cli/mp_options.h"
#include "mp_report.h"
#include "../variants/mp_registry.h"

enum { MAXV = 128, MAXS = 64, MAXN = 32, MAXP = 4096 };

typedef struct plot_opts {
    const char *outdir, *variant;
    int threads, n; /* 0: chosen from the data */
} plot_opts;

/* One plot in the making: the data file (temporary) and the gnuplot variables. */
typedef struct plot_job {
    const char *kind;
    char dat[4096], png[4096], svg[4096];     /* final names */
    char tdat[4200], tpng[4200], tsvg[4200];  /* temporary names */
    FILE *f;
    char vars[8192]; /* extra gnuplot assignments */
} plot_job;

/* Names the files of one plot and opens its temporary data file; -1 if it cannot. */
static int job_begin(plot_job *j, const char *outdir, const char *kind)
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
    return j->f ? 0 : -1;
}

/* Removes every temporary file of the plot (nothing final is ever touched). */
static void job_abort(plot_job *j)
{
    if (j->f)
        fclose(j->f);
    j->f = NULL;
    unlink(j->tdat);
    unlink(j->tpng);
    unlink(j->tsvg);
}

/* Appends "name=value; " to the gnuplot variables. */
static void addvar(plot_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addvar(plot_job *j, const char *fmt, ...)
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

/* gnuplot string literal: single quotes, '' for a quote. */
static void gp_quote(char *dst, size_t len, const char *s)
{
    size_t u = 0;
    if (len < 3)
        return;
    dst[u++] = '\'';
    for (; *s && u + 3 < len; s++) {
        if (*s == '\'')
            dst[u++] = '\'';
        dst[u++] = *s;
    }
    dst[u++] = '\'';
    dst[u] = 0;
}

static int warm_titles; /* --cache warm: every title says so */

/* gnuplot double-quoted string literal: \ and " escaped, a newline becomes \n
 * (a line break in titles). */
static void gp_dquote(char *dst, size_t len, const char *s)
{
    size_t u = 0;
    if (len < 3)
        return;
    dst[u++] = '"';
    for (; *s && u + 4 < len; s++) {
        if (*s == '\n') {
            dst[u++] = '\\';
            dst[u++] = 'n';
            continue;
        }
        if (*s == '\\' || *s == '"')
            dst[u++] = '\\';
        dst[u++] = *s;
    }
    dst[u++] = '"';
    dst[u] = 0;
}

/* Runs gnuplot on scripts/KIND.gp; renames the three files into place. 0 ok. */
static int job_finish(plot_job *j)
{
    int werr = ferror(j->f);
    if (fclose(j->f) != 0 || werr) {
        j->f = NULL;
        job_abort(j);
        return mp_die(1, "plot %s: cannot write %s", j->kind, j->tdat);
    }
    j->f = NULL;
    char script[4096], qd[4300], qp[4300], qs[4300], all[24576];
    snprintf(script, sizeof script, "%s/%s.gp", mp_rep_scripts_dir(), j->kind);
    struct stat sb;
    if (stat(script, &sb) != 0) {
        job_abort(j);
        return mp_die(1, "plot %s: gnuplot script %s not found (set MPBENCH_SCRIPTS to the "
                         "scripts/ folder)", j->kind, script);
    }
    if (warm_titles)
        addvar(j, "plottitle=plottitle.\"\\n[warm cache: weights stay cached between calls]\"");
    gp_quote(qd, sizeof qd, j->tdat);
    gp_quote(qp, sizeof qp, j->tpng);
    gp_quote(qs, sizeof qs, j->tsvg);
    snprintf(all, sizeof all, "datafile=%s; outpng=%s; outsvg=%s; %s", qd, qp, qs, j->vars);
    pid_t pid = fork();
    if (pid < 0) {
        job_abort(j);
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
        job_abort(j);
        return mp_die(1, "plot %s: gnuplot failed on %s (variables: %s)", j->kind, script, all);
    }
    if (rename(j->tdat, j->dat) || rename(j->tpng, j->png) || rename(j->tsvg, j->svg)) {
        int err = errno;
        job_abort(j);
        return mp_die(1, "plot %s: cannot rename into %s (%s)", j->kind, j->png, strerror(err));
    }
    fprintf(stderr, "mpbench: plot %s: wrote %s, %s and %s\n", j->kind, j->png, j->svg, j->dat);
    return 0;
}

/* Abandons the plot: nothing written, exit code 1 with `what`. */
static int no_data(plot_job *j, const char *what)
{
    job_abort(j);
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

/* Unique method list of the usable rows passing s, in order. */
static int methods_of(const mp_rep *r, const sel *s, char (*out)[32], int max)
{
    int n = 0;
    for (int i = 0; i < r->nrows; i++) {
        const mp_rep_row *x = &r->rows[i];
        if (strcmp(x->cache, r->cache) || !f_sel(x, s))
            continue;
        int j;
        for (j = 0; j < n && strcmp(out[j], x->method); j++)
            ;
        if (j == n && n < max)
            snprintf(out[n++], 32, "%s", x->method[0] ? x->method : "?");
    }
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
    char meth[MAXV][32];
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
        int j;
        for (j = 0; j < nk && strcmp(meth[j], method); j++)
            ;
        if (j == nk) {
            snprintf(meth[nk], sizeof meth[nk], "%s", method);
            keep[nk] = vars[v];
            score[nk++] = sc;
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

/* ---- the plots -------------------------------------------------------------------- */

/* Each plot_KIND: writes KIND.dat and the gnuplot variables, then job_finish;
 * no_data when the store has nothing to draw. */
static int plot_roofline(mp_rep *r, const plot_opts *o)
{
    plot_job j;
    if (job_begin(&j, o->outdir, "roofline"))
        return mp_die(1, "plot roofline: cannot write in %s (%s)", o->outdir, strerror(errno));
    sel s = {o->n ? o->n : -1, -1, -1, -1};
    int t = pick_threads(r, s, o->threads);
    s.threads = t;
    char meth[64][32];
    int nm = methods_of(r, &s, meth, 64);
    int bwt = 0, dott = 0;
    double bw = mp_rep_probe(r, "read_DRAM", t, &bwt);
    double dot = mp_rep_probe(r, "int8_dot_", 1, &dott);
    if (!nm)
        return no_data(&j, "no ok kernel results on this machine (run 'mpbench sweep --quick')");
    if (!(bw > 0) && !(dot > 0))
        return no_data(&j, "no probe of this machine for the roofs (run 'mpbench probe')");
    double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
    char titles[4096] = "", ceils[2048] = "";
    for (int mi = 0; mi < nm; mi++) {
        fprintf(j.f, "# method %s: arithmetic intensity (ops/byte of packed weights), GOPS, "
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
            fprintf(j.f, "%.6g %.6g %s %dx%d %d\n", ai, x->gops, x->variant, x->m, x->k, x->n);
            xmin = fmin(xmin, ai), xmax = fmax(xmax, ai);
            ymin = fmin(ymin, x->gops), ymax = fmax(ymax, x->gops);
        }
        fputs("\n\n", j.f);
        size_t u = strlen(titles);
        snprintf(titles + u, sizeof titles - u, "%s%s", u ? " " : "", meth[mi]);
    }
    if (!(xmax > 0))
        return no_data(&j, "no kernel results with packed sizes");
    double peak = dot > 0 ? dot * t : 0;
    if (peak > 0)
        ymax = fmax(ymax, peak);
    char qt[4200], title[1024];
    gp_quote(qt, sizeof qt, titles);
    addvar(&j, "nblocks=%d", nm);
    addvar(&j, "titles=%s", qt);
    addvar(&j, "bw=%.6g", bw);
    addvar(&j, "peak=%.6g", peak);
    gp_quote(qt, sizeof qt, ceils);
    addvar(&j, "ceils=%s", qt);
    addvar(&j, "xmin=%.6g", xmin / 4);
    addvar(&j, "xmax=%.6g", xmax * 4);
    addvar(&j, "ymin=%.6g", ymin / 4);
    addvar(&j, "ymax=%.6g", ymax * 4);
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
    gp_dquote(qt, sizeof qt, title);
    addvar(&j, "plottitle=%s", qt);
    return job_finish(&j);
}

/* A table shape x variant of GB/s at N (default 1), for clustered bars. */
static int plot_gbps(mp_rep *r, const plot_opts *o)
{
    plot_job j;
    if (job_begin(&j, o->outdir, "gbps"))
        return mp_die(1, "plot gbps: cannot write in %s (%s)", o->outdir, strerror(errno));
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
        return no_data(&j, why);
    }
    fputs("shape", j.f);
    for (int v = 0; v < nv; v++)
        fprintf(j.f, " %s", vars[v]);
    fputc('\n', j.f);
    for (int si = 0; si < ns; si++) {
        fprintf(j.f, "%dx%d", shapes[si][0], shapes[si][1]);
        for (int v = 0; v < nv; v++) {
            const mp_rep_row *x = mp_rep_pick(r, vars[v], shapes[si][0], shapes[si][1], n, t);
            if (usable(x))
                fprintf(j.f, " %.4g", x->gbps);
            else
                fputs(" ?", j.f);
        }
        fputc('\n', j.f);
    }
    int bwt = 0;
    double bw = mp_rep_probe(r, "read_DRAM", t, &bwt);
    char qt[1024], title[512];
    addvar(&j, "ncols=%d", nv + 1);
    addvar(&j, "bw=%.6g", bw);
    snprintf(title, sizeof title, "GEMV bandwidth (N = %d), %d thread%s%s: %s (%s)%s", n, t,
             t > 1 ? "s" : "", reduced ? ", fastest variant per method" : "", r->mach.cpu_model,
             r->mach.fingerprint, bw > 0 ? ", dashed: read_DRAM probe" : "");
    gp_dquote(qt, sizeof qt, title);
    addvar(&j, "plottitle=%s", qt);
    return job_finish(&j);
}

static int plot_threads(mp_rep *r, const plot_opts *o)
{
    plot_job j;
    if (job_begin(&j, o->outdir, "threads"))
        return mp_die(1, "plot threads: cannot write in %s (%s)", o->outdir, strerror(errno));
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
        return no_data(&j, why);
    }
    sel q = {n, -1, shapes[best][0], shapes[best][1]};
    const char *vars[MAXV];
    int tv[MAXN];
    int nv = mp_rep_distinct_variants(r, f_sel, &q, vars, MAXV);
    int nt = mp_rep_distinct_int(r, MP_REP_THREADS, f_sel, &q, tv, MAXN);
    int reduced = best_per_method(r, &q, vars, &nv);
    char titles[8192] = "";
    for (int v = 0; v < nv; v++) {
        fprintf(j.f, "# %s: threads, GB/s, GOPS\n", vars[v]);
        for (int t = 0; t < nt; t++) {
            const mp_rep_row *x = mp_rep_pick(r, vars[v], q.m, q.k, n, tv[t]);
            if (usable(x))
                fprintf(j.f, "%d %.4g %.4g\n", tv[t], x->gbps, x->gops);
        }
        fputs("\n\n", j.f);
        size_t u = strlen(titles);
        snprintf(titles + u, sizeof titles - u, "%s%s", u ? " " : "", vars[v]);
    }
    /* the probe's read bandwidth per thread count, as the last block */
    int probe = 0;
    fputs("# read_DRAM probe: threads, GB/s\n", j.f);
    for (int t = 0; t < nt; t++) {
        int got = 0;
        double bw = mp_rep_probe(r, "read_DRAM", tv[t], &got);
        if (bw > 0 && got == tv[t]) {
            fprintf(j.f, "%d %.4g 0\n", tv[t], bw);
            probe = 1;
        }
    }
    fputs("\n\n", j.f);
    char qt[8400], title[512];
    gp_quote(qt, sizeof qt, titles);
    addvar(&j, "nblocks=%d", nv);
    addvar(&j, "titles=%s", qt);
    addvar(&j, "probe=%d", probe);
    addvar(&j, "ycol=%d", n == 1 ? 2 : 3);
    addvar(&j, "ylab='%s'", n == 1 ? "GB/s of packed weights" : "GOPS");
    addvar(&j, "tmax=%d", tv[nt - 1]);
    snprintf(title, sizeof title, "Thread scaling, %dx%d, N = %d%s: %s (%s)", q.m, q.k, n,
             reduced ? ", fastest variant per method" : "", r->mach.cpu_model,
             r->mach.fingerprint);
    gp_dquote(qt, sizeof qt, title);
    addvar(&j, "plottitle=%s", qt);
    return job_finish(&j);
}

static int plot_prompt(mp_rep *r, const plot_opts *o)
{
    plot_job j;
    if (job_begin(&j, o->outdir, "prompt"))
        return mp_die(1, "plot prompt: cannot write in %s (%s)", o->outdir, strerror(errno));
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
        return no_data(&j, "no shape measured at more than one N (run 'mpbench sweep --variant "
                           "... --shape MxK --n 1,8,32,128')");
    sel q = {-1, btv, shapes[bs][0], shapes[bs][1]};
    const char *vars[MAXV];
    int nvals[MAXN];
    int nv = mp_rep_distinct_variants(r, f_sel, &q, vars, MAXV);
    int nn = mp_rep_distinct_int(r, MP_REP_N, f_sel, &q, nvals, MAXN);
    int reduced = best_per_method(r, &q, vars, &nv);
    char titles[8192] = "";
    for (int v = 0; v < nv; v++) {
        fprintf(j.f, "# %s: N, GOPS, GB/s\n", vars[v]);
        for (int i = 0; i < nn; i++) {
            const mp_rep_row *x = mp_rep_pick(r, vars[v], q.m, q.k, nvals[i], btv);
            if (usable(x))
                fprintf(j.f, "%d %.4g %.4g\n", nvals[i], x->gops, x->gbps);
        }
        fputs("\n\n", j.f);
        size_t u = strlen(titles);
        snprintf(titles + u, sizeof titles - u, "%s%s", u ? " " : "", vars[v]);
    }
    char qt[8400], title[512];
    gp_quote(qt, sizeof qt, titles);
    addvar(&j, "nblocks=%d", nv);
    addvar(&j, "titles=%s", qt);
    addvar(&j, "nmin=%d", nvals[0]);
    addvar(&j, "nmax=%d", nvals[nn - 1]);
    snprintf(title, sizeof title, "Throughput against N (tokens per call), %dx%d, %d thread%s%s: "
                                  "%s (%s)",
             q.m, q.k, btv, btv > 1 ? "s" : "", reduced ? ", fastest variant per method" : "",
             r->mach.cpu_model, r->mach.fingerprint);
    gp_dquote(qt, sizeof qt, title);
    addvar(&j, "plottitle=%s", qt);
    return job_finish(&j);
}

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
static int plot_tuner(mp_rep *r, const plot_opts *o)
{
    plot_job j;
    if (job_begin(&j, o->outdir, "tuner"))
        return mp_die(1, "plot tuner: cannot write in %s (%s)", o->outdir, strerror(errno));
    mp_rep_tune_group g;
    mp_err err;
    if (mp_store_rep_tune_group(r->store, r->mach.id, o->variant, &g, &err) < 0) {
        job_abort(&j);
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
        return no_data(&j, why);
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
        return no_data(&j, "the tune run's evaluations have no parameter values");
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
        for (int i = 0; i < ne; i++) {
            int q;
            for (q = 0; q < ncv && cv[q] != e[i].v[cp]; q++)
                ;
            if (q == ncv)
                cv[ncv++] = e[i].v[cp];
        }
    for (int a = 0; a < ncv; a++)
        for (int b = a + 1; b < ncv; b++)
            if (cv[b] < cv[a]) {
                int tmp = cv[a];
                cv[a] = cv[b];
                cv[b] = tmp;
            }
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
        fputs("# rank, median us, setting (parameters that vary)\n", j.f);
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
            fprintf(j.f, "%d %.4g \"%s\"\n", i + 1, e[ord[i]].us, label);
            if (have_dv && !memcmp(dv, e[ord[i]].v, sizeof dv))
                def_rank = i;
        }
        fputs("\n\n# default setting\n", j.f);
        if (def_rank >= 0) {
            fprintf(j.f, "%d %.4g\n", def_rank + 1, e[ord[def_rank]].us);
            have_def = 1;
        } else {
            fputs("NaN NaN\n", j.f);
        }
        fprintf(j.f, "\n\n# best found\n1 %.4g\n\n\n", e[ord[0]].us);
        free(ord);
        ncv = 1;
        snprintf(titles, sizeof titles, "evaluations");
    } else {
        for (int b = 0; b < ncv; b++) {
            fprintf(j.f, "# %s=%d: %s, median us\n", cp >= 0 ? ps.names[cp] : "all",
                    cp >= 0 ? cv[b] : 0, ps.names[xp]);
            for (int i = 0; i < ne; i++)
                if (cp < 0 || e[i].v[cp] == cv[b])
                    fprintf(j.f, "%d %.4g\n", e[i].v[xp], e[i].us);
            fputs("\n\n", j.f);
            size_t u = strlen(titles);
            if (cp >= 0)
                snprintf(titles + u, sizeof titles - u, "%s%s=%d", u ? " " : "", ps.names[cp],
                         cv[b]);
            else
                snprintf(titles + u, sizeof titles - u, "%sevaluations", u ? " " : "");
        }
        fputs("# default setting\n", j.f);
        for (int i = 0; have_dv && i < ne; i++)
            if (!memcmp(dv, e[i].v, sizeof dv)) {
                fprintf(j.f, "%d %.4g\n", e[i].v[xp], e[i].us);
                have_def = 1;
                break;
            }
        if (!have_def)
            fputs("NaN NaN\n", j.f);
        fputs("\n\n# best found\n", j.f);
        fprintf(j.f, "%d %.4g\n\n\n", e[best].v[xp], e[best].us);
    }
    char bests[512] = "";
    for (int p = 0; p < ps.nnames; p++) {
        size_t u = strlen(bests);
        snprintf(bests + u, sizeof bests - u, "%s%s=%d", p ? "," : "", ps.names[p], e[best].v[p]);
    }
    char qt[4200], title[1024];
    gp_quote(qt, sizeof qt, titles);
    addvar(&j, "nblocks=%d", ncv);
    addvar(&j, "titles=%s", qt);
    addvar(&j, "havedef=%d", have_def);
    gp_quote(qt, sizeof qt, settings ? "setting, fastest first" : ps.names[xp]);
    addvar(&j, "xlab=%s", qt);
    int logx = 1;
    for (int i = 0; i < ne; i++)
        logx &= e[i].v[xp] > 0;
    addvar(&j, "logx=%d", logx && nd[xp] > 2 && !settings);
    addvar(&j, "settings=%d", settings);
    double lo = e[0].us, hi = e[0].us;
    for (int i = 1; i < ne; i++)
        lo = fmin(lo, e[i].us), hi = fmax(hi, e[i].us);
    addvar(&j, "logy=%d", lo > 0 && hi / lo > 20);
    snprintf(title, sizeof title, "Tuner landscape: %s, %dx%d, N = %d, %d thread%s, %d settings "
                                  "(run %lld); best %s = %.1f us",
             variant, m, k, n, t, t > 1 ? "s" : "", ne, (long long)run, bests, e[best].us);
    gp_dquote(qt, sizeof qt, title);
    addvar(&j, "plottitle=%s", qt);
    /* the tuner's decision for this point, when stored */
    char sub[512] = "points: the search's own (short) measurements";
    char decision[1024];
    if (mp_store_rep_tune_decision(r->store, &g, decision, sizeof decision))
        snprintf(sub, sizeof sub, "decision after re-measuring: %.400s", decision);
    gp_quote(qt, sizeof qt, sub);
    addvar(&j, "subtitle=%s", qt);
    free(e);
    return job_finish(&j);
}

static const struct {
    const char *name;
    int (*fn)(mp_rep *, const plot_opts *);
} kinds[] = {
    {"roofline", plot_roofline}, {"gbps", plot_gbps},   {"threads", plot_threads},
    {"prompt", plot_prompt},     {"tuner", plot_tuner},
};
enum { NKINDS = sizeof kinds / sizeof kinds[0] };

typedef struct plot_cli {
    plot_opts p;
    const char *db, *machine, *cache;
} plot_cli;

static const mp_opt plot_table[] = {
    MP_OPT_S("db", plot_cli, db, "PATH", "the store (default results/mpbench.db)"),
    MP_OPT_S("outdir", plot_cli, p.outdir, "DIR", "where the plots go (default results/plots)"),
    MP_OPT_I("threads", plot_cli, p.threads, 1, 1024, "T", "the thread count (default: from the data)"),
    MP_OPT_I("n", plot_cli, p.n, 1, 65536, "N", "N (default: from the data)"),
    MP_OPT_S("variant", plot_cli, p.variant, "NAME", "the tuner plot's variant"),
    MP_OPT_S("machine", plot_cli, machine, "FINGERPRINT", "the machine (default: the newest run's)"),
    MP_OPT_C("cache", plot_cli, cache, "cold|warm", "which results (default cold)"),
    MP_OPT_END};

static const mp_cmd_spec plot_spec = {
    .name = "plot",
    .synopsis = "KIND [--db PATH] [--outdir DIR] [--threads T] [--n N]\n"
                "                         [--variant NAME] [--machine FINGERPRINT] [--cache cold|warm]",
    .about = "KIND: roofline, gbps, threads, prompt, tuner or all.  Writes DIR/KIND.png,\n"
             "DIR/KIND.svg and the data DIR/KIND.dat with gnuplot and scripts/KIND.gp.\n"
             "`all` writes every plot that has data and exits 1 only when none has.\n",
    .opts = plot_table,
    .max_pos = 1};

int mp_cmd_plot(int argc, char **argv)
{
    plot_cli a = {.p = {"results/plots", NULL, 0, 0}, .db = "results/mpbench.db",
                  .cache = "cold"};
    mp_opts_out po;
    mp_err e;
    int rc;
    if ((rc = mp_opts_parse(&plot_spec, argc, argv, &a, &po)) || po.help)
        return rc;
    if (!po.npos) {
        mp_opts_usage(&plot_spec, stderr);
        return mp_die(2, "plot: give a KIND (roofline, gbps, threads, prompt, tuner, all)");
    }
    const char *kind = po.pos[0], *db = a.db, *machine = a.machine, *cache = a.cache;
    plot_opts o = a.p;
    int which = -1;
    for (int i = 0; i < NKINDS; i++)
        if (!strcmp(kind, kinds[i].name))
            which = i;
    if (which < 0 && strcmp(kind, "all"))
        return mp_die(2, "plot: unknown KIND '%s' (roofline, gbps, threads, prompt, tuner, all)",
                      kind);
    if (!*o.outdir)
        return mp_die(2, "--outdir: empty path");
    if (mp_parse_only_stop("plot")) /* mp_rep_open copies the database into /tmp */
        return 0;
    mp_rep r;
    if ((rc = mp_rep_open(db, machine, &r, &e)))
        return mp_die(rc, "%s", e.msg);
    r.cache = cache;
    warm_titles = !strcmp(cache, "warm");
    if (o.variant && !mp_registry_find(o.variant)) {
        int known = 0;
        for (int i = 0; i < r.nrows && !known; i++)
            known = !strcmp(r.rows[i].variant, o.variant);
        if (!known) {
            mp_rep_close(&r);
            return mp_die(2, "--variant %s: no such variant in the registry or the store",
                          o.variant);
        }
    }
    struct stat sb;
    if (stat(o.outdir, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
        mp_rep_close(&r);
        return mp_die(2, "--outdir %s: exists and is not a folder", o.outdir);
    }
    /* create the folder (and its parent, for the default results/plots) */
    if (stat(o.outdir, &sb) != 0) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s", o.outdir);
        for (char *p = tmp + 1; *p; p++)
            if (*p == '/') {
                *p = 0;
                mkdir(tmp, 0755);
                *p = '/';
            }
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST) {
            mp_rep_close(&r);
            return mp_die(2, "--outdir %s: cannot create (%s)", o.outdir, strerror(errno));
        }
    }
    if (which >= 0) {
        rc = kinds[which].fn(&r, &o);
    } else {
        int ok = 0;
        for (int i = 0; i < NKINDS; i++)
            ok += kinds[i].fn(&r, &o) == 0;
        rc = ok ? 0 : 1;
        if (!ok)
            mp_die(1, "plot all: no plot had data");
    }
    mp_rep_close(&r);
    return rc;
}
