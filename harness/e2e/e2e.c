/* e2e.c - the end-to-end runner (DESIGN.md "End-to-end runner"): a BitNet-style
 * decoder whose ternary linear layers run through registry variants.
 *
 * Architecture, exactly as the model file says: token embedding; per layer
 * RMSNorm -> q,k,v -> RoPE (rotate-half, theta from the file) -> grouped-query
 * attention over a KV cache -> [attn_sub_norm] -> o -> residual; RMSNorm ->
 * gate,up -> silu(gate)*up or relu(gate)^2*up (relu2) -> [ffn_sub_norm] -> down
 * -> residual; final RMSNorm; output head (tied to the embedding when the file
 * says tied).  No biases (none of the real models has them).
 *
 * Weights are synthetic and seeded (as the papers do for speed): every ternary
 * linear (q,k,v,o,gate,up,down) gets uniform {-1,0,1} int8 weights (±1 for an
 * int1-domain variant) from mp_gen_weights and one per-tensor scale
 * 1/sqrt(2K/3), which keeps the output RMS near the input's; it is packed ONCE
 * with its variant and the int8 copy is dropped.  Embedding and head are
 * 16-bit (bf16, like the released GGUFs' f16 embedding; bf16 because its
 * conversion is a shift in portable C), or q8_0 / q4_0 with --lm-head
 * (harness/e2e-head.c); norm weights are floats near 1.  The KV cache is
 * float32.
 *
 * What runs in float, and why in portable C here: norms, RoPE and the
 * activation are plain loops (dot products on GNU C vector types with 8 fixed
 * lanes), so they vectorize at -O2 without ISA flags.  The head, the one large
 * float-side read, and attention (its two dot-product loops and the softmax),
 * the largest float work at prefill, have their own per-ISA templates
 * (harness/e2e-head.c, harness/e2e-attn.c), each copy with the same bits.
 *
 * Parallel work (issue 17), all on the run's one persistent pool (pinned
 * threads, no thread created per operation, a hand-over only where the next
 * step needs the previous one's output: per decoder layer qkv, attention, o,
 * gate/up and down, then the head - five per layer): linears over rows (equal
 * bytes per thread, aligned to the variant's m_align) with the element-wise
 * step after them fused into the same task (the gated activation after
 * gate/up, the residual add after o and down), their activation work over
 * (op, token) when there are several tokens, norms/RoPE over tokens,
 * attention over (token, head) pairs, the head over vocabulary rows with the
 * argmax per chunk combined in chunk order.  Every thread first reads the
 * weights it first-touched at setup (see "setup" below), which on several
 * NUMA nodes keeps each thread's stream on its own node; a thread done with
 * its own rows then takes chunks another thread has not started (linears: 4
 * per thread and op at one token, 16 of whole 64-row tiles at several; head:
 * ~1 MB), so one slow or preempted thread does not
 * hold a step up - on several nodes such late chunks are read across nodes,
 * only at the end of a step.  The same split holds at 16-64 threads (rows per
 * thread shrink, the head's 128k rows and the FFN's thousands of rows still
 * give every thread work; attention needs n x heads >= threads to use them
 * all, which decode with 20-32 heads has).  Every row and element is computed
 * whole by one call whoever takes it, so the outputs are identical for every
 * thread count (tests/test_e2e_limit.c checks 1, 2, 3 and 8).
 * The head is not routed through a registry variant because its weights are
 * not ternary in any of the real models (Falcon3 keeps lm_head bf16, BitNet
 * 2B-4T ties it to the embedding).
 *
 * Numerics.  Each linear layer is one mp_op: the variant's prepare quantizes the
 * activations (per-token absmax, DESIGN.md "Numerics") and compute produces the
 * rows.  The reference arithmetic is a pseudo-variant in this file (int8 copy,
 * mp_quant_row, mp_ref_gemm_q's int32 sums, mp_dequant), so the reference
 * decoder is the same code with other ops: a lossless variant gives
 * bit-identical logits and tokens.  Every
 * float computation for a token depends only on that token and its cache
 * (fixed summation orders, the same code for prefill and decode, no dependence
 * on the thread split), so decoding with the cache gives exactly the logits of
 * recomputing the whole sequence whenever the linear kernels are per-token
 * deterministic (the reference and every lossless variant).
 *
 * Each op gets its own activation buffer (prepare is never shared between q,k,v
 * or gate,up, because the contract lets prepare depend on the op).  Forward
 * calls longer than max_tokens are the caller's to split.  Nothing is allocated
 * per token: create() allocates everything for max_tokens/max_seqs/max_ctx. */
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

const char *const mp_e2e_prof_name[MP_E2E_NPROF] = {
    "qkv", "o", "ffn_up", "ffn_down", "act_quant", "lm_head", "embedding", "attention",
    "norms", "sync", "other"};

enum { HEAD_CHUNK = 64 }; /* bf16 rows a setup thread converts at a time */

/* The head is read in chunks of about 1 MB of rows: thread t owns the chunks
 * tok_range(chunks, t) gives (it first-touches them at setup and reads them
 * first), and a thread done with its own takes the others' remaining chunks
 * (head_task), so a slower or preempted thread does not hold the token up. */
enum { HEAD_STEAL_BYTES = 1 << 20 };

static int head_chunk_rows(size_t row_bytes, int vocab, int nt)
{
    size_t r = HEAD_STEAL_BYTES / (row_bytes ? row_bytes : 1);
    size_t quarter = ((size_t)vocab + 4 * (size_t)nt - 1) / (4 * (size_t)nt);
    r = r < quarter ? r : quarter; /* at least ~4 chunks per thread to share */
    return r < 4 ? 4 : r > (1 << 20) ? 1 << 20 : (int)r;
}

/* ---- the reference arithmetic as a pseudo-variant ------------------------------
 * packed = the int8 weights; act = {float xs[n] padded to 64 bytes; int8 q[n][k]}. */
static size_t ref_packed_size(int m, int k, const int *param)
{
    (void)param;
    return (size_t)m * k;
}

static void ref_pack(const int8_t *w, float w_scale, int m, int k, const int *param, uint8_t *out)
{
    (void)w_scale, (void)param;
    memcpy(out, w, (size_t)m * k);
}

static size_t ref_xs_bytes(int n)
{
    return ((size_t)n * sizeof(float) + 63) & ~(size_t)63;
}

static size_t ref_act_size(int n, int k, const int *param)
{
    (void)param;
    return ref_xs_bytes(n) + (size_t)n * k;
}

static void ref_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1)
{
    float *xs = act;
    int8_t *q = (int8_t *)act + ref_xs_bytes(n);
    for (int t = t0; t < t1; t++)
        xs[t] = mp_quant_row(x + (size_t)t * op->k, op->k, q + (size_t)t * op->k);
}

/* The int32 sum of one row's int8 products, in 16 lanes the compiler
 * vectorizes at -O2 without ISA flags (mp_ref_gemm_q's loop, which may alias
 * its output, stays scalar: ~10x slower, and the lossless check decodes every
 * prompt with the reference).  Integer addition is exact in any order (|sum|
 * <= 127 K, far inside int32), so the sum is mp_ref_gemm_q's bit for bit. */
static int32_t ref_dot(const int8_t *restrict w, const int8_t *restrict q, int k)
{
    int32_t lane[16] = {0};
    int i = 0;
    for (; i + 16 <= k; i += 16)
        for (int j = 0; j < 16; j++)
            lane[j] += (int16_t)(w[i + j] * q[i + j]); /* |w q| <= 127 */
    int32_t s = 0;
    for (int j = 0; j < 16; j++)
        s += lane[j];
    for (; i < k; i++)
        s += (int32_t)w[i] * q[i];
    return s;
}

static void ref_compute(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                        void *scratch)
{
    (void)scratch;
    const float *xs = act;
    const int8_t *q = (const int8_t *)act + ref_xs_bytes(n), *w = (const int8_t *)op->w;
    for (int t = 0; t < n; t++)
        for (int r = m0; r < m1; r++)
            y[(size_t)t * op->m + r] = mp_dequant(ref_dot(w + (size_t)r * op->k,
                                                          q + (size_t)t * op->k, op->k),
                                                  op->w_scale, xs[t]);
}

static const mp_variant ref_variant = {
    .name = "reference", .method = "REF", .family = MP_FAMILY_BASELINE, .isa = MP_ISA_SCALAR,
    .exactness = MP_LOSSLESS, .domain = MP_DOMAIN_TERNARY, .k_multiple = 1, .m_align = 1,
    .source = "DESIGN.md Numerics", .packed_size = ref_packed_size, .pack = ref_pack,
    .act_size = ref_act_size, .prepare = ref_prepare, .compute = ref_compute,
};

static const mp_variant *choice_variant(const mp_e2e_choice *c)
{
    return c->v ? c->v : &ref_variant;
}

/* ---- small float helpers (portable, vectorizable) -------------------------------- */

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
/* Dot product with 8 independent partial sums (two 4-lane vectors) and a
 * scalar tail: a fixed order, so the result does not depend on the caller or
 * the thread split. */
static float dot8(const float *restrict a, const float *restrict b, int n)
{
    mp_v4f acc0 = {0, 0, 0, 0}, acc1 = {0, 0, 0, 0};
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        mp_v4f x0, y0, x1, y1;
        memcpy(&x0, a + i, sizeof x0);
        memcpy(&y0, b + i, sizeof y0);
        memcpy(&x1, a + i + 4, sizeof x1);
        memcpy(&y1, b + i + 4, sizeof y1);
        acc0 += x0 * y0;
        acc1 += x1 * y1;
    }
    float tail = 0.0f;
    for (; i < n; i++)
        tail += a[i] * b[i];
    mp_v4f s = acc0 + acc1;
    return ((s[0] + s[2]) + (s[1] + s[3])) + tail;
}

/* out = x / rms(x) * w; out may alias x. */
static void rmsnorm(const float *x, const float *w, int n, float eps, float *out)
{
    float ss = dot8(x, x, n);
    float r = 1.0f / sqrtf(ss / (float)n + eps);
    int i = 0;
    for (; i + 4 <= n; i += 4) { /* the scalar loop's operations, 4 at a time */
        mp_v4f a, b;
        memcpy(&a, x + i, sizeof a);
        memcpy(&b, w + i, sizeof b);
        a = a * r * b;
        memcpy(out + i, &a, sizeof a);
    }
    for (; i < n; i++)
        out[i] = x[i] * r * w[i];
}

/* x[i0..i1) += y[i0..i1) */
static void add_to(float *x, const float *y, int i0, int i1)
{
    int i = i0;
    for (; i + 4 <= i1; i += 4) {
        mp_v4f a, b;
        memcpy(&a, x + i, sizeof a);
        memcpy(&b, y + i, sizeof b);
        a += b;
        memcpy(x + i, &a, sizeof a);
    }
    for (; i < i1; i++)
        x[i] += y[i];
}

/* Weight-sized buffers (packed tensors, embedding, head, KV cache) ask for
 * transparent huge pages: a decoded token streams about a gigabyte, and with
 * 4 KB pages every 4 KB of it is a TLB miss and a page walk (the common THP
 * setting, "madvise", gives huge pages only to memory that asks).  The
 * buffers come from mp_big_alloc_as (harness/bigmem.c, shared with the probe
 * that bounds a token's time, so both sit on the same page kind); mp_free
 * (free) releases them.  MPBENCH_E2E_HUGEPAGES=0 turns the advice off (for
 * comparisons). */
int mp_e2e_huge_pages(void)
{
    static int on = -1;
    if (on < 0) {
        const char *e = getenv("MPBENCH_E2E_HUGEPAGES");
        on = !(e && !strcmp(e, "0"));
    }
    return on;
}

static void *big_alloc(size_t n)
{
    return mp_big_alloc_as(n, mp_e2e_huge_pages());
}

/* The weight buffers of the last freed instance are kept for the next one
 * (issue 17): every variant of a run builds an instance with the same
 * vocab x head_row embedding/head buffers and a packed arena of about the same
 * size, and on a VM fresh memory costs the kernel's page zeroing (here 38% of
 * the samples of a one-variant 2B-4T setup on 2 threads and a quarter of a
 * three-variant one, perf cpu-clock) before a byte of it is written.
 *  - The embedding/head (SPARE_HEAD) is taken only by a buffer of the same
 *    size built on as many threads: its rows then have the same owners
 *    (head_rows_of), so its pages already sit on the NUMA node of the thread
 *    that reads them.
 *  - The packed arena (SPARE_ARENA) is taken by an arena of at most its size
 *    and at least 7/8 of it (the 2-bit layouts of most variants), built on as
 *    many threads, and only on a machine of one NUMA node: another variant's
 *    layout maps rows to other bytes, so on several nodes its pages would sit
 *    on the wrong ones; there every instance first-touches fresh memory.
 * The first-touch pass (touch_task) writes every byte of either, fresh or
 * kept, so nothing of the last instance survives.  A request that no spare
 * fits frees them all first, so a run never holds more than one instance's
 * buffers plus at most an eighth of an arena.  mp_e2e_spares_free() returns
 * them (the end of a run). */
enum { SPARE_HEAD, SPARE_ARENA, NSPARE = 3 };
static struct spare {
    void *p;
    size_t bytes;
    int nt, kind;
} spares[NSPARE];
static pthread_mutex_t spares_mu = PTHREAD_MUTEX_INITIALIZER;

/* 1 when /sys says this machine has one NUMA node (0 when it has several or
 * cannot tell). */
static int one_numa_node(void)
{
    static int one = -1;
    if (one < 0) {
        char buf[64] = "";
        FILE *f = fopen("/sys/devices/system/node/online", "r");
        if (f) {
            if (!fgets(buf, sizeof buf, f))
                buf[0] = 0;
            fclose(f);
        }
        one = !strcmp(buf, "0\n") || !strcmp(buf, "0");
    }
    return one;
}

static int spare_fits(const struct spare *sp, size_t n, int nt, int kind)
{
    if (!sp->p || sp->kind != kind || sp->nt != nt)
        return 0;
    if (kind == SPARE_HEAD)
        return sp->bytes == n;
    return one_numa_node() && sp->bytes >= n && n >= sp->bytes - sp->bytes / 8;
}

static void *spare_alloc(size_t n, int nt, int kind, size_t *kept)
{
    void *p = NULL;
    pthread_mutex_lock(&spares_mu);
    for (int i = 0; i < NSPARE && !p; i++)
        if (spare_fits(&spares[i], n, nt, kind)) {
            p = spares[i].p;
            spares[i].p = NULL;
        }
    if (!p)
        for (int i = 0; i < NSPARE; i++) {
            mp_free(spares[i].p);
            spares[i].p = NULL;
        }
    pthread_mutex_unlock(&spares_mu);
    if (p)
        *kept += n;
    return p ? p : big_alloc(n);
}

static void spare_release(void *p, size_t n, int nt, int kind)
{
    pthread_mutex_lock(&spares_mu);
    for (int i = 0; i < NSPARE && p; i++)
        if (!spares[i].p) {
            spares[i] = (struct spare){p, n, nt, kind};
            p = NULL;
        }
    pthread_mutex_unlock(&spares_mu);
    mp_free(p);
}

void mp_e2e_spares_free(void)
{
    pthread_mutex_lock(&spares_mu);
    for (int i = 0; i < NSPARE; i++) {
        mp_free(spares[i].p);
        spares[i].p = NULL;
    }
    pthread_mutex_unlock(&spares_mu);
}

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

size_t mp_e2e_mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    size_t kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %zu kB", &kb) == 1)
            break;
    fclose(f);
    return kb * 1024;
}

static void lin_shape(const mp_e2e_spec *s, int l, int *m, int *k)
{
    mp_linear ls[8];
    mp_model_linears(&s->model, ls);
    *m = ls[l].m;
    *k = ls[l].k;
}

void mp_e2e_estimate(const mp_e2e_spec *s, mp_e2e_mem *mem)
{
    const mp_model *md = &s->model;
    memset(mem, 0, sizeof *mem);
    size_t max_scr = 0, staging = 0, acts = 0;
    for (int l = 0; l < MP_E2E_NLIN; l++) {
        const mp_variant *v = choice_variant(&s->lin[l]);
        const int *p = s->lin[l].param;
        int m, k;
        lin_shape(s, l, &m, &k);
        mem->ternary += v->packed_size(m, k, p) * (size_t)s->layers;
        mem->ternary_weights += (double)m * k * s->layers;
        acts += v->act_size(s->max_tokens, k, p);
        size_t sc = v->scratch_size ? v->scratch_size(s->max_tokens, k, p) : 0;
        if (sc > max_scr)
            max_scr = sc;
        if ((size_t)m * k > staging)
            staging = (size_t)m * k;
    }
    size_t H = (size_t)md->hidden, qd = (size_t)md->heads * md->head_dim;
    size_t kvd = (size_t)md->kv_heads * md->head_dim, I = (size_t)md->intermediate;
    size_t V = (size_t)md->vocab, T = (size_t)s->max_tokens, nt = (size_t)s->threads;
    mem->floats = V * mp_e2e_head_row_bytes(s->head, md->hidden) * (md->tied ? 1 : 2) +
                  sizeof(float) * (H + (size_t)s->layers * (2 * H + qd + I));
    mem->kv = sizeof(float) * 2 * (size_t)s->layers * (size_t)s->max_seqs * (size_t)s->max_ctx * kvd;
    size_t bigd = H > qd ? H : qd;
    mem->scratch = sizeof(float) * T * (2 * H + bigd + qd + 2 * kvd + qd + H + 2 * I) + acts +
                   nt * max_scr + sizeof(float) * nt * (size_t)s->max_ctx +
                   T * mp_e2e_head_prep_bytes(s->head, md->hidden) +
                   sizeof(float) * (size_t)s->max_ctx * (size_t)md->head_dim +
                   (sizeof(int) + sizeof(float)) * (V / (size_t)head_chunk_rows(
                       mp_e2e_head_row_bytes(s->head, md->hidden), md->vocab, s->threads) + 1) *
                       T /* argmax */ +
                   2 * sizeof(int) * 16 * nt +
                   sizeof(float) * T * H /* hn */ +
                   sizeof(float) * V * (size_t)s->max_seqs /* the caller's logits rows */;
    mem->staging = staging * nt + sizeof(uint16_t) * H * HEAD_CHUNK * nt;
    mem->shared = s->shared ? mp_e2e_shared_bytes(md, s->layers) : 0;
    if (s->bound_read) { /* a token reads at most the weights and the KV cache */
        size_t tok = mem->ternary + mem->floats + mem->kv;
        mem->bound_read = tok < MP_E2E_BOUND_READ_CAP ? tok : MP_E2E_BOUND_READ_CAP;
    }
    mem->ref_logits = s->ref_logits;
    mem->total = mem->ternary + mem->floats + mem->kv + mem->scratch + mem->shared +
                 mem->ref_logits +
                 (mem->staging > mem->bound_read ? mem->staging : mem->bound_read);
}

static double gib(size_t b)
{
    return (double)b / (1024.0 * 1024.0 * 1024.0);
}

int mp_e2e_mem_check(const mp_e2e_spec *s, mp_err *e)
{
    mp_e2e_mem m;
    mp_e2e_estimate(s, &m);
    size_t avail = mp_e2e_mem_available();
    const char *cap = getenv("MPBENCH_E2E_MEM_LIMIT"); /* tests and shared machines */
    if (cap && *cap) {
        char *end;
        unsigned long long c = strtoull(cap, &end, 10);
        if (!*end && (avail == 0 || c < avail))
            avail = (size_t)c;
    }
    if (avail == 0)
        return MP_OK; /* unknown: do not guess */
    /* margin: a tenth of what is available, at least 128 MiB (half on tiny limits) */
    size_t floor_ = avail / 2 < (128u << 20) ? avail / 2 : (128u << 20);
    size_t margin = avail / 10 > floor_ ? avail / 10 : floor_;
    size_t usable = avail > margin ? avail - margin : 0;
    if (m.total > usable)
        return mp_fail(e, MP_EUSAGE,
                       "model %s (%d of %d layers) needs %.2f GiB (ternary %.2f, float parts "
                       "%.2f, KV cache %.2f, scratch %.2f, packing %.2f, shared %.2f, the decode "
                       "bound's read %.2f, reference logits %.2f; packing and that read never at "
                       "once) but only %.2f GiB is usable (MemAvailable %.2f GiB minus margin); "
                       "refusing instead of swapping: try fewer --layers, a smaller --batch, "
                       "shorter --pp/--tg or fewer --prompts/--tokens",
                       s->model.name, s->layers, s->model.layers, gib(m.total), gib(m.ternary),
                       gib(m.floats), gib(m.kv), gib(m.scratch), gib(m.staging), gib(m.shared),
                       gib(m.bound_read), gib(m.ref_logits), gib(usable),
                       gib(avail));
    return MP_OK;
}

int mp_e2e_parse_variant_for(const char *s, mp_e2e_choice *lin, int *set, mp_err *e)
{
    char buf[1024];
    if (!s || !*s || strlen(s) >= sizeof buf)
        return mp_fail(e, MP_EUSAGE, "--variant-for: missing or too long");
    strcpy(buf, s);
    char *save = NULL;
    for (char *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(it, '=');
        if (!eq || eq == it || !eq[1])
            return mp_fail(e, MP_EUSAGE,
                           "--variant-for: '%s' is not GROUP=VARIANT (groups: qkv, o, ffn_up, "
                           "ffn_down)", it);
        *eq = 0;
        const char *grp = it, *name = eq + 1;
        int lo, hi;
        if (!strcmp(grp, "qkv"))
            lo = MP_E2E_Q, hi = MP_E2E_V;
        else if (!strcmp(grp, "o"))
            lo = hi = MP_E2E_O;
        else if (!strcmp(grp, "ffn_up"))
            lo = MP_E2E_GATE, hi = MP_E2E_UP;
        else if (!strcmp(grp, "ffn_down"))
            lo = hi = MP_E2E_DOWN;
        else
            return mp_fail(e, MP_EUSAGE,
                           "--variant-for: unknown group '%s' (groups: qkv, o, ffn_up, ffn_down)",
                           grp);
        const mp_variant *sel[4];
        int n;
        mp_err e2;
        if (mp_select_variants(name, sel, 4, &n, &e2))
            return mp_fail(e, MP_EUSAGE, "--variant-for %s=%s: %s", grp, name, e2.msg);
        if (n != 1)
            return mp_fail(e, MP_EUSAGE,
                           "--variant-for %s=%s: matches %d variants; name exactly one", grp,
                           name, n);
        for (int l = lo; l <= hi; l++) {
            lin[l].v = sel[0];
            mp_variant_defaults(sel[0], lin[l].param);
            lin[l].binary = 0;
            set[l] = 1;
        }
    }
    return MP_OK;
}

int mp_e2e_check(const mp_e2e_spec *s, mp_err *e)
{
    const mp_model *md = &s->model;
    if (s->layers < 1 || s->layers > md->layers)
        return mp_fail(e, MP_EUSAGE, "--layers %d: model %s has %d layers", s->layers, md->name,
                       md->layers);
    if (s->max_seqs < 1 || s->max_ctx < 1 || s->max_tokens < 1 || s->threads < 1)
        return mp_fail(e, MP_EUSAGE, "e2e: sequences, context, tokens and threads must be >= 1");
    if (s->max_ctx > md->max_pos)
        return mp_fail(e, MP_EUSAGE,
                       "e2e: %d positions per sequence exceed model %s's max_pos %d",
                       s->max_ctx, md->name, md->max_pos);
    if (!mp_e2e_head_cols_ok(s->head, md->hidden))
        return mp_fail(e, MP_EUSAGE, "--lm-head %s: model %s's hidden size %d is not a multiple "
                       "of the format's 32-weight blocks", mp_e2e_head_name(s->head), md->name,
                       md->hidden);
    for (int l = 0; l < MP_E2E_NLIN; l++) {
        const mp_variant *v = s->lin[l].v;
        int m, k;
        lin_shape(s, l, &m, &k);
        if (!v)
            continue;
        if (s->src && s->src->ternary_only && v->domain == MP_DOMAIN_BINARY)
            return mp_fail(e, MP_EUSAGE, "layer %s (%dx%d) of %s: variant %s takes only +-1 "
                           "weights, but the weights of %s are ternary", lin_name[l], m, k,
                           md->name, v->name, s->src->name ? s->src->name : "the source");
        char why[256], isa[32];
        if (v->available && v->available(why, sizeof why)) /* issue 15: a peer's library */
            return mp_fail(e, MP_EUSAGE, "layer %s (%dx%d) of %s: variant %s is unavailable: %s",
                           lin_name[l], m, k, md->name, v->name, why);
        if (!mp_variant_available(v))
            return mp_fail(e, MP_EUSAGE,
                           "layer %s (%dx%d) of %s: variant %s needs ISA %s, which this CPU "
                           "lacks", lin_name[l], m, k, md->name, v->name,
                           mp_variant_isa_token(v, isa, sizeof isa));
        if (mp_variant_check(v, m, k, s->lin[l].param, why, sizeof why))
            return mp_fail(e, MP_EUSAGE, "layer %s (%dx%d) of %s: variant %s cannot take it: %s",
                           lin_name[l], m, k, md->name, v->name, why);
    }
    return MP_OK;
}

static uint64_t mix(uint64_t a, uint64_t b)
{
    mp_rng r = {a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull)};
    return mp_rng_next(&r);
}

static float *gen_norm(uint64_t seed, int n)
{
    float *w = mp_alloc(sizeof(float) * (size_t)n);
    mp_gen_acts(seed, w, (size_t)n);
    for (int i = 0; i < n; i++)
        w[i] = 1.0f + 0.05f * w[i];
    return w;
}

/* ---- the synthetic weight source (the default; mp_e2e_source) -------------------
 * Seeds: embedding mix(seed, 1001), head 1002, final norm 1003; layer l derives
 * ls = mix(seed, 2000 + l), its norms mix(ls, 1..4), linear i mix(ls, 10 + i). */
static int syn_matrix_rows(const mp_e2e_source *src, int which, uint16_t *out, int r0, int r1,
                           int cols, mp_err *e);

static int syn_matrix(const mp_e2e_source *src, int which, uint16_t *out, int rows, int cols,
                      mp_err *e)
{
    return syn_matrix_rows(src, which, out, 0, rows, cols, e);
}

static int syn_matrix_rows(const mp_e2e_source *src, int which, uint16_t *out, int r0, int r1,
                           int cols, mp_err *e)
{
    (void)e;
    float *rowbuf = mp_alloc(sizeof(float) * (size_t)cols);
    uint64_t seed = mix(src->seed, which ? 1002 : 1001);
    for (int r = r0; r < r1; r++) {
        mp_gen_acts(mix(seed, (uint64_t)r), rowbuf, (size_t)cols);
        for (int c = 0; c < cols; c++)
            out[(size_t)(r - r0) * cols + c] = f32_to_bf16(rowbuf[c]);
    }
    mp_free(rowbuf);
    return MP_OK;
}

static int syn_norm(const mp_e2e_source *src, int which, int layer, float *out, int n, mp_err *e)
{
    (void)e;
    uint64_t seed = which == 4 ? mix(src->seed, 1003)
                               : mix(mix(src->seed, 2000 + (uint64_t)layer), 1 + (uint64_t)which);
    float *w = gen_norm(seed, n);
    memcpy(out, w, sizeof(float) * (size_t)n);
    mp_free(w);
    return MP_OK;
}

static int syn_ternary(const mp_e2e_source *src, int layer, int lin, int binary, int8_t *w,
                       int m, int k, float *scale, mp_err *e)
{
    (void)e;
    uint64_t ls = mix(src->seed, 2000 + (uint64_t)layer);
    *scale = 1.0f / sqrtf((binary ? 1.0f : 2.0f / 3.0f) * (float)k);
    mp_gen_weights(mix(ls, 10 + (uint64_t)lin), w, (size_t)m * k, binary);
    return MP_OK;
}

void mp_e2e_synthetic(uint64_t seed, mp_e2e_source *src)
{
    memset(src, 0, sizeof *src);
    src->seed = seed;
    src->matrix = syn_matrix;
    src->norm = syn_norm;
    src->ternary = syn_ternary;
    src->matrix_rows = syn_matrix_rows;
    src->cache_id = "synthetic";
}

/* ---- setup (issue 17) -----------------------------------------------------------
 * Building an instance runs on the run's pool and places every weight where it
 * is read, so that the design holds on many cores and several NUMA nodes:
 *  1. First touch: each thread writes zeros over the bytes of every packed
 *     tensor and of the head that it will itself read in the forward pass (its
 *     rows, own_rows()/tok_range(), mapped to bytes in proportion: exact for
 *     row-major layouts, within a tile for blocked ones).  Linux places a page on
 *     the node of the thread that first writes it, so each thread later streams
 *     memory local to its node; on one node this costs one write pass.  Threads
 *     are pinned (harness/engine/pool.c), so the owner of a row range is fixed.
 *  2. Embedding and head rows are generated (the source's matrix_rows) and
 *     converted to the head format by the threads that own them.
 *  3. Ternary tensors come from the packed-weight cache when it holds a valid
 *     file (harness/e2e-cache.c), else they are generated and packed, one
 *     tensor per task, largest first, from an atomic counter; each thread has
 *     its own int8 staging.  The values do not depend on the thread that packs
 *     them: every tensor has its own seed.
 * Weights shared by several variants of a run come from mp_e2e_shared_create's
 * source, which generates each tensor once. */

/* Rows [m0, m1) of op that thread tid of nt computes: equal counts of m_align
 * units, i.e. equal bytes for the row-major and row-blocked layouts. */
static void own_rows(const mp_op *op, int tid, int nt, int *m0, int *m1)
{
    int align = op->v->m_align > 0 ? op->v->m_align : 1;
    int units = (op->m + align - 1) / align, per = (units + nt - 1) / nt;
    long a = (long)tid * per * align, b = (long)(tid + 1) * per * align;
    *m0 = a < op->m ? (int)a : op->m;
    *m1 = b < op->m ? (int)b : op->m;
}

static void tok_range(int n, int tid, int nt, int *t0, int *t1);


/* Vocabulary rows [r0, r1) of the chunks thread tid owns. */
static void head_rows_of(const mp_e2e *m, int tid, int nt, int *r0, int *r1)
{
    int c0, c1;
    tok_range(m->hchunks, tid, nt, &c0, &c1);
    *r0 = c0 * m->hrows < m->vocab ? c0 * m->hrows : m->vocab;
    *r1 = c1 * m->hrows < m->vocab ? c1 * m->hrows : m->vocab;
}

typedef struct setup_job {
    mp_e2e *m;
    const mp_e2e_source *src;
    int todo[MP_E2E_NLIN];  /* linears still to generate and pack */
    int order[MP_E2E_NLIN]; /* linears, largest first */
    int8_t **staging;       /* per thread */
    uint16_t **rows;        /* per thread: HEAD_CHUNK bf16 rows */
    _Atomic int next, failed;
    int rc;
    mp_err err;
} setup_job;

static void setup_fail(setup_job *j, int rc, const mp_err *e)
{
    if (atomic_exchange(&j->failed, 1) == 0) {
        j->rc = rc;
        j->err = *e;
    }
}

static void touch_task(void *arg, int tid, int nt)
{
    setup_job *j = arg;
    mp_e2e *m = j->m;
    for (int l = 0; l < m->nl; l++)
        for (int i = 0; i < MP_E2E_NLIN; i++) {
            const mp_op *op = &m->lw[l].op[i];
            size_t size = op->v->packed_size(op->m, op->k, op->param);
            int m0, m1;
            own_rows(op, tid, nt, &m0, &m1);
            size_t b0 = (size_t)((double)size * m0 / op->m);
            /* the last rows' owner also zeroes the gap up to the next tensor's
             * 4 KB boundary: a kept arena holds the last instance's bytes there */
            size_t b1 = m1 == op->m ? (size + 4095) & ~(size_t)4095
                                    : (size_t)((double)size * m1 / op->m);
            if (b1 > b0)
                memset((uint8_t *)op->w + b0, 0, b1 - b0);
        }
    int r0, r1;
    head_rows_of(m, tid, nt, &r0, &r1);
    if (r1 > r0) {
        memset(m->emb + (size_t)r0 * m->head_row, 0, (size_t)(r1 - r0) * m->head_row);
        if (m->head != m->emb)
            memset(m->head + (size_t)r0 * m->head_row, 0, (size_t)(r1 - r0) * m->head_row);
    }
}

/* The embedding (which 0) and untied head (1) rows this thread owns. */
static void matrix_task(void *arg, int tid, int nt)
{
    setup_job *j = arg;
    mp_e2e *m = j->m;
    int r0, r1, H = m->hidden;
    head_rows_of(m, tid, nt, &r0, &r1);
    for (int which = 0; which < (m->head != m->emb ? 2 : 1); which++) {
        uint8_t *dst = which ? m->head : m->emb;
        for (int r = r0; r < r1 && !atomic_load(&j->failed); r += HEAD_CHUNK) {
            int re = r + HEAD_CHUNK < r1 ? r + HEAD_CHUNK : r1;
            mp_err e;
            int rc = j->src->matrix_rows(j->src, which, j->rows[tid], r, re, H, &e);
            if (rc) {
                setup_fail(j, rc, &e);
                return;
            }
            for (int i = r; i < re; i++)
                mp_e2e_head_from_bf16(m->hf, j->rows[tid] + (size_t)(i - r) * H, H,
                                      dst + (size_t)i * m->head_row);
        }
    }
}

static void pack_task(void *arg, int tid, int nt)
{
    (void)nt;
    setup_job *j = arg;
    mp_e2e *m = j->m;
    int total = MP_E2E_NLIN * m->nl;
    for (;;) {
        int t = atomic_fetch_add(&j->next, 1);
        if (t >= total || atomic_load(&j->failed))
            return;
        int i = j->order[t / m->nl], l = t % m->nl;
        if (!j->todo[i])
            continue;
        const mp_e2e_choice *c = &m->s.lin[i];
        mp_op *op = &m->lw[l].op[i];
        int binary = c->v ? c->v->domain == MP_DOMAIN_BINARY : c->binary;
        mp_err e;
        int rc = j->src->ternary(j->src, l, i, binary, j->staging[tid], op->m, op->k,
                                 &op->w_scale, &e);
        if (rc) {
            setup_fail(j, rc, &e);
            return;
        }
        op->v->pack(j->staging[tid], op->w_scale, op->m, op->k, op->param, (uint8_t *)op->w);
    }
}

/* The cache key of linear i: what decides its packed bytes.  The file name
 * (ident) holds model, seed, variant, parameters and linear; the key inside
 * adds the build, the layer count, the shapes and sizes, so a file of another
 * build or shape under the same name is detected as stale. */
static void cache_key(const mp_e2e *m, const mp_e2e_source *src, int i, char *ident,
                      size_t ilen, char *key, size_t klen)
{
    const mp_e2e_choice *c = &m->s.lin[i];
    const mp_op *op = &m->lw[0].op[i];
    char ps[128] = "";
    if (op->v->n_params)
        mp_params_str(op->v, op->param, ps, sizeof ps);
    int binary = c->v ? c->v->domain == MP_DOMAIN_BINARY : c->binary;
    snprintf(ident, ilen, "%s|%s|seed=%llu|%s|%s|%s|%s", m->s.model.name, src->cache_id,
             (unsigned long long)src->seed, op->v->name, ps, lin_name[i], binary ? "pm1" : "tern");
    snprintf(key, klen, "%s|build=%s|layers=%d|%dx%d|bytes=%zu", ident, mp_e2e_cache_build(),
             m->nl, op->m, op->k, op->v->packed_size(op->m, op->k, op->param));
}

static int setup_weights(mp_e2e *m, const mp_e2e_source *src, mp_err *e)
{
    setup_job j = {.m = m, .src = src};
    for (int i = 0; i < MP_E2E_NLIN; i++)
        j.order[i] = i, j.todo[i] = 1;
    for (int a = 1; a < MP_E2E_NLIN; a++) /* largest first: the tail of the run is short */
        for (int b = a; b > 0; b--) {
            const mp_op *x = &m->lw[0].op[j.order[b]], *y = &m->lw[0].op[j.order[b - 1]];
            if ((long)x->m * x->k <= (long)y->m * y->k)
                break;
            int t = j.order[b];
            j.order[b] = j.order[b - 1];
            j.order[b - 1] = t;
        }
    mp_pool_run(m->pool, touch_task, &j);

    /* embedding and head */
    j.rows = calloc((size_t)m->nt, sizeof *j.rows);
    if (src->matrix_rows) {
        for (int t = 0; t < m->nt; t++)
            j.rows[t] = mp_alloc(sizeof(uint16_t) * (size_t)m->hidden * HEAD_CHUNK);
        mp_pool_run(m->pool, matrix_task, &j);
        for (int t = 0; t < m->nt; t++)
            mp_free(j.rows[t]);
    } else {
        uint16_t *all = mp_alloc(sizeof(uint16_t) * (size_t)m->vocab * m->hidden);
        for (int which = 0; which < (m->head != m->emb ? 2 : 1) && !j.failed; which++) {
            uint8_t *dst = which ? m->head : m->emb;
            int rc = src->matrix(src, which, all, m->vocab, m->hidden, e);
            if (rc) {
                setup_fail(&j, rc, e);
                break;
            }
            for (int r = 0; r < m->vocab; r++)
                mp_e2e_head_from_bf16(m->hf, all + (size_t)r * m->hidden, m->hidden,
                                      dst + (size_t)r * m->head_row);
        }
        mp_free(all);
    }
    free(j.rows);
    if (j.failed) {
        *e = j.err;
        return j.rc;
    }

    /* ternary tensors: the cache first */
    const char *dir = m->s.cache_dir && src->cache_id ? m->s.cache_dir : NULL;
    char ident[MP_E2E_NLIN][512], key[MP_E2E_NLIN][768];
    uint8_t **bufs = calloc((size_t)m->nl, sizeof *bufs);
    size_t *sizes = calloc((size_t)m->nl, sizeof *sizes);
    float *scales = calloc((size_t)m->nl, sizeof *scales);
    for (int i = 0; dir && i < MP_E2E_NLIN; i++) {
        /* not cached: a peer's (it packs itself) and the reference's (a copy
         * of the int8 weights, as fast to make as to read) */
        if (m->lw[0].op[i].v->self_threaded || !m->s.lin[i].v) {
            j.todo[i] = 2;
            continue;
        }
        cache_key(m, src, i, ident[i], sizeof ident[i], key[i], sizeof key[i]);
        for (int l = 0; l < m->nl; l++) {
            const mp_op *op = &m->lw[l].op[i];
            bufs[l] = (uint8_t *)op->w;
            sizes[l] = op->v->packed_size(op->m, op->k, op->param);
        }
        char note[256];
        int st = mp_e2e_cache_load(dir, ident[i], key[i], m->nl, bufs, sizes, scales, note,
                                   sizeof note);
        if (st == MP_E2E_CACHE_HIT) {
            j.todo[i] = 0;
            m->setup.cache_hit++;
            for (int l = 0; l < m->nl; l++)
                m->lw[l].op[i].w_scale = scales[l];
            continue;
        }
        if (st == MP_E2E_CACHE_STALE)
            m->setup.cache_stale++;
        else if (st == MP_E2E_CACHE_CORRUPT)
            m->setup.cache_corrupt++;
        else
            m->setup.cache_miss++;
        if (st != MP_E2E_CACHE_MISS && !m->setup.cache_note[0])
            snprintf(m->setup.cache_note, sizeof m->setup.cache_note, "%.250s", note);
    }
    int todo = 0;
    for (int i = 0; i < MP_E2E_NLIN; i++)
        todo += j.todo[i];
    if (todo) {
        j.staging = calloc((size_t)m->nt, sizeof *j.staging);
        size_t big = 0;
        for (int i = 0; i < MP_E2E_NLIN; i++)
            if ((size_t)m->lw[0].op[i].m * m->lw[0].op[i].k > big)
                big = (size_t)m->lw[0].op[i].m * m->lw[0].op[i].k;
        for (int t = 0; t < m->nt; t++)
            j.staging[t] = mp_alloc(big);
        mp_pool_run(m->pool, pack_task, &j);
        for (int t = 0; t < m->nt; t++)
            mp_free(j.staging[t]);
        free(j.staging);
    }
    int rc = j.failed ? j.rc : MP_OK;
    if (rc)
        *e = j.err;
    /* what was packed now goes to the cache; a failed write is only a warning */
    for (int i = 0; !rc && dir && i < MP_E2E_NLIN; i++) {
        if (j.todo[i] != 1)
            continue;
        for (int l = 0; l < m->nl; l++) {
            const mp_op *op = &m->lw[l].op[i];
            bufs[l] = (uint8_t *)op->w;
            sizes[l] = op->v->packed_size(op->m, op->k, op->param);
            scales[l] = op->w_scale;
        }
        mp_err we;
        if (mp_e2e_cache_save(dir, ident[i], key[i], m->nl, bufs, sizes, scales, &we) == MP_OK)
            m->setup.cache_written++;
        else if (!m->setup.cache_note[0])
            snprintf(m->setup.cache_note, sizeof m->setup.cache_note, "%.250s", we.msg);
    }
    free(bufs);
    free(sizes);
    free(scales);
    return rc;
}

int mp_e2e_create(const mp_e2e_spec *s, mp_pool *pool, mp_e2e **out, mp_err *e)
{
    *out = NULL;
    int rc = mp_e2e_check(s, e);
    if (rc)
        return rc;
    if (mp_pool_size(pool) > s->threads)
        return mp_fail(e, MP_EUSAGE, "e2e: pool has %d threads, spec says %d",
                       mp_pool_size(pool), s->threads);
    mp_e2e *m = calloc(1, sizeof *m);
    if (!m)
        return mp_fail(e, MP_ERUN, "e2e: out of memory");
    m->s = *s;
    m->pool = pool;
    m->nt = mp_pool_size(pool);
    const mp_model *md = &s->model;
    m->hidden = md->hidden, m->hd = md->head_dim, m->nh = md->heads, m->nkv = md->kv_heads;
    m->qd = m->nh * m->hd, m->kvd = m->nkv * m->hd, m->inter = md->intermediate;
    m->vocab = md->vocab, m->nl = s->layers, m->eps = (float)md->norm_eps;
    m->relu2 = !strcmp(md->ffn_act, "relu2");
    m->sub_norm = md->sub_norm;
    mp_e2e_estimate(s, &m->mem);

    double t_setup = mp_now();
    mp_e2e_head_init();
    mp_e2e_attn_init();
    size_t T = (size_t)s->max_tokens;
    mp_e2e_source syn;
    const mp_e2e_source *src = s->src;
    if (!src) {
        mp_e2e_synthetic(s->seed, &syn);
        src = &syn;
    }
    m->hf = s->head;
    m->head_row = mp_e2e_head_row_bytes(m->hf, m->hidden);
    m->hrows = head_chunk_rows(m->head_row, m->vocab, m->nt);
    m->hchunks = (m->vocab + m->hrows - 1) / m->hrows;
    m->emb = spare_alloc(m->head_row * (size_t)m->vocab, m->nt, SPARE_HEAD, &m->setup.kept);
    m->head = md->tied ? m->emb : spare_alloc(m->head_row * (size_t)m->vocab, m->nt,
                                              SPARE_HEAD, &m->setup.kept);
    m->final_norm = mp_alloc(sizeof(float) * (size_t)m->hidden);
    if ((rc = src->norm(src, 4, 0, m->final_norm, m->hidden, e)))
        goto fail;
    m->lw = calloc((size_t)m->nl, sizeof *m->lw);
    /* one arena for the packed tensors (most are below a huge page each) */
    size_t arena = 0;
    for (int i = 0; i < MP_E2E_NLIN; i++) {
        const mp_variant *v = choice_variant(&s->lin[i]);
        int mm, kk;
        lin_shape(s, i, &mm, &kk);
        arena += ((v->packed_size(mm, kk, s->lin[i].param) + 4095) & ~(size_t)4095) *
                 (size_t)m->nl;
    }
    m->warena = spare_alloc(arena, m->nt, SPARE_ARENA, &m->setup.kept);
    m->arena_bytes = arena;
    size_t at = 0;
    for (int l = 0; l < m->nl && !rc; l++) {
        layer_w *w = &m->lw[l];
        w->attn_norm = mp_alloc(sizeof(float) * (size_t)m->hidden);
        w->ffn_norm = mp_alloc(sizeof(float) * (size_t)m->hidden);
        w->attn_sub = mp_alloc(sizeof(float) * (size_t)m->qd);
        w->ffn_sub = mp_alloc(sizeof(float) * (size_t)m->inter);
        if ((rc = src->norm(src, 0, l, w->attn_norm, m->hidden, e)) ||
            (rc = src->norm(src, 1, l, w->ffn_norm, m->hidden, e)) ||
            (rc = src->norm(src, 2, l, w->attn_sub, m->qd, e)) ||
            (rc = src->norm(src, 3, l, w->ffn_sub, m->inter, e)))
            break;
        for (int i = 0; i < MP_E2E_NLIN; i++) {
            const mp_e2e_choice *c = &s->lin[i];
            mp_op *op = &w->op[i];
            op->v = choice_variant(c);
            lin_shape(s, i, &op->m, &op->k);
            memcpy(op->param, c->param, sizeof op->param);
            op->w = m->warena + at;
            at += (op->v->packed_size(op->m, op->k, op->param) + 4095) & ~(size_t)4095;
        }
    }
    if (rc)
        goto fail;
    if ((rc = setup_weights(m, src, e)))
        goto fail;


    m->kv = big_alloc(m->mem.kv);
    m->seq_len = calloc((size_t)s->max_seqs, sizeof *m->seq_len);
    int half = m->hd / 2;
    m->rope_cos = mp_alloc(sizeof(float) * (size_t)s->max_ctx * (half ? half : 1));
    m->rope_sin = mp_alloc(sizeof(float) * (size_t)s->max_ctx * (half ? half : 1));
    for (int p = 0; p < s->max_ctx; p++)
        for (int i = 0; i < half; i++) {
            double f = pow(md->rope_theta, -2.0 * i / m->hd), a = p * f;
            m->rope_cos[(size_t)p * half + i] = (float)cos(a);
            m->rope_sin[(size_t)p * half + i] = (float)sin(a);
        }
    int bigd = m->hidden > m->qd ? m->hidden : m->qd;
    m->x = mp_alloc(sizeof(float) * T * m->hidden);
    m->xn = mp_alloc(sizeof(float) * T * bigd);
    m->q = mp_alloc(sizeof(float) * T * m->qd);
    m->k = mp_alloc(sizeof(float) * T * m->kvd);
    m->v = mp_alloc(sizeof(float) * T * m->kvd);
    m->att = mp_alloc(sizeof(float) * T * m->qd);
    m->tmp = mp_alloc(sizeof(float) * T * m->hidden);
    m->g = mp_alloc(sizeof(float) * T * m->inter);
    m->u = mp_alloc(sizeof(float) * T * m->inter);
    m->hn = mp_alloc(sizeof(float) * T * m->hidden);
    size_t max_scr = 0;
    for (int i = 0; i < MP_E2E_NLIN; i++) {
        const mp_op *op = &m->lw[0].op[i];
        m->act[i] = mp_alloc(op->v->act_size(s->max_tokens, op->k, op->param));
        size_t sc = op->v->scratch_size ? op->v->scratch_size(s->max_tokens, op->k, op->param) : 0;
        if (sc > max_scr)
            max_scr = sc;
    }
    m->scratch = calloc((size_t)m->nt, sizeof *m->scratch);
    for (int t = 0; t < m->nt; t++)
        m->scratch[t] = max_scr ? mp_alloc(max_scr) : NULL;
    m->att_scr = mp_alloc(sizeof(float) * (size_t)m->nt * s->max_ctx);
    m->hpx_bytes = mp_e2e_head_prep_bytes(m->hf, m->hidden);
    m->hpx = mp_alloc(m->hpx_bytes * T);
    m->pos = calloc(T, sizeof *m->pos);
    m->wanted = calloc(T, sizeof *m->wanted);
    m->best = calloc(T, sizeof *m->best);
    m->amax_i = calloc(T * (size_t)m->hchunks, sizeof *m->amax_i);
    m->amax_v = calloc(T * (size_t)m->hchunks, sizeof *m->amax_v);
    m->hnext = calloc((size_t)m->nt * 16, sizeof *m->hnext);
    m->lnext = calloc((size_t)m->nt * 16, sizeof *m->lnext);
    m->busy = calloc((size_t)m->nt, sizeof *m->busy);
    m->late = calloc((size_t)m->nt, sizeof *m->late);
    m->setup.seconds = mp_now() - t_setup;
    *out = m;
    return MP_OK;
fail:
    mp_e2e_free(m);
    return rc;
}

void mp_e2e_free(mp_e2e *m)
{
    if (!m)
        return;
    if (m->head != m->emb && m->head)
        spare_release(m->head, m->head_row * (size_t)m->vocab, m->nt, SPARE_HEAD);
    if (m->emb)
        spare_release(m->emb, m->head_row * (size_t)m->vocab, m->nt, SPARE_HEAD);
    mp_free(m->final_norm);
    for (int l = 0; l < m->nl && m->lw; l++) {
        layer_w *w = &m->lw[l];
        mp_free(w->attn_norm);
        mp_free(w->ffn_norm);
        mp_free(w->attn_sub);
        mp_free(w->ffn_sub);
    }
    free(m->lw);
    if (m->warena)
        spare_release(m->warena, m->arena_bytes, m->nt, SPARE_ARENA);
    mp_free(m->kv);
    free(m->seq_len);
    mp_free(m->rope_cos);
    mp_free(m->rope_sin);
    float *bufs[] = {m->x, m->xn, m->q, m->k, m->v, m->att, m->tmp, m->g, m->u, m->hn};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        mp_free(bufs[i]);
    for (int i = 0; i < MP_E2E_NLIN; i++)
        mp_free(m->act[i]);
    for (int t = 0; t < m->nt && m->scratch; t++)
        mp_free(m->scratch[t]);
    free(m->scratch);
    mp_free(m->att_scr);
    mp_free(m->hpx);
    free(m->pos);
    free(m->wanted);
    free(m->best);
    free(m->amax_i);
    free(m->amax_v);
    free(m->hnext);
    free(m->lnext);
    free(m->busy);
    free(m->late);
    free(m);
}

void mp_e2e_reset(mp_e2e *m)
{
    memset(m->seq_len, 0, sizeof *m->seq_len * (size_t)m->s.max_seqs);
}

int mp_e2e_vocab(const mp_e2e *m)
{
    return m->vocab;
}

const mp_e2e_mem *mp_e2e_memory(const mp_e2e *m)
{
    return &m->mem;
}

/* ---- the forward pass ------------------------------------------------------------ */
static float *kv_at(mp_e2e *m, int layer, int seq, int which, int kvh, int pos)
{
    size_t C = (size_t)m->s.max_ctx;
    size_t base = (((size_t)layer * m->s.max_seqs + seq) * 2 + which) * m->nkv + kvh;
    return m->kv + (base * C + pos) * m->hd;
}

static void rope(float *x, const float *c, const float *s, int hd)
{
    int half = hd / 2, i = 0;
    /* 4 pairs at a time, the same operations lane by lane (unfused: -std=c11) */
    for (; i + 4 <= half; i += 4) {
        mp_v4f a, b, cc, ss;
        memcpy(&a, x + i, sizeof a);
        memcpy(&b, x + i + half, sizeof b);
        memcpy(&cc, c + i, sizeof cc);
        memcpy(&ss, s + i, sizeof ss);
        mp_v4f ra = a * cc - b * ss, rb = b * cc + a * ss;
        memcpy(x + i, &ra, sizeof ra);
        memcpy(x + i + half, &rb, sizeof rb);
    }
    for (; i < half; i++) {
        float a = x[i], b = x[i + half];
        x[i] = a * c[i] - b * s[i];
        x[i + half] = b * c[i] + a * s[i];
    }
}

/* Equal ranges of n items (tokens, vocabulary rows) for thread tid of nt. */
static void tok_range(int n, int tid, int nt, int *t0, int *t1)
{
    int per = (n + nt - 1) / nt;
    *t0 = tid * per;
    *t1 = *t0 + per < n ? *t0 + per : n;
}

/* e^x on 4 lanes (harness/mp_e2e_exp.h): no libm call, so SiLU vectorizes */
MP_E2E_EXP_DEFINE(exp4_at, mp_v4f, mp_v4i)
static inline mp_v4f exp4(mp_v4f x)
{
    exp4_at(&x);
    return x;
}

/* The gated activation of elements [i0, i1) of one token: g = act(g) * u.
 * relu2 on 4-lane vectors (a select, no branch): as a scalar loop (gcc -O2
 * did not vectorize it) its branch on the sign of g mispredicted half the time
 * and cost ~25 us per 2B-4T layer, most of the old "norms" time (issue 17). */
static void ffn_act(const mp_e2e *m, float *restrict g, const float *restrict u, int i0, int i1)
{
    if (m->relu2) {
        int i = i0;
        for (; i + 4 <= i1; i += 4) {
            mp_v4f x, y;
            memcpy(&x, g + i, sizeof x);
            memcpy(&y, u + i, sizeof y);
            x = (mp_v4f)((mp_v4i)x & (x > 0.0f)); /* max(x, 0) as the scalar select */
            x = x * x * y;
            memcpy(g + i, &x, sizeof x);
        }
        for (; i < i1; i++) {
            float r = g[i] > 0.0f ? g[i] : 0.0f;
            g[i] = r * r * u[i];
        }
    } else
        for (int i = i0; i < i1; i += 4) {
            /* a short tail goes through a zero-padded vector: every element
             * gets the same operations wherever a thread's rows end */
            mp_v4f x = {0, 0, 0, 0}, y = {0, 0, 0, 0};
            if (i + 4 <= i1) {
                memcpy(&x, g + i, sizeof x);
                memcpy(&y, u + i, sizeof y);
                x = x / (1.0f + exp4(-x)) * y;
                memcpy(g + i, &x, sizeof x);
                continue;
            }
            for (int l = 0; l < i1 - i; l++)
                x[l] = g[i + l], y[l] = u[i + l];
            x = x / (1.0f + exp4(-x)) * y;
            for (int l = 0; l < i1 - i; l++)
                g[i + l] = x[l];
        }
}

/* The per-token float stages (norms, RoPE + cache store, activation). */
static void tok_task(void *arg, int tid, int nt)
{
    mp_e2e *m = arg;
    const layer_w *w = m->stage == ST_FINAL ? NULL : &m->lw[m->layer];
    int t0, t1, H = m->hidden;
    tok_range(m->n, tid, nt, &t0, &t1);
    for (int t = t0; t < t1; t++) {
        float *x = m->x + (size_t)t * H;
        switch (m->stage) {
        case ST_ATTN_NORM:
        case ST_FFN_NORM:
            if (m->resid)
                add_to(x, m->tmp + (size_t)t * H, 0, H);
            rmsnorm(x, m->stage == ST_ATTN_NORM ? w->attn_norm : w->ffn_norm, H, m->eps,
                    m->xn + (size_t)t * H);
            break;
        case ST_ROPE_STORE: {
            int p = m->pos[t], half = m->hd / 2;
            const float *c = m->rope_cos + (size_t)p * half, *s = m->rope_sin + (size_t)p * half;
            for (int h = 0; h < m->nh; h++)
                rope(m->q + (size_t)t * m->qd + (size_t)h * m->hd, c, s, m->hd);
            for (int h = 0; h < m->nkv; h++) {
                float *kk = m->k + (size_t)t * m->kvd + (size_t)h * m->hd;
                rope(kk, c, s, m->hd);
                memcpy(kv_at(m, m->layer, m->seq[t], 0, h, p), kk, sizeof(float) * m->hd);
                memcpy(kv_at(m, m->layer, m->seq[t], 1, h, p),
                       m->v + (size_t)t * m->kvd + (size_t)h * m->hd, sizeof(float) * m->hd);
            }
            break;
        }
        case ST_ATTN_SUB: {
            float *a = m->att + (size_t)t * m->qd;
            rmsnorm(a, w->attn_sub, m->qd, m->eps, a);
            break;
        }
        case ST_FFN_ACT:
            ffn_act(m, m->g + (size_t)t * m->inter, m->u + (size_t)t * m->inter, 0, m->inter);
            if (m->sub_norm)
                rmsnorm(m->g + (size_t)t * m->inter, w->ffn_sub, m->inter, m->eps,
                        m->g + (size_t)t * m->inter);
            break;
        case ST_FFN_SUB:
            rmsnorm(m->g + (size_t)t * m->inter, w->ffn_sub, m->inter, m->eps,
                    m->g + (size_t)t * m->inter);
            break;
        case ST_FINAL:
            if (m->resid)
                add_to(x, m->tmp + (size_t)t * H, 0, H);
            if (m->wanted[t] >= 0) {
                float *hn = m->hn + (size_t)m->wanted[t] * H;
                rmsnorm(x, m->final_norm, H, m->eps, hn);
                mp_e2e_head_prep(m->hf, hn, H, m->hpx + (size_t)m->wanted[t] * m->hpx_bytes);
            }
            break;
        }
    }
}

/* ---- Profile ----------------------------------------------------------------------
 * With --profile every step of a forward call is timed on thread 0 with the
 * monotonic clock and its wall time added to one group.  A pool task's wall
 * time is split: the threads' mean busy time (each thread times its own part)
 * goes to the task's group, the rest - waking the workers, waiting for the
 * slowest, load imbalance - to "sync".  Whatever thread 0 spends between the
 * timed steps of a forward call goes to "other" (forward wall minus the steps),
 * so the groups partition each forward call's wall time exactly; the e2e
 * measurement adds the time outside forward calls (the token loop) to "other"
 * as well, and the parts then add up to the measured time up to rounding.  The
 * clock is read twice per step and per thread (tens of nanoseconds against the
 * microseconds or more of a step), so the profile barely perturbs the run. */
typedef struct timed {
    mp_e2e *m;
    mp_task_fn fn;
    void *arg;
    double t0;
} timed;

static void timed_task(void *a, int tid, int nt)
{
    timed *t = a;
    double t0 = mp_now();
    t->fn(t->arg, tid, nt);
    t->m->busy[tid] = mp_now() - t0;
    t->m->late[tid] = t0 - t->t0;
}

static void run(mp_e2e *m, int group, mp_task_fn fn, void *arg, int items)
{
    int par = items >= 2 && m->nt > 1;
    if (!m->profiling) {
        if (par)
            mp_pool_run(m->pool, fn, arg);
        else
            fn(arg, 0, 1);
        return;
    }
    double t0 = mp_now();
    if (!par) {
        fn(arg, 0, 1);
        m->prof[group] += mp_now() - t0;
        return;
    }
    timed t = {m, fn, arg, t0};
    mp_pool_run(m->pool, timed_task, &t);
    double wall = mp_now() - t0, mean = 0, late = 0, slow = 0;
    for (int i = 0; i < m->nt; i++) {
        mean += m->busy[i];
        late = m->late[i] > late ? m->late[i] : late;
        slow = m->busy[i] > slow ? m->busy[i] : slow;
    }
    mean /= m->nt;
    m->prof[group] += mean;
    m->prof[MP_E2E_P_SYNC] += wall - mean;
    double *d = m->syncd[group];
    d[0] += late, d[1] += slow - mean, d[2] += wall - mean - late - (slow - mean), d[3] += 1;
}

static void run_tok(mp_e2e *m, int stage, int resid)
{
    m->stage = stage;
    m->resid = resid;
    run(m, stage == ST_ROPE_STORE ? MP_E2E_P_ATTN : MP_E2E_P_NORMS, tok_task, m, m->n);
}

void mp_e2e_profile(mp_e2e *m, int on)
{
    const char *dbg = getenv("MPBENCH_E2E_SYNC");
    if (m->profiling && !on && dbg && *dbg && strcmp(dbg, "0"))
        for (int g = 0; g < MP_E2E_NPROF; g++)
            if (m->syncd[g][3] > 0)
                fprintf(stderr, "sync in %-9s %6.0f tasks: wake-up %.3f ms, imbalance %.3f ms, "
                        "rest %.3f ms (per task %.2f/%.2f/%.2f us)\n", mp_e2e_prof_name[g],
                        m->syncd[g][3], 1e3 * m->syncd[g][0], 1e3 * m->syncd[g][1],
                        1e3 * m->syncd[g][2], 1e6 * m->syncd[g][0] / m->syncd[g][3],
                        1e6 * m->syncd[g][1] / m->syncd[g][3],
                        1e6 * m->syncd[g][2] / m->syncd[g][3]);
    m->profiling = on;
    memset(m->prof, 0, sizeof m->prof);
    memset(m->syncd, 0, sizeof m->syncd);
}

void mp_e2e_profile_get(const mp_e2e *m, double *sec)
{
    memcpy(sec, m->prof, sizeof m->prof);
}

/* Attention for (token, head) pairs, round robin over threads: scores over the
 * token's positions 0..pos in its own sequence, softmax, weighted sum of V. */
static void attn_task(void *arg, int tid, int nt)
{
    mp_e2e *m = arg;
    int items = m->n * m->nh, grp = m->nh / m->nkv, hd = m->hd;
    float *sc = m->att_scr + (size_t)tid * m->s.max_ctx;
    float scale = 1.0f / sqrtf((float)hd);
    for (int it = tid; it < items; it += nt) {
        int t = it / m->nh, h = it % m->nh, p = m->pos[t], kvh = h / grp;
        const float *q = m->q + (size_t)t * m->qd + (size_t)h * hd;
        const float *kc = kv_at(m, m->layer, m->seq[t], 0, kvh, 0);
        const float *vc = kv_at(m, m->layer, m->seq[t], 1, kvh, 0);
        const mp_e2e_attn_copy *ac = mp_e2e_attn();
        ac->scores(q, kc, hd, p + 1, scale, sc);
        float sum = ac->softmax(sc, p + 1);
        float *o = m->att + (size_t)t * m->qd + (size_t)h * hd;
        ac->mix(sc, vc, hd, p + 1, o);
        float inv = 1.0f / sum;
        for (int d = 0; d < hd; d++)
            o[d] *= inv;
    }
}

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

/* What a linear group's compute task also does on the rows it computed (its
 * own, from memory it has in cache): element-wise work whose result does not
 * depend on who does it, so it needs no hand-over of its own. */
enum { FUSE_NONE, FUSE_ACT /* gate,up: g = act(g) * u */, FUSE_RESID /* x += y */ };

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
    own_rows(op, t, nt, &a, &b);
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

/* Item i of thread t's list: chunk i % split of op i / split (with FUSE_ACT
 * one item is the chunk of both gate and up, then the activation on it). */
static void lin_item(lin_job *j, int t, int i, int split, int tid, int nt)
{
    mp_e2e *m = j->m;
    int o0 = j->fuse == FUSE_ACT ? 0 : i / split, o1 = j->fuse == FUSE_ACT ? j->nops : o0 + 1;
    int m0 = 0, m1 = 0;
    for (int o = o0; o < o1; o++) {
        const mp_op *op = j->op[o];
        chunk_rows(op, t, i % split, split, nt, &m0, &m1);
        if (m0 < m1)
            op->v->compute(op, j->act[o], m->n, j->y[o], m0, m1, m->scratch[tid]);
    }
    if (j->fuse == FUSE_NONE || m0 >= m1)
        return;
    int M = j->op[0]->m;
    for (int tk = 0; tk < m->n; tk++) {
        if (j->fuse == FUSE_ACT)
            ffn_act(m, j->y[0] + (size_t)tk * M, j->y[1] + (size_t)tk * M, m0, m1);
        else
            add_to(m->x + (size_t)tk * M, j->y[0] + (size_t)tk * M, m0, m1);
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
        for (int i = 0; i < (j->fuse == FUSE_ACT ? 1 : j->nops); i++)
            lin_item(j, 0, i, 1, tid, 1);
        return;
    }
    /* Vector-LUT variants build their tables inside compute, per call: they
     * keep one call per thread's rows (still taken over whole when late) */
    int split = m->n > 1 ? LIN_SPLIT_N : LIN_SPLIT;
    for (int o = 0; o < j->nops; o++)
        if (j->op[o]->v->family == MP_FAMILY_VECLUT)
            split = 1;
    int items = (j->fuse == FUSE_ACT ? 1 : j->nops) * split;
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

/* Runs a linear group; returns whether the element-wise work `fuse` was done
 * too (not when a peer library computes one of the ops, nor when the ops'
 * row splits differ). */
static int linear(mp_e2e *m, int group, const float *x, int nops, const int *which,
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
            j.fuse = FUSE_NONE;
            continue;
        }
        j.op[j.nops] = op;
        j.act[j.nops] = m->act[which[o]];
        j.y[j.nops++] = y[o];
    }
    if (!j.nops)
        return 0;
    if (j.fuse == FUSE_ACT && (j.nops != 2 || j.op[0]->m != j.op[1]->m ||
                               j.op[0]->v->m_align != j.op[1]->v->m_align))
        j.fuse = FUSE_NONE;
    if (j.fuse == FUSE_RESID && (j.nops != 1 || j.op[0]->m != m->hidden))
        j.fuse = FUSE_NONE;
    /* one token: quantizing its activation is a microsecond or two; on thread
     * 0 it saves a pool hand-over per linear group (as the kernel measurement
     * does).  Table-building variants (prepared bytes >= 4 per input, T-MAC,
     * TL, VLUT: tens of microseconds per op) prepare the group's ops in
     * parallel instead. */
    const mp_op *o0 = j.op[0];
    int tables = o0->v->act_size(1, o0->k, o0->param) >= 4 * (size_t)o0->k;
    run(m, MP_E2E_P_ACT_QUANT, lin_prep_task, &j,
        m->n > 1 ? m->n * j.nops : tables ? j.nops : 1);
    for (int t = 0; t < m->nt; t++)
        atomic_store_explicit(&m->lnext[16 * t], 0, memory_order_relaxed);
    run(m, group, lin_comp_task, &j, 2);
    return j.fuse != FUSE_NONE;
}

enum { HEAD_CACHE_BYTES = 256 << 10 };

/* Chunk c for every wanted token: logits and the chunk's argmax per token. */
static void head_chunk(mp_e2e *m, int c)
{
    int H = m->hidden, V = m->vocab, r0 = c * m->hrows;
    int r1 = r0 + m->hrows < V ? r0 + m->hrows : V;
    int *bi = m->amax_i + (size_t)c * m->s.max_tokens;
    float *bv = m->amax_v + (size_t)c * m->s.max_tokens;
    for (int j = 0; j < m->nwant; j++)
        bi[j] = -1;
    /* with several tokens, a cache-sized piece at a time is read from memory
     * once and then from cache for the other tokens */
    int piece = m->nwant > 1 ? (int)(HEAD_CACHE_BYTES / m->head_row) : r1 - r0;
    if (piece < 4)
        piece = 4;
    for (int r = r0; r < r1; r += piece) {
        int re = r + piece < r1 ? r + piece : r1;
        for (int j = 0; j < m->nwant; j++) {
            float *l = m->logits + (size_t)j * V;
            mp_e2e_head_rows(m->hf, m->head + (size_t)r * m->head_row, re - r, H,
                             m->hpx + (size_t)j * m->hpx_bytes, l + r);
            for (int i = r; i < re; i++)
                if (bi[j] < 0 || l[i] > bv[j])
                    bi[j] = i, bv[j] = l[i];
        }
    }
}

static void head_task(void *arg, int tid, int nt)
{
    mp_e2e *m = arg;
    /* its own chunks first, then the others' that are left, in thread order */
    for (int k = 0; k < nt; k++) {
        int u = (tid + k) % nt, c0, c1;
        tok_range(m->hchunks, u, nt, &c0, &c1);
        for (;;) {
            int c = atomic_fetch_add_explicit(&m->hnext[16 * u], 1, memory_order_relaxed);
            if (c >= c1)
                break;
            head_chunk(m, c);
        }
    }
}

/* The head: vocabulary rows over threads in chunks (head_task), dotted with
 * every wanted token's prepared final state (harness/e2e-head.c).  Each chunk
 * keeps its argmax per token; they are combined in chunk order (a later chunk
 * wins only when strictly larger), so the result is mp_e2e_argmax's - the
 * lowest index on ties - whoever computed which chunk. */
static void head(mp_e2e *m)
{
    int nt = m->nt > 1 ? m->nt : 1;
    for (int t = 0; t < nt; t++) {
        int c0, c1;
        tok_range(m->hchunks, t, nt, &c0, &c1);
        atomic_store_explicit(&m->hnext[16 * t], c0, memory_order_relaxed);
    }
    run(m, MP_E2E_P_LM_HEAD, head_task, m, 2);
    double t0 = m->profiling ? mp_now() : 0;
    for (int j = 0; j < m->nwant; j++) {
        int best = -1;
        float bv = 0.0f;
        for (int c = 0; c < m->hchunks; c++) {
            int i = m->amax_i[(size_t)c * m->s.max_tokens + j];
            float v = m->amax_v[(size_t)c * m->s.max_tokens + j];
            if (i >= 0 && (best < 0 || v > bv))
                best = i, bv = v;
        }
        m->best[j] = best;
    }
    if (m->profiling)
        m->prof[MP_E2E_P_LM_HEAD] += mp_now() - t0;
}

const int *mp_e2e_tokens(const mp_e2e *m)
{
    return m->best;
}

int mp_e2e_forward(mp_e2e *m, const int *tok, const int *seq, int n, const unsigned char *want,
                   float *logits)
{
    if (n < 1 || n > m->s.max_tokens)
        return MP_EUSAGE;
    /* positions: each sequence continues where it stopped, in call order */
    for (int t = 0; t < n; t++)
        if (tok[t] < 0 || tok[t] >= m->vocab || seq[t] < 0 || seq[t] >= m->s.max_seqs)
            return MP_EUSAGE;
    for (int t = 0; t < n; t++)
        m->pos[t] = m->seq_len[seq[t]]++;
    for (int t = 0; t < n; t++)
        if (m->pos[t] >= m->s.max_ctx) {
            for (int u = 0; u < n; u++)
                m->seq_len[seq[u]]--;
            return MP_EUSAGE;
        }
    m->tok = tok, m->seq = seq, m->n = n, m->logits = logits;
    m->nwant = 0;
    for (int t = 0; t < n; t++)
        m->wanted[t] = (!want || want[t]) ? m->nwant++ : -1;
    double f0 = m->profiling ? mp_now() : 0, inside = 0;
    if (m->profiling)
        for (int g = 0; g < MP_E2E_NPROF; g++)
            inside -= m->prof[g];
    int H = m->hidden;
    for (int t = 0; t < n; t++)
        mp_e2e_head_row_f32(m->hf, m->emb + (size_t)tok[t] * m->head_row, H,
                            m->x + (size_t)t * H);
    if (m->profiling)
        m->prof[MP_E2E_P_EMBED] += mp_now() - f0;

    static const int qkv[3] = {MP_E2E_Q, MP_E2E_K, MP_E2E_V}, o[1] = {MP_E2E_O};
    static const int gu[2] = {MP_E2E_GATE, MP_E2E_UP}, dn[1] = {MP_E2E_DOWN};
    int resid = 0; /* whether x still lacks the last linear's output */
    for (int l = 0; l < m->nl; l++) {
        m->layer = l;
        run_tok(m, ST_ATTN_NORM, resid);
        float *yqkv[3] = {m->q, m->k, m->v};
        linear(m, MP_E2E_P_QKV, m->xn, 3, qkv, yqkv, FUSE_NONE);
        run_tok(m, ST_ROPE_STORE, 0);
        run(m, MP_E2E_P_ATTN, attn_task, m, n * m->nh);
        if (m->sub_norm)
            run_tok(m, ST_ATTN_SUB, 0);
        resid = !linear(m, MP_E2E_P_O, m->att, 1, o, &m->tmp, FUSE_RESID);
        run_tok(m, ST_FFN_NORM, resid);
        float *ygu[2] = {m->g, m->u};
        if (!linear(m, MP_E2E_P_FFN_UP, m->xn, 2, gu, ygu, FUSE_ACT))
            run_tok(m, ST_FFN_ACT, 0);
        else if (m->sub_norm)
            run_tok(m, ST_FFN_SUB, 0);
        resid = !linear(m, MP_E2E_P_FFN_DOWN, m->g, 1, dn, &m->tmp, FUSE_RESID);
    }
    run_tok(m, ST_FINAL, resid);
    if (m->nwant && logits)
        head(m);
    if (m->profiling) {
        for (int g = 0; g < MP_E2E_NPROF; g++)
            inside += m->prof[g];
        m->prof[MP_E2E_P_OTHER] += (mp_now() - f0) - inside;
    }
    return MP_OK;
}

int mp_e2e_argmax(const float *logits, int vocab)
{
    int best = 0;
    for (int i = 1; i < vocab; i++)
        if (logits[i] > logits[best])
            best = i;
    return best;
}

int mp_e2e_greedy(mp_e2e *m, const int *prompt, int plen, int gen, int *out, float *logits_buf)
{
    int zeros[MP_E2E_PROMPT_MAX * 4] = {0};
    unsigned char want[MP_E2E_PROMPT_MAX * 4] = {0};
    if (plen < 1 || plen > (int)(sizeof zeros / sizeof zeros[0]) || gen < 1)
        return MP_EUSAGE;
    mp_e2e_reset(m);
    want[plen - 1] = 1;
    int rc = mp_e2e_forward(m, prompt, zeros, plen, want, logits_buf);
    for (int i = 0; !rc && i < gen; i++) {
        out[i] = m->best[0];
        if (i + 1 < gen)
            rc = mp_e2e_forward(m, &out[i], zeros, 1, NULL, logits_buf);
    }
    return rc;
}

int mp_e2e_prompt(uint64_t seed, int p, int vocab, int *tok)
{
    mp_rng r = {mix(seed, 5000 + (uint64_t)p)};
    int len = MP_E2E_PROMPT_MIN +
              (int)(mp_rng_next(&r) % (uint64_t)(MP_E2E_PROMPT_MAX - MP_E2E_PROMPT_MIN + 1));
    for (int i = 0; i < len; i++)
        tok[i] = (int)(mp_rng_next(&r) % (uint64_t)vocab);
    return len;
}


const mp_e2e_setup *mp_e2e_setup_info(const mp_e2e *m)
{
    return &m->setup;
}

double mp_e2e_gemm_seconds(mp_e2e *m, int n, int head_rows, float *logits)
{
    if (n < 1 || n > m->s.max_tokens || head_rows < 0 || head_rows > n || (head_rows && !logits))
        return 0;
    static const int qkv[3] = {MP_E2E_Q, MP_E2E_K, MP_E2E_V}, o[1] = {MP_E2E_O};
    static const int gu[2] = {MP_E2E_GATE, MP_E2E_UP}, dn[1] = {MP_E2E_DOWN};
    mp_gen_acts(77, m->xn, (size_t)n * m->hidden);
    mp_gen_acts(78, m->att, (size_t)n * m->qd);
    mp_gen_acts(79, m->g, (size_t)n * m->inter);
    mp_gen_acts(80, m->hn, (size_t)head_rows * m->hidden);
    int prof = m->profiling;
    m->profiling = 0;
    m->n = n;
    double t0 = mp_now();
    for (int l = 0; l < m->nl; l++) {
        m->layer = l;
        float *yqkv[3] = {m->q, m->k, m->v}, *ygu[2] = {m->u, m->g};
        linear(m, MP_E2E_P_QKV, m->xn, 3, qkv, yqkv, FUSE_NONE);
        linear(m, MP_E2E_P_O, m->att, 1, o, &m->tmp, FUSE_NONE);
        linear(m, MP_E2E_P_FFN_UP, m->xn, 2, gu, ygu, FUSE_NONE);
        linear(m, MP_E2E_P_FFN_DOWN, m->g, 1, dn, &m->tmp, FUSE_NONE);
    }
    if (head_rows) { /* the head's rows: their input prepared, then the head */
        for (int j = 0; j < head_rows; j++)
            mp_e2e_head_prep(m->hf, m->hn + (size_t)j * m->hidden, m->hidden,
                             m->hpx + (size_t)j * m->hpx_bytes);
        m->nwant = head_rows;
        m->logits = logits;
        head(m);
    }
    double dt = mp_now() - t0;
    m->profiling = prof;
    return dt;
}
