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

#include "mp_harness.h"
#include "mp_probe_store.h"
#include "mp_store_report.h"

typedef struct mp_rep {
    mp_store *store;
    const char *db_path;
    const char *cache; /* the cache mode the tables and plots show: "cold" (default) or "warm" */
    mp_rep_machine mach;
    mp_rep_row *rows; /* newest row per (variant, params, m, k, n, threads, cache mode) */
    int nrows;
    mp_probe_row probe[256]; /* the newest `mpbench probe` run (else newest probe rows) */
    int nprobe;
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
/* Distinct shapes (m, k) in order of first appearance over the r->cache rows passing f. */
int mp_rep_distinct_shapes(const mp_rep *r, mp_rep_filter f, const void *ctx, int (*out)[2],
                           int max);
/* Distinct variant names, sorted by method then name, over the r->cache rows passing f. */
int mp_rep_distinct_variants(const mp_rep *r, mp_rep_filter f, const void *ctx,
                             const char **out, int max);

/* The probe figure kind at `threads` (nearest thread count below, else above); 0 if none.
 * kind_prefix matches the start of the kind ("int8_dot_" matches any ISA). */
double mp_rep_probe(const mp_rep *r, const char *kind_prefix, int threads, int *got_threads);

/* Where the gnuplot scripts are: $MPBENCH_SCRIPTS, ./scripts, or next to the binary. */
const char *mp_rep_scripts_dir(void);

#endif
