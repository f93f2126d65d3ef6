/* mp_output.h - results as a table, CSV, JSON or markdown (report/output*.c,
 * report/probe-print.c): what `run`, `sweep`, `e2e` and `list machine` print. */
#ifndef MP_OUTPUT_H
#define MP_OUTPUT_H

#include <stdio.h>

#include "../core/mp_core.h"
#include "../store/mp_probe_store.h"

int mp_format_parse(const char *s, mp_format *f);
void mp_results_print(FILE *f, mp_format fmt, const mp_result *r, int n);
/* The best variant per (problem, method) with GB/s or GOPS and its speed
 * against llama.cpp's TQ2_0 and ours on the same problem (output-summary.c). */
void mp_results_summary(FILE *f, mp_format fmt, const mp_result *r, int n);

/* The rows as a table, CSV, JSON or markdown (report/output-e2e.c); storing
 * them is the store's (store/mp_store_e2e.h). */
void mp_e2e_print(FILE *f, mp_format fmt, const mp_e2e_row *rows, int n, int lossless);

void mp_probe_print(FILE *f, mp_format fmt, const mp_probe_row *r, int n);

/* s as a JSON string (quoted, escaped) and as one CSV field (quoted when it
 * holds a comma, quote or newline; with one_line a newline is written as a
 * space, so that every row of the file is one line), for every table printer
 * (output*.c) and the report's CSV files. */
void mp_json_str(FILE *f, const char *s);
void mp_csv_str(FILE *f, const char *s, int one_line);

#endif
