/* e2e-measure.h - what the two files of the end-to-end measurement share
 * (e2e-measure.c: the pp and tg rows; e2e-lossless.c: the lossless check):
 * the rows' round trip through the store under the plan's key, the weights a
 * run's configurations share, and what a built instance tells its row.
 * Private to engine/. */
#ifndef MP_E2E_MEASURE_H
#define MP_E2E_MEASURE_H

#include "mp_engine.h"

/* The row the plan already holds (1), none (0), or an error (< 0). */
int mp_e2e_job_stored(const mp_e2e_job *o, mp_e2e_row *r, mp_err *e);
/* A row of configuration c that needs no measuring: stored by an earlier run
 * (its failure counted in *failed) or skipped (stored now); 1 then, or on an
 * error (*rc set), else 0.  (e2e-lossless.c; also e2e-text.c's.) */
int mp_e2e_job_done(const mp_e2e_job *o, const mp_e2e_config *c, mp_e2e_row *r, int *failed,
                    int *rc, mp_err *e);
/* A finished row goes to the store at once. */
int mp_e2e_job_keep(const mp_e2e_job *o, const mp_e2e_row *r, mp_err *e);
/* The weights every configuration of the run is built from: generated once
 * (harness/e2e-share.c) when more than one instance will be built (*sh NULL
 * otherwise; syn holds the synthetic source it wraps). */
int mp_e2e_job_source(const mp_e2e_job *o, const mp_model *md, mp_pool *pool, int builds,
                      mp_e2e_source *syn, mp_e2e_source **sh, mp_err *e);
/* Says on stderr (unless quiet) what the weight cache did for instance m. */
void mp_e2e_job_note(const mp_e2e_job *o, const char *label, mp_e2e *m);
/* The row's sizes from instance m: ternary and model bytes, bits per weight. */
void mp_e2e_row_sizes(mp_e2e_row *r, mp_e2e *m);

#endif
