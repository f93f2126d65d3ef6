/* test_e2e_limit.c - suite `e2e_limit`: the end-to-end runner at the memory
 * limit (issue 17), on the tiny fixture models.
 *
 * What is checked: every lossless variant runnable here gives the same greedy
 * tokens and bit-identical logits for 1, 2, 3 and 8 threads (more threads than
 * cores on purpose), built directly or through the run's shared weights, with
 * each --lm-head format; the shared weights are generated once per run and
 * counted in the first build's setup; the head formats' rounding stays within
 * half a step (q8_0) or one step (q4_0, whose top code is clamped at +7) of its block; the
 * --profile parts partition the measured time (see profile_parts_add_up); the
 * packed-weight cache is used only when key, sizes and checksums verify, and a
 * stale, corrupt or truncated file is rebuilt with the right weights; a
 * database of the schema before the issue-17 columns opens and gets them; every
 * ISA copy of the attention loops gives the bits of their documented order.
 * Nothing here depends on how fast anything runs. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdatomic.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_test.h"
#include "../harness/engine/mp_engine.h"
#include "../harness/e2e/mp_e2e.h"
#include "../harness/gguf/mp_gguf.h"
#include "../harness/e2e/mp_e2e_attn.h"
#include "../harness/e2e/mp_e2e_cache.h"
#include "../harness/e2e/mp_e2e_codes.h"
#include "../harness/e2e/mp_e2e_exp.h"
#include "../harness/store/mp_store_schema.h"
#include "../kernels/common/mp_isa.h"
#include "../kernels/common/mp_numerics.h"
#include "../kernels/mp_kernel.h"
#include "../variants/mp_registry.h"

#define TINY "tests/fixtures/tiny.txt"
#define TINY_RELU2 "tests/fixtures/tiny-relu2.txt"
#define TINY_WIDE "tests/fixtures/tiny-wide.txt" /* head rows with a whole 16-block group */

static char out[1 << 17];

static void load(const char *path, mp_model *m)
{
    mp_err e;
    cr_assert_eq(mp_model_load(path, m, &e), MP_OK, "%s", e.msg);
}

static mp_e2e_spec spec_for(const mp_model *m, const mp_variant *v, int threads)
{
    enum { GEN = 6 };
    mp_e2e_spec s = {.model = *m, .layers = m->layers, .seed = 5, .max_seqs = 1,
                     .max_ctx = MP_E2E_PROMPT_MAX + GEN, .max_tokens = MP_E2E_PROMPT_MAX,
                     .threads = threads};
    for (int l = 0; l < MP_E2E_NLIN; l++) {
        s.lin[l].v = v;
        if (v)
            mp_variant_defaults(v, s.lin[l].param);
    }
    return s;
}

/* Greedy tokens of 3 prompts (6 each) and the last logits row, into tok/logits. */
static void decode(const mp_e2e_spec *s, mp_pool *pool, int *tok, float *logits)
{
    mp_err e;
    mp_e2e *m;
    cr_assert_eq(mp_e2e_create(s, pool, &m, &e), MP_OK, "%s", e.msg);
    int V = mp_e2e_vocab(m), prompt[MP_E2E_PROMPT_MAX];
    for (int p = 0; p < 3; p++) {
        int len = mp_e2e_prompt(21, p, V, prompt);
        cr_assert_eq(mp_e2e_greedy(m, prompt, len, 6, tok + 6 * p, logits), MP_OK);
        /* the parallel argmax is the serial one */
        cr_assert_eq(mp_e2e_tokens(m)[0], mp_e2e_argmax(logits, V));
    }
    mp_e2e_free(m);
}

/* ---- same tokens for any thread count ----------------------------------------------- */
/* maxv: how many lossless variants besides the reference (0: all). */
static void threads_case(const char *fixture, mp_e2e_head_fmt hf, int maxv)
{
    static const int tv[4] = {1, 2, 3, 8};
    mp_pool *pool[4];
    char bind[256];
    for (int i = 0; i < 4; i++)
        pool[i] = mp_pool_create(tv[i], bind, sizeof bind);
    mp_model md;
    load(fixture, &md);
    int V = md.vocab, checked = 0;
    float *l1 = mp_alloc(sizeof(float) * V), *ln = mp_alloc(sizeof(float) * V);
    for (int i = -1; i < mp_registry_count(); i++) {
        const mp_variant *v = i < 0 ? NULL : mp_registry_get(i); /* -1: the reference */
        if (v && (v->exactness != MP_LOSSLESS || !mp_variant_available(v) || v->self_threaded))
            continue;
        if (maxv && checked > maxv)
            break;
        mp_e2e_spec s = spec_for(&md, v, 1);
        s.head = hf;
        mp_err e;
        if (mp_e2e_check(&s, &e))
            continue;
        int t1[18], tn[18];
        decode(&s, pool[0], t1, l1);
        for (int k = 1; k < 4; k++) {
            s.threads = tv[k];
            decode(&s, pool[k], tn, ln);
            const char *name = v ? v->name : "reference";
            cr_assert(!memcmp(t1, tn, sizeof t1), "%s on %s (%s head): tokens differ between 1 "
                      "and %d threads", name, fixture, mp_e2e_head_name(hf), tv[k]);
            cr_assert(!memcmp(l1, ln, sizeof(float) * V), "%s on %s: logits differ between 1 "
                      "and %d threads", name, fixture, tv[k]);
        }
        checked++;
    }
    cr_assert_gt(checked, 1, "no lossless variant ran on %s", fixture);
    mp_free(l1);
    mp_free(ln);
    for (int i = 0; i < 4; i++)
        mp_pool_destroy(pool[i]);
}

Test(e2e_limit, same_tokens_for_1_2_3_8_threads, .timeout = 300)
{
    threads_case(TINY, MP_E2E_HEAD_F16, 0);     /* every lossless variant */
    threads_case(TINY_RELU2, MP_E2E_HEAD_F16, 6); /* the other architecture: a few */
}

Test(e2e_limit, same_tokens_for_any_threads_with_quantized_heads)
{
    threads_case(TINY, MP_E2E_HEAD_Q8_0, 1);
    threads_case(TINY_RELU2, MP_E2E_HEAD_Q4_0, 1);
    for (int f = 0; f < 3; f++)
        threads_case(TINY_WIDE, (mp_e2e_head_fmt)f, 1);
}

/* ---- the shared weights are the source's ------------------------------------------- */
Test(e2e_limit, shared_weights_equal_direct)
{
    char bind[256];
    mp_pool *pool = mp_pool_create(2, bind, sizeof bind);
    const char *fx[2] = {TINY, TINY_RELU2};
    for (int f = 0; f < 2; f++) {
        mp_model md;
        load(fx[f], &md);
        mp_e2e_source syn, *sh;
        mp_e2e_synthetic(5, &syn);
        mp_err e;
        cr_assert_eq(mp_e2e_shared_create(&syn, &md, md.layers, pool, &sh, &e), MP_OK, "%s",
                     e.msg);
        const char *names[3] = {"i2_s.scalar", "f32.scalar", "vnni_int1.scalar"};
        int V = md.vocab;
        float *a = mp_alloc(sizeof(float) * V), *b = mp_alloc(sizeof(float) * V);
        /* twice through the share: the second build unpacks what the first kept */
        for (int round = 0; round < 2; round++)
            for (int i = 0; i < 3; i++) {
                const mp_variant *v = mp_registry_find(names[i]);
                cr_assert(v, "%s missing", names[i]);
                mp_e2e_spec s = spec_for(&md, v, 2);
                if (mp_e2e_check(&s, &e))
                    continue;
                int ta[18], tb[18];
                decode(&s, pool, ta, a);
                s.src = sh;
                decode(&s, pool, tb, b);
                cr_assert(!memcmp(ta, tb, sizeof ta) && !memcmp(a, b, sizeof(float) * V),
                          "%s on %s: built through the shared weights (round %d) differs",
                          names[i], fx[f], round);
            }
        mp_free(a);
        mp_free(b);
        mp_e2e_shared_free(sh);
    }
    mp_pool_destroy(pool);
}

/* Every copy of the 2-bit codec gives the definition's bytes (weight i is code
 * w + 1 in bits 2(i % 4).. of byte i / 4, unused codes 0) and gets the weights
 * back, at every length around its steps (8 portable, 64 AVX-512), writing
 * nothing past the end. */
Test(e2e_limit, weight_codes_keep_their_definition)
{
    typedef void (*pack_fn)(const int8_t *, size_t, uint8_t *);
    typedef void (*unpack_fn)(const uint8_t *, size_t, int8_t *);
    struct { const char *name; pack_fn pack; unpack_fn unpack; } copies[3] = {
        {"dispatched", mp_e2e_codes_pack, mp_e2e_codes_unpack},
        {"portable", mp_e2e_codes_pack_portable, mp_e2e_codes_unpack_portable}};
    int ncopies = 2;
#if defined(__x86_64__)
    if (mp_isa_hardware() & MP_ISA_AVX512)
        copies[ncopies].name = "avx512", copies[ncopies].pack = mp_e2e_codes_pack__avx512,
        copies[ncopies++].unpack = mp_e2e_codes_unpack__avx512;
#endif
    enum { MAXN = 4099 };
    int8_t *w = mp_alloc(MAXN), *back = mp_alloc(MAXN + 1);
    uint8_t *c = mp_alloc(MAXN / 4 + 2), *want = mp_alloc(MAXN / 4 + 1);
    for (int k = 0; k < ncopies; k++)
        for (size_t n = 0; n <= MAXN; n = n < 300 ? n + 1 : n + 1900) {
            mp_gen_weights(n, w, n, n % 3 == 2); /* some binary */
            memset(want, 0, MAXN / 4 + 1);
            for (size_t i = 0; i < n; i++)
                want[i / 4] |= (uint8_t)((w[i] + 1) << (2 * (i % 4)));
            size_t nc = (n + 3) / 4;
            memset(c, 0xa5, MAXN / 4 + 2);
            copies[k].pack(w, n, c);
            cr_assert(!memcmp(c, want, nc), "%s copy, %zu weights: codes differ", copies[k].name,
                      n);
            cr_assert_eq(c[nc], 0xa5, "%s copy, %zu weights: wrote past the codes",
                         copies[k].name, n);
            memset(back, 0x55, MAXN + 1);
            copies[k].unpack(c, n, back);
            cr_assert(!memcmp(back, w, n), "%s copy, %zu weights: unpack differs",
                      copies[k].name, n);
            cr_assert_eq(back[n], 0x55, "%s copy, %zu weights: wrote past the weights",
                         copies[k].name, n);
        }
    mp_free(w);
    mp_free(back);
    mp_free(c);
    mp_free(want);
}

/* The share keeps each tensor as 2-bit codes, eight weights a step and the rest
 * one by one: at every length, ternary and binary, the first answer (from the
 * inner source) and the second (unpacked from the codes) equal the source's. */
Test(e2e_limit, shared_codes_round_trip_at_any_length)
{
    char bind[256];
    mp_pool *pool = mp_pool_create(1, bind, sizeof bind);
    mp_model md;
    load(TINY, &md);
    mp_e2e_source syn, *sh;
    mp_e2e_synthetic(11, &syn);
    mp_err e;
    cr_assert_eq(mp_e2e_shared_create(&syn, &md, md.layers, pool, &sh, &e), MP_OK, "%s", e.msg);
    enum { MAXN = 64 };
    int n = 1, checked = 0;
    for (int l = 0; l < md.layers; l++)
        for (int lin = 0; lin < MP_E2E_NLIN; lin++)
            for (int binary = 0; binary < 2; binary++, n = n % MAXN + 1, checked++) {
                int8_t want[MAXN], got[MAXN + 8];
                float ws, gs;
                cr_assert_eq(syn.ternary(&syn, l, lin, binary, want, 1, n, &ws, &e), MP_OK);
                for (int pass = 0; pass < 2; pass++) {
                    memset(got, 0x55, sizeof got);
                    cr_assert_eq(sh->ternary(sh, l, lin, binary, got, 1, n, &gs, &e), MP_OK);
                    cr_assert(!memcmp(got, want, (size_t)n) && gs == ws,
                              "layer %d linear %d binary %d, %d weights, pass %d: differs", l,
                              lin, binary, n, pass);
                    cr_assert_eq(got[n], 0x55, "pass %d wrote past %d weights", pass, n);
                }
            }
    /* lengths 1..17 at least: no full step, one, two, and tails after each */
    cr_assert_geq(checked, 17, "the fixture has too few tensors (%d)", checked);
    mp_e2e_shared_free(sh);
    mp_pool_destroy(pool);
}

/* The weight buffers a freed instance leaves for the next one of about the
 * same size and the same threads are taken, and rewritten whole: an instance
 * of seed 6 built on the buffers of a seed-5 instance (of the same variant, or
 * of another whose arena fits) decodes as one built on fresh memory; another
 * thread count, or mp_e2e_spares_free, takes none. */
Test(e2e_limit, kept_weight_buffers_are_rewritten_whole)
{
    char bind[256];
    mp_pool *pool2 = mp_pool_create(2, bind, sizeof bind);
    mp_pool *pool3 = mp_pool_create(3, bind, sizeof bind);
    const char *fx[2] = {TINY, TINY_RELU2};
    /* each built over the one before it */
    const char *chain[] = {"i2_s.scalar", "i2_s.scalar", "vnni_int2.scalar", "tmac_int2.scalar",
                           "tl2_0.scalar.bm16", "vlut_i2.scalar", "i2_s.avx2"};
    enum { NCHAIN = sizeof chain / sizeof *chain };
    for (int f = 0; f < 2; f++) {
        mp_model md;
        load(fx[f], &md);
        int V = md.vocab, ta[18], tb[18], reused = 0;
        float *a = mp_alloc(sizeof(float) * V), *b = mp_alloc(sizeof(float) * V);
        mp_err e;
        mp_e2e *m;
        for (int c = 1; c < NCHAIN; c++) {
            const mp_variant *prev = mp_registry_find(chain[c - 1]);
            const mp_variant *v = mp_registry_find(chain[c]);
            cr_assert(prev && v);
            if (!mp_variant_available(prev) || !mp_variant_available(v))
                continue;
            mp_e2e_spec s5 = spec_for(&md, prev, 2), s6 = spec_for(&md, v, 2);
            s6.seed = 6;
            if (mp_e2e_check(&s5, &e) || mp_e2e_check(&s6, &e))
                continue;
            mp_e2e_spares_free();
            decode(&s6, pool2, ta, a); /* on fresh buffers */
            mp_e2e_spares_free();
            cr_assert_eq(mp_e2e_create(&s5, pool2, &m, &e), MP_OK, "%s", e.msg);
            cr_assert_eq(mp_e2e_setup_info(m)->kept, 0, "%s: took a freed buffer", fx[f]);
            mp_e2e_free(m);
            cr_assert_eq(mp_e2e_create(&s6, pool2, &m, &e), MP_OK, "%s", e.msg);
            size_t kept = mp_e2e_setup_info(m)->kept;
            cr_assert(kept > 0, "%s: %s after %s kept nothing", fx[f], chain[c], chain[c - 1]);
            mp_e2e_free(m);
            if (c == 1) {
                s6.threads = 3;
                cr_assert_eq(mp_e2e_create(&s6, pool3, &m, &e), MP_OK, "%s", e.msg);
                cr_assert_eq(mp_e2e_setup_info(m)->kept, 0, "%s: took another thread "
                             "count's buffers", fx[f]);
                mp_e2e_free(m);
                s6.threads = 2;
            }
            memset(tb, 0, sizeof tb);
            decode(&s5, pool2, tb, b); /* leaves seed 5's buffers */
            decode(&s6, pool2, tb, b);
            cr_assert(!memcmp(ta, tb, sizeof ta) && !memcmp(a, b, sizeof(float) * V),
                      "%s: %s built on the buffers of %s decodes otherwise", fx[f], chain[c],
                      chain[c - 1]);
            reused++;
        }
        cr_assert_geq(reused, 4, "%s: too few pairs ran", fx[f]);
        mp_free(a);
        mp_free(b);
    }
    mp_e2e_spares_free();
    mp_pool_destroy(pool2);
    mp_pool_destroy(pool3);
}

/* A synthetic source whose embedding rows take SLOW_MS longer to make: the
 * share generates them once, at its creation, for every build of the run. */
enum { SLOW_MS = 300 };
static mp_e2e_source slow_inner;
static _Atomic int slow_calls;

static int slow_rows(const mp_e2e_source *s, int which, uint16_t *out, int r0, int r1, int cols,
                     mp_err *e)
{
    (void)s;
    if (which == 0) {
        slow_calls++;
        usleep(SLOW_MS * 1000);
    }
    return slow_inner.matrix_rows(&slow_inner, which, out, r0, r1, cols, e);
}

Test(e2e_limit, first_build_setup_counts_the_shared_generation)
{
    mp_model md;
    load(TINY, &md);
    mp_e2e_synthetic(1, &slow_inner);
    mp_e2e_source src = slow_inner;
    src.matrix_rows = slow_rows;
    slow_calls = 0;
    const char *names[2] = {"i2_s.scalar", "f32.scalar"};
    mp_e2e_config cfg[2];
    memset(cfg, 0, sizeof cfg);
    for (int c = 0; c < 2; c++) {
        const mp_variant *v = mp_registry_find(names[c]);
        cr_assert(v, "%s missing", names[c]);
        for (int i = 0; i < MP_E2E_NLIN; i++) {
            cfg[c].lin[i].v = v;
            mp_variant_defaults(v, cfg[c].lin[i].param);
        }
        snprintf(cfg[c].label, sizeof cfg[c].label, "%s", v->name);
        snprintf(cfg[c].method, sizeof cfg[c].method, "%s", v->method);
    }
    mp_e2e_job o = {.layers = md.layers, .threads = 1, .reps = 1, .seed = 1, .pp = 0, .tg = 2,
                    .nbatch = 1, .batch = {1}, .quiet = 1, .src = &src};
    char bind[256];
    mp_pool *pool = mp_pool_create(1, bind, sizeof bind);
    mp_e2e_row rows[2];
    int n = 0;
    mp_err e;
    int rc = mp_e2e_run_perf(&o, &md, pool, cfg, 2, rows, &n, &e);
    mp_pool_destroy(pool);
    cr_assert_eq(rc, MP_OK, "%s", e.msg);
    cr_assert_eq(n, 2);
    /* generated once, by the share, before the first build */
    cr_assert_eq(slow_calls, 1, "embedding generated %d times", (int)slow_calls);
    cr_expect_geq(rows[0].setup_s, SLOW_MS / 1000.0,
                  "first build's setup %.3f s leaves out the shared generation", rows[0].setup_s);
    cr_expect_gt(rows[1].setup_s, 0);
}

/* ---- head formats -------------------------------------------------------------------- */
Test(e2e_limit, head_formats_round_within_their_step)
{
    enum { H = 1056 }; /* 33 blocks: two interleaved groups and a plain block */
    float x[H], y[H];
    uint16_t b[H];
    uint8_t q[H * 2];
    mp_gen_acts(3, x, H);
    x[5] = -40.0f; /* an outlier: the block's extreme is negative */
    x[1040] = -40.0f; /* and in the plain block */
    for (int i = 0; i < H; i++) {
        uint32_t u;
        memcpy(&u, &x[i], 4);
        b[i] = (uint16_t)(u >> 16); /* truncation is fine: any bf16 values */
        u = (uint32_t)b[i] << 16;
        memcpy(&x[i], &u, 4);
    }
    const mp_e2e_head_fmt fm[3] = {MP_E2E_HEAD_F16, MP_E2E_HEAD_Q8_0, MP_E2E_HEAD_Q4_0};
    const size_t bytes[3] = {2 * H, H / 32 * 34, H / 32 * 18};
    for (int f = 0; f < 3; f++) {
        cr_assert_eq(mp_e2e_head_row_bytes(fm[f], H), bytes[f]);
        mp_e2e_head_from_bf16(fm[f], b, H, q);
        mp_e2e_head_row_f32(fm[f], q, H, y);
        for (int blk = 0; blk < H / 32; blk++) {
            float amax = 0;
            for (int i = 0; i < 32; i++)
                amax = fmaxf(amax, fabsf(x[blk * 32 + i]));
            /* step of the block (before the scale's bf16 rounding, 1/128 relative) */
            double step = f == 1 ? amax / 127.0 : amax / 8.0;
            double tol = f == 0 ? 0 : (f == 1 ? 0.5 : 1.0) * step * 1.01 + 1e-7;
            for (int i = 0; i < 32; i++) {
                double d = fabs((double)y[blk * 32 + i] - x[blk * 32 + i]);
                cr_assert_leq(d, tol, "%s: weight %d is %g, was %g (block step %g)",
                              mp_e2e_head_name(fm[f]), blk * 32 + i, y[blk * 32 + i],
                              x[blk * 32 + i], step);
            }
        }
    }
    /* the exact outlier is representable: q4_0 maps the negative extreme to -8 */
    mp_e2e_head_from_bf16(MP_E2E_HEAD_Q4_0, b, H, q);
    mp_e2e_head_row_f32(MP_E2E_HEAD_Q4_0, q, H, y);
    cr_assert_float_eq(y[5], x[5], fabsf(x[5]) / 64, "outlier %g -> %g", x[5], y[5]);
    cr_assert_float_eq(y[1040], x[1040], fabsf(x[1040]) / 64, "outlier %g -> %g", x[1040],
                       y[1040]);
    mp_e2e_head_fmt hf;
    cr_assert_eq(mp_e2e_head_parse("q4_1", &hf), -1);
    cr_assert_eq(mp_e2e_head_cols_ok(MP_E2E_HEAD_Q8_0, 100), 0);
}

/* ---- the profile ------------------------------------------------------------------------
 * The groups are differences of one monotonic clock over non-overlapping steps
 * of each forward call, "sync" is each pool task's wall time minus the threads'
 * mean busy time, and "other" is the rest of the timed interval, so the parts
 * add up to the measured time exactly; the stored text keeps 4 significant
 * digits per part, so the sum may differ by at most 11 x 5e-4 relative of the
 * largest part - 1e-3 of the total is a safe bound.  A part counted twice shows
 * up as a negative "other", which the test refuses. */
static double parse_profile(const char *p, double *parts, int *n)
{
    double sum = 0, v;
    char name[32];
    *n = 0;
    for (const char *it = p; it && sscanf(it, "%31[^=]=%lf", name, &v) == 2;
         it = strchr(it, ','), it = it ? it + 1 : NULL) {
        cr_assert_str_eq(name, mp_e2e_prof_name[*n], "part %d is %s", *n, name);
        parts[(*n)++] = v;
        sum += v;
    }
    return sum;
}

Test(e2e_limit, profile_parts_add_up)
{
    char dir[64], db[128], cmd[512];
    mp_test_scratch(dir, sizeof dir, db, sizeof db, "e2el", "p.db");
    snprintf(cmd, sizeof cmd, "e2e --model " TINY " --variant 'i2_s.scalar,tl1_1.scalar*' "
                              "--pp 6 --tg 5 --batch 1,2 --reps 3 --threads 2 --profile --db %s",
             db);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
    cr_assert(strstr(out, "profile i2_s.scalar tg5 (ms/token, share): qkv"), "%s", out);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(h, "SELECT variant, test, profile, times_s, n_prompt, n_gen,"
                                       " batch, reps, bound_tps, bound_share FROM e2e", -1, &st,
                                    NULL), SQLITE_OK);
    int rows = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *var = (const char *)sqlite3_column_text(st, 0);
        const char *test = (const char *)sqlite3_column_text(st, 1);
        const char *prof = (const char *)sqlite3_column_text(st, 2);
        const char *times = (const char *)sqlite3_column_text(st, 3);
        cr_assert(prof && times, "%s %s: no profile", var, test);
        double total = 0;
        for (const char *t = times; t; t = strchr(t, ','), t = t ? t + 1 : NULL)
            total += atof(t);
        int pp = sqlite3_column_int(st, 4), tg = sqlite3_column_int(st, 5);
        int b = sqlite3_column_int(st, 6), reps = sqlite3_column_int(st, 7);
        double tokens = (pp ? pp : (double)tg * b) * reps;
        double parts[MP_E2E_NPROF];
        int n;
        double sum = parse_profile(prof, parts, &n) * tokens;
        cr_assert_eq(n, MP_E2E_NPROF, "%s %s: %s", var, test, prof);
        double back[MP_E2E_NPROF]; /* the report's reader gives the same parts */
        cr_assert_eq(mp_e2e_profile_parse(prof, back), MP_E2E_NPROF, "%s", prof);
        for (int g = 0; g < n; g++)
            cr_assert_eq(back[g], parts[g], "%s %s: part %s", var, test, mp_e2e_prof_name[g]);
        for (int g = 0; g < n; g++)
            cr_assert_geq(parts[g], 0.0, "%s %s: part %s is negative: %s", var, test,
                          mp_e2e_prof_name[g], prof);
        for (int g = MP_E2E_P_QKV; g <= MP_E2E_P_FFN_DOWN; g++)
            cr_assert_gt(parts[g], 0.0, "%s %s: no time in %s", var, test, mp_e2e_prof_name[g]);
        cr_assert_gt(parts[MP_E2E_P_LM_HEAD], 0.0);
        cr_assert(fabs(sum - total) <= 1e-3 * total, "%s %s: parts add to %.6g s, measured "
                  "%.6g s", var, test, sum, total);
        /* every row has its bound and share */
        cr_assert_gt(sqlite3_column_double(st, 8), 0.0, "%s %s: no bound", var, test);
        cr_assert_gt(sqlite3_column_double(st, 9), 0.0, "%s %s: no share", var, test);
        rows++;
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    cr_assert_geq(rows, 2 * 3, "rows: %d", rows);
}

/* The stored profile's reader (the report's section 2a): groups by name, in any
 * order, any subset; an unknown group or a bad number is refused whole. */
Test(e2e_limit, profile_text_reader_refuses_what_it_cannot_name)
{
    double sec[MP_E2E_NPROF];
    cr_assert_eq(mp_e2e_profile_parse("", sec), 0);
    cr_assert_eq(mp_e2e_profile_parse("lm_head=0.025,qkv=3e-3", sec), 2);
    cr_assert_eq(sec[MP_E2E_P_LM_HEAD], 0.025);
    cr_assert_eq(sec[MP_E2E_P_QKV], 3e-3);
    cr_assert_eq(sec[MP_E2E_P_O], 0.0, "a group not named is 0");
    static const char *const bad[] = {"qkv", "qkv=", "qkv=x", "qkv=1;o=2", "qk=1",
                                      "qkvv=1", "qkv=1,", "=1", "qkv=1,,o=2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(mp_e2e_profile_parse(bad[i], sec), -1, "'%s' accepted", bad[i]);
}

/* ---- the prefill bound's GEMMs alone ------------------------------------------------------ */
/* The alone pass runs the head on its rows: every logit written, and the argmax
 * of the row is the head's token; out-of-range arguments give 0, not a run. */
Test(e2e_limit, gemms_alone_run_the_heads_row)
{
    char bind[256];
    mp_pool *pool = mp_pool_create(2, bind, sizeof bind);
    mp_model md;
    load(TINY, &md);
    mp_e2e_spec s = spec_for(&md, mp_registry_find("i2_s.scalar"), 2);
    mp_err e;
    mp_e2e *m;
    cr_assert_eq(mp_e2e_create(&s, pool, &m, &e), MP_OK, "%s", e.msg);
    int V = mp_e2e_vocab(m);
    float *logits = mp_alloc(sizeof(float) * V * 2);
    for (int i = 0; i < 2 * V; i++)
        logits[i] = NAN;
    cr_assert_gt(mp_e2e_gemm_seconds(m, 4, 0, NULL), 0.0);
    cr_assert(isnan(logits[0]), "no head rows asked, none written");
    cr_assert_gt(mp_e2e_gemm_seconds(m, 4, 2, logits), 0.0);
    for (int j = 0; j < 2; j++) {
        for (int i = 0; i < V; i++)
            cr_assert(isfinite(logits[(size_t)j * V + i]), "row %d logit %d not written", j, i);
        cr_assert_eq(mp_e2e_tokens(m)[j], mp_e2e_argmax(logits + (size_t)j * V, V));
    }
    cr_assert_eq(mp_e2e_gemm_seconds(m, 4, 5, logits), 0.0, "more head rows than tokens");
    cr_assert_eq(mp_e2e_gemm_seconds(m, 4, 1, NULL), 0.0, "head rows without a logits buffer");
    cr_assert_eq(mp_e2e_gemm_seconds(m, 0, 0, NULL), 0.0, "no tokens");
    mp_free(logits);
    mp_e2e_free(m);
    mp_pool_destroy(pool);
}

/* ---- the packed-weight cache ------------------------------------------------------------ */
static void build(const mp_e2e_spec *s, mp_pool *pool, float *logits, mp_e2e_setup *su)
{
    mp_err e;
    mp_e2e *m;
    cr_assert_eq(mp_e2e_create(s, pool, &m, &e), MP_OK, "%s", e.msg);
    *su = *mp_e2e_setup_info(m);
    int tok[5] = {3, 1, 4, 1, 5}, seq[5] = {0};
    cr_assert_eq(mp_e2e_forward(m, tok, seq, 5, NULL, logits), MP_OK);
    mp_e2e_free(m);
}

static void poke(const char *path, long off, int whence, const char *bytes, size_t n)
{
    FILE *f = fopen(path, "r+b");
    cr_assert(f, "%s", path);
    cr_assert_eq(fseek(f, off, whence), 0);
    cr_assert_eq(fwrite(bytes, 1, n, f), n);
    fclose(f);
}

Test(e2e_limit, weight_cache_detects_stale_and_corrupt_files)
{
    char dir[64], bind[64];
    mp_test_tmpdir(dir, sizeof dir, "e2el");
    mp_pool *pool = mp_pool_create(2, bind, sizeof bind);
    mp_model md;
    load(TINY, &md);
    const mp_variant *v = mp_registry_find("tl2_1.scalar.bm32");
    cr_assert(v);
    mp_e2e_spec s = spec_for(&md, v, 2);
    size_t L = (size_t)5 * md.vocab;
    float *ref = mp_alloc(sizeof(float) * L), *got = mp_alloc(sizeof(float) * L);
    mp_e2e_setup su;
    build(&s, pool, ref, &su); /* no cache */
    cr_assert_eq(su.cache_hit + su.cache_miss + su.cache_written, 0);
    s.cache_dir = dir;
    build(&s, pool, got, &su); /* first: miss, written */
    cr_assert_eq(su.cache_miss, MP_E2E_NLIN);
    cr_assert_eq(su.cache_written, MP_E2E_NLIN);
    cr_assert(!memcmp(ref, got, sizeof(float) * L));
    build(&s, pool, got, &su); /* then: every linear from the cache */
    cr_assert_eq(su.cache_hit, MP_E2E_NLIN, "hits %d", su.cache_hit);
    cr_assert_eq(su.cache_written, 0);
    cr_assert(!memcmp(ref, got, sizeof(float) * L), "weights from the cache differ");

    /* the file of linear "down" */
    char ident[512], key[64], path[4096];
    snprintf(ident, sizeof ident, "%s|synthetic|seed=5|%s||down|tern", md.name, v->name);
    (void)key;
    mp_e2e_cache_path(dir, ident, path, sizeof path);
    cr_assert_eq(access(path, R_OK), 0, "no cache file %s", path);

    /* corrupt: one byte of the payload flipped */
    poke(path, -7, SEEK_END, "\x5a", 1);
    build(&s, pool, got, &su);
    cr_assert_eq(su.cache_corrupt, 1, "a flipped payload byte must be detected");
    cr_assert_eq(su.cache_hit, MP_E2E_NLIN - 1);
    cr_assert_eq(su.cache_written, 1, "and the file rebuilt");
    cr_assert(strstr(su.cache_note, "checksum"), "%s", su.cache_note);
    cr_assert(!memcmp(ref, got, sizeof(float) * L), "a corrupt cache file was used");
    build(&s, pool, got, &su);
    cr_assert_eq(su.cache_hit, MP_E2E_NLIN, "rebuilt file not used");

    /* stale: the key inside names another build */
    FILE *f = fopen(path, "rb");
    char head[512];
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    char *b = memmem(head, n, "build=", 6);
    cr_assert(b);
    poke(path, (long)(b - head) + 6, SEEK_SET, "#", 1);
    build(&s, pool, got, &su);
    cr_assert_eq(su.cache_stale, 1, "a key of another build must be detected");
    cr_assert_eq(su.cache_written, 1);
    cr_assert(!memcmp(ref, got, sizeof(float) * L), "a stale cache file was used");

    /* truncated */
    cr_assert_eq(truncate(path, 100), 0);
    build(&s, pool, got, &su);
    cr_assert_eq(su.cache_corrupt, 1, "a truncated file must be detected");
    cr_assert(!memcmp(ref, got, sizeof(float) * L));

    /* another seed is another file, never this one */
    s.seed = 6;
    build(&s, pool, got, &su);
    cr_assert_eq(su.cache_miss, MP_E2E_NLIN);
    cr_assert(memcmp(ref, got, sizeof(float) * L), "another seed gave the same logits");

    /* the command: a stale file is reported and rebuilt */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "e2e --model " TINY " --variant tl2_1.scalar.bm32 --seed 5 --pp 4 "
                              "--tg 2 --reps 1 --no-db --weight-cache %s", dir);
    poke(path, (long)(b - head) + 6, SEEK_SET, "%", 1);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
    cr_assert(strstr(out, "weight cache:") && strstr(out, "stale"), "%s", out);
    mp_free(ref);
    mp_free(got);
    mp_pool_destroy(pool);
}

/* ---- the decode bound's bandwidth -------------------------------------------------------- */
/* The tg2 row of this seed: its column col (bw_gbs: the bound's read; bw_row_gbs:
 * the reads at the row), -1 when there is no row, 0 for NULL. */
static double tg_col(const char *db, int seed, const char *col)
{
    sqlite3 *h;
    sqlite3_stmt *st;
    double bw = -1;
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT %s FROM e2e WHERE test = 'tg2' AND seed = ?", col);
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
    sqlite3_bind_int(st, 1, seed);
    if (sqlite3_step(st) == SQLITE_ROW)
        bw = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return bw;
}

static double tg_bw(const char *db, int seed)
{
    return tg_col(db, seed, "bw_gbs");
}

/* Whether the tg2 row of this seed gives a reason holding what. */
static int tg_reason_has(const char *db, int seed, const char *what)
{
    sqlite3 *h;
    sqlite3_stmt *st;
    int has = 0;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(h, "SELECT reason FROM e2e WHERE test = 'tg2' AND seed = ?",
                                    -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
    sqlite3_bind_int(st, 1, seed);
    if (sqlite3_step(st) == SQLITE_ROW) {
        const char *r = (const char *)sqlite3_column_text(st, 0);
        has = r && strstr(r, what);
        if (!has)
            fprintf(stderr, "reason: %s\n", r ? r : "(null)");
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    return has;
}

/* Without a stored probe the bound's bandwidth is the best of reads made now
 * (before the row and beside each decode step); with one, the better of the
 * probe's and the reads before the row, none beside the steps.  A probe below
 * any reading is not taken; one above all of them is.  The reason says which.
 * The row also keeps its own reads' best (bw_row_gbs), never the probe's. */
Test(e2e_limit, decode_bound_is_the_best_read_of_the_probe_and_the_row)
{
    char dir[64], db[128], cmd[256];
    mp_test_scratch(dir, sizeof dir, db, sizeof db, "e2el", "bw.db");
    snprintf(cmd, sizeof cmd, "e2e --model " TINY " --variant i2_s.scalar --pp 0 --tg 2 --reps 1 "
                              "--seed 3 --db %s", db);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
    double now = tg_bw(db, 3);
    cr_assert_gt(now, 0.0, "measured now: %g", now);
    cr_assert(tg_reason_has(db, 3, " and 2 beside its steps "),
              "not one read beside each of the 2 steps");
    /* a probe run of this machine: first a read bandwidth below any reading */
    static const double probe[2] = {0.625, 1e6};
    for (int i = 0; i < 2; i++) {
        sqlite3 *h;
        char sql[512];
        snprintf(sql, sizeof sql,
                 "INSERT INTO runs(machine_id,kind,status) "
                 "SELECT machine_id,'probe','ok' FROM runs LIMIT 1;"
                 "INSERT INTO probe(run_id,kind,threads,bytes,value,unit) "
                 "VALUES(last_insert_rowid(),'read_DRAM',1,1073741824,%.17g,'GB/s');",
                 probe[i]);
        cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
        cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
        sqlite3_close(h);
        snprintf(cmd, sizeof cmd, "e2e --model " TINY " --variant i2_s.scalar --pp 0 --tg 2 "
                                  "--reps 1 --seed %d --db %s", 4 + i, db);
        cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
        cr_assert(tg_reason_has(db, 4 + i, "bound: best read "));
        cr_assert(tg_reason_has(db, 4 + i, " of the stored probe's "));
        cr_assert(!tg_reason_has(db, 4 + i, "beside"), "reads beside the steps with a probe");
    }
    cr_assert_gt(tg_bw(db, 4), 0.625, "a stored probe below the reads made now was taken");
    cr_assert_eq(tg_bw(db, 5), 1e6, "a stored probe above the reads made now was not taken");
    /* the reads at the row: the bound's own where the reads were its best, the
     * reads (not the probe's 1e6) where the probe was */
    cr_assert_eq(tg_col(db, 3, "bw_row_gbs"), now, "without a probe the row's read is the bound's");
    cr_assert_eq(tg_col(db, 4, "bw_row_gbs"), tg_bw(db, 4));
    double r5 = tg_col(db, 5, "bw_row_gbs");
    cr_assert(r5 > 0 && r5 < 1e6, "the row's read with a probe above it: %g", r5);
}

/* A row above its bound shows the bound wrong: marked, said, never clamped. */
Test(e2e_limit, a_row_above_its_bound_is_marked_not_clamped)
{
    mp_e2e_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.status, sizeof r.status, "ok");
    snprintf(r.reason, sizeof r.reason, "bound: best read 29.00 GB/s");
    r.n_gen = 16, r.tps_median = 9.79, r.bound_tps = 7.46, r.bound_share = 9.79 / 7.46;
    mp_e2e_bound_verdict(&r);
    cr_assert_str_eq(r.status, "unstable");
    cr_assert(strstr(r.reason, "rate 131% of its bound: the bound's reads ran slower"), "%s",
              r.reason);
    cr_assert(strstr(r.reason, "; bound: best read 29.00 GB/s"), "the earlier reason kept: %s",
              r.reason);
    cr_assert_eq(r.tps_median, 9.79, "the rate clamped");
    cr_assert_eq(r.bound_tps, 7.46, "the bound moved");
    /* a prefill row: said, its status kept (its bound is a component's time) */
    memset(&r, 0, sizeof r);
    snprintf(r.status, sizeof r.status, "ok");
    r.n_prompt = 128, r.tps_median = 60, r.bound_tps = 58, r.bound_share = 60.0 / 58;
    mp_e2e_bound_verdict(&r);
    cr_assert_str_eq(r.status, "ok");
    cr_assert(strstr(r.reason, "rate 103% of its bound: the bound's GEMMs alone ran slower"),
              "%s", r.reason);
    cr_assert_eq(r.tps_median, 60, "the rate clamped");
    /* at or below it: nothing changes */
    r.bound_share = 1.0;
    snprintf(r.status, sizeof r.status, "ok");
    snprintf(r.reason, sizeof r.reason, "x");
    mp_e2e_bound_verdict(&r);
    cr_assert_str_eq(r.status, "ok");
    cr_assert_str_eq(r.reason, "x");
}

/* ---- bad input ------------------------------------------------------------------------ */
Test(e2e_limit, bad_input_exit_2)
{
    cr_assert_eq(mp_test_cli(out, sizeof out, "e2e --model " TINY " --variant i2_s.scalar "
                             "--lm-head q5_k --no-db"), 2, "%s", out);
    cr_assert(strstr(out, "--lm-head: 'q5_k'"), "%s", out);
    cr_assert_eq(mp_test_cli(out, sizeof out, "e2e --lossless --model " TINY " --variant "
                             "i2_s.scalar --profile --no-db"), 2, "%s", out);
    cr_assert(strstr(out, "--profile"), "%s", out);
    cr_assert_eq(mp_test_cli(out, sizeof out, "e2e --model " TINY " --variant i2_s.scalar "
                             "--weight-cache '' --no-db"), 2, "%s", out);
}

/* ---- a database of the schema before the issue-17 columns --------------------------------- */
Test(e2e_limit, opens_a_database_without_the_bound_columns)
{
    int mig = 0; /* the migration that adds them (its number may change when merged) */
    for (int v = 1; v <= MP_SCHEMA_VERSION; v++)
        if (strstr(mp_schema_migrations[v - 1], "ADD COLUMN bound_share"))
            mig = v;
    cr_assert_gt(mig, 0);
    char dir[64], db[128], sql[512];
    mp_test_scratch(dir, sizeof dir, db, sizeof db, "e2el", "old.db");
    sqlite3 *h = mp_test_schema(db, mp_schema_migrations, mig - 1);
    snprintf(sql, sizeof sql,
             "INSERT INTO meta VALUES('schema_version','%d');"
             "INSERT INTO machines(id,fingerprint) VALUES(1,'old-machine');"
             "INSERT INTO runs(id,machine_id,kind,status) VALUES(1,1,'e2e','ok');"
             "INSERT INTO e2e(run_id,model,variant,test,threads,status,tps_median) "
             "VALUES(1,'tiny','i2_s.avx2','tg16',1,'ok',12.5);", mig - 1);
    cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
    sqlite3_close(h);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "e2e --model " TINY " --variant i2_s.scalar --pp 4 --tg 2 --reps 1 "
                              "--profile --db %s", db);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(h, "SELECT sum(profile IS NULL), sum(profile IS NOT NULL AND "
                                       "bound_share > 0 AND lm_head = 'f16'), count(*) FROM e2e",
                                    -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    cr_assert_eq(sqlite3_column_int(st, 0), 1, "the old row, without a profile");
    cr_assert_eq(sqlite3_column_int(st, 1), 2, "pp4 and tg2 with profile and bound");
    cr_assert_eq(sqlite3_column_int(st, 2), 3);
    sqlite3_finalize(st);
    sqlite3_close(h);
}

/* ---- the head's dot products ---------------------------------------------------------
 * An oracle written from the arithmetic e2e-head-simd.h documents, in plain
 * scalar C: f16 rows in four 16-lane accumulators (even/odd elements of each
 * 64-step), q rows as exact integer block sums of the codes the format
 * defines times llama.cpp's q8_0 quantization of x, block partials in lane
 * b % 16.  Every ISA copy the CPU runs must give its bits exactly, for every
 * row count (the AVX-512 copies take four f16 rows at a time) and for widths
 * with and without whole 16-block groups and 32-element tails. */
static float bf(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint16_t to_bf(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

static float oracle_f16(const uint16_t *w, const float *x, int cols)
{
    float a[4][16] = {{0}};
    int nfull = cols / 32 * 32, i = 0;
    for (; i < nfull; i += 32) {
        /* the second half of a 64-step goes to a2/a3; the first half, or a
         * lone last 32-step, to a0/a1 */
        int s = i % 64 == 32 ? 2 : 0;
        for (int l = 0; l < 16; l++) {
            a[s][l] = fmaf(bf(w[i + 2 * l]), x[i + 2 * l], a[s][l]);
            a[s + 1][l] = fmaf(bf(w[i + 2 * l + 1]), x[i + 2 * l + 1], a[s + 1][l]);
        }
    }
    float r = 0;
    for (int l = 0; l < 16; l++)
        r += (a[0][l] + a[1][l]) + (a[2][l] + a[3][l]);
    for (; i < cols; i++)
        r += x[i] * bf(w[i]);
    return r;
}

/* The format's codes and scale of one 32-block (e2e-head.c's comment). */
static void oracle_block(mp_e2e_head_fmt f, const uint16_t *src, int *code, float *d)
{
    float amax = 0, ext = 0;
    for (int i = 0; i < 32; i++)
        if (fabsf(bf(src[i])) > amax)
            amax = fabsf(bf(src[i])), ext = bf(src[i]);
    *d = bf(to_bf(f == MP_E2E_HEAD_Q8_0 ? amax / 127.0f : ext / -8.0f));
    float id = *d != 0 ? 1.0f / *d : 0;
    for (int i = 0; i < 32; i++) {
        int q = (int)roundf(bf(src[i]) * id);
        int lo = f == MP_E2E_HEAD_Q8_0 ? -127 : -8, hi = f == MP_E2E_HEAD_Q8_0 ? 127 : 7;
        code[i] = q < lo ? lo : q > hi ? hi : q;
    }
}

static float oracle_q(mp_e2e_head_fmt f, const uint16_t *w, const float *x, int cols,
                      double *err_bound)
{
    float acc[16] = {0};
    double bound = 0;
    for (int b = 0; b < cols / 32; b++) {
        int code[32], xq[32], isum = 0;
        float d;
        oracle_block(f, w + 32 * b, code, &d);
        float amax = 0;
        for (int i = 0; i < 32; i++)
            amax = fmaxf(amax, fabsf(x[32 * b + i]));
        float dx = amax / 127.0f, id = dx != 0 ? 1.0f / dx : 0;
        double wabs = 0;
        for (int i = 0; i < 32; i++) {
            xq[i] = (int)roundf(x[32 * b + i] * id);
            isum += code[i] * xq[i];
            wabs += fabs((double)code[i] * d);
        }
        acc[b % 16] += (float)isum * (d * dx);
        bound += wabs * dx * 0.5;
    }
    float r = 0;
    for (int l = 0; l < 16; l++)
        r += acc[l];
    *err_bound = bound;
    return r;
}

Test(e2e_limit, head_dot_products_match_the_oracle_on_every_isa)
{
    enum { MAXC = 4128, MAXR = 9 };
    static const char *const isa[] = {"generic", "avx2", "avx512", "avx512vnni"};
    static const int cols[] = {1, 15, 31, 32, 33, 63, 64, 65, 100, 480, 512, 544, 1056, 2560,
                               4128};
    uint16_t *w = mp_alloc(sizeof(uint16_t) * MAXC * MAXR);
    uint8_t *rows = mp_alloc(sizeof(uint16_t) * MAXC * MAXR);
    float *x = mp_alloc(sizeof(float) * MAXC), *y = mp_alloc(sizeof(float) * MAXC);
    float got[MAXR];
    void *px = mp_alloc(mp_e2e_head_prep_bytes(MP_E2E_HEAD_F16, MAXC));
    float *wf = mp_alloc(sizeof(float) * MAXC * MAXR);
    mp_gen_acts(8, x, MAXC);
    mp_gen_acts(9, wf, (size_t)MAXC * MAXR);
    for (int i = 0; i < MAXC * MAXR; i++)
        w[i] = to_bf(wf[i] * 0.05f);
    x[7] = 31.0f; /* an outlier, as hidden states have */
    int copies = 0, cases = 0;
    for (size_t c = 0; c < sizeof isa / sizeof isa[0]; c++) {
        mp_e2e_head_rows_fn fn = mp_e2e_head_rows_isa(isa[c]);
        if (!fn) {
            cr_log_info("head copy %s: not run by this CPU or build (skipped)", isa[c]);
            continue;
        }
        copies++;
        for (int f = 0; f < 3; f++)
            for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) {
                int C = cols[k];
                if (!mp_e2e_head_cols_ok((mp_e2e_head_fmt)f, C))
                    continue;
                size_t rb = mp_e2e_head_row_bytes((mp_e2e_head_fmt)f, C);
                for (int r = 0; r < MAXR; r++)
                    mp_e2e_head_from_bf16((mp_e2e_head_fmt)f, w + (size_t)r * C, C,
                                          rows + r * rb);
                cr_assert_leq(mp_e2e_head_prep_bytes((mp_e2e_head_fmt)f, C),
                              mp_e2e_head_prep_bytes(MP_E2E_HEAD_F16, MAXC));
                mp_e2e_head_prep((mp_e2e_head_fmt)f, x, C, px);
                for (int n = 1; n <= MAXR; n += (n < 5 ? 1 : 4)) {
                    for (int r = 0; r < MAXR; r++)
                        got[r] = NAN;
                    fn((mp_e2e_head_fmt)f, rows, n, C, px, got);
                    for (int r = 0; r < MAXR; r++) {
                        if (r >= n) {
                            cr_assert(isnan(got[r]), "%s wrote past %d rows", isa[c], n);
                            continue;
                        }
                        double bound = 0;
                        const uint16_t *wr = w + (size_t)r * C;
                        float want = f == 0 ? oracle_f16(wr, x, C)
                                            : oracle_q((mp_e2e_head_fmt)f, wr, x, C, &bound);
                        cr_assert(!memcmp(&want, &got[r], 4), "head %s, %s, cols %d, row %d "
                                  "of %d: %.9g, oracle %.9g", isa[c],
                                  mp_e2e_head_name((mp_e2e_head_fmt)f), C, r, n, got[r], want);
                        cases++;
                        if (f == 0 || n > 1)
                            continue;
                        /* q: within the rounding of x to int8 of the float dot
                         * product with the stored weights (plus float slack) */
                        mp_e2e_head_row_f32((mp_e2e_head_fmt)f, rows + r * rb, C, y);
                        double exact = 0, mag = 0;
                        for (int i = 0; i < C; i++)
                            exact += (double)y[i] * x[i], mag += fabs((double)y[i] * x[i]);
                        cr_assert_leq(fabs(got[r] - exact), bound + 1e-5 * mag + 1e-6,
                                      "%s cols %d: %g vs the float dot %g (bound %g)",
                                      mp_e2e_head_name((mp_e2e_head_fmt)f), C, got[r], exact,
                                      bound);
                    }
                }
            }
    }
    cr_assert_gt(copies, 0);
    cr_assert_gt(cases, 1000);
    mp_free(w);
    mp_free(rows);
    mp_free(x);
    mp_free(y);
    mp_free(px);
    mp_free(wf);
}

/* The attention loops' documented arithmetic (harness/e2e-attn-simd.h), written
 * as plain scalar loops: 16 lanes over whole 16-blocks, the lane tree, the tail
 * in order, then the scale; the mix as o[d] = fma(p[j], v_j[d], o[d]) from 0 for
 * j in order.  Every product is fused into its sum (fmaf, one rounding). */
static float oracle_score(const float *q, const float *k, int hd, float scale)
{
    float l[16] = {0}, t = 0.0f;
    int nb = hd / 16;
    for (int b = 0; b < nb; b++)
        for (int i = 0; i < 16; i++)
            l[i] = fmaf(q[16 * b + i], k[16 * b + i], l[i]);
    for (int w = 8; w; w /= 2)
        for (int i = 0; i < w; i++)
            l[i] += l[i + w];
    for (int d = 16 * nb; d < hd; d++)
        t = fmaf(q[d], k[d], t);
    return (l[0] + t) * scale;
}

Test(e2e_limit, attention_loops_match_their_order_on_every_isa)
{
    static const char *const isa[] = {"generic", "avx2", "avx512"};
    static const int hds[] = {1, 15, 16, 17, 64, 100, 128, 144, 259};
    static const int keys[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 24, 29, 33, 128}; /* 16 + 8 + 4 + 1 */
    enum { MAXD = 259, MAXK = 128 };
    float *q = mp_alloc(sizeof(float) * MAXD), *kv = mp_alloc(sizeof(float) * MAXD * MAXK);
    float *p = mp_alloc(sizeof(float) * MAXK), *sc = mp_alloc(sizeof(float) * (MAXK + 1));
    float *o = mp_alloc(sizeof(float) * (MAXD + 1));
    mp_gen_acts(21, q, MAXD);
    mp_gen_acts(22, kv, (size_t)MAXD * MAXK);
    mp_gen_acts(23, p, MAXK);
    int copies = 0, cases = 0;
    for (size_t c = 0; c < sizeof isa / sizeof isa[0]; c++) {
        const mp_e2e_attn_copy *a = mp_e2e_attn_isa(isa[c]);
        if (!a) {
            cr_log_info("attention copy %s: not run by this CPU or build (skipped)", isa[c]);
            continue;
        }
        copies++;
        for (size_t h = 0; h < sizeof hds / sizeof hds[0]; h++)
            for (size_t n = 0; n < sizeof keys / sizeof keys[0]; n++) {
                int hd = hds[h], nk = keys[n];
                for (int j = 0; j <= nk; j++)
                    sc[j] = NAN;
                for (int d = 0; d <= hd; d++)
                    o[d] = NAN;
                a->scores(q, kv, hd, nk, 0.125f, sc);
                a->mix(p, kv, hd, nk, o);
                cr_assert(isnan(sc[nk]) && isnan(o[hd]), "%s wrote past its output (hd %d, %d keys)",
                          isa[c], hd, nk);
                for (int j = 0; j < nk; j++) {
                    float want = oracle_score(q, kv + (size_t)j * hd, hd, 0.125f);
                    cr_assert(!memcmp(&want, &sc[j], 4), "scores %s hd %d key %d of %d: %.9g, "
                              "documented order %.9g", isa[c], hd, j, nk, sc[j], want);
                }
                for (int d = 0; d < hd; d++) {
                    float want = 0.0f;
                    for (int j = 0; j < nk; j++)
                        want = fmaf(p[j], kv[(size_t)j * hd + d], want);
                    cr_assert(!memcmp(&want, &o[d], 4), "mix %s hd %d d %d, %d keys: %.9g, "
                              "documented order %.9g", isa[c], hd, d, nk, o[d], want);
                }
                cases++;
            }
    }
    cr_assert_geq(copies, 1);
    cr_assert_eq(cases, copies * (int)(sizeof hds / sizeof hds[0] * sizeof keys / sizeof keys[0]));
    mp_free(q);
    mp_free(kv);
    mp_free(p);
    mp_free(sc);
    mp_free(o);
}

/* The softmax's documented order (e2e-attn-simd.h) as scalar loops; e^x per
 * element through the shared definition on a one-lane vector, which must give
 * every lane of the 16-lane copies the same bits. */
typedef float mp_t1f __attribute__((vector_size(4)));
typedef int32_t mp_t1i __attribute__((vector_size(4)));
MP_E2E_EXP_DEFINE(oracle_exp1, mp_t1f, mp_t1i)

static float oracle_softmax(float *sc, int n)
{
    float mx = -INFINITY, l[16] = {0};
    for (int j = 0; j < n; j++)
        mx = sc[j] > mx ? sc[j] : mx;
    int d0 = n / 16 * 16;
    for (int j = 0; j < n; j++) {
        mp_t1f e = {sc[j] - mx};
        oracle_exp1(&e);
        sc[j] = e[0];
        if (j < d0)
            l[j % 16] += e[0];
    }
    for (int w = 8; w; w /= 2)
        for (int i = 0; i < w; i++)
            l[i] += l[i + w];
    float sum = l[0];
    for (int j = d0; j < n; j++)
        sum += sc[j];
    return sum;
}

Test(e2e_limit, attention_softmax_matches_its_order_on_every_isa)
{
    static const char *const isa[] = {"generic", "avx2", "avx512"};
    static const int lens[] = {1, 2, 3, 15, 16, 17, 31, 32, 33, 100, 128, 129, 300};
    enum { MAXN = 300 };
    float *x = mp_alloc(sizeof(float) * MAXN), *a = mp_alloc(sizeof(float) * (MAXN + 1));
    float *want = mp_alloc(sizeof(float) * MAXN);
    int copies = 0, cases = 0;
    for (int spread = 0; spread < 2; spread++) {
        mp_gen_acts(31 + (uint64_t)spread, x, MAXN);
        for (int j = 0; j < MAXN; j++) /* spread 1: a 200-wide range, exp clamps to 0 */
            x[j] *= spread ? 60.0f : 3.0f;
        for (size_t c = 0; c < sizeof isa / sizeof isa[0]; c++) {
            const mp_e2e_attn_copy *ac = mp_e2e_attn_isa(isa[c]);
            if (!ac)
                continue;
            copies += !spread;
            for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
                int n = lens[i];
                memcpy(a, x, sizeof(float) * (size_t)n);
                memcpy(want, x, sizeof(float) * (size_t)n);
                a[n] = NAN;
                float s = ac->softmax(a, n), ws = oracle_softmax(want, n);
                cr_assert(isnan(a[n]), "softmax %s wrote past n = %d", isa[c], n);
                cr_assert(!memcmp(&s, &ws, 4), "softmax %s n %d: sum %.9g, documented order %.9g",
                          isa[c], n, s, ws);
                for (int j = 0; j < n; j++)
                    cr_assert(!memcmp(&a[j], &want[j], 4), "softmax %s n %d element %d: %.9g, "
                              "oracle %.9g", isa[c], n, j, a[j], want[j]);
                float mx = -INFINITY;
                int at = 0;
                for (int j = 0; j < n; j++)
                    if (x[j] > mx)
                        mx = x[j], at = j;
                cr_assert_eq(a[at], 1.0f, "softmax %s n %d: e^0 at the max", isa[c], n);
                cases++;
            }
        }
    }
    cr_assert_geq(copies, 1);
    cr_assert_eq(cases, 2 * copies * (int)(sizeof lens / sizeof lens[0]));
    mp_free(x);
    mp_free(a);
    mp_free(want);
}
