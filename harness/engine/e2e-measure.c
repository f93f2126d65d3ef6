/* e2e-measure.c - the end-to-end tests as engine points: for each
 * configuration (a variant, or one per linear layer group) and test (ppN, tgN,
 * tgN bB, lossless) one row, measured like llama-bench (harness/cli-e2e.c
 * says how) and stored as soon as it is measured under the e2e plan's key.  A
 * run of the same plan finds its rows there and measures only what is
 * missing; a configuration whose rows are all stored is not even built.
 * Here the pp and tg rows and what both kinds share (e2e-measure.h); the
 * lossless check is e2e-lossless.c's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e-measure.h"
#include "../store/mp_probe_store.h"
#include "../store/mp_store_e2e.h"
#include "../../kernels/common/mp_numerics.h"
#include "../../kernels/common/mp_parse.h"

enum { MAX_BATCH = MP_E2E_MAX_BATCH, UBATCH = 512 };

/* ---- the clock gate (--clock-gate, issue 17) -------------------------------------
 * The CPU's speed is read (engine/clock.c) before and after each decode step,
 * each prefill repetition and each measurement of the bound; what ran while
 * either reading was under gate x the fastest seen is not timed.  A decode
 * repetition's time is its kept steps' time scaled to all its steps; a prefill
 * repetition or a bound measurement made at a slow moment is made again, at
 * most GATE_TRIES times each (then the row is marked unstable). */
enum { GATE_TRIES = 8 };

/* A gated decode row with fewer kept steps than this (or than all its steps,
 * when it has fewer) is unstable: its rate and its bound's read rest on a
 * handful of moments.  On a busy host a 2B-4T tg16 row on 2 threads kept 4 of
 * 432 steps and came out at 1.163 of its bound, its neighbours at 0.99-1.00
 * (issue 17's note). */
enum { MIN_KEPT = 8 };

static double clock_read(const mp_e2e_job *o, mp_pool *pool)
{
    return o->clock_gate > 0 ? mp_clock_now(pool) : 0;
}

/* Whether what ran since the reading c0 ran at full speed (always, ungated);
 * *c1 (may be NULL) gets the reading made now, the next step's "before". */
static int full_speed(const mp_e2e_job *o, mp_pool *pool, double c0, double *c1)
{
    if (o->clock_gate <= 0)
        return 1;
    double now = mp_clock_now(pool);
    if (c1)
        *c1 = now;
    return (c0 < now ? c0 : now) >= o->clock_gate * mp_clock_best();
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


int mp_e2e_job_stored(const mp_e2e_job *o, mp_e2e_row *r, mp_err *e)
{
    if (!o->store || !o->key)
        return 0;
    return mp_store_e2e_get(o->store, o->key, r->model, r->variant, r->test, r->threads, r, e);
}

int mp_e2e_job_keep(const mp_e2e_job *o, const mp_e2e_row *r, mp_err *e)
{
    return o->store ? mp_store_e2e_put(o->store, o->run_id, o->key, r, e) : MP_OK;
}

int mp_e2e_job_source(const mp_e2e_job *o, const mp_model *md, mp_pool *pool, int builds,
                      mp_e2e_source *syn, mp_e2e_source **sh, mp_err *e)
{
    *sh = NULL;
    if (builds < 2)
        return MP_OK;
    const mp_e2e_source *inner = o->src;
    if (!inner) {
        mp_e2e_synthetic((uint64_t)o->seed, syn);
        inner = syn;
    }
    return mp_e2e_shared_create(inner, md, o->layers, pool, sh, e);
}

void mp_e2e_job_note(const mp_e2e_job *o, const char *label, mp_e2e *m)
{
    const mp_e2e_setup *su = m ? mp_e2e_setup_info(m) : NULL;
    if (su && su->cache_note[0] && !o->quiet)
        fprintf(stderr, "mpbench: %s: weight cache: %s (%d stale, %d corrupt: rebuilt, not "
                        "used)\n", label, su->cache_note, su->cache_stale, su->cache_corrupt);
}

void mp_e2e_row_sizes(mp_e2e_row *r, mp_e2e *m)
{
    const mp_e2e_mem *mem = mp_e2e_memory(m);
    r->ternary_bytes = mem->ternary;
    r->model_bytes = mem->ternary + mem->floats;
    r->bpw = 8.0 * (double)mem->ternary / mem->ternary_weights;
}

/* The decode bound's read bandwidth (GB/s) at the pool's thread count: the
 * newest probe of this machine in the store, used as it is - its read_DRAM, the
 * best of its read methods, the same bandwidth roof as the kernel rows' (issue
 * 37); 0 when there is none, and then the decode loop reads beside each step
 * (see READ_CAP). */
static double stored_bw(const mp_e2e_job *o)
{
    double bw = 0;
    if (o->store && o->fingerprint)
        bw = mp_probe_value(o->store, o->fingerprint, "read_DRAM", o->threads);
    return bw > 0 ? bw : 0;
}

/* The decode bound's bandwidth is the best read of the machine this row saw:
 * the stored probe's (when there is one), BOUND_BURST reads made just before
 * the row's repetitions, and - without a stored probe - one read after every
 * decode step, inside the step's clock-gate window.  A read covers
 * min(bytes per token, READ_CAP): a buffer split over the pool's threads, each
 * first-touching its part, on the weights' kind of pages (2 MiB unless
 * MPBENCH_E2E_HUGEPAGES=0); the reads before the row try each of the probe's
 * read methods and the best of them reads beside the steps (the prefetched
 * one, mp_registry_probe_read_pf, on the Zen 3 VM: with plain loads the
 * kernels' own prefetched streams beat it, shares up to 1.12; plain loads on
 * the Zen 4 VM, 30.7 against 27.3 GB/s).  The reason names it.  Step and read
 * alternate, so each finds the other's bytes in the cache, not its own, once a
 * token reads more than the last-level cache holds.  A step's time excludes
 * its read.
 *
 * The best, not the median: a roof is what the machine can do, and a median
 * of the reads was exceeded - llama3-8b-1.58 at 2 threads on the AMD EPYC VM
 * (Zen 3), 8 kept steps at 131% of a bound whose 8 reads ran at ~29 GB/s while
 * the steps read ~38 (the session notes of issue 39): a read can meet a
 * neighbour's memory traffic that its step did not, at full clock.  Reads made
 * once at the start and the end gave shares of 1.04-1.72 before that (issue
 * 17); the best of many reads is what a neighbour cannot lower.  A row whose
 * rate still exceeds its bound is marked unstable and says so: the bound is
 * wrong there, and the row is never clamped to it. */
#define READ_CAP MP_E2E_BOUND_READ_CAP
#define BOUND_BURST 5

/* "group=seconds per token,..." of a profile. */
static void profile_text(const double *sec, double tokens, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int g = 0; g < MP_E2E_NPROF && used < len; g++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s=%.4g", g ? "," : "",
                                 mp_e2e_prof_name[g], sec[g] / tokens);
}

/* Identity of a performance row: kind 0 pp, 1 tg, 2 tg with a batch of b. */
static void label_row(const mp_e2e_job *o, const mp_model *md, const mp_e2e_config *c, int kind,
                      int b, mp_e2e_row *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->model, sizeof r->model, "%s", md->name);
    snprintf(r->variant, sizeof r->variant, "%s", c->label);
    snprintf(r->method, sizeof r->method, "%s", c->method);
    r->layers = o->layers, r->model_layers = md->layers, r->threads = o->threads;
    r->reps = o->reps, r->seed = (uint64_t)o->seed, r->batch = b;
    snprintf(r->lm_head, sizeof r->lm_head, "%s", mp_e2e_head_name(o->head));
    if (kind == 0)
        snprintf(r->test, sizeof r->test, "pp%d", o->pp), r->n_prompt = o->pp;
    else if (kind == 1)
        snprintf(r->test, sizeof r->test, "tg%d", o->tg), r->n_gen = o->tg;
    else
        snprintf(r->test, sizeof r->test, "tg%d b%d", o->tg, b), r->n_gen = o->tg;
}

/* One pass of a prompt's GEMMs alone (mp_e2e_gemm_seconds: the same chunks,
 * the same pool): every linear of every chunk of tokens and the head's one row
 * of the last token, whose logits the prompt asks for - a matrix product of
 * the prefill as much as the linears, and the decode bound counts its bytes
 * too (until issue 17's last session the bound left it out, 2-4% of a 2B-4T
 * prompt).  Made again at a slow moment (gated); *slow counts a pass kept
 * slow.  The prefill loop makes one right after each of its repetitions,
 * so the bound and the rate it divides are measured at the same moments: made
 * after all the repetitions, as before, a slow stretch of this shared VM in
 * one block and not the other moved the share by 5-10 points from one run to
 * the next (issue 17's session notes). */
static double gemms_alone(const mp_e2e_job *o, mp_pool *pool, mp_e2e *m, float *logits,
                          int *slow)
{
    double sec = 0;
    for (int try = 0; try < GATE_TRIES; try++) {
        double c0 = clock_read(o, pool);
        sec = 0;
        for (int at = 0; at < o->pp; at += UBATCH) {
            int len = o->pp - at < UBATCH ? o->pp - at : UBATCH;
            sec += mp_e2e_gemm_seconds(m, len, at + len == o->pp, logits);
        }
        if (full_speed(o, pool, c0, NULL))
            break;
        *slow += try == GATE_TRIES - 1;
    }
    return sec;
}

/* The smallest positive of v[0..n) (the fastest pass), 0 when there is none. */
static double best_d(const double *v, int n)
{
    double b = 0;
    for (int i = 0; i < n; i++)
        if (v[i] > 0 && (b == 0 || v[i] < b))
            b = v[i];
    return b;
}

/* The row's bound and share.  Decode (kind 1, 2): bytes read per step - every
 * packed ternary tensor, the whole head, one embedding row per token when the
 * head is untied, the norms, the KV cache at the mean position - over the read
 * bandwidth, B tokens per step.  Prefill: pp tokens over the fastest of
 * alone[], its GEMMs' passes (gemms_alone), one per repetition: as the decode
 * bound's reads, the best, so that no repetition's rate can pass it unless the
 * GEMMs alone were never measured at the speed the prompt ran at. */
static void bound(const mp_e2e_job *o, const mp_model *md, mp_e2e_dec *d, int kind, int B,
                  double bw, double *alone, mp_e2e_row *r)
{
    if (kind == 0) {
        double best = mp_e2e_dec_ours(d) ? best_d(alone, o->reps) : 0;
        r->bound_tps = best > 0 ? o->pp / best : 0;
    } else {
        r->token_bytes = mp_e2e_dec_token_bytes(d, o, md, B);
        r->bw_gbs = bw;
        r->bound_tps = bw > 0 ? B * bw * 1e9 / (double)r->token_bytes : 0;
    }
    r->bound_share = r->bound_tps > 0 ? r->tps_median / r->bound_tps : 0;
}

void mp_e2e_bound_verdict(mp_e2e_row *r)
{
    if (!(r->bound_share > 1))
        return;
    char was[sizeof r->reason];
    snprintf(was, sizeof was, "%s", r->reason);
    if (!r->n_prompt)
        snprintf(r->status, sizeof r->status, "unstable");
    snprintf(r->reason, sizeof r->reason,
             "rate %.0f%% of its bound: the bound's %s ran slower than the row (the bound is "
             "wrong here; the row is not clamped)%s%.380s",
             100 * r->bound_share, r->n_prompt ? "GEMMs alone" : "reads", was[0] ? "; " : "",
             was);
}

/* ---- the rows: each a configuration's test, measured repetition by repetition --
 * One row being measured is a cell: its decoder, its repetitions so far and
 * what its bound and status need.  Sequentially (the default) one
 * configuration is built, its cells measured one after the other, and it is
 * freed before the next is built.  Interleaved (--interleave) every
 * configuration is built first and each test's cells take turns, one
 * repetition each per round on the same drawn tokens, so a slow stretch of a
 * shared host falls on every configuration's repetitions alike and the ratios
 * of one run compare the same moments: on the Zen 4 VM the 2-thread read
 * bandwidth moved between ~35 and ~61 GB/s over minutes, while a 2B-4T
 * configuration's rows take 10-30 s each. */
typedef struct run {
    const mp_e2e_job *o;
    const mp_model *md;
    mp_pool *pool;
    int ntok, vocab;
    int *tok, *seq;
    unsigned char *want;
    float *logits;
    double bw_probe;
    mp_rng rng;
    mp_progress pg;
    int trace; /* MPBENCH_E2E_TRACE=1: each repetition and its tokens on stderr (tests) */
    /* interleaved, without a stored probe: the one reader beside every
     * configuration's steps (each cell's own is freed after its burst, so the
     * configurations' readers are not all held at once) */
    mp_probe_reader *beside;
} run;

typedef struct cell {
    mp_e2e_row *r;
    const mp_e2e_config *cfg;
    mp_e2e_dec *d;
    mp_e2e *m; /* ours; NULL for llama.cpp */
    int kind, B;
    double *sec, *alone; /* per repetition: its time; prefill: its GEMMs alone */
    double tsum;
    int rep; /* the next repetition; -1 the warm-up */
    int done;
    /* with a clock gate: steps kept / made (decode), repetitions made again */
    int kept, made, redone, unstable; /* unstable: slow ones kept */
    int slow_bound;                   /* passes of the GEMMs alone kept slow (gated) */
    int profiling;
    mp_probe_reader *rd; /* kept for the reads beside the steps (no stored probe) */
    const char *rmethod; /* its best read method (a static name) */
    int nra;                            /* reads made beside the steps */
    double burst_best, beside_best;     /* GB/s */
    size_t rbytes;
} cell;

/* The row's sizes, the reads before it (decode), the warm-up next. */
static void cell_start(run *x, cell *k, double setup_s)
{
    const mp_e2e_job *o = x->o;
    mp_e2e_dec_sizes(k->d, k->r);
    k->r->setup_s = setup_s;
    k->rep = -1;
    if (!k->kind)
        return;
    size_t tb = mp_e2e_dec_token_bytes(k->d, o, x->md, k->B);
    /* NULL beyond the probe's 64 threads: no reads */
    k->rd = mp_probe_reader_new(x->pool, tb < READ_CAP ? tb : READ_CAP, mp_e2e_huge_pages(), NULL);
    k->rbytes = k->rd ? mp_probe_reader_bytes(k->rd, x->pool) : 0;
    mp_e2e_dec_quiet(k->d, 1);
    for (int i = 0; k->rd && i < BOUND_BURST; i++) {
        double g = mp_probe_reader_pass_best(k->rd, x->pool);
        k->burst_best = g > k->burst_best ? g : k->burst_best;
    }
    k->rmethod = k->rd ? mp_probe_reader_method(k->rd) : "none";
    if (x->bw_probe || o->interleave) { /* no reads beside the steps, or x->beside's */
        mp_probe_reader_free(k->rd, x->pool);
        k->rd = NULL;
    }
}

/* One repetition of the cell (the warm-up first) on tokens tok (NULL: drawn
 * here); a gated one not run at full speed is made again (GATE_TRIES times the
 * repetitions at most).  Its decoder's workers asleep after it. */
static int cell_rep(run *x, cell *k, const int *tok, mp_err *e)
{
    const mp_e2e_job *o = x->o;
    mp_pool *pool = x->pool;
    mp_e2e_dec *d = k->d;
    const int rep = k->rep, B = k->B;
    int rc = 0;
    if (rep == 0 && o->profile && k->m && !k->profiling) /* the timed repetitions only, */
        mp_e2e_profile(k->m, 1), k->profiling = 1;       /* those made again included */
    mp_progress_show(&x->pg, "%s: %s rep %d/%d", k->cfg->label, k->r->test, rep + 1, o->reps);
    uint32_t h = 2166136261u; /* FNV-1a of the tokens, for the trace */
    for (int i = 0; i < x->ntok; i++) {
        x->tok[i] = tok ? tok[i] : (int)(mp_rng_next(&x->rng) % (uint64_t)x->vocab);
        h = (h ^ (uint32_t)x->tok[i]) * 16777619u;
    }
    if (x->trace)
        fprintf(stderr, "mpbench: e2e trace: %s %s rep %d tokens %08x\n", k->cfg->label,
                k->r->test, rep, h);
    mp_e2e_dec_reset(d);
    /* llama.cpp's workers spin between its graphs: asleep while our pool reads
     * the clock or the bound's bytes (at 2 threads they halved that read:
     * llamacpp.f16's rows reached 173% of the bound) */
    mp_e2e_dec_quiet(d, 1);
    double c0 = clock_read(o, pool);
    mp_e2e_dec_quiet(d, 0);
    double t0 = mp_now(), fast = 0, steps_s = 0;
    int nfast = 0;
    if (k->kind == 0) {
        for (int at = 0; at < o->pp; at += UBATCH) {
            int len = o->pp - at < UBATCH ? o->pp - at : UBATCH;
            memset(x->want, 0, (size_t)len);
            x->want[len - 1] = at + len == o->pp;
            rc = mp_e2e_dec_forward(d, x->tok + at, x->seq, len, x->want, x->logits);
            if (rep < 0 || rc)
                break; /* warm-up: one chunk */
        }
    } else {
        for (int b = 0; b < B; b++)
            x->seq[b] = b;
        int steps = rep < 0 ? 1 : o->tg;
        for (int i = 0; i < steps && !rc && !mp_engine_interrupted(); i++) {
            double s0 = mp_now();
            rc = mp_e2e_dec_forward(d, x->tok, x->seq, B, NULL, x->logits);
            const int *next = mp_e2e_dec_tokens(d); /* argmax of each row */
            for (int b = 0; b < B; b++)
                x->tok[b] = next[b];
            double ds = mp_now() - s0;
            mp_e2e_dec_quiet(d, 1);
            mp_probe_reader *rdr = k->rd ? k->rd : x->beside;
            double g = rdr && !x->bw_probe ? mp_probe_reader_pass(rdr, pool) : 0;
            steps_s += ds;
            int kept_step = o->clock_gate <= 0 || full_speed(o, pool, c0, &c0);
            mp_e2e_dec_quiet(d, 0);
            if (o->clock_gate > 0 && kept_step)
                fast += ds, nfast++;
            if (rdr && !x->bw_probe && rep >= 0) {
                k->nra++;
                k->beside_best = g > k->beside_best ? g : k->beside_best;
            }
        }
        memset(x->seq, 0, sizeof *x->seq * (size_t)B);
    }
    /* decode: the steps' time, without the reads beside them */
    double dt = k->kind ? steps_s : mp_now() - t0;
    mp_e2e_dec_quiet(d, 1);
    if (rc)
        return mp_fail(e, MP_ERUN, "e2e: forward pass refused its input (internal)");
    if (rep < 0 || mp_engine_interrupted()) {
        k->rep += rep < 0;
        return MP_OK;
    }
    k->tsum += dt;
    if (o->clock_gate > 0) {
        int slow = k->kind ? !nfast : !full_speed(o, pool, c0, NULL);
        if (k->kind)
            k->made += o->tg, k->kept += nfast;
        if (slow && k->redone < GATE_TRIES * o->reps) {
            k->redone++; /* nothing of it at full speed: again */
            return MP_OK;
        }
        k->unstable += slow;
        if (k->kind && nfast)
            dt = fast / nfast * o->tg; /* the kept steps' rate */
    }
    k->sec[rep] = dt;
    if (k->kind == 0 && k->m)
        k->alone[rep] = gemms_alone(o, pool, k->m, x->logits, &k->slow_bound);
    k->done = ++k->rep == o->reps;
    return MP_OK;
}

/* The finished cell's row: rate, bound, status and reason, stored. */
static int cell_finish(run *x, cell *k, mp_err *e)
{
    const mp_e2e_job *o = x->o;
    mp_e2e_row *r = k->r;
    const char *rmethod = k->rmethod ? k->rmethod : "none";
    mp_probe_reader_free(k->rd, x->pool);
    k->rd = NULL;
    /* the best read this row saw (READ_CAP's comment) */
    double bw = 0;
    if (k->kind) {
        r->bw_row_gbs = k->beside_best > k->burst_best ? k->beside_best : k->burst_best;
        bw = x->bw_probe > r->bw_row_gbs ? x->bw_probe : r->bw_row_gbs;
    }
    double tokens = k->kind == 0 ? (double)o->pp : (double)o->tg * k->B;
    fill_stats(r, k->sec, o->reps, tokens);
    if (o->profile && k->m) { /* over every timed repetition, kept or not */
        double prof[MP_E2E_NPROF], in = 0;
        mp_e2e_profile_get(k->m, prof);
        mp_e2e_profile(k->m, 0);
        for (int g = 0; g < MP_E2E_NPROF; g++)
            in += prof[g];
        prof[MP_E2E_P_OTHER] += k->tsum - in; /* the token loop outside forward calls */
        profile_text(prof, tokens * (o->reps + k->redone), r->profile, sizeof r->profile);
    }
    bound(o, x->md, k->d, k->kind, k->B, bw, k->alone, r);
    const int need = o->tg * o->reps < MIN_KEPT ? o->tg * o->reps : MIN_KEPT;
    const int few = k->kind && o->clock_gate > 0 && !k->unstable && k->kept < need;
    snprintf(r->status, sizeof r->status, "%s",
             k->unstable || k->slow_bound || few ? "unstable" : "ok");
    int at = snprintf(r->reason, sizeof r->reason, "%s", mp_e2e_dec_note(k->d, x->md));
    if (o->layers < x->md->layers)
        at += snprintf(r->reason + at, sizeof r->reason - (size_t)at, "%d of %d layers; ",
                       o->layers, x->md->layers);
    if (o->interleave)
        at += snprintf(r->reason + at, sizeof r->reason - (size_t)at,
                       "interleaved with the other variants; ");
    if (o->clock_gate > 0 && k->kind) {
        char under[32] = "";
        if (few)
            snprintf(under, sizeof under, " (fewer than %d)", need);
        at += snprintf(r->reason + at, sizeof r->reason - (size_t)at,
                       "clock gate %.0f%%: %d of %d steps at full speed%s; ",
                       100 * o->clock_gate, k->kept, k->made, under);
    }
    if (at >= (int)sizeof r->reason)
        at = (int)sizeof r->reason - 1;
    const double kb = (double)k->rbytes / (k->rbytes < (1u << 20) ? 1 << 10 : 1 << 20);
    const char *unit = k->rbytes < (1u << 20) ? "KiB" : "MiB";
    char *rr = r->reason + at;
    size_t rl = sizeof r->reason - (size_t)at;
    if (k->kind && !k->rbytes && !x->bw_probe)
        snprintf(rr, rl, "bound: not measured (more threads than the read probe's 64)");
    else if (k->kind && x->bw_probe)
        snprintf(rr, rl, "bound: best read %.2f GB/s of the stored probe's %.2f and %d reads of "
                 "%.0f %s before the row %.2f (%s)", bw, x->bw_probe,
                 k->rbytes ? BOUND_BURST : 0, kb, unit, k->burst_best, rmethod);
    else if (k->kind)
        snprintf(rr, rl, "bound: best read %.2f GB/s of %d reads of %.0f %s before the row "
                 "%.2f and %d beside its steps %.2f (%s)", bw, BOUND_BURST, kb, unit,
                 k->burst_best, k->nra, k->beside_best, rmethod);
    else if (!k->m)
        snprintf(rr, rl, "%sno bound (llama.cpp's GEMMs are not timed alone)",
                 o->clock_gate > 0 ? "clock gate on; " : "");
    else if (o->clock_gate > 0)
        snprintf(rr, rl, "clock gate %.0f%%: %d of %d repetitions at full speed%s",
                 100 * o->clock_gate, o->reps - k->unstable, o->reps + k->redone,
                 k->slow_bound ? "; the GEMMs alone not" : "");
    else if (at)
        r->reason[at - 2] = 0; /* no "; " after the layers */
    mp_e2e_bound_verdict(r);
    return mp_e2e_job_keep(o, r, e);
}

/* A configuration's decoder, or NULL when it is skipped or all its rows are
 * stored; *setup_s its build time (the shared weights' with the first build). */
static int open_config(run *x, const mp_e2e_config *c, const mp_e2e_spec *base, int need,
                       double *share_s, mp_e2e_dec **d, double *setup_s, mp_err *e)
{
    *d = NULL;
    *setup_s = 0;
    if (c->skip[0] || !need)
        return MP_OK;
    mp_progress_show(&x->pg, "%s: building %d layers", c->label, x->o->layers);
    mp_e2e_spec s = *base;
    memcpy(s.lin, c->lin, sizeof s.lin);
    int rc = mp_e2e_dec_open(x->o, x->md, c, &s, x->pool, d, e);
    if (rc) {
        mp_e2e_dec_free(*d);
        *d = NULL;
        return rc;
    }
    mp_e2e *m = mp_e2e_dec_ours(*d);
    mp_e2e_job_note(x->o, c->label, m);
    *setup_s = mp_e2e_dec_setup_s(*d) + (m ? *share_s : 0);
    if (m)
        *share_s = 0;
    mp_e2e_dec_quiet(*d, 1); /* asleep until its turn */
    return MP_OK;
}

/* Runs pp / tg / batch tests for every configuration; fills rows. */
int mp_e2e_run_perf(const mp_e2e_job *o, const mp_model *md, mp_pool *pool,
                    const mp_e2e_config *cfg, int ncfg, mp_e2e_row *rows, int *nrows, mp_err *e)
{
    int maxb = 1;
    for (int i = 0; i < o->nbatch; i++)
        if (o->batch[i] > maxb)
            maxb = o->batch[i];
    run x = {.o = o, .md = md, .pool = pool, .vocab = md->vocab,
             .rng = {(uint64_t)o->seed * 7919 + 3},
             .trace = mp_env_long("MPBENCH_E2E_TRACE", 0) != 0};
    x.ntok = o->pp > maxb ? o->pp : maxb;
    size_t nt = (size_t)(x.ntok ? x.ntok : 1);
    x.tok = malloc(sizeof(int) * nt);
    x.seq = calloc(nt, sizeof *x.seq);
    x.want = calloc(nt, 1);
    x.logits = mp_alloc(sizeof(float) * (size_t)md->vocab * maxb);
    int *round_tok = malloc(sizeof(int) * nt);
    int builds = 0;
    for (int c = 0; c < ncfg; c++)
        builds += !cfg[c].skip[0] && mp_e2e_dec_llama_type(&cfg[c]) < 0;
    mp_e2e_source syn, *sh = NULL;
    /* the shared weights' generation is part of the first build's setup: it
     * is what that build would have done alone */
    double share_s = mp_now();
    int rc = mp_e2e_job_source(o, md, pool, builds, &syn, &sh, e);
    share_s = mp_now() - share_s;
    if (o->clock_gate > 0 && mp_clock_best() == 0)
        for (int i = 0; i < 16; i++) /* a first idea of full speed */
            mp_clock_now(pool);
    x.bw_probe = rc || !o->tg ? 0 : stored_bw(o);
    mp_e2e_spec base = {.model = *md, .layers = o->layers, .seed = (uint64_t)o->seed,
                        .src = sh ? sh : o->src, .head = o->head, .cache_dir = o->cache_dir,
                        .max_seqs = maxb, .max_ctx = o->pp > o->tg ? o->pp : o->tg,
                        .max_tokens = (o->pp < UBATCH ? o->pp : UBATCH) > maxb
                                          ? (o->pp < UBATCH ? o->pp : UBATCH)
                                          : maxb,
                        .threads = o->threads};
    /* the tests of every configuration: pp, tg, then each batch > 1 */
    int ntest = 0, kind[2 + MAX_BATCH], nb[2 + MAX_BATCH];
    if (o->pp)
        kind[ntest] = 0, nb[ntest++] = 1;
    if (o->tg) {
        kind[ntest] = 1, nb[ntest++] = 1; /* always: the single-sequence baseline */
        for (int i = 0; i < o->nbatch; i++)
            if (o->batch[i] > 1)
                kind[ntest] = 2, nb[ntest++] = o->batch[i];
    }
    mp_progress_begin(&x.pg, (long)ncfg * ntest, o->quiet);
    /* rows of an earlier, interrupted run of this plan are taken as stored:
     * cells[c][ti] (rows in the same order) */
    cell *cells = calloc((size_t)ncfg * (size_t)(ntest ? ntest : 1), sizeof *cells);
    mp_e2e_row *had = calloc((size_t)ncfg * (size_t)(ntest ? ntest : 1), sizeof *had);
    int *is_had = calloc((size_t)ncfg * (size_t)(ntest ? ntest : 1), sizeof *is_had);
    int *need = calloc((size_t)ncfg, sizeof *need);
    for (int c = 0; c < ncfg && !rc; c++)
        for (int ti = 0; ti < ntest && !rc; ti++) {
            mp_e2e_row *r = &had[c * ntest + ti];
            label_row(o, md, &cfg[c], kind[ti], nb[ti], r);
            int got = mp_e2e_job_stored(o, r, e);
            if (got < 0)
                rc = -got;
            is_had[c * ntest + ti] = got > 0;
            need[c] += got == 0;
        }
    for (int c = 0; c < ncfg * ntest; c++) {
        cell *k = &cells[c];
        k->cfg = &cfg[c / ntest], k->kind = kind[c % ntest], k->B = nb[c % ntest];
        k->sec = calloc((size_t)o->reps, sizeof *k->sec);
        k->alone = calloc((size_t)o->reps, sizeof *k->alone);
    }
    double *setup = calloc((size_t)ncfg, sizeof *setup);
    mp_e2e_dec **dec = calloc((size_t)ncfg, sizeof *dec);
    /* configurations measured together: all (interleaved) or one at a time */
    const int group = o->interleave ? ncfg : 1;
    for (int c0 = 0; c0 < ncfg && !rc && !mp_engine_interrupted(); c0 += group) {
        const int c1 = c0 + group < ncfg ? c0 + group : ncfg;
        for (int c = c0; c < c1 && !rc; c++)
            rc = open_config(&x, &cfg[c], &base, need[c], &share_s, &dec[c], &setup[c], e);
        for (int ti = 0; ti < ntest && !rc && !mp_engine_interrupted(); ti++) {
            /* the rows of this test: stored ones, skipped ones, the rest measured */
            int live = 0;
            for (int c = c0; c < c1 && !rc; c++) {
                cell *k = &cells[c * ntest + ti];
                k->r = &rows[*nrows + (c - c0) * ntest + ti];
                *k->r = had[c * ntest + ti];
                k->d = dec[c];
                k->m = dec[c] ? mp_e2e_dec_ours(dec[c]) : NULL;
                if (is_had[c * ntest + ti]) {
                    k->done = 1;
                    mp_progress_step(&x.pg, 1);
                    continue;
                }
                label_row(o, md, &cfg[c], kind[ti], nb[ti], k->r);
                if (!k->d) {
                    snprintf(k->r->status, sizeof k->r->status, "skipped");
                    snprintf(k->r->reason, sizeof k->r->reason, "%.250s", cfg[c].skip);
                    rc = mp_e2e_job_keep(o, k->r, e);
                    k->done = 1;
                    mp_progress_step(&x.pg, 1);
                    continue;
                }
                cell_start(&x, k, setup[c]);
                live++;
            }
            if (live && o->interleave && !x.bw_probe && kind[ti]) {
                size_t most = 0; /* the largest of the cells' token reads */
                for (int c = c0; c < c1; c++) {
                    cell *k = &cells[c * ntest + ti];
                    if (!k->done && k->d) {
                        size_t tb = mp_e2e_dec_token_bytes(k->d, o, md, k->B);
                        tb = tb < READ_CAP ? tb : READ_CAP;
                        most = tb > most ? tb : most;
                    }
                }
                x.beside = mp_probe_reader_new(pool, most, mp_e2e_huge_pages(), NULL);
                if (x.beside)
                    mp_probe_reader_pass_best(x.beside, pool); /* its method */
            }
            /* rounds: each live cell one repetition, on the round's tokens when
             * interleaved; sequentially a cell runs to its end */
            while (live && !rc && !mp_engine_interrupted()) {
                if (o->interleave)
                    for (int i = 0; i < x.ntok; i++)
                        round_tok[i] = (int)(mp_rng_next(&x.rng) % (uint64_t)x.vocab);
                for (int c = c0; c < c1 && !rc && !mp_engine_interrupted(); c++) {
                    cell *k = &cells[c * ntest + ti];
                    while (!k->done && !rc && !mp_engine_interrupted()) {
                        rc = cell_rep(&x, k, o->interleave ? round_tok : NULL, e);
                        if (o->interleave)
                            break;
                    }
                }
                live = 0;
                for (int c = c0; c < c1; c++)
                    live += !cells[c * ntest + ti].done;
            }
            mp_probe_reader_free(x.beside, pool);
            x.beside = NULL;
            for (int c = c0; c < c1 && !rc && !mp_engine_interrupted(); c++) {
                cell *k = &cells[c * ntest + ti];
                if (k->d && !is_had[c * ntest + ti]) {
                    rc = cell_finish(&x, k, e);
                    mp_progress_step(&x.pg, 1);
                }
            }
        }
        if (!rc && !mp_engine_interrupted())
            *nrows += (c1 - c0) * ntest;
        else /* the rows finished before the stop are stored; a partial group is no rows */
            for (int c = c0; c < c1; c++)
                for (int ti = 0; ti < ntest; ti++)
                    if (cells[c * ntest + ti].done && cells[c * ntest + ti].r &&
                        cells[c * ntest + ti].r->status[0])
                        rows[(*nrows)++] = *cells[c * ntest + ti].r;
        for (int c = c0; c < c1; c++) {
            for (int ti = 0; ti < ntest; ti++) {
                mp_probe_reader_free(cells[c * ntest + ti].rd, pool);
                cells[c * ntest + ti].rd = NULL;
            }
            mp_e2e_dec_free(dec[c]);
            dec[c] = NULL;
        }
    }
    mp_progress_end(&x.pg);
    for (int c = 0; c < ncfg * ntest; c++)
        free(cells[c].sec), free(cells[c].alone);
    free(cells);
    free(had);
    free(is_had);
    free(need);
    free(setup);
    free(dec);
    mp_e2e_shared_free(sh);
    mp_e2e_spares_free();
    free(x.tok);
    free(x.seq);
    free(x.want);
    free(round_tok);
    mp_free(x.logits);
    return rc;
}
