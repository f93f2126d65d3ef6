/* ceiling.c - a variant's in-cache compute throughput: the "C" of seed 003's
 * roofline (eq. 1-3), measured for any variant through the public kernel
 * interface instead of inside a kernel (kernels contain no timing).
 *
 * The variant's own compute slot runs at N = 1 on a 32 x 2048 tensor (16 KB at
 * 2 bits per weight, 8 KB at 1) and one token, all resident in L1, so there is
 * no memory traffic: bytes of packed weights per second of the calling
 * thread's CPU time (time descheduled on a shared machine is not counted),
 * best of 9 repetitions of ~2 ms after a warm-up.  About 30 ms.  Eq. 3 is then
 * min(per-core read bandwidth, this). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mp_engine.h"
#include "../mp_probe_store.h"
#include "../../kernels/common/mp_numerics.h"
#include "../../variants/mp_registry.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double mp_ceiling_bytes_per_sec(const mp_variant *v, const int *param_in)
{
    enum { M = 32, K = 2048 };
    char why[128];
    if (!v || !mp_variant_available(v))
        return 0.0;
    int param[MP_MAX_PARAMS];
    if (param_in)
        memcpy(param, param_in, sizeof param);
    else
        mp_variant_defaults(v, param);
    if (mp_variant_check(v, M, K, param, why, sizeof why))
        return 0.0;
    int8_t *w = mp_alloc((size_t)M * K);
    float *x = mp_alloc(sizeof(float) * K);
    float y[M];
    mp_gen_weights(7, w, (size_t)M * K, v->domain == MP_DOMAIN_BINARY);
    mp_gen_acts(8, x, K);
    size_t bytes = v->packed_size(M, K, param);
    uint8_t *p = mp_alloc(bytes);
    v->pack(w, 1.0f, M, K, param, p);
    mp_op op = {.v = v, .m = M, .k = K, .w_scale = 1.0f, .w = p};
    memcpy(op.param, param, sizeof op.param);
    void *a = mp_alloc(v->act_size(1, K, param));
    v->prepare(&op, x, 1, a, 0, 1);
    size_t ssz = v->scratch_size ? v->scratch_size(1, K, param) : 0;
    void *scr = ssz ? mp_alloc(ssz) : NULL;
    /* the weights the loop streams: 2 (or 1) bits each, not per-tensor trailers */
    const double tile_bytes = (double)M * K * (v->domain == MP_DOMAIN_BINARY ? 1 : 2) / 8;
    int calls = 16;
    double t0 = cpu_now();
    for (int i = 0; i < calls; i++)
        v->compute(&op, a, 1, y, 0, M, scr);
    double dt = cpu_now() - t0;
    if (dt > 0 && dt < 2e-3)
        calls = (int)(calls * 2e-3 / dt) + 1;
    double best = INFINITY;
    for (int rep = 0; rep < 9; rep++) {
        t0 = cpu_now();
        for (int i = 0; i < calls; i++)
            v->compute(&op, a, 1, y, 0, M, scr);
        dt = (cpu_now() - t0) / calls;
        best = dt < best ? dt : best;
    }
    mp_free(scr);
    mp_free(a);
    mp_free(p);
    mp_free(x);
    mp_free(w);
    return best > 0 && isfinite(best) ? tile_bytes / best : 0.0;
}

int mp_ceiling_rows(mp_probe_row *rows, int n, int max, int quiet)
{
    int nv = mp_registry_count();
    mp_progress pg;
    mp_progress_begin(&pg, nv, quiet);
    for (int i = 0; i < nv && n < max; i++) {
        const mp_variant *v = mp_registry_get(i);
        mp_progress_show(&pg, "compute ceiling of %s", v->name);
        mp_progress_step(&pg, 1);
        if (v->family == MP_FAMILY_PEER || v->self_threaded)
            continue;
        /* bytes of 2-bit (1-bit) weights per second -> weights/s -> 2 ops each */
        double gops = mp_ceiling_bytes_per_sec(v, NULL) * 1e-9 *
                      (v->domain == MP_DOMAIN_BINARY ? 8 : 4) * 2;
        if (!(gops > 0))
            continue;
        mp_probe_row *r = &rows[n++];
        snprintf(r->kind, sizeof r->kind, "ceiling_%s", v->name);
        r->threads = 1, r->bytes = 32 * 2048, r->value = gops;
        snprintf(r->unit, sizeof r->unit, "GOPS");
    }
    mp_progress_end(&pg);
    return n;
}
