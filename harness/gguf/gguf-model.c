/* gguf-model.c - GGUF files as mpbench models (issue 19): the architecture
 * from a file's metadata (for `list shapes --gguf`, sweeps, e2e), a weight
 * source that hands the end-to-end runner the file's real weights.
 *
 * Architectures, as llama.cpp defines them:
 *  - `bitnet` (llama.cpp's BitNet b1.58 graph; bitnet.cpp's `bitnet-b1.58`,
 *    the name the released 2B-4T GGUF uses, is read the same way): RMSNorm,
 *    q/k/v, NEOX (rotate-half) RoPE, attention, attn_sub_norm, o; RMSNorm,
 *    gate/up, activation, ffn_sub_norm, down; the head is always the token
 *    embedding.  Optional per-tensor `blk.N.*.scale` F32 tensors multiply the
 *    linear's output.  The activation comes from `bitnet.hidden_activation`
 *    ("silu" or "relu2"); llama.cpp defaults to silu, bitnet-b1.58 is relu2.
 *  - `llama` with ternary linears: no sub-norms, silu, untied head when
 *    `output.weight` is present.  llama.cpp applies RoPE to adjacent pairs and
 *    its converter permutes the Q and K rows to match (HF rotate-half order
 *    -> pairs); the reader undoes that permutation, and the writer applies it,
 *    so the runner's rotate-half RoPE computes what llama.cpp computes.
 *
 * Ternary tensors may be in any type we read: each value must be 0 or ±s for
 * one s per tensor (TQ1_0/TQ2_0 blocks: every non-zero block scale equal),
 * times the optional `.scale` tensor; anything else is an error naming the
 * tensor, the row/column and the byte offset.  Other tensors (embedding,
 * head, norms) are converted from their own type: floats for norms, bf16 (the
 * runner's embedding type) for embedding and head.  The writer of seeded
 * models is gguf-model-write.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../e2e/mp_e2e.h"
#include "mp_gguf.h"
#include "../../variants/mp_registry.h"
#include "../../kernels/common/mp_numerics.h"

typedef enum { ARCH_LLAMA, ARCH_BITNET, ARCH_BITNET158 } arch_kind;

const char *const mp_gguf_lin_tensor[MP_E2E_NLIN] = {
    "attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"};

static int arch_of(const mp_gguf *g, arch_kind *a, const char **name, mp_err *e)
{
    const mp_gguf_kv *kv = mp_gguf_find(g, "general.architecture");
    if (!kv)
        return mp_fail(e, MP_EUSAGE, "%s: general.architecture missing", g->path);
    if (kv->type != MP_GGUF_STRING)
        return mp_fail(e, MP_EUSAGE, "%s: general.architecture at byte %llu is not a string",
                       g->path, (unsigned long long)kv->at);
    *name = kv->str;
    if (!strcmp(kv->str, "llama"))
        *a = ARCH_LLAMA;
    else if (!strcmp(kv->str, "bitnet"))
        *a = ARCH_BITNET;
    else if (!strcmp(kv->str, "bitnet-b1.58"))
        *a = ARCH_BITNET158;
    else
        return mp_fail(e, MP_EUSAGE,
                       "%s: unknown architecture '%.100s' at byte %llu (supported: llama, bitnet, "
                       "bitnet-b1.58)", g->path, kv->str, (unsigned long long)kv->at);
    return MP_OK;
}

/* An integer key of any integer type; absent: *out = dflt unless required. */
static int get_int(const mp_gguf *g, const char *arch, const char *suffix, int required,
                   long dflt, long lo, long hi, int *out, mp_err *e)
{
    char key[160];
    snprintf(key, sizeof key, "%s.%s", arch, suffix);
    const mp_gguf_kv *kv = mp_gguf_find(g, key);
    if (!kv) {
        if (required)
            return mp_fail(e, MP_EUSAGE, "%s: key %s missing (architecture %s needs it)", g->path,
                           key, arch);
        *out = (int)dflt;
        return MP_OK;
    }
    long v;
    switch (kv->type) {
    case MP_GGUF_U8: case MP_GGUF_U16: case MP_GGUF_U32: case MP_GGUF_U64:
        v = kv->v.u > (uint64_t)hi ? hi + 1 : (long)kv->v.u;
        break;
    case MP_GGUF_I8: case MP_GGUF_I16: case MP_GGUF_I32: case MP_GGUF_I64:
        v = kv->v.i > hi ? hi + 1 : kv->v.i < lo ? lo - 1 : (long)kv->v.i;
        break;
    default:
        return mp_fail(e, MP_EUSAGE, "%s: %s at byte %llu is not an integer", g->path, key,
                       (unsigned long long)kv->at);
    }
    if (v < lo || v > hi)
        return mp_fail(e, MP_EUSAGE, "%s: %s at byte %llu is %ld, outside [%ld, %ld]", g->path,
                       key, (unsigned long long)kv->at, v, lo, hi);
    *out = (int)v;
    return MP_OK;
}

static int get_float(const mp_gguf *g, const char *arch, const char *suffix, double dflt,
                     double *out, mp_err *e)
{
    char key[160];
    snprintf(key, sizeof key, "%s.%s", arch, suffix);
    const mp_gguf_kv *kv = mp_gguf_find(g, key);
    if (!kv) {
        *out = dflt;
        return MP_OK;
    }
    if (kv->type != MP_GGUF_F32 && kv->type != MP_GGUF_F64)
        return mp_fail(e, MP_EUSAGE, "%s: %s at byte %llu is not a float", g->path, key,
                       (unsigned long long)kv->at);
    if (!(kv->v.f > 0) || !isfinite(kv->v.f))
        return mp_fail(e, MP_EUSAGE, "%s: %s at byte %llu is %g, must be positive", g->path,
                       key, (unsigned long long)kv->at, kv->v.f);
    *out = kv->v.f;
    return MP_OK;
}

const char *mp_gguf_tname(char *buf, size_t len, int layer, const char *what, const char *suffix)
{
    if (layer < 0)
        snprintf(buf, len, "%s.%s", what, suffix);
    else
        snprintf(buf, len, "blk.%d.%s.%s", layer, what, suffix);
    return buf;
}

static int want_tensor(const mp_gguf *g, const char *name, const char *arch, int64_t ne0,
                       int64_t ne1, const mp_gguf_tensor **out, mp_err *e)
{
    const mp_gguf_tensor *t = mp_gguf_tensor_find(g, name);
    if (out)
        *out = t;
    if (!t)
        return mp_fail(e, MP_EUSAGE, "%s: tensor %s missing (architecture %s needs it)", g->path,
                       name, arch);
    int nd = ne1 > 0 ? 2 : 1;
    int ok = t->ne[0] == ne0 && (nd == 1 ? t->ne[1] == 1 : t->ne[1] == ne1) && t->ne[2] == 1 &&
             t->ne[3] == 1;
    if (!ok) {
        char want[64];
        if (nd == 1)
            snprintf(want, sizeof want, "[%lld]", (long long)ne0);
        else
            snprintf(want, sizeof want, "[%lld, %lld]", (long long)ne0, (long long)ne1);
        return mp_fail(e, MP_EUSAGE,
                       "%s: tensor %s (info at byte %llu) has shape [%lld, %lld, %lld, %lld], "
                       "expected %s", g->path, name, (unsigned long long)t->at,
                       (long long)t->ne[0], (long long)t->ne[1], (long long)t->ne[2],
                       (long long)t->ne[3], want);
    }
    return MP_OK;
}

int mp_gguf_model(const mp_gguf *g, mp_model *m, mp_err *e)
{
    arch_kind ak;
    const char *arch;
    int rc = arch_of(g, &ak, &arch, e);
    if (rc)
        return rc;
    memset(m, 0, sizeof *m);
    const char *base = strrchr(g->path, '/') ? strrchr(g->path, '/') + 1 : g->path;
    size_t blen = strlen(base);
    if (blen > 5 && !strcmp(base + blen - 5, ".gguf"))
        blen -= 5;
    snprintf(m->name, sizeof m->name, "%.*s", (int)(blen < 63 ? blen : 63), base);
    snprintf(m->source, sizeof m->source, "GGUF file %.480s (architecture %s)", g->path, arch);
    const long big = 100000000;
    if ((rc = get_int(g, arch, "embedding_length", 1, 0, 1, 1 << 20, &m->hidden, e)) ||
        (rc = get_int(g, arch, "feed_forward_length", 1, 0, 1, 1 << 22, &m->intermediate, e)) ||
        (rc = get_int(g, arch, "block_count", 1, 0, 1, 10000, &m->layers, e)) ||
        (rc = get_int(g, arch, "attention.head_count", 1, 0, 1, 10000, &m->heads, e)) ||
        (rc = get_int(g, arch, "attention.head_count_kv", 0, m->heads, 1, 10000, &m->kv_heads, e)) ||
        (rc = get_int(g, arch, "context_length", 0, 2048, 1, big, &m->max_pos, e)) ||
        (rc = get_float(g, arch, "rope.freq_base", 10000.0, &m->rope_theta, e)) ||
        (rc = get_float(g, arch, "attention.layer_norm_rms_epsilon", 1e-5, &m->norm_eps, e)))
        return rc;
    if (m->heads % m->kv_heads)
        return mp_fail(e, MP_EUSAGE, "%s: %s.attention.head_count %d is not a multiple of "
                       "head_count_kv %d", g->path, arch, m->heads, m->kv_heads);
    int hd_default = m->hidden % m->heads ? 0 : m->hidden / m->heads;
    if ((rc = get_int(g, arch, "attention.key_length", hd_default == 0, hd_default, 2, 1 << 16,
                      &m->head_dim, e)))
        return rc;
    int vlen;
    if ((rc = get_int(g, arch, "attention.value_length", 0, m->head_dim, 1, 1 << 16, &vlen, e)))
        return rc;
    if (vlen != m->head_dim)
        return mp_fail(e, MP_EUSAGE, "%s: value_length %d differs from key_length %d (not "
                       "supported)", g->path, vlen, m->head_dim);
    if (m->head_dim % 2)
        return mp_fail(e, MP_EUSAGE, "%s: head size %d is odd (RoPE needs pairs)", g->path,
                       m->head_dim);
    int rot;
    if ((rc = get_int(g, arch, "rope.dimension_count", 0, m->head_dim, 1, 1 << 16, &rot, e)))
        return rc;
    if (rot != m->head_dim)
        return mp_fail(e, MP_EUSAGE, "%s: %s.rope.dimension_count %d differs from the head size "
                       "%d (partial RoPE is not supported)", g->path, arch, rot, m->head_dim);
    const mp_gguf_tensor *emb = mp_gguf_tensor_find(g, "token_embd.weight");
    if (!emb)
        return mp_fail(e, MP_EUSAGE, "%s: tensor token_embd.weight missing (architecture %s "
                       "needs it)", g->path, arch);
    if (emb->ne[1] > big)
        return mp_fail(e, MP_EUSAGE, "%s: token_embd.weight has %lld rows (absurd vocabulary)",
                       g->path, (long long)emb->ne[1]);
    if ((rc = get_int(g, arch, "vocab_size", 0, (long)emb->ne[1], 1, big, &m->vocab, e)))
        return rc;
    strcpy(m->ffn_act, ak == ARCH_BITNET158 ? "relu2" : "silu");
    if (ak != ARCH_LLAMA) {
        char key[160];
        snprintf(key, sizeof key, "%s.hidden_activation", arch);
        const mp_gguf_kv *kv = mp_gguf_find(g, key);
        if (kv) {
            if (kv->type != MP_GGUF_STRING)
                return mp_fail(e, MP_EUSAGE, "%s: %s at byte %llu is not a string", g->path,
                               key, (unsigned long long)kv->at);
            if (!strcmp(kv->str, "silu") || !strcmp(kv->str, "relu2"))
                strcpy(m->ffn_act, kv->str);
            else if (!strcmp(kv->str, "relu_sqr") || !strcmp(kv->str, "relu_squared"))
                strcpy(m->ffn_act, "relu2");
            else
                return mp_fail(e, MP_EUSAGE, "%s: %s at byte %llu is '%.60s' (supported: silu, "
                               "relu2)", g->path, key, (unsigned long long)kv->at, kv->str);
        }
    }
    m->sub_norm = ak != ARCH_LLAMA;
    m->tied = ak != ARCH_LLAMA || !mp_gguf_tensor_find(g, "output.weight");
    /* every tensor the runner needs, with its shape */
    int H = m->hidden, Q = m->heads * m->head_dim, KV = m->kv_heads * m->head_dim;
    int I = m->intermediate;
    char nm[128];
    if ((rc = want_tensor(g, "token_embd.weight", arch, H, m->vocab, NULL, e)) ||
        (rc = want_tensor(g, "output_norm.weight", arch, H, 0, NULL, e)) ||
        (!m->tied && (rc = want_tensor(g, "output.weight", arch, H, m->vocab, NULL, e))))
        return rc;
    const int64_t lin_ne[MP_E2E_NLIN][2] = {{H, Q}, {H, KV}, {H, KV}, {Q, H},
                                            {H, I}, {H, I},  {I, H}};
    for (int l = 0; l < m->layers; l++) {
        if ((rc = want_tensor(g, mp_gguf_tname(nm, sizeof nm, l, "attn_norm", "weight"), arch, H, 0, NULL,
                              e)) ||
            (rc = want_tensor(g, mp_gguf_tname(nm, sizeof nm, l, "ffn_norm", "weight"), arch, H, 0, NULL,
                              e)))
            return rc;
        if (m->sub_norm &&
            ((rc = want_tensor(g, mp_gguf_tname(nm, sizeof nm, l, "attn_sub_norm", "weight"), arch, Q, 0,
                               NULL, e)) ||
             (rc = want_tensor(g, mp_gguf_tname(nm, sizeof nm, l, "ffn_sub_norm", "weight"), arch, I, 0,
                               NULL, e))))
            return rc;
        for (int i = 0; i < MP_E2E_NLIN; i++) {
            if ((rc = want_tensor(g, mp_gguf_tname(nm, sizeof nm, l, mp_gguf_lin_tensor[i], "weight"), arch,
                                  lin_ne[i][0], lin_ne[i][1], NULL, e)))
                return rc;
            const mp_gguf_tensor *s = mp_gguf_tensor_find(g, mp_gguf_tname(nm, sizeof nm, l,
                                                                   mp_gguf_lin_tensor[i], "scale"));
            if (s && (s->ne[0] * s->ne[1] * s->ne[2] * s->ne[3] != 1 || s->type != MP_GGML_F32))
                return mp_fail(e, MP_EUSAGE, "%s: tensor %s (info at byte %llu) must be one f32",
                               g->path, nm, (unsigned long long)s->at);
        }
    }
    if (ak == ARCH_LLAMA && strcmp(m->ffn_act, "silu"))
        return mp_fail(e, MP_EUSAGE, "%s: llama architecture is silu", g->path);
    return MP_OK;
}

int mp_gguf_is_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char m[4];
    int ok = fread(m, 1, 4, f) == 4 && !memcmp(m, "GGUF", 4);
    fclose(f);
    return ok;
}

int mp_gguf_model_load(const char *path, mp_model *m, mp_err *e)
{
    mp_gguf *g;
    int rc = mp_gguf_open(path, &g, e);
    if (rc)
        return rc;
    rc = mp_gguf_model(g, m, e);
    mp_gguf_close(g);
    return rc;
}

/* ---- ternary tensors ---------------------------------------------------------------- */
static uint64_t elem_byte(const mp_gguf *g, const mp_gguf_tensor *t, int64_t r, int64_t c)
{
    uint64_t base = (uint64_t)(t->data - g->base);
    if (t->type == MP_GGML_I2_S)
        return base + (uint64_t)r * (uint64_t)(t->ne[0] / 4) + (uint64_t)(c / 128) * 32 + c % 32;
    int bb, blck = mp_gguf_type_block(t->type, &bb);
    uint64_t row = (uint64_t)(t->ne[0] / blck) * (uint64_t)bb;
    return base + (uint64_t)r * row + (uint64_t)(c / blck) * (uint64_t)bb;
}

int mp_gguf_ternary(const mp_gguf *g, const mp_gguf_tensor *t, int8_t *w, float *scale, mp_err *e)
{
    int64_t k = t->ne[0], m = t->ne[1];
    float *row = malloc(sizeof(float) * (size_t)k);
    if (!row)
        return mp_fail(e, MP_ERUN, "out of memory");
    float s = 0.0f;
    int64_t sr = 0, sc = 0;
    int rc = MP_OK;
    for (int64_t r = 0; r < m && !rc; r++) {
        mp_gguf_row_f32(t, r, row);
        for (int64_t c = 0; c < k; c++) {
            float v = row[c], a = fabsf(v);
            if (v == 0.0f) {
                w[r * k + c] = 0;
                continue;
            }
            if (s == 0.0f && a > 0.0f && isfinite(a))
                s = a, sr = r, sc = c;
            if (a != s) {
                rc = mp_fail(e, MP_EUSAGE,
                             "%s: tensor %s (%s) is not ternary: row %lld column %lld (data byte "
                             "%llu) is %g, but row %lld column %lld set the scale to %g; a "
                             "ternary tensor holds only 0 and +-one scale",
                             g->path, t->name, mp_gguf_type_name(t->type), (long long)r,
                             (long long)c, (unsigned long long)elem_byte(g, t, r, c), (double)v,
                             (long long)sr, (long long)sc, (double)s);
                break;
            }
            w[r * k + c] = v > 0 ? 1 : -1;
        }
    }
    free(row);
    if (rc)
        return rc;
    if (s == 0.0f)
        s = 1.0f; /* all zero: any scale computes the same */
    /* the optional per-tensor scale of llama.cpp's bitnet files */
    char nm[128];
    size_t len = strlen(t->name);
    if (len > 7 && !strcmp(t->name + len - 7, ".weight")) {
        snprintf(nm, sizeof nm, "%.*s.scale", (int)(len - 7), t->name);
        const mp_gguf_tensor *st = mp_gguf_tensor_find(g, nm);
        if (st && st->type == MP_GGML_F32) {
            float x;
            memcpy(&x, st->data, sizeof x);
            if (!(x > 0) || !isfinite(x))
                return mp_fail(e, MP_EUSAGE, "%s: tensor %s (data byte %llu) is %g, must be a "
                               "positive scale", g->path, nm,
                               (unsigned long long)(st->data - g->base), (double)x);
            s *= x;
        }
    }
    *scale = s;
    return MP_OK;
}

/* ---- the weight source ---------------------------------------------------------------- */
typedef struct gsrc {
    const mp_gguf *g;
    mp_model m;
    int llama;
} gsrc;

static uint16_t to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

static int src_matrix(const mp_e2e_source *s, int which, uint16_t *out, int rows, int cols,
                      mp_err *e)
{
    const gsrc *gs = s->ctx;
    const char *name = which ? "output.weight" : "token_embd.weight";
    const mp_gguf_tensor *t = mp_gguf_tensor_find(gs->g, name);
    if (!t || t->ne[0] != cols || t->ne[1] != rows)
        return mp_fail(e, MP_EUSAGE, "%s: tensor %s missing or not %d x %d", gs->g->path, name,
                       rows, cols);
    if (t->type == MP_GGML_BF16) {
        memcpy(out, t->data, sizeof(uint16_t) * (size_t)rows * cols);
        return MP_OK;
    }
    float *row = malloc(sizeof(float) * (size_t)cols);
    if (!row)
        return mp_fail(e, MP_ERUN, "out of memory");
    for (int r = 0; r < rows; r++) {
        mp_gguf_row_f32(t, r, row);
        for (int c = 0; c < cols; c++)
            out[(size_t)r * cols + c] = to_bf16(row[c]);
    }
    free(row);
    return MP_OK;
}

static int src_norm(const mp_e2e_source *s, int which, int layer, float *out, int n, mp_err *e)
{
    const gsrc *gs = s->ctx;
    static const char *const what[5] = {"attn_norm", "ffn_norm", "attn_sub_norm", "ffn_sub_norm",
                                        "output_norm"};
    char nm[128];
    if (which >= 2 && which <= 3 && !gs->m.sub_norm) {
        for (int i = 0; i < n; i++)
            out[i] = 1.0f; /* unused: the architecture has no sub-norms */
        return MP_OK;
    }
    mp_gguf_tname(nm, sizeof nm, which == 4 ? -1 : layer, what[which], "weight");
    const mp_gguf_tensor *t = mp_gguf_tensor_find(gs->g, nm);
    if (!t || t->ne[0] != n || t->ne[1] != 1)
        return mp_fail(e, MP_EUSAGE, "%s: tensor %s missing or not [%d]", gs->g->path, nm, n);
    mp_gguf_row_f32(t, 0, out);
    for (int i = 0; i < n; i++)
        if (!isfinite(out[i]))
            return mp_fail(e, MP_EUSAGE, "%s: tensor %s element %d is not finite", gs->g->path,
                           nm, i);
    return MP_OK;
}

int64_t mp_gguf_hf_row(int64_t r, int hd)
{
    int64_t h = r / hd, o = r % hd, half = hd / 2;
    return h * hd + (o % 2) * half + o / 2;
}

static int src_ternary(const mp_e2e_source *s, int layer, int lin, int binary, int8_t *w, int m,
                       int k, float *scale, mp_err *e)
{
    const gsrc *gs = s->ctx;
    char nm[128];
    mp_gguf_tname(nm, sizeof nm, layer, mp_gguf_lin_tensor[lin], "weight");
    if (binary)
        return mp_fail(e, MP_EUSAGE, "%s: tensor %s is ternary; a variant that takes only +-1 "
                       "weights (int1) cannot run this file", gs->g->path, nm);
    const mp_gguf_tensor *t = mp_gguf_tensor_find(gs->g, nm);
    if (!t || t->ne[0] != k || t->ne[1] != m)
        return mp_fail(e, MP_EUSAGE, "%s: tensor %s missing or not %d x %d", gs->g->path, nm, m,
                       k);
    int rc = mp_gguf_ternary(gs->g, t, w, scale, e);
    if (rc || !gs->llama || (lin != MP_E2E_Q && lin != MP_E2E_K))
        return rc;
    int8_t *tmp = malloc((size_t)m * k);
    if (!tmp)
        return mp_fail(e, MP_ERUN, "out of memory");
    memcpy(tmp, w, (size_t)m * k);
    for (int64_t r = 0; r < m; r++)
        memcpy(w + mp_gguf_hf_row(r, gs->m.head_dim) * k, tmp + r * k, (size_t)k);
    free(tmp);
    return MP_OK;
}

int mp_gguf_source(const mp_gguf *g, const mp_model *m, mp_e2e_source *src, mp_err *e)
{
    arch_kind ak;
    const char *arch;
    int rc = arch_of(g, &ak, &arch, e);
    if (rc)
        return rc;
    gsrc *gs = calloc(1, sizeof *gs);
    if (!gs)
        return mp_fail(e, MP_ERUN, "out of memory");
    gs->g = g;
    gs->m = *m;
    gs->llama = ak == ARCH_LLAMA;
    memset(src, 0, sizeof *src);
    src->ctx = gs;
    src->name = g->path;
    src->ternary_only = 1;
    src->matrix = src_matrix;
    src->norm = src_norm;
    src->ternary = src_ternary;
    return MP_OK;
}

int mp_gguf_check_ternary(const mp_gguf *g, const mp_model *m, int layers, mp_err *e)
{
    mp_linear ls[8];
    mp_model_linears(m, ls);
    size_t big = 0;
    for (int i = 0; i < MP_E2E_NLIN; i++)
        if ((size_t)ls[i].m * ls[i].k > big)
            big = (size_t)ls[i].m * ls[i].k;
    int8_t *w = malloc(big);
    if (!w)
        return mp_fail(e, MP_ERUN, "out of memory");
    int rc = MP_OK;
    char nm[128];
    for (int l = 0; l < layers && !rc; l++)
        for (int i = 0; i < MP_E2E_NLIN && !rc; i++) {
            float s;
            const mp_gguf_tensor *t = mp_gguf_tensor_find(g, mp_gguf_tname(nm, sizeof nm, l,
                                                                   mp_gguf_lin_tensor[i], "weight"));
            rc = t ? mp_gguf_ternary(g, t, w, &s, e)
                   : mp_fail(e, MP_EUSAGE, "%s: tensor %s missing", g->path, nm);
        }
    free(w);
    return rc;
}

void mp_gguf_source_free(mp_e2e_source *src)
{
    if (src) {
        free(src->ctx);
        src->ctx = NULL;
    }
}
