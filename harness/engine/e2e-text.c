/* e2e-text.c - the end-to-end runner on real text (issue 42): the prompts of
 * the lossless check taken from a text file (`e2e --prompt-text FILE`), and
 * bits per byte of a held-out text per variant (`e2e --ppl FILE`).
 *
 * Bytes become tokens as the GGUF file's vocabulary says: the token whose
 * piece is "<0xHH>" is byte 0xHH (SentencePiece's byte pieces; the trained
 * model of models/trained/ has byte b = token b + 3), so any byte-vocabulary
 * file works, and a file without all 256 is refused.
 *
 * Bits per byte, the trainer's protocol (scripts/train/data.py): the text in
 * chunks of 256 bytes (the last one shorter), each decoded from a fresh context
 * as BOS + chunk[:-1] in one forward pass with every position's logits; each
 * byte of the chunk is scored with the softmax of its position's logits in
 * double, bpb = sum(-log2 p(byte)) / bytes.  Decoding is deterministic, so a
 * lossless variant gives the reference's bpb to the last bit (a difference
 * fails the row); a lossy one differs by what its kernel error costs. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e-measure.h"
#include "../gguf/mp_gguf.h"
#include "../../kernels/common/mp_numerics.h"

int mp_e2e_byte_map(const char *gguf, int map[256], int *bos, mp_err *e)
{
    mp_gguf *g;
    int rc = mp_gguf_open(gguf, &g, e);
    if (rc)
        return rc;
    const mp_gguf_kv *tk = mp_gguf_find(g, "tokenizer.ggml.tokens");
    const mp_gguf_kv *bk = mp_gguf_find(g, "tokenizer.ggml.bos_token_id");
    for (int b = 0; b < 256; b++)
        map[b] = -1;
    for (uint64_t i = 0; tk && i < tk->n; i++) {
        uint64_t len;
        const char *s = mp_gguf_arr_str(tk, i, &len);
        unsigned hh;
        char tail;
        char piece[8];
        if (len != 6 || !s)
            continue;
        memcpy(piece, s, 6);
        piece[6] = 0;
        if (sscanf(piece, "<0x%2X%c", &hh, &tail) == 2 && tail == '>' && hh < 256 &&
            map[hh] < 0)
            map[hh] = (int)i;
    }
    *bos = bk ? (int)bk->v.u : -1;
    int missing = 0;
    for (int b = 0; b < 256; b++)
        missing += map[b] < 0;
    if (!tk)
        rc = mp_fail(e, MP_EUSAGE, "%s: no tokenizer.ggml.tokens: cannot map text bytes to "
                     "tokens", gguf);
    else if (missing)
        rc = mp_fail(e, MP_EUSAGE, "%s: %d of the 256 byte pieces \"<0xHH>\" are not in the "
                     "vocabulary: not a byte-level model", gguf, missing);
    else if (*bos < 0 || (uint64_t)*bos >= tk->n)
        rc = mp_fail(e, MP_EUSAGE, "%s: no valid tokenizer.ggml.bos_token_id", gguf);
    mp_gguf_close(g);
    return rc;
}

int mp_e2e_text_read(const char *path, unsigned char **text, size_t *len, mp_err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return mp_fail(e, MP_EUSAGE, "%s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    unsigned char *b = malloc(cap);
    size_t got;
    while (b && (got = fread(b + n, 1, cap - n, f)) > 0)
        if ((n += got) == cap) {
            unsigned char *nb = cap < ((size_t)1 << 30) ? realloc(b, cap *= 2) : NULL;
            if (!nb)
                free(b);
            b = nb;
        }
    fclose(f);
    if (!b)
        return mp_fail(e, MP_EUSAGE, "%s: out of memory or larger than 1 GiB", path);
    if (n < MP_E2E_PROMPT_MAX) {
        free(b);
        return mp_fail(e, MP_EUSAGE, "%s: %zu bytes, at least %d needed", path, n,
                       MP_E2E_PROMPT_MAX);
    }
    *text = b;
    *len = n;
    return MP_OK;
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

int mp_e2e_text_prompt(const mp_e2e_text *t, uint64_t seed, int p, int *tok)
{
    uint64_t r = mix(seed * 0x100000001b3ull ^ mix((uint64_t)p + 1));
    int len = MP_E2E_PROMPT_MIN + (int)(r % (MP_E2E_PROMPT_MAX - MP_E2E_PROMPT_MIN + 1));
    size_t at = (size_t)(mix(r) % (t->len - (size_t)(len - 1) + 1));
    tok[0] = t->bos;
    for (int i = 1; i < len; i++)
        tok[i] = t->map[t->text[at + (size_t)i - 1]];
    return len;
}

/* The bits of every byte of the text under instance m, summed; *rc set on a
 * refused forward pass.  logits: PPL_CHUNK x vocab floats. */
enum { PPL_CHUNK = 256 };
static double text_bits(mp_e2e *m, const mp_e2e_text *t, int vocab, float *logits, int *rc)
{
    int tok[PPL_CHUNK], seq[PPL_CHUNK] = {0};
    double bits = 0;
    for (size_t c0 = 0; c0 < t->len && !*rc; c0 += PPL_CHUNK) {
        int n = t->len - c0 < PPL_CHUNK ? (int)(t->len - c0) : PPL_CHUNK;
        tok[0] = t->bos;
        for (int i = 1; i < n; i++)
            tok[i] = t->map[t->text[c0 + (size_t)i - 1]];
        mp_e2e_reset(m);
        if ((*rc = mp_e2e_forward(m, tok, seq, n, NULL, logits)))
            break;
        for (int i = 0; i < n; i++) {
            const float *l = logits + (size_t)i * vocab;
            double mx = l[0], s = 0;
            for (int j = 1; j < vocab; j++)
                mx = l[j] > mx ? l[j] : mx;
            for (int j = 0; j < vocab; j++)
                s += exp((double)l[j] - mx);
            int y = t->map[t->text[c0 + (size_t)i]];
            bits -= ((double)l[y] - mx - log(s)) / log(2.0);
        }
    }
    return bits;
}

static void ppl_row(const mp_e2e_job *o, const mp_model *md, const mp_e2e_text *t,
                    const char *label, const char *method, mp_e2e_row *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->model, sizeof r->model, "%s", md->name);
    snprintf(r->variant, sizeof r->variant, "%s", label);
    snprintf(r->method, sizeof r->method, "%s", method);
    snprintf(r->test, sizeof r->test, "bpb");
    r->layers = o->layers, r->model_layers = md->layers, r->threads = o->threads;
    r->prompts = (int)((t->len + PPL_CHUNK - 1) / PPL_CHUNK); /* chunks */
    r->tokens = (int)t->len;                                  /* bytes scored */
    r->seed = (uint64_t)o->seed, r->batch = 1;
    r->logit_diff = NAN, r->first_diff = -1, r->steps_matched = -1;
}

/* One instance of spec: its bpb into r (share), or an error. */
static int ppl_measure(const mp_e2e_job *o, const mp_e2e_spec *spec, mp_pool *pool,
                       const mp_e2e_text *t, int vocab, float *logits, mp_e2e_row *r, mp_err *e)
{
    mp_e2e *m;
    int rc = mp_e2e_create(spec, pool, &m, e);
    if (rc)
        return rc;
    mp_e2e_job_note(o, r->variant, m);
    r->setup_s = mp_e2e_setup_info(m)->seconds;
    snprintf(r->lm_head, sizeof r->lm_head, "%s", mp_e2e_head_name(o->head));
    mp_e2e_row_sizes(r, m);
    double t0 = mp_now(), bits = text_bits(m, t, vocab, logits, &rc);
    r->tps_median = (double)t->len / (mp_now() - t0);
    mp_e2e_free(m);
    if (rc)
        return mp_fail(e, MP_ERUN, "e2e --ppl: forward pass refused its input (internal)");
    r->share = bits / (double)t->len;
    return MP_OK;
}

/* The share of the file's ternary weights that are zero, every linear of the
 * first o->layers layers (issue 42: seed 002's "about 50% of trained weights
 * are zero"), as a row of its own (test "zeros": share the fraction, tokens
 * the zeros in millions, prompts the weights in millions, reason both exact). */
static int zeros_row(const mp_e2e_job *o, const mp_model *md, const mp_e2e_source *src,
                     mp_e2e_row *r, mp_err *e)
{
    mp_linear ls[8];
    mp_model_linears(md, ls);
    double zeros = 0, total = 0;
    for (int L = 0; L < o->layers; L++)
        for (int l = 0; l < MP_E2E_NLIN; l++) {
            size_t n = (size_t)ls[l].m * (size_t)ls[l].k;
            int8_t *w = malloc(n);
            float scale;
            if (!w)
                return mp_fail(e, MP_ERUN, "e2e --ppl: out of memory counting zero weights");
            int rc = src->ternary(src, L, l, 0, w, ls[l].m, ls[l].k, &scale, e);
            for (size_t i = 0; !rc && i < n; i++)
                zeros += w[i] == 0;
            total += (double)n;
            free(w);
            if (rc)
                return rc;
        }
    r->share = total > 0 ? zeros / total : 0;
    r->tokens = (int)(zeros / 1e6 + 0.5);
    r->prompts = (int)(total / 1e6 + 0.5);
    snprintf(r->status, sizeof r->status, "ok");
    snprintf(r->reason, sizeof r->reason, "%.0f of %.0f ternary weights are zero (%s)", zeros,
             total, src->name ? src->name : "synthetic weights");
    return MP_OK;
}

int mp_e2e_run_ppl(const mp_e2e_job *o, const mp_model *md, mp_pool *pool,
                   const mp_e2e_config *cfg, int ncfg, mp_e2e_row *rows, int *nrows, int *failed,
                   mp_err *e)
{
    const mp_e2e_text *t = o->text;
    int vocab = md->vocab;
    if (md->max_pos < PPL_CHUNK)
        return mp_fail(e, MP_EUSAGE, "e2e --ppl: model %s has %d positions, the protocol's "
                       "chunks %d", md->name, md->max_pos, PPL_CHUNK);
    float *logits = mp_alloc(sizeof(float) * PPL_CHUNK * (size_t)vocab);
    mp_e2e_source syn, *sh = NULL;
    int rc = mp_e2e_job_source(o, md, pool, ncfg + 1, &syn, &sh, e);
    mp_e2e_spec base = {.model = *md, .layers = o->layers, .seed = (uint64_t)o->seed,
                        .src = sh ? sh : o->src, .max_seqs = 1, .max_ctx = PPL_CHUNK,
                        .max_tokens = PPL_CHUNK, .threads = o->threads, .head = o->head,
                        .cache_dir = o->cache_dir};
    /* the reference first: every row is judged against its bits */
    mp_e2e_row *ref = &rows[(*nrows)++];
    ppl_row(o, md, t, "reference", "REF", ref);
    int had = rc ? 0 : mp_e2e_job_stored(o, ref, e);
    if (had < 0)
        rc = -had;
    if (!rc && !had) {
        rc = ppl_measure(o, &base, pool, t, vocab, logits, ref, e);
        snprintf(ref->status, sizeof ref->status, "ok");
        snprintf(ref->reason, sizeof ref->reason, "bpb %.17g", ref->share);
        if (!rc)
            rc = mp_e2e_job_keep(o, ref, e);
    }
    if (!rc && o->src) { /* a file's weights: how many of them are zero */
        mp_e2e_row *z = &rows[(*nrows)++];
        ppl_row(o, md, t, "reference", "REF", z);
        snprintf(z->test, sizeof z->test, "zeros");
        had = mp_e2e_job_stored(o, z, e);
        if (had < 0)
            rc = -had;
        else if (!had && !(rc = zeros_row(o, md, o->src, z, e)))
            rc = mp_e2e_job_keep(o, z, e);
    }
    for (int c = 0; c < ncfg && !rc && !mp_engine_interrupted(); c++) {
        mp_e2e_row *r = &rows[(*nrows)++];
        ppl_row(o, md, t, cfg[c].label, cfg[c].method, r);
        if (mp_e2e_job_done(o, &cfg[c], r, failed, &rc, e) || rc)
            continue;
        mp_e2e_spec vs = base;
        memcpy(vs.lin, cfg[c].lin, sizeof vs.lin);
        if ((rc = ppl_measure(o, &vs, pool, t, vocab, logits, r, e)))
            break;
        int lossless = 1;
        for (int l = 0; l < MP_E2E_NLIN; l++)
            lossless &= cfg[c].lin[l].v->exactness == MP_LOSSLESS;
        int same = r->share == ref->share;
        snprintf(r->status, sizeof r->status, lossless && !same ? "failed" : "ok");
        snprintf(r->reason, sizeof r->reason, "bpb %.17g, reference %.17g: %s%s", r->share,
                 ref->share, same ? "the same bits" : "differs",
                 lossless && !same ? " (a lossless variant must equal the reference)" : "");
        *failed |= lossless && !same;
        rc = mp_e2e_job_keep(o, r, e);
    }
    mp_e2e_shared_free(sh);
    mp_e2e_spares_free();
    mp_free(logits);
    return rc;
}
