/* test_cli_options.c - the one option parser of the commands (issue 38):
 * every command and list kind answers --help from its table with exit 0; a bad
 * option or value is named, exit 2; list options take `A,B` and repeats alike
 * (run --shape, tune --variant). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_test.h"
#include "../harness/e2e/mp_e2e.h"
#include "../harness/core/mp_core.h"
#include "../harness/report/mp_output.h"
#include "../variants/mp_registry.h"

static char out[65536];

#define EXPECT(...) MP_TEST_EXPECT(out, __VA_ARGS__)

Test(cli_options, every_command_and_kind_answers_help)
{
    static const char *const cmds[] = {
        "run", "list", "list models", "list shapes", "list variants", "list formats",
        "list machine", "list gguf", "sweep", "tune", "probe", "compare", "merge", "pack",
        "pack --gguf-out x.gguf", "e2e", "report", "plot"};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        EXPECT(0, "usage: mpbench", "%s --help", cmds[i]);
        cr_assert_null(strstr(out, "unknown"), "mpbench %s --help:\n%s", cmds[i], out);
    }
    /* the options listed are the ones parsed: each row of run's table is shown */
    EXPECT(0, "--clock-gate PCT", "run --help");
    EXPECT(0, "--shape MxK[xN]", "run -h");
    EXPECT(0, "[1..65536]", "run --help");
}

Test(cli_options, bad_options_and_values_are_named)
{
    EXPECT(2, "run: unknown or incomplete option '--nosuch'", "run --nosuch");
    EXPECT(2, "'--reps': it needs a value", "run --variant i2_s.scalar --shape 64x128 --reps");
    EXPECT(2, "--reps: 'x' is not an integer", "run --variant i2_s.scalar --shape 64x128 --reps x");
    EXPECT(2, "--min-time: 'nan'", "run --variant i2_s.scalar --shape 64x128 --min-time=nan");
    EXPECT(2, "takes no value", "run --warm=1 --variant i2_s.scalar --shape 64x128");
    EXPECT(2, "--params: 'some' is not default or all", "sweep --shape 64x128 --params some");
    EXPECT(2, "--counters-backend: 'x' is not pfm or papi", "sweep --quick --counters-backend x");
    EXPECT(2, "list variants: unexpected argument 'x'", "list variants x");
    EXPECT(2, "list machine: unknown or incomplete option '--nosuch'", "list machine --nosuch");
    EXPECT(2, "--cache: 'hot' is not cold or warm", "plot all --cache hot");
    EXPECT(2, "--stat: 'q5'", "compare --base a.db --new b.db --stat q5");
    EXPECT(2, "--n: more than 32 values",
           "run --variant i2_s.scalar --shape 64x128 --n 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 "
           "--n 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 --n 1");
}

/* Counts the result lines of run's table for shape MxK. */
static int rows_of(const char *m, const char *k)
{
    int n = 0;
    for (const char *p = out; (p = strstr(p, "i2_s.scalar")); p++) {
        char line[256];
        sscanf(p, "%255[^\n]", line);
        char v[64], sm[16], sk[16];
        if (sscanf(line, "%63s %15s %15s", v, sm, sk) == 3 && !strcmp(sm, m) && !strcmp(sk, k))
            n++;
    }
    return n;
}

Test(cli_options, run_takes_shape_lists_and_repeats)
{
    static const char *const forms[] = {"--shape 64x128,128x256", "--shape 64x128 --shape 128x256"};
    for (int i = 0; i < 2; i++) {
        EXPECT(0, "i2_s.scalar", "run --variant i2_s.scalar %s --reps 2 --min-time 0 --no-db",
               forms[i]);
        cr_assert_eq(rows_of("64", "128"), 1, "%s:\n%s", forms[i], out);
        cr_assert_eq(rows_of("128", "256"), 1, "%s:\n%s", forms[i], out);
    }
    /* an N inside a shape still has to agree with --n */
    EXPECT(2, "gives N=4", "run --variant i2_s.scalar --shape 64x128x4,128x256 --n 2 --no-db");
    EXPECT(2, "--shape '64x': expected", "run --variant i2_s.scalar --shape 128x256,64x --no-db");
}

Test(cli_options, tune_takes_every_variant_given, .timeout = 300)
{
    char dir[] = "/tmp/mpopts-XXXXXX";
    cr_assert(mkdtemp(dir));
    EXPECT(0, "i2_s.scalar",
           "tune --variant i2_s.scalar --variant vlut_i2.scalar --shape 64x256 --strategy random "
           "--budget 2 --reps 9 --warm --db %s/t.db --out %s/t.conf",
           dir, dir);
    cr_assert(strstr(out, "vlut_i2.scalar"), "both variants tuned, not only the last:\n%s", out);
    char path[128], conf[8192] = "";
    snprintf(path, sizeof path, "%s/t.conf", dir);
    FILE *f = fopen(path, "r");
    cr_assert(f);
    size_t got = fread(conf, 1, sizeof conf - 1, f);
    conf[got] = 0;
    fclose(f);
    cr_assert(strstr(conf, "i2_s.scalar") && strstr(conf, "vlut_i2.scalar"), "%s", conf);
}

/* issue 38: an unstable row's reason is a footnote below the e2e table, not a
 * 150-character cell: the table keeps its columns. */
Test(cli_options, e2e_table_keeps_its_columns_with_an_unstable_row)
{
    mp_e2e_row r[3];
    memset(r, 0, sizeof r);
    for (int i = 0; i < 3; i++) {
        snprintf(r[i].model, sizeof r[i].model, "bitnet-b1.58-2b-4t");
        snprintf(r[i].variant, sizeof r[i].variant, "i2_s.avx2");
        snprintf(r[i].method, sizeof r[i].method, "I2_S");
        r[i].layers = r[i].model_layers = 30;
        r[i].threads = 1, r[i].model_bytes = 1u << 30, r[i].bpw = 2.0;
        r[i].tps_median = 12.34, r[i].tps_spread = 0.5;
        snprintf(r[i].status, sizeof r[i].status, "ok");
    }
    snprintf(r[0].test, sizeof r[0].test, "pp64");
    snprintf(r[1].test, sizeof r[1].test, "tg16");
    snprintf(r[2].test, sizeof r[2].test, "tg16 b4");
    snprintf(r[1].status, sizeof r[1].status, "unstable");
    snprintf(r[1].reason, sizeof r[1].reason,
             "clock gate 90%%: 5 of 16 decode steps kept (fewer than 8); the CPU ran below "
             "the gate for most of the run, so the rate of the kept steps is not a stable "
             "figure and the row is not judged against its bound");
    snprintf(r[2].status, sizeof r[2].status, "skipped");
    snprintf(r[2].reason, sizeof r[2].reason, "layer down (128x200): K=200 not a multiple of 128");
    r[2].tps_median = 0;
    for (int fmt = MP_FMT_TABLE; fmt <= MP_FMT_MD; fmt += MP_FMT_MD - MP_FMT_TABLE) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        mp_e2e_print(f, (mp_format)fmt, r, 3, 0);
        fclose(f);
        int widest = 0, lines = 0;
        for (char *p = buf; *p;) {
            size_t l = strcspn(p, "\n"), cols = 0;
            for (size_t i = 0; i < l; i++)
                cols += ((unsigned char)p[i] & 0xC0) != 0x80; /* characters, not bytes */
            widest = (int)cols > widest ? (int)cols : widest;
            lines++;
            p += l + (p[l] == '\n');
        }
        /* markdown adds its pipes: no wider than the table plus them */
        cr_assert_leq(widest, fmt == MP_FMT_MD ? 135 : 120, "a line of %d characters:\n%s",
                      widest, buf);
        cr_assert(strstr(buf, "12.34 ± 0.50 [1]"), "%s", buf);
        cr_assert(strstr(buf, "skipped [2]"), "%s", buf);
        cr_assert(strstr(buf, "[1] unstable: clock gate 90%: 5 of 16"), "%s", buf);
        cr_assert(strstr(buf, "[2] skipped: layer down (128x200)"), "%s", buf);
        cr_assert(strstr(buf, "judged against its bound"), "the whole reason:\n%s", buf);
        free(buf);
    }
}

/* issue 38: the summary a sweep ends with (sweep --quick: 4 shapes x 2 N x 2
 * thread counts x every method, ~300 rows) is one line per method: its best
 * variant over the shapes, the rate per (N, threads) and the ratios over
 * llama.cpp's TQ2_0 and ours, from the same run. */
Test(cli_options, sweep_summary_is_one_line_per_method)
{
    static const char *const names[] = {"llamacpp.tq2_0", "tq2_0.scalar", "i2_s.scalar",
                                        "i2_s.avx2"};
    static const double us[] = {100, 50, 40, 20};
    static const int shapes[4][2] = {{2560, 2560}, {640, 2560}, {6912, 2560}, {2560, 6912}};
    enum { NR = 4 * 2 * 2 * 4 };
    static mp_result r[NR];
    int nr = 0;
    for (int s = 0; s < 4; s++)
        for (int n = 1; n <= 32; n += 31)
            for (int t = 1; t <= 2; t++)
                for (int v = 0; v < 4; v++) {
                    mp_result *x = &r[nr++];
                    memset(x, 0, sizeof *x);
                    x->v = mp_registry_find(names[v]);
                    cr_assert(x->v, "%s", names[v]);
                    x->m = shapes[s][0], x->k = shapes[s][1], x->n = n, x->threads = t;
                    x->status = MP_ST_OK;
                    x->median_us = us[v] * (s + 1); /* the ratios are the same on every shape */
                    x->gbps = 1000.0 / x->median_us, x->gops = 2000.0 / x->median_us;
                }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    mp_results_summary(f, MP_FMT_TABLE, r, nr);
    fclose(f);
    int lines = 0, widest = 0;
    for (char *p = buf; *p;) {
        size_t l = strcspn(p, "\n");
        widest = (int)l > widest ? (int)l : widest;
        lines++;
        p += l + (p[l] == '\n');
    }
    cr_assert_leq(lines, 8, "3 methods, 2 header and 2 legend lines:\n%s", buf);
    cr_assert_leq(widest, 120, "%s", buf);
    char *i2s = strstr(buf, "\nI2_S ");
    cr_assert(i2s, "%s", buf);
    char v[32];
    double c[12];
    cr_assert_eq(sscanf(i2s, " I2_S %31s %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", v,
                        &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7], &c[8], &c[9],
                        &c[10], &c[11]), 13, "%s", buf);
    cr_assert_str_eq(v, "i2_s.avx2", "the best variant of the method:\n%s", buf);
    for (int k = 0; k < 4; k++) {
        cr_assert_float_eq(c[3 * k + 1], 5.0, 1e-9, "x llama.cpp TQ2_0:\n%s", buf);
        cr_assert_float_eq(c[3 * k + 2], 2.5, 1e-9, "x our TQ2_0:\n%s", buf);
    }
    /* geometric mean of 1000/20, 1000/40, 1000/60, 1000/80 GB/s at N = 1 */
    cr_assert_float_eq(c[0], 1000.0 / 20 / pow(24.0, 0.25), 0.05, "%s", buf);
    cr_assert(strstr(buf, "N=32 t=2 GOPS"), "%s", buf);
    free(buf);
}
