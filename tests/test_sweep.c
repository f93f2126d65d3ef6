/* test_sweep.c - the sweep engine: resume after kill -9, two sweeps on one
 * database, shard + merge, counters on both paths (refused here, counted where
 * allowed), bad databases. */
#include <criterion/criterion.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mp_test.h"
#include "../variants/mp_registry.h"

static char out[65536];

#define SWEEP_SHAPES "64x256,128x256,192x256,256x256,64x512,128x512,192x512,256x512"
#define KEYS "SELECT count(*) FROM results"
#define DISTINCT "SELECT count(DISTINCT variant||'|'||params||'|'||m||'|'||k||'|'||n||'|'||threads) FROM results"

Test(sweep, resume_after_kill_9_measures_only_what_is_missing, .timeout = 300)
{
    char dir[64], db[128];
    mp_test_scratch(dir, sizeof dir, db, sizeof db, "sweep", "s.db");
    /* naive2 is slow enough that the sweep is still running when we kill it */
    char *args[] = {"mpbench", "sweep", "--variant", "naive2.scalar,i2_s.scalar",
                    "--shape", SWEEP_SHAPES, "--n", "1,3", "--reps", "3", "--min-time", "0.15",
                    "--counters", "none", "--db", db, NULL};
    long partial = mp_test_kill_midway(args, db, KEYS, 2);
    int st;
    cr_assert_lt(partial, 32, "killed sweep already had everything");
    /* the same command again: only the missing results are measured, and it says so */
    char err[160], want[96], got[1024] = "";
    snprintf(err, sizeof err, "%s/resume.err", dir);
    pid_t pid = mp_test_spawn(args, err);
    waitpid(pid, &st, 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "resumed sweep failed");
    FILE *f = fopen(err, "r");
    cr_assert(f);
    size_t ng = fread(got, 1, sizeof got - 1, f);
    got[ng] = 0;
    fclose(f);
    snprintf(want, sizeof want, "resuming, %ld of 32 results already stored", partial);
    cr_assert(strstr(got, want), "resumed sweep did not say '%s': %s", want, got);
    cr_assert_eq(mp_test_query_long(db, KEYS), 32, "2 variants x 8 shapes x 2 n");
    cr_assert_eq(mp_test_query_long(db, DISTINCT), 32, "each result exactly once");
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM runs WHERE kind='sweep'"), 2);
    /* the second run measured only the rest */
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM results WHERE run_id=(SELECT max(id) FROM runs)"),
                 32 - partial);
    /* a third time: nothing left to do, nothing added */
    pid = mp_test_spawn(args, NULL);
    waitpid(pid, &st, 0);
    cr_assert_eq(mp_test_query_long(db, KEYS), 32);
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM runs"), 2, "no empty run recorded");
}

Test(sweep, two_sweeps_on_one_database_at_once, .timeout = 300)
{
    char dir[64], db[128];
    mp_test_scratch(dir, sizeof dir, db, sizeof db, "sweep", "c.db");
    char *a[] = {"mpbench", "sweep", "--variant", "i2_s.scalar,naive2.scalar", "--shape",
                 SWEEP_SHAPES, "--n", "1", "--reps", "2", "--min-time", "0", "--db", db, NULL};
    char *b[] = {"mpbench", "sweep", "--variant", "i2_s*,f32.scalar", "--shape", SWEEP_SHAPES,
                 "--n", "2", "--reps", "2", "--min-time", "0", "--db", db, NULL};
    pid_t pa = mp_test_spawn(a, NULL), pb = mp_test_spawn(b, NULL);
    int sa, sb;
    waitpid(pa, &sa, 0);
    waitpid(pb, &sb, 0);
    cr_assert(WIFEXITED(sa) && WEXITSTATUS(sa) == 0, "sweep A failed");
    cr_assert(WIFEXITED(sb) && WEXITSTATUS(sb) == 0, "sweep B failed");
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM results WHERE n=1"), 16);
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM results WHERE n=2"), 32);
    char ic[64];
    mp_test_query_text(db, "PRAGMA integrity_check", ic, sizeof ic);
    cr_assert_str_eq(ic, "ok");
}

Test(sweep, shard_and_merge_equal_the_unsharded_set, .timeout = 300)
{
    char dir[64];
    mp_test_tmpdir(dir, sizeof dir, "sweep");
    const char *common = "--variant 'i2_s.avx2,naive2.scalar' --shape 64x256,128x512,96x384 "
                         "--n 1,2 --threads 1,2 --reps 2 --min-time 0";
    char cmd[1024];
    for (int i = 1; i <= 3; i++) {
        snprintf(cmd, sizeof cmd, "sweep %s --shard %d/3 --db %s/s%d.db", common, i, dir, i);
        cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s\n%s", cmd, out);
    }
    snprintf(cmd, sizeof cmd, "sweep %s --db %s/all.db", common, dir);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
    snprintf(cmd, sizeof cmd, "merge %s/m.db %s/s1.db %s/s2.db %s/s3.db %s/s2.db", dir, dir, dir, dir, dir);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
    cr_assert(strstr(out, "0 runs added, 1 already present"), "re-merging a shard adds nothing:\n%s", out);
    char m[128], all[128];
    snprintf(m, sizeof m, "%s/m.db", dir);
    snprintf(all, sizeof all, "%s/all.db", dir);
    cr_assert_eq(mp_test_query_long(all, KEYS), 24);
    cr_assert_eq(mp_test_query_long(m, KEYS), 24);
    cr_assert_eq(mp_test_query_long(m, DISTINCT), 24);
    /* the same keys, not just the same count */
    snprintf(cmd, sizeof cmd,
             "sqlite3 %s \"ATTACH '%s' AS o; SELECT count(*) FROM results r WHERE NOT EXISTS "
             "(SELECT 1 FROM o.results x WHERE x.variant=r.variant AND x.m=r.m AND x.k=r.k AND "
             "x.n=r.n AND x.threads=r.threads AND x.params=r.params)\"", m, all);
    FILE *p = popen(cmd, "r");
    int missing = -1;
    cr_assert_eq(fscanf(p, "%d", &missing), 1);
    pclose(p);
    cr_assert_eq(missing, 0);
    /* the machine fingerprint came along */
    cr_assert_eq(mp_test_query_long(m, "SELECT count(*) FROM machines WHERE fingerprint<>''"), 1);
    /* the merged database knows the sweep is complete */
    snprintf(cmd, sizeof cmd, "sweep %s --db %s", common, m);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0);
    cr_assert(strstr(out, "all 24 results already stored"), "%s", out);
}

Test(sweep, counters_software_positive_hardware_recorded)
{
    char dir[64], db[128], cmd[512];
    mp_test_scratch(dir, sizeof dir, db, sizeof db, "sweep", "k.db");
    snprintf(cmd, sizeof cmd, "sweep --variant i2_s.scalar --shape 256x1024 --n 4 --threads 1,2 "
                              "--reps 3 --min-time 0 --counters cycles,instructions --db %s", db);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
    /* software events: always counted, positive */
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM counters WHERE event='task-clock' AND value>0"), 2);
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM run_counters WHERE event='task-clock' AND status='ok'"), 1);
    /* cycles: counted where the machine allows it, otherwise recorded once with a reason */
    long counted = mp_test_query_long(db, "SELECT count(*) FROM counters WHERE event='cycles' AND value>0");
    long refused = mp_test_query_long(db, "SELECT count(*) FROM run_counters WHERE event='cycles' AND "
                                  "status='unavailable' AND length(reason)>0");
    cr_assert((counted == 2 && refused == 0) || (counted == 0 && refused == 1),
              "cycles neither counted nor recorded unavailable (counted %ld, refused %ld)", counted,
              refused);
    /* an unknown event is a usage error, before anything is measured */
    snprintf(cmd, sizeof cmd, "sweep --variant i2_s.scalar --shape 64x128 --counters bogus_event_xyz --db %s", db);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 2, "%s", out);
    cr_assert(strstr(out, "unknown event 'bogus_event_xyz'"), "%s", out);
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM runs"), 1, "the failed sweep left a run row");
    /* the PAPI backend runs too: events it cannot count are recorded, the sweep succeeds */
    snprintf(cmd, sizeof cmd, "sweep --variant i2_s.scalar --shape 64x128 --counters cycles "
                              "--counters-backend papi --reps 2 --min-time 0 --db %s", db);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
}

Test(sweep, bad_databases_and_arguments)
{
    char dir[64], path[128], cmd[512];
    mp_test_scratch(dir, sizeof dir, path, sizeof path, "sweep", "bad.db");
    FILE *f = fopen(path, "w");
    fputs("SQLite format 3 but not really, just text that looks odd", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "sweep --variant i2_s.scalar --shape 64x128 --db %s", path);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 3, "%s", out);
    cr_assert(strstr(out, "not an mpbench database"), "%s", out);
    f = fopen(path, "r");
    char buf[128] = "";
    cr_assert(fgets(buf, sizeof buf, f));
    fclose(f);
    cr_assert(strstr(buf, "just text"), "file changed");
    cr_assert_eq(mp_test_cli(out, sizeof out, "sweep --variant i2_s.scalar --shape 64x128 --shard 3/2 --no-such"), 2);
    cr_assert_eq(mp_test_cli(out, sizeof out, "sweep --variant i2_s.scalar --shape 64x128 --shard 3/2"), 2);
    cr_assert(strstr(out, "--shard"), "%s", out);
    cr_assert_eq(mp_test_cli(out, sizeof out, "sweep --variant i2_s.scalar --shape 64x128 --params some"), 2);
    snprintf(cmd, sizeof cmd, "merge %s/out.db %s", dir, path);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 3, "%s", out);
    cr_assert(strstr(out, "not an mpbench database"), "%s", out);
}

Test(probe, stores_positive_figures_shown_by_list_machine, .timeout = 300)
{
    char dir[64], db[128], cmd[512];
    mp_test_scratch(dir, sizeof dir, db, sizeof db, "sweep", "p.db");
    snprintf(cmd, sizeof cmd, "probe --quick --threads 1,2 --ceiling-variants i2_s.scalar --db %s "
                              "--format csv", db);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
    cr_assert(strstr(out, "read_DRAM,1,"), "%s", out);
    /* per thread count, 4 levels x (read, each read method, copy, triad), then
     * 2 peaks and the clock the ceilings ran at, all positive */
    mp_probe_read rd[8];
    long nr = mp_registry_probe_reads(rd, 8);
    cr_assert_geq(nr, 2, "plain and prefetched reads at least");
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM probe WHERE value > 0 AND kind NOT LIKE "
                                "'ceiling_%'"), 2 * 4 * (nr + 3) + 2 + 1);
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM probe WHERE kind = 'clock' AND "
                                "threads = 1 AND value > 0 AND unit = 'Gadd/s'"), 1);
    /* issue 37: read_<level> is the best of its methods, at every thread count */
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM probe a WHERE a.kind IN ('read_L1',"
                                "'read_L2','read_L3','read_DRAM') AND a.value IS NOT (SELECT "
                                "max(b.value) FROM probe b WHERE b.run_id=a.run_id AND "
                                "b.threads=a.threads AND b.kind LIKE a.kind||'\\_%' ESCAPE '\\')"),
                 0);
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM probe WHERE kind LIKE 'read\\_DRAM\\_%' "
                                "ESCAPE '\\'"), 2 * nr);
    /* issue 37: the compute ceilings, one per N (1 and 128 by default) and
     * thread count, each at M >= 1024 of a real K, in GOPS */
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM probe WHERE kind LIKE 'ceiling_%'"), 4);
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM probe WHERE kind = 'ceiling_i2_s.scalar' "
                                "AND value > 0 AND unit = 'GOPS' AND m >= 1024 AND k IN (2560, 6912) AND "
                                "((n = 1 AND threads IN (1, 2)) OR (n = 128 AND threads IN (1, 2)))"),
                 4);
    cr_assert_eq(mp_test_query_long(db, "SELECT count(DISTINCT n || '/' || threads) FROM probe WHERE "
                                "kind = 'ceiling_i2_s.scalar'"), 4);
    /* the other rows carry no N or shape */
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM probe WHERE kind NOT LIKE 'ceiling_%' AND "
                                "(n IS NOT NULL OR m IS NOT NULL)"), 0);
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM probe WHERE kind LIKE 'int8_dot%' AND unit='GOPS'"), 1);
    snprintf(cmd, sizeof cmd, "list machine --db %s", db);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
    cr_assert(strstr(out, "probe (newest in"), "%s", out);
    cr_assert(strstr(out, "triad_L2"), "%s", out);
    /* each round measures another real shape and the best is kept with its
     * shape: which one wins depends on the host's noise */
    cr_assert(strstr(out, "x2560 N=128") || strstr(out, "x6912 N=128"),
              "the ceiling's shape and N are shown: %s", out);
    /* bad --ceiling-n and --ceiling-variants are refused before anything runs */
    snprintf(cmd, sizeof cmd, "probe --ceiling-n 0 --db %s", db);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 2, "%s", out);
    snprintf(cmd, sizeof cmd, "probe --ceiling-time 0 --db %s", db);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 2, "%s", out);
    snprintf(cmd, sizeof cmd, "probe --ceiling-variants no_such_variant --db %s", db);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 2, "%s", out);
    cr_assert(strstr(out, "--ceiling-variants: 'no_such_variant' matches no variant"), "%s", out);
}
