/* mp_probe_store.h - probe figures: one row per (kind, threads), stored with the
 * run and read back by `list machine`, the VNNI model and the reports (the
 * store side in store-probe.c, printing in probe-print.c). */
#ifndef MP_PROBE_STORE_H
#define MP_PROBE_STORE_H

#include <stdio.h>

#include "mp_store.h"

typedef struct mp_probe_row {
    char kind[48]; /* "read_DRAM", "read_DRAM_pf", "copy_L2", "int8_dot_avx512vnni", ... */
    int threads;
    long long bytes;
    double value;
    char unit[8];
    /* a compute ceiling ("ceiling_<variant>", engine/ceiling.c): the N it was
     * measured at and its shape M x K; 0 on every other row and on the
     * ceilings of probes before schema 10 (one core, 32 x 2048, N = 1) */
    int n, m, k;
} mp_probe_row;

int mp_probe_store(mp_store *s, int64_t run_id, const mp_probe_row *r, int n, mp_err *e);
/* The newest probe of this machine: rows into r (max), count returned (0: none). */
int mp_probe_latest(mp_store *s, const char *fingerprint, mp_probe_row *r, int max);
/* One figure from the newest probe (exact kind and threads); 0 if none. */
double mp_probe_value(mp_store *s, const char *fingerprint, const char *kind, int threads);

#endif
