/* cli-e2e.c - `mpbench e2e`: the end-to-end decoder of harness/e2e.c measured
 * like llama-bench (prefill "ppN", decode "tgN", parallel decoding "tgN bB" where
 * B sequences decode together so the kernels see N = B), or the lossless check
 * of seed 004 §3.2 / Table 7 (--lossless: greedy tokens of each variant against
 * the reference arithmetic, share of prompts that match exactly, and beside it
 * the largest logit difference on the reference's tokens and the first token
 * that diverged: engine/e2e-lossless.c says why exact match alone has no power
 * on the synthetic weights of a tied-head model).
 *
 * Everything the user controls is validated before any work: options, model
 * file, variants (available, and able to take every linear shape of the model),
 * the tuned config, and the memory estimate against MemAvailable.  The rows are
 * measured by the engine (engine/e2e-measure.c), each stored as soon as it is
 * measured under this plan's key: the same command run again after a kill
 * measures only the rows that are missing.
 *
 * Timing: each test starts from empty KV caches; one untimed warm-up call, then
 * --reps timed repetitions; tokens/s = tokens processed / wall time of the test
 * (pp: prompt tokens, prefill in chunks of 512 like llama.cpp's n_ubatch, logits
 * of the last token only; tg: tokens generated one at a time with greedy
 * feedback; tgN bB: B*N tokens).  Printed: median ± sample standard deviation
 * over the repetitions (llama-bench prints mean ± stddev; the median resists the
 * noise of a shared machine). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_paths.h"
#include "mp_cli.h"
#include "../e2e/mp_e2e.h"
#include "../gguf/mp_gguf.h"
#include "../core/mp_core.h"
#include "../report/mp_output.h"
#include "../store/mp_store_e2e.h"
#include "../engine/mp_engine.h"
#include "../../kernels/common/mp_numerics.h"
#include "../../tuner/mp_tuned.h"
#include "../../variants/mp_registry.h"
#include "mp_options.h"

enum { MAX_SEL = 256, MAX_BATCH = MP_E2E_MAX_BATCH, UBATCH = 512 };

typedef mp_e2e_config config;

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
    int rc = mp_tuned_load(path, mach->fingerprint, force, &t, e->msg, sizeof e->msg);
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
    int prompts, tokens, pp_set, tg_set, batch_set, prompts_set, tokens_set, quiet;
    int profile, interleave;
    mp_e2e_head_fmt head;
    const char *cache_dir;
    double clock_gate; /* --clock-gate as a fraction, 0 = off */
    mp_format fmt;
    const char *prompt_text, *ppl; /* issue 42: prompts from a text, bits per byte of one */
    mp_e2e_text text;
} opts;

static int head_arg(const char *arg, void *target, mp_err *e)
{
    if (mp_e2e_head_parse(arg, target))
        return mp_fail(e, MP_EUSAGE, "--lm-head: '%s' is not one of f16, q8_0, q4_0", arg);
    return MP_OK;
}

static int dir_arg(const char *arg, void *target, mp_err *e)
{
    if (!*arg)
        return mp_fail(e, MP_EUSAGE, "--weight-cache: empty directory name");
    *(const char **)target = arg;
    return MP_OK;
}

static const mp_opt e2e_table[] = {
    MP_OPT_S("model", opts, model, "NAME", "the architecture (see mpbench list models)"),
    MP_OPT_S("gguf", opts, gguf, "FILE", "a GGUF file's architecture and real weights"),
    MP_OPT_SL("variant", opts, globs, "GLOB", "variants: one set of rows each"),
    MP_OPT_S("variant-for", opts, vfor, "qkv=V,o=V,ffn_up=V,ffn_down=V", "the variant per layer group"),
    MP_OPT_S("tuned", opts, tuned, "FILE", "each layer's variant and parameters from a tuned config"),
    MP_OPT_F("force", 0, opts, force, "accept a config tuned on another machine"),
    MP_OPT_I("pp", opts, pp, 0, 65536, "N", "prefill tokens (default 64)"),
    MP_OPT_I("tg", opts, tg, 0, 65536, "N", "decoded tokens (default 16)"),
    MP_OPT_IL("batch", opts, batch, nbatch, 1, 1024, "B", "sequences decoding together (default 1)"),
    MP_OPT_I("threads", opts, threads, 1, 1024, "T", "threads (default 1)"),
    MP_OPT_I("reps", opts, reps, 1, 1000, "R", "timed repetitions (default 3)"),
    MP_OPT_I("layers", opts, layers, 1, 100000, "L", "the first L layers (default all)"),
    MP_OPT_SEED(opts, seed, "weights' and prompts' seed"),
    MP_OPT_STORE_ROWS(opts),
    MP_OPT_F("profile", 0, opts, profile, "split the token time over operation groups"),
    MP_OPT_F("interleave", 0, opts, interleave, "build every variant first, then take turns: one repetition each"),
    MP_OPT_FN_("lm-head", opts, head, head_arg, "f16|q8_0|q4_0", "embedding/head format (default f16)"),
    MP_OPT_FN_("weight-cache", opts, cache_dir, dir_arg, "DIR", "packed weights kept on disk"),
    MP_OPT_FN_("clock-gate", opts, clock_gate, mp_opt_clock_gate, "PCT", "time only what ran at full speed (50-100)"),
    MP_OPT_F("lossless", 0, opts, lossless, "the lossless token check instead of pp/tg rows"),
    MP_OPT_I("prompts", opts, prompts, 1, 100000, "P", "--lossless: seeded prompts (default 50)"),
    MP_OPT_I("tokens", opts, tokens, 1, 4096, "T", "--lossless: tokens per prompt (default 64)"),
    MP_OPT_S("prompt-text", opts, prompt_text, "FILE", "--lossless --gguf: prompts from this text (BOS + bytes at seeded offsets)"),
    MP_OPT_S("ppl", opts, ppl, "FILE", "--gguf: bits per byte of this text per variant instead of pp/tg rows"),
    MP_OPT_END};

static const mp_cmd_spec e2e_spec = MP_CMD_SPEC("e2e", e2e_table,
    .once = "model|gguf",
    .synopsis = "(--model NAME | --gguf FILE) (--variant GLOB[,GLOB] | --tuned FILE [--force]) [options]\n"
                "       mpbench e2e --lossless --model NAME --variant GLOB[,GLOB] [--prompts P] [--tokens T] [...]",
    .about = "A BitNet-style decoder with the model file's architecture and synthetic\n"
          "seeded weights (--gguf: a GGUF file's architecture and real weights, ternary\n"
          "tensors checked ternary); every ternary linear runs through the chosen variant.\n"
          "Tests: ppN (prefill, default 64), tgN (decode, default 16), and for each\n"
          "batch B > 1 'tgN bB' (B sequences decoding together).  One set of rows per\n"
          "variant.  --variant-for overrides the variant per layer group (ffn_up = gate\n"
          "and up).  --tuned takes each layer's variant and parameters from a tuned\n"
          "config (tuner/mp_tuned.h): per layer the entry for its shape closest to\n"
          "these threads, then to n=1 (n=pp when --tg 0); one --variant, if given, fills\n"
          "the layers the config lacks; --force accepts a config\n"
          "tuned on another machine.  --lossless decodes P seeded prompts (default 50)\n"
          "for T tokens (default 64, or what max_pos leaves after a 16-token prompt)\n"
          "with each variant and with the reference\n"
          "arithmetic (all layers unless --layers) and reports the share of prompts\n"
          "whose tokens match exactly; beside it, with the variant fed the reference's\n"
          "tokens, the largest |logit - reference logit| relative to the step's logit\n"
          "range (0 only when bit for bit) and the first token whose argmax differed.\n"
          "A lossless variant fails on any difference.  The reference's logits of all\n"
          "prompts are kept: P x T x vocab floats.\n"
          "The memory needed is estimated first; a run that does not fit is refused.\n"
          "Each decode row shows its bound (bytes read per token / the stored probe's\n"
          "read bandwidth at these threads, else the median of a read of the token's\n"
          "bytes made beside each step) and the share reached; each prefill row the\n"
          "rate of its GEMMs run alone (the linears and the head's row, a pass\n"
          "after each repetition) and the share.  --profile splits the token\n"
          "time over operation groups (stored with the row).  --lm-head stores the\n"
          "embedding/head in 16 bits (default, as the models ship), q8_0 or q4_0.\n"
          "--weight-cache DIR keeps packed weights on disk per (model, seed, variant,\n"
          "parameters); a stale or corrupt file is detected and rebuilt.\n"
          "--clock-gate PCT (50-100): time only what ran at full speed: a decode step,\n"
          "a prefill repetition, each measurement of the bound counts when the CPU's\n"
          "clock read before and after it is at least PCT% of the fastest seen (a VM's\n"
          "slow stretches otherwise land in one figure and not in the other); decode\n"
          "rates are the kept steps' rate, and the reason says how many were kept\n"
          "(a decode row with fewer than 8 kept is unstable).\n"
          "--interleave builds every variant before measuring (their memory together\n"
          "must fit) and makes each test's rows a repetition of each variant in turn,\n"
          "every variant on the same prompt tokens in a round: a host's slow stretch\n"
          "then falls on all of them alike, so their ratios compare the same moments\n"
          "(without it each variant's rows are made in one block, built and freed in\n"
          "turn).\n");

/* The options that decide together: what applies to --lossless or to pp/tg;
 * --batch deduplicated and ascending. */
static int e2e_check(opts *o, const mp_opts_out *po)
{
    o->pp_set = mp_opts_seen(&e2e_spec, po, "pp"), o->tg_set = mp_opts_seen(&e2e_spec, po, "tg");
    o->prompts_set = mp_opts_seen(&e2e_spec, po, "prompts");
    o->tokens_set = mp_opts_seen(&e2e_spec, po, "tokens");
    o->batch_set = o->nbatch > 0;
    if (!o->nbatch)
        o->batch[0] = 1, o->nbatch = 1;
    for (int i = 0; i < o->nbatch; i++) /* one row per distinct batch size */
        for (int j = i + 1; j < o->nbatch; j++)
            if (o->batch[j] == o->batch[i])
                o->batch[j--] = o->batch[--o->nbatch];
    for (int i = 1; i < o->nbatch; i++) /* ascending, like a sweep */
        for (int j = i; j > 0 && o->batch[j - 1] > o->batch[j]; j--) {
            int t = o->batch[j];
            o->batch[j] = o->batch[j - 1];
            o->batch[j - 1] = t;
        }
    if (o->gguf && !o->model)
        o->model = o->gguf;
    if (!o->model)
        return mp_die(2, "e2e: --model is required (or --gguf FILE; see 'mpbench list models')");
    if (!o->globs[0] && !o->tuned && !o->vfor)
        return mp_die(2, "e2e: give --variant GLOB, --tuned FILE or --variant-for (see "
                         "'mpbench list variants')");
    if ((o->prompt_text || o->ppl) && !o->gguf)
        return mp_die(2, "e2e: --prompt-text and --ppl need --gguf FILE (its vocabulary maps "
                         "bytes to tokens)");
    if (o->prompt_text && !o->lossless)
        return mp_die(2, "e2e: --prompt-text belongs to --lossless");
    if (o->ppl) {
        if (o->lossless || o->pp_set || o->tg_set || o->batch_set || o->prompts_set ||
            o->tokens_set || o->profile || o->clock_gate > 0 || o->tuned || o->interleave)
            return mp_die(2, "e2e --ppl: only --variant/--variant-for, --layers, --threads and "
                             "--lm-head apply");
        return 0;
    }
    if (o->lossless) {
        if (o->pp_set || o->tg_set || o->batch_set)
            return mp_die(2, "e2e --lossless: --pp/--tg/--batch do not apply; use --prompts "
                             "and --tokens");
        if (o->profile)
            return mp_die(2, "e2e --lossless: --profile applies to the pp/tg rows");
        if (o->clock_gate > 0)
            return mp_die(2, "e2e --lossless: --clock-gate applies to the pp/tg rows");
        if (o->interleave)
            return mp_die(2, "e2e --lossless: --interleave applies to the pp/tg rows");
        if (o->tuned)
            return mp_die(2, "e2e --lossless: --tuned does not apply (variants are compared one by one); "
                             "use --variant");
        return 0;
    }
    if (o->prompts_set || o->tokens_set)
        return mp_die(2, "e2e: --prompts/--tokens belong to --lossless");
    if (!o->pp && !o->tg)
        return mp_die(2, "e2e: --pp 0 and --tg 0: nothing to measure");
    if (o->batch[o->nbatch - 1] > 1 && !o->tg)
        return mp_die(2, "e2e: --batch %d needs --tg > 0 (parallel decoding generates "
                         "tokens)", o->batch[o->nbatch - 1]);
    return 0;
}

/* The model, --layers against it, the GGUF weights, and the context needed. */
static int e2e_model(opts *o, mp_model *md, int *ctx)
{
    mp_err e;
    int rc;
    if ((rc = o->gguf ? mp_gguf_model_load(o->gguf, md, &e) : mp_model_load(o->model, md, &e)))
        return mp_die(rc, "%s", e.msg);
    if (!o->layers)
        o->layers = md->layers;
    if (o->layers > md->layers)
        return mp_die(2, "--layers %d: model %s has %d layers", o->layers, md->name, md->layers);
    /* issue 19: the file's weights, checked ternary before any work (kept open
     * until exit: not in parse-only mode, which runs many command lines in one
     * process) */
    if (o->gguf && !mp_parse_only && (rc = mp_gguf_e2e_source(o->gguf, md, o->layers, &o->src)))
        return rc;
    if (!mp_parse_only && (o->prompt_text || o->ppl)) {
        const char *tp = o->ppl ? o->ppl : o->prompt_text;
        if ((rc = mp_e2e_byte_map(o->gguf, o->text.map, &o->text.bos, &e)) ||
            (rc = mp_e2e_text_read(tp, &o->text.text, &o->text.len, &e)))
            return mp_die(rc, "%s %s", o->ppl ? "--ppl" : "--prompt-text", e.msg);
    }
    if (o->ppl) {
        *ctx = 256; /* the protocol's chunk (e2e-text.c) */
        return 0;
    }
    /* the default --tokens fits the model's positions (a small test model has 64) */
    if (o->lossless && !o->tokens_set && MP_E2E_PROMPT_MAX + o->tokens > md->max_pos &&
        md->max_pos > MP_E2E_PROMPT_MAX)
        o->tokens = md->max_pos - MP_E2E_PROMPT_MAX;
    *ctx = o->lossless ? MP_E2E_PROMPT_MAX + o->tokens : (o->pp > o->tg ? o->pp : o->tg);
    if (*ctx > md->max_pos)
        return mp_die(2, "e2e: %s needs %d positions but model %s has max_pos %d",
                      o->lossless ? "--tokens" : (o->pp > o->tg ? "--pp" : "--tg"), *ctx,
                      md->name, md->max_pos);
    return 0;
}

/* The configurations: one per --variant, or the tuned config's, each with the
 * --variant-for overrides; labelled.  *cfg is malloc'd. */
static int e2e_configs(const opts *o, const mp_machine *mach, const mp_model *md, config **out,
                       int *ncfg_)
{
    const mp_variant *sel[MAX_SEL];
    int nsel = 0, rc;
    mp_err e;
    if (o->globs[0] && (rc = mp_select_variants(o->globs, sel, MAX_SEL, &nsel, &e)))
        return mp_die(rc, "%s", e.msg);
    mp_e2e_choice over[MP_E2E_NLIN];
    int set[MP_E2E_NLIN] = {0};
    memset(over, 0, sizeof over);
    if (o->vfor && (rc = mp_e2e_parse_variant_for(o->vfor, over, set, &e)))
        return mp_die(rc, "%s", e.msg);
    if (o->tuned && nsel > 1)
        return mp_die(2, "--variant '%s' with --tuned: give one variant (the fallback for "
                         "layers the tuned config lacks)", o->globs);
    for (int l = 0; l < MP_E2E_NLIN && !o->tuned && !nsel; l++)
        if (!set[l])
            return mp_die(2, "--variant-for '%s' leaves layer %s without a variant; give "
                             "all of qkv, o, ffn_up, ffn_down or a --variant for the rest",
                          o->vfor, l <= MP_E2E_V ? "group qkv" : l == MP_E2E_O ? "group o"
                                  : l == MP_E2E_DOWN ? "group ffn_down" : "group ffn_up");
    int ncfg = o->tuned ? 1 : (nsel ? nsel : 1);
    config *cfg = calloc((size_t)ncfg, sizeof *cfg);
    if (o->tuned && (rc = tuned_configs(o->tuned, mach, md, sel, nsel, o->threads,
                                        o->tg ? 1 : o->pp, o->force, &cfg[0], &e))) {
        free(cfg);
        return mp_die(rc, "%s", e.msg);
    }
    for (int i = 0; i < nsel && !o->tuned; i++)
        for (int l = 0; l < MP_E2E_NLIN; l++) {
            cfg[i].lin[l].v = sel[i];
            mp_variant_defaults(sel[i], cfg[i].lin[l].param);
        }
    for (int i = 0; i < ncfg; i++) {
        for (int l = 0; l < MP_E2E_NLIN; l++)
            if (set[l])
                cfg[i].lin[l] = over[l];
        label_config(&cfg[i]);
    }
    *out = cfg;
    *ncfg_ = ncfg;
    return 0;
}

/* Every configuration must take every shape: one explicit choice that cannot
 * is bad input; within a multi-variant glob it is a skipped row.  The memory
 * estimate of each is checked against what is available. */
static int e2e_runnable(const opts *o, const mp_model *md, int ctx, config *cfg, int ncfg)
{
    mp_e2e_spec spec = {.model = *md, .layers = o->layers, .seed = (uint64_t)o->seed,
                        .src = o->src, .max_seqs = 1, .max_ctx = ctx, .max_tokens = 1,
                        .threads = o->threads, .head = o->head, .shared = o->lossless || ncfg > 1,
                        .bound_read = !o->lossless && o->tg > 0};
    mp_err e;
    int rc, runnable = 0;
    mp_e2e_mem all = {0}; /* --interleave: every configuration's instance at once */
    if (o->ppl) {
        spec.max_tokens = ctx, spec.shared = 1, spec.bound_read = 0;
    } else if (o->lossless) {
        /* the reference's logits of every prompt, per weight domain (ternary, or
         * binary for int1 variants), and one prompt's of the variant */
        int dom[2] = {0, 0};
        for (int i = 0; i < ncfg; i++)
            for (int l = 0; l < MP_E2E_NLIN; l++)
                dom[cfg[i].lin[l].v->domain == MP_DOMAIN_BINARY] = 1;
        spec.max_tokens = MP_E2E_PROMPT_MAX;
        spec.ref_logits = sizeof(float) * (size_t)o->tokens * (size_t)md->vocab *
                          ((size_t)o->prompts * (size_t)(dom[0] + dom[1]) + 1);
    } else {
        int maxb = o->batch[o->nbatch - 1], ub = o->pp < UBATCH ? o->pp : UBATCH;
        spec.max_seqs = maxb;
        spec.max_tokens = ub > maxb ? ub : maxb;
    }
    for (int i = 0; i < ncfg; i++) {
        mp_e2e_spec s = spec;
        memcpy(s.lin, cfg[i].lin, sizeof s.lin);
        if ((rc = mp_e2e_check(&s, &e))) {
            if (ncfg == 1)
                return mp_die(rc, "%s", e.msg);
            snprintf(cfg[i].skip, sizeof cfg[i].skip, "%.500s", e.msg);
            continue;
        }
        if (o->lossless) {
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
        if ((rc = mp_e2e_mem_check(&s, &e)))
            return mp_die(rc, "%s", e.msg);
        if (o->interleave) { /* every instance at once: their sum must fit */
            mp_e2e_mem a;
            mp_e2e_estimate(&s, &a);
            all.ternary += a.ternary, all.floats += a.floats, all.kv += a.kv;
            all.scratch += a.scratch;
            all.bound_read = a.bound_read > all.bound_read ? a.bound_read : all.bound_read;
            all.staging = a.staging > all.staging ? a.staging : all.staging;
            all.shared = a.shared > all.shared ? a.shared : all.shared;
        }
        runnable++;
    }
    /* the decode bound's reads: one configuration's burst and the reader shared
     * beside every configuration's steps, at most, at once (e2e-measure.c) */
    all.bound_read *= 2;
    if (o->interleave && runnable > 1 && (rc = mp_e2e_mem_check_sum(&spec, &all, runnable, &e)))
        return mp_die(rc, "e2e --interleave: %s (without --interleave each variant is built "
                          "alone)", e.msg);
    if (!runnable)
        return mp_die(2, "e2e: none of the selected variants can run model %s; first reason: %s",
                      md->name, cfg[0].skip);
    return 0;
}

/* The plan key: everything that decides which rows are measured and how. */
static void e2e_key(const opts *o, const mp_model *md, const mp_machine *mach,
                    const config *cfg, int ncfg, mp_plan *keyed)
{
    char t[8192];
    size_t n = sizeof t;
    int u = snprintf(t, n, "e2e1|%s|L=%d|s=%d|t=%d|r=%d|pp=%d|tg=%d|ll=%d|P=%d|T=%d|b=",
                     md->name, o->layers, o->seed, o->threads, o->reps, o->pp, o->tg,
                     o->lossless, o->prompts, o->tokens);
#define ADD(cond, ...)                                   \
    if ((cond) && u > 0 && (size_t)u < n)                \
        u += snprintf(t + u, n - (size_t)u, __VA_ARGS__);
    for (int i = 0; i < o->nbatch; i++)
        ADD(1, "%d,", o->batch[i]);
    /* issue 17: only when not the defaults, so earlier plans keep their keys */
    ADD(o->head != MP_E2E_HEAD_F16, "|lm=%s", mp_e2e_head_name(o->head));
    /* the prefill bound's second definition (the head's row counted, a pass
     * after each repetition): rows of the first are not resumed as its */
    ADD(o->pp > 0, "|ppb=2");
    /* and the decode bound's second (a read beside each step, not at the start) */
    ADD(o->tg > 0, "|tgb=2");
    ADD(o->profile, "|prof");
    ADD(o->interleave, "|il=1");
    /* a gated decode row on fewer than 8 kept steps is unstable: rows judged
     * before that rule are not resumed as judged by it */
    ADD(o->clock_gate > 0, "|gate=%.2f%s", o->clock_gate, o->tg > 0 ? "|kept=8" : "");
    for (int i = 0; i < ncfg; i++)
        ADD(1, "|%s", cfg[i].label);
    /* llama.cpp's rows: its workers asleep around the bound's read and the
     * clock reading (e2e-measure.c); rows measured while they spun, at 2
     * threads up to 173% of their bound, are not resumed as these */
    int llama = 0;
    for (int i = 0; i < ncfg; i++)
        llama |= mp_e2e_dec_llama_type(&cfg[i]) >= 0;
    ADD(llama && o->threads > 1 && !o->lossless, "|llq=1");
    /* the lossless check's second definition (issue 37: the logits beside the
     * exact match): rows of the first, which have none, are not resumed as its */
    ADD(o->lossless, "|llv=2");
    /* issue 39: another head is compared with the reference's f16 head */
    ADD(o->lossless && o->head != MP_E2E_HEAD_F16, "|refhead=f16");
    ADD(o->prompt_text, "|ptext=%s", o->prompt_text);
    ADD(o->ppl, "|ppl=%s", o->ppl);
    /* the machine too: machines of different kinds keep their rows apart when merged */
    ADD(1, "|fp=%s", mach->fingerprint);
#undef ADD
    mp_plan_set_key(keyed, t);
}

/* e2e --ppl's rows: bits per byte per variant. */
static void ppl_print(const mp_e2e_row *r, int n)
{
    printf("%-28s %-10s %8s %10s %-8s %s\n", "variant", "method", "bytes", "bpb", "status",
           "reason");
    for (int i = 0; i < n; i++)
        if (!strcmp(r[i].test, "zeros")) /* the file's zero share, below its bpb */
            printf("%-28s %-10s %8s %10.6f %-8s %s\n", "(zero weights)", r[i].method, "",
                   r[i].share, r[i].status, r[i].reason);
        else
            printf("%-28s %-10s %8d %10.6f %-8s %s\n", r[i].variant, r[i].method, r[i].tokens,
                   r[i].share, r[i].status, r[i].reason);
}

/* Measures the rows (each stored as measured) and prints them; the exit code. */
static int e2e_measure(const opts *o, const char *cmdline, const mp_model *md,
                       const mp_machine *mach, config *cfg, int ncfg)
{
    mp_plan keyed = {0};
    e2e_key(o, md, mach, cfg, ncfg, &keyed);
    mp_store *store = NULL;
    int64_t machine_id = 0, run_id = 0;
    char binding[512] = "";
    mp_err e;
    int rc;
    if (!o->no_db && ((rc = mp_store_open(o->db, &store, &e)) ||
                      (rc = mp_store_machine(store, mach, &machine_id, &e)) ||
                      (rc = mp_store_run_begin(store, machine_id, "e2e", mach, cmdline, "",
                                               &run_id, &e)) ||
                      (rc = mp_store_set_config_key(store, run_id, keyed.key, &e)))) {
        mp_store_close(store);
        return mp_die(rc, "%s", e.msg);
    }
    if (!o->lossless)
        mp_machine_warn(mach);
    if (o->threads > mach->pus)
        fprintf(stderr, "mpbench: warning: %d threads on %d hardware threads: timings are "
                        "oversubscribed\n", o->threads, mach->pus);
    mp_pool *pool = mp_pool_create(o->threads, binding, sizeof binding);
    mp_e2e_job job = {.layers = o->layers, .threads = o->threads, .reps = o->reps,
                      .seed = o->seed, .pp = o->pp, .tg = o->tg, .nbatch = o->nbatch,
                      .prompts = o->prompts, .tokens = o->tokens, .store = store,
                      .run_id = run_id, .key = keyed.key, .quiet = o->quiet, .src = o->src,
                      .gguf_path = o->gguf,
                      .profile = o->profile, .head = o->head, .cache_dir = o->cache_dir,
                      .fingerprint = mach->fingerprint, .clock_gate = o->clock_gate,
                      .text = o->text.text ? &o->text : NULL, .interleave = o->interleave};
    memcpy(job.batch, o->batch, sizeof job.batch);
    mp_e2e_row *rows = calloc((size_t)ncfg * (2 + MAX_BATCH) + 1, sizeof *rows);
    int nrows = 0, failed = 0;
    mp_engine_catch_signals();
    if (o->ppl)
        rc = mp_e2e_run_ppl(&job, md, pool, cfg, ncfg, rows, &nrows, &failed, &e);
    else if (o->lossless)
        rc = mp_e2e_run_lossless(&job, md, pool, cfg, ncfg, rows, &nrows, &failed, &e);
    else
        rc = mp_e2e_run_perf(&job, md, pool, cfg, ncfg, rows, &nrows, &e);
    int interrupted = mp_engine_interrupted();
    if (!rc) {
        if (o->layers < md->layers && o->fmt != MP_FMT_CSV && o->fmt != MP_FMT_JSON)
            printf("note: %d of %d layers of %s (--layers); tokens/s are not the full model's\n",
                   o->layers, md->layers, md->name);
        if (o->ppl)
            ppl_print(rows, nrows);
        else
            mp_e2e_print(stdout, o->fmt, rows, nrows, o->lossless);
    } else {
        mp_die(rc, "%s", e.msg);
    }
    if (store) {
        mp_err e2;
        mp_store_run_binding(store, run_id, binding, &e2);
        mp_store_run_end(store, run_id,
                         rc ? "error" : interrupted ? "interrupted" : failed ? "failed" : "ok", &e2);
    }
    free(rows);
    mp_pool_destroy(pool);
    mp_store_close(store);
    if (rc)
        return rc;
    if (interrupted)
        return mp_die(130, "interrupted: re-run the same command to measure the rest (rows so "
                           "far are stored)");
    return failed ? mp_die(1, "a lossless variant did not reproduce the reference tokens") : 0;
}

int mp_cmd_e2e(int argc, char **argv)
{
    opts o = {.db = "results/mpbench.db", .pp = 64, .tg = 16, .threads = 1, .reps = 3,
              .seed = 1, .prompts = 50, .tokens = 64, .fmt = MP_FMT_TABLE};
    mp_opts_out po;
    char cmdline[2048];
    int rc, ctx = 0, ncfg = 0;
    if ((rc = mp_opts_parse(&e2e_spec, argc, argv, &o, &po)) || po.help)
        return rc;
    mp_join_argv(argc - 1, argv + 1, cmdline, sizeof cmdline);
    const mp_path paths[] = {{"--model", o.model, MP_PATH_IN, NULL},
                             {"--gguf", o.gguf, MP_PATH_IN, NULL},
                             {"--tuned", o.tuned, MP_PATH_IN, NULL},
                             {"--db", o.no_db ? NULL : o.db, MP_PATH_DB, NULL}};
    if ((rc = mp_paths_check("e2e", paths, 4)))
        return rc;
    mp_model md;
    if ((rc = e2e_check(&o, &po)) || (rc = e2e_model(&o, &md, &ctx)))
        return rc;
    mp_machine mach;
    mp_machine_probe_info(&mach);
    config *cfg = NULL;
    if ((rc = e2e_configs(&o, &mach, &md, &cfg, &ncfg)))
        return rc;
    if (!(rc = e2e_runnable(&o, &md, ctx, cfg, ncfg)) && !mp_parse_only_stop("e2e"))
        rc = e2e_measure(&o, cmdline, &md, &mach, cfg, ncfg);
    free(cfg);
    free(o.text.text);
    return rc;
}
