/* mp_report.h - what `mpbench report` and `mpbench plot` both read from the
 * store: the machine a report is about, its newest result per measurement key,
 * its newest probe, and small helpers to pick and format those rows.  The rows
 * come from the store's typed readers (mp_store_report.h).  Nothing
 * here writes to the database: a report is a view of the store (DESIGN.md
 * "Everything a report or plot shows comes from this store"). */
#ifndef MP_REPORT_H
#define MP_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "../core/mp_core.h"
#include "../store/mp_probe_store.h"
#include "../store/mp_store_report.h"

/* Probe rows a report reads: bandwidth per method, level and thread count, and
 * a compute ceiling per variant, N and thread count. */
enum { MP_REP_MAX_PROBE = 8192 };

typedef struct mp_rep {
    mp_store *store;
    const char *db_path;
    char copy[64]; /* the private copy the report reads (mp_rep_open), "" when none */
    const char *cache; /* the cache mode the tables and plots show: "cold" (default) or "warm" */
    mp_rep_machine mach;
    mp_rep_row *rows; /* newest row per (variant, params, m, k, n, threads, cache mode) */
    int nrows;
    mp_probe_row *probe; /* the newest `mpbench probe` run (else newest probe rows) */
    int nprobe;          /* at most MP_REP_MAX_PROBE */
    int64_t probe_run;
} mp_rep;

/* Opens db_path for reading (it must exist and be an mpbench database: MP_EUSAGE
 * otherwise, file untouched), picks the machine (fingerprint prefix `machine`,
 * or NULL: the machine of the newest run) and loads its results and probe. */
int mp_rep_open(const char *db_path, const char *machine, mp_rep *r, mp_err *e);
void mp_rep_close(mp_rep *r);

/* Of the rows of r->cache mode for (variant, m, k, n, threads), the one a table
 * shows: default parameters first, then ok/unstable over failed/skipped, then the
 * newest.  NULL if none. */
const mp_rep_row *mp_rep_pick(const mp_rep *r, const char *variant, int m, int k, int n,
                              int threads);

/* 1 when params is the variant's default setting (unknown or parameterless
 * variants: 1). */
int mp_rep_params_default(const char *variant, const char *params);

/* Distinct values, sorted ascending, of an int column over the r->cache rows that
 * pass the filter (filter may be NULL).  Returns the count (<= max). */
typedef int (*mp_rep_filter)(const mp_rep_row *x, const void *ctx);
int mp_rep_distinct_int(const mp_rep *r, int col, mp_rep_filter f, const void *ctx, int *out,
                        int max);
enum { MP_REP_N, MP_REP_THREADS };
/* The next row from r->rows[*i] on that counts (of r's cache, passing f, which
 * may be NULL), *i moved past it; NULL after the last. */
const mp_rep_row *mp_rep_next(const mp_rep *r, int *i, mp_rep_filter f, const void *ctx);
/* Adds x to the set v[0..*n) unless it is there or the set holds max already. */
void mp_rep_ints_add(int *v, int *n, int max, int x);
/* The index of s in the set v[0..*n) (compared as strings), added at the end
 * when it is not there yet; -1 when it is not and the set holds max already. */
int mp_rep_strs_add(const char **v, int *n, int max, const char *s);

/* Whether two e2e rows met the same memory bandwidth: 1 unless both store the
 * read at their row (bw_row_gbs) and the larger is more than
 * MP_REP_READS_APART times the smaller.  A shared VM's read moves between
 * levels (the Zen 4 VM: ~35 and ~63 GB/s at 2 threads, 2026-11-30), a
 * memory-bound decode with it, so a ratio of two rows made at different
 * levels compares other conditions; rows of one level read within ~10%. */
#define MP_REP_READS_APART 1.25
int mp_rep_e2e_reads_match(const mp_rep_e2e *a, const mp_rep_e2e *b);
/* Sorts v[0..n) ascending. */
void mp_rep_ints_sort(int *v, int n);
/* Distinct shapes (m, k) in order of first appearance over the r->cache rows passing f. */
int mp_rep_distinct_shapes(const mp_rep *r, mp_rep_filter f, const void *ctx, int (*out)[2],
                           int max);
/* Distinct variant names, sorted by method then name, over the r->cache rows passing f. */
int mp_rep_distinct_variants(const mp_rep *r, mp_rep_filter f, const void *ctx,
                             const char **out, int max);

/* The probe figure kind at `threads` (nearest thread count below, else above); 0 if none.
 * A kind ending in '_' matches the start of the kind ("int8_dot_" matches any
 * ISA); any other only itself ("read_DRAM", not "read_DRAM_pf"). */
double mp_rep_probe(const mp_rep *r, const char *kind, int threads, int *got_threads);

/* A variant's numerics from its catalog row: "lossless", "lossy", "float", or
 * "unknown" (a name this build does not have). */
const char *mp_rep_numerics(const char *variant);

/* Whether the body's kernel tables show a method: not the F32 baselines (no
 * paper claim uses them; they stay in the CSV files), issue 37's 500 lines. */
int mp_rep_body_method(const char *method);

/* The newest probe's compute ceiling of a variant (GOPS, kind
 * "ceiling_<variant>" with its N, engine/ceiling.c) for N tokens at `threads`:
 * the one measured at that N and thread count, else the nearest (thread count
 * first: exact, largest below, smallest above; then N: exact, smallest above,
 * largest below), with the N and threads it was measured at in *got_n and
 * *got_threads (may be NULL); 0 when the probe has none for the variant. */
double mp_rep_ceiling(const mp_rep *r, const char *variant, int n, int threads, int *got_n,
                      int *got_threads);
/* A probe from before schema 10: its ceiling of the variant (GOPS on one core,
 * a 32 x 2048 L1 tile, N = 1, thread CPU time; no N stored); 0 if none. */
double mp_rep_ceiling_legacy(const mp_rep *r, const char *variant);
/* 1 when the newest probe stores compute ceilings per N and threads (schema 10). */
int mp_rep_has_ceilings(const mp_rep *r);

/* ---- the files a report writes (report-out.c) ---------------------------------- */

enum { MP_REP_OUT_MAX = 16 };
typedef struct mp_rep_out_file {
    char tmp[4200], final[4100];
    FILE *f;
} mp_rep_out_file;
typedef struct mp_rep_out {
    int check; /* --check: compare with the files in place instead of replacing them */
    char csv_dir[4096];  /* where the CSV tables go */
    char csv_link[4096]; /* the same folder as the report links it */
    int n;
    mp_rep_out_file f[MP_REP_OUT_MAX];
} mp_rep_out;

/* Opens a temporary file next to path for writing (NULL with err set). */
FILE *mp_rep_out_open(mp_rep_out *o, const char *path, char *err, size_t len);
/* Opens CSV table `name` in o->csv_dir; *link gets the report's link to it. */
FILE *mp_rep_out_csv(mp_rep_out *o, const char *name, char *link, size_t linklen, char *err,
                     size_t len);
/* Closes every file; ok: renames them into place, or with o->check compares each
 * with the file in place (REPORT.md's generation-time line excepted); !ok: removes
 * them.  0 when all went well, else the first problem in err and 1 (a --check
 * difference) or MP_EIO (a write or rename failed: the exit code). */
int mp_rep_out_finish(mp_rep_out *o, int ok, char *err, size_t len);

/* A markdown header row: first column left-aligned, the n others right-aligned. */
void mp_rep_table_head(FILE *f, const char *first, const char *const *cols, int n);

/* ---- sections in their own files ------------------------------------------------ */

/* Section 7 (report-roofline.c): N = 1 GB/s against seed 003's roofline, a
 * bandwidth roof (probe read_DRAM) and a compute roof per variant (its measured
 * in-cache ceiling), the best variant per method in the body, every row in
 * CSV_DIR/gemv-roofline.csv.  Returns the number of rows above their roof. */
int mp_rep_sec_roofline(FILE *f, const mp_rep *r, mp_rep_out *o);

/* The factor a compute roof of the probe is raised by for row x: x's clock
 * (a clock-gated row's median clock-chain rate over its kept calls, engine/
 * clock.c) over the fastest the probe's peaks and ceilings saw (its "clock"
 * row), when the row's is the faster; else 1.  A compute roof scales with the
 * core's clock, and a probe taken in a slow stretch of a shared vCPU is
 * otherwise a roof its clock-gated rows exceed. */
double mp_rep_clock_scale(const mp_rep *r, const mp_rep_row *x);

/* Roof of one kernel row at its N and thread count: min of the bandwidth roof
 * (cold rows: the higher of the run's own read_DRAM and the probe's, the best
 * of its read methods; warm rows: none) and the compute roof (the variant's
 * ceiling at the row's N and threads, as GB/s of its packed weights; else a
 * stand-in, see report-roofline.c; raised by mp_rep_clock_scale).  Returns the
 * roof in GB/s (0: no probe);
 * *bound "bandwidth" or "compute"; *compute_src is mp_rep_src_ceiling when the
 * compute roof is the row's own ceiling, else names what stood in. */
double mp_rep_roof(const mp_rep *r, const mp_rep_row *x, double *bw_roof, double *compute_roof,
                   const char **bound, const char **compute_src);
extern const char *const mp_rep_src_ceiling;

/* Issue 37, a roof holds: the measured kernel rows of r (every N, thread count
 * and cache mode) above their roof - the bandwidth roof, and the compute roof
 * when it is the row's own ceiling (or, N = 1, an older probe's one-core
 * ceiling times the threads, the roof it claimed) - and the decode e2e rows above their
 * bound, by more than tol (0.03: 3%).  The count is returned, *checked gets
 * the rows that had a roof (may be NULL), and fn (may be NULL) gets one line
 * per row above. */
int mp_rep_roof_check(const mp_rep *r, const mp_rep_e2e *e, int ne, double tol,
                      void (*fn)(const char *line, void *ctx), void *ctx, int *checked);

/* ---- shares of the roof (report-shares.c, `mpbench report --shares`) ---------- */

/* The conclusions' targets (issue 41): the best variant at N = 1 reads at 92%
 * of the read roof; at N = 128 it computes at 85% of the measured int8 dot
 * peak x threads (not of its own compute roof, which is printed beside it). */
#define MP_REP_TARGET_READ 0.92
#define MP_REP_TARGET_COMPUTE 0.85
/* The target share at N tokens: the two above, 0 at any other N (none). */
double mp_rep_share_target(int n);

/* One row against its roof: at N = 1 its GB/s against the read roof (the
 * bandwidth roof of mp_rep_roof at its thread count), at N > 1 its GOPS
 * against its variant's compute roof (mp_rep_roof's, in GOPS) and against the
 * probe's int8 dot peak at its thread count (peak; the peak of fewer threads
 * scaled by the ratio of threads where the probe lacks its count, peak_note
 * says so).  share and peak_share are rate / roof and rate / peak as measured
 * (above 1: that roof is wrong; never clamped), 0 when there is none. */
typedef struct mp_rep_share {
    const mp_rep_row *x;
    int best;              /* the fastest row of its point */
    double rate, roof;     /* GB/s (N = 1) or GOPS (N > 1) */
    const char *roof_kind; /* "read" or "compute" */
    double share;
    char note[96]; /* what stood in for the roof, or why the row is below it; "" */
    double peak, peak_share; /* N > 1: int8 dot peak x threads, GOPS; 0 at N = 1 */
    char peak_note[64];      /* "int8 peak probed at 1 thread, x 2"; "" */
} mp_rep_share;

/* Every point (shape, N, threads) of r's cache mode, from the newest run that
 * measured it (ok or unstable rows): each method's fastest row, the fastest
 * of all marked best; sorted by M, K, N, threads, the best first, then by
 * speed.  Returns the count (<= max). */
int mp_rep_shares(const mp_rep *r, mp_rep_share *out, int max);

/* The summary of one N over s[0..n): the best rows' worst share (the first
 * of the lowest), over how many shapes, thread counts and points, how many
 * reach the target, have no roof, or sit above it.  of_peak: the shares of the
 * int8 dot peak (N > 1) instead of the roof's. */
typedef struct mp_rep_share_sum {
    int n, points, shapes, thread_counts, at_target, no_roof, above;
    double target; /* mp_rep_share_target(n) */
    const mp_rep_share *worst; /* NULL: no best row with a roof */
} mp_rep_share_sum;
int mp_rep_shares_worst(const mp_rep_share *s, int n, int tokens, int of_peak,
                        mp_rep_share_sum *sum);

/* The shares table of r (db names the database in its header) and one summary
 * line per N; returns the rows printed (0: no measured row, nothing printed),
 * -1 when out of memory. */
int mp_rep_shares_print(FILE *f, const mp_rep *r, const char *db);

/* Section 2a (report-e2e-limit.c, issue 17): every e2e row that stores a bound
 * as its share of that bound, one table per (test, threads) from e (the newest
 * row per key), issue 39's pairs against llama.cpp from all (every run's), and
 * the --profile rows in milliseconds per token per group. */
void mp_rep_sec_e2e_limit(FILE *f, const mp_rep_e2e *e, int ne, const mp_rep_e2e *all, int na,
                          mp_rep_out *o);

/* The papers' claims (report-claims.c): every row of a claims file (TSV, see
 * results/claims.tsv) computed from the store and judged. */
typedef struct mp_claim {
    char id[16], seed[64], claim[512], paper[512], metric[256];
    char verdict[8];     /* "yes", "partly", "no", or "–" (not judged) */
    int judged;          /* 0: none / baseline missing / not measured */
    int np, stat_point;  /* points (shapes, models, rows); the one giving the statistic */
    double stat, mn, mx; /* the claim's statistic of ours and our range */
    char baseline[256];  /* whose baseline ("llama.cpp's own ..., same run", "ours (...)") */
    char here[512];      /* the conditions it was computed under (N, threads, runs, models) */
    char ours[512];      /* the figure as printed */
    char backing[1024];  /* the statistic's rows, each against its own roof or bound */
    char why[1024];      /* the file's why: a cited measurement or "hypothesis: ..." */
} mp_claim;

/* Relative widening of the paper's range before judging a claim: run-to-run
 * noise on a shared VM (kernel rows are unstable past 10% robust CV). */
#define MP_CLAIM_TOL 0.10

/* Evaluates every claim of claims_path against r's kernel rows and e (every
 * e2e row of the machine, all runs: a ratio is taken within one run).  Returns
 * the number of claims (<= max), -1 with err set when the file is unreadable. */
int mp_rep_claims_eval(const mp_rep *r, const mp_rep_e2e *e, int ne, const char *claims_path,
                       mp_claim *out, int max, char *err, size_t errlen);
/* Checks every row of the claims file before anything is computed (issue 40):
 * 12 tab-separated fields, a known metric with its words, N and T whole
 * integers in range, lo and hi numbers (hi may be inf), paper=SIZE:X numbers.
 * 0; MP_EUSAGE with err naming the file, line, field and value (or the file
 * missing); MP_EIO when it cannot be read. */
int mp_rep_claims_check(const char *path, char *err, size_t len);
/* counts[0..3]: yes, partly, no, not judged, over the papers' claims (ids
 * starting with C; H rows are the project's targets); returns their number. */
int mp_rep_claims_counts(const mp_claim *c, int nc, int counts[4]);
/* The claims table (nc < 0: the file was missing). */
void mp_rep_sec_claims(FILE *f, const mp_claim *c, int nc, const char *claims_path);

/* Where the gnuplot scripts are: $MPBENCH_SCRIPTS, ./scripts, or next to the binary. */
const char *mp_rep_scripts_dir(void);

/* REPORT.md into f, every section (report/report-md.c): the end-to-end rows
 * and the claims read from r's store and claims (a TSV path); plots is the
 * plots' folder (looked in) and plinks the same folder as the report links it
 * (relative to the report).  -1 (nothing written) when claims cannot be read
 * and is not the default results/claims.tsv; else 0. */
int mp_rep_write(FILE *f, mp_rep *r, const char *db, const char *claims, const char *plots,
                 const char *plinks, mp_rep_out *o);

/* ---- plots (report/report-plot.c), for `mpbench plot` ---------------------------- */
/* What a plot shows: threads and n 0 mean chosen from the data. */
typedef struct mp_plot_opts {
    const char *outdir, *variant;
    int threads, n; /* 0: chosen from the data */
} mp_plot_opts;

/* The index of a plot kind (roofline, gbps, threads, prompt, tuner), -1 if none. */
int mp_plot_kind(const char *name);
int mp_plot_nkinds(void);
/* Writes OUTDIR/KIND.dat and draws KIND.png and KIND.svg with gnuplot (titles
 * say "warm" when r->cache is "warm"); 0, or 1 when there is no data or
 * gnuplot fails (nothing left behind). */
int mp_plot_draw(mp_rep *r, const mp_plot_opts *o, int kind);

#endif
