/* test_probe.c - how the machine probe reads memory (harness/engine/probe.c,
 * issue 16: its 2-thread figure was below the 1-thread one).
 *
 * A probe that is right reads, in every pass, each thread's own buffer of
 * total / threads bytes, filled (first-touched) by that thread, from that
 * thread's own pinned CPU, with all threads inside their read at the same time.
 * That is what is asserted here, by giving the probe a read loop that records
 * each call instead of timing anything: a speed comparison (2 threads against
 * 1) depends on the machine the tests run on (CI's 2 vCPUs need not have twice
 * one's bandwidth) and belongs in `mpbench probe`, not in a test. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../harness/core/mp_core.h"
#include "../harness/store/mp_probe_store.h"
#include "../harness/engine/mp_engine.h"
#include "../harness/report/mp_output.h"
#include "../kernels/mp_kernel.h"

enum { MAX_CALLS = 64 };

static struct {
    pthread_mutex_t mu;
    int nt, ncalls, serial;
    double wait_s; /* how long a thread waits for the others of its pass */
    atomic_int arrived;
    struct {
        const unsigned char *p;
        size_t n;
        int cpu;
        unsigned char first, last;
    } call[MAX_CALLS];
} rec = {.mu = PTHREAD_MUTEX_INITIALIZER};

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Records the call, then waits (up to rec.wait_s) until every thread of this pass
 * has entered: a pool that ran its threads one after another never gets there. */
static uint64_t recording_read(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i += 4096) /* every page is mapped and readable */
        x += b[i];
    pthread_mutex_lock(&rec.mu);
    if (rec.ncalls < MAX_CALLS) {
        int c = rec.ncalls++;
        rec.call[c].p = b;
        rec.call[c].n = n;
        rec.call[c].cpu = sched_getcpu();
        rec.call[c].first = b[0];
        rec.call[c].last = b[n - 1];
    }
    pthread_mutex_unlock(&rec.mu);
    int k = atomic_fetch_add(&rec.arrived, 1);
    int target = (k / rec.nt + 1) * rec.nt;
    double t0 = seconds();
    while (atomic_load(&rec.arrived) < target)
        if (seconds() - t0 > rec.wait_s) {
            rec.serial = 1;
            break;
        }
    return x;
}

static const mp_probe_ops recording = {.isa = "recording", .read = recording_read};

static void check_probe(int nt, int huge)
{
    const size_t total = (size_t)48 << 20;
    const int reps = 3;
    char binding[512];
    mp_pool *pool = mp_pool_create(nt, binding, sizeof binding);
    rec.nt = nt, rec.ncalls = 0, rec.serial = 0, rec.wait_s = 10;
    atomic_store(&rec.arrived, 0);
    double bw = mp_probe_dram_read_ops(pool, total, reps, huge, &recording);
    mp_pool_destroy(pool);

    cr_assert_gt(bw, 0, "%d threads: no bandwidth reported", nt);
    cr_assert_eq(rec.ncalls, (reps + 1) * nt, "%d threads: %d reads, expected %d (warm-up + %d)",
                 nt, rec.ncalls, (reps + 1) * nt, reps);
    cr_assert_eq(rec.serial, 0, "%d threads: a pass ran its threads one after another", nt);
    size_t per = (total / (size_t)nt) & ~(size_t)255;
    const unsigned char *bufs[8] = {0};
    int cpus[8], fills[8], nb = 0; /* the buffers are freed by now: compare addresses */
    for (int c = 0; c < rec.ncalls; c++) {
        cr_assert_eq(rec.call[c].n, per, "read %d: %zu bytes, expected total / %d = %zu", c,
                     rec.call[c].n, nt, per);
        cr_assert_eq(rec.call[c].first, rec.call[c].last,
                     "read %d: buffer not filled end to end by one thread", c);
        int j = 0;
        while (j < nb && bufs[j] != rec.call[c].p)
            j++;
        if (j == nb) {
            cr_assert_lt(nb, nt, "%d threads read more than %d buffers", nt, nt);
            bufs[nb] = rec.call[c].p, cpus[nb] = rec.call[c].cpu, fills[nb] = rec.call[c].first, nb++;
        } else if (strcmp(binding, "unbound") != 0) {
            cr_assert_eq(rec.call[c].cpu, cpus[j],
                         "buffer %d read from cpu %d, then from cpu %d: threads not pinned (%s)",
                         j, cpus[j], rec.call[c].cpu, binding);
        }
    }
    cr_assert_eq(nb, nt, "%d threads read %d distinct buffers", nt, nb);
    for (int i = 0; i < nb; i++)
        for (int j = i + 1; j < nb; j++) {
            cr_assert(bufs[i] + per <= bufs[j] || bufs[j] + per <= bufs[i],
                      "buffers %d and %d overlap", i, j);
            cr_assert_neq(fills[i], fills[j],
                          "buffers %d and %d hold the same fill: not each thread's own", i, j);
            /* distinct CPUs whenever the pool could pin to distinct ones */
            cpu_set_t set;
            if (strcmp(binding, "unbound") != 0 &&
                sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) >= nt)
                cr_assert_neq(cpus[i], cpus[j], "threads %d and %d share cpu %d (%s)", i, j,
                              cpus[i], binding);
        }
}

Test(probe, one_thread_reads_the_whole_buffer_each_pass, .timeout = 120)
{
    check_probe(1, 0);
}

Test(probe, two_threads_read_their_own_halves_at_once_from_their_own_cpus, .timeout = 120)
{
    check_probe(2, 0);
}

Test(probe, two_threads_on_2mib_pages_as_e2e_bounds_them, .timeout = 120)
{
    check_probe(2, 1);
}

/* The concurrency check can fail: a thread of a 2-thread pass that reads
 * alone (as in a pool that runs its threads in turn) is reported. */
Test(probe, recording_read_reports_a_thread_that_reads_alone)
{
    static unsigned char buf[8192];
    memset(buf, 1, sizeof buf);
    rec.nt = 2, rec.ncalls = 0, rec.serial = 0, rec.wait_s = 0.2;
    atomic_store(&rec.arrived, 0);
    recording_read(buf, sizeof buf);
    cr_assert_eq(rec.serial, 1, "a lone thread was not reported as a serial pass");
}

/* The reader the e2e decode bound uses beside each step: its buffers made and
 * first-touched once, one warm-up read, then one read per pass by every thread
 * at once, each of its own part, rounded up to whole 256-byte units. */
Test(probe, reader_passes_read_each_threads_own_part_once, .timeout = 120)
{
    const int nt = 2, passes = 3;
    const size_t total = ((size_t)8 << 20) + 100; /* not a multiple of 2 x 256 */
    char binding[512];
    mp_pool *pool = mp_pool_create(nt, binding, sizeof binding);
    rec.nt = nt, rec.ncalls = 0, rec.serial = 0, rec.wait_s = 10;
    atomic_store(&rec.arrived, 0);
    mp_probe_reader *r = mp_probe_reader_new(pool, total, 1, &recording);
    cr_assert(r);
    const size_t per = ((total / nt) + 255) & ~(size_t)255;
    cr_assert_eq(mp_probe_reader_bytes(r, pool), per * nt);
    cr_assert_geq(mp_probe_reader_bytes(r, pool), total, "the reader reads less than asked");
    cr_assert_eq(rec.ncalls, nt, "the warm-up: %d reads, expected %d", rec.ncalls, nt);
    for (int p = 0; p < passes; p++)
        cr_assert_gt(mp_probe_reader_pass(r, pool), 0.0, "pass %d: no bandwidth", p);
    mp_probe_reader_free(r, pool);
    mp_pool_destroy(pool);
    cr_assert_eq(rec.ncalls, (passes + 1) * nt, "%d reads, expected %d", rec.ncalls,
                 (passes + 1) * nt);
    cr_assert_eq(rec.serial, 0, "a pass ran its threads one after another");
    for (int c = 0; c < rec.ncalls; c++) {
        cr_assert_eq(rec.call[c].n, per, "read %d: %zu bytes, expected %zu", c, rec.call[c].n, per);
        cr_assert_eq(rec.call[c].first, rec.call[c].last, "read %d: not its own filled buffer", c);
    }
    cr_assert_neq(rec.call[0].p, rec.call[1].p, "the warm-up read one buffer twice");
    /* the same nt buffers every pass */
    for (int c = nt; c < rec.ncalls; c++) {
        int same = 0;
        for (int j = 0; j < nt; j++)
            same |= rec.call[c].p == rec.call[j].p;
        cr_assert(same, "read %d: a buffer the warm-up did not read (made again?)", c);
    }
}

/* The table's columns line up whatever the kinds' lengths: a compute ceiling's
 * kind names its variant (ceiling_vnni_int2.avx512vnni, 28 characters) and
 * once pushed its row's figures out of their columns. */
Test(probe, table_columns_line_up_past_long_kinds)
{
    const mp_probe_row r[3] = {
        {.kind = "read_DRAM", .threads = 2, .bytes = 4LL << 30, .value = 31.3, .unit = "GB/s"},
        {.kind = "ceiling_vnni_int2.avx512vnni", .threads = 1, .bytes = 65536, .value = 253.8,
         .unit = "GOPS"},
        {.kind = "ceiling_a_kind_of_forty_seven_characters_long", .threads = 1, .bytes = 65536,
         .value = 1.5, .unit = "GOPS"},
    };
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert(f);
    mp_probe_print(f, MP_FMT_TABLE, r, 3);
    fclose(f);
    /* every line: the header's "threads" and the rows' thread counts end in the
     * same column, and so do the rows' " MiB" */
    long thr_end = -1, mib = -1;
    int lines = 0;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"), lines++) {
        if (lines == 0) {
            thr_end = (long)(strstr(line, "threads") - line) + 7;
            continue;
        }
        const char *m = strstr(line, " MiB");
        cr_assert(m, "row %d: no working set in \"%s\"", lines, line);
        if (mib < 0)
            mib = (long)(m - line);
        cr_assert_eq((long)(m - line), mib, "row %d: \" MiB\" at column %ld, row 1's at %ld",
                     lines, (long)(m - line), mib);
        const char *name_end = line + strlen(r[lines - 1].kind);
        cr_assert_eq(name_end[0], ' ', "row %d: the kind is not followed by a blank", lines);
        cr_assert_eq(line[thr_end - 1], lines == 1 ? '2' : '1',
                     "row %d: the thread count does not end under \"threads\": \"%s\"", lines,
                     line);
    }
    cr_assert_eq(lines, 4);
    free(buf);
}

/* ---- issue 37: compute roofs that hold ---------------------------------------
 * A compute roof is measured per variant at a real shape (M >= 1024), per N and
 * per thread count through the pool, in wall time.  Checked with a variant
 * whose compute sleeps: a sleep takes wall time but no CPU time, so a ceiling
 * timed in thread CPU time (as before) would come out absurdly high, one timed
 * in wall time can never exceed 2 M K N per sleep.  No speed is compared. */

static long sleep_us_per_row; /* 0: a fixed SLEEP_US per call */
enum { SLEEP_US = 1000 };

static size_t sleepy_packed(int m, int k, const int *param)
{
    (void)param;
    return (size_t)m * k / 4;
}

static void sleepy_pack(const int8_t *w, float s, int m, int k, const int *param, uint8_t *out)
{
    (void)w, (void)s, (void)param;
    memset(out, 0, (size_t)m * k / 4);
}

static size_t sleepy_act(int n, int k, const int *param)
{
    (void)param;
    return (size_t)n * k;
}

static void sleepy_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1)
{
    (void)op, (void)x, (void)n, (void)act, (void)t0, (void)t1;
}

static _Atomic long sleepy_rows_max;

static void sleepy_compute(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                           void *scratch)
{
    (void)act, (void)scratch;
    long us = sleep_us_per_row ? sleep_us_per_row * (m1 - m0) : SLEEP_US;
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts))
        ;
    for (int t = 0; t < n; t++)
        for (int i = m0; i < m1; i++)
            y[(size_t)t * op->m + i] = 0;
    long seen = atomic_load(&sleepy_rows_max);
    while (m1 > seen && !atomic_compare_exchange_weak(&sleepy_rows_max, &seen, m1))
        ;
}

static const mp_variant sleepy = {
    .name = "sleepy.scalar", .method = "SLEEPY", .family = MP_FAMILY_BASELINE,
    .isa = MP_ISA_SCALAR, .exactness = MP_LOSSLESS, .domain = MP_DOMAIN_TERNARY,
    .k_multiple = 1, .m_align = 16, .packed_size = sleepy_packed, .pack = sleepy_pack,
    .act_size = sleepy_act, .prepare = sleepy_prepare, .compute = sleepy_compute};

Test(probe, ceilings_per_n_and_threads_at_a_real_shape_in_wall_time, .timeout = 120)
{
    char binding[512];
    mp_pool *pools[2] = {mp_pool_create(1, binding, sizeof binding),
                         mp_pool_create(2, binding, sizeof binding)};
    const int nv[2] = {1, 128};
    mp_ceiling c[4];
    char why[160] = "";
    sleep_us_per_row = 0;
    atomic_store(&sleepy_rows_max, 0);
    int got = mp_ceiling_measure(&sleepy, NULL, nv, 2, pools, 2, 0.05, c, why, sizeof why);
    cr_assert_eq(got, 4, "%d ceilings (%s), expected one per N and thread count", got, why);
    int m, k;
    cr_assert_eq(mp_ceiling_shape(&sleepy, NULL, &m, &k, why, sizeof why), 0);
    cr_assert_geq(m, 1024, "the ceiling shape %dx%d: M < 1024", m, k);
    for (int i = 0; i < 4; i++) {
        /* N outer, the pools' thread counts inner */
        cr_assert_eq(c[i].n, nv[i / 2]);
        cr_assert_eq(c[i].threads, i % 2 + 1);
        cr_assert_eq(c[i].m, m, "a fast call is measured over all %d rows, not %d", m, c[i].m);
        cr_assert_eq(c[i].k, k);
        cr_assert_geq(c[i].calls, 3, "one warm-up and samples: %d calls", c[i].calls);
        /* wall time: every call slept SLEEP_US, so no call took less */
        cr_assert_geq(c[i].seconds, SLEEP_US * 1e-6, "N=%d t=%d: %.6f s per call, below the "
                      "%d us it slept: not wall time", c[i].n, c[i].threads, c[i].seconds,
                      SLEEP_US);
        double bound = 2.0 * c[i].m * (double)c[i].k * c[i].n / (SLEEP_US * 1e-6) * 1e-9;
        cr_assert_leq(c[i].gops, bound * (1 + 1e-9), "N=%d t=%d: %.1f GOPS above %.1f",
                      c[i].n, c[i].threads, c[i].gops, bound);
        cr_assert_eq(c[i].packed_bytes, (long long)c[i].m * c[i].k / 4);
    }
    cr_assert_eq(atomic_load(&sleepy_rows_max), m, "no call reached the last row");

    /* a call over all rows slower than MP_CEILING_SLOW_S: measured over the
     * first MP_CEILING_MIN_M rows, never fewer */
    sleep_us_per_row = (long)(MP_CEILING_SLOW_S * 2e6 / m) + 1;
    got = mp_ceiling_measure(&sleepy, NULL, nv, 1, pools, 1, 0.05, c, why, sizeof why);
    cr_assert_eq(got, 1, "%s", why);
    cr_assert_eq(c[0].m, MP_CEILING_MIN_M, "a slow call: measured over %d rows", c[0].m);
    cr_assert_geq(c[0].seconds, 1e-6 * sleep_us_per_row * MP_CEILING_MIN_M);
    sleep_us_per_row = 0;
    mp_pool_destroy(pools[0]);
    mp_pool_destroy(pools[1]);
}

/* The clock as the ceiling sees it: always at full speed, or at full speed
 * once (the first reading) and a third of it after. */
static _Atomic long clock_readings;
static double clock_full(void)
{
    return 3.0;
}
static double clock_slow_after_first(void)
{
    return atomic_fetch_add(&clock_readings, 1) == 0 ? 3.0 : 1.0;
}

/* A roof bounds clock-gated rows, so its samples go on past the budget until
 * some ran at full speed (a window in a slow stretch gave a roof the rows
 * exceeded); with the CPU never at full speed it stops at the cap. */
Test(probe, ceiling_samples_until_the_cpu_ran_at_full_speed, .timeout = 120)
{
    char binding[256];
    mp_pool *pool = mp_pool_create(1, binding, sizeof binding);
    const int nv[1] = {1};
    mp_ceiling fast, slow;
    char why[160] = "";
    sleep_us_per_row = 0;
    mp_clock_set_source(clock_full);
    int got = mp_ceiling_measure(&sleepy, NULL, nv, 1, &pool, 1, 0.02, &fast, why, sizeof why);
    cr_assert_eq(got, 1, "%s", why);
    atomic_store(&clock_readings, 0);
    mp_clock_set_source(clock_slow_after_first);
    got = mp_ceiling_measure(&sleepy, NULL, nv, 1, &pool, 1, 0.02, &slow, why, sizeof why);
    mp_clock_set_source(NULL);
    mp_pool_destroy(pool);
    cr_assert_eq(got, 1, "%s", why);
    cr_assert_geq(fast.full, MP_CEILING_FULL_SAMPLES, "full speed throughout: %d samples "
                  "counted at it", fast.full);
    cr_assert_eq(slow.full, 0, "never at full speed after the first reading: %d samples "
                 "counted at it", slow.full);
    cr_assert_gt(slow.calls, fast.calls, "no sample at full speed, yet sampling stopped as "
                 "early (%d calls against %d)", slow.calls, fast.calls);
    /* the cap: about MP_CEILING_FULL_CAP x the budget of SLEEP_US calls */
    cr_assert_leq(slow.calls, 3 + (int)(0.02 * MP_CEILING_FULL_CAP / (SLEEP_US * 1e-6)) + 2,
                  "%d calls past the cap", slow.calls);
}

static double fake_dot(long iters)
{
    return 32.0 * iters;
}
static double fake_shuffle(long iters)
{
    return 32.0 * iters;
}

/* The int8 dot peak bounds clock-gated rows too: sampled until some samples
 * ran at full speed, at most the cap. */
Test(probe, compute_peaks_sample_until_the_cpu_ran_at_full_speed)
{
    mp_probe_ops ops = {.isa = "fake", .dot = fake_dot, .shuffle = fake_shuffle};
    mp_probe_peak fast, slow;
    mp_clock_set_source(clock_full);
    mp_probe_peaks(&ops, 1000, &fast);
    atomic_store(&clock_readings, 0);
    mp_clock_set_source(clock_slow_after_first);
    mp_probe_peaks(&ops, 1000, &slow);
    mp_clock_set_source(NULL);
    cr_assert_eq(fast.samples, MP_PROBE_PEAK_SAMPLES, "full speed throughout: %d samples",
                 fast.samples);
    cr_assert_eq(fast.full, fast.samples);
    cr_assert_eq(slow.full, 0);
    cr_assert_eq(slow.samples, MP_PROBE_PEAK_SAMPLES * MP_CEILING_FULL_CAP,
                 "never at full speed: %d samples, not the cap", slow.samples);
    cr_assert_gt(fast.dot_gops, 0.0);
    cr_assert_gt(slow.shuffle_gbs, 0.0);
}

/* The peaks sampled again after the ceilings only raise the one-core peak
 * rows of the ops' ISA: never lower one, never touch another kind or thread
 * count. */
Test(probe, peaks_sampled_again_only_raise_their_rows)
{
    mp_probe_ops ops = {.isa = "fake", .dot = fake_dot, .shuffle = fake_shuffle};
    mp_probe_row rows[5];
    memset(rows, 0, sizeof rows);
    const struct {
        const char *kind;
        int threads;
        double value;
    } in[5] = {{"int8_dot_fake", 1, 1e-9},       /* below any sample: raised */
               {"byte_shuffle_fake", 1, 1e12},   /* above any sample: kept */
               {"int8_dot_fake", 2, 1e-9},       /* another thread count: kept */
               {"int8_dot_other", 1, 1e-9},      /* another ISA: kept */
               {"read_DRAM", 1, 1e-9}};
    for (int i = 0; i < 5; i++) {
        snprintf(rows[i].kind, sizeof rows[i].kind, "%s", in[i].kind);
        rows[i].threads = in[i].threads, rows[i].value = in[i].value;
    }
    mp_clock_set_source(clock_full);
    int raised = mp_probe_peaks_again(&ops, 1000, rows, 5);
    mp_clock_set_source(NULL);
    cr_assert_eq(raised, 1, "%d rows raised", raised);
    cr_assert_gt(rows[0].value, 1e-6, "the int8 peak was not raised: %g", rows[0].value);
    for (int i = 1; i < 5; i++)
        cr_assert_eq(rows[i].value, in[i].value, "row %s T%d changed: %g", in[i].kind,
                     in[i].threads, rows[i].value);
}

/* The DRAM reads sampled again after the ceilings raise only the read_DRAM
 * rows (the best and each method's) of the thread counts sampled, and only
 * where they beat them. */
Test(probe, dram_reads_again_raise_only_what_they_beat, .timeout = 120)
{
    mp_machine m;
    mp_machine_probe_info(&m);
    const struct {
        const char *kind;
        int threads;
        double value;
    } in[5] = {{"read_DRAM", 1, 1e-9},       /* below any sample: raised */
               {"read_DRAM_plain", 1, 1e-9}, /* a method's row: raised */
               {"read_DRAM_pf", 1, 1e12},    /* above any sample: kept */
               {"read_DRAM", 2, 1e-9},       /* a thread count not sampled: kept */
               {"read_L3", 1, 1e-9}};        /* another level: kept */
    mp_probe_row rows[5];
    memset(rows, 0, sizeof rows);
    for (int i = 0; i < 5; i++) {
        snprintf(rows[i].kind, sizeof rows[i].kind, "%s", in[i].kind);
        rows[i].threads = in[i].threads, rows[i].value = in[i].value;
    }
    const int tv[1] = {1};
    int raised = mp_probe_dram_again(&m, tv, 1, 1, rows, 5);
    cr_assert_eq(raised, 2, "%d rows raised", raised);
    cr_assert_gt(rows[0].value, 0.1, "read_DRAM not raised: %g", rows[0].value);
    cr_assert_gt(rows[1].value, 0.1, "read_DRAM_plain not raised: %g", rows[1].value);
    cr_assert_geq(rows[0].value, rows[1].value, "the best below one method");
    for (int i = 2; i < 5; i++)
        cr_assert_eq(rows[i].value, in[i].value, "row %s T%d changed: %g", in[i].kind,
                     in[i].threads, rows[i].value);
}

/* mp_ceiling_rows writes what it measured as probe rows: the variant's kind,
 * its N, threads, shape and packed bytes, in GOPS. */
Test(probe, ceiling_rows_carry_n_threads_and_shape, .timeout = 120)
{
    const mp_variant *sel[1] = {&sleepy};
    const int tv[2] = {1, 2}, nv[2] = {1, 128};
    mp_probe_row rows[8];
    memset(rows, 0, sizeof rows);
    int n = mp_ceiling_rows(sel, 1, tv, 2, nv, 2, 0.05, rows, 1, 8, 1);
    cr_assert_eq(n, 5, "rows[0] kept, 4 ceilings after it: %d", n);
    int seen = 0;
    for (int i = 1; i < n; i++) {
        cr_assert_str_eq(rows[i].kind, "ceiling_sleepy.scalar");
        cr_assert_str_eq(rows[i].unit, "GOPS");
        cr_assert_geq(rows[i].m, 1024);
        cr_assert_gt(rows[i].k, 0);
        cr_assert_gt(rows[i].value, 0);
        cr_assert_eq(rows[i].bytes, (long long)rows[i].m * rows[i].k / 4);
        seen |= 1 << ((rows[i].n == 128) * 2 + rows[i].threads - 1);
    }
    cr_assert_eq(seen, 15, "not one row per (N, threads): mask %x", seen);
}

/* The levels' buffers sit in the level they name: L3 from a sane L3 (a VM's
 * 508 MiB is taken as unknown by the machine probe), DRAM >= 4x the LLC. */
Test(probe, level_buffers_fit_their_level)
{
    mp_machine m;
    memset(&m, 0, sizeof m);
    m.l1d_kib = 48, m.l2_kib = 1024, m.l3_kib = 32768;
    for (int t = 1; t <= 4; t++) {
        cr_assert_leq(mp_probe_level_bytes(&m, 0, t, 0), 48u << 10);
        cr_assert_leq(mp_probe_level_bytes(&m, 1, t, 0), 1024u << 10);
        size_t l3 = mp_probe_level_bytes(&m, 2, t, 0);
        cr_assert_gt(l3, 1024u << 10, "t=%d: the L3 buffer fits in L2", t);
        cr_assert_leq(l3 * (size_t)t, (size_t)32 << 20, "t=%d: the L3 buffers exceed L3", t);
        size_t dram = mp_probe_level_bytes(&m, 3, t, 1) * (size_t)t;
        cr_assert_geq(dram + 256u * (size_t)t, (size_t)4 * (32u << 20), "t=%d: DRAM < 4 x L3", t);
        cr_assert_geq(mp_probe_level_bytes(&m, 3, t, 0) * (size_t)t + 256u * (size_t)t,
                      (size_t)4 << 30);
    }
    m.l3_kib = 256 * 1024; /* a large (plausible) L3: DRAM grows to 4x it */
    cr_assert_geq(mp_probe_level_bytes(&m, 3, 1, 1), (size_t)1 << 30);
    mp_machine here;
    mp_machine_probe_info(&here);
    cr_assert_leq(here.l3_kib, 256 * 1024, "L3 of %ld KiB believed (%s)", here.l3_kib,
                  here.caches_note);
    cr_assert_leq(here.l3_kib, (long)here.mem_gib * 1024 * 1024 / 16 + 32768,
                  "L3 of %ld KiB on %d GiB believed", here.l3_kib, here.mem_gib);
}

#if defined(__x86_64__)
#include <cpuid.h>
/* The fingerprint names the CPU's family and model numbers (Zen 3 and Zen 4 VMs
 * are both "AMD EPYC" with the same flags when AVX-512 is hidden): the numbers
 * read from /proc/cpuinfo are CPUID's, and not the "model name" line's text. */
Test(probe, machine_names_cpuid_family_and_model)
{
    unsigned a = 0, b = 0, c = 0, d = 0;
    cr_assert(__get_cpuid(1, &a, &b, &c, &d));
    unsigned base = a >> 8 & 0xf, family = base == 15 ? base + (a >> 20 & 0xff) : base;
    unsigned model = (a >> 4 & 0xf) | (base == 6 || base == 15 ? (a >> 16 & 0xf) << 4 : 0);
    char want[48];
    snprintf(want, sizeof want, "family %u model %u", family, model);
    mp_machine here;
    mp_machine_probe_info(&here);
    cr_assert_str_eq(here.cpu_id, want);
}
#endif
