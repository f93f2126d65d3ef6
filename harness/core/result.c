/* result.c - what every folder reads of a measured point: its status name,
 * its key in a plan, the names of the counters its values belong to.  Here
 * and not in engine/ so the store and the output, below and beside the
 * engine, read results without calling into it (scripts/check-layers.sh). */
#include <stdio.h>
#include <stdlib.h>

#include "mp_core.h"

const char *mp_status_name(mp_status s)
{
    switch (s) {
    case MP_ST_OK: return "ok";
    case MP_ST_SKIPPED: return "skipped";
    case MP_ST_FAILED: return "failed";
    case MP_ST_UNSTABLE: return "unstable";
    }
    return "?";
}

void mp_result_free(mp_result *r)
{
    free(r->times_us);
    r->times_us = NULL;
}

void mp_point_key(char *buf, size_t len, const char *variant, const char *params, int m, int k,
                  int n, int threads)
{
    snprintf(buf, len, "%s|%s|%d|%d|%d|%d", variant, params, m, k, n, threads);
}

/* An open set (engine/counters.c) begins with its mp_event_names. */
static const mp_event_names *names(const mp_counters *c)
{
    return (const mp_event_names *)(const void *)c;
}

int mp_counters_n(const mp_counters *c)
{
    return c ? names(c)->n : 0;
}

const char *mp_counters_name(const mp_counters *c, int i)
{
    return names(c)->name[i];
}

const char *mp_counters_unavailable(const mp_counters *c, int i)
{
    return names(c)->reason[i][0] ? names(c)->reason[i] : NULL;
}
