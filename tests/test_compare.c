/* test_compare.c - the regression gate: the same code is not flagged, a 25%
 * slowdown injected into the test-only canary variant is, an improvement is
 * reported as one, unstable results never fail, foreign machines and disjoint
 * runs are refused, values a database should not hold (NULL keys, garbled
 * repetitions) are refused with a message instead of crashing (issue 20), and
 * merge refuses an input it cannot trust; and `make regress` itself is not flaky. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mp_test.h"
#include "../harness/store/mp_store_compare.h"

static char out[65536];
#define EXPECT(...) MP_TEST_EXPECT(out, __VA_ARGS__)

/* copy DB to DST with every repetition of the results matching WHERE scaled by F */
static void scaled_copy(const char *db, const char *dst, const char *where, double f)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "[ -f %s ] || cp %s %s; sqlite3 %s \"WITH RECURSIVE s(id, rest, acc) AS ("
             "SELECT id, times_us || ',', '' FROM results WHERE %s UNION ALL "
             "SELECT id, substr(rest, instr(rest, ',') + 1), acc || (CASE WHEN acc = '' THEN '' ELSE ',' END) || "
             "printf('%%.3f', substr(rest, 1, instr(rest, ',') - 1) * %g) FROM s WHERE rest <> '') "
             "UPDATE results SET times_us = (SELECT acc FROM s WHERE s.id = results.id AND rest = ''), "
             "median_us = median_us * %g WHERE %s\"",
             dst, db, dst, dst, where, f, f, where);
    mp_test_sh(cmd);
}

/* Replace the stored repetitions of DB by 21 synthetic ones within +-0.4% of each
 * result's median, all judged: the decision logic is under test, not the noise
 * of the run that produced the rows (under ASan on 2 cores it is large). */
static void synthetic_reps(const char *db)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "sqlite3 %s \"UPDATE results SET status='ok', times_us = (WITH RECURSIVE c(i, acc) AS "
             "(SELECT 1, printf('%%.3f', median_us) UNION ALL SELECT i + 1, acc || ',' || "
             "printf('%%.3f', median_us * (1 + 0.002 * (i %% 5) - 0.004)) FROM c WHERE i < 21) "
             "SELECT acc FROM c WHERE i = 21)\"", db);
    mp_test_sh(cmd);
}

/* the line of `out` that mentions `needle`, or NULL */
static const char *line_of(const char *needle, char *buf, size_t len)
{
    const char *p = strstr(out, needle);
    if (!p)
        return NULL;
    const char *s = p;
    while (s > out && s[-1] != '\n')
        s--;
    size_t n = strcspn(s, "\n");
    snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), s);
    return buf;
}

/* The decision logic on stored repetitions, deterministically: a copy of a run
 * whose canary repetitions are all 25% slower must be flagged (and only it); the
 * same run against itself must not; the reverse must be an improvement.  (The
 * timing side, real runs of the same code and of the slowed canary, is
 * scripts/regress-selftest.sh, run alone by `make regress-selftest` in CI: on 2
 * cores it cannot share the machine with the other tests.) */
Test(compare, same_not_flagged_slowdown_flagged_improvement_reported)
{
    char dir[64], cmd[2048], line[512];
    mp_test_tmpdir(dir, sizeof dir, "compare");
    EXPECT(0, "", "sweep --variant regress_i2s.avx2,i2_s.avx2 --shape 256x512 --n 1 "
           "--warm --reps 21 --min-time 0 --counters none --db %s/a.db", dir);
    /* every repetition of the canary 25% slower */
    snprintf(cmd, sizeof cmd, "%s/a.db", dir);
    synthetic_reps(cmd);
    snprintf(line, sizeof line, "%s/slow.db", dir);
    scaled_copy(cmd, line, "variant='regress_i2s.avx2'", 1.25);
    snprintf(cmd, sizeof cmd, "compare --base %s/a.db --new %s/a.db", dir, dir);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "a run against itself flagged:\n%s", out);
    cr_assert_null(strstr(out, "REGRESSION"), "%s", out);
    snprintf(cmd, sizeof cmd, "compare --base %s/a.db --new %s/slow.db", dir, dir);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 1, "25%% slowdown not flagged:\n%s", out);
    cr_assert(line_of("regress_i2s.avx2", line, sizeof line), "%s", out);
    cr_assert(strstr(line, "REGRESSION"), "canary line: %s\n%s", line, out);
    cr_assert(line_of("i2_s.avx2[", line, sizeof line));
    cr_assert_null(strstr(line, "REGRESSION"), "the untouched variant was flagged: %s", line);
    snprintf(cmd, sizeof cmd, "compare --base %s/slow.db --new %s/a.db --format md", dir, dir);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
    cr_assert(line_of("regress_i2s.avx2", line, sizeof line));
    cr_assert(strstr(line, "improvement"), "not reported as an improvement: %s", line);
    cr_assert(strstr(out, "1 improvements"), "%s", out);
}

Test(compare, unstable_apart_foreign_refused_disjoint_fails)
{
    char dir[64], cmd[1024], line[512];
    mp_test_tmpdir(dir, sizeof dir, "compare");
    EXPECT(0, "", "sweep --variant i2_s.avx2,i2_s.scalar --shape 64x256 --n 1 --warm "
           "--reps 9 --min-time 0 --counters none --db %s/a.db", dir);
    /* a copy where one result is three times slower but marked unstable */
    snprintf(cmd, sizeof cmd,
             "cp %s/a.db %s/u.db && sqlite3 %s/u.db \"UPDATE results SET status='unstable', "
             "median_us=median_us*3 WHERE variant='i2_s.scalar'\"", dir, dir, dir);
    mp_test_sh(cmd);
    snprintf(cmd, sizeof cmd, "compare --base %s/a.db --new %s/u.db", dir, dir);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "an unstable result failed the gate:\n%s", out);
    cr_assert(line_of("i2_s.scalar", line, sizeof line));
    cr_assert(strstr(line, "unstable: not judged"), "%s", line);
    /* another machine */
    snprintf(cmd, sizeof cmd,
             "cp %s/a.db %s/f.db && sqlite3 %s/f.db \"UPDATE machines SET fingerprint='other-box'\"",
             dir, dir, dir);
    mp_test_sh(cmd);
    snprintf(cmd, sizeof cmd, "compare --base %s/a.db --new %s/f.db", dir, dir);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 2, "%s", out);
    cr_assert(strstr(out, "different machines"), "%s", out);
    snprintf(cmd, sizeof cmd, "compare --base %s/a.db --new %s/f.db --force", dir, dir);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
    /* nothing in common */
    EXPECT(0, "", "sweep --variant naive2.scalar --shape 8x128 --n 1 --reps 3 "
           "--min-time 0 --counters none --db %s/d.db", dir);
    snprintf(cmd, sizeof cmd, "compare --base %s/a.db --new %s/d.db", dir, dir);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 2, "%s", out);
    cr_assert(strstr(out, "no result in common"), "%s", out);
    /* bad inputs */
    snprintf(cmd, sizeof cmd, "compare --base %s/nope.db --new %s/a.db", dir, dir);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 2, "%s", out);
    cr_assert(strstr(out, "no such database"), "%s", out);
    snprintf(cmd, sizeof cmd, "compare --base %s/a.db:999 --new %s/a.db", dir, dir);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 2, "%s", out);
    cr_assert(strstr(out, "no run 999"), "%s", out);
}

/* A machine 1.5x slower today (every key of a problem slower alike) is drift,
 * not a regression; a canary 25% slower on top of it still is; and the shift is
 * reported, and judged as measured with --normalize none. */
Test(compare, common_drift_cancelled_canary_still_flagged)
{
    char dir[64], cmd[2048], a[256], d[256], dc[256], line[512];
    mp_test_tmpdir(dir, sizeof dir, "compare");
    snprintf(cmd, sizeof cmd, "sweep --variant regress_i2s.avx2,i2_s.avx2,i2_s.scalar,tq2_0.scalar "
                              "--shape 256x512 --n 1,4 --warm --reps 21 --min-time 0 --counters none "
                              "--db %s/a.db", dir);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
    snprintf(a, sizeof a, "%s/a.db", dir);
    synthetic_reps(a);
    snprintf(d, sizeof d, "%s/drift.db", dir);
    snprintf(dc, sizeof dc, "%s/driftcanary.db", dir);
    scaled_copy(a, d, "1", 1.5);
    scaled_copy(d, dc, "variant='regress_i2s.avx2' AND n=4", 1.25);
    EXPECT(0, "common shift new/base: median 1.500 over 8 keys", "compare --base %s --new %s", a, d);
    cr_assert_null(strstr(out, "REGRESSION"), "%s", out);
    cr_assert(strstr(out, "moved by more than 15% together"), "the shift was not called out:\n%s",
              out);
    snprintf(cmd, sizeof cmd, "compare --base %s --new %s --normalize none", a, d);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 1, "as measured, every key is slower:\n%s", out);
    cr_assert(line_of("i2_s.avx2[pf=8192] 256x512 n=4", line, sizeof line), "%s", out);
    cr_assert(strstr(line, "REGRESSION"), "%s", line);
    EXPECT(1, "1 regressions", "compare --base %s --new %s", a, dc);
    cr_assert(line_of("regress_i2s.avx2[pf=8192] 256x512 n=4", line, sizeof line), "%s", out);
    cr_assert(strstr(line, "REGRESSION"), "%s", line);
    cr_assert(strstr(line, " 1.500 "), "the canary's drift is its problem's median: %s", line);
    /* a low percentile is judged the same way, and says so; bad choices are refused */
    EXPECT(1, "p20, threshold 15%: 1 regressions", "compare --base %s --new %s --stat p20", a, dc);
    EXPECT(2, "--stat: 'p100'", "compare --base %s --new %s --stat p100", a, d);
    EXPECT(2, "--normalize: 'sideways'", "compare --base %s --new %s --normalize sideways", a, d);
}

/* Issue 20: every value read from a database is untrusted.  A NULL cache_mode
 * used to crash compare (strcmp on NULL); now the run is refused, exit 2, with a
 * message naming the input, the run, the row and the column; likewise a NULL
 * median and repetition times that are not numbers.  The store's typed reader
 * is checked directly too. */
Test(compare, untrusted_values_refused_not_crashed)
{
    char dir[64], cmd[2048], a[256], b[256];
    mp_test_tmpdir(dir, sizeof dir, "compare");
    EXPECT(0, "", "sweep --variant i2_s.scalar,tq2_0.scalar --shape 64x256 --n 1 "
           "--warm --reps 5 --min-time 0 --counters none --db %s/a.db", dir);
    snprintf(a, sizeof a, "%s/a.db", dir);
    /* the reader on a sound database */
    mp_cmp_run run;
    mp_err e;
    cr_assert_eq(mp_store_compare_read(a, "--base", 0, NULL, &run, &e), MP_OK, "%s", e.msg);
    cr_assert_gt(run.run_id, 0);
    cr_assert_eq(run.n, 2);
    cr_assert_str_eq(run.rows[0].cache, "warm");
    cr_assert_str_eq(run.rows[0].variant, "i2_s.scalar");
    cr_assert_eq(run.rows[0].m, 64);
    cr_assert_geq(run.rows[0].ntimes, 5);
    for (int i = 0; i < run.rows[0].ntimes; i++)
        cr_assert_gt(run.rows[0].times_us[i], 0);
    cr_assert_neq(run.fingerprint[0], 0);
    mp_store_compare_free(&run);
    cr_assert_eq(mp_store_compare_read(a, "--base", 999, NULL, &run, &e), MP_EUSAGE);
    cr_assert(strstr(e.msg, "no run 999"), "%s", e.msg);
    cr_assert_eq(run.n, 0);
    static const struct {
        const char *set, *needle;
    } bad[] = {
        {"cache_mode=NULL", "has no cache_mode (NULL)"},
        {"median_us=NULL", "median_us is NULL, not a number"},
        {"median_us='fast'", "median_us is text, not a number"},
        {"times_us='1.5,abc,2'", "times_us holds '1.5,abc,2', not a list of times"},
        {"times_us='1.5,-2'", "not a list of times"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(b, sizeof b, "%s/bad%zu.db", dir, i);
        snprintf(cmd, sizeof cmd, "cp %s %s && sqlite3 %s \"UPDATE results SET %s WHERE "
                                  "variant='tq2_0.scalar'\"", a, b, b, bad[i].set);
        mp_test_sh(cmd);
        EXPECT(2, bad[i].needle, "compare --base %s --new %s", a, b);
        cr_assert(strstr(out, "--new"), "the message names the input: %s", out);
        cr_assert(strstr(out, "refusing this run"), "%s", out);
        EXPECT(2, bad[i].needle, "compare --base %s --new %s", b, a);
        cr_assert(strstr(out, "--base"), "%s", out);
        cr_assert_eq(mp_store_compare_read(b, "--new", 0, NULL, &run, &e), MP_EUSAGE, "%s", bad[i].set);
        cr_assert_eq(run.n, 0);
        cr_assert_null(run.rows);
    }
    /* NULL repetitions are not an error: the key is listed as unstable, not judged */
    snprintf(b, sizeof b, "%s/notimes.db", dir);
    snprintf(cmd, sizeof cmd, "cp %s %s && sqlite3 %s \"UPDATE results SET times_us=NULL WHERE "
                              "variant='tq2_0.scalar'\"", a, b, b);
    mp_test_sh(cmd);
    EXPECT(0, "unstable: not judged", "compare --base %s --new %s", a, b);
}

/* merge takes the same care: an input whose schema version is NULL (atoi on
 * NULL before) is refused with exit 3 (a database failure, issue 20), and
 * every input is checked before the output is touched: nothing is merged. */
Test(compare, merge_refuses_untrusted_input)
{
    char dir[64], cmd[2048], line[512];
    mp_test_tmpdir(dir, sizeof dir, "compare");
    EXPECT(0, "", "sweep --variant i2_s.scalar --shape 64x256 --n 1 --warm --reps 3 "
           "--min-time 0 --counters none --db %s/a.db", dir);
    snprintf(cmd, sizeof cmd, "cp %s/a.db %s/b.db && sqlite3 %s/b.db \"UPDATE meta SET value=NULL "
                              "WHERE key='schema_version'\"", dir, dir, dir);
    mp_test_sh(cmd);
    EXPECT(3, "b.db: not an mpbench database", "merge %s/m.db %s/a.db %s/b.db", dir, dir, dir);
    cr_assert(!strstr(out, "merged "), "an input was merged: %s", out);
    snprintf(cmd, sizeof cmd, "%s/m.db", dir);
    cr_assert_neq(access(cmd, F_OK), 0, "the output was created");
    EXPECT(0, "1 runs added", "merge %s/m.db %s/a.db", dir, dir);
    snprintf(cmd, sizeof cmd, "sqlite3 %s/m.db \"SELECT count(*) FROM results\" > %s/count.txt",
             dir, dir);
    mp_test_sh(cmd);
    snprintf(cmd, sizeof cmd, "%s/count.txt", dir);
    FILE *f = fopen(cmd, "r");
    cr_assert(f);
    cr_assert(fgets(line, sizeof line, f));
    fclose(f);
    cr_assert_eq(atoi(line), 1, "a.db's one result is in the output: %s", line);
    /* merging a.db again adds nothing */
    EXPECT(0, "0 runs added, 1 already present", "merge %s/m.db %s/a.db", dir, dir);
}

/* Two databases that ran the same e2e command on this machine hold rows of one
 * plan: merging the second adds its run, keeps the first's rows and says how
 * many of the second's were not added (they vanished without a word before). */
Test(compare, merge_says_which_rows_a_plan_kept)
{
    char dir[64];
    mp_test_tmpdir(dir, sizeof dir, "compare");
    for (int i = 0; i < 2; i++)
        EXPECT(0, "", "e2e --model tests/fixtures/tiny.txt --variant i2_s.scalar --pp 4 --tg 2 "
               "--reps 1 --db %s/%c.db", dir, 'a' + i);
    EXPECT(0, "1 runs added", "merge %s/m.db %s/a.db", dir, dir);
    cr_assert(!strstr(out, "not added"), "a first merge keeps every row: %s", out);
    EXPECT(0, "2 rows of its new runs not added", "merge %s/m.db %s/b.db", dir, dir);
    cr_assert(strstr(out, "1 runs added"), "%s", out);
}

/* merge --replace (make regress-baseline): a second sweep of the same command
 * replaces the first's rows and counters, the first run, left empty, goes;
 * another plan's rows and runs stay.  A plain merge kept the old rows and added
 * an empty run, the newest, which compare would have taken as the baseline. */
Test(compare, merge_replace_takes_the_newer_run_of_a_plan, .timeout = 120)
{
    char dir[64], db[160], got[256];
    mp_test_tmpdir(dir, sizeof dir, "compare");
    const char *sw = "sweep --variant i2_s.scalar --shape 64x256 --warm --reps 3 "
                     "--min-time 0 --counters none --probe-bw";
    for (int i = 0; i < 2; i++)
        EXPECT(0, "", "%s --n 1 --db %s/%c.db", sw, dir, 'a' + i);
    EXPECT(0, "", "%s --n 2 --db %s/o.db", sw, dir); /* another plan */
    EXPECT(0, "", "merge %s/m.db %s/a.db %s/o.db", dir, dir, dir);
    snprintf(db, sizeof db, "%s/m.db", dir);
    mp_test_exec(db, "INSERT INTO counters(result_id,event,value,status,reason) "
                     "SELECT id,'page-faults',1,'ok','' FROM results");
    EXPECT(0, "1 rows of the same plans replaced, 1 runs left empty removed",
           "merge --replace %s/m.db %s/b.db", dir, dir);
    mp_test_query_text(db, "SELECT count(*) FROM runs", got, sizeof got);
    cr_assert_str_eq(got, "2", "b's run and the other plan's");
    char bdb[160], buid[128];
    snprintf(bdb, sizeof bdb, "%s/b.db", dir);
    mp_test_query_text(bdb, "SELECT uid FROM runs", buid, sizeof buid);
    char q[512];
    snprintf(q, sizeof q, "SELECT count(*) FROM results r JOIN runs u ON r.run_id=u.id "
                          "WHERE u.uid='%s' AND r.n=1", buid);
    mp_test_query_text(db, q, got, sizeof got);
    cr_assert_str_eq(got, "1", "the N = 1 row is b's");
    mp_test_query_text(db, "SELECT count(*) FROM results", got, sizeof got);
    cr_assert_str_eq(got, "2");
    mp_test_query_text(db, "SELECT count(*) FROM counters WHERE result_id NOT IN "
                           "(SELECT id FROM results)", got, sizeof got);
    cr_assert_str_eq(got, "0", "the replaced row's counters went with it");
    mp_test_query_text(db, "SELECT count(*) FROM counters", got, sizeof got);
    cr_assert_str_eq(got, "1", "the other plan's counter stays");
    /* the removed run's --probe-bw figure went with it; the others' stay */
    mp_test_query_text(db, "SELECT count(*) FROM probe WHERE run_id NOT IN (SELECT id FROM runs)",
                       got, sizeof got);
    cr_assert_str_eq(got, "0", "a probe row of a removed run is left");
    mp_test_query_text(db, "SELECT count(DISTINCT run_id) FROM probe", got, sizeof got);
    cr_assert_str_eq(got, "2");
    /* without --replace the first row is kept (and said) */
    EXPECT(0, "", "merge %s/p.db %s/a.db", dir, dir);
    EXPECT(0, "1 rows of its new runs not added", "merge %s/p.db %s/b.db", dir, dir);
}
