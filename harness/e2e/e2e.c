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
#include "e2e-private.h"

const char *const mp_e2e_prof_name[MP_E2E_NPROF] = {
    "qkv", "o", "ffn_up", "ffn_down", "act_quant", "lm_head", "embedding", "attention",
    "norms", "sync", "other"};

/* ---- small float helpers (portable, vectorizable) -------------------------------- */

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

void mp_e2e_add_to(float *x, const float *y, int i0, int i1)
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
void mp_e2e_tok_range(int n, int tid, int nt, int *t0, int *t1)
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

/* relu2 on 4-lane vectors (a select, no branch): as a scalar loop (gcc -O2
 * did not vectorize it) its branch on the sign of g mispredicted half the time
 * and cost ~25 us per 2B-4T layer, most of the old "norms" time (issue 17). */
void mp_e2e_ffn_act(const mp_e2e *m, float *restrict g, const float *restrict u, int i0, int i1)
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
    mp_e2e_tok_range(m->n, tid, nt, &t0, &t1);
    for (int t = t0; t < t1; t++) {
        float *x = m->x + (size_t)t * H;
        switch (m->stage) {
        case ST_ATTN_NORM:
        case ST_FFN_NORM:
            if (m->resid)
                mp_e2e_add_to(x, m->tmp + (size_t)t * H, 0, H);
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
            mp_e2e_ffn_act(m, m->g + (size_t)t * m->inter, m->u + (size_t)t * m->inter, 0,
                           m->inter);
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
                mp_e2e_add_to(x, m->tmp + (size_t)t * H, 0, H);
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

void mp_e2e_step(mp_e2e *m, int group, mp_task_fn fn, void *arg, int items)
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
    mp_e2e_step(m, stage == ST_ROPE_STORE ? MP_E2E_P_ATTN : MP_E2E_P_NORMS, tok_task, m, m->n);
}

void mp_e2e_profile(mp_e2e *m, int on)
{
    if (m->profiling && !on && mp_env_long("MPBENCH_E2E_SYNC", 0) == 1)
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
        mp_e2e_tok_range(m->hchunks, u, nt, &c0, &c1);
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
        mp_e2e_tok_range(m->hchunks, t, nt, &c0, &c1);
        atomic_store_explicit(&m->hnext[16 * t], c0, memory_order_relaxed);
    }
    mp_e2e_step(m, MP_E2E_P_LM_HEAD, head_task, m, 2);
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
        mp_e2e_linear(m, MP_E2E_P_QKV, m->xn, 3, qkv, yqkv, MP_E2E_FUSE_NONE);
        run_tok(m, ST_ROPE_STORE, 0);
        mp_e2e_step(m, MP_E2E_P_ATTN, attn_task, m, n * m->nh);
        if (m->sub_norm)
            run_tok(m, ST_ATTN_SUB, 0);
        resid = !mp_e2e_linear(m, MP_E2E_P_O, m->att, 1, o, &m->tmp, MP_E2E_FUSE_RESID);
        run_tok(m, ST_FFN_NORM, resid);
        float *ygu[2] = {m->g, m->u};
        if (!mp_e2e_linear(m, MP_E2E_P_FFN_UP, m->xn, 2, gu, ygu, MP_E2E_FUSE_ACT))
            run_tok(m, ST_FFN_ACT, 0);
        else if (m->sub_norm)
            run_tok(m, ST_FFN_SUB, 0);
        resid = !mp_e2e_linear(m, MP_E2E_P_FFN_DOWN, m->g, 1, dn, &m->tmp, MP_E2E_FUSE_RESID);
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
        mp_e2e_linear(m, MP_E2E_P_QKV, m->xn, 3, qkv, yqkv, MP_E2E_FUSE_NONE);
        mp_e2e_linear(m, MP_E2E_P_O, m->att, 1, o, &m->tmp, MP_E2E_FUSE_NONE);
        mp_e2e_linear(m, MP_E2E_P_FFN_UP, m->xn, 2, gu, ygu, MP_E2E_FUSE_NONE);
        mp_e2e_linear(m, MP_E2E_P_FFN_DOWN, m->g, 1, dn, &m->tmp, MP_E2E_FUSE_NONE);
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
