/* e2e-linear.c - the decoder's ternary linear layers on the run's pool
 * (issue 17; e2e.c says where they sit in the forward pass): a group of ops
 * sharing one input (q,k,v; gate,up; o; down) is prepared over (op, token
 * chunk) items, then computed over row chunks of each thread's own
 * first-touched rows, aligned to the variant's m_align; a thread done with its
 * own takes the chunks others have not started, and the element-wise step
 * after the group (the gated activation, the residual add) is fused into the
 * chunks that computed its rows.  A peer library that threads itself runs its
 * op alone.  Every row is computed whole by one call, so the outputs do not
 * depend on the thread count. */
#include "e2e-private.h"

/* A group of linear ops sharing one input x (q,k,v or gate,up): prepare over
 * (op, token chunk) items, then compute over row ranges aligned to m_align. */
typedef struct lin_job {
    mp_e2e *m;
    int nops;
    const mp_op *op[3];
    void *act[3];
    float *y[3];
    const float *x;
    int fuse;
} lin_job;

static void lin_prep_task(void *arg, int tid, int nt)
{
    lin_job *j = arg;
    int n = j->m->n, chunks = n < nt ? n : nt, per = (n + chunks - 1) / chunks;
    for (int it = tid; it < j->nops * chunks; it += nt) {
        int o = it / chunks, c = it % chunks, t0 = c * per, t1 = t0 + per < n ? t0 + per : n;
        if (t0 < t1)
            j->op[o]->v->prepare(j->op[o], j->x, n, j->act[o], t0, t1);
    }
}

/* Rows of chunk k (of split) of thread t's own rows of op: the chunks keep the
 * first-touch split (own_rows) and its m_align units.
 *  - One token (decode, LIN_SPLIT): halving chunks, 1/2, 1/4, ... of the
 *    thread's units, the last two equal (1/32 each at 6), taken in that order:
 *    few chunk starts, and a fine last piece to hand over.  With 4 equal
 *    chunks, llama3-8b tg16 on 2 threads waited 21-35 us per ffn task for the
 *    slower thread, 2% of a token (MPBENCH_E2E_SYNC=1).
 *  - Several tokens (prefill, LIN_SPLIT_N): a chunk is compute-bound and a
 *    hundred times longer than at one token, so 16 equal chunks of whole
 *    64-row tiles: at 4, the wait for the last chunk was ~0.2 ms of a 2B-4T
 *    pp128 token's 4.9 on 2 threads.  (Both: the session notes of issue 17.) */
enum { LIN_SPLIT = 6, LIN_SPLIT_N = 16 };

static void chunk_rows(const mp_op *op, int t, int k, int split, int nt, int *m0, int *m1)
{
    int a, b, align = op->v->m_align > 0 ? op->v->m_align : 1;
    if (split > LIN_SPLIT && 64 % align == 0)
        align = 64; /* whole row tiles of the GEMMs (mtile <= 64 dividing 64) */
    mp_e2e_own_rows(op, t, nt, &a, &b);
    long units = (b - a + align - 1) / align, u0, u1;
    if (split == LIN_SPLIT) { /* units - units / 2^k before chunk k; the last ends at units */
        u0 = units - (units >> k);
        u1 = k + 1 < split ? units - (units >> (k + 1)) : units;
    } else {
        long per = (units + split - 1) / split;
        u0 = k * per, u1 = (k + 1) * per;
    }
    long c0 = a + u0 * align, c1 = a + u1 * align;
    *m0 = c0 < b ? (int)c0 : b;
    *m1 = c1 < b ? (int)c1 : b;
}

/* Item i of thread t's list: chunk i % split of op i / split (with MP_E2E_FUSE_ACT
 * one item is the chunk of both gate and up, then the activation on it). */
static void lin_item(lin_job *j, int t, int i, int split, int tid, int nt)
{
    mp_e2e *m = j->m;
    int both = j->fuse == MP_E2E_FUSE_ACT, o0 = both ? 0 : i / split, o1 = both ? j->nops : o0 + 1;
    int m0 = 0, m1 = 0;
    for (int o = o0; o < o1; o++) {
        const mp_op *op = j->op[o];
        chunk_rows(op, t, i % split, split, nt, &m0, &m1);
        if (m0 < m1)
            op->v->compute(op, j->act[o], m->n, j->y[o], m0, m1, m->scratch[tid]);
    }
    if (j->fuse == MP_E2E_FUSE_NONE || m0 >= m1)
        return;
    int M = j->op[0]->m;
    for (int tk = 0; tk < m->n; tk++) {
        if (j->fuse == MP_E2E_FUSE_ACT)
            mp_e2e_ffn_act(m, j->y[0] + (size_t)tk * M, j->y[1] + (size_t)tk * M, m0, m1);
        else
            mp_e2e_add_to(m->x + (size_t)tk * M, j->y[0] + (size_t)tk * M, m0, m1);
    }
}

/* Each thread computes its own rows (those it first-touched) in LIN_SPLIT (or
 * LIN_SPLIT_N) chunks per op, then takes the chunks other threads have not
 * started (their counters, in thread order): a thread slowed by its memory, a
 * neighbour or the scheduler does not hold the step up.  Rows are computed
 * whole by one call, so the results do not depend on who computed them. */
static void lin_comp_task(void *arg, int tid, int nt)
{
    lin_job *j = arg;
    mp_e2e *m = j->m;
    if (nt == 1) {
        for (int i = 0; i < (j->fuse == MP_E2E_FUSE_ACT ? 1 : j->nops); i++)
            lin_item(j, 0, i, 1, tid, 1);
        return;
    }
    /* Vector-LUT variants build their tables inside compute, per call: they
     * keep one call per thread's rows (still taken over whole when late) */
    int split = m->n > 1 ? LIN_SPLIT_N : LIN_SPLIT;
    for (int o = 0; o < j->nops; o++)
        if (j->op[o]->v->family == MP_FAMILY_VECLUT)
            split = 1;
    int items = (j->fuse == MP_E2E_FUSE_ACT ? 1 : j->nops) * split;
    for (int k = 0; k < nt; k++) {
        int u = (tid + k) % nt;
        for (;;) {
            int i = atomic_fetch_add_explicit(&m->lnext[16 * u], 1, memory_order_relaxed);
            if (i >= items)
                break;
            lin_item(j, u, i, split, tid, nt);
        }
    }
}

int mp_e2e_linear(mp_e2e *m, int group, const float *x, int nops, const int *which,
                  float *const *y, int fuse)
{
    lin_job j = {.m = m, .nops = 0, .x = x, .fuse = fuse};
    for (int o = 0; o < nops; o++) {
        mp_op *op = &m->lw[m->layer].op[which[o]];
        if (op->v->self_threaded) { /* issue 15: a peer library threads itself */
            double t0 = m->profiling ? mp_now() : 0;
            mp_pool_rest(m->pool, 0); /* yielding: their wake-up is timed here (pool.c) */
            op->threads = m->nt;
            op->v->prepare(op, x, m->n, m->act[which[o]], 0, m->n);
            op->v->compute(op, m->act[which[o]], m->n, y[o], 0, op->m, m->scratch[0]);
            /* issue 37: its threads must not poll on the cores of our work that
             * follows; the next linear wakes them (a wake-up per linear, as
             * before ggml polled) */
            if (op->v->keep_awake)
                op->v->keep_awake(op, 0);
            if (m->profiling)
                m->prof[group] += mp_now() - t0;
            j.fuse = MP_E2E_FUSE_NONE;
            continue;
        }
        j.op[j.nops] = op;
        j.act[j.nops] = m->act[which[o]];
        j.y[j.nops++] = y[o];
    }
    if (!j.nops)
        return 0;
    if (j.fuse == MP_E2E_FUSE_ACT && (j.nops != 2 || j.op[0]->m != j.op[1]->m ||
                               j.op[0]->v->m_align != j.op[1]->v->m_align))
        j.fuse = MP_E2E_FUSE_NONE;
    if (j.fuse == MP_E2E_FUSE_RESID && (j.nops != 1 || j.op[0]->m != m->hidden))
        j.fuse = MP_E2E_FUSE_NONE;
    /* one token: quantizing its activation is a microsecond or two; on thread
     * 0 it saves a pool hand-over per linear group (as the kernel measurement
     * does).  Table-building variants (prepared bytes >= 4 per input, T-MAC,
     * TL, VLUT: tens of microseconds per op) prepare the group's ops in
     * parallel instead. */
    const mp_op *o0 = j.op[0];
    int tables = o0->v->act_size(1, o0->k, o0->param) >= 4 * (size_t)o0->k;
    mp_e2e_step(m, MP_E2E_P_ACT_QUANT, lin_prep_task, &j,
        m->n > 1 ? m->n * j.nops : tables ? j.nops : 1);
    for (int t = 0; t < m->nt; t++)
        atomic_store_explicit(&m->lnext[16 * t], 0, memory_order_relaxed);
    mp_e2e_step(m, group, lin_comp_task, &j, 2);
    return j.fuse != MP_E2E_FUSE_NONE;
}
