/* test_checked.c - issue 40: integers from files are parsed checked, never
 * wrapped.  A tuned config's every integer (MxK, n=, threads=, the
 * parameters) refused when out of range, negative, with trailing characters
 * or overflowing, exit 2 naming the file, line and field. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_test.h"
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
    {"i2_s.scalar 128x128 n=1 threads=1", "4 fields"},
    {"i2_s.scalar 128x128 n=1 threads=1 - junk", "6 fields"},
};

Test(checked, tuned_config_integers_refused_naming_file_line_and_field)
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

Test(checked, tuned_config_integers_refused_by_e2e_with_exit_2)
{
    char dir[64], path[160];
    mp_test_scratch(dir, sizeof dir, path, sizeof path, "checked", "t.conf");
    char text[512], want[256];
    for (size_t i = 0; i < sizeof bad_tuned / sizeof bad_tuned[0]; i++) {
        snprintf(text, sizeof text, "fingerprint elsewhere\n%s\n", bad_tuned[i].line);
        mp_test_write(path, text);
        snprintf(want, sizeof want, "t.conf:2: %s", bad_tuned[i].field);
        EXPECT(2, want, "e2e --model " TINY " --tuned %s --force --variant i2_s.scalar --no-db",
               path);
    }
}
