/* test_tuner.c - the tuner's strategies on a synthetic space with a known
 * optimum, its rank test, its A-B-A rounds on a scripted clock, a real tune
 * whose config parses back, and bad configs. */
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_test.h"
#include "../tuner/mp_search.h"
#include "../tuner/mp_stats.h"
#include "../harness/core/mp_core.h"
#include "../harness/engine/mp_engine.h"
#include "../tuner/mp_tuned.h"
#include "../variants/mp_registry.h"

/* 8 x 8 x 4 = 256 points; separable bowl with its minimum 1.0 at (5, 2, 3). */
static void bowl(void *ctx, const int (*p)[MP_MAX_PARAMS], int count, int effort, double *c)
{
    (void)effort;
    int *calls = ctx;
    for (int i = 0; i < count; i++) {
        double a = p[i][0] - 5, b = p[i][1] - 2, d = p[i][2] - 3;
        c[i] = 1.0 + a * a + 2 * b * b + d * d;
    }
    *calls += count;
}

static mp_space space(void)
{
    mp_space sp = {3, {8, 8, 4}, {{0}}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < sp.size[i]; j++)
            sp.values[i][j] = 10 * j + i;
    return sp;
}

/* rank of a cost among all 256 points (0 = best) */
static int rank_of(double cost)
{
    int r = 0;
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 8; b++)
            for (int d = 0; d < 4; d++) {
                double x = a - 5, y = b - 2, z = d - 3;
                r += 1.0 + x * x + 2 * y * y + z * z < cost;
            }
    return r;
}

/* One search of the bowl from {0, p1, 0} with seed 1; calls counts the cost calls. */
static mp_search_result search_bowl(mp_strategy st, int budget, int p1, int *calls)
{
    mp_space sp = space();
    int start[MP_MAX_PARAMS] = {0, p1, 0};
    mp_search_result r;
    mp_search(&sp, st, budget, start, 1, bowl, calls, &r);
    return r;
}

Test(tuner, exhaustive_finds_the_optimum)
{
    int calls = 0;
    mp_search_result r = search_bowl(MP_EXHAUSTIVE, 0, 0, &calls);
    cr_assert_eq(r.best_cost, 1.0);
    cr_assert(r.best[0] == 5 && r.best[1] == 2 && r.best[2] == 3);
    cr_assert_eq(r.evaluations, 256);
    cr_assert_eq(calls, 256);
}

Test(tuner, halving_finds_the_optimum_on_a_noiseless_cost)
{
    int calls = 0;
    mp_search_result r = search_bowl(MP_HALVING, 0, 0, &calls);
    cr_assert_eq(r.best_cost, 1.0);
    /* 256 + 128 + ... + 1 evaluations */
    cr_assert_eq(r.evaluations, 511);
}

Test(tuner, model_hill_climbs_to_the_optimum)
{
    int calls = 0;
    mp_search_result r = search_bowl(MP_MODEL, 64, 7, &calls);
    cr_assert_eq(r.best_cost, 1.0, "stuck at %g", r.best_cost);
    cr_assert_leq(r.evaluations, 64);
    /* far fewer evaluations than exhaustive: it only looks at neighbours */
    cr_assert_lt(r.evaluations, 64);
}

Test(tuner, random_with_budget_is_within_its_bound)
{
    /* Documented bound: with budget B of S points, the best sample is in the top
     * 5% of the space with probability 1 - 0.95^B (> 96% for B = 64).  The
     * generator is seeded, so each seed's outcome is fixed: check 20 seeds and
     * allow the expected misses (20 * 3.6% -> at most 2). */
    mp_space sp = space();
    int start[MP_MAX_PARAMS] = {0}, misses = 0;
    for (int seed = 1; seed <= 20; seed++) {
        int calls = 0;
        mp_search_result r;
        mp_search(&sp, MP_RANDOM, 64, start, (uint64_t)seed, bowl, &calls, &r);
        cr_assert_eq(r.evaluations, 64);
        misses += rank_of(r.best_cost) > 256 / 20;
    }
    cr_assert_leq(misses, 2, "%d of 20 seeds outside the top 5%%", misses);
}

Test(tuner, mann_whitney)
{
    double a[9], b[9];
    for (int i = 0; i < 9; i++)
        a[i] = 1 + i, b[i] = 11 + i;
    cr_assert_lt(mp_mann_whitney_p(a, 9, b, 9), 0.001, "clearly smaller");
    cr_assert_gt(mp_mann_whitney_p(b, 9, a, 9), 0.999, "clearly larger");
    double p = mp_mann_whitney_p(a, 9, a, 9);
    cr_assert(p > 0.4 && p < 0.7, "same sample: p = %g", p);
    /* interleaved samples: not significant */
    for (int i = 0; i < 9; i++)
        a[i] = 2 * i, b[i] = 2 * i + 1;
    cr_assert_gt(mp_mann_whitney_p(a, 9, b, 9), 0.05);
    cr_assert_eq(mp_median(a, 9), 8.0);
}

/* 10^5 repetitions a side (issue 40: na * nb overflowed int past ~46,341).
 * a = 0, 2, 4, ...; b = 1, 3, 5, ...: no ties, rank sum of a = na^2, so
 * U_a = na (na - 1) / 2 and, against the normal approximation with the
 * continuity correction, z = (0.5 - na / 2) / sqrt(na^2 (2 na + 1) / 12),
 * computed here in long double independently of the code under test. */
Test(tuner, mann_whitney_at_a_hundred_thousand_reps)
{
    enum { NA = 100000 };
    double *a = malloc(sizeof *a * NA), *b = malloc(sizeof *b * NA);
    for (int i = 0; i < NA; i++)
        a[i] = 2.0 * i, b[i] = 2.0 * i + 1;
    long double na = NA;
    long double z = (0.5L - na / 2) / sqrtl(na * na * (2 * na + 1) / 12);
    double want = (double)(0.5L * erfcl(-z / sqrtl(2.0L)));
    double got = mp_mann_whitney_p(a, NA, b, NA);
    cr_assert_float_eq(got, want, 1e-9, "p = %.12f, want %.12f", got, want);
    cr_assert(want > 0.49 && want < 0.5, "the reference: %.6f", want);
    free(a);
    free(b);
}

static char out[65536];

/* ---- the A-B-A rounds (engine/tune.c) on a scripted clock and scripted times.
 * A 1-thread pool reads the clock once per mp_clock_now, so round r reads
 * readings 2r (before) and 2r + 1 (after); while it runs, `readings` is 2r + 1.
 * A round at full speed times A 100 us and B 80 us; a slow one (a reading of
 * 1.0 against 3.0) times B 400 us, so each slow round kept moves B's median. */
static long aba_readings;
static double (*aba_rate)(long k);
static double aba_clock(void)
{
    return aba_rate(aba_readings++);
}
static long aba_round_of(void)
{
    return (aba_readings - 1) / 2;
}
static double aba_time1(void *arg, int which)
{
    (void)arg;
    int slow = aba_rate(2 * aba_round_of()) < 2 || aba_rate(2 * aba_round_of() + 1) < 2;
    return which == 0 ? 100.0 : slow ? 400.0 : 80.0;
}
static double rounds_1_to_3_slow(long k)
{
    return k / 2 >= 1 && k / 2 <= 3 ? 1.0 : 3.0;
}
static double first_3_rounds_slow(long k)
{
    return k / 2 < 3 ? 1.0 : 3.0;
}
static double never_fast_after_the_first_reading(long k)
{
    return k == 0 ? 3.0 : 1.0;
}

static mp_tune_aba aba(double (*rate)(long), double gate, int reps)
{
    char binding[256];
    mp_pool *pool = mp_pool_create(1, binding, sizeof binding);
    aba_readings = 0;
    aba_rate = rate;
    mp_clock_set_source(aba_clock);
    mp_tune_aba r;
    mp_tune_aba_rounds(pool, aba_time1, NULL, reps, gate, &r);
    mp_clock_set_source(NULL);
    mp_pool_destroy(pool);
    return r;
}

Test(tuner, aba_rounds_drop_what_ran_slow)
{
    mp_tune_aba r = aba(rounds_1_to_3_slow, 0.9, 5);
    cr_expect_eq(r.kept, 5);
    cr_expect_eq(r.dropped, 3, "rounds 1-3 ran slow; %d dropped", r.dropped);
    cr_expect_eq(aba_readings, 16, "8 rounds, two readings each (%ld)", aba_readings);
    cr_expect_eq(r.a_median_us, 100.0);
    cr_expect_eq(r.b_median_us, 80.0, "B's median %g: a slow round was kept", r.b_median_us);
}

Test(tuner, aba_rounds_kept_before_full_speed_was_seen_are_dropped)
{
    mp_tune_aba r = aba(first_3_rounds_slow, 0.9, 5);
    cr_expect_eq(r.kept, 5);
    cr_expect_eq(r.dropped, 3);
    cr_expect_eq(r.b_median_us, 80.0, "B's median %g", r.b_median_us);
}

Test(tuner, aba_rounds_never_at_full_speed_keep_nothing)
{
    mp_tune_aba r = aba(never_fast_after_the_first_reading, 0.9, 4);
    cr_expect_eq(r.kept, 0);
    cr_expect_eq(r.dropped, 8 * 4, "at most GATE_TRIES x reps rounds (%d)", r.dropped);
    cr_expect_eq(r.b_median_us, 0.0);
}

Test(tuner, aba_rounds_ungated_read_no_clock_and_keep_every_round)
{
    mp_tune_aba r = aba(rounds_1_to_3_slow, 0, 5);
    cr_expect_eq(aba_readings, 0);
    cr_expect_eq(r.kept, 5);
    cr_expect_eq(r.dropped, 0);
}

Test(tuner, real_tune_exports_a_config_that_parses_back, .timeout = 300)
{
    char dir[] = "/tmp/mptune-XXXXXX", cmd[1024], conf[128], db[128];
    cr_assert(mkdtemp(dir));
    snprintf(conf, sizeof conf, "%s/t.conf", dir);
    snprintf(db, sizeof db, "%s/t.db", dir);
    snprintf(cmd, sizeof cmd, "tune --variant i2_s.avx2 --shape 64x512 --n 1,4 "
                              "--strategy exhaustive --db %s --out %s", db, conf);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
    mp_tuned t;
    mp_err e;
    cr_assert_eq(mp_tuned_load(conf, NULL, 0, &t, e.msg, sizeof e.msg), 0, "%s", e.msg);
    cr_assert_eq(t.count, 2);
    const mp_variant *v = mp_registry_find("i2_s.avx2");
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    for (int n = 1; n <= 4; n += 3) {
        const mp_tuned_entry *x = mp_tuned_find(&t, v, 64, 512, n, 1);
        cr_assert(x, "no entry for n=%d", n);
        cr_assert_eq(x->n, n);
        char ps[128], sql[256];
        mp_params_str(v, x->param, ps, sizeof ps);
        snprintf(sql, sizeof sql, "SELECT chosen_params, evaluations FROM tuned WHERE n=%d", n);
        sqlite3_stmt *st;
        cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
        cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
        cr_assert_str_eq((const char *)sqlite3_column_text(st, 0), ps);
        cr_assert_eq(sqlite3_column_int(st, 1), 20, "exhaustive over the 5 pf x 4 pfh values");
        sqlite3_finalize(st);
    }
    /* every evaluation is stored */
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(h, "SELECT count(*) FROM results", -1, &st, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    cr_assert_eq(sqlite3_column_int(st, 0), 40);
    sqlite3_finalize(st);
    sqlite3_close(h);
    mp_tuned_free(&t);
    snprintf(cmd, sizeof cmd, "tune --report --db %s --format md", db);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
    cr_assert(strstr(out, "| i2_s.avx2 | 64x512 | 4 | 1 | exhaustive |"), "%s", out);
}

/* tune --clock-gate: the search's evaluations keep only calls run at full speed
 * (each stored row has the clock of its kept calls), and a gated tune is not
 * the resume of an ungated one with the same arguments (its own plan key) */
Test(tuner, gated_tune_stores_clocked_evaluations_under_its_own_key, .timeout = 300)
{
    char dir[] = "/tmp/mptune-XXXXXX", cmd[1024], conf[128], db[128];
    cr_assert(mkdtemp(dir));
    snprintf(conf, sizeof conf, "%s/t.conf", dir);
    snprintf(db, sizeof db, "%s/t.db", dir);
    const char *base = "tune --variant i2_s.avx2 --shape 64x512 --n 1 --strategy exhaustive --warm";
    snprintf(cmd, sizeof cmd, "%s --clock-gate 90 --db %s --out %s", base, db, conf);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
    cr_expect_eq(mp_test_query_long(db, "SELECT count(*) FROM results"), 20, "5 pf x 4 pfh");
    cr_expect_eq(mp_test_query_long(db, "SELECT count(*) FROM results WHERE clock_ghz > 0"), 20,
                 "every gated evaluation stores its clock");
    snprintf(cmd, sizeof cmd, "%s --db %s --out %s", base, db, conf);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
    cr_expect_eq(mp_test_query_long(db, "SELECT count(*) FROM results WHERE clock_ghz IS NULL"),
                 20, "the ungated tune measured its own evaluations");
    snprintf(cmd, sizeof cmd, "%s --clock-gate 40 --db %s --out %s", base, db, conf);
    cr_expect_eq(mp_test_cli(out, sizeof out, cmd), 2, "%s", out);
    cr_expect(strstr(out, "--clock-gate"), "the message names the option: %s", out);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
}

Test(tuner, bad_configs_name_the_line)
{
    char dir[] = "/tmp/mptune-XXXXXX", p[128];
    cr_assert(mkdtemp(dir));
    snprintf(p, sizeof p, "%s/c.conf", dir);
    mp_tuned t;
    mp_err e;
    static const struct {
        const char *text, *needle;
    } cases[] = {
        {"i2_s.avx2 64x512 n=1 threads=1 pf=0\n", "c.conf:1: expected 'fingerprint MACHINE'"},
        {"fingerprint fp\ni2_s.avx2 64x512 n=1 pf=0\n", "c.conf:2: malformed line"},
        {"fingerprint fp\n# ok\nnosuch.avx2 64x512 n=1 threads=1 -\n", "c.conf:3: unknown variant 'nosuch.avx2'"},
        {"fingerprint fp\ni2_s.avx2 64x512 n=1 threads=1 zz=1\n", "c.conf:2: variant i2_s.avx2 has no parameter 'zz'"},
        {"fingerprint fp\ni2_s.avx2 64x512 n=1 threads=1 pf=3\n", "c.conf:2: parameter pf=3 is outside the space"},
        {"fingerprint fp\ni2_s.avx2 64x500 n=1 threads=1 pf=0\n", "c.conf:2: i2_s.avx2 cannot take 64x500"},
        {"# nothing\n", "empty"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mp_test_write(p, cases[i].text);
        cr_assert_eq(mp_tuned_load(p, NULL, 0, &t, e.msg, sizeof e.msg), MP_EUSAGE, "case %zu accepted", i);
        cr_assert(strstr(e.msg, cases[i].needle), "case %zu: '%s' lacks '%s'", i, e.msg,
                  cases[i].needle);
    }
    /* a config from another machine is refused unless forced */
    mp_test_write(p, "fingerprint other-machine\ni2_s.avx2 64x512 n=1 threads=1 pf=0\n");
    cr_assert_eq(mp_tuned_load(p, "this-machine", 0, &t, e.msg, sizeof e.msg), MP_EUSAGE);
    cr_assert(strstr(e.msg, "fingerprint mismatch"), "%s", e.msg);
    cr_assert_eq(mp_tuned_load(p, "this-machine", 1, &t, e.msg, sizeof e.msg), MP_OK, "%s", e.msg);
    cr_assert_eq(t.count, 1);
    cr_assert_eq(t.e[0].param[0], 0);
    mp_tuned_free(&t);
    /* the CLI refuses bad strategies and too few repetitions */
    cr_assert_eq(mp_test_cli(out, sizeof out, "tune --variant i2_s.avx2 --shape 64x512 --strategy guess"), 2);
    cr_assert_eq(mp_test_cli(out, sizeof out, "tune --variant i2_s.avx2 --shape 64x512 --strategy random --reps 5"), 2);
    cr_assert(strstr(out, ">= 9"), "%s", out);
}
