/* mp_counters.h - hardware and software event counters around measured calls. */
#ifndef MP_COUNTERS_H
#define MP_COUNTERS_H

#include <stdio.h>

/* Prints, one line per event, whether this machine allows it and why not. */
void mp_counters_describe(FILE *f);

#endif
