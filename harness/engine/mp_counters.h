/* mp_counters.h - hardware and software event counters around measured calls.
 *
 * Events are named in libpfm4's syntax ("cycles", "instructions",
 * "perf::CACHE-MISSES", "amd64_fam1ah_zen5::RETIRED_INSTRUCTIONS", ...), encoded
 * with libpfm4 and opened with perf_event_open on every thread of the harness's
 * pool; values are summed over threads.  The software events (task-clock,
 * page-faults, context-switches, cpu-migrations) are always added.  An event the
 * machine refuses is kept in the set as unavailable with its reason, so a sweep
 * goes on.  With backend "papi", hardware events go through PAPI's CPU component
 * where it is active (calling thread only); otherwise they are unavailable with
 * PAPI's reason. */
#ifndef MP_COUNTERS_H
#define MP_COUNTERS_H

#include <stdio.h>

#include "../core/mp_core.h"

#define MP_COUNTERS_DEFAULT "cycles,instructions,cache-misses"

/* Prints, one line per default event, whether this machine allows it and why not. */
void mp_counters_describe(FILE *f);

/* Opens `list` (comma separated; NULL or "" = the default set) for the threads
 * tids[0..ntids).  Unknown event names are usage errors (MP_EUSAGE). */
int mp_counters_open(const char *list, const char *backend, const int *tids, int ntids,
                     mp_counters **out, mp_err *e);
/* mp_counters_n, _name, _unavailable: core/mp_core.h (core/result.c). */
/* Zero and enable all events (call right before the timed region). */
void mp_counters_start(mp_counters *c);
/* Disable all events and add their values (summed over threads) into acc[n]. */
void mp_counters_stop(mp_counters *c, double *acc);
void mp_counters_close(mp_counters *c);

#endif
