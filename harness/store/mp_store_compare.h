/* mp_store_compare.h - what `mpbench compare` asks the store: one run of a
 * database (its id, machine, read-bandwidth probes) with the repetitions of its
 * judged results.  The database is opened read-only and never changed.  Every
 * value read is checked: a row the comparison would misread (a NULL key column,
 * say) refuses the whole run with a message naming the database, run and row. */
#ifndef MP_STORE_COMPARE_H
#define MP_STORE_COMPARE_H

#include <stdint.h>

#include "mp_store.h"

/* One result (status ok or unstable) with its stored repetition times. */
typedef struct mp_cmp_result {
    char variant[64], params[128], cache[16], status[16];
    int m, k, n, threads;
    double median_us;
    double *times_us; /* malloc'd, ntimes values (0 when none were stored) */
    int ntimes;
} mp_cmp_result;

typedef struct mp_cmp_run {
    int64_t run_id;
    char fingerprint[64]; /* the machine the run ran on */
    double read_bw[65];   /* read_DRAM GB/s stored with the run per thread count, 0 = none */
    mp_cmp_result *rows;  /* malloc'd, in the order they were stored */
    int n;
} mp_cmp_run;

/* Reads run `run_id` of the database at path into out; run_id 0: the newest
 * run with results on machine `machine` (a fingerprint) if the database holds
 * one, else (or with machine NULL) its newest run with results.  `what` names the input in messages ("--base").  MP_EUSAGE when the
 * file cannot be opened, is not an mpbench database, has no results or no such
 * run, or holds a value the comparison cannot trust; out is then empty. */
int mp_store_compare_read(const char *path, const char *what, int64_t run_id,
                          const char *machine, mp_cmp_run *out, mp_err *e);
void mp_store_compare_free(mp_cmp_run *r);

#endif
