/* mp_sweep.h - the pieces of the sweep the tuner reuses. */
#ifndef MP_SWEEP_H
#define MP_SWEEP_H

#include "mp_harness.h"

/* Expands variants into cases: defaults only, or every combination of each
 * variant's parameter values (all_params). */
int mp_sweep_cases(const mp_variant *const *sel, int nsel, int all_params, mp_case *cases,
                   int max, int *ncase, mp_err *e);

#endif
