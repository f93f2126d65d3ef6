/* e2e-decoder.c - what an end-to-end row drives: our runner (harness/e2e/) or,
 * for a llamacpp.* configuration, llama.cpp itself (issue 39): its own loader,
 * graph, kernels, threadpool and KV cache, through libllama (gguf/gguf-llama.c),
 * on a GGUF file holding the same seeded weights as our rows.  The timing loop
 * (e2e-measure.c) is the same for both: the same tokens, the same resets, the
 * same steps, the same clock gate.
 *
 * The file: the run's own --gguf FILE when its linears are the configuration's
 * type, else one our writer makes (gguf/gguf-write-model.c) from the seed, the
 * model and the head's format, named by all three and kept in --weight-cache
 * DIR so the next run reuses it (the writer renames a complete file into
 * place: a file there is whole).  Without a cache directory it is written to
 * $TMPDIR and removed after the configuration's rows.
 *
 * Where the engines differ (said in every llama.cpp row's reason): llama.cpp's
 * `bitnet` graph as the npm build has it applies silu where a model's FFN is
 * relu2 (2B-4T), and keeps its KV cache in f16 (ours: f32).  Neither changes
 * the weight bytes a token reads; both change tokens.  Its decode bound counts
 * the bytes it reads: every tensor of the file but the embedding when the head
 * is untied (one row of it per token), and its f16 KV cache at the mean
 * position; a prefill row has no bound (llama.cpp's GEMMs are not timed alone
 * here). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e-measure.h"
#include "../gguf/mp_gguf.h"

struct mp_e2e_dec {
    mp_e2e *m;          /* ours, or NULL */
    mp_llama *l;        /* llama.cpp, or NULL */
    mp_pool *pool;      /* ours: its workers sleep while llama.cpp's run */
    int next[MP_LLAMA_MAX_SEQS];
    char path[1024];    /* llama.cpp's file */
    int remove;         /* written to $TMPDIR: removed at the end */
    double setup_s;
    size_t lin_bytes, all_bytes, emb_bytes, emb_row;
    double lin_weights;
    int untied;
    char note[160];
};

static int head_type(mp_e2e_head_fmt f)
{
    return f == MP_E2E_HEAD_Q8_0 ? MP_GGML_Q8_0 : f == MP_E2E_HEAD_Q4_0 ? MP_GGML_Q4_0
                                                                      : MP_GGML_F16;
}

int mp_e2e_dec_llama_type(const mp_e2e_config *c)
{
    const mp_variant *v = c->lin[0].v;
    for (int l = 1; l < MP_E2E_NLIN; l++)
        if (c->lin[l].v != v)
            return -1; /* mixed: our runner, a peer's kernel on some linears */
    if (!v || v->family != MP_FAMILY_PEER)
        return -1;
    static const int types[] = {MP_GGML_TQ2_0, MP_GGML_TQ1_0, MP_GGML_Q8_0, MP_GGML_Q4_0,
                                MP_GGML_F16};
    const char *fmt = strchr(v->name, '.');
    for (size_t i = 0; fmt && i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(fmt + 1, mp_gguf_type_name(types[i])))
            return types[i];
    return -1;
}

/* The sizes of what llama.cpp reads, from our reader's view of the file. */
static int file_sizes(mp_e2e_dec *d, int type, mp_err *e)
{
    mp_gguf *g;
    int rc = mp_gguf_open(d->path, &g, e);
    if (rc)
        return rc;
    d->untied = mp_gguf_tensor_find(g, "output.weight") != NULL;
    for (int64_t i = 0; i < g->n_tensors; i++) {
        const mp_gguf_tensor *t = &g->t[i];
        d->all_bytes += t->bytes;
        if (!strcmp(t->name, "token_embd.weight"))
            d->emb_bytes = t->bytes, d->emb_row = t->ne[1] ? t->bytes / (size_t)t->ne[1] : 0;
        if (t->type == type && t->n_dims == 2 && strncmp(t->name, "token_embd", 10) &&
            strncmp(t->name, "output", 6))
            d->lin_bytes += t->bytes, d->lin_weights += (double)t->ne[0] * (double)t->ne[1];
    }
    mp_gguf_close(g);
    if (!d->lin_bytes)
        return mp_fail(e, MP_EUSAGE, "%s: no linear of type %s for llama.cpp", d->path,
                       mp_gguf_type_name(type));
    return MP_OK;
}

/* llama.cpp's file for this configuration: the run's --gguf, or ours, cached. */
static int llama_file(mp_e2e_dec *d, const mp_e2e_job *o, const mp_model *md, int type,
                      mp_err *e)
{
    if (o->gguf_path) {
        snprintf(d->path, sizeof d->path, "%s", o->gguf_path);
        return MP_OK;
    }
    char name[512];
    snprintf(name, sizeof name, "llama-%s-L%d-s%d-%s-%s.gguf", md->name, o->layers, o->seed,
             mp_gguf_type_name(type), mp_gguf_type_name(head_type(o->head)));
    for (char *p = name; *p; p++)
        if (*p == '/')
            *p = '_';
    if (o->cache_dir) {
        snprintf(d->path, sizeof d->path, "%s/%s", o->cache_dir, name);
        struct stat st;
        mp_model has;
        mp_err ignore;
        if (stat(d->path, &st) == 0 && mp_gguf_model_load(d->path, &has, &ignore) == MP_OK &&
            has.layers == o->layers) {
            snprintf(d->note, sizeof d->note, "llama.cpp's file from the weight cache");
            return MP_OK;
        }
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(d->path, sizeof d->path, "%s/mpbench-%d-%s", tmp && *tmp ? tmp : "/tmp",
                 (int)getpid(), name);
        d->remove = 1;
    }
    mp_model m = *md;
    m.layers = o->layers;
    int rc = mp_gguf_write_model(d->path, &m, (uint64_t)o->seed, type, head_type(o->head), e);
    if (!rc)
        snprintf(d->note, sizeof d->note, "llama.cpp's file written%s",
                 o->cache_dir ? " to the weight cache" : "");
    return rc;
}

int mp_e2e_dec_open(const mp_e2e_job *o, const mp_model *md, const mp_e2e_config *c,
                    const mp_e2e_spec *spec, mp_pool *pool, mp_e2e_dec **out, mp_err *e)
{
    mp_e2e_dec *d = calloc(1, sizeof *d);
    if (!d)
        return mp_fail(e, MP_ERUN, "out of memory");
    *out = d;
    int type = mp_e2e_dec_llama_type(c);
    if (type < 0)
        return mp_e2e_create(spec, pool, &d->m, e);
    /* llama.cpp maps its own file: the buffers our previous instance kept for
     * the next one would sit beside it (bitnetcpp-13b, 24 F16 layers: 15 GB
     * each in 23 GiB, and llamacpp.f16 decoded at 0.08 tokens/s, paging) */
    mp_e2e_spares_free();
    double t0 = mp_now();
    int rc = llama_file(d, o, md, type, e);
    if (!rc)
        rc = file_sizes(d, type, e);
    d->pool = pool;
    if (!rc)
        rc = mp_llama_open(d->path, o->threads, spec->max_ctx, spec->max_tokens,
                           spec->max_seqs, &d->l, e);
    d->setup_s = mp_now() - t0;
    return rc;
}

void mp_e2e_dec_free(mp_e2e_dec *d)
{
    if (!d)
        return;
    mp_e2e_free(d->m);
    mp_llama_close(d->l);
    if (d->remove)
        unlink(d->path);
    free(d);
}

mp_e2e *mp_e2e_dec_ours(const mp_e2e_dec *d)
{
    return d ? d->m : NULL;
}

void mp_e2e_dec_reset(mp_e2e_dec *d)
{
    if (d->m)
        mp_e2e_reset(d->m);
    else
        mp_llama_reset(d->l);
}

int mp_e2e_dec_forward(mp_e2e_dec *d, const int *tok, const int *seq, int n,
                       const unsigned char *want, float *logits)
{
    if (d->m)
        return mp_e2e_forward(d->m, tok, seq, n, want, logits);
    /* our pool's workers sleep while llama.cpp's threads run on the same cores
     * (a pool run - the clock gate's reading, the bound's read - leaves them
     * spinning until told otherwise; pool.c) */
    mp_pool_rest(d->pool, 1);
    mp_err e;
    int rc = mp_llama_forward(d->l, tok, seq, n, want, d->next, &e);
    if (rc)
        fprintf(stderr, "mpbench: %s\n", e.msg);
    return rc;
}

void mp_e2e_dec_quiet(mp_e2e_dec *d, int quiet)
{
    if (d->l)
        mp_llama_pause(d->l, quiet);
}

const int *mp_e2e_dec_tokens(const mp_e2e_dec *d)
{
    return d->m ? mp_e2e_tokens(d->m) : d->next;
}

double mp_e2e_dec_setup_s(const mp_e2e_dec *d)
{
    return d->m ? mp_e2e_setup_info(d->m)->seconds : d->setup_s;
}

void mp_e2e_dec_sizes(const mp_e2e_dec *d, mp_e2e_row *r)
{
    if (d->m) {
        mp_e2e_row_sizes(r, d->m);
    } else {
        r->ternary_bytes = d->lin_bytes;
        r->model_bytes = d->all_bytes;
        r->bpw = 8.0 * (double)d->lin_bytes / d->lin_weights;
    }
}

size_t mp_e2e_dec_token_bytes(const mp_e2e_dec *d, const mp_e2e_job *o, const mp_model *md, int B)
{
    size_t kvd = (size_t)md->kv_heads * md->head_dim;
    if (d->l) {
        /* llama.cpp's KV cache is f16 */
        size_t kv = 2 * 2 * (size_t)o->layers * kvd * (size_t)(o->tg + 1) / 2;
        size_t once = d->untied ? d->all_bytes - d->emb_bytes : d->all_bytes;
        return once + (size_t)B * ((d->untied ? d->emb_row : 0) + kv);
    }
    const mp_e2e_mem *mem = mp_e2e_memory(d->m);
    size_t row = mp_e2e_head_row_bytes(o->head, md->hidden);
    size_t H = (size_t)md->hidden, qd = (size_t)md->heads * md->head_dim;
    size_t norms = sizeof(float) * (H + (size_t)o->layers * (2 * H + qd + md->intermediate));
    size_t kv = sizeof(float) * 2 * (size_t)o->layers * kvd * (size_t)(o->tg + 1) / 2;
    return mem->ternary + (size_t)md->vocab * row + norms + (size_t)B * ((md->tied ? 0 : row) + kv);
}

const char *mp_e2e_dec_note(const mp_e2e_dec *d, const mp_model *md)
{
    static char buf[320];
    if (!d->l)
        return "";
    char act[96] = "";
    if (md->sub_norm && strcmp(md->ffn_act, "silu"))
        snprintf(act, sizeof act, ", silu where the model has %s: other tokens, the same bytes",
                 md->ffn_act);
    snprintf(buf, sizeof buf, "llama.cpp end to end (libllama, its threadpool, f16 KV cache%s); "
             "%s; ", act, d->note);
    return buf;
}
