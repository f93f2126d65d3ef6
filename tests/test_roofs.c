/* test_roofs.c - roofs that hold (issue 37; DESIGN.md "Roofs and conclusions").
 *
 * A roof is what no measurement can exceed.  Checked here:
 *   - with known figures, that a kernel row's compute roof is the probe's
 *     ceiling of its variant at the row's own N and thread count (never a
 *     one-core figure times the threads), turned into GB/s of the row's packed
 *     weights, its bandwidth roof the best read of the probe (read_DRAM, not a
 *     read method beside it), and what stands in, labelled, when the probe has
 *     no ceiling for the row;
 *   - that no row of the committed results/report.db is above its roof by more
 *     than 3%, once its newest probe measures ceilings per N and threads (a
 *     database from before is reported and skipped: its roofs are the wrong
 *     ones this issue replaces); with a planted row above its roof, that the
 *     check does fail.
 * No speed is measured. */
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_test.h"
#include "../harness/core/mp_core.h"
#include "../harness/store/mp_store_internal.h"
#include "../harness/store/mp_store_report.h"
#include "../harness/report/mp_report.h"

static void result(sqlite3 *db, const char *variant, int n, int t, const char *cache,
                   double bpw, double gbps)
{
    const int m = 2560, k = 2560;
    mp_test_sqlf(db,
        "INSERT INTO results(run_id,variant,method,family,isa,params,m,k,n,threads,cache_mode,"
        "bpw,packed_bytes,reps,median_us,gbps,status,reason) VALUES(2,%Q,'X','mad','avx2','',"
        "%d,%d,%d,%d,%Q,%f,%lld,9,100,%f,'ok','')",
        variant, m, k, n, t, cache, bpw, (long long)((double)m * k * bpw / 8), gbps);
}

/* Known figures: read_DRAM 50 / 80 GB/s at 1 / 2 threads (a plain read of 40
 * beside it), i2_s.avx2 ceilings of 100 / 180 GOPS at N = 1 and 300 / 560 at
 * N = 128 (1 / 2 threads) at 6912x2560, an older probe's one-core ceiling of 10
 * for it (ignored) and of 8 for tq2_0.avx2 (its only one); rows at 2560x2560
 * (2 bits: 1638400 bytes, 0.125 bytes per operation at N = 1), each under its
 * roof; a decode e2e row under its bound. */
static void fixture(const char *path)
{
    mp_store *s;
    mp_err e;
    cr_assert_eq(mp_store_open(path, &s, &e), MP_OK, "%s", e.msg);
    sqlite3 *db = mp_store_db(s);
    mp_test_sql(db, "INSERT INTO machines(id,fingerprint,cpu_model,cores,pus) VALUES(1,'roofsfp',"
            "'Roof CPU',2,2)");
    mp_test_sql(db, "INSERT INTO runs(id,machine_id,kind,started,command,status) VALUES"
            "(1,1,'probe','2026-01-01','mpbench probe','ok'),"
            "(2,1,'sweep','2026-01-02','mpbench sweep','ok'),"
            "(3,1,'e2e','2026-01-03','mpbench e2e','ok')");
    mp_test_sql(db, "INSERT INTO probe(run_id,kind,threads,bytes,value,unit,n,m,k) VALUES"
            "(1,'read_DRAM',1,4294967296,50,'GB/s',NULL,NULL,NULL),"
            "(1,'read_DRAM_plain',1,4294967296,40,'GB/s',NULL,NULL,NULL),"
            "(1,'read_DRAM',2,4294967296,80,'GB/s',NULL,NULL,NULL),"
            "(1,'read_DRAM_plain',2,4294967296,70,'GB/s',NULL,NULL,NULL),"
            "(1,'int8_dot_avx2',1,0,500,'GOPS',NULL,NULL,NULL),"
            "(1,'ceiling_i2_s.avx2',1,65536,10,'GOPS',NULL,NULL,NULL),"
            "(1,'ceiling_tq2_0.avx2',1,65536,8,'GOPS',NULL,NULL,NULL),"
            "(1,'ceiling_i2_s.avx2',1,4423680,100,'GOPS',1,6912,2560),"
            "(1,'ceiling_i2_s.avx2',2,4423680,180,'GOPS',1,6912,2560),"
            "(1,'ceiling_i2_s.avx2',1,4423680,300,'GOPS',128,6912,2560),"
            "(1,'ceiling_i2_s.avx2',2,4423680,560,'GOPS',128,6912,2560)");
    result(db, "i2_s.avx2", 1, 1, "cold", 2.0, 10.0);
    result(db, "i2_s.avx2", 1, 2, "cold", 2.0, 20.0);
    result(db, "i2_s.avx2", 128, 1, "cold", 2.0, 0.25);
    result(db, "i2_s.avx2", 128, 2, "cold", 2.0, 0.5);
    result(db, "i2_s.avx2", 8, 1, "cold", 2.0, 4.0);
    result(db, "i2_s.avx2", 1, 4, "cold", 2.0, 20.0);
    result(db, "i2_s.avx2", 1, 1, "warm", 2.0, 12.0);
    result(db, "tq2_0.avx2", 1, 2, "cold", 2.0625, 2.0);
    mp_test_sql(db, "INSERT INTO e2e(run_id,model,variant,method,layers,model_layers,test,threads,"
            "tps_median,bound_tps,bound_share,status,reason) VALUES"
            "(3,'bitnetcpp-125m','i2_s.avx2','I2_S',12,12,'tg16',2,10,10.25,0.9756,'ok',''),"
            "(3,'bitnetcpp-125m','i2_s.avx2','I2_S',12,12,'pp64',2,500,400,1.25,'ok','')");
    mp_store_close(s);
}

static const mp_rep_row *row(const mp_rep *r, const char *variant, int n, int t,
                             const char *cache)
{
    for (int i = 0; i < r->nrows; i++)
        if (!strcmp(r->rows[i].variant, variant) && r->rows[i].n == n &&
            r->rows[i].threads == t && !strcmp(r->rows[i].cache, cache))
            return &r->rows[i];
    cr_assert_fail("no row %s N=%d t=%d %s in the fixture", variant, n, t, cache);
    return NULL;
}

#define ROOF(variant, n, t, cache, want_bw, want_comp, want_bound, want_src)                 \
    do {                                                                                  \
        double bw_, comp_;                                                                \
        const char *b_, *s_;                                                              \
        double roof_ = mp_rep_roof(&r, row(&r, variant, n, t, cache), &bw_, &comp_, &b_, &s_); \
        cr_assert_float_eq(bw_, want_bw, 1e-9, "%s N=%d t=%d %s: bandwidth roof %.6f",      \
                           variant, n, t, cache, bw_);                                    \
        cr_assert_float_eq(comp_, want_comp, 1e-9, "%s N=%d t=%d %s: compute roof %.6f",    \
                           variant, n, t, cache, comp_);                                  \
        cr_assert_str_eq(b_, want_bound, "%s N=%d t=%d %s", variant, n, t, cache);        \
        cr_assert_str_eq(s_, want_src, "%s N=%d t=%d %s", variant, n, t, cache);          \
        cr_assert_float_eq(roof_, fmin(bw_ > 0 ? bw_ : INFINITY, comp_), 1e-9);           \
    } while (0)

Test(roofs, compute_roof_is_the_ceiling_at_the_rows_own_n_and_threads)
{
    char dir[64], db[128];
    mp_test_scratch(dir, sizeof dir, db, sizeof db, "roofs", "roofs.db");
    fixture(db);
    mp_rep r;
    mp_err e;
    cr_assert_eq(mp_rep_open(db, NULL, &r, &e), MP_OK, "%s", e.msg);
    cr_assert(mp_rep_has_ceilings(&r));
    /* read_DRAM is one kind: not read_DRAM_plain beside it */
    cr_assert_float_eq(mp_rep_probe(&r, "read_DRAM", 1, NULL), 50.0, 1e-12);
    cr_assert_float_eq(mp_rep_probe(&r, "int8_dot_", 1, NULL), 500.0, 1e-12);
    /* N = 1: 100 GOPS x 0.125 B/op = 12.5 GB/s; at 2 threads its own 180, not
     * 2 x 100 (25 GB/s) */
    ROOF("i2_s.avx2", 1, 1, "cold", 50.0, 12.5, "compute", mp_rep_src_ceiling);
    ROOF("i2_s.avx2", 1, 2, "cold", 80.0, 22.5, "compute", mp_rep_src_ceiling);
    /* N = 128: 300 GOPS x 0.125 / 128 B/op */
    ROOF("i2_s.avx2", 128, 1, "cold", 50.0, 300 * 0.125 / 128, "compute", mp_rep_src_ceiling);
    ROOF("i2_s.avx2", 128, 2, "cold", 80.0, 560 * 0.125 / 128, "compute", mp_rep_src_ceiling);
    /* no ceiling at N = 8: the smallest N above (128) stands in, labelled */
    ROOF("i2_s.avx2", 8, 1, "cold", 50.0, 300 * 0.125 / 8, "compute", "ceiling at another N");
    /* no 4-thread probe: the nearest below, labelled; the bandwidth too */
    ROOF("i2_s.avx2", 1, 4, "cold", 80.0, 22.5, "compute", "ceiling at another thread count");
    /* warm weights: no DRAM roof */
    ROOF("i2_s.avx2", 1, 1, "warm", 0.0, 12.5, "compute", mp_rep_src_ceiling);
    /* only an older probe's one-core ceiling: times the threads, labelled:
     * 8 x 2 GOPS x 1689600 B / 13107200 ops */
    ROOF("tq2_0.avx2", 1, 2, "cold", 80.0, 16 * 1689600.0 / 13107200, "compute",
         "old one-core L1 ceiling x threads");
    /* the nearest ceiling: thread count first, then N */
    int gn = 0, gt = 0;
    cr_assert_float_eq(mp_rep_ceiling(&r, "i2_s.avx2", 256, 2, &gn, &gt), 560.0, 1e-12);
    cr_assert_eq(gn, 128);
    cr_assert_eq(gt, 2);
    cr_assert_float_eq(mp_rep_ceiling(&r, "i2_s.avx2", 64, 2, &gn, &gt), 560.0, 1e-12);
    cr_assert_eq(mp_rep_ceiling(&r, "tq2_0.avx2", 1, 1, NULL, NULL), 0.0);
    cr_assert_float_eq(mp_rep_ceiling_legacy(&r, "tq2_0.avx2"), 8.0, 1e-12);
    mp_rep_close(&r);
}

typedef struct lines {
    char text[4096];
    int n;
} lines;

static void keep_line(const char *line, void *ctx)
{
    lines *l = ctx;
    size_t u = strlen(l->text);
    if (l->n++ < 12)
        snprintf(l->text + u, sizeof l->text - u, "\n  %s", line);
}

/* Rows of db above their roofs by more than 3% (lines into l); *has_ceilings
 * whether its newest probe measures ceilings per N and threads. */
static int above_roof(const char *db, lines *l, int *checked, int *has_ceilings)
{
    mp_rep r;
    mp_err e;
    cr_assert_eq(mp_rep_open(db, NULL, &r, &e), MP_OK, "%s", e.msg);
    mp_rep_e2e *x = NULL;
    char err[256];
    int ne = mp_store_rep_e2e(r.store, r.mach.id, 0, &x, err, sizeof err);
    cr_assert_geq(ne, -1, "%s: e2e rows unreadable: %s", db, err);
    memset(l, 0, sizeof *l);
    *has_ceilings = mp_rep_has_ceilings(&r);
    int n = mp_rep_roof_check(&r, x, ne > 0 ? ne : 0, 0.03, keep_line, l, checked);
    free(x);
    mp_rep_close(&r);
    return n;
}

/* The committed database: every kernel row and decode row under its roof (3%
 * for noise).  MPBENCH_ROOF_DB checks another database.
 *
 * Roofs here are bests over every probe of the machine.  On the data of
 * 2026-11-29 (AMD EPYC, AVX2 only) 4 of 531 rows were above their roofs, all
 * N = 128 on two threads: a two-thread ceiling timed whole calls, and a call
 * waits for its slower thread.  Ceilings now sum each thread's best rate
 * (engine/ceiling.c); one probe with that left tq1_0.avx2 (a row at 1.054x,
 * in a minute where two threads ran 2.3x one), which a longer ceiling window
 * (--ceiling-time 4) measured above the row.  Planting a row above its roof
 * is caught (roofs/a_row_above_its_roof_is_caught). */
Test(roofs, committed_rows_are_under_their_roofs, .timeout = 120)
{
    const char *db = getenv("MPBENCH_ROOF_DB");
    if (!db || !*db)
        db = "results/report.db";
    if (access(db, R_OK) != 0)
        cr_skip_test("%s: no database to check", db);
    lines l;
    int checked = 0, has = 0;
    int above = above_roof(db, &l, &checked, &has);
    cr_assert(has, "%s: the probe predates per-N ceilings: run `mpbench probe`", db);
    cr_assert_gt(checked, 0, "%s: no row has a roof (no probe?)", db);
    cr_assert_eq(above, 0, "%s: %d of %d rows above their roof by more than 3%% (the roof is "
                           "wrong: re-measure it, see DESIGN.md \"Roofs and conclusions\"):%s",
                 db, above, checked, l.text);
}

/* The check fails on a planted row above its roof: a kernel row edited 5% above
 * its compute roof, then a decode row 5% above its bound. */
Test(roofs, a_row_above_its_roof_is_caught, .timeout = 120)
{
    char dir[64], db[128];
    mp_test_scratch(dir, sizeof dir, db, sizeof db, "roofs", "roofs.db");
    fixture(db);
    lines l;
    int checked = 0, has = 0;
    cr_assert_eq(above_roof(db, &l, &checked, &has), 0, "the fixture is under its roofs:%s",
                 l.text);
    cr_assert(has);
    /* 8 kernel rows, the decode row (prefill has no memory bound) */
    cr_assert_eq(checked, 9);
    mp_store *s;
    mp_err e;
    cr_assert_eq(mp_store_open(db, &s, &e), MP_OK, "%s", e.msg);
    /* 2 threads, N = 1: 22.5 GB/s from its own ceiling (2 x the one-thread
     * ceiling would have made it 25, and 23.6 legal) */
    mp_test_sql(mp_store_db(s), "UPDATE results SET gbps = 22.5 * 1.05 WHERE variant = 'i2_s.avx2' AND "
                        "n = 1 AND threads = 2 AND cache_mode = 'cold'");
    mp_store_close(s);
    cr_assert_eq(above_roof(db, &l, &checked, &has), 1, "%s", l.text);
    cr_assert(strstr(l.text, "i2_s.avx2 2560x2560 N=1 t=2 cold"), "%s", l.text);
    cr_assert(strstr(l.text, "compute roof 22.50"), "%s", l.text);
    /* within 3%: noise, not a wrong roof */
    cr_assert_eq(mp_store_open(db, &s, &e), MP_OK, "%s", e.msg);
    mp_test_sql(mp_store_db(s), "UPDATE results SET gbps = 22.5 * 1.02 WHERE variant = 'i2_s.avx2' AND "
                        "n = 1 AND threads = 2 AND cache_mode = 'cold';"
                        "UPDATE e2e SET tps_median = 10.25 * 1.05 WHERE test = 'tg16'");
    mp_store_close(s);
    cr_assert_eq(above_roof(db, &l, &checked, &has), 1, "%s", l.text);
    cr_assert(strstr(l.text, "e2e bitnetcpp-125m i2_s.avx2 tg16 t=2"), "%s", l.text);
}
