/* test_compare.c - the regression gate: the same code is not flagged, a 25%
 * slowdown injected into the test-only canary variant is, an improvement is
 * reported as one, unstable results never fail, foreign machines and disjoint
 * runs are refused; and `make regress` itself is not flaky. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mp_test.h"

static char out[65536];

#define SWEEP "sweep --variant regress_i2s.avx2,i2_s.avx2 --shape 2560x2560 --n 1 --warm " \
              "--reps 21 --min-time 0.05 --counters none --probe-bw"

static void sh(const char *cmd)
{
    int st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s failed", cmd);
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

Test(compare, same_code_passes_slowdown_fails_improvement_reported, .timeout = 600)
{
    char dir[] = "/tmp/mpcmp-XXXXXX", cmd[1024], line[512];
    cr_assert(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, SWEEP " --db %s/a.db", dir);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
    snprintf(cmd, sizeof cmd, SWEEP " --db %s/b.db", dir);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
    setenv("MPBENCH_TEST_SLOWDOWN", "25", 1);
    snprintf(cmd, sizeof cmd, SWEEP " --db %s/slow.db", dir);
    int rc = mp_test_cli(out, sizeof out, cmd);
    unsetenv("MPBENCH_TEST_SLOWDOWN");
    cr_assert_eq(rc, 0, "%s", out);

    snprintf(cmd, sizeof cmd, "compare --base %s/a.db --new %s/b.db", dir, dir);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "same code flagged:\n%s", out);
    cr_assert_null(strstr(out, "REGRESSION"), "%s", out);
    cr_assert(strstr(out, "0 regressions"), "%s", out);

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
    char dir[] = "/tmp/mpcmp-XXXXXX", cmd[1024], line[512];
    cr_assert(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "sweep --variant i2_s.avx2,i2_s.scalar --shape 64x256 --n 1 --warm "
                              "--reps 9 --min-time 0 --counters none --db %s/a.db", dir);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
    /* a copy where one result is three times slower but marked unstable */
    snprintf(cmd, sizeof cmd,
             "cp %s/a.db %s/u.db && sqlite3 %s/u.db \"UPDATE results SET status='unstable', "
             "median_us=median_us*3 WHERE variant='i2_s.scalar'\"", dir, dir, dir);
    sh(cmd);
    snprintf(cmd, sizeof cmd, "compare --base %s/a.db --new %s/u.db", dir, dir);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "an unstable result failed the gate:\n%s", out);
    cr_assert(line_of("i2_s.scalar", line, sizeof line));
    cr_assert(strstr(line, "unstable: not judged"), "%s", line);
    /* another machine */
    snprintf(cmd, sizeof cmd,
             "cp %s/a.db %s/f.db && sqlite3 %s/f.db \"UPDATE machines SET fingerprint='other-box'\"",
             dir, dir, dir);
    sh(cmd);
    snprintf(cmd, sizeof cmd, "compare --base %s/a.db --new %s/f.db", dir, dir);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 2, "%s", out);
    cr_assert(strstr(out, "different machines"), "%s", out);
    snprintf(cmd, sizeof cmd, "compare --base %s/a.db --new %s/f.db --force", dir, dir);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
    /* nothing in common */
    snprintf(cmd, sizeof cmd, "sweep --variant naive2.scalar --shape 8x128 --n 1 --reps 3 "
                              "--min-time 0 --counters none --db %s/d.db", dir);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
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

/* The gate CI runs: five times on unchanged code it must pass; with the canary
 * slowed by 25% it must fail.  Run through make, exactly as .ci/run does. */
Test(compare, make_regress_is_not_flaky, .timeout = 900)
{
    if (access("results/baseline/regress.db", R_OK) != 0)
        cr_assert_fail("results/baseline/regress.db missing: the committed baseline is gone");
    for (int i = 0; i < 5; i++) {
        int st = system("make -s regress > /tmp/mpbench-regress.log 2>&1");
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                  "make regress failed on unchanged code (run %d); see /tmp/mpbench-regress.log", i + 1);
    }
    int st = system("MPBENCH_TEST_SLOWDOWN=25 make -s regress > /tmp/mpbench-regress.log 2>&1");
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) != 0, "make regress passed a 25%% slowdown");
    FILE *f = fopen("/tmp/mpbench-regress.log", "r");
    size_t n = fread(out, 1, sizeof out - 1, f);
    out[n] = 0;
    fclose(f);
    cr_assert(strstr(out, "REGRESSION"), "%s", out);
}
