/* test_params.c - parameter names mean one thing in every family (issue 18):
 * the catalog against README.md's "Parameters" table, the renamed spellings of
 * variants/catalog.h (MP_PARAM_RENAMES) taken for one release with a notice on
 * the CLI, in tuned configs and in the parser, and schema migration 8 renaming
 * stored rows so that they are found under the new names (resume keys, report
 * defaults, compare of a database it reads unmigrated). */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_test.h"
#include "../harness/core/mp_core.h"
#include "../harness/report/mp_report.h"
#include "../harness/store/mp_store_compare.h"
#include "../harness/store/mp_store_schema.h"
#include "../harness/engine/mp_engine.h"
#include "../tuner/mp_tuned.h"
#include "../variants/catalog.h"
#include "../variants/mp_registry.h"

static char out[65536];

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Redirects this process's stderr into a file until stderr_end, which returns
 * what was written (the notice of mp_params_parse goes there). */
static int saved_fd = -1;
static char err_path[128];
static void stderr_begin(void)
{
    snprintf(err_path, sizeof err_path, "/tmp/mptest-stderr-XXXXXX");
    int fd = mkstemp(err_path);
    cr_assert(fd >= 0);
    fflush(stderr);
    saved_fd = dup(2);
    dup2(fd, 2);
    close(fd);
}
static const char *stderr_end(void)
{
    static char buf[8192];
    fflush(stderr);
    dup2(saved_fd, 2);
    close(saved_fd);
    FILE *f = fopen(err_path, "r");
    cr_assert(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    unlink(err_path);
    return buf;
}

static const struct rename {
    mp_family family;
    const char *old, *now;
} renames[] = {
#define ROW(F, OLD, NOW) {MP_FAMILY_##F, OLD, NOW},
    MP_PARAM_RENAMES(ROW)
#undef ROW
};
enum { N_RENAMES = sizeof renames / sizeof renames[0] };

/* ---- one name, one meaning, documented in one place --------------------------- */
Test(params, every_name_is_in_the_readme_table_and_no_old_spelling_is_left)
{
    FILE *f = fopen("README.md", "r");
    cr_assert(f, "README.md (tests run from the repository root)");
    static char readme[1 << 18];
    size_t n = fread(readme, 1, sizeof readme - 1, f);
    readme[n] = 0;
    fclose(f);
    const char *sec = strstr(readme, "\n### Parameters\n");
    cr_assert(sec, "README.md has a '### Parameters' section");
    const char *end = strstr(sec + 1, "\n#");
    char table[8192];
    snprintf(table, sizeof table, "%.*s", (int)(end ? end - sec : (long)strlen(sec)), sec);
    int names = 0;
    for (int i = 0; i < mp_registry_count(); i++) {
        const mp_variant *v = mp_registry_get(i);
        for (int p = 0; p < v->n_params; p++) {
            char cell[64];
            snprintf(cell, sizeof cell, "`%s`", v->params[p].name);
            cr_assert(strstr(table, cell), "%s: parameter %s is not in README.md's Parameters "
                      "table (every name is documented there, with one meaning)", v->name,
                      v->params[p].name);
            names++;
            /* an old spelling is nobody's current name in its family */
            for (int r = 0; r < N_RENAMES; r++)
                cr_assert(v->family != renames[r].family || strcmp(v->params[p].name,
                                                                   renames[r].old),
                          "%s still has the renamed parameter %s", v->name, renames[r].old);
        }
    }
    cr_assert_gt(names, 20);
    for (int r = 0; r < N_RENAMES; r++) {
        int found = 0;
        for (int i = 0; i < mp_registry_count(); i++) {
            const mp_variant *v = mp_registry_get(i);
            found |= v->family == renames[r].family &&
                     mp_variant_param_index(v, renames[r].now) >= 0;
        }
        cr_assert(found, "rename %s -> %s: no variant of the family has %s", renames[r].old,
                  renames[r].now, renames[r].now);
    }
}

/* ---- the old spellings on input --------------------------------------------------- */
Test(params, old_spellings_parse_as_the_new_with_one_notice_each)
{
    static const char *const vnni[] = {"vnni_int2.avx2", "vnni_int1.avx512vnni",
                                       "vnni_int2.avxvnni"};
    stderr_begin();
    for (size_t i = 0; i < sizeof vnni / sizeof vnni[0]; i++) {
        const mp_variant *v = mp_registry_find(vnni[i]);
        cr_assert(v, "%s", vnni[i]);
        int a[MP_MAX_PARAMS] = {0}, b[MP_MAX_PARAMS] = {0};
        char why[256];
        int ra = mp_params_parse(v, "bm=32,bn=4,bk=128,gemm_n=8", a, why, sizeof why);
        int rb = mp_params_parse(v, "mtile=32,ntile=4,ktile=128,gemv=8", b, why, sizeof why);
        cr_assert(ra == 0 && rb == 0, "%s: %s", v->name, why);
        cr_assert(!memcmp(a, b, sizeof a), "%s: old and new spellings differ", v->name);
        cr_assert_eq(a[mp_variant_param_index(v, "mtile")], 32);
        cr_assert_eq(a[mp_variant_param_index(v, "gemv")], 8);
        /* a value outside the space is still refused, under the old name too */
        cr_assert_neq(mp_params_parse(v, "bm=24", a, why, sizeof why), 0);
        cr_assert(strstr(why, "outside"), "%s", why);
    }
    /* an old spelling is no alias where it never was a parameter */
    int p[MP_MAX_PARAMS];
    char why[256];
    cr_assert_neq(mp_params_parse(mp_registry_find("vlut_i2.avx2"), "bn=16", p, why, sizeof why), 0);
    cr_assert(strstr(why, "no parameter 'bn'"), "%s", why);
    cr_assert_neq(mp_params_parse(mp_registry_find("tl2_1.avx512.bm16"), "bm=32", p, why,
                                  sizeof why), 0);
    const char *err = stderr_end();
    /* one line per old spelling for the whole process, naming both spellings */
    cr_assert_eq(count(err, "\n"), 4, "notices:\n%s", err);
    for (int r = 0; r < N_RENAMES; r++) {
        char want[128];
        snprintf(want, sizeof want, "parameter '%s' of vnni_int2.avx2 is now spelled '%s'",
                 renames[r].old, renames[r].now);
        cr_assert_eq(count(err, want), 1, "'%s' once in:\n%s", want, err);
    }
}

Test(params, cli_takes_old_spellings_with_a_notice, .timeout = 60)
{
    int rc = mp_test_cli(out, sizeof out, "run --variant vnni_int2.avx2 --shape 64x256 --n 3 "
                                          "--params bm=32,bn=3,bk=64,gemm_n=2 --warm --no-db "
                                          "--format json");
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_eq(count(out, "is now spelled"), 4, "%s", out);
    cr_assert(strstr(out, "parameter 'gemm_n' of vnni_int2.avx2 is now spelled 'gemv'"), "%s",
              out);
    cr_assert(strstr(out, "mtile=32,ntile=3,ktile=64,gemv=2"), "the run under the new "
              "names:\n%s", out);
    rc = mp_test_cli(out, sizeof out, "run --variant vnni_int2.avx2 --shape 64x256 --n 3 "
                                      "--params mtile=32,ntile=3,ktile=64,gemv=2 --warm --no-db");
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(!strstr(out, "now spelled"), "no notice for the new names:\n%s", out);
    rc = mp_test_cli(out, sizeof out, "run --variant vlut_i2.avx2 --shape 64x256 --params bn=16 "
                                      "--no-db");
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "no parameter 'bn'"), "%s", out);
}

/* --params A;B: each set a case of its own in the same run (issue 41: prefetch
 * settings compared as ratios within one run), stored as rows of their own */
Test(params, run_measures_each_set_side_by_side, .timeout = 60)
{
    char dir[256], db[300], got[256];
    mp_test_scratch(dir, sizeof dir, db, sizeof db, "params", "sets.db");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "run --variant vnni_int2.avx2,i2_s.avx2 --shape 64x256 "
             "--params 'pf=0;pf=2048,pfh=3;mtile=32' --reps 3 --min-time 0 --warm "
             "--db %s --format json", db);
    int rc = mp_test_cli(out, sizeof out, cmd);
    cr_assert_eq(rc, 0, "%s", out);
    /* vnni_int2 takes all three sets, i2_s the first two */
    cr_assert_eq(count(out, "\"variant\": \"vnni_int2.avx2\""), 3, "%s", out);
    cr_assert_eq(count(out, "\"variant\": \"i2_s.avx2\""), 2, "%s", out);
    cr_assert(strstr(out, "pf=2048,pfh=3"), "%s", out);
    mp_test_query_text(db, "SELECT count(DISTINCT params) FROM results "
                           "WHERE variant='vnni_int2.avx2'", got, sizeof got);
    cr_assert_str_eq(got, "3");
    rc = mp_test_cli(out, sizeof out, "run --variant i2_s.avx2 --shape 64x256 "
                                      "--params 'pf=0;mtile=32' --no-db");
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "--params 'mtile=32'"), "the set no variant takes is named:\n%s", out);
    rc = mp_test_cli(out, sizeof out, "run --variant i2_s.avx2 --shape 64x256 "
                                      "--params 'pf=0;;pf=2048' --no-db");
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "empty set"), "%s", out);
}

/* run --tuned (issue 41: the tuned config used by make bench): each key with
 * its entry's parameters, keys the file lacks with the defaults, one row per key */
Test(params, run_tuned_measures_each_key_with_its_entry, .timeout = 60)
{
    char dir[256], path[300];
    mp_test_scratch(dir, sizeof dir, path, sizeof path, "params", "run.conf");
    mp_test_write(path, "fingerprint elsewhere\n"
                        "i2_s.avx2 64x256 n=1 threads=1 pf=0\n"
                        "i2_s.avx2 128x256 n=1 threads=1 pf=2048,pfh=3\n"
                        "i2_s.avx2 128x256 n=4 threads=1 pf=4096\n");
    char cmd[700];
    snprintf(cmd, sizeof cmd, "run --variant i2_s.avx2 --shape 64x256,128x256,192x256 --n 1,4 "
             "--tuned %s --force --reps 3 --min-time 0 --warm --no-db --format json", path);
    int rc = mp_test_cli(out, sizeof out, cmd);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_eq(count(out, "\"variant\": \"i2_s.avx2\""), 6, "one row per key:\n%s", out);
    cr_assert(strstr(out, "3 of 6 keys"), "%s", out);
    const char *want[] = {"\"params\": \"pf=0\", \"m\": 64, \"k\": 256, \"n\": 1,",
                          "\"params\": \"pf=2048,pfh=3\", \"m\": 128, \"k\": 256, \"n\": 1,",
                          "\"params\": \"pf=4096\", \"m\": 128, \"k\": 256, \"n\": 4,"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_assert_eq(count(out, want[i]), 1, "the tuned key %s:\n%s", want[i], out);
    /* the keys the file lacks keep the defaults, the same set for each */
    char def[64];
    int dp[MP_MAX_PARAMS];
    const mp_variant *v = mp_registry_find("i2_s.avx2");
    mp_variant_defaults(v, dp);
    mp_params_str(v, dp, def, sizeof def);
    const char *lack[] = {"\"m\": 64, \"k\": 256, \"n\": 4,", "\"m\": 192, \"k\": 256, \"n\": 1,",
                          "\"m\": 192, \"k\": 256, \"n\": 4,"};
    for (size_t i = 0; i < sizeof lack / sizeof lack[0]; i++) {
        char w[160];
        snprintf(w, sizeof w, "\"params\": \"%s\", %s", def, lack[i]);
        cr_assert_eq(count(out, w), 1, "the untuned key %s:\n%s", w, out);
    }
    /* bad input: another machine's file unforced, a bad line, --params beside it */
    snprintf(cmd, sizeof cmd, "run --variant i2_s.avx2 --shape 64x256 --tuned %s --no-db", path);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 2, "%s", out);
    cr_assert(strstr(out, "fingerprint mismatch"), "%s", out);
    snprintf(cmd, sizeof cmd, "run --variant i2_s.avx2 --shape 64x256 --tuned %s --force "
             "--params pf=0 --no-db", path);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 2, "%s", out);
    cr_assert(strstr(out, "one of --params and --tuned"), "%s", out);
    mp_test_write(path, "fingerprint elsewhere\ni2_s.avx2 64x256 n=1 threads=1 pf=1000\n");
    snprintf(cmd, sizeof cmd, "run --variant i2_s.avx2 --shape 64x256 --tuned %s --force --no-db",
             path);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 2, "%s", out);
    cr_assert(strstr(out, "run.conf:2"), "the file and line are named:\n%s", out);
    cr_assert_eq(mp_test_cli(out, sizeof out, "run --variant i2_s.avx2 --shape 64x256 --force "
                                              "--no-db"), 2, "%s", out);
}

Test(params, tuned_config_with_old_spellings_loads)
{
    char dir[64], path[128];
    mp_test_scratch(dir, sizeof dir, path, sizeof path, "params", "old.conf");
    mp_test_write(path, "# written by an mpbench before the rename\nfingerprint test-machine\n"
                  "vnni_int2.avx2 256x512 n=4 threads=1 bm=32,bn=3,bk=128,gemm_n=2\n"
                  "vnni_int2.avx2 256x512 n=8 threads=1 bm=16,bn=4,bk=128,gemm_n=2\n"
                  "vlut_i2.avx2 256x512 n=4 threads=1 ktile=36,ntile=32,stream=1,topo=1,hier=1,tcl=1,"
                  "gemv=3\n");
    mp_tuned t;
    char why[512];
    stderr_begin();
    int rc = mp_tuned_load(path, "test-machine", 0, &t, why, sizeof why);
    const char *err = stderr_end();
    cr_assert_eq(rc, MP_TUNED_OK, "%s", why);
    const mp_variant *v = mp_registry_find("vnni_int2.avx2");
    const mp_tuned_entry *te = mp_tuned_find(&t, v, 256, 512, 4, 1);
    cr_assert(te);
    char ps[256];
    cr_assert_str_eq(mp_params_str(v, te->param, ps, sizeof ps), "mtile=32,ntile=3,ktile=128,gemv=2");
    cr_assert_eq(count(err, "is now spelled"), 4, "one notice per spelling, not per line:\n%s",
                 err);
    mp_tuned_free(&t);
}

/* ---- stored rows: migration 8 ----------------------------------------------------- */
#define OLD_VNNI "bm=64,bn=6,bk=256,gemm_n=4"
#define NEW_VNNI "mtile=64,ntile=6,ktile=256,gemv=4"
#define VLUT_P "ktile=36,ntile=32,stream=1,topo=1,hier=1,tcl=1,gemv=4"

/* A version-7 database (migrations 1-7 as released) with one sweep run: rows of
 * vnni_int2.avx512vnni (old spellings, its defaults then), vlut and TL (names
 * that stay), and a tuned row of vnni_int1.avx512vnni. */
static void make_v7(const char *db)
{
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    for (int v = 1; v <= 7; v++)
        cr_assert_eq(sqlite3_exec(h, mp_schema_migrations[v - 1], NULL, NULL, NULL), SQLITE_OK,
                     "migration %d: %s", v, sqlite3_errmsg(h));
    const char *sql =
        "INSERT INTO meta VALUES('schema_version','7');"
        "INSERT INTO machines(id,fingerprint) VALUES(1,'old-machine');"
        "INSERT INTO runs(id,machine_id,kind,status,config_key) VALUES(1,1,'sweep','ok','K7');"
        "INSERT INTO results(run_id,variant,params,m,k,n,threads,cache_mode,status,median_us,"
        "times_us,sweep_key) VALUES"
        "(1,'vnni_int2.avx512vnni','" OLD_VNNI "',256,512,1,1,'cold','ok',10,'9,10,11','K7'),"
        "(1,'vlut_i2.avx512','" VLUT_P "',256,512,1,1,'cold','ok',12,'11,12,13','K7'),"
        "(1,'tl2_0.avx512.bm16','pf=8192,rb=1',256,512,1,1,'cold','ok',14,'13,14,15','K7');"
        "INSERT INTO tuned(run_id,variant,m,k,n,threads,best_params,default_params,"
        "chosen_params,exhaustive_params,decision) VALUES(1,'vnni_int1.avx512vnni',256,512,1,1,"
        "'bm=32,bn=4,bk=128,gemm_n=8,seq=0','" OLD_VNNI ",seq=1','bm=32,bn=4,bk=128,gemm_n=8,"
        "seq=0',NULL,'tuned');";
    cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
    sqlite3_close(h);
}

Test(params, version_7_database_migrates_and_rows_are_found_under_the_new_names)
{
    cr_assert_geq(MP_SCHEMA_VERSION, 8);
    cr_assert(strstr(mp_schema_migrations[7], "mtile"), "migration 8 is the rename");
    char dir[64], db[128], got[512];
    mp_test_scratch(dir, sizeof dir, db, sizeof db, "params", "v7.db");
    make_v7(db);
    mp_store *s;
    mp_err e;
    cr_assert_eq(mp_store_open(db, &s, &e), MP_OK, "%s", e.msg);
    mp_test_query_text(db, "SELECT value FROM meta WHERE key='schema_version'", got, sizeof got);
    cr_assert_eq(atoi(got), MP_SCHEMA_VERSION);
    mp_test_query_text(db, "SELECT params FROM results WHERE variant='vnni_int2.avx512vnni'", got,
               sizeof got);
    cr_assert_str_eq(got, NEW_VNNI);
    mp_test_query_text(db, "SELECT params FROM results WHERE variant='vlut_i2.avx512'", got, sizeof got);
    cr_assert_str_eq(got, VLUT_P, "other families keep their names");
    mp_test_query_text(db, "SELECT params FROM results WHERE variant='tl2_0.avx512.bm16'", got, sizeof got);
    cr_assert_str_eq(got, "pf=8192,rb=1");
    mp_test_query_text(db, "SELECT best_params||'|'||default_params||'|'||chosen_params||'|'||"
                   "ifnull(exhaustive_params,'NULL') FROM tuned", got, sizeof got);
    cr_assert_str_eq(got, "mtile=32,ntile=4,ktile=128,gemv=8,seq=0|" NEW_VNNI ",seq=1|"
                          "mtile=32,ntile=4,ktile=128,gemv=8,seq=0|NULL");

    /* found: the stored point is the one today's sweep plans (its resume key) */
    const mp_variant *v = mp_registry_find("vnni_int2.avx512vnni");
    int def[MP_MAX_PARAMS];
    char ps[256], key[512];
    mp_variant_defaults(v, def);
    mp_params_str(v, def, ps, sizeof ps);
    cr_assert_str_eq(ps, NEW_VNNI, "the catalog's defaults are those of the stored row");
    mp_point_key(key, sizeof key, v->name, ps, 256, 512, 1, 1);
    char **keys;
    int nk, hit = 0;
    cr_assert_eq(mp_store_done_keys(s, "K7", "cold", &keys, &nk, &e), MP_OK, "%s", e.msg);
    for (int i = 0; i < nk; i++) {
        hit |= !strcmp(keys[i], key);
        free(keys[i]);
    }
    free(keys);
    cr_assert_eq(nk, 3);
    cr_assert(hit, "a resumed sweep finds %s", key);
    mp_store_close(s);
    /* ... and the report takes it for the variant's default setting */
    cr_assert(mp_rep_params_default(v->name, NEW_VNNI));
    cr_assert(!mp_rep_params_default(v->name, OLD_VNNI));
    /* opening again changes nothing (the migration ran once) */
    cr_assert_eq(mp_store_open(db, &s, &e), MP_OK, "%s", e.msg);
    mp_store_close(s);
    mp_test_query_text(db, "SELECT params FROM results WHERE variant='vnni_int2.avx512vnni'", got,
               sizeof got);
    cr_assert_str_eq(got, NEW_VNNI);
}

Test(params, compare_reads_an_unmigrated_database_under_the_new_names)
{
    char dir[64], db[128];
    mp_test_scratch(dir, sizeof dir, db, sizeof db, "params", "v7.db");
    make_v7(db);
    mp_cmp_run r;
    mp_err e;
    cr_assert_eq(mp_store_compare_read(db, "--base", 1, NULL, &r, &e), MP_OK, "%s", e.msg);
    cr_assert_eq(r.n, 3);
    int seen = 0;
    for (int i = 0; i < r.n; i++) {
        if (!strcmp(r.rows[i].variant, "vnni_int2.avx512vnni")) {
            cr_assert_str_eq(r.rows[i].params, NEW_VNNI);
            seen++;
        }
        if (!strcmp(r.rows[i].variant, "vlut_i2.avx512")) {
            cr_assert_str_eq(r.rows[i].params, VLUT_P);
            seen++;
        }
    }
    cr_assert_eq(seen, 2);
    mp_store_compare_free(&r);
    char got[64];
    mp_test_query_text(db, "SELECT value FROM meta WHERE key='schema_version'", got, sizeof got);
    cr_assert_str_eq(got, "7", "compare read it, never migrated it");
}
