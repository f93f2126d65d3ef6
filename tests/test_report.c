/* test_report.c - `mpbench report` and `mpbench plot` on a fixture database
 * built here with the real store code (mp_store_open) and rows of known numbers:
 * the report must have every section and print exactly those numbers; every
 * plot kind must write a real PNG and SVG; bad input must exit 2 (no data: 1)
 * and leave nothing behind.  No timing thresholds: the numbers are the
 * fixture's, not measured. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_test.h"
#include "../harness/core/mp_core.h"
#include "../harness/store/mp_store_internal.h"
#include "../harness/store/mp_store_report.h"
#include "../harness/report/mp_report.h"
#include "../variants/mp_registry.h"

static char out[262144];

/* One result row of the fixture. */
static void result(sqlite3 *db, int run, const char *variant, const char *method,
                   const char *params, int m, int k, int n, int t, double bpw, double us,
                   double gbps, double gops, const char *status, const char *reason)
{
    mp_test_sqlf(db,
        "INSERT INTO results(run_id,variant,method,family,isa,params,m,k,n,threads,cache_mode,"
        "bpw,packed_bytes,copies,reps,median_us,min_us,max_us,mad_us,mean_us,cv,gbps,gops,"
        "max_rel_err,mean_rel_err,status,reason,times_us,created) VALUES(%d,%Q,%Q,'mad','avx2',"
        "%Q,%d,%d,%d,%d,'cold',%f,%lld,4,9,%f,%f,%f,1,%f,0.01,%f,%f,NULL,NULL,%Q,%Q,'1,2,3',"
        "'2026-01-01T00:00:00Z')",
        run, variant, method, params, m, k, n, t, bpw,
        (long long)((double)m * k * bpw / 8), us, us, us, us, gbps, gops, status, reason);
}

/* The store at path (made when missing) open for additions; close *s after. */
static sqlite3 *store_db(const char *path, mp_store **s)
{
    mp_err e;
    cr_assert_eq(mp_store_open(path, s, &e), MP_OK, "%s", e.msg);
    return mp_store_db(*s);
}

/* The fixture: one machine, a probe, a sweep, a tune run with its decision,
 * and e2e rows (table created as the e2e branch's migration does). */
static void make_fixture(const char *path)
{
    mp_store *s;
    sqlite3 *db = store_db(path, &s);
    mp_test_sql(db, "INSERT INTO machines(id,fingerprint,cpu_model,cores,pus,isa_flags,mem_gib,l1d_kib,"
            "l2_kib,l3_kib,caches_note,hypervisor,first_seen) VALUES(1,'fixfp01','Fixture CPU "
            "9000',2,2,'avx2 avx512f',8,48,1280,32768,'','KVM','2026-01-01')");
    mp_test_sql(db, "INSERT INTO runs(id,machine_id,kind,started,command,load_avg,status) VALUES"
            "(1,1,'probe','2026-01-01','mpbench probe',0.5,'ok'),"
            "(2,1,'sweep','2026-01-02','mpbench sweep',1.75,'ok'),"
            "(3,1,'tune','2026-01-03','mpbench tune',0.25,'ok'),"
            "(4,1,'e2e','2026-01-04','mpbench e2e',0.25,'ok'),"
            "(9,1,'e2e','2026-01-05','mpbench e2e --threads 1',0.25,'ok')");
    mp_test_sql(db, "INSERT INTO run_counters(run_id,event,status,reason) VALUES(2,'cycles',"
            "'unavailable','perf_event_paranoid=3'),(2,'task-clock','ok','')");
    mp_test_sql(db, "INSERT INTO probe(run_id,kind,threads,bytes,value,unit) VALUES"
            "(1,'read_DRAM',1,1073741824,12.5,'GB/s'),(1,'read_DRAM',2,1073741824,20.25,'GB/s'),"
            "(1,'copy_L2',1,1048576,88.75,'GB/s'),(1,'int8_dot_avx512vnni',1,0,150,'GOPS'),"
            "(1,'byte_shuffle_avx512vnni',1,0,333,'GB/s'),"
            "(2,'read_DRAM',1,268435456,99.5,'GB/s')"); /* sweep --probe-bw: not the probe */
    /* sweep: I2_S and TQ2_0 at N = 1 and 128, threads 1 and 2 */
    static const int shapes[2][2] = {{2560, 2560}, {6912, 2560}};
    for (int s2 = 0; s2 < 2; s2++)
        for (int t = 1; t <= 2; t++)
            for (int ni = 0; ni < 2; ni++) {
                int n = ni ? 128 : 1, m = shapes[s2][0], k = shapes[s2][1];
                double base = (s2 + 1) * 100.0 * (ni ? 40 : 1) / t;
                result(db, 2, "i2_s.avx2", "I2_S", "pf=8192", m, k, n, t, 2.0, base,
                       8.19 + s2 + t + ni, 65.5 + 10 * s2 + t + 100 * ni, "ok", "");
                result(db, 2, "tq2_0.avx2", "TQ2_0", "", m, k, n, t, 2.0625, base * 1.5,
                       5.43 + s2 + t + ni, 43.2 + 10 * s2 + t + 100 * ni, "ok", "");
            }
    /* an unstable and a failed and a skipped row */
    result(db, 2, "vnni_int1.avx2", "VNNI_INT1", "", 2560, 2560, 1, 1, 1.0, 150, 4.37, 87.4,
           "unstable", "cv 0.31 after re-measuring");
    result(db, 2, "vnni_int2.avx2", "VNNI_INT2", "", 2560, 2560, 1, 1, 2.0, 0, 0, 0, "failed",
           "y[3] = 1.5, want 2.5 (seed 1)");
    result(db, 2, "tl2_1.avx2", "TL2_1", "", 6912, 2560, 1, 1, 1.67, 0, 0, 0, "skipped",
           "K % 192 != 0");
    /* Vec-LUT ablation: four settings at one point */
    static const char *const ab[] = {"stream=0,topo=0,hier=0,tcl=0", "stream=0,topo=0,hier=0,tcl=1",
                                     "stream=1,topo=0,hier=1,tcl=1", "stream=1,topo=1,hier=1,tcl=1"};
    static const double abus[] = {8000, 800, 200, 160};
    for (int i = 0; i < 4; i++)
        result(db, 2, "vlut_i2.avx2", "VLUT_I2", ab[i], 2560, 2560, 128, 2, 2.0, abus[i], 1.0,
               2.0 * 2560 * 2560 * 128 / abus[i] * 1e-3, "ok", "");
    /* tune run: I2_S prefetch distance at N = 8 */
    static const int pf[] = {0, 2048, 4096, 8192, 16384};
    static const double pfus[] = {210, 190, 180.5, 200, 230};
    for (int i = 0; i < 5; i++) {
        char p[32];
        snprintf(p, sizeof p, "pf=%d", pf[i]);
        result(db, 3, "i2_s.avx2", "I2_S", p, 2560, 2560, 8, 1, 2.0, pfus[i], 7.0, 500.0, "ok", "");
    }
    mp_test_sql(db, "INSERT INTO tuned(run_id,variant,m,k,n,threads,strategy,best_params,default_params,"
            "chosen_params,best_us,default_us,gain_pct,p_value,aba_confirmed,decision,evaluations,"
            "seconds,created) VALUES(3,'i2_s.avx2',2560,2560,8,1,'exhaustive','pf=4096','pf=8192',"
            "'pf=4096',180.5,200,9.7,0.001,1,'winner: 9.7% faster',5,12,'2026-01-03')");
    /* e2e rows (the table comes from migration 3; created here only for an older schema) */
    mp_test_sql(db, "CREATE TABLE IF NOT EXISTS e2e(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL "
            "REFERENCES runs(id), model TEXT NOT NULL, variant TEXT NOT NULL, method TEXT, layers "
            "INTEGER, model_layers INTEGER, test TEXT NOT NULL, n_prompt INTEGER, n_gen INTEGER, "
            "batch INTEGER, threads INTEGER, reps INTEGER, tps_median REAL, tps_min REAL, tps_max "
            "REAL, tps_spread REAL, model_bytes INTEGER, ternary_bytes INTEGER, bpw REAL, prompts "
            "INTEGER, tokens INTEGER, matched INTEGER, match_share REAL, seed INTEGER, status TEXT, "
            "reason TEXT, times_s TEXT, created TEXT, UNIQUE(run_id, variant, test))");
    mp_test_sql(db, "INSERT INTO e2e(run_id,model,variant,method,layers,model_layers,test,n_prompt,n_gen,"
            "batch,threads,reps,tps_median,bpw,prompts,tokens,matched,match_share,status,reason) "
            "VALUES(4,'bitnetcpp-125m','i2_s.avx2','I2_S',2,12,'tg16',0,16,1,2,3,123.45,2.0,NULL,"
            "NULL,NULL,NULL,'ok','2 of 12 layers'),"
            "(4,'bitnetcpp-700m','tq2_0.avx2','TQ2_0',24,24,'tg16',0,16,1,2,3,45.67,2.0625,NULL,"
            "NULL,NULL,NULL,'ok',''),"
            "(4,'bitnetcpp-700m','tq2_0.avx2','TQ2_0',24,24,'pp64',64,0,1,2,3,234.5,2.0625,NULL,"
            "NULL,NULL,NULL,'ok',''),"
            "(4,'bitnetcpp-700m','tq2_0.avx2','TQ2_0',24,24,'tg16 b4',0,16,4,2,3,98.76,2.0625,NULL,"
            "NULL,NULL,NULL,'ok',''),"
            "(4,'bitnetcpp-700m','i2_s.avx512','I2_S',24,24,'tg16',0,16,1,2,3,91.34,2.0,NULL,"
            "NULL,NULL,NULL,'ok','')");
    /* issue 37: the logit figures beside the exact match (migration 10) */
    mp_test_sql(db, "INSERT INTO e2e(run_id,model,variant,method,layers,model_layers,test,threads,bpw,"
            "prompts,tokens,matched,match_share,status,reason,logit_diff,first_diff,steps_matched) "
            "VALUES"
            "(4,'bitnetcpp-700m','i2_s.avx2','I2_S',24,24,'lossless',2,2.0,20,320,20,1.0,'ok','',"
            "0.0,0,NULL),"
            "(4,'bitnetcpp-700m','tq2_0.avx2','TQ2_0',24,24,'lossless',2,2.0625,20,320,3,0.15,"
            "'ok','',0.0339,2,6272)");
    /* issue 17: rows with a bound (decode ok, prefill unstable), one with a profile */
    mp_test_sql(db, "INSERT INTO e2e(run_id,model,variant,method,layers,model_layers,test,n_prompt,n_gen,"
            "batch,threads,reps,tps_median,bpw,status,reason,bound_tps,bound_share,profile,lm_head) VALUES"
            "(4,'bitnet-b1.58-2b-4t','vnni_int2.avx512vnni','VNNI_INT2',30,30,'tg16',0,16,1,2,3,"
            "20.93,2.0,'ok','',20.56,1.018,'qkv=0.003172,o=0.002083,ffn_up=0.01087,"
            "ffn_down=0.005432,act_quant=0.0001851,lm_head=0.02444,embedding=4.197e-06,"
            "attention=0.0004154,norms=0.0004968,sync=0.0003092,other=6.938e-05','f16'),"
            "(4,'bitnet-b1.58-2b-4t','vnni_int2.avx512vnni','VNNI_INT2',30,30,'pp128',128,0,1,2,3,"
            "126.76,2.0,'unstable','clock gate 90%: 0 of 27',176.01,0.7202,NULL,'q8_0'),"
            "(9,'bitnet-b1.58-2b-4t','vnni_int2.avx512vnni','VNNI_INT2',30,30,'tg16',0,16,1,1,3,"
            "NULL,2.0,'unstable','clock gate 90%: 5 of 80 steps at full speed (fewer than 8)',"
            "NULL,NULL,NULL,NULL)");
    mp_store_close(s);
}

/* A fresh folder (dir: 64 bytes) holding the fixture as NAME (db: 128 bytes). */
static void fixture_in(char *dir, char *db, const char *name)
{
    mp_test_tmpdir(dir, 64, "report");
    snprintf(db, 128, "%s/%s", dir, name);
    make_fixture(db);
}

/* fixture_in as fix.db, md = DIR/REPORT.md, the database open for additions
 * (close *s after). */
static sqlite3 *fixture_store(char *dir, char *db, char *md, mp_store **s)
{
    fixture_in(dir, db, "fix.db");
    snprintf(md, 128, "%s/REPORT.md", dir);
    return store_db(db, s);
}

static char *slurp(const char *path)
{
    char *b = mp_test_slurp(path, NULL);
    cr_assert(b, "cannot open %s", path);
    return b;
}

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
    closedir(d);
    return n;
}

#define RUN(code, ...) MP_TEST_EXPECT(out, code, "", __VA_ARGS__)
#define HAS(text, needle) \
    cr_assert(strstr(text, needle), "report lacks '%s':\n%s", needle, text)

Test(report, sections_and_numbers)
{
    char dir[64], db[128], md[128];
    fixture_in(dir, db, "fix.db");
    snprintf(md, sizeof md, "%s/REPORT.md", dir);
    RUN(0, "report --db %s --out %s --plots %s/plots", db, md, dir);
    char *t = slurp(md);
    /* machine and caveats */
    HAS(t, "Fixture CPU 9000");
    HAS(t, "`fixfp01`");
    HAS(t, "2 cores / 2 hardware threads");
    HAS(t, "A virtual machine (hypervisor: KVM)");
    HAS(t, "1.75 (on 2 cores)");
    HAS(t, "cycles (perf_event_paranoid=3)");
    /* every section */
    static const char *const secs[] = {
        "## 1. Machine and probe figures", "## 2. End-to-end tokens/s", "seed 000 Table 7",
        "seed 004 Tables 4–5", "## 3. Lossless share (seed 004 Table 7)",
        "## 4. Kernel benchmark: GOPS per variant and shape (seed 001 Fig. 8)",
        "## 5. Ablation", "seed 001 Fig. 11", "## 6. Prompt length", "seed 001 Fig. 12",
        "## 7. GEMV bandwidth against the roofline model (seed 003 Fig. 5–7, eq. 1–3)",
        "## 8. Speed ratios within one run", "## 9. Tuned parameters", "## 10. Plots",
        "## Rows not measured or not stable"};
    for (size_t i = 0; i < sizeof secs / sizeof secs[0]; i++)
        HAS(t, secs[i]);
    /* probe */
    HAS(t, "| read_DRAM | GB/s | 12.50 | 20.25 |");
    HAS(t, "| copy_L2 | GB/s | 88.75 | – |");
    /* e2e tokens/s with the layers note, and the paper rows */
    HAS(t, "123.45 (2/12 layers)");
    HAS(t, "| tq2_0.avx2 (TQ2_0) b(2.06) | – | – | 45.67 |");
    HAS(t, "| seed 000 Table 7 | i7-13700H I2_S b(2) | – | – | 125.37 |");
    HAS(t, "| bitnetcpp-700m | tq2_0.avx2 | tg16 b4 | 2 | 98.76 |");
    /* decode relative to TQ2_0 in the same model, beside seed 000 Table 7's ratio
     * (I2_S 125.37 / TQ2_0 123.94 tokens/s on the i7-13700H at 700M) */
    HAS(t, "| i2_s.avx512 | – | – | 2.00 [1.01] |");
    HAS(t, "| tq2_0.avx2 | – | – | 1.00 [1.00] |");
    HAS(t, "| seed 004 Table 5 (2 threads) | i7-13700H bitnet.cpp | 316.35 |");
    /* 2a: shares of the bound per (test, threads), unstable marked; the profile
     * in ms per token, its sum (47.477) beside 1000 / 20.93 */
    HAS(t, "### 2a. Against the memory limit (issue 17)");
    HAS(t, "tg16, 1 thread: share of the bound (tokens/s / bound tokens/s)\n\n| variant | "
           "bitnet-b1.58-2b-4t |\n|---|--:|\n| vnni_int2.avx512vnni | unstable |");
    HAS(t, "tg16, 2 threads: share of the bound");
    HAS(t, "| vnni_int2.avx512vnni | 1.02 (20.93 / 20.56) |");
    HAS(t, "pp128, 2 threads: share of the bound");
    HAS(t, "| vnni_int2.avx512vnni [q8_0 head] | 0.72† (126.76 / 176.01) |");
    HAS(t, "| bitnet-b1.58-2b-4t | vnni_int2.avx512vnni | tg16 | 2 | 3.172 | 2.083 | 10.870 | "
           "5.432 | 0.185 | 24.440 | 0.004 | 0.415 | 0.497 | 0.309 | 0.069 | 47.477 | 47.778 |");
    cr_assert(strstr(t, "tg16, 1 thread: share") < strstr(t, "tg16, 2 threads: share") &&
                  strstr(t, "tg16, 2 threads: share") < strstr(t, "pp128, 2 threads: share"),
              "decode tables come before prefill tables, fewer threads first");
    /* lossless */
    HAS(t, "| 20 | 320 | 20 | 100.0% | 0 | none | – | 0 (bit for bit) | 100% |");
    /* issue 39: steps agreeing, 6272 of 20 x 320 */
    HAS(t, "| 20 | 320 | 3 | 15.0% | 0.034 | 2 | 98.00% | – | 1.4% |");
    /* Fig. 8 at N = 128: i2_s 2560x2560 t=1: gops 65.5+1+100 */
    HAS(t, "N = 128, 1 thread, cold cache, GOPS");
    HAS(t, "| i2_s.avx2 (I2_S) b(2.00) | 166.5 | 176.5 |");
    /* ablation: 8000/160 = 50x */
    HAS(t, "| stream=1,topo=1,hier=1,tcl=1 | 160.0 |");
    HAS(t, "50.00× |");
    /* prompt length: N columns */
    HAS(t, "| N=1 | N=8 | N=128 |");
    HAS(t, "| 2 | 64 | 234.50 |");
    /* GEMV: i2_s 2560x2560 t=1 gbps 8.19+1 = 9.19; roofline: min(run 2's own read_DRAM
     * 99.5, compute 150 GOPS * 1638400 B / (2*2560*2560) = 18.75 GB/s); at 2 threads the
     * probe's 20.25 against 37.5 */
    HAS(t, "| i2_s.avx2 (I2_S) | 2.00 | 2 | 9.2–10.2 | compute | 49–54% | 99.5–99.5 / "
           "18.8–18.8* |");
    HAS(t, "| i2_s.avx2 (I2_S) | 2.00 | 2 | 10.2–11.2 | bandwidth | 50–55% | 20.2–20.2 / "
           "37.5–37.5* |");
    HAS(t, "sweep --probe-bw");
    /* unstable marked, failed in place of a number */
    HAS(t, "4.4–4.4†");
    HAS(t, "| vnni_int2.avx2 (VNNI_INT2) | 2.00 | 1 | – |");
    /* ratios: tq2_0 time = 1.5 x i2_s time */
    /* the body shows the largest thread count of the run (2; at 2 threads the
     * fixture's times keep the 1.5 ratio) */
    HAS(t, "Against TQ2_0 at N = 1, 2 threads, cold cache (run 2");
    HAS(t, "| i2_s.avx2 (I2_S) | 1.50× | 1.50× |");
    /* tuned */
    HAS(t, "| i2_s.avx2 | 2560x2560 | 8 | 1 | exhaustive | pf=4096 | pf=8192 | 180.5 | 200.0 | "
           "9.7% |");
    /* plots not generated yet, and the bad rows with reasons */
    HAS(t, "not generated yet");
    HAS(t, "y[3] = 1.5, want 2.5 (seed 1)");
    HAS(t, "K % 192 != 0");
    free(t);
}

Test(report, empty_store_says_what_fills_each_section)
{
    char dir[64], db[128], md[128];
    mp_test_scratch(dir, sizeof dir, db, sizeof db, "report", "empty.db");
    snprintf(md, sizeof md, "%s/R.md", dir);
    mp_store *s;
    mp_test_sql(store_db(db, &s), "INSERT INTO machines(id,fingerprint,cpu_model,cores,pus) VALUES(1,"
                        "'emptyfp','Empty CPU',2,2)");
    mp_store_close(s);
    RUN(0, "report --db %s --out %s", db, md);
    char *t = slurp(md);
    HAS(t, "run `mpbench probe`");
    HAS(t, "mpbench e2e");
    HAS(t, "mpbench e2e --lossless");
    HAS(t, "No end-to-end row of this machine stores a bound");
    HAS(t, "mpbench sweep --quick");
    HAS(t, "mpbench tune");
    HAS(t, "no run measured TQ2_0 at N = 1");
    HAS(t, "## Rows not measured or not stable");
    free(t);
}

static void check_magic(const char *path, const char *magic, size_t len, const char *what)
{
    struct stat sb;
    cr_assert_eq(stat(path, &sb), 0, "%s missing", path);
    cr_assert_gt(sb.st_size, len || *magic ? 100 : 0, "%s is (nearly) empty", path);
    char *b = slurp(path);
    if (len)
        cr_assert_eq(memcmp(b, magic, len), 0, "%s is not a %s", path, what);
    else
        cr_assert(strstr(b, magic), "%s is not a %s", path, what);
    free(b);
}

Test(report, every_plot_kind)
{
    char dir[64], db[128], pd[128], path[256];
    fixture_in(dir, db, "fix.db");
    snprintf(pd, sizeof pd, "%s/plots", dir);
    static const char *const kinds[] = {"roofline", "gbps", "threads", "prompt", "tuner"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        RUN(0, "plot %s --db %s --outdir %s", kinds[i], db, pd);
        snprintf(path, sizeof path, "%s/%s.png", pd, kinds[i]);
        check_magic(path, "\x89PNG\r\n\x1a\n", 8, "PNG");
        snprintf(path, sizeof path, "%s/%s.svg", pd, kinds[i]);
        check_magic(path, "<svg", 0, "SVG");
        snprintf(path, sizeof path, "%s/%s.dat", pd, kinds[i]);
        check_magic(path, "", 0, "data file");
    }
    /* nothing temporary left */
    cr_assert_eq(count_files(pd), 15, "stray files in %s", pd);
    /* all, into a fresh folder; the report then links the plots */
    snprintf(pd, sizeof pd, "%s/all", dir);
    RUN(0, "plot all --db %s --outdir %s", db, pd);
    cr_assert_eq(count_files(pd), 15);
    snprintf(path, sizeof path, "%s/R.md", dir);
    RUN(0, "report --db %s --out %s --plots %s", db, path, pd);
    char *t = slurp(path);
    char link[256];
    snprintf(link, sizeof link, "[roofline](%s/roofline.png)", pd);
    HAS(t, link);
    free(t);
    /* a switch-like space (Vec-LUT techniques) is drawn as a ranked landscape */
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    mp_test_sql(h, "UPDATE runs SET kind='tune' WHERE id=2");
    sqlite3_close(h);
    snprintf(pd, sizeof pd, "%s/switch", dir);
    RUN(0, "plot tuner --variant vlut_i2.avx2 --db %s --outdir %s", db, pd);
    snprintf(path, sizeof path, "%s/tuner.dat", pd);
    t = slurp(path);
    HAS(t, "1 160 \"stream=1,topo=1,hier=1,tcl=1\"");
    HAS(t, "4 8000 \"stream=0,topo=0,hier=0,tcl=0\"");
    free(t);
    snprintf(path, sizeof path, "%s/tuner.png", pd);
    check_magic(path, "\x89PNG\r\n\x1a\n", 8, "PNG");
    /* the tuner plot of a named variant, and of one with no tune run */
    RUN(0, "plot tuner --variant i2_s.avx2 --db %s --outdir %s", db, pd);
    RUN(1, "plot tuner --variant tq2_0.avx2 --db %s --outdir %s/none", db, dir);
    cr_assert(strstr(out, "no data"), "%s", out);
    snprintf(path, sizeof path, "%s/none", dir);
    cr_assert_eq(count_files(path), 0);
}

Test(report, many_variants_fastest_per_method)
{
    char dir[64], db[128], pd[128], path[256];
    fixture_in(dir, db, "many.db");
    snprintf(pd, sizeof pd, "%s/plots", dir);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    for (int i = 0; i < 14; i++) {
        char v[32], m[32];
        snprintf(v, sizeof v, "fake%d.avx2", i);
        snprintf(m, sizeof m, "METH%d", i % 4);
        result(h, 2, v, m, "", 2560, 2560, 1, 1, 2.0, 100, 1.0 + i, 10.0 + i, "ok", "");
    }
    sqlite3_close(h);
    RUN(0, "plot gbps --db %s --outdir %s", db, pd);
    snprintf(path, sizeof path, "%s/gbps.dat", pd);
    char *t = slurp(path);
    /* 3 fixture methods + 4 fake ones, the fastest of each: fake10..fake13 */
    HAS(t, "fake13.avx2");
    HAS(t, "fake10.avx2");
    cr_assert(!strstr(t, "fake9.avx2"), "slower variant of a method kept:\n%s", t);
    free(t);
}

Test(report, warm_cache_option)
{
    char dir[64], db[128], md[128], pd[128];
    fixture_in(dir, db, "fix.db");
    snprintf(md, sizeof md, "%s/R.md", dir);
    snprintf(pd, sizeof pd, "%s/plots", dir);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    result(h, 3, "i2_s.avx2", "I2_S", "pf=8192", 2560, 2560, 1, 1, 2.0, 50, 32.77, 262.1, "ok", "");
    mp_test_sql(h, "UPDATE results SET cache_mode='warm' WHERE id=(SELECT max(id) FROM results)");
    sqlite3_close(h);
    RUN(0, "report --db %s --out %s", db, md);
    char *t = slurp(md);
    HAS(t, "1 warm-cache results (`--warm`) are left out");
    cr_assert(!strstr(t, "32.77"), "a warm row in a cold report:\n%s", t);
    free(t);
    RUN(0, "report --cache warm --db %s --out %s", db, md);
    t = slurp(md);
    HAS(t, "Warm-cache results only");
    HAS(t, "| i2_s.avx2 (I2_S) | 2.00 | 1 | 32.8–32.8 |");
    free(t);
    RUN(0, "plot gbps --cache warm --db %s --outdir %s", db, pd);
    RUN(2, "plot gbps --cache hot --db %s --outdir %s", db, pd);
    cr_assert(strstr(out, "--cache: 'hot'"), "%s", out);
}

Test(report, bad_input)
{
    char dir[64], db[128], path[256], od[128];
    mp_test_scratch(dir, sizeof dir, od, sizeof od, "report", "out");
    /* missing database: exit 2, nothing created */
    snprintf(db, sizeof db, "%s/nosuch.db", dir);
    RUN(2, "report --db %s --out %s/R.md", db, dir);
    cr_assert(strstr(out, "nosuch.db") && strstr(out, "no such database"), "%s", out);
    RUN(2, "plot roofline --db %s --outdir %s", db, od);
    cr_assert(strstr(out, "no such database"), "%s", out);
    struct stat sb;
    cr_assert_neq(stat(db, &sb), 0, "a missing --db was created");
    snprintf(path, sizeof path, "%s/R.md", dir);
    cr_assert_neq(stat(path, &sb), 0, "a report was written from a missing db");
    cr_assert_neq(stat(od, &sb), 0, "plot created its folder for a missing db");
    /* not a database at all, and an empty file: refused, untouched */
    snprintf(db, sizeof db, "%s/text.db", dir);
    FILE *f = fopen(db, "w");
    fputs("hello, not sqlite\n", f);
    fclose(f);
    RUN(3, "report --db %s --out %s/R.md", db, dir);
    cr_assert(strstr(out, "not an mpbench database"), "%s", out);
    char *b = slurp(db);
    cr_assert_str_eq(b, "hello, not sqlite\n");
    free(b);
    snprintf(db, sizeof db, "%s/empty.db", dir);
    fclose(fopen(db, "w"));
    RUN(3, "plot gbps --db %s --outdir %s", db, od); /* issue 40: a database failure, 3 */
    cr_assert(strstr(out, "empty file"), "%s", out);
    stat(db, &sb);
    cr_assert_eq(sb.st_size, 0);
    /* SQLite, but not mpbench's */
    snprintf(db, sizeof db, "%s/other.db", dir);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    mp_test_sql(h, "CREATE TABLE foo(x)");
    sqlite3_close(h);
    RUN(3, "report --db %s --out %s/R.md", db, dir);
    cr_assert(strstr(out, "not mpbench's"), "%s", out);
    cr_assert_neq(stat(path, &sb), 0);
    /* unknown KIND, missing KIND, bad options */
    snprintf(db, sizeof db, "%s/fix.db", dir);
    make_fixture(db);
    RUN(2, "plot bogus --db %s --outdir %s", db, od);
    cr_assert(strstr(out, "unknown KIND 'bogus'"), "%s", out);
    RUN(2, "plot --db %s --outdir %s", db, od);
    cr_assert(strstr(out, "give a KIND"), "%s", out);
    RUN(2, "plot gbps --threads 0 --db %s --outdir %s", db, od);
    cr_assert(strstr(out, "--threads"), "%s", out);
    RUN(2, "plot tuner --variant nosuch.x --db %s --outdir %s", db, od);
    cr_assert(strstr(out, "--variant nosuch.x"), "%s", out);
    RUN(2, "report --db %s --frobnicate", db);
    RUN(3, "report --db %s --out %s", db, dir); /* issue 40: a folder as an output file: 3 */
    cr_assert(strstr(out, "is a directory"), "%s", out);
    RUN(2, "report --db %s --machine nosuchfp --out %s/R.md", db, dir);
    cr_assert(strstr(out, "--machine nosuchfp"), "%s", out);
    cr_assert_neq(stat(od, &sb), 0, "bad plot input created %s", od);
    cr_assert_neq(stat(path, &sb), 0, "bad report input wrote %s", path);
    /* a plot with no data: exit 1 with a clear message, no file left */
    snprintf(db, sizeof db, "%s/bare.db", dir);
    mp_store *s;
    mp_test_sql(store_db(db, &s), "INSERT INTO machines(id,fingerprint,cpu_model,cores,pus) VALUES(1,'b','B',"
                        "2,2)");
    mp_store_close(s);
    static const char *const kinds[] = {"roofline", "gbps", "threads", "prompt", "tuner", "all"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        RUN(1, "plot %s --db %s --outdir %s", kinds[i], db, od);
        cr_assert(strstr(out, "no data") || strstr(out, "no plot had data"), "%s", out);
        cr_assert_eq(count_files(od), 0, "plot %s with no data left files in %s", kinds[i], od);
    }
}

/* What the store's typed readers (store-report.c) answer on the fixture: the
 * report and plots are built only from these, so each question is checked
 * against the rows make_fixture wrote; NULL text reads as "", never crashes. */
typedef struct collect {
    int n;
    char first[2][256];
} collect;

static void collect_counter(const char *event, const char *reason, void *ctx)
{
    collect *c = ctx;
    if (!c->n++) {
        snprintf(c->first[0], sizeof c->first[0], "%s", event);
        snprintf(c->first[1], sizeof c->first[1], "%s", reason);
    }
}

static void collect_tuned(const mp_rep_tuned *t, void *ctx)
{
    collect *c = ctx;
    if (!c->n++) {
        snprintf(c->first[0], sizeof c->first[0], "%s %s %dx%dx%d %d", t->variant, t->chosen,
                 t->m, t->k, t->n, t->evaluations);
        snprintf(c->first[1], sizeof c->first[1], "%s|%s", t->strategy, t->decision);
    }
}

static int collect_eval(const char *params, double us, void *ctx)
{
    collect *c = ctx;
    if (!c->n++)
        snprintf(c->first[0], sizeof c->first[0], "%s %.1f", params, us);
    return 0;
}

static int stop_after_one(const char *params, double us, void *ctx)
{
    (void)params, (void)us;
    ++*(int *)ctx;
    return 1;
}

Test(report, store_typed_readers)
{
    char dir[64], db[128];
    fixture_in(dir, db, "fix.db");
    mp_store *s;
    mp_err e;
    cr_assert_eq(mp_store_open(db, &s, &e), MP_OK, "%s", e.msg);
    mp_rep_machine m;
    cr_assert_eq(mp_store_rep_machine(s, db, NULL, &m, &e), MP_OK, "%s", e.msg);
    cr_assert_str_eq(m.fingerprint, "fixfp01");
    cr_assert_str_eq(m.hypervisor, "KVM");
    cr_assert_eq(m.cores, 2);
    cr_assert_eq(m.l3_kib, 32768);
    cr_assert_eq(mp_store_rep_machine(s, db, "fix", &m, &e), MP_OK, "%s", e.msg);
    cr_assert_eq(mp_store_rep_machine(s, db, "nope", &m, &e), MP_EUSAGE);
    cr_assert(strstr(e.msg, "--machine nope"), "%s", e.msg);
    /* newest row per key: 16 sweep rows, 3 odd statuses, 4 ablation settings, 5 tune settings */
    mp_rep_row *rows;
    int n;
    cr_assert_eq(mp_store_rep_results(s, db, m.id, &rows, &n, &e), MP_OK, "%s", e.msg);
    cr_assert_eq(n, 28);
    int unstable = 0, failed = 0;
    for (int i = 0; i < n; i++) {
        unstable += !strcmp(rows[i].status, "unstable");
        if (!strcmp(rows[i].status, "failed")) {
            failed++;
            cr_assert_str_eq(rows[i].variant, "vnni_int2.avx2");
            cr_assert_str_eq(rows[i].reason, "y[3] = 1.5, want 2.5 (seed 1)");
        }
        cr_assert_str_eq(rows[i].cache, "cold");
        cr_assert(isnan(rows[i].max_rel_err), "NULL max_rel_err must read as NaN");
    }
    cr_assert_eq(unstable, 1);
    cr_assert_eq(failed, 1);
    free(rows);
    /* the full probe (run 1), not the sweep's --probe-bw row */
    mp_probe_row p[16];
    int64_t prun;
    cr_assert_eq(mp_store_rep_probe(s, m.id, p, 16, &prun), 5);
    cr_assert_eq(prun, 1);
    cr_assert_str_eq(p[0].kind, "read_DRAM");
    cr_assert_float_eq(p[1].value, 20.25, 1e-9);
    cr_assert_eq(mp_store_rep_probe(s, m.id, p, 2, &prun), 2, "max is respected");
    double load;
    cr_assert_eq(mp_store_rep_run_load(s, m.id, &load), 5);
    cr_assert_float_eq(load, 1.75, 1e-9);
    collect c = {0};
    cr_assert_eq(mp_store_rep_unavailable_counters(s, m.id, collect_counter, &c), 1);
    cr_assert_str_eq(c.first[0], "cycles");
    cr_assert_str_eq(c.first[1], "perf_event_paranoid=3");
    mp_rep_e2e *e2e;
    char err[256] = "";
    cr_assert_eq(mp_store_rep_e2e(s, m.id, 0, &e2e, err, sizeof err), 10, "%s", err);
    cr_assert_str_eq(e2e[0].model, "bitnetcpp-125m");
    cr_assert_float_eq(e2e[0].tps, 123.45, 1e-9);
    cr_assert_eq(e2e[5].matched, 20);
    cr_assert(e2e[5].logit_diff == 0 && e2e[5].first_diff == 0, "lossless row: %g, %d",
              e2e[5].logit_diff, e2e[5].first_diff);
    cr_assert_float_eq(e2e[6].logit_diff, 0.0339, 1e-12);
    cr_assert_eq(e2e[6].first_diff, 2);
    cr_assert_eq(e2e[6].steps_matched, 6272);
    cr_assert_eq(e2e[5].steps_matched, -1, "NULL: not stored");
    cr_assert(isnan(e2e[0].logit_diff) && e2e[0].first_diff == -1, "not stored: NAN, -1");
    cr_assert_float_eq(e2e[0].bound_tps, 0, 1e-9, "no bound stored: 0");
    cr_assert_str_eq(e2e[0].profile, "");
    cr_assert_float_eq(e2e[7].bound_tps, 20.56, 1e-9);
    cr_assert_float_eq(e2e[7].bound_share, 1.018, 1e-9);
    cr_assert(!strncmp(e2e[7].profile, "qkv=0.003172,", 13), "%s", e2e[7].profile);
    cr_assert_str_eq(e2e[8].status, "unstable");
    free(e2e);
    cr_assert_float_eq(mp_store_rep_run_bw(s, 2, 1), 99.5, 1e-9);
    cr_assert_float_eq(mp_store_rep_run_bw(s, 2, 2), 0, 1e-9);
    /* the ratio run: newest non-tune run with the method at N in the cache mode */
    cr_assert_eq(mp_store_rep_ratio_run(s, m.id, "TQ2_0", 1, "cold"), 2);
    cr_assert_eq(mp_store_rep_ratio_run(s, m.id, "TQ2_0", 1, "warm"), 0);
    cr_assert_eq(mp_store_rep_ratio_run(s, m.id, "I2_S", 8, "cold"), 0, "tune runs don't count");
    cr_assert_eq(mp_store_rep_run_rows(s, 2, 1, "cold", &rows), 11);
    cr_assert_str_eq(rows[0].variant, "i2_s.avx2");
    cr_assert_str_eq(rows[0].params, "pf=8192");
    cr_assert_float_eq(rows[0].median_us, 100.0, 1e-9);
    free(rows);
    memset(&c, 0, sizeof c);
    cr_assert_eq(mp_store_rep_tuned(s, m.id, collect_tuned, &c), 1);
    cr_assert_str_eq(c.first[0], "i2_s.avx2 pf=4096 2560x2560x8 5");
    cr_assert_str_eq(c.first[1], "exhaustive|winner: 9.7% faster");
    /* the tune run's landscape */
    mp_rep_tune_group g;
    cr_assert_eq(mp_store_rep_tune_group(s, m.id, NULL, &g, &e), 1);
    cr_assert_eq(g.run, 3);
    cr_assert_eq(g.settings, 5);
    cr_assert_eq(g.n, 8);
    cr_assert_str_eq(g.variant, "i2_s.avx2");
    memset(&c, 0, sizeof c);
    cr_assert_eq(mp_store_rep_tune_evals(s, &g, collect_eval, &c), 5);
    cr_assert_str_eq(c.first[0], "pf=0 210.0");
    int calls = 0;
    cr_assert_eq(mp_store_rep_tune_evals(s, &g, stop_after_one, &calls), 1);
    cr_assert_eq(calls, 1);
    char dec[64];
    cr_assert_eq(mp_store_rep_tune_decision(s, &g, dec, sizeof dec), 1);
    cr_assert_str_eq(dec, "winner: 9.7% faster");
    cr_assert_eq(mp_store_rep_tune_group(s, m.id, "tq2_0.avx2", &g, &e), 0);
    /* NULL text from the database reads as "" */
    mp_test_sql(mp_store_db(s), "UPDATE tuned SET strategy=NULL, decision=NULL;"
                        "UPDATE run_counters SET reason=NULL;"
                        "UPDATE results SET method=NULL, status=NULL, reason=NULL WHERE run_id=2;"
                        "UPDATE probe SET unit=NULL");
    memset(&c, 0, sizeof c);
    cr_assert_eq(mp_store_rep_tuned(s, m.id, collect_tuned, &c), 1);
    cr_assert_str_eq(c.first[1], "|");
    memset(&c, 0, sizeof c);
    cr_assert_eq(mp_store_rep_unavailable_counters(s, m.id, collect_counter, &c), 1);
    cr_assert_str_eq(c.first[1], "");
    cr_assert_eq(mp_store_rep_tune_group(s, m.id, NULL, &g, &e), 1);
    cr_assert_eq(mp_store_rep_tune_decision(s, &g, dec, sizeof dec), 0);
    cr_assert_eq(mp_store_rep_run_rows(s, 2, 1, "cold", &rows), 11);
    cr_assert_str_eq(rows[0].status, "");
    cr_assert_str_eq(rows[0].method, "");
    free(rows);
    cr_assert_eq(mp_store_rep_probe(s, m.id, p, 16, &prun), 5);
    cr_assert_str_eq(p[0].unit, "");
    mp_probe_row latest[16];
    /* the newest run of kind probe (run 1); run 2 is a sweep whose own read row
     * must not stand in for the machine's probe */
    cr_assert_eq(mp_probe_latest(s, "fixfp01", latest, 16), 5, "the newest probe rows: run 1's");
    cr_assert_str_eq(latest[0].unit, "");
    mp_store_close(s);
    /* and the report still renders from such a database */
    RUN(0, "report --db %s --out %s/R.md", db, dir);
}

/* Issue 16: a kernel faster than its roof makes the report say the roof is
 * wrong, never print a share above 100%; a variant's own compute ceiling (probe
 * row "ceiling_<variant>") is its compute roof. */
Test(report, a_share_above_100_percent_is_flagged_not_clamped)
{
    char dir[64], db[128], md[128];
    mp_store *s;
    sqlite3 *h = fixture_store(dir, db, md, &s);
    /* run 5 (no --probe-bw of its own): the probe's 12.5 GB/s at 1 thread is the
     * bandwidth roof; q8_0 reads 30 GB/s, above it */
    mp_test_sql(h, "INSERT INTO runs(id,machine_id,kind,started,command,load_avg,status) VALUES"
           "(5,1,'run','2026-01-05','mpbench run',0.5,'ok')");
    result(h, 5, "q8_0.avx2", "Q8_0", "", 2560, 2560, 1, 1, 8.5, 100, 30.0, 130, "ok", "");
    /* f16 with its own ceiling at N = 1, 1 thread: 20 GOPS x 13107200 B /
     * (2*2560*2560) = 20 GB/s compute roof, below the bandwidth roof?  no: 12.5
     * < 20, bandwidth bound */
    mp_test_sql(h, "INSERT INTO probe(run_id,kind,threads,bytes,value,unit,n,m,k) VALUES"
           "(1,'ceiling_f16.avx2',1,65536,20,'GOPS',1,6912,2560),"
           "(1,'ceiling_vnni_int1.avx2',1,65536,4,'GOPS',1,6912,2560)");
    result(h, 5, "f16.avx2", "F16", "", 2560, 2560, 1, 1, 16.0, 100, 10.0, 130, "ok", "");
    mp_store_close(s);
    RUN(0, "report --db %s --out %s --plots %s/plots", db, md, dir);
    char *t = slurp(md);
    /* q8_0: 30 GB/s over the probe's 12.5 is 240%: printed as measured, flagged */
    HAS(t, "| q8_0.avx2 (Q8_0) | 8.50 | 1 | 30.0–30.0 | bandwidth | 240–240% (above: roof wrong) |");
    HAS(t, "**Roof wrong for");
    /* f16: compute roof from its ceiling, 20 GB/s, no "*" (not the int8 stand-in) */
    HAS(t, "| f16.avx2 (F16) | 16.00 | 1 | 10.0–10.0 | bandwidth | 80–80% | 12.5–12.5 / "
           "20.0–20.0 |");
    /* vnni_int1: 4 GOPS x 819200 B / 13107200 = 0.25 GB/s compute roof, but it
     * read 4.37: 1748% of it, flagged */
    HAS(t, "| compute | 1748–1748% (above: roof wrong) |");
    /* a share above 100% is never printed without the flag (and never clamped) */
    for (const char *p = t; (p = strchr(p, '%')); p++) {
        const char *b = p;
        while (b > t && ((b[-1] >= '0' && b[-1] <= '9') || b[-1] == '.'))
            b--;
        if (b == p)
            continue;
        double v = atof(b);
        if (b > t && (b[-1] == '-' || b[-1] == '+' || b[-1] == '>' || b[-1] == '<' ||
                      b[-1] == '~' || b[-1] == '\xb1'))
            continue; /* ±spread, thresholds in prose */
        const char *ls = b;
        while (ls > t && ls[-1] != '\n')
            ls--;
        if (strncmp(ls, "| ", 2) || !strstr(ls, "roof"))
            continue; /* only the roofline tables' cells are shares */
        if (v > 100.0)
            cr_assert(!strncmp(p, "% (above: roof wrong)", 21), "a share above 100%% unflagged: "
                      "'%.40s'", b);
    }
    free(t);
}

/* The lossless table's numerics column comes from the catalog row, and the
 * paper's 100% only stands beside the method the paper measured: TL1_0 (int8
 * tables, lossy) is not the paper's lossless TL1 (our TL1_1). */
Test(report, lossless_labels_from_numerics)
{
    char dir[64], db[128], md[128];
    mp_store *s;
    sqlite3 *h = fixture_store(dir, db, md, &s);
    mp_test_sql(h, "INSERT INTO e2e(run_id,model,variant,method,layers,model_layers,test,threads,bpw,"
           "prompts,tokens,matched,match_share,status,reason) VALUES"
           "(4,'bitnetcpp-125m','tl1_0.avx2.bm32','TL1_0',2,11,'lossless',2,2.0,10,80,4,0.4,'ok',''),"
           "(4,'bitnetcpp-125m','tl1_1.avx2.bm32','TL1_1',2,11,'lossless',2,2.0,10,80,10,1.0,'ok',''),"
           "(4,'tiny','tq1_0.avx2','TQ1_0',2,2,'lossless',2,1.69,0,0,0,0,'skipped',"
           "'K = 128 is not a multiple of 256')");
    result(h, 2, "tl1_0.avx2.bm32", "TL1_0", "", 2560, 2560, 1, 1, 2.0, 100, 5, 50, "ok", "");
    mp_test_sql(h, "UPDATE results SET max_rel_err = 0.031 WHERE variant = 'tl1_0.avx2.bm32'");
    mp_store_close(s);
    RUN(0, "report --db %s --out %s", db, md);
    char *t = slurp(md);
    /* rows stored before the logit figures (issue 37) show "–" for them */
    HAS(t, "| tl1_0.avx2.bm32 | TL1_0 | lossy | bitnetcpp-125m | 2/11 | 10 | 80 | 4 | 40.0% | – | – | "
           "– | 0.031 | – |");
    HAS(t, "| tl1_1.avx2.bm32 | TL1_1 | lossless | bitnetcpp-125m | 2/11 | 10 | 80 | 10 | 100.0% | "
           "– | – | – | 0 (bit for bit) | 100% (TL1) |");
    HAS(t, "| i2_s.avx2 | I2_S | lossless |");
    HAS(t, "| tq2_0.avx2 | TQ2_0 | lossy |");
    HAS(t, "skipped: K = 128 is not a multiple of 256");
    free(t);
    /* every catalog row: the label is its exactness */
    for (int i = 0; i < mp_registry_count(); i++) {
        const mp_variant *v = mp_registry_get(i);
        const char *want = v->exactness == MP_LOSSLESS ? "lossless"
                           : v->exactness == MP_LOSSY  ? "lossy"
                                                       : "float";
        cr_assert_str_eq(mp_rep_numerics(v->name), want, "%s", v->name);
    }
    cr_assert_str_eq(mp_rep_numerics("no_such.variant"), "unknown");
}

/* Provenance (issue 16): REPORT.md and its CSV tables are what `mpbench report`
 * makes of the committed results/report.db, byte for byte but the generation
 * line; and --check does notice a changed line. */
Test(report, committed_report_regenerates_from_committed_db, .timeout = 120)
{
    RUN(0, "report --db results/report.db --out REPORT.md --check");
    cr_assert(strstr(out, "match"), "%s", out);
    /* a copy with one number changed must fail, naming the line */
    char dir[64], md[128];
    mp_test_scratch(dir, sizeof dir, md, sizeof md, "report", "REPORT.md");
    char *t = slurp("REPORT.md");
    char *p = strstr(t, "## 1. Machine");
    cr_assert(p, "REPORT.md has no section 1");
    p[3] = '9'; /* "## 9. Machine" */
    FILE *f = fopen(md, "w");
    cr_assert(f);
    fputs(t, f);
    fclose(f);
    free(t);
    RUN(1, "report --db results/report.db --out %s --csv results/report --check", md);
    cr_assert(strstr(out, "differs from its database: line"), "%s", out);
}

/* Issue 39's table "Against llama.cpp end to end": each llama.cpp row against
 * our fastest row of its run with the same head (an 8-bit head's rows against
 * llama.cpp's on the same Q8_0 head, never against an F16-head row); every
 * run's pair, not the newest only, each with the reads made at its rows. */
Test(report, llama_table_pairs_the_same_head)
{
    char dir[64], db[128], md[128];
    mp_store *s;
    sqlite3 *h = fixture_store(dir, db, md, &s);
    mp_test_sql(h, "INSERT INTO runs(id,machine_id,kind,status) VALUES(90,1,'e2e','ok'),"
                   "(91,1,'e2e','ok'),(92,1,'e2e','ok'),(93,1,'e2e','ok')");
    mp_test_sql(h, "INSERT INTO e2e(run_id,model,variant,test,n_gen,threads,reps,tps_median,status,"
                   "lm_head,token_bytes,bw_gbs,bound_tps,bound_share,bw_row_gbs) VALUES"
                   "(90,'bitnet-b1.58-2b-4t','llamacpp.tq2_0','tg16',16,1,3,10.0,'ok','f16',"
                   "1000000000,16.0,16.0,0.625,15.5),"
                   "(90,'bitnet-b1.58-2b-4t','vnni_int2.avx2','tg16',16,1,3,13.0,'ok','f16',"
                   "1000000000,16.0,16.0,0.8125,15.25),"
                   "(91,'bitnet-b1.58-2b-4t','llamacpp.tq2_0','tg16',16,1,3,12.0,'ok','q8_0',"
                   "800000000,16.0,20.0,0.6,NULL),"
                   "(91,'bitnet-b1.58-2b-4t','vnni_int2.avx2','tg16',16,1,3,18.6,'ok','q8_0',"
                   "800000000,16.0,20.0,0.93,NULL),"
                   "(91,'bitnet-b1.58-2b-4t','i2_s.avx2','tg16',16,1,3,19.0,'ok','f16',"
                   "1000000000,16.0,16.0,1.1875,NULL),"
                   "(92,'bitnet-b1.58-2b-4t','llamacpp.tq2_0','tg16',16,1,3,9.0,'ok','f16',"
                   "1000000000,16.0,16.0,0.5625,8.0),"
                   "(92,'bitnet-b1.58-2b-4t','vnni_int2.avx2','tg16',16,1,3,8.5,'ok','f16',"
                   "1000000000,16.0,16.0,0.53125,8.0),"
                   "(93,'bitnet-b1.58-2b-4t','llamacpp.tq2_0','tg16',16,2,3,9.0,'ok','f16',"
                   "1000000000,16.0,16.0,0.5625,35.0),"
                   "(93,'bitnet-b1.58-2b-4t','vnni_int2.avx2','tg16',16,2,3,18.0,'ok','f16',"
                   "1000000000,16.0,16.0,1.125,63.0)");
    mp_test_sql(h, "UPDATE e2e SET reason='interleaved with the other variants; ' WHERE run_id=92");
    mp_store_close(s);
    RUN(0, "report --db %s --out %s", db, md);
    char *t = slurp(md);
    HAS(t, "| 90 | one after another | bitnet-b1.58-2b-4t | tg16 | f16 | 1 | 15.2 / 15.5 | vnni_int2.avx2 | 13.00 | "
           "0.81 | 10.00 | 0.62 | 1.30× | ≥ 1.5×: not met |");
    HAS(t, "| 91 | one after another | bitnet-b1.58-2b-4t | tg16 | q8_0 | 1 | – | vnni_int2.avx2 | 18.60 | 0.93 | "
           "12.00 | 0.60 | 1.55× | ≥ 1.5×: met |");
    /* the same key again in a later run: both runs are listed */
    HAS(t, "| 92 | interleaved | bitnet-b1.58-2b-4t | tg16 | f16 | 1 | 8.0 / 8.0 | vnni_int2.avx2 | 8.50 | "
           "0.53 | 9.00 | 0.56 | 0.94× | ≥ 1.5×: not met |");
    /* a pair made at two bandwidth levels is printed, not judged */
    HAS(t, "| 93 | one after another | bitnet-b1.58-2b-4t | tg16 | f16 | 2 | 63.0 / 35.0 | "
           "vnni_int2.avx2 | 18.00 | 1.12 | 9.00 | 0.56 | 2.00× | not judged: reads 1.80× apart |");
    cr_assert(!strstr(t, "| tg16 | q8_0 | 1 | – | i2_s.avx2"),
              "an F16-head row paired with llama.cpp's Q8_0-head row:\n%s", t);
    free(t);
}
