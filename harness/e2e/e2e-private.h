/* e2e-private.h - what the files of the decoder (e2e/e2e*.c) share and nobody
 * else sees: the instance (struct mp_e2e), the reference pseudo-variant, the
 * weight buffers kept between instances, and small helpers.  e2e.c runs the
 * forward pass, e2e-linear.c its linear layers, e2e-setup.c builds an
 * instance's weights, e2e-spec.c checks a spec and estimates its memory,
 * e2e-spare.c keeps buffers, e2e-ref.c is the reference arithmetic,
 * e2e-greedy.c decodes greedily. */
#ifndef MP_E2E_PRIVATE_H
#define MP_E2E_PRIVATE_H

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "mp_e2e.h"
#include "mp_e2e_attn.h"
#include "mp_e2e_cache.h"
#include "mp_e2e_exp.h"
#include "../core/mp_bigmem.h"
#include "../../kernels/common/mp_numerics.h"
#include "../../variants/mp_registry.h"

static const char *const lin_name[MP_E2E_NLIN] = {"q", "k", "v", "o", "gate", "up", "down"};

enum { HEAD_CHUNK = 64 }; /* bf16 rows a setup thread converts at a time */

/* The head is read in chunks of about 1 MB of rows: thread t owns the chunks
 * tok_range(chunks, t) gives (it first-touches them at setup and reads them
 * first), and a thread done with its own takes the others' remaining chunks
 * (head_task), so a slower or preempted thread does not hold the token up. */
enum { HEAD_STEAL_BYTES = 1 << 20 };

static inline int head_chunk_rows(size_t row_bytes, int vocab, int nt)
{
    size_t r = HEAD_STEAL_BYTES / (row_bytes ? row_bytes : 1);
    size_t quarter = ((size_t)vocab + 4 * (size_t)nt - 1) / (4 * (size_t)nt);
    r = r < quarter ? r : quarter; /* at least ~4 chunks per thread to share */
    return r < 4 ? 4 : r > (1 << 20) ? 1 << 20 : (int)r;
}

static inline uint16_t f32_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u += 0x7fffu + ((u >> 16) & 1u); /* round to nearest even; inputs are finite */
    return (uint16_t)(u >> 16);
}

/* GNU C vector types (no intrinsics, no ISA flags): the compiler lowers them to
 * whatever SIMD the baseline target has, in a fixed lane order. */
typedef float mp_v4f __attribute__((vector_size(16)));
typedef int32_t mp_v4i __attribute__((vector_size(16)));

static inline uint64_t mix(uint64_t a, uint64_t b)
{
    mp_rng r = {a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull)};
    return mp_rng_next(&r);
}

/* e2e-ref.c: the variant a choice runs (the reference when v is NULL). */
const mp_variant *mp_e2e_choice_variant(const mp_e2e_choice *c);

/* e2e-spare.c: weight-sized buffers (huge pages when asked), and the buffers
 * of the last freed instance kept for the next (of kind SPARE_*). */
enum { SPARE_HEAD, SPARE_ARENA };
void *mp_e2e_big_alloc(size_t n);
void *mp_e2e_spare_alloc(size_t n, int nt, int kind, size_t *kept);
void mp_e2e_spare_release(void *p, size_t n, int nt, int kind);

/* e2e-spec.c: the M x K of linear l of the spec's model. */
void mp_e2e_lin_shape(const mp_e2e_spec *s, int l, int *m, int *k);

/* e2e-setup.c: the rows [m0, m1) of op thread tid of nt first-touched and owns;
 * e2e.c: the tokens [t0, t1) of thread tid of nt out of n. */
void mp_e2e_own_rows(const mp_op *op, int tid, int nt, int *m0, int *m1);
void mp_e2e_tok_range(int n, int tid, int nt, int *t0, int *t1);

/* e2e.c: the element-wise steps a linear group may fuse, on elements [i0, i1)
 * of one token: x += y, and the gated activation g = act(g) * u. */
void mp_e2e_add_to(float *x, const float *y, int i0, int i1);
void mp_e2e_ffn_act(const mp_e2e *m, float *restrict g, const float *restrict u, int i0, int i1);
/* e2e.c: one step of a forward call: fn over the pool (on thread 0 alone when
 * items < 2 or the run has one thread), its time booked to profile group
 * `group` when profiling. */
void mp_e2e_step(mp_e2e *m, int group, mp_task_fn fn, void *arg, int items);

/* What a linear group's compute task also does on the rows it computed (its
 * own, from memory it has in cache): element-wise work whose result does not
 * depend on who does it, so it needs no hand-over of its own. */
enum {
    MP_E2E_FUSE_NONE,
    MP_E2E_FUSE_ACT,  /* gate,up: g = act(g) * u */
    MP_E2E_FUSE_RESID /* x += y */
};
/* e2e-linear.c: the ops which[0..nops) of the current layer on input x into
 * y[0..nops), their time booked to group; returns whether the element-wise
 * work `fuse` was done too (not when a peer library computes one of the ops,
 * nor when the ops' row splits differ). */
int mp_e2e_linear(mp_e2e *m, int group, const float *x, int nops, const int *which,
                  float *const *y, int fuse);

/* ---- the instance ---------------------------------------------------------------- */
typedef struct layer_w {
    float *attn_norm, *ffn_norm, *attn_sub, *ffn_sub;
    mp_op op[MP_E2E_NLIN];
} layer_w;

enum tok_stage {
    ST_ATTN_NORM, ST_ROPE_STORE, ST_ATTN_SUB, ST_FFN_NORM, ST_FFN_ACT, ST_FFN_SUB, ST_FINAL
};

struct mp_e2e {
    mp_e2e_spec s;
    mp_pool *pool;
    int nt;
    int hidden, qd, kvd, inter, hd, nh, nkv, vocab, nl, relu2, sub_norm;
    float eps;
    mp_e2e_head_fmt hf;
    size_t head_row;      /* bytes of one embedding/head row in format hf */
    uint8_t *emb, *head;  /* vocab rows of head_row bytes; head == emb when tied */
    float *final_norm;
    layer_w *lw;
    uint8_t *warena;      /* every packed tensor, each at a 4 KB boundary */
    size_t arena_bytes;
    float *kv;            /* [layer][seq][k|v][kv_head][ctx][hd] */
    int *seq_len;
    float *rope_cos, *rope_sin; /* [ctx][hd/2] */
    float *x, *xn, *q, *k, *v, *att, *tmp, *g, *u, *hn;
    void *act[MP_E2E_NLIN];
    void **scratch;       /* per thread, for the variants */
    float *att_scr;       /* per thread: max_ctx scores */
    uint8_t *hpx;         /* per wanted token: its final state prepared for the head */
    size_t hpx_bytes;
    int *pos, *wanted;    /* per token of the current call */
    int *best;            /* per wanted token: argmax of its logits */
    int hrows, hchunks;   /* the head in chunks of hrows vocabulary rows */
    int *amax_i;          /* per chunk x max_tokens: the argmax of the chunk's rows */
    float *amax_v;
    _Atomic int *hnext;   /* per thread (64 bytes apart): its next own chunk */
    _Atomic int *lnext;   /* the same for the linears' chunks (lin_comp_task) */
    mp_e2e_mem mem;
    mp_e2e_setup setup;
    /* --profile: seconds per group since mp_e2e_profile(m, 1) */
    int profiling;
    double prof[MP_E2E_NPROF];
    double *busy;         /* per thread: seconds inside the current pool task */
    double *late;         /* per thread: seconds from the hand-over to its start */
    /* MPBENCH_E2E_SYNC=1: "sync" per group split into wake-up (the last
     * thread's start), imbalance (slowest minus mean busy) and the rest */
    double syncd[MP_E2E_NPROF][4];
    /* the current call */
    const int *tok, *seq;
    int n, nwant, layer, stage, resid;
    float *logits;
};

#endif
