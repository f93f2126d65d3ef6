/* model.c - the performance model of seed 003 eq. 1-3 next to VNNI results:
 * modeled effective bandwidth = threads x min(per-core read bandwidth, the
 * variant's measured up-convert-and-compute throughput), for GEMV (N = 1) where
 * the model applies.  The per-core bandwidth comes from the newest probe of this
 * machine in the database (read_DRAM at that thread count / threads) or, without
 * one, from a quick read-bandwidth measurement with the same pool; the
 * up-convert-and-compute throughput from engine/ceiling.c. */
#include <math.h>
#include <string.h>

#include "../core/mp_core.h"
#include "../store/mp_probe_store.h"
#include "mp_engine.h"
#include "../../variants/mp_registry.h"

void mp_model_annotate(mp_result *r, int n, mp_pool *pool, mp_store *store,
                       const mp_machine *mach)
{
    double bw_total = 0;
    const char *src = "probe";
    for (int i = 0; i < n; i++) {
        r[i].model_gbps = NAN;
        if (r[i].v->family != MP_FAMILY_VNNI || r[i].n != 1 || r[i].reps == 0)
            continue;
        if (bw_total == 0) {
            if (store)
                bw_total = mp_probe_value(store, mach->fingerprint, "read_DRAM", r[i].threads);
            if (bw_total <= 0) {
                bw_total = mp_probe_dram_read(pool, 256u << 20, 3);
                src = "measured now";
            }
        }
        int param[MP_MAX_PARAMS];
        char why[128];
        if (mp_params_parse(r[i].v, "", param, why, sizeof why))
            continue;
        /* the result's own parameter values */
        char buf[128];
        snprintf(buf, sizeof buf, "%s", r[i].params);
        mp_params_parse(r[i].v, buf, param, why, sizeof why);
        double up = mp_ceiling_bytes_per_sec(r[i].v, param) * 1e-9;
        double core = bw_total / r[i].threads;
        if (up <= 0)
            continue;
        r[i].model_gbps = r[i].threads * (core < up ? core : up); /* eq. 3 */
        snprintf(r[i].model_note, sizeof r[i].model_note,
                 "%s-bound: bw/core %.1f GB/s (%s), up-convert %.1f GB/s/core",
                 core < up ? "memory" : "compute", core, src, up);
    }
}
