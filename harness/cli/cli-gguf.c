/* cli-gguf.c - the command-line side of GGUF files (issue 19), kept out of the
 * other command files so their edits stay one-liners:
 *   mpbench pack --gguf-out FILE --model NAME [--variant TYPE] [--lm-head TYPE] [--seed S]
 *   mpbench list gguf FILE [--tensors] [--llama P[,G]]   our reader's view, ggml's
 *       verdict, and with --llama greedy tokens of P seeded prompts (G tokens each)
 *       through llama.cpp and through our runner on the file's weights
 *   --gguf FILE in list shapes / run / sweep / tune / e2e (mp_cli_gguf_arg). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mp_paths.h"
#include "mp_cli.h"
#include "../e2e/mp_e2e.h"
#include "../gguf/mp_gguf.h"
#include "../core/mp_core.h"
#include "../../kernels/common/mp_numerics.h"
#include "../../variants/mp_registry.h"
#include "mp_options.h"

/* The ggml type named by v's first token ("tq2_0.avx2" -> TQ2_0) among the
 * n types of set; -1 when none. */
static int type_of(const char *v, const int *set, int n)
{
    size_t len = strcspn(v, ".");
    for (int i = 0; i < n; i++) {
        const char *name = mp_gguf_type_name(set[i]);
        if (strlen(name) == len && !strncmp(v, name, len))
            return set[i];
    }
    return -1;
}

static const int lin_types[] = {MP_GGML_TQ2_0, MP_GGML_TQ1_0, MP_GGML_I2_S,
                                MP_GGML_Q8_0,  MP_GGML_Q4_0,  MP_GGML_F16};
static const int head_types[] = {MP_GGML_BF16, MP_GGML_F16, MP_GGML_Q8_0, MP_GGML_Q4_0};

typedef struct gguf_opts {
    const char *out, *model, *variant, *head, *path, *lvar, *mptw;
    int seed, tensors, llama[2];
} gguf_opts;

static const mp_opt pack_table[] = {
    MP_OPT_S("gguf-out", gguf_opts, out, "FILE", "the GGUF file to write"),
    MP_OPT_S("model", gguf_opts, model, "NAME", "the architecture (see mpbench list models)"),
    MP_OPT_S("variant", gguf_opts, variant, "TYPE",
             "the linears' type: tq2_0, tq1_0, i2_s, q8_0, q4_0 or f16 (default i2_s)"),
    MP_OPT_S("lm-head", gguf_opts, head, "TYPE",
             "the embedding's and head's type: bf16, f16, q8_0 or q4_0 (default bf16)"),
    MP_OPT_SEED(gguf_opts, seed, "the runner's weight seed (default 1)"),
    MP_OPT_S("from-mptw", gguf_opts, mptw, "FILE",
             "a trained model's weights (models/trained/NAME.mptw) instead of --model and --seed"),
    MP_OPT_END};

static const mp_cmd_spec pack_spec = MP_CMD_SPEC("pack --gguf-out", pack_table,
    .once = "model variant",
    .synopsis = "--gguf-out FILE (--model NAME [--seed S] | --from-mptw FILE) [--variant TYPE]\n"
                "                    [--lm-head TYPE]",
    .about = "Writes a GGUF file with the model's architecture (llama.cpp's bitnet when it\n"
             "has sub-norms, else llama) and the e2e runner's seeded weights, the ternary\n"
             "linears in the given type (q8_0, q4_0, f16: the ternary values times their\n"
             "scale, as llama.cpp would hold them), embedding and head in --lm-head's.\n");

/* pack --gguf-out FILE --from-mptw FILE: the trained model's exact weights. */
static int pack_mptw(const gguf_opts *o, int type, int head)
{
    mp_model m;
    mp_e2e_source src;
    mp_err e;
    int rc = mp_mptw_open(o->mptw, &m, &src, &e);
    if (rc)
        return mp_die(rc, "--from-mptw %s", e.msg);
    char desc[700];
    snprintf(desc, sizeof desc, "mpbench: a ternary model trained here (%.400s, issue 42; "
             "models/trained/README.md)", o->mptw);
    if (!mp_parse_only_stop("pack --gguf-out"))
        rc = mp_gguf_write_model_src(o->out, &m, &src, desc, type, head, &e);
    mp_mptw_close(&src);
    if (rc)
        return mp_die(rc, "%s", e.msg);
    fprintf(stderr, "%s (%d layers, %s, head %s) -> %s\n", o->mptw, m.layers,
            mp_gguf_type_name(type), mp_gguf_type_name(head), o->out);
    return 0;
}

int mp_cmd_pack_gguf(int argc, char **argv)
{
    gguf_opts o = {.variant = "i2_s", .head = "bf16", .seed = 1};
    mp_opts_out po;
    mp_err e;
    int rc;
    if ((rc = mp_opts_parse(&pack_spec, argc, argv, &o, &po)) || po.help)
        return rc;
    const char *out = o.out, *model = o.model, *variant = o.variant;
    int seed = o.seed;
    if (!out || !model == !o.mptw)
        return mp_die(2, "pack --gguf-out FILE: give one of --model NAME or --from-mptw FILE");
    int type = type_of(variant, lin_types, (int)(sizeof lin_types / sizeof *lin_types));
    int head = type_of(o.head, head_types, (int)(sizeof head_types / sizeof *head_types));
    if (type < 0)
        return mp_die(2, "--variant '%s': the linears of a GGUF file here are tq2_0, tq1_0, "
                      "i2_s, q8_0, q4_0 or f16", variant);
    if (head < 0 || strchr(o.head, '.'))
        return mp_die(2, "--lm-head '%s': bf16, f16, q8_0 or q4_0", o.head);
    const mp_path paths[] = {{"--model", model, MP_PATH_IN, NULL},
                             {"--from-mptw", o.mptw, MP_PATH_IN, NULL},
                             {"--gguf-out", out, MP_PATH_FILE, NULL}};
    if ((rc = mp_paths_check("pack", paths, 3)))
        return rc;
    mp_model m;
    if (o.mptw)
        return pack_mptw(&o, type, head);
    if ((rc = mp_model_load(model, &m, &e)))
        return mp_die(rc, "%s", e.msg);
    if (mp_parse_only_stop("pack --gguf-out"))
        return 0;
    if ((rc = mp_gguf_write_model(out, &m, (uint64_t)seed, type, head, &e)))
        return mp_die(rc, "%s", e.msg);
    struct stat st;
    stat(out, &st);
    fprintf(stderr, "%s: %s (%d layers, %s, head %s) with seed %d -> %s, %.1f MiB\n", out, m.name,
            m.layers, mp_gguf_type_name(type), mp_gguf_type_name(head), seed,
            m.sub_norm ? "bitnet" : "llama",
            (double)st.st_size / (1024.0 * 1024.0));
    return 0;
}

/* Our runner with variant v on the prompts llama.cpp decoded (its tokens lt and
 * logits llg after each prompt), printing how far the two agree. */
static int runner_compare(const char *path, const mp_model *m, const mp_variant *v, int P, int G,
                          int (*prompts)[MP_E2E_PROMPT_MAX], const int *plen, const int *lt,
                          const float *llg, int *ot, const mp_e2e_source *src)
{
    mp_err e;
    int rc;
    mp_e2e_spec s = {.model = *m, .layers = m->layers, .seed = 1, .src = src, .max_seqs = 1,
                     .max_ctx = MP_E2E_PROMPT_MAX + G, .max_tokens = MP_E2E_PROMPT_MAX,
                     .threads = 1};
    for (int l = 0; l < MP_E2E_NLIN; l++) {
        s.lin[l].v = v;
        mp_variant_defaults(v, s.lin[l].param);
    }
    char binding[256];
    mp_pool *pool = mp_pool_create(1, binding, sizeof binding);
    mp_e2e *r;
    if ((rc = mp_e2e_create(&s, pool, &r, &e))) {
        mp_pool_destroy(pool);
        return mp_die(rc, "%s", e.msg);
    }
    float *lg = mp_alloc(sizeof(float) * (size_t)m->vocab);
    int match = 0, first = 0, tok_same = 0;
    double maxd = 0, maxref = 0;
    for (int p = 0; p < P; p++) {
        unsigned char want[MP_E2E_PROMPT_MAX] = {0};
        int seq[MP_E2E_PROMPT_MAX] = {0};
        want[plen[p] - 1] = 1;
        mp_e2e_reset(r);
        mp_e2e_forward(r, prompts[p], seq, plen[p], want, lg);
        for (int v = 0; v < m->vocab; v++) {
            double d = fabs((double)lg[v] - llg[(size_t)p * m->vocab + v]);
            maxd = d > maxd ? d : maxd;
            maxref = fabs(lg[v]) > maxref ? fabs(lg[v]) : maxref;
        }
        mp_e2e_greedy(r, prompts[p], plen[p], G, ot, lg);
        const int *l = lt + (size_t)p * G;
        match += !memcmp(ot, l, sizeof(int) * G);
        first += ot[0] == l[0];
        int k = 0;
        while (k < G && ot[k] == l[k])
            k++;
        tok_same += k;
    }
    printf("llama.cpp vs mpbench e2e (%s) on %s: %d of %d prompts give the same %d greedy tokens "
           "(%.1f%%); first token %d of %d; tokens before the first difference %.1f%%\n", v->name,
           path, match, P, G, 100.0 * match / P, first, P, 100.0 * tok_same / ((double)P * G));
    printf("  logits after each prompt: max |mpbench - llama.cpp| = %.3g (%.2g of max |logit| "
           "%.3g)\n", maxd, maxref > 0 ? maxd / maxref : 0.0, maxref);
    mp_free(lg);
    mp_e2e_free(r);
    mp_e2e_spares_free();
    mp_pool_destroy(pool);
    return 0;
}

/* Greedy tokens of P seeded prompts x G tokens through llama.cpp and through
 * our runner with variant vname (lossless: the reference's tokens). */
static int llama_compare(const char *path, const mp_model *m, int P, int G, const char *vname)
{
    mp_err e;
    const mp_variant *v = mp_registry_find(vname);
    if (!v || !mp_variant_available(v))
        return mp_die(2, "--llama-variant %s: unknown or not runnable here", vname);
    enum { MAXP = 1000 };
    static int prompts[MAXP][MP_E2E_PROMPT_MAX];
    int plen[MAXP];
    const int *pp[MAXP];
    for (int p = 0; p < P; p++) {
        plen[p] = mp_e2e_prompt(1, p, m->vocab, prompts[p]);
        pp[p] = prompts[p];
    }
    int *lt = calloc((size_t)P * G, sizeof *lt), *ot = calloc((size_t)G, sizeof *ot);
    float *llg = malloc(sizeof(float) * (size_t)P * m->vocab);
    int rc = mp_llama_greedy(path, pp, plen, P, G, lt, llg, &e);
    if (rc) {
        printf("llama.cpp: %s\n", e.msg);
        free(llg);
        free(lt);
        free(ot);
        return 0; /* llama.cpp refusing the file is a finding, not an error */
    }
    mp_gguf *g;
    mp_e2e_source src;
    g = NULL;
    if ((rc = mp_gguf_open(path, &g, &e)) || (rc = mp_gguf_source(g, m, &src, &e))) {
        mp_gguf_close(g);
        free(llg);
        free(lt);
        free(ot);
        return mp_die(rc, "%s", e.msg);
    }
    rc = runner_compare(path, m, v, P, G, prompts, plen, lt, llg, ot, &src);
    mp_gguf_source_free(&src);
    mp_gguf_close(g);
    free(llg);
    free(lt);
    free(ot);
    return rc;
}

/* --llama P[,G]: P prompts (1-1000) of G tokens (1-200, default 16). */
static int llama_arg(const char *arg, void *target, mp_err *e)
{
    int *t = target;
    long p, g = t[1];
    const char *comma = strchr(arg, ',');
    int hl = comma ? (int)(comma - arg) : (int)strlen(arg);
    char head[32];
    snprintf(head, sizeof head, "%.*s", hl, arg);
    /* the checked parser, not sscanf's %d (it wrapped 4294967297 to 1) */
    if (hl >= (int)sizeof head || mp_parse_long(head, 1, 1000, &p) ||
        (comma && mp_parse_long(comma + 1, 1, 200, &g)))
        return mp_fail(e, MP_EUSAGE, "--llama '%s': want PROMPTS[,TOKENS] (1-1000, 1-200)", arg);
    t[0] = (int)p, t[1] = (int)g;
    return MP_OK;
}

static const mp_opt list_table[] = {
    MP_OPT_F("tensors", 0, gguf_opts, tensors, "list every tensor"),
    MP_OPT_FN_("llama", gguf_opts, llama, llama_arg, "P[,G]",
               "greedy tokens of P seeded prompts (G tokens, default 16) through llama.cpp "
               "and our runner"),
    MP_OPT_S("llama-variant", gguf_opts, lvar, "V", "our runner's variant (default i2_s.scalar)"),
    MP_OPT_END};

static const mp_cmd_spec list_spec = MP_CMD_SPEC("list gguf", list_table, .max_pos = 1,
    .synopsis = "FILE [--tensors] [--llama P[,G]] [--llama-variant V]",
    .about = "Prints our reader's view of a GGUF file, ggml's verdict on it and, with\n"
             "--llama, llama.cpp's greedy tokens next to our runner's.\n");

int mp_cmd_list_gguf(int argc, char **argv)
{
    gguf_opts o = {.lvar = "i2_s.scalar", .llama = {0, 16}};
    mp_opts_out po;
    int rc;
    if ((rc = mp_opts_parse(&list_spec, argc, argv, &o, &po)) || po.help)
        return rc;
    const char *path = po.npos ? po.pos[0] : NULL, *lvar = o.lvar;
    int tensors = o.tensors, lp = o.llama[0], lg = o.llama[1];
    if (!path)
        return mp_die(2, "list gguf: FILE is required");
    mp_gguf *g;
    mp_err e;
    rc = mp_gguf_open(path, &g, &e);
    if (rc)
        return mp_die(rc, "%s", e.msg);
    printf("# %s: GGUF version %d, %lld keys, %lld tensors, alignment %llu, data at byte %llu\n",
           path, g->version, (long long)g->n_kv, (long long)g->n_tensors,
           (unsigned long long)g->alignment, (unsigned long long)g->data_offset);
    for (int64_t i = 0; i < g->n_kv; i++) {
        const mp_gguf_kv *kv = &g->kv[i];
        printf("  %-44s ", kv->key);
        switch (kv->type) {
        case MP_GGUF_STRING: printf("%.100s\n", kv->str); break;
        case MP_GGUF_ARRAY: printf("[%llu elements of type %d]\n", (unsigned long long)kv->n,
                                   kv->arr_type); break;
        case MP_GGUF_F32: case MP_GGUF_F64: printf("%g\n", kv->v.f); break;
        case MP_GGUF_I8: case MP_GGUF_I16: case MP_GGUF_I32: case MP_GGUF_I64:
            printf("%lld\n", (long long)kv->v.i);
            break;
        default: printf("%llu\n", (unsigned long long)kv->v.u); break;
        }
    }
    size_t by_type[64] = {0};
    int64_t cnt[64] = {0};
    for (int64_t i = 0; i < g->n_tensors; i++) {
        const mp_gguf_tensor *t = &g->t[i];
        by_type[t->type & 63] += t->bytes;
        cnt[t->type & 63]++;
        if (tensors)
            printf("  tensor %-32s %-6s [%lld, %lld, %lld, %lld] offset %llu, %zu bytes\n",
                   t->name, mp_gguf_type_name(t->type), (long long)t->ne[0], (long long)t->ne[1],
                   (long long)t->ne[2], (long long)t->ne[3], (unsigned long long)t->offset,
                   t->bytes);
    }
    for (int t = 0; t < 64; t++)
        if (cnt[t])
            printf("  %lld tensors of %s (ggml type %d%s): %.1f MiB\n", (long long)cnt[t],
                   mp_gguf_type_name(t), t, mp_gguf_type_runs(t) ? "" : ", not read here",
                   (double)by_type[t] / (1024.0 * 1024.0));
    mp_model m;
    int mrc = rc = mp_gguf_model(g, &m, &e);
    if (rc) { /* why it cannot run goes to stderr too: the exit is not 0 */
        printf("model: not runnable: %s\n", e.msg);
        fprintf(stderr, "mpbench: list gguf: model not runnable: %s\n", e.msg);
    }
    else
        printf("model: %s: hidden %d, intermediate %d, layers %d, heads %d, kv_heads %d, head_dim "
               "%d, vocab %d, context %d, rope_theta %g, norm_eps %g, ffn %s, tied %d, "
               "sub-norms %d\n", m.name, m.hidden, m.intermediate, m.layers, m.heads, m.kv_heads,
               m.head_dim, m.vocab, m.max_pos, m.rope_theta, m.norm_eps, m.ffn_act, m.tied,
               m.sub_norm);
    mp_gguf_close(g);
    if (mp_parse_only_stop("list gguf")) /* ggml's check loads llama.cpp */
        return 0;
    char rep[1400];
    mp_err ge;
    int grc = mp_ggml_crosscheck(path, rep, sizeof rep, &ge);
    if (grc < 0)
        printf("ggml: not checked: %s\n", ge.msg);
    else if (grc == MP_EUSAGE)
        printf("ggml: %s\n", ge.msg);
    else
        printf("ggml: %s%s%s\n", rep, grc ? ": " : "", grc ? ge.msg : "");
    if (lp && !mrc && (rc = llama_compare(path, &m, lp, lg, lvar)))
        return rc;
    return rc ? rc : grc == MP_ERUN ? 1 : 0;
}
