/* report-plot.h - what the plot files of report/ share (report-plot.c: the
 * plot jobs, gnuplot and the roofline, gbps, threads and prompt plots;
 * report-plot-tuner.c: the tuner's landscape).  Private to report/. */
#ifndef MP_REPORT_PLOT_H
#define MP_REPORT_PLOT_H

#include <stdio.h>

#include "mp_report.h"

enum { MAXV = 128, MAXS = 64, MAXN = 32, MAXP = 4096 };

typedef mp_plot_opts plot_opts;

/* One plot in the making: the data file (temporary) and the gnuplot variables. */
typedef struct plot_job {
    const char *kind;
    char dat[4096], png[4096], svg[4096];     /* final names */
    char tdat[4200], tpng[4200], tsvg[4200];  /* temporary names */
    FILE *f;
    char vars[8192]; /* extra gnuplot assignments */
} plot_job;

int mp_plot_job_begin(plot_job *j, const char *outdir, const char *kind);
void mp_plot_job_abort(plot_job *j);
void mp_plot_addvar(plot_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as a gnuplot string literal in single quotes ('' for a quote) or double
 * quotes (\ and " escaped, a newline as \n: a line break in titles). */
void mp_plot_gp_quote(char *dst, size_t len, const char *s);
void mp_plot_gp_dquote(char *dst, size_t len, const char *s);
void mp_plot_title(plot_job *j, const char *title);
int mp_plot_job_finish(plot_job *j);
int mp_plot_no_data(plot_job *j, const char *what);
int mp_plot_tuner(mp_rep *r, const plot_opts *o, plot_job *j);

#endif
