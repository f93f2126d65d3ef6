/* cli-e2e.c - `mpbench e2e`: the end-to-end decoder of harness/e2e.c measured
 * like llama-bench (prefill "ppN", decode "tgN", parallel decoding "tgN bB" where
 * B sequences decode together so the kernels see N = B), or the lossless check
 * of seed 004 §3.2 / Table 7 (--lossless: greedy tokens of each variant against
 * the reference arithmetic, share of prompts that match exactly).
 *
 * Everything the user controls is validated before any work: options, model
 * file, variants (available, and able to take every linear shape of the model),
 * the tuned config, and the memory estimate against MemAvailable.  The run row
 * and all e2e rows are written in one transaction at the end.
 *
 * Timing: each test starts from empty KV caches; one untimed warm-up call, then
 * --reps timed repetitions; tokens/s = tokens processed / wall time of the test
 * (pp: prompt tokens, prefill in chunks of 512 like llama.cpp's n_ubatch, logits
 * of the last token only; tg: tokens generated one at a time with greedy
 * feedback; tgN bB: B*N tokens).  Printed: median ± sample standard deviation
 * over the repetitions (llama-bench prints mean ± stddev; the median resists the
 * noise of a shared machine). */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_cli.h"
#include "mp_e2e.h"
#include "mp_gguf.h"
#include "mp_harness.h"
#include "../kernels/common/mp_numerics.h"
#include "../tuner/mp_tuned.h"
#include "../variants/mp_registry.h"

enum { MAX_SEL = 256, MAX_BATCH = 16, UBATCH = 512 };

typedef struct config {
    mp_e2e_choice lin[MP_E2E_NLIN];
    char label[256], method[64];
    char skip[512]; /* non-empty: reported as skipped with this reason */
} config;

static void e2e_usage(FILE *f)
{
    fputs("usage: mpbench e2e (--model NAME | --gguf FILE) (--variant GLOB[,GLOB] | --tuned FILE [--force])\n"
          "                   [--variant-for qkv=V,o=V,ffn_up=V,ffn_down=V]\n"
          "                   [--pp N] [--tg N] [--batch B[,B...]] [--threads T] [--reps R]\n"
          "                   [--layers L] [--seed S] [--db PATH | --no-db]\n"
          "                   [--format table|csv|json|md]\n"
          "       mpbench e2e --lossless --model NAME --variant GLOB[,GLOB] [--prompts P]\n"
          "                   [--tokens T] [--layers L] [--threads T] [--seed S] [...]\n"
          "  A BitNet-style decoder with the model file's architecture and synthetic\n"
          "  seeded weights (--gguf: a GGUF file's architecture and real weights, ternary\n"
          "  tensors checked ternary); every ternary linear runs through the chosen variant.\n"
          "  Tests: ppN (prefill, default 64), tgN (decode, default 16), and for each\n"
          "  batch B > 1 'tgN bB' (B sequences decoding together).  One set of rows per\n"
          "  variant.  --variant-for overrides the variant per layer group (ffn_up = gate\n"
          "  and up).  --tuned takes each layer's variant and parameters from a tuned\n"
          "  config (tuner/mp_tuned.h): per layer the entry for its shape closest to\n"
          "  these threads, then to n=1 (n=pp when --tg 0); one --variant, if given, fills\n"
          "  the layers the config lacks; --force accepts a config\n"
          "  tuned on another machine.  --lossless decodes P seeded prompts (default 50)\n"
          "  for T tokens (default 32) with each variant and with the reference\n"
          "  arithmetic and reports the share of prompts whose tokens match exactly.\n"
          "  The memory needed is estimated first; a run that does not fit is refused.\n",
          f);
}

static double now(void)
{
    return mp_now();
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void fill_stats(mp_e2e_row *r, const double *sec, int reps, double tokens)
{
    double tps[1024], sum = 0;
    size_t used = 0;
    r->times[0] = 0;
    for (int i = 0; i < reps; i++) {
        tps[i] = sec[i] > 0 ? tokens / sec[i] : 0;
        sum += tps[i];
        if (used < sizeof r->times)
            used += (size_t)snprintf(r->times + used, sizeof r->times - used, "%s%.6f",
                                     i ? "," : "", sec[i]);
    }
    double mean = sum / reps, ss = 0;
    for (int i = 0; i < reps; i++)
        ss += (tps[i] - mean) * (tps[i] - mean);
    qsort(tps, (size_t)reps, sizeof tps[0], cmp_d);
    r->tps_median = reps % 2 ? tps[reps / 2] : 0.5 * (tps[reps / 2 - 1] + tps[reps / 2]);
    r->tps_min = tps[0];
    r->tps_max = tps[reps - 1];
    r->tps_spread = reps > 1 ? sqrt(ss / (reps - 1)) : 0;
}

/* "name=value,..." of the parameters that differ from the variant's defaults. */
static void nondefault_params(const mp_e2e_choice *ch, char *buf, size_t len)
{
    int def[MP_MAX_PARAMS];
    mp_variant_defaults(ch->v, def);
    if (!memcmp(def, ch->param, sizeof(int) * (size_t)ch->v->n_params))
        buf[0] = 0;
    else
        mp_params_str(ch->v, ch->param, buf, len);
}

/* Label of a configuration: one name when all seven linears share a variant
 * and parameters, else the per-layer list; parameters only when not defaults. */
static void label_config(config *c)
{
    int same = 1;
    for (int l = 1; l < MP_E2E_NLIN; l++)
        same &= c->lin[l].v == c->lin[0].v &&
                !memcmp(c->lin[l].param, c->lin[0].param, sizeof c->lin[0].param);
    char ps[128];
    if (same) {
        nondefault_params(&c->lin[0], ps, sizeof ps);
        snprintf(c->label, sizeof c->label, "%s%s%s", c->lin[0].v->name, ps[0] ? ":" : "", ps);
        snprintf(c->method, sizeof c->method, "%s", c->lin[0].v->method);
        return;
    }
    static const char *const gname[] = {"q", "k", "v", "o", "gate", "up", "down"};
    size_t used = 0;
    for (int l = 0; l < MP_E2E_NLIN; l++) {
        nondefault_params(&c->lin[l], ps, sizeof ps);
        if (used < sizeof c->label)
            used += (size_t)snprintf(c->label + used, sizeof c->label - used, "%s%s=%s%s%s",
                                     l ? "," : "", gname[l], c->lin[l].v->name,
                                     ps[0] ? ":" : "", ps);
    }
    snprintf(c->method, sizeof c->method, "mixed");
}

/* --tuned: for each linear, the entry for its (M, K) among the available
 * variants, closest to this run's threads, then to n_ref (1 when decoding is
 * measured); sel (at most one) is the fallback for shapes the file lacks. */
static int tuned_configs(const char *path, const mp_machine *mach, const mp_model *md,
                         const mp_variant *const *sel, int nsel, int threads, int n_ref,
                         int force, config *c, mp_err *e)
{
    mp_tuned t;
    int rc = mp_tuned_load(path, mach->fingerprint, force, &t, e);
    if (rc)
        return rc;
    mp_linear ls[8];
    mp_model_linears(md, ls);
    for (int l = 0; l < MP_E2E_NLIN && !rc; l++) {
        const mp_tuned_entry *best = NULL;
        double bs = 0;
        for (int i = 0; i < t.count; i++) {
            const mp_tuned_entry *x = &t.e[i];
            if (x->m != ls[l].m || x->k != ls[l].k || !mp_variant_available(x->v))
                continue;
            double sc = (x->threads != threads) * 1e6 + fabs(log2((double)x->n) - log2(n_ref));
            if (!best || sc < bs)
                best = x, bs = sc;
        }
        if (best) {
            c->lin[l].v = best->v;
            memcpy(c->lin[l].param, best->param, sizeof c->lin[l].param);
        } else if (nsel == 1) {
            c->lin[l].v = sel[0];
            mp_variant_defaults(sel[0], c->lin[l].param);
        } else {
            rc = mp_fail(e, MP_EUSAGE,
                         "--tuned %s: no usable entry for layer %s (%dx%d) of %s; give a "
                         "--variant as the fallback",
                         path, ls[l].layer, ls[l].m, ls[l].k, md->name);
        }
    }
    mp_tuned_free(&t);
    return rc;
}

typedef struct opts {
    const char *model, *tuned, *vfor, *db;
    const char *gguf;              /* --gguf FILE: the file's real weights (issue 19) */
    const mp_e2e_source *src;      /* their source, NULL for synthetic weights */
    char globs[1024];
    int pp, tg, nbatch, batch[MAX_BATCH], threads, reps, layers, seed, no_db, lossless, force;
    int prompts, tokens, pp_set, tg_set, batch_set, prompts_set, tokens_set;
    mp_format fmt;
} opts;

/* Runs the lossless check for every configuration; fills rows. */
static int run_lossless(const opts *o, const mp_model *md, mp_pool *pool, config *cfg, int ncfg,
                        mp_e2e_row *rows, int *nrows, int *failed, mp_err *e)
{
    int vocab = md->vocab, gen = o->tokens, P = o->prompts, tty = isatty(2);
    int *ref_tok[2] = {NULL, NULL}; /* [binary]: P x gen reference tokens */
    int *tok = malloc(sizeof(int) * (size_t)gen), prompt[MP_E2E_PROMPT_MAX];
    float *logits = mp_alloc(sizeof(float) * (size_t)vocab);
    int rc = MP_OK;
    mp_e2e_spec base = {.model = *md, .layers = o->layers, .seed = (uint64_t)o->seed,
                        .src = o->src, .max_seqs = 1, .max_ctx = MP_E2E_PROMPT_MAX + gen,
                        .max_tokens = MP_E2E_PROMPT_MAX, .threads = o->threads};
    for (int c = 0; c < ncfg && !rc; c++) {
        mp_e2e_row *r = &rows[(*nrows)++];
        memset(r, 0, sizeof *r);
        snprintf(r->model, sizeof r->model, "%s", md->name);
        snprintf(r->variant, sizeof r->variant, "%s", cfg[c].label);
        snprintf(r->method, sizeof r->method, "%s", cfg[c].method);
        snprintf(r->test, sizeof r->test, "lossless");
        r->layers = o->layers, r->model_layers = md->layers, r->threads = o->threads;
        r->n_gen = gen, r->prompts = P, r->tokens = gen, r->seed = (uint64_t)o->seed;
        r->batch = 1;
        if (cfg[c].skip[0]) {
            snprintf(r->status, sizeof r->status, "skipped");
            snprintf(r->reason, sizeof r->reason, "%.250s", cfg[c].skip);
            continue;
        }
        int binary = 0;
        for (int l = 0; l < MP_E2E_NLIN; l++)
            binary |= cfg[c].lin[l].v->domain == MP_DOMAIN_BINARY;
        if (!ref_tok[binary]) {
            mp_e2e_spec rs = base;
            for (int l = 0; l < MP_E2E_NLIN; l++)
                rs.lin[l].binary = cfg[c].lin[l].v->domain == MP_DOMAIN_BINARY;
            mp_e2e *ref;
            if ((rc = mp_e2e_create(&rs, pool, &ref, e)))
                break;
            ref_tok[binary] = malloc(sizeof(int) * (size_t)P * gen);
            for (int p = 0; p < P; p++) {
                if (tty)
                    fprintf(stderr, "\rlossless: reference prompt %d/%d   ", p + 1, P);
                int len = mp_e2e_prompt((uint64_t)o->seed, p, vocab, prompt);
                mp_e2e_greedy(ref, prompt, len, gen, ref_tok[binary] + (size_t)p * gen, logits);
            }
            mp_e2e_free(ref);
        }
        mp_e2e_spec vs = base;
        memcpy(vs.lin, cfg[c].lin, sizeof vs.lin);
        mp_e2e *m;
        if ((rc = mp_e2e_create(&vs, pool, &m, e)))
            break;
        const mp_e2e_mem *mem = mp_e2e_memory(m);
        r->ternary_bytes = mem->ternary;
        r->model_bytes = mem->ternary + mem->floats;
        r->bpw = 8.0 * (double)mem->ternary / mem->ternary_weights;
        for (int p = 0; p < P; p++) {
            if (tty)
                fprintf(stderr, "\rlossless: %s prompt %d/%d   ", cfg[c].label, p + 1, P);
            int len = mp_e2e_prompt((uint64_t)o->seed, p, vocab, prompt);
            mp_e2e_greedy(m, prompt, len, gen, tok, logits);
            r->matched += !memcmp(tok, ref_tok[binary] + (size_t)p * gen, sizeof(int) * gen);
        }
        mp_e2e_free(m);
        r->share = (double)r->matched / P;
        int lossless_variant = 1;
        for (int l = 0; l < MP_E2E_NLIN; l++)
            lossless_variant &= cfg[c].lin[l].v->exactness == MP_LOSSLESS;
        if (lossless_variant && r->matched != P) {
            snprintf(r->status, sizeof r->status, "failed");
            snprintf(r->reason, sizeof r->reason,
                     "lossless variant matched %d of %d prompts (seed %d)", r->matched, P,
                     o->seed);
            *failed = 1;
        } else {
            snprintf(r->status, sizeof r->status, "ok");
            if (!lossless_variant)
                snprintf(r->reason, sizeof r->reason, "%s: agreement reported, not required",
                         cfg[c].lin[0].v->exactness == MP_FLOAT ? "float" : "lossy");
        }
    }
    if (tty)
        fputs("\r\033[K", stderr);
    free(ref_tok[0]);
    free(ref_tok[1]);
    free(tok);
    mp_free(logits);
    return rc;
}

/* Runs pp / tg / batch tests for every configuration; fills rows. */
static int run_perf(const opts *o, const mp_model *md, mp_pool *pool, config *cfg, int ncfg,
                    mp_e2e_row *rows, int *nrows, mp_err *e)
{
    int maxb = 1;
    for (int i = 0; i < o->nbatch; i++)
        if (o->batch[i] > maxb)
            maxb = o->batch[i];
    int ntok = o->pp > maxb ? o->pp : maxb, vocab = md->vocab, tty = isatty(2);
    int *tok = malloc(sizeof(int) * (size_t)(ntok ? ntok : 1));
    int *seq = calloc((size_t)(ntok ? ntok : 1), sizeof *seq);
    unsigned char *want = calloc((size_t)(ntok ? ntok : 1), 1);
    float *logits = mp_alloc(sizeof(float) * (size_t)vocab * maxb);
    double *sec = malloc(sizeof(double) * (size_t)o->reps);
    mp_e2e_spec base = {.model = *md, .layers = o->layers, .seed = (uint64_t)o->seed,
                        .src = o->src, .max_seqs = maxb, .max_ctx = o->pp > o->tg ? o->pp : o->tg,
                        .max_tokens = (o->pp < UBATCH ? o->pp : UBATCH) > maxb
                                          ? (o->pp < UBATCH ? o->pp : UBATCH)
                                          : maxb,
                        .threads = o->threads};
    mp_rng rng = {(uint64_t)o->seed * 7919 + 3};
    int rc = MP_OK;
    for (int c = 0; c < ncfg && !rc; c++) {
        /* tests of this configuration: pp, tg, then each batch > 1 */
        int ntest = 0, kind[2 + MAX_BATCH], nb[2 + MAX_BATCH];
        if (o->pp)
            kind[ntest] = 0, nb[ntest++] = 1;
        if (o->tg) {
            kind[ntest] = 1, nb[ntest++] = 1; /* always: the single-sequence baseline */
            for (int i = 0; i < o->nbatch; i++)
                if (o->batch[i] > 1)
                    kind[ntest] = 2, nb[ntest++] = o->batch[i];
        }
        mp_e2e *m = NULL;
        if (!cfg[c].skip[0]) {
            if (tty)
                fprintf(stderr, "\r%s: building %d layers   ", cfg[c].label, o->layers);
            mp_e2e_spec s = base;
            memcpy(s.lin, cfg[c].lin, sizeof s.lin);
            if ((rc = mp_e2e_create(&s, pool, &m, e)))
                break;
        }
        for (int ti = 0; ti < ntest; ti++) {
            mp_e2e_row *r = &rows[(*nrows)++];
            memset(r, 0, sizeof *r);
            snprintf(r->model, sizeof r->model, "%s", md->name);
            snprintf(r->variant, sizeof r->variant, "%s", cfg[c].label);
            snprintf(r->method, sizeof r->method, "%s", cfg[c].method);
            r->layers = o->layers, r->model_layers = md->layers, r->threads = o->threads;
            r->reps = o->reps, r->seed = (uint64_t)o->seed, r->batch = nb[ti];
            if (kind[ti] == 0)
                snprintf(r->test, sizeof r->test, "pp%d", o->pp), r->n_prompt = o->pp;
            else if (kind[ti] == 1)
                snprintf(r->test, sizeof r->test, "tg%d", o->tg), r->n_gen = o->tg;
            else
                snprintf(r->test, sizeof r->test, "tg%d b%d", o->tg, nb[ti]), r->n_gen = o->tg;
            if (!m) {
                snprintf(r->status, sizeof r->status, "skipped");
                snprintf(r->reason, sizeof r->reason, "%.250s", cfg[c].skip);
                continue;
            }
            const mp_e2e_mem *mem = mp_e2e_memory(m);
            r->ternary_bytes = mem->ternary;
            r->model_bytes = mem->ternary + mem->floats;
            r->bpw = 8.0 * (double)mem->ternary / mem->ternary_weights;
            int B = nb[ti];
            for (int rep = -1; rep < o->reps; rep++) {
                if (tty)
                    fprintf(stderr, "\r%s: %s rep %d/%d   ", cfg[c].label, r->test, rep + 1,
                            o->reps);
                for (int i = 0; i < ntok; i++)
                    tok[i] = (int)(mp_rng_next(&rng) % (uint64_t)vocab);
                mp_e2e_reset(m);
                double t0 = now();
                if (kind[ti] == 0) {
                    for (int at = 0; at < o->pp; at += UBATCH) {
                        int len = o->pp - at < UBATCH ? o->pp - at : UBATCH;
                        memset(want, 0, (size_t)len);
                        want[len - 1] = at + len == o->pp;
                        rc = mp_e2e_forward(m, tok + at, seq, len, want, logits);
                        if (rep < 0 || rc)
                            break; /* warm-up: one chunk */
                    }
                } else {
                    for (int b = 0; b < B; b++)
                        seq[b] = b;
                    int steps = rep < 0 ? 1 : o->tg;
                    for (int i = 0; i < steps && !rc; i++) {
                        rc = mp_e2e_forward(m, tok, seq, B, NULL, logits);
                        for (int b = 0; b < B; b++)
                            tok[b] = mp_e2e_argmax(logits + (size_t)b * vocab, vocab);
                    }
                    memset(seq, 0, sizeof *seq * (size_t)B);
                }
                double dt = now() - t0;
                if (rc) {
                    rc = mp_fail(e, MP_ERUN, "e2e: forward pass refused its input (internal)");
                    break;
                }
                if (rep >= 0)
                    sec[rep] = dt;
            }
            if (rc)
                break;
            fill_stats(r, sec, o->reps, kind[ti] == 0 ? (double)o->pp : (double)o->tg * B);
            snprintf(r->status, sizeof r->status, "ok");
            if (o->layers < md->layers)
                snprintf(r->reason, sizeof r->reason, "%d of %d layers", o->layers, md->layers);
        }
        mp_e2e_free(m);
    }
    if (tty)
        fputs("\r\033[K", stderr);
    free(tok);
    free(seq);
    free(want);
    mp_free(logits);
    free(sec);
    return rc;
}

int mp_cmd_e2e(int argc, char **argv)
{
    static const struct option lopts[] = {
        {"model", required_argument, 0, 'M'},   {"variant", required_argument, 0, 'v'},
        {"variant-for", required_argument, 0, 'F'}, {"tuned", required_argument, 0, 'u'},
        {"pp", required_argument, 0, 'p'},      {"tg", required_argument, 0, 'g'},
        {"batch", required_argument, 0, 'b'},   {"threads", required_argument, 0, 't'},
        {"reps", required_argument, 0, 'r'},    {"layers", required_argument, 0, 'L'},
        {"seed", required_argument, 0, 'S'},    {"db", required_argument, 0, 'd'},
        {"no-db", no_argument, 0, 'D'},         {"format", required_argument, 0, 'f'},
        {"lossless", no_argument, 0, 'l'},      {"prompts", required_argument, 0, 'P'},
        {"tokens", required_argument, 0, 'T'},  {"force", no_argument, 0, 'X'},
        {"gguf", required_argument, 0, 'G'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    opts o = {.db = "results/mpbench.db", .pp = 64, .tg = 16, .nbatch = 1, .batch = {1},
              .threads = 1, .reps = 3, .seed = 1, .prompts = 50, .tokens = 32,
              .fmt = MP_FMT_TABLE};
    char cmdline[2048];
    mp_err e;
    int c, rc;
    mp_join_argv(argc - 1, argv + 1, cmdline, sizeof cmdline);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
        switch (c) {
        case 'M': o.model = optarg; break;
        case 'G': o.model = o.gguf = optarg; break;
        case 'v': {
            size_t l = strlen(o.globs);
            snprintf(o.globs + l, sizeof o.globs - l, "%s%s", l ? "," : "", optarg);
            break;
        }
        case 'F': o.vfor = optarg; break;
        case 'u': o.tuned = optarg; break;
        case 'p':
            if ((rc = mp_parse_int(optarg, "--pp", 0, 65536, &o.pp, &e)))
                return mp_die(rc, "%s", e.msg);
            o.pp_set = 1;
            break;
        case 'g':
            if ((rc = mp_parse_int(optarg, "--tg", 0, 65536, &o.tg, &e)))
                return mp_die(rc, "%s", e.msg);
            o.tg_set = 1;
            break;
        case 'b':
            if ((rc = mp_parse_int_list(optarg, "--batch", 1, 1024, o.batch, MAX_BATCH, &o.nbatch,
                                        &e)))
                return mp_die(rc, "%s", e.msg);
            o.batch_set = 1;
            for (int i = 0; i < o.nbatch; i++) /* one row per distinct batch size */
                for (int j = i + 1; j < o.nbatch; j++)
                    if (o.batch[j] == o.batch[i])
                        o.batch[j--] = o.batch[--o.nbatch];
            for (int i = 1; i < o.nbatch; i++) /* ascending, like a sweep */
                for (int j = i; j > 0 && o.batch[j - 1] > o.batch[j]; j--) {
                    int t = o.batch[j];
                    o.batch[j] = o.batch[j - 1];
                    o.batch[j - 1] = t;
                }
            break;
        case 't':
            if ((rc = mp_parse_int(optarg, "--threads", 1, 1024, &o.threads, &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'r':
            if ((rc = mp_parse_int(optarg, "--reps", 1, 1000, &o.reps, &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'L':
            if ((rc = mp_parse_int(optarg, "--layers", 1, 100000, &o.layers, &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'S':
            if ((rc = mp_parse_int(optarg, "--seed", 0, 2147483647, &o.seed, &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'd': o.db = optarg; break;
        case 'D': o.no_db = 1; break;
        case 'f':
            if (mp_format_parse(optarg, &o.fmt))
                return mp_die(2, "--format: '%s' is not one of table, csv, json, md", optarg);
            break;
        case 'l': o.lossless = 1; break;
        case 'X': o.force = 1; break;
        case 'P':
            if ((rc = mp_parse_int(optarg, "--prompts", 1, 100000, &o.prompts, &e)))
                return mp_die(rc, "%s", e.msg);
            o.prompts_set = 1;
            break;
        case 'T':
            if ((rc = mp_parse_int(optarg, "--tokens", 1, 4096, &o.tokens, &e)))
                return mp_die(rc, "%s", e.msg);
            o.tokens_set = 1;
            break;
        case 'h': e2e_usage(stdout); return 0;
        default:
            e2e_usage(stderr);
            return mp_die(2, "e2e: unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return mp_die(2, "e2e: unexpected argument '%s'", argv[optind]);
    if (!o.model)
        return mp_die(2, "e2e: --model is required (or --gguf FILE; see 'mpbench list models')");
    if (!o.globs[0] && !o.tuned && !o.vfor)
        return mp_die(2, "e2e: give --variant GLOB, --tuned FILE or --variant-for (see "
                         "'mpbench list variants')");
    if (o.lossless) {
        if (o.pp_set || o.tg_set || o.batch_set)
            return mp_die(2, "e2e --lossless: --pp/--tg/--batch do not apply; use --prompts "
                             "and --tokens");
        if (o.tuned)
            return mp_die(2, "e2e --lossless: --tuned does not apply (variants are compared one by one); "
                             "use --variant");
    } else {
        if (o.prompts_set || o.tokens_set)
            return mp_die(2, "e2e: --prompts/--tokens belong to --lossless");
        if (!o.pp && !o.tg)
            return mp_die(2, "e2e: --pp 0 and --tg 0: nothing to measure");
        int big = 0;
        for (int i = 0; i < o.nbatch; i++)
            big |= o.batch[i] > 1;
        if (big && !o.tg)
            return mp_die(2, "e2e: --batch %d needs --tg > 0 (parallel decoding generates "
                             "tokens)", o.batch[o.nbatch - 1]);
    }

    mp_model md;
    if ((rc = o.gguf ? mp_gguf_model_load(o.gguf, &md, &e) : mp_model_load(o.model, &md, &e)))
        return mp_die(rc, "%s", e.msg);
    if (!o.layers)
        o.layers = md.layers;
    if (o.layers > md.layers)
        return mp_die(2, "--layers %d: model %s has %d layers", o.layers, md.name, md.layers);
    /* issue 19: the file's weights, checked ternary before any work */
    if (o.gguf && (rc = mp_cli_gguf_source(o.gguf, &md, o.layers, &o.src)))
        return rc;
    int ctx = o.lossless ? MP_E2E_PROMPT_MAX + o.tokens : (o.pp > o.tg ? o.pp : o.tg);
    if (ctx > md.max_pos)
        return mp_die(2, "e2e: %s needs %d positions but model %s has max_pos %d",
                      o.lossless ? "--tokens" : (o.pp > o.tg ? "--pp" : "--tg"), ctx, md.name,
                      md.max_pos);

    /* configurations */
    mp_machine mach;
    mp_machine_probe_info(&mach);
    const mp_variant *sel[MAX_SEL];
    int nsel = 0;
    if (o.globs[0] && (rc = mp_select_variants(o.globs, sel, MAX_SEL, &nsel, &e)))
        return mp_die(rc, "%s", e.msg);
    mp_e2e_choice over[MP_E2E_NLIN];
    int set[MP_E2E_NLIN] = {0};
    memset(over, 0, sizeof over);
    if (o.vfor && (rc = mp_e2e_parse_variant_for(o.vfor, over, set, &e)))
        return mp_die(rc, "%s", e.msg);
    int ncfg = o.tuned ? 1 : (nsel ? nsel : 1);
    config *cfg = calloc((size_t)ncfg, sizeof *cfg);
    if (o.tuned && nsel > 1) {
        free(cfg);
        return mp_die(2, "--variant '%s' with --tuned: give one variant (the fallback for "
                         "layers the tuned config lacks)", o.globs);
    }
    if (o.tuned) {
        int n_ref = o.tg ? 1 : o.pp;
        if ((rc = tuned_configs(o.tuned, &mach, &md, sel, nsel, o.threads, n_ref, o.force,
                                &cfg[0], &e))) {
            free(cfg);
            return mp_die(rc, "%s", e.msg);
        }
    } else if (!nsel) {
        for (int l = 0; l < MP_E2E_NLIN; l++)
            if (!set[l]) {
                free(cfg);
                return mp_die(2, "--variant-for '%s' leaves layer %s without a variant; give "
                                 "all of qkv, o, ffn_up, ffn_down or a --variant for the rest",
                              o.vfor, l <= MP_E2E_V ? "group qkv" : l == MP_E2E_O ? "group o"
                                      : l == MP_E2E_DOWN ? "group ffn_down" : "group ffn_up");
            }
    } else {
        for (int i = 0; i < nsel; i++)
            for (int l = 0; l < MP_E2E_NLIN; l++) {
                cfg[i].lin[l].v = sel[i];
                mp_variant_defaults(sel[i], cfg[i].lin[l].param);
            }
    }
    for (int i = 0; i < ncfg; i++) {
        for (int l = 0; l < MP_E2E_NLIN; l++)
            if (set[l])
                cfg[i].lin[l] = over[l];
        label_config(&cfg[i]);
    }
    /* every configuration must take every shape: one explicit choice that cannot
     * is bad input; within a multi-variant glob it is a skipped row */
    mp_e2e_spec spec = {.model = md, .layers = o.layers, .seed = (uint64_t)o.seed,
                        .src = o.src, .max_seqs = 1, .max_ctx = ctx, .max_tokens = 1, .threads = o.threads};
    if (o.lossless)
        spec.max_tokens = MP_E2E_PROMPT_MAX;
    else {
        int maxb = 1;
        for (int i = 0; i < o.nbatch; i++)
            maxb = o.batch[i] > maxb ? o.batch[i] : maxb;
        int ub = o.pp < UBATCH ? o.pp : UBATCH;
        spec.max_seqs = maxb;
        spec.max_tokens = ub > maxb ? ub : maxb;
    }
    int runnable = 0;
    for (int i = 0; i < ncfg; i++) {
        mp_e2e_spec s = spec;
        memcpy(s.lin, cfg[i].lin, sizeof s.lin);
        if ((rc = mp_e2e_check(&s, &e))) {
            if (ncfg == 1) {
                free(cfg);
                return mp_die(rc, "%s", e.msg);
            }
            snprintf(cfg[i].skip, sizeof cfg[i].skip, "%.500s", e.msg);
            continue;
        }
        if (o.lossless) {
            /* the reference instance lives next to the variant's while decoding */
            mp_e2e_spec r = s;
            for (int l = 0; l < MP_E2E_NLIN; l++)
                r.lin[l].v = NULL;
            mp_e2e_mem a, b;
            mp_e2e_estimate(&s, &a);
            mp_e2e_estimate(&r, &b);
            if (b.total > a.total)
                s = r;
        }
        if ((rc = mp_e2e_mem_check(&s, &e))) {
            free(cfg);
            return mp_die(rc, "%s", e.msg);
        }
        runnable++;
    }
    if (!runnable) {
        mp_die(2, "e2e: none of the selected variants can run model %s; first reason: %s",
               md.name, cfg[0].skip);
        free(cfg);
        return 2;
    }

    mp_store *store = NULL;
    int64_t machine_id = 0;
    if (!o.no_db) {
        if ((rc = mp_store_open(o.db, &store, &e)) ||
            (rc = mp_store_machine(store, &mach, &machine_id, &e))) {
            mp_store_close(store);
            free(cfg);
            return mp_die(rc, "%s", e.msg);
        }
    }
    if (!o.lossless)
        mp_machine_warn(&mach);
    if (o.threads > mach.pus)
        fprintf(stderr, "mpbench: warning: %d threads on %d hardware threads: timings are "
                        "oversubscribed\n", o.threads, mach.pus);
    char binding[512];
    mp_pool *pool = mp_pool_create(o.threads, binding, sizeof binding);
    int maxrows = ncfg * (2 + MAX_BATCH);
    mp_e2e_row *rows = calloc((size_t)maxrows, sizeof *rows);
    int nrows = 0, failed = 0;
    if (o.lossless)
        rc = run_lossless(&o, &md, pool, cfg, ncfg, rows, &nrows, &failed, &e);
    else
        rc = run_perf(&o, &md, pool, cfg, ncfg, rows, &nrows, &e);
    if (!rc) {
        if (o.layers < md.layers && o.fmt != MP_FMT_CSV && o.fmt != MP_FMT_JSON)
            printf("note: %d of %d layers of %s (--layers); tokens/s are not the full model's\n",
                   o.layers, md.layers, md.name);
        mp_e2e_print(stdout, o.fmt, rows, nrows, o.lossless);
        if (store && (rc = mp_e2e_store(store, machine_id, &mach, cmdline, binding, rows, nrows,
                                        failed ? "failed" : "ok", &e)))
            mp_die(rc, "%s", e.msg);
    } else {
        mp_die(rc, "%s", e.msg);
    }
    free(rows);
    free(cfg);
    mp_pool_destroy(pool);
    mp_store_close(store);
    if (rc)
        return rc;
    return failed ? mp_die(1, "a lossless variant did not reproduce the reference tokens") : 0;
}
