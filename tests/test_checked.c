/* test_checked.c - issue 40: integers from files and the environment are
 * parsed checked, never wrapped or ignored.  A tuned config's every integer
 * (MxK, n=, threads=, the parameters) refused when out of range, negative,
 * with trailing characters or overflowing, exit 2 naming the file, line and
 * field; every MPBENCH_* variable that holds a number refused with exit 2
 * naming the variable and its value, before any command runs; the one table
 * of those variables (kernels/common/parse.c) the same as the README's and
 * read nowhere around it. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_test.h"
#include "../harness/core/mp_core.h"
#include "../kernels/common/mp_isa.h"
#include "../kernels/common/mp_parse.h"
#include "../tuner/mp_tuned.h"
#include "../variants/mp_registry.h"

static char out[65536];
#define EXPECT(...) MP_TEST_EXPECT(out, __VA_ARGS__)

#define TINY "tests/fixtures/tiny.txt"

/* ---- the parser ------------------------------------------------------------------ */

Test(checked, parse_long_refuses_what_strtol_would_take)
{
    static const char *const bad[] = {"", " 1", "1 ", "+", "-", "1e3", "0x10", "1.0", "12abc",
                                      "abc", "9223372036854775808", "-9223372036854775809",
                                      "99999999999999999999999", "1\n", "\t1"};
    long v = 7;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(mp_parse_long(bad[i], LONG_MIN, LONG_MAX, &v), -1, "'%s' taken", bad[i]);
        cr_assert_eq(v, 7, "'%s': the output was written", bad[i]);
    }
    cr_assert_eq(mp_parse_long(NULL, 0, 1, &v), -1);
    cr_assert_eq(mp_parse_long("4294967297", 1, INT_MAX, &v), -1, "beyond int is refused");
    cr_assert_eq(mp_parse_long("0", 1, 10, &v), -1, "below the range");
    cr_assert_eq(mp_parse_long("11", 1, 10, &v), -1, "above the range");
    cr_assert_eq(mp_parse_long("-3", -5, 5, &v), 0);
    cr_assert_eq(v, -3);
    cr_assert_eq(mp_parse_long("+10", 1, 10, &v), 0);
    cr_assert_eq(v, 10);
    cr_assert_eq(mp_parse_long("9223372036854775807", 0, LONG_MAX, &v), 0);
    cr_assert_eq(v, LONG_MAX);
}

/* ---- tuned configs ---------------------------------------------------------------- */

/* Each line (after "fingerprint test-machine") must be refused with
 * MP_TUNED_EINPUT, naming FILE:2 and the field. */
static const struct {
    const char *line, *field;
} bad_tuned[] = {
    {"i2_s.scalar 256x4294967552 n=1 threads=1 -", "field MxK"}, /* %d read 256x256 */
    {"i2_s.scalar 4294967552x256 n=1 threads=1 -", "field MxK"},
    {"i2_s.scalar 65536x65536 n=1 threads=1 -", "field MxK"}, /* M*K beyond int */
    {"i2_s.scalar -128x128 n=1 threads=1 -", "field MxK"},
    {"i2_s.scalar 128x-128 n=1 threads=1 -", "field MxK"},
    {"i2_s.scalar 128x128abc n=1 threads=1 -", "field MxK"},
    {"i2_s.scalar 128x128x4 n=1 threads=1 -", "field MxK"},
    {"i2_s.scalar 1e3x128 n=1 threads=1 -", "field MxK"},
    {"i2_s.scalar 128 n=1 threads=1 -", "field MxK"},
    {"i2_s.scalar 128x128 n=99999999999 threads=1 -", "field n"},
    {"i2_s.scalar 128x128 n=4294967297 threads=1 -", "field n"}, /* %d read 1 */
    {"i2_s.scalar 128x128 n=-1 threads=1 -", "field n"},
    {"i2_s.scalar 128x128 n=0 threads=1 -", "field n"},
    {"i2_s.scalar 128x128 n=1x threads=1 -", "field n"},
    {"i2_s.scalar 128x128 n=1e3 threads=1 -", "field n"},
    {"i2_s.scalar 128x128 n= threads=1 -", "field n"},
    {"i2_s.scalar 128x128 N=1 threads=1 -", "field n"},
    {"i2_s.scalar 128x128 n=1 threads=4294967297 -", "field threads"}, /* %d read 1 */
    {"i2_s.scalar 128x128 n=1 threads=-2 -", "field threads"},
    {"i2_s.scalar 128x128 n=1 threads=2.5 -", "field threads"},
    {"i2_s.scalar 128x128 n=1 threads=99999999999999999999999 -", "field threads"},
    {"i2_s.scalar 128x128 n=1 threads=0x10 -", "field threads"},
    {"vlut_i2.avx2 256x512 n=4 threads=1 ktile=4294967360", "field PARAMS"},
    {"vlut_i2.avx2 256x512 n=4 threads=1 ktile=64abc", "field PARAMS"},
    {"vlut_i2.avx2 256x512 n=4 threads=1 ktile=-64", "field PARAMS"},
    {"vlut_i2.avx2 256x512 n=4 threads=1 ktile=99999999999999999999999", "field PARAMS"},
    {"vlut_i2.avx2 256x512 n=4 threads=1 ktile=", "field PARAMS"},
    {"i2_s.scalar 128x128 n=1 threads=1", "malformed line: 4 fields"},
    {"i2_s.scalar 128x128 n=1 threads=1 - junk", "malformed line: 6 fields"},
};

Test(checked, tuned_config_integers_refused_with_exit_2_naming_file_line_and_field)
{
    char dir[64], path[160];
    mp_test_scratch(dir, sizeof dir, path, sizeof path, "checked", "t.conf");
    char text[512], want[256];
    for (size_t i = 0; i < sizeof bad_tuned / sizeof bad_tuned[0]; i++) {
        snprintf(text, sizeof text, "fingerprint test-machine\n%s\n", bad_tuned[i].line);
        mp_test_write(path, text);
        mp_tuned t;
        char why[512] = "";
        int rc = mp_tuned_load(path, "test-machine", 0, &t, why, sizeof why);
        cr_assert_eq(rc, MP_TUNED_EINPUT, "'%s' loaded (rc %d)", bad_tuned[i].line, rc);
        snprintf(want, sizeof want, "%s:2: ", path);
        cr_assert(strstr(why, want), "'%s': the message lacks %s: %s", bad_tuned[i].line, want,
                  why);
        cr_assert(strstr(why, bad_tuned[i].field), "'%s': the message lacks '%s': %s",
                  bad_tuned[i].line, bad_tuned[i].field, why);
        /* and the command that reads it exits 2 with that message */
        EXPECT(2, "t.conf:2: ", "e2e --model " TINY " --tuned %s --force --variant i2_s.scalar "
                                "--no-db", path);
        cr_assert(strstr(out, bad_tuned[i].field), "'%s': e2e's message lacks '%s':\n%s",
                  bad_tuned[i].line, bad_tuned[i].field, out);
    }
    /* a line longer than the reader's buffer is refused, not read in pieces */
    char longl[2100];
    memset(longl, 'a', sizeof longl);
    memcpy(longl + sizeof longl - 2, "\n", 2);
    snprintf(text, sizeof text, "fingerprint test-machine\n");
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fputs(longl, f);
    fclose(f);
    mp_tuned t;
    char why[512];
    cr_assert_eq(mp_tuned_load(path, "test-machine", 0, &t, why, sizeof why), MP_TUNED_EINPUT);
    cr_assert(strstr(why, ":2: line longer than"), "%s", why);
    /* the limits themselves are taken, the values kept */
    mp_test_write(path, "fingerprint test-machine\n"
                        "i2_s.scalar 128x128 n=65536 threads=1024 -\n"
                        "vlut_i2.avx2 256x512 n=4 threads=2 ktile=64\n");
    cr_assert_eq(mp_tuned_load(path, "test-machine", 0, &t, why, sizeof why), MP_TUNED_OK,
                 "%s", why);
    cr_assert_eq(t.count, 2);
    cr_assert_eq(t.e[0].m, 128);
    cr_assert_eq(t.e[0].n, 65536);
    cr_assert_eq(t.e[0].threads, 1024);
    const mp_variant *v = mp_registry_find("vlut_i2.avx2");
    cr_assert_eq(t.e[1].param[mp_variant_param_index(v, "ktile")], 64);
    mp_tuned_free(&t);
}

/* ---- MPBENCH_* numbers -------------------------------------------------------------- */

/* The variables that hold numbers and their ranges, written out here (not
 * read from the table), so a row dropped from the table fails the test. */
static const struct {
    const char *name;
    long lo, hi;
} nums[] = {
    {"MPBENCH_ROTATE_MB", 1, 16777216},
    {"MPBENCH_MEM_LIMIT_MB", 1, 16777216},
    {"MPBENCH_E2E_MEM_LIMIT", 1, 17592186044416},
    {"MPBENCH_GGML_POLL", 0, 100},
    {"MPBENCH_HUGEPAGES", 0, 1},
    {"MPBENCH_E2E_HUGEPAGES", 0, 1},
    {"MPBENCH_E2E_SYNC", 0, 1},
    {"MPBENCH_E2E_TRACE", 0, 1},
    {"MPBENCH_EMULATED", 0, 1},
    {"MPBENCH_VERBOSE", 0, 1},
    {"MPBENCH_TEST_SLOWDOWN", 0, 400},
};
enum { NNUMS = sizeof nums / sizeof nums[0] };

Test(checked, env_table_is_the_documented_one)
{
    int n = 0;
    while (mp_env_var_get(n))
        n++;
    cr_assert_eq(n, NNUMS, "the table has %d rows, the test knows %d", n, NNUMS);
    FILE *f = fopen("README.md", "r");
    cr_assert(f, "README.md (run from the tree's root)");
    static char readme[1 << 20];
    readme[fread(readme, 1, sizeof readme - 1, f)] = 0;
    fclose(f);
    for (int i = 0; i < NNUMS; i++) {
        const mp_env_var *r = NULL;
        for (int j = 0; j < n; j++)
            if (!strcmp(mp_env_var_get(j)->name, nums[i].name))
                r = mp_env_var_get(j);
        cr_assert(r, "%s is not in the table", nums[i].name);
        cr_assert(r->lo == nums[i].lo && r->hi == nums[i].hi, "%s: [%ld, %ld], want [%ld, %ld]",
                  r->name, r->lo, r->hi, nums[i].lo, nums[i].hi);
        char row[160];
        if (r->hi == 1)
            snprintf(row, sizeof row, "| `%s` | 0 or 1", r->name);
        else
            snprintf(row, sizeof row, "| `%s` | %ld .. %ld", r->name, r->lo, r->hi);
        cr_assert(strstr(readme, row), "README's environment table lacks '%s'", row);
    }
}

Test(checked, env_numbers_refused_with_exit_2_naming_the_variable, .timeout = 120)
{
    static const char *const bad[] = {"abc", "-1", "1e3", "", "99999999999999999999999",
                                      "0x10", " 1", "1 ", "1.5", "4294967297"};
    char want[256], over[32];
    for (int i = 0; i < NNUMS; i++) {
        for (size_t j = 0; j < sizeof bad / sizeof bad[0] + 1; j++) {
            const char *val = bad[j < sizeof bad / sizeof bad[0] ? j : 0];
            if (j == sizeof bad / sizeof bad[0]) { /* one past the top of the range */
                snprintf(over, sizeof over, "%ld", nums[i].hi + 1);
                val = over;
            }
            long v;
            if (!mp_parse_long(val, nums[i].lo, nums[i].hi, &v))
                continue; /* 4294967297 is a valid MPBENCH_E2E_MEM_LIMIT */
            setenv(nums[i].name, val, 1);
            snprintf(want, sizeof want, "mpbench: %s='%s' is not an integer in [%ld, %ld]",
                     nums[i].name, val, nums[i].lo, nums[i].hi);
            /* refused before any command: list, a command that would run, --help */
            EXPECT(2, want, "list variants");
            EXPECT(2, want, "run --variant i2_s.scalar --shape 64x128 --n 1 --reps 1 "
                            "--min-time 0 --no-db");
            EXPECT(2, want, "--help");
            unsetenv(nums[i].name);
        }
        /* the ends of the range are taken */
        char val[32];
        snprintf(val, sizeof val, "%ld", nums[i].lo);
        setenv(nums[i].name, val, 1);
        EXPECT(0, "", "--help");
        snprintf(val, sizeof val, "%ld", nums[i].hi);
        setenv(nums[i].name, val, 1);
        EXPECT(0, "", "--help");
        unsetenv(nums[i].name);
    }
}

Test(checked, env_values_reach_the_use_sites)
{
    setenv("MPBENCH_MEM_LIMIT_MB", "3", 1);
    cr_assert_eq(mp_mem_limit(), (size_t)3 << 20);
    setenv("MPBENCH_MEM_LIMIT_MB", "16777216", 1);
    cr_assert_eq(mp_mem_limit(), (size_t)16777216 << 20, "no 32-bit wrap");
    unsetenv("MPBENCH_MEM_LIMIT_MB");
    char why[128];
    setenv("MPBENCH_EMULATED", "1", 1);
    cr_assert_eq(mp_cpu_emulated(why, sizeof why), 1);
    setenv("MPBENCH_EMULATED", "0", 1);
    cr_assert_eq(mp_cpu_emulated(why, sizeof why), 0);
    unsetenv("MPBENCH_EMULATED");
    /* a library caller that skipped the start-up check gets the default */
    setenv("MPBENCH_GGML_POLL", "1e3", 1);
    cr_assert_eq(mp_env_long("MPBENCH_GGML_POLL", -1), -1);
    setenv("MPBENCH_GGML_POLL", "100", 1);
    cr_assert_eq(mp_env_long("MPBENCH_GGML_POLL", -1), 100);
    unsetenv("MPBENCH_GGML_POLL");
}

/* Every getenv("MPBENCH_...") of the program's sources: a variable of the
 * table read around it (getenv plus atoi, strtol, strcmp) would take any value
 * again.  The others are words or paths. */
Test(checked, numeric_variables_read_only_through_the_table)
{
    static const char *const words[] = {"MPBENCH_MAX_ISA", "MPBENCH_MACHINE_TAG",
                                        "MPBENCH_MODELS", "MPBENCH_SCRIPTS",
                                        "MPBENCH_GGML_DIR", "MPBENCH_GGML_CPU"};
    FILE *p = popen("grep -rhoE 'getenv\\(\"MPBENCH_[A-Z0-9_]*\"' harness kernels tuner variants "
                    "tests/variants --include='*.c' --include='*.h' | sort -u", "r");
    cr_assert(p);
    char line[256];
    int seen = 0;
    while (fgets(line, sizeof line, p)) {
        char *name = strchr(line, '"'); /* getenv("NAME" */
        cr_assert(name, "%s", line);
        name++;
        name[strcspn(name, "\"")] = 0;
        seen++;
        int ok = 0;
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            ok |= !strcmp(name, words[i]);
        cr_assert(ok, "%s is read with getenv: a number goes through mp_env_long (the table "
                      "of kernels/common/parse.c), a word is listed in this test",
                  name);
    }
    pclose(p);
    cr_assert_gt(seen, 3, "the source scan found nothing (run from the tree's root)");
}
