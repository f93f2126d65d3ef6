/* mp_tune_sweep.h - `mpbench tune --from-sweep` (harness/tune-from-sweep.c):
 * tuned configs per machine from the parameter grids sweeps stored. */
#ifndef MP_TUNE_SWEEP_H
#define MP_TUNE_SWEEP_H

/* Writes DIR/FINGERPRINT.conf for every machine of db whose sweeps swept a
 * variant's parameter grid; returns the exit code (messages on stderr). */
int mp_tune_from_sweep(const char *db, const char *dir, double margin, double alpha);

#endif
