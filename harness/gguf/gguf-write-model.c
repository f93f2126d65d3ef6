/* gguf-write-model.c - a model file with the end-to-end runner's seeded
 * weights (`pack --gguf-out`, issue 19) or any other weight source (the
 * trained model of models/trained/, `--from-mptw`, issue 42), in llama.cpp's own architectures:
 * `bitnet` when the model has sub-norms (the head tied to the embedding),
 * else `llama` (silu, its Q and K rows permuted to llama.cpp's order, see
 * gguf-tensors.h); norms in f32, and a placeholder vocabulary so that
 * llama.cpp's loader has one.  The reader of such files is gguf-model.c.
 *
 * Linears (issue 39: the formats llama.cpp runs, on the same weights as our
 * rows): TQ2_0, TQ1_0, I2_S (bitnet.cpp) or Q8_0, Q4_0, F16, each packed by
 * the registry's scalar packer of that format, which is ggml's layout byte for
 * byte (tests/test_peers.c); Q8_0 and F16 hold the ternary values times their
 * scale exactly, Q4_0 maps -s to -7s/8 as ggml's quantizer does.  Per-tensor
 * `.scale` tensors exist only beside the TQ types of `bitnet` (the others
 * carry the scale in their values).
 *
 * Embedding and head (--lm-head): BF16 (the runner's own type: the default),
 * F16, Q8_0 or Q4_0, rounded from the runner's bf16 values by ggml's reference
 * rules (Q8_0: d = absmax / 127, round half away; Q4_0: d = the signed extreme
 * / -8, codes min(15, x / d + 8.5)), with fp16 block scales.  Our runner's own
 * q8_0/q4_0 head keeps bf16 block scales (e2e-head.c): the same bytes per
 * weight, values that may differ in the last bits of a scale. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../e2e/mp_e2e.h"
#include "gguf-tensors.h"
#include "mp_gguf.h"
#include "../../variants/mp_registry.h"
#include "../../kernels/common/mp_fp16.h"

enum { W_EMB, W_HEAD, W_NORM, W_LIN, W_SCALE };

typedef struct wdesc {
    int kind, which, layer; /* which: norm index or linear index */
} wdesc;

typedef struct wctx {
    const mp_model *m;
    mp_e2e_source syn;
    int type, head, llama, scale_tensors;
    wdesc *d;
    int8_t *staging;
} wctx;

static void lin_mk(const mp_model *m, int lin, int *rows, int *cols)
{
    mp_linear ls[8];
    mp_model_linears(m, ls);
    *rows = ls[lin].m;
    *cols = ls[lin].k;
}

/* The registry variant whose packer writes ggml's layout of a linear type. */
static const char *packer(int type)
{
    switch (type) {
    case MP_GGML_TQ2_0: return "tq2_0.scalar";
    case MP_GGML_TQ1_0: return "tq1_0.scalar";
    case MP_GGML_I2_S: return "i2_s.scalar";
    case MP_GGML_Q8_0: return "q8_0.scalar";
    case MP_GGML_Q4_0: return "q4_0.scalar";
    case MP_GGML_F16: return "f16.scalar";
    default: return NULL;
    }
}

static float bf16_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* One row of cols floats in ggml's type (F16, Q8_0, Q4_0: blocks of 32). */
static void row_to(int type, const float *x, int cols, uint8_t *out)
{
    if (type == MP_GGML_F16) {
        for (int i = 0; i < cols; i++) {
            uint16_t h = mp_fp16_from_f32(x[i]);
            memcpy(out + 2 * i, &h, 2);
        }
        return;
    }
    for (int b = 0; b < cols / 32; b++, x += 32) {
        float amax = 0, ext = 0;
        for (int i = 0; i < 32; i++)
            if (fabsf(x[i]) > amax)
                amax = fabsf(x[i]), ext = x[i];
        float d = type == MP_GGML_Q8_0 ? amax / 127.0f : ext / -8.0f, id = d != 0 ? 1.0f / d : 0;
        uint16_t dh = mp_fp16_from_f32(d);
        memcpy(out, &dh, 2);
        if (type == MP_GGML_Q8_0) {
            for (int i = 0; i < 32; i++)
                out[2 + i] = (uint8_t)(int8_t)roundf(x[i] * id);
            out += 34;
        } else {
            for (int i = 0; i < 16; i++) {
                int lo = (int)(x[i] * id + 8.5f), hi = (int)(x[16 + i] * id + 8.5f);
                out[2 + i] = (uint8_t)((lo < 15 ? lo : 15) | (hi < 15 ? hi : 15) << 4);
            }
            out += 18;
        }
    }
}

/* The embedding (which 0) or the untied head (1) in c->head's type: the
 * runner's bf16 rows, converted a slice of rows at a time. */
static int matrix(const wctx *c, int which, uint8_t *out, mp_err *e)
{
    const mp_model *m = c->m;
    if (c->head == MP_GGML_BF16)
        return c->syn.matrix(&c->syn, which, (uint16_t *)out, m->vocab, m->hidden, e);
    enum { SLICE = 1024 };
    int H = m->hidden;
    int bb, blk = mp_gguf_type_block(c->head, &bb);
    size_t rb = (size_t)H / (size_t)blk * (size_t)bb;
    int whole = !c->syn.matrix_rows;
    int n = whole ? m->vocab : SLICE;
    uint16_t *bf = malloc(sizeof *bf * (size_t)n * H);
    float *f = malloc(sizeof *f * (size_t)H);
    int rc = bf && f ? MP_OK : mp_fail(e, MP_ERUN, "out of memory");
    if (!rc && whole)
        rc = c->syn.matrix(&c->syn, which, bf, m->vocab, H, e);
    for (int r0 = 0; r0 < m->vocab && !rc; r0 += n) {
        int r1 = r0 + n < m->vocab ? r0 + n : m->vocab;
        if (!whole)
            rc = c->syn.matrix_rows(&c->syn, which, bf, r0, r1, H, e);
        for (int r = r0; r < r1 && !rc; r++) {
            const uint16_t *src = bf + (size_t)(whole ? r : r - r0) * H;
            for (int i = 0; i < H; i++)
                f[i] = bf16_f32(src[i]);
            row_to(c->head, f, H, out + (size_t)r * rb);
        }
        if (whole)
            break;
    }
    free(bf);
    free(f);
    return rc;
}

static int fill(void *ctx, int index, uint8_t *out, size_t bytes, mp_err *e)
{
    wctx *c = ctx;
    const wdesc *d = &c->d[index];
    const mp_model *m = c->m;
    int rc = MP_OK;
    switch (d->kind) {
    case W_EMB:
    case W_HEAD:
        return matrix(c, d->kind == W_HEAD, out, e);
    case W_NORM: {
        int n = d->which == 2 ? m->heads * m->head_dim : d->which == 3 ? m->intermediate : m->hidden;
        return c->syn.norm(&c->syn, d->which, d->layer, (float *)out, n, e);
    }
    case W_LIN:
    case W_SCALE: {
        int rows, cols;
        float s;
        lin_mk(m, d->which, &rows, &cols);
        if ((rc = c->syn.ternary(&c->syn, d->layer, d->which, 0, c->staging, rows, cols, &s, e)))
            return rc;
        if (d->kind == W_SCALE) {
            memcpy(out, &s, sizeof s);
            return MP_OK;
        }
        const int8_t *w = c->staging;
        int8_t *perm = NULL;
        if (c->llama && (d->which == MP_E2E_Q || d->which == MP_E2E_K)) {
            perm = malloc((size_t)rows * cols);
            if (!perm)
                return mp_fail(e, MP_ERUN, "out of memory");
            for (int64_t r = 0; r < rows; r++)
                memcpy(perm + r * cols, c->staging + hf_row_of_gguf(r, m->head_dim) * cols,
                       (size_t)cols);
            w = perm;
        }
        float ps = c->scale_tensors ? 1.0f : s;
        /* our packers are ggml's layouts byte for byte (tests/test_peers.c) */
        const mp_variant *pv = mp_registry_find(packer(c->type));
        int param[MP_MAX_PARAMS];
        mp_variant_defaults(pv, param);
        pv->pack(w, c->type == MP_GGML_I2_S ? s : ps, (int)rows, (int)cols, param, out);
        free(perm);
        (void)bytes;
        return MP_OK;
    }
    }
    return mp_fail(e, MP_ERUN, "internal: tensor kind %d", d->kind);
}

int mp_gguf_write_model_src(const char *path, const mp_model *m, const mp_e2e_source *src,
                            const char *desc, int type, int head, mp_err *e)
{
    if (!packer(type))
        return mp_fail(e, MP_EUSAGE, "--variant: the linears' type must be tq2_0, tq1_0, i2_s, "
                       "q8_0, q4_0 or f16");
    if (head != MP_GGML_BF16 && head != MP_GGML_F16 && head != MP_GGML_Q8_0 &&
        head != MP_GGML_Q4_0)
        return mp_fail(e, MP_EUSAGE, "--lm-head: the head's type must be bf16, f16, q8_0 or q4_0");
    if (head != MP_GGML_BF16 && head != MP_GGML_F16 && m->hidden % 32)
        return mp_fail(e, MP_EUSAGE, "model %s: hidden size %d is not a multiple of %s's block "
                       "of 32", m->name, m->hidden, mp_gguf_type_name(head));
    int llama = !m->sub_norm;
    const char *arch = llama ? "llama" : "bitnet";
    if (llama && strcmp(m->ffn_act, "silu"))
        return mp_fail(e, MP_EUSAGE, "model %s: %s FFN without sub-norms has no llama.cpp "
                       "architecture (llama is silu, bitnet has sub-norms)", m->name, m->ffn_act);
    if (!llama && !m->tied)
        return mp_fail(e, MP_EUSAGE, "model %s: sub-norms with an untied head; llama.cpp's bitnet "
                       "architecture always ties the head to the embedding", m->name);
    if (m->head_dim % 2)
        return mp_fail(e, MP_EUSAGE, "model %s: odd head size %d", m->name, m->head_dim);
    int blk = type == MP_GGML_I2_S ? 128 : type == MP_GGML_F16 ? 1
              : type == MP_GGML_Q8_0 || type == MP_GGML_Q4_0 ? 32 : 256;
    mp_linear ls[8];
    mp_model_linears(m, ls);
    for (int i = 0; i < MP_E2E_NLIN; i++)
        if (ls[i].k % blk)
            return mp_fail(e, MP_EUSAGE, "model %s: layer %s has K = %d, not a multiple of %s's "
                           "block of %d", m->name, ls[i].layer, ls[i].k,
                           mp_gguf_type_name(type), blk);
    mp_gguf_w *w = mp_gguf_w_new();
    char key[160];
#define K(s) (snprintf(key, sizeof key, "%s." s, arch), key)
    mp_gguf_w_str(w, "general.architecture", arch);
    mp_gguf_w_str(w, "general.name", m->name);
    mp_gguf_w_str(w, "general.description", desc);
    mp_gguf_w_u32(w, K("vocab_size"), (uint32_t)m->vocab);
    mp_gguf_w_u32(w, K("context_length"), (uint32_t)m->max_pos);
    mp_gguf_w_u32(w, K("embedding_length"), (uint32_t)m->hidden);
    mp_gguf_w_u32(w, K("block_count"), (uint32_t)m->layers);
    mp_gguf_w_u32(w, K("feed_forward_length"), (uint32_t)m->intermediate);
    mp_gguf_w_u32(w, K("attention.head_count"), (uint32_t)m->heads);
    mp_gguf_w_u32(w, K("attention.head_count_kv"), (uint32_t)m->kv_heads);
    if (m->head_dim * m->heads != m->hidden) {
        mp_gguf_w_u32(w, K("attention.key_length"), (uint32_t)m->head_dim);
        mp_gguf_w_u32(w, K("attention.value_length"), (uint32_t)m->head_dim);
    }
    mp_gguf_w_u32(w, K("rope.dimension_count"), (uint32_t)m->head_dim);
    mp_gguf_w_f32(w, K("rope.freq_base"), (float)m->rope_theta);
    mp_gguf_w_f32(w, K("attention.layer_norm_rms_epsilon"), (float)m->norm_eps);
    if (!llama)
        mp_gguf_w_str(w, K("hidden_activation"), m->ffn_act);
#undef K
    /* a SentencePiece-style vocabulary of placeholder pieces, so llama.cpp's
     * loader has one: <unk> <s> </s>, the 256 byte pieces when they fit, t<N> */
    int V = m->vocab;
    char **tok = malloc(sizeof *tok * (size_t)V);
    float *score = calloc((size_t)V, sizeof *score);
    int32_t *ttype = malloc(sizeof *ttype * (size_t)V);
    if (!tok || !score || !ttype)
        abort();
    int bytes = V >= 3 + 256 + 1;
    for (int i = 0; i < V; i++) {
        char buf[32];
        if (i < 3)
            snprintf(buf, sizeof buf, "%s", i == 0 ? "<unk>" : i == 1 ? "<s>" : "</s>");
        else if (bytes && i < 259)
            snprintf(buf, sizeof buf, "<0x%02X>", i - 3);
        else
            snprintf(buf, sizeof buf, "t%d", i);
        tok[i] = strdup(buf);
        ttype[i] = i == 0 ? 2 : i < 3 ? 3 : bytes && i < 259 ? 6 : 1;
        score[i] = i < 259 ? 0.0f : -(float)i;
    }
    mp_gguf_w_str(w, "tokenizer.ggml.model", "llama");
    mp_gguf_w_arr_str(w, "tokenizer.ggml.tokens", (const char *const *)tok, (uint64_t)V);
    mp_gguf_w_arr(w, "tokenizer.ggml.scores", MP_GGUF_F32, score, (uint64_t)V);
    mp_gguf_w_arr(w, "tokenizer.ggml.token_type", MP_GGUF_I32, ttype, (uint64_t)V);
    mp_gguf_w_u32(w, "tokenizer.ggml.unknown_token_id", 0);
    mp_gguf_w_u32(w, "tokenizer.ggml.bos_token_id", 1);
    mp_gguf_w_u32(w, "tokenizer.ggml.eos_token_id", 2);
    mp_gguf_w_bool(w, "tokenizer.ggml.add_bos_token", 0);
    for (int i = 0; i < V; i++)
        free(tok[i]);
    free(tok);
    free(score);
    free(ttype);

    wctx c = {.m = m, .syn = *src, .type = type, .head = head, .llama = llama,
              .scale_tensors = !llama && (type == MP_GGML_TQ2_0 || type == MP_GGML_TQ1_0)};
    int maxd = 4 + m->layers * 20;
    c.d = calloc((size_t)maxd, sizeof *c.d);
    size_t staging = 0;
    for (int i = 0; i < MP_E2E_NLIN; i++)
        if ((size_t)ls[i].m * ls[i].k > staging)
            staging = (size_t)ls[i].m * ls[i].k;
    c.staging = malloc(staging);
    if (!c.d || !c.staging)
        abort();
    int rc = MP_OK, n = 0;
    int64_t ne[2];
    char nm[128];
#define ADD(name, ty, nd, n0, n1, kind_, which_, layer_)                                   \
    do {                                                                                     \
        ne[0] = (n0), ne[1] = (n1);                                                          \
        c.d[n] = (wdesc){kind_, which_, layer_};                                             \
        if (mp_gguf_w_tensor(w, name, ty, nd, ne, fill, &c, e) < 0)                          \
            rc = MP_EUSAGE;                                                                  \
        n++;                                                                                 \
    } while (0)
    int H = m->hidden, Q = m->heads * m->head_dim, I = m->intermediate;
    ADD("token_embd.weight", head, 2, H, V, W_EMB, 0, 0);
    ADD("output_norm.weight", MP_GGML_F32, 1, H, 1, W_NORM, 4, 0);
    if (!m->tied)
        ADD("output.weight", head, 2, H, V, W_HEAD, 0, 0);
    for (int l = 0; l < m->layers && !rc; l++) {
        for (int j = 0; j < (llama ? 2 : 4); j++)
            ADD(tname(nm, sizeof nm, l, norm_tensor[j], "weight"), MP_GGML_F32, 1,
                j == 2 ? Q : j == 3 ? I : H, 1, W_NORM, j, l);
        for (int i = 0; i < MP_E2E_NLIN; i++) {
            ADD(tname(nm, sizeof nm, l, lin_tensor[i], "weight"), type, 2, ls[i].k, ls[i].m,
                W_LIN, i, l);
            if (c.scale_tensors)
                ADD(tname(nm, sizeof nm, l, lin_tensor[i], "scale"), MP_GGML_F32, 1, 1, 1,
                    W_SCALE, i, l);
        }
    }
#undef ADD
    if (!rc)
        rc = mp_gguf_w_write(w, path, MP_GGUF_DEFAULT_ALIGN, e);
    mp_gguf_w_free(w);
    free(c.d);
    free(c.staging);
    return rc;
}

int mp_gguf_write_model(const char *path, const mp_model *m, uint64_t seed, int type, int head,
                        mp_err *e)
{
    mp_e2e_source syn;
    mp_e2e_synthetic(seed, &syn);
    char desc[700];
    snprintf(desc, sizeof desc, "mpbench seeded ternary weights (seed %llu) with the architecture "
             "of %s (%.500s)", (unsigned long long)seed, m->name, m->source);
    return mp_gguf_write_model_src(path, m, &syn, desc, type, head, e);
}
