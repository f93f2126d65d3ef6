/* e2e-setup.c - building an instance of the decoder (e2e.c): the synthetic
 * weight source, the parallel first-touch, conversion and packing of the
 * weights (or their pack cache, e2e-cache.c), and freeing it.
 *
 * Weights are synthetic and seeded (as the papers do for speed): see e2e.c. */
#include "e2e-private.h"

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
 *     rows, mp_e2e_own_rows()/mp_e2e_tok_range(), mapped to bytes in proportion: exact for
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
void mp_e2e_own_rows(const mp_op *op, int tid, int nt, int *m0, int *m1)
{
    int align = op->v->m_align > 0 ? op->v->m_align : 1;
    int units = (op->m + align - 1) / align, per = (units + nt - 1) / nt;
    long a = (long)tid * per * align, b = (long)(tid + 1) * per * align;
    *m0 = a < op->m ? (int)a : op->m;
    *m1 = b < op->m ? (int)b : op->m;
}

/* Vocabulary rows [r0, r1) of the chunks thread tid owns. */
static void head_rows_of(const mp_e2e *m, int tid, int nt, int *r0, int *r1)
{
    int c0, c1;
    mp_e2e_tok_range(m->hchunks, tid, nt, &c0, &c1);
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
            mp_e2e_own_rows(op, tid, nt, &m0, &m1);
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
    m->emb = mp_e2e_spare_alloc(m->head_row * (size_t)m->vocab, m->nt, SPARE_HEAD, &m->setup.kept);
    m->head = md->tied ? m->emb : mp_e2e_spare_alloc(m->head_row * (size_t)m->vocab, m->nt,
                                              SPARE_HEAD, &m->setup.kept);
    m->final_norm = mp_alloc(sizeof(float) * (size_t)m->hidden);
    if ((rc = src->norm(src, 4, 0, m->final_norm, m->hidden, e)))
        goto fail;
    m->lw = calloc((size_t)m->nl, sizeof *m->lw);
    /* one arena for the packed tensors (most are below a huge page each) */
    size_t arena = 0;
    for (int i = 0; i < MP_E2E_NLIN; i++) {
        const mp_variant *v = mp_e2e_choice_variant(&s->lin[i]);
        int mm, kk;
        mp_e2e_lin_shape(s, i, &mm, &kk);
        arena += ((v->packed_size(mm, kk, s->lin[i].param) + 4095) & ~(size_t)4095) *
                 (size_t)m->nl;
    }
    m->warena = mp_e2e_spare_alloc(arena, m->nt, SPARE_ARENA, &m->setup.kept);
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
            op->v = mp_e2e_choice_variant(c);
            mp_e2e_lin_shape(s, i, &op->m, &op->k);
            memcpy(op->param, c->param, sizeof op->param);
            op->w = m->warena + at;
            at += (op->v->packed_size(op->m, op->k, op->param) + 4095) & ~(size_t)4095;
        }
    }
    if (rc)
        goto fail;
    if ((rc = setup_weights(m, src, e)))
        goto fail;

    m->kv = mp_e2e_big_alloc(m->mem.kv);
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
        mp_e2e_spare_release(m->head, m->head_row * (size_t)m->vocab, m->nt, SPARE_HEAD);
    if (m->emb)
        mp_e2e_spare_release(m->emb, m->head_row * (size_t)m->vocab, m->nt, SPARE_HEAD);
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
        mp_e2e_spare_release(m->warena, m->arena_bytes, m->nt, SPARE_ARENA);
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
    void *owned[] = {m->pos, m->wanted, m->best, m->amax_i, m->amax_v,
                     m->hnext, m->lnext, m->busy, m->late};
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++)
        free(owned[i]);
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

const mp_e2e_setup *mp_e2e_setup_info(const mp_e2e *m)
{
    return &m->setup;
}

