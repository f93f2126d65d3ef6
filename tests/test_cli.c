/* test_cli.c - bad input through the real binary: each case must name the input,
 * exit 2 (or report skipped), and leave nothing half-written. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_test.h"
#include "../variants/mp_registry.h"
#include "../harness/cli/mp_paths.h"

static char out[65536];

#define EXPECT(...) MP_TEST_EXPECT(out, __VA_ARGS__)
Test(cli, malformed_shape)
{
    static const char *const bad[] = {"12x", "axb", "0x128", "-5x128", "64", "64x128x",
                                      "64x128x2x3", "64y128"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        EXPECT(2, "--shape", "run --variant i2_s.scalar --shape '%s' --no-db", bad[i]);
}

Test(cli, unknown_variant_and_model)
{
    static const mp_test_cli_case bad[] = {
        {2, "'nosuch*' matches no variant", "run --variant 'nosuch*' --shape 64x128 --no-db"},
        {2, "unknown model 'nosuch'", "run --variant i2_s.scalar --model nosuch --no-db"},
        {2, "--threads", "run --variant i2_s.scalar --shape 64x128 --threads 0 --no-db"},
        {2, "--format", "run --variant i2_s.scalar --shape 64x128 --format xml --no-db"},
        {2, "unknown command", "frobnicate"},
    };
    MP_TEST_EXPECT_ALL(out, bad);
}

static void write_model(const char *path, const char *body)
{
    char text[8192];
    snprintf(text, sizeof text, "source test fixture\n%s", body);
    mp_test_write(path, text);
}

Test(cli, malformed_model_files)
{
    char dir[64], path[128];
    mp_test_scratch(dir, sizeof dir, path, sizeof path, "cli", "m.txt");
    /* each body gets the header line "source test fixture" */
    static const struct {
        const char *body, *needle;
        int code;
    } cases[] = {
        {"hidden 64\nintermediate 128\nlayers 2\nheads 4\nkv_heads 4\n",
         "missing required key 'vocab'", 2},
        {"hidden sixty\nintermediate 128\nlayers 2\nheads 4\nkv_heads 4\nvocab 100\n",
         "hidden: 'sixty' must be a positive integer", 2},
        {"hidden 64\nintermediate -128\nlayers 2\nheads 4\nkv_heads 4\nvocab 100\n",
         "intermediate: '-128' must be a positive integer", 2},
        {"hidden 64\nbogus 1\n", "m.txt:3: unknown key 'bogus'", 2}, /* with its line number */
        /* a good one runs, and its odd K is skipped with the reason */
        {"hidden 96\nintermediate 128\nlayers 2\nheads 4\nkv_heads 4\nvocab 100\n",
         "skipped:K=96 not a multiple of 128", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_model(path, cases[i].body);
        EXPECT(cases[i].code, cases[i].needle, "run --variant i2_s.scalar --model %s --no-db%s",
               path, cases[i].code ? "" : " --format csv");
    }
}

Test(cli, k_not_multiple_is_skipped_with_reason)
{
    EXPECT(0, "\"skipped:K=100 not a multiple of 128\"",
           "run --variant i2_s.scalar --shape 64x100 --no-db --format csv");
    /* the CSV header is exactly the documented one */
    cr_assert(strstr(out, "variant,method,family,isa,m,k,n,threads,bpw,median_us,min_us,gbps,"
                          "gops,max_rel_err,status\n"));
}

static long file_size(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 ? (long)st.st_size : -1;
}

Test(cli, bad_databases_untouched)
{
    char dir[64], path[160];
    mp_test_tmpdir(dir, sizeof dir, "cli");
    EXPECT(3, "is a directory", "run --variant i2_s.scalar --shape 8x128 --reps 1 --min-time 0 --db %s", dir);
    snprintf(path, sizeof path, "%s/corrupt.db", dir);
    FILE *f = fopen(path, "w");
    for (int i = 0; i < 200; i++)
        fputs("this is not a database ", f);
    fclose(f);
    long before = file_size(path);
    EXPECT(3, "not an mpbench database", "run --variant i2_s.scalar --shape 8x128 --reps 1 --min-time 0 --db %s", path);
    cr_assert_eq(file_size(path), before, "corrupt file was modified");
    /* a foreign SQLite database */
    snprintf(path, sizeof path, "%s/foreign.db", dir);
    mp_test_exec(path, "CREATE TABLE t(x); INSERT INTO t VALUES(1);");
    EXPECT(3, "not mpbench's", "run --variant i2_s.scalar --shape 8x128 --reps 1 --min-time 0 --db %s", path);
    cr_assert_eq(mp_test_query_long(path, "SELECT count(*) FROM sqlite_master"), 1,
                 "foreign database gained tables");
}

Test(cli, run_stores_one_row_per_result)
{
    char dir[64], path[160];
    mp_test_scratch(dir, sizeof dir, path, sizeof path, "cli", "r.db");
    EXPECT(0, "i2_s.avx2", "run --variant 'i2_s*,naive2*' --shape 64x256 --n 2 --reps 3 --min-time 0 --db %s --format json", path);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db,
        "SELECT count(*), sum(status IN ('ok','unstable')), min(CASE WHEN status IN ('ok','unstable') "
        "THEN reps END), count(DISTINCT run_id) FROM results "
        "WHERE m=64 AND k=256 AND n=2", -1, &st, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    cr_assert_eq(sqlite3_column_int(st, 0), 4, "4 variants -> 4 rows");
    /* a path this CPU lacks (i2_s.avx512 on an AVX2-only machine) is stored skipped */
    static const char *const names[] = {"i2_s.scalar", "i2_s.avx2", "i2_s.avx512", "naive2.scalar"};
    int avail = 0;
    for (int i = 0; i < 4; i++) {
        const mp_variant *v = mp_registry_find(names[i]);
        avail += v && mp_variant_available(v);
    }
    cr_assert_eq(sqlite3_column_int(st, 1), avail, "%d of the 4 run on this CPU", avail);
    cr_assert_geq(sqlite3_column_int(st, 2), 3);
    cr_assert_eq(sqlite3_column_int(st, 3), 1);
    sqlite3_finalize(st);
    sqlite3_close(db);
    cr_assert_geq(mp_test_query_long(path, "SELECT value FROM meta WHERE key='schema_version'"), 1);
}

/* A cold decode point times a read stream of M*K/4 bytes beside its variants:
 * stored with the run as read_inrun (threads, bytes), shown per row; warm points
 * and N > 4 have none. */
Test(cli, decode_points_carry_a_same_run_read_stream)
{
    char dir[64], path[160];
    mp_test_scratch(dir, sizeof dir, path, sizeof path, "cli", "r.db");
    EXPECT(0, "\"read_gbps\": ", "run --variant 'i2_s.scalar,naive2.scalar' --shape 64x1024 --n 1,8 --reps 3 --min-time 0 --db %s --format json", path);
    /* the n=8 rows carry none: exactly the two n=1 rows do */
    int with = 0;
    for (const char *p = out; (p = strstr(p, "\"read_gbps\": ")); p++)
        with++;
    cr_assert_eq(with, 2, "read_gbps on the two n=1 rows only:\n%s", out);
    cr_assert_eq(mp_test_query_long(path, "SELECT count(*) FROM probe WHERE kind='read_inrun' AND threads=1 "
                                  "AND bytes=16384 AND unit='GB/s' AND value>0"), 1);
    cr_assert_eq(mp_test_query_long(path, "SELECT count(*) FROM probe WHERE kind='read_inrun'"), 1);
    EXPECT(0, "of read (same run)", "run --variant 'i2_s.scalar' --shape 64x1024 --n 1 --reps 3 --min-time 0 --no-db");
    EXPECT(0, "i2_s.scalar", "run --variant 'i2_s.scalar' --shape 64x1024 --n 1 --reps 3 --min-time 0 --warm --db %s --format json", path);
    cr_assert_null(strstr(out, "read_gbps"), "a warm point has no read stream:\n%s", out);
    cr_assert_eq(mp_test_query_long(path, "SELECT count(*) FROM probe WHERE kind='read_inrun'"), 1);
}

Test(cli, list_commands)
{
    EXPECT(0, "bitnet-b1.58-2b-4t", "list models");
    EXPECT(0, "6912x2560  (gate,up)", "list shapes --model bitnet-b1.58-2b-4t");
    EXPECT(0, "i2_s.avx512", "list variants");
    EXPECT(0, "task-clock", "list machine");
    EXPECT(2, "unknown kind", "list frobs");
}

Test(cli, pack_writes_bytes_and_rejects_bad_weights)
{
    char dir[64], wpath[160], opath[160];
    mp_test_scratch(dir, sizeof dir, wpath, sizeof wpath, "cli", "w.bin");
    snprintf(opath, sizeof opath, "%s/out.bin", dir);
    /* 1 x 128 weights: the I2_S hand example of test_i2s.c */
    int8_t w[128] = {0};
    w[0] = 1, w[32] = -1, w[96] = 1;
    FILE *f = fopen(wpath, "wb");
    fwrite(w, 1, 128, f);
    fclose(f);
    EXPECT(0, "64 bytes", "pack --variant i2_s.scalar --shape 1x128 --weights %s --out %s", wpath, opath);
    f = fopen(opath, "rb");
    cr_assert(f);
    uint8_t p[64];
    cr_assert_eq(fread(p, 1, 64, f), 64);
    fclose(f);
    cr_assert_eq(p[0], 0x86);
    cr_assert_eq(p[1], 0x55);
    /* wrong size */
    unlink(opath);
    EXPECT(2, "need 256", "pack --variant i2_s.scalar --shape 2x128 --weights %s --out %s", wpath, opath);
    cr_assert_eq(access(opath, F_OK), -1, "nothing written on error");
    /* out of range */
    w[5] = 2;
    f = fopen(wpath, "wb");
    fwrite(w, 1, 128, f);
    fclose(f);
    EXPECT(2, "byte 5 (row 0, column 5) is 2", "pack --variant i2_s.scalar --shape 1x128 --weights %s --out %s", wpath, opath);
    cr_assert_eq(access(opath, F_OK), -1, "nothing written on error");
    EXPECT(2, "not a multiple of 128", "pack --variant i2_s.scalar --shape 1x100 --seed 3 --out %s", opath);
    EXPECT(0, "bpw", "pack --variant naive2.scalar --shape 3x100 --seed 3 --out %s", opath);
}

/* Every command's --help is plain text: a usage string printed with fputs keeps
 * printf's "%%" as two characters (mpbench e2e --help printed "PCT%%"). */
Test(cli, help_texts_have_no_printf_escapes)
{
    static const char *cmds[] = {"run", "list", "sweep", "tune", "probe", "compare", "merge",
                                 "pack", "e2e", "report", "plot"};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        char args[64];
        snprintf(args, sizeof args, "%s --help", cmds[i]);
        mp_test_cli(out, sizeof out, args);
        cr_assert(strlen(out) > 40, "mpbench %s: no help text:\n%s", args, out);
        cr_assert(!strstr(out, "%%"), "mpbench %s: help shows a printf escape:\n%s", args, out);
    }
}

/* A report's links are relative to the report (cli/paths.c mp_path_link), so
 * results/MACHINE/REPORT.md links results/MACHINE/plots as "plots". */
Test(cli, report_links_are_relative_to_the_report)
{
    char b[4096], cwd[2048];
    cr_assert(getcwd(cwd, sizeof cwd));
    static const char *const cases[][3] = {
        {"REPORT.md", "results/plots", "results/plots"},
        {"results/m/REPORT.md", "results/m/plots", "plots"},
        {"./results/m/REPORT.md", "./results/m/report", "report"},
        {"results/m/REPORT.md", "results/plots", "../../results/plots"},
        {"results/m/REPORT.md", "results/mx/plots", "../../results/mx/plots"},
        {"results//m/REPORT.md", "plots", "../../plots"},
        {"results/m/REPORT.md", "/abs/plots", "/abs/plots"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mp_path_link(cases[i][0], cases[i][1], b, sizeof b);
        cr_expect_str_eq(b, cases[i][2], "from %s to %s", cases[i][0], cases[i][1]);
    }
    char want[4200];
    snprintf(want, sizeof want, "%s/plots", cwd);
    mp_path_link("../m/REPORT.md", "plots", b, sizeof b);
    cr_expect_str_eq(b, want, "a folder with a .. step: the absolute path");
}
