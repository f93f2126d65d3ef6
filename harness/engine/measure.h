/* measure.h - what the two files of the measurement engine share (measure.c:
 * calls, timing rounds and statistics; measure-open.c: opening a session,
 * packing and checking every case).  Private to engine/. */
#ifndef MP_MEASURE_H
#define MP_MEASURE_H

#include "mp_engine.h"
#include "../../kernels/common/mp_numerics.h"

enum { SAMPLE_BLOCK = 16, SAMPLE_ROWS = 256, MAX_COPIES = 4096 };

typedef struct slot {
    mp_result *r;
    mp_op op;
    uint8_t **copies; /* carved from arena, stride bytes apart */
    uint8_t *arena;
    int ncopies, cur;
    void *act;
    float *y;
    void **scratch;
    int active;
    double total;
    double slow_total; /* seconds of calls discarded by the clock gate */
    double *clk;       /* with a clock gate: the clock of each kept call (cap entries) */
    int in_round;      /* measured by the current time_rounds (slot_reset) */
    int cap;
    int stream; /* the same-run read stream, not a variant (mp_session.sres) */
} slot;

/* Weight copies: one arena on 2 MiB pages (bigmem.c: advised before the first
 * touch and collapsed once filled, so khugepaged has nothing to do while we time;
 * advice given after the touch once let it stall timed calls for milliseconds).
 * A 64 KiB gap after each copy keeps a prefetcher running off the end of one
 * copy out of the next one, which is the next call's. */
enum { COPY_GAP = 64 << 10 };

static inline size_t copy_stride(size_t bytes)
{
    return ((bytes + 4095) & ~(size_t)4095) + COPY_GAP;
}

struct mp_session {
    mp_pool *pool;
    const mp_bench_opts *o;
    int m, k, n, ncase;
    int8_t *w, *wb;
    float *x;
    float *yref[2], *yflt[2]; /* [domain] */
    slot *sl;     /* ncase + 1: the last is the read stream when has_stream */
    mp_result *res;
    mp_rng rng;
    int has_stream;
    mp_result sres; /* the read stream's timings */
};

/* An untimed call (the output check, the warm-up), made like a timed one. */
void mp_measure_untimed_call(mp_pool *pool, slot *s, const float *x, int n);

#endif
