/* test_engine.c - the one measurement engine (issue 14): tune and e2e store
 * each row as measured and resume after kill -9 with nothing duplicated; a
 * failed point prints a command that reproduces it; a database of the previous
 * schema version opens and migrates; the layering rules of DESIGN.md hold and
 * their checker can fail; a resting pool sleeps and wakes for the next run. */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mp_test.h"
#include "../harness/core/mp_core.h"
#include "../harness/store/mp_store.h"
#include "../harness/store/mp_store_schema.h"

static char out[65536];

static void run_to_end(char *const *args)
{
    int st;
    pid_t pid = mp_test_spawn(args, NULL);
    waitpid(pid, &st, 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the resumed run failed (%d)", st);
}

Test(engine, e2e_resumes_after_kill_9_without_duplicates, .timeout = 600)
{
    char dir[64], db[128];
    mp_test_scratch(dir, sizeof dir, db, sizeof db, "engine", "e.db");
    char *args[] = {"mpbench", "e2e", "--model", "bitnetcpp-125m", "--layers", "1",
                    "--variant", "i2_s.scalar,i2_s.avx2,tq2_0.scalar,tq2_0.avx2,naive2.scalar",
                    "--pp", "16", "--tg", "4", "--reps", "2", "--threads", "1", "--db", db, NULL};
    long partial = mp_test_kill_midway(args, db, "SELECT count(*) FROM e2e", 1);
    cr_assert_lt(partial, 10, "killed run already had every row");
    run_to_end(args);
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM e2e"), 10, "5 variants x (pp16, tg4)");
    cr_assert_eq(mp_test_query_long(db, "SELECT count(DISTINCT variant||'|'||test||'|'||threads) FROM e2e"),
                 10, "each row once");
    cr_assert_eq(mp_test_query_long(db, "SELECT count(DISTINCT plan_key) FROM e2e"), 1);
    /* the rows measured before the kill were kept, not measured again */
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM e2e WHERE run_id=(SELECT min(id) FROM runs)"),
                 partial);
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM e2e WHERE status!='ok'"), 0);
    /* a third time: nothing measured, nothing added */
    run_to_end(args);
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM e2e"), 10);
}

Test(engine, tune_resumes_after_kill_9_without_duplicates, .timeout = 600)
{
    char dir[64], db[128], conf[128];
    mp_test_scratch(dir, sizeof dir, db, sizeof db, "engine", "t.db");
    snprintf(conf, sizeof conf, "%s/t.conf", dir);
    char *args[] = {"mpbench", "tune", "--variant", "i2_s.avx2", "--model", "bitnet-b1.58-2b-4t",
                    "--n", "1,8", "--threads", "1", "--warm", "--strategy", "exhaustive",
                    "--db", db, "--out", conf, NULL};
    long partial = mp_test_kill_midway(args, db, "SELECT count(*) FROM results", 1);
    cr_assert_lt(mp_test_query_long(db, "SELECT count(*) FROM tuned"), 8, "killed tune had decided all");
    run_to_end(args);
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM tuned"), 8, "4 shapes x 2 n");
    cr_assert_eq(mp_test_query_long(db, "SELECT count(DISTINCT variant||'|'||m||'|'||k||'|'||n||'|'||threads) "
                                "FROM tuned"), 8, "each decision once");
    long evals = mp_test_query_long(db, "SELECT count(*) FROM results");
    cr_assert_eq(mp_test_query_long(db, "SELECT count(DISTINCT sweep_key||'|'||params||'|'||m||'|'||k||'|'"
                                "||n||'|'||threads) FROM results"), evals,
                 "each evaluation stored once");
    cr_assert_geq(evals, partial);
    /* the evaluations stored before the kill were reused, not measured again */
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM results WHERE run_id=(SELECT min(id) FROM runs)"),
                 partial);
    cr_assert_eq(access(conf, F_OK), 0, "the tuned config was written");
}

Test(engine, failed_point_prints_a_command_that_reproduces_it, .timeout = 120)
{
    char dir[64], cmd[512];
    mp_test_tmpdir(dir, sizeof dir, "engine");
    snprintf(cmd, sizeof cmd, "sweep --variant wrong_on_purpose.scalar,i2_s.scalar --shape "
                              "128x256,64x512 --n 1,3 --warm --reps 3 --min-time 0 --db %s/w.db",
             dir);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 1, "a wrong variant must fail: %s", out);
    const char *at = strstr(out, "rerun: mpbench ");
    cr_assert(at, "no rerun line: %s", out);
    char line[512], failed[512];
    snprintf(line, sizeof line, "%s", at + strlen("rerun: mpbench "));
    line[strcspn(line, "\n")] = 0;
    /* the FAILED line just before it names the point and the first bad output */
    const char *f = strstr(out, "FAILED wrong_on_purpose.scalar");
    cr_assert(f && f < at);
    snprintf(failed, sizeof failed, "%s", f);
    failed[strcspn(failed, "\n")] = 0;
    cr_assert(strstr(line, "--variant wrong_on_purpose.scalar") && strstr(line, "--shape ") &&
              strstr(line, "--n ") && strstr(line, "--threads 1") && strstr(line, "--seed 1"),
              "%s", line);
    int rc = mp_test_cli(out, sizeof out, line);
    cr_assert_eq(rc, 1, "the rerun must fail the same way: %s", out);
    cr_assert(strstr(out, failed), "rerun '%s' gave\n%s\nexpected '%s'", line, out, failed);
    /* the correct variant in the same sweep passed */
    cr_assert_eq(mp_test_cli(out, sizeof out,
                             "run --variant i2_s.scalar --shape 128x256 --n 3 --warm --no-db"), 0,
                 "%s", out);
}

/* A timed call on 2 threads splits its rows in chunks a thread takes from its own
 * share, then from the other's (harness/engine/measure.c): every row must be
 * computed once, whoever takes it.  16384x1024 is big enough for 4 chunks per
 * thread and small enough that every output row is checked against the
 * reference (outputs are poisoned with NaN first), for 1 and 3 tokens. */
Test(engine, two_threads_compute_every_row_of_a_call_split_in_chunks, .timeout = 300)
{
    int rc = mp_test_cli(out, sizeof out,
                         "run --variant 'i2_s.avx2,tq2_0.avx2,vnni_int2.avx2,tl2_0.avx2.bm16,f16.avx2' "
                         "--shape 16384x1024 --n 1,3 --threads 2 --warm --reps 2 --min-time 0 "
                         "--no-db --format csv");
    cr_assert_eq(rc, 0, "%s", out);
    int rows = 0;
    for (const char *p = out; (p = strstr(p, ",16384,1024,")); p++)
        rows++;
    cr_assert_eq(rows, 10, "5 variants x 2 n, each measured:\n%s", out);
    cr_assert_null(strstr(out, "FAILED"), "%s", out);
}

/* CPU time thread `tid` of this process has used, in ns (schedstat, else the
 * tick-granular utime + stime of stat). */
static double thread_cpu_ns(int tid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", tid);
    FILE *f = fopen(path, "r");
    unsigned long long ns = 0, ut = 0, st = 0;
    if (f) {
        int ok = fscanf(f, "%llu", &ns) == 1;
        fclose(f);
        if (ok)
            return (double)ns;
    }
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
    f = fopen(path, "r");
    cr_assert(f, "cannot read %s", path);
    char buf[1024];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')'); /* fields after the command name: 14 and 15 */
    cr_assert(p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
                          &st) == 2, "cannot parse %s", path);
    return (double)(ut + st) * 1e9 / (double)sysconf(_SC_CLK_TCK);
}

static void count_task(void *arg, int tid, int nt)
{
    (void)tid, (void)nt;
    atomic_fetch_add((_Atomic int *)arg, 1);
}

/* Issue 37: while a self-threaded peer runs, the pool's idle worker sleeps
 * (futex) instead of spinning or yielding on the core the peer's thread needs;
 * the next run wakes it.  Its CPU time over 0.2 s of rest must be under a tenth
 * of what it takes idling over the same 0.2 s just before (spinning, then
 * yielding); a thousand rest / run rounds must lose no wake-up (each run waits
 * for every thread: a lost one hangs to the timeout); destroying a resting pool
 * must return. */
Test(engine, a_resting_pool_sleeps_and_wakes_for_the_next_run, .timeout = 60)
{
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
        cr_skip_test("needs 2 CPUs: a resting worker's CPU time is compared with an idling one's");
    char binding[256];
    mp_pool *pool = mp_pool_create(2, binding, sizeof binding);
    const int tid = mp_pool_tids(pool)[1];
    _Atomic int ran = 0;
    mp_pool_run(pool, count_task, &ran);
    cr_assert_eq(atomic_load(&ran), 2);
    double c0 = thread_cpu_ns(tid);
    usleep(200000);
    double idling = thread_cpu_ns(tid) - c0;
    mp_pool_rest(pool, 1);
    usleep(10000); /* it sees the flag at its next spin */
    c0 = thread_cpu_ns(tid);
    usleep(200000);
    double resting = thread_cpu_ns(tid) - c0;
    fprintf(stderr, "engine: pool worker CPU over 0.2 s: %.2f ms idling, %.3f ms resting\n",
            idling / 1e6, resting / 1e6);
    cr_assert_lt(resting, idling / 10, "a resting worker used %.3f ms of CPU in 0.2 s, an "
                 "idling one %.3f ms", resting / 1e6, idling / 1e6);
    for (int i = 0; i < 1000; i++) {
        mp_pool_rest(pool, 1);
        if (i % 2)
            usleep(50); /* some rounds find the worker asleep, others still spinning */
        mp_pool_run(pool, count_task, &ran);
    }
    cr_assert_eq(atomic_load(&ran), 2 + 2 * 1000, "every thread ran every round");
    mp_pool_rest(pool, 1);
    usleep(10000);
    mp_pool_destroy(pool);
}

Test(engine, opens_a_database_of_the_previous_schema_version)
{
    char dir[64], db[128];
    mp_test_scratch(dir, sizeof dir, db, sizeof db, "engine", "old.db");
    /* build a version-(N-1) database by hand, with rows in the tables N changes */
    sqlite3 *h = mp_test_schema(db, mp_schema_migrations, MP_SCHEMA_VERSION - 1);
    char sql[512];
    snprintf(sql, sizeof sql,
             "INSERT INTO meta VALUES('schema_version','%d');"
             "INSERT INTO machines(id,fingerprint) VALUES(1,'old-machine');"
             "INSERT INTO runs(id,machine_id,kind,status) VALUES(1,1,'e2e','ok');"
             "INSERT INTO e2e(run_id,model,variant,test,threads,status) "
             "VALUES(1,'tiny','i2_s.avx2','tg16',1,'ok');"
             "INSERT INTO tuned(run_id,variant,m,k,n,threads,decision) "
             "VALUES(1,'i2_s.avx2',64,512,1,1,'default is the best found');",
             MP_SCHEMA_VERSION - 1);
    cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
    sqlite3_close(h);
    mp_store *s;
    mp_err e;
    cr_assert_eq(mp_store_open(db, &s, &e), MP_OK, "%s", e.msg);
    mp_store_close(s);
    snprintf(sql, sizeof sql, "SELECT value FROM meta WHERE key='schema_version'");
    cr_assert_eq(mp_test_query_long(db, sql), MP_SCHEMA_VERSION, "migrated to the current version");
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM e2e WHERE plan_key IS NULL"), 1,
                 "the old e2e row kept, with the new column");
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM tuned WHERE plan_key IS NULL"), 1);
    /* and the CLI can use it */
    char cmd[256];
    snprintf(cmd, sizeof cmd, "tune --report --db %s --format csv", db);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
    cr_assert(strstr(out, "i2_s.avx2,64,512,1,1"), "%s", out);
}

/* scripts/check-layers.sh on a copy of the tree: clean as it is, and failing
 * for each kind of violation planted in the copy. */
Test(engine, layer_rules_hold_and_their_check_can_fail, .timeout = 120)
{
    char dir[64], cmd[1024];
    mp_test_tmpdir(dir, sizeof dir, "engine");
    snprintf(cmd, sizeof cmd, "cp -r harness tuner variants kernels %s/ && mkdir %s/scripts && "
                              "cp scripts/check-layers.sh %s/scripts/", dir, dir, dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/scripts/check-layers.sh > /dev/null", dir);
    cr_assert_eq(system(cmd), 0, "the tree itself breaks a layering rule: run scripts/check-layers.sh");
    static const struct {
        const char *file, *line;
    } plant[] = {
        {"harness/cli/cli-run.c", "#include \"../kernels/vnni/vnni.h\""},
        {"tuner/search.c", "#include \"../harness/mp_harness.h\""},
        {"harness/cli/cli-list.c", "static const char *q = \"SELECT 1\";"},
        {"harness/e2e/e2e.c", "#include <sqlite3.h>"},
        {"kernels/i2_s/i2s-scalar.c", "static double t(void) { return mp_now(); }"},
    };
    for (size_t i = 0; i < sizeof plant / sizeof plant[0]; i++) {
        snprintf(cmd, sizeof cmd,
                 "cp %s/%s %s/saved && echo '%s' >> %s/%s && ! %s/scripts/check-layers.sh > "
                 "/dev/null; r=$?; cp %s/saved %s/%s; exit $r",
                 dir, plant[i].file, dir, plant[i].line, dir, plant[i].file, dir, dir, dir,
                 plant[i].file);
        cr_assert_eq(system(cmd), 0, "planting '%s' in %s was not caught", plant[i].line,
                     plant[i].file);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    system(cmd);
}
