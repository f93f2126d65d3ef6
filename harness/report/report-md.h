/* report-md.h - the sections of REPORT.md, shared by the files that write
 * them (report-md.c: header, summary, caveats, probe, plots, CSV, bad rows and
 * mp_rep_write; report-md-e2e.c: end-to-end and lossless sections with the
 * papers' own tokens/s; report-md-trained.c: the trained model's bits per
 * byte and zero weights; report-md-kernels.c: the kernel figures, ratios and
 * tuned configurations).  Private to report/. */
#ifndef MP_REPORT_MD_H
#define MP_REPORT_MD_H

#include <stdio.h>

#include "mp_report.h"

enum { MAXV = 128, MAXS = 64, MAXN = 32 };

/* e2e rows of this machine, newest per key. */
typedef mp_rep_e2e e2e_row;

void mp_rep_md_escape(FILE *f, const char *s);
void mp_rep_runs_line(FILE *f, const int64_t *ids, int n);
void mp_rep_sec_header(FILE *f, mp_rep *r, const char *db);
void mp_rep_sec_summary(FILE *f, mp_rep *r, const char *db, const char *claims_path,
                        const mp_claim *c, int nc);
void mp_rep_sec_caveats(FILE *f, mp_rep *r);
void mp_rep_sec_probe(FILE *f, mp_rep *r);
int mp_rep_load_e2e(mp_rep *r, int all, e2e_row **out);
void mp_rep_e2e_cell(char *buf, size_t len, const e2e_row *x);
void mp_rep_sec_e2e_tps(FILE *f, mp_rep *r, const e2e_row *e, int ne);
void mp_rep_sec_lossless(FILE *f, const mp_rep *r, const e2e_row *e, int ne);
void mp_rep_sec_trained(FILE *f, const mp_rep *r, const e2e_row *e, int ne);
void mp_rep_sec_fig8(FILE *f, mp_rep *r);
void mp_rep_sec_fig11(FILE *f, mp_rep *r);
void mp_rep_sec_fig12(FILE *f, mp_rep *r, const e2e_row *e, int ne);
void mp_rep_sec_ratios(FILE *f, mp_rep *r);
void mp_rep_sec_tuned(FILE *f, mp_rep *r);
void mp_rep_sec_plots(FILE *f, const char *plots, const char *plinks);
void mp_rep_csv_results(FILE *f, const mp_rep *r, mp_rep_out *o);
void mp_rep_sec_bad(FILE *f, mp_rep *r);

#endif
