/* test_hetero.c - machines of different kinds in one database (issue 21: a Slurm
 * sweep over a heterogeneous partition) stay apart.
 *
 * The second machine kind is this machine under MPBENCH_MACHINE_TAG (another
 * fingerprint, as a node with another CPU would have).  Both sweep the same plan
 * and tune the same variant, each into its own database, in one working
 * directory; then the databases are merged.  Each machine's rows are marked
 * (a reason text, a tuned time) so that the test can see whose rows a table
 * shows. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mp_test.h"

static char out[65536];

/* runs `cd DIR && [MPBENCH_MACHINE_TAG=tag] mpbench ARGS`, output into out */
static int run_in(const char *dir, const char *tag, const char *args)
{
    const char *bin = getenv("MPBENCH_BIN");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd %s && %s%s %s %s 2>&1", dir, tag ? "MPBENCH_MACHINE_TAG=" : "",
             tag ? tag : "", bin && *bin ? bin : "./mpbench", args);
    FILE *p = popen(cmd, "r");
    cr_assert(p, "popen %s", cmd);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* fp: 64 bytes */
static void fingerprint(const char *dir, const char *tag, char *fp)
{
    cr_assert_eq(run_in(dir, tag, "list machine"), 0, "%s", out);
    char *p = strstr(out, "fingerprint");
    cr_assert(p, "%s", out);
    cr_assert_eq(sscanf(p, "fingerprint %63s", fp), 1);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s missing", path);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

#define PLAN "--variant i2_s.scalar,tq2_0.scalar --shape 64x256 --n 1 --threads 1 --warm --reps 3 " \
             "--min-time 0.001 --counters none"
#define TUNE "tune --variant i2_s.scalar --shape 64x256 --n 1 --strategy exhaustive --warm --reps 9"

Test(hetero, two_machine_kinds_stay_apart_after_merge, .timeout = 300)
{
    char dir[] = "/tmp/mphetero-XXXXXX", cmd[1024], a[128], b[128], all[128], fa[64], fb[64];
    cr_assert(mkdtemp(dir));
    snprintf(a, sizeof a, "%s/a.db", dir);
    snprintf(b, sizeof b, "%s/b.db", dir);
    snprintf(all, sizeof all, "%s/all.db", dir);
    fingerprint(dir, NULL, fa);
    fingerprint(dir, "kindb", fb);
    cr_assert_str_neq(fa, fb);

    /* the same sweep and the same tuning on both kinds */
    snprintf(cmd, sizeof cmd, "sweep " PLAN " --db a.db");
    cr_assert_eq(run_in(dir, NULL, cmd), 0, "%s", out);
    snprintf(cmd, sizeof cmd, "sweep " PLAN " --db b.db");
    cr_assert_eq(run_in(dir, "kindb", cmd), 0, "%s", out);
    cr_assert_eq(run_in(dir, NULL, TUNE " --db a.db"), 0, "%s", out);
    cr_assert_eq(run_in(dir, "kindb", TUNE " --db b.db"), 0, "%s", out);

    /* one tuned config per fingerprint, each naming its machine */
    char conf[256], first[128];
    snprintf(conf, sizeof conf, "%s/results/tuned/%s.conf", dir, fa);
    snprintf(first, sizeof first, "fingerprint %s\n", fa);
    cr_assert(strstr(slurp(conf), first), "%s lacks '%s'", conf, first);
    snprintf(conf, sizeof conf, "%s/results/tuned/%s.conf", dir, fb);
    snprintf(first, sizeof first, "fingerprint %s\n", fb);
    cr_assert(strstr(slurp(conf), first), "%s lacks '%s'", conf, first);

    /* markers: whose rows does a table show? */
    mp_test_exec(a, "UPDATE results SET status='skipped', reason='marker-of-machine-a' "
           "WHERE variant='tq2_0.scalar'");
    mp_test_exec(b, "UPDATE results SET status='skipped', reason='marker-of-machine-b' "
           "WHERE variant='tq2_0.scalar';"
           "UPDATE tuned SET best_us=99999.5, default_us=99999.5");

    snprintf(cmd, sizeof cmd, "merge all.db a.db b.db");
    cr_assert_eq(run_in(dir, NULL, cmd), 0, "%s", out);

    /* merge keeps both machines and all of both sweeps (same plan, same items) */
    cr_assert_eq(mp_test_query_long(all, "SELECT count(*) FROM machines"), 2);
    cr_assert_eq(mp_test_query_long(all, "SELECT count(DISTINCT sweep_key) FROM results WHERE run_id IN (SELECT id FROM "
                               "runs WHERE kind='sweep') AND sweep_key "
                               "IS NOT NULL"), 2, "one sweep key per machine");
    char q[512];
    snprintf(q, sizeof q, "SELECT count(*) FROM results x JOIN runs u ON x.run_id=u.id JOIN "
                          "machines m ON u.machine_id=m.id WHERE u.kind='sweep' AND x.sweep_key IS NOT NULL AND "
                          "m.fingerprint='%s'", fb);
    cr_assert_eq(mp_test_query_long(all, q), 2, "machine B's sweep results were dropped by the merge");
    cr_assert_eq(mp_test_query_long(all, "SELECT count(*) FROM results WHERE sweep_key IS NOT NULL AND run_id IN "
                               "(SELECT id FROM runs WHERE kind='sweep')"), 4);
    cr_assert_eq(mp_test_query_long(all, "SELECT count(*) FROM tuned"), 2);

    /* a sweep on a third kind does not take the others' results as its own */
    snprintf(cmd, sizeof cmd, "sweep " PLAN " --db all.db");
    cr_assert_eq(run_in(dir, "kindc", cmd), 0, "%s", out);
    cr_assert(strstr(out, "2 results measured"), "%s", out);
    cr_assert_eq(run_in(dir, "kindb", cmd), 0, "%s", out);
    cr_assert(strstr(out, "all 2 results already stored"), "%s", out);

    /* tune --report: one table per machine, exhaustive best from its own machine */
    cr_assert_eq(run_in(dir, NULL, "tune --report --db all.db --format csv"), 0, "%s", out);
    char la[4096] = "", lb[4096] = "";
    for (char *save = NULL, *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(l, fa, strlen(fa)) && l[strlen(fa)] == ',')
            snprintf(la, sizeof la, "%s", l);
        if (!strncmp(l, fb, strlen(fb)) && l[strlen(fb)] == ',')
            snprintf(lb, sizeof lb, "%s", l);
    }
    cr_assert(la[0] && lb[0], "no row per machine in tune --report csv");
    cr_assert(strstr(lb, "99999.5"), "%s", lb);
    cr_assert(!strstr(la, "99999"), "machine A's row shows B's times: %s", la);
    cr_assert_eq(run_in(dir, NULL, "tune --report --db all.db --format md"), 0, "%s", out);
    char ha[128], hb[128];
    snprintf(ha, sizeof ha, "**machine `%s`**", fa);
    snprintf(hb, sizeof hb, "**machine `%s`**", fb);
    char *pa = strstr(out, ha), *pb = strstr(out, hb);
    cr_assert(pa && pb, "%s", out);
    if (pb > pa)
        *pb = 0; /* A's table ends where B's begins */
    cr_assert(!strstr(pa, "99999"), "B's tuned time under A's heading: %s", out);

    /* report: one machine per report, the others named */
    snprintf(cmd, sizeof cmd, "report --db all.db --machine %s --out A.md", fa);
    cr_assert_eq(run_in(dir, NULL, cmd), 0, "%s", out);
    snprintf(cmd, sizeof cmd, "report --db all.db --machine %s --out B.md", fb);
    cr_assert_eq(run_in(dir, NULL, cmd), 0, "%s", out);
    char path[256], *text;
    snprintf(path, sizeof path, "%s/A.md", dir);
    text = slurp(path);
    cr_assert(strstr(text, "marker-of-machine-a"));
    cr_assert(!strstr(text, "marker-of-machine-b"), "A's report shows B's rows");
    cr_assert(!strstr(text, "99999"), "A's report shows B's tuned times");
    /* the summary's machine table: a line per machine, this report's first */
    char line_a[128], line_b[128];
    snprintf(line_a, sizeof line_a, "| `%s` |", fa);
    snprintf(line_b, sizeof line_b, "| `%s` |", fb);
    cr_assert(strstr(text, "Every machine in this database") && strstr(text, line_a) &&
              strstr(text, line_b) && strstr(text, line_a) < strstr(text, line_b));
    snprintf(path, sizeof path, "%s/B.md", dir);
    text = slurp(path);
    cr_assert(strstr(text, "marker-of-machine-b"));
    cr_assert(!strstr(text, "marker-of-machine-a"), "B's report shows A's rows");
    cr_assert(strstr(text, "99999.5"), "B's report lacks its tuned times");
    cr_assert(strstr(text, "Every machine in this database") && strstr(text, line_a) &&
              strstr(text, line_b) && strstr(text, line_b) < strstr(text, line_a));

    /* compare: runs of different machines are refused */
    long ra, rb;
    snprintf(q, sizeof q, "SELECT max(u.id) FROM runs u JOIN machines m ON u.machine_id=m.id "
                          "WHERE u.kind='sweep' AND m.fingerprint='%s'", fa);
    ra = mp_test_query_long(all, q);
    snprintf(q, sizeof q, "SELECT max(u.id) FROM runs u JOIN machines m ON u.machine_id=m.id "
                          "WHERE u.kind='sweep' AND m.fingerprint='%s'", fb);
    rb = mp_test_query_long(all, q);
    snprintf(cmd, sizeof cmd, "compare --base all.db:%ld --new all.db:%ld", ra, rb);
    cr_assert_eq(run_in(dir, NULL, cmd), 2, "%s", out);
    cr_assert(strstr(out, "different machines"), "%s", out);

    /* without :RUN, a base holding several machines gives the new run's own:
     * all.db's newest run is kind C's, yet A's and B's runs compare with theirs */
    cr_assert_eq(run_in(dir, NULL, "compare --base all.db --new b.db"), 0, "%s", out);
    cr_assert(!strstr(out, "different machines"), "%s", out);
    cr_assert_eq(run_in(dir, NULL, "compare --base all.db --new a.db"), 0, "%s", out);
    /* and a base without the new run's machine is still refused */
    cr_assert_eq(run_in(dir, NULL, "compare --base a.db --new b.db"), 2, "%s", out);
    cr_assert(strstr(out, "different machines"), "%s", out);
}

Test(hetero, a_bad_machine_tag_is_refused_before_anything_is_written)
{
    char dir[] = "/tmp/mphetero-XXXXXX";
    cr_assert(mkdtemp(dir));
    cr_assert_eq(run_in(dir, "Bad/Tag", "sweep " PLAN " --db t.db"), 2, "%s", out);
    cr_assert(strstr(out, "MPBENCH_MACHINE_TAG 'Bad/Tag'"), "%s", out);
    char p[128];
    snprintf(p, sizeof p, "%s/t.db", dir);
    cr_assert(access(p, F_OK) != 0, "a database was written");
}

#define GRID "sweep --variant i2_s.scalar --shape 256x512 --n 1 --threads 1 --params all --warm " \
             "--reps 9 --min-time 0.001 --counters none"

/* One parameter-grid sweep per machine kind, merged: tune --from-sweep writes one
 * config per fingerprint, each from its own machine's repetitions.  On kind B the
 * setting pf=0 is made clearly faster (synthetic repetitions): B's config takes
 * it, A's keeps the default. */
Test(hetero, tuned_configs_per_fingerprint_from_a_merged_sweep, .timeout = 300)
{
    char dir[] = "/tmp/mphetero-XXXXXX", fa[64], fb[64], path[256], want[256];
    cr_assert(mkdtemp(dir));
    fingerprint(dir, NULL, fa);
    fingerprint(dir, "kindb", fb);
    cr_assert_eq(run_in(dir, NULL, GRID " --db a.db"), 0, "%s", out);
    cr_assert_eq(run_in(dir, "kindb", GRID " --db b.db"), 0, "%s", out);
    snprintf(path, sizeof path, "%s/a.db", dir);
    /* A: every setting alike, so no winner can be significant */
    mp_test_exec(path, "UPDATE results SET median_us=50, times_us='50,50,50,50,50,50,50,50,50'");
    snprintf(path, sizeof path, "%s/b.db", dir);
    mp_test_exec(path, "UPDATE results SET median_us=50, times_us='50,51,49,50,52,48,50,51,49';"
              "UPDATE results SET median_us=20, times_us='20,21,19,20,22,18,20,21,19' "
              "WHERE params='pf=0'");
    cr_assert_eq(run_in(dir, NULL, "merge all.db a.db b.db"), 0, "%s", out);
    cr_assert_eq(run_in(dir, NULL, "tune --from-sweep --db all.db"), 0, "%s", out);
    cr_assert(strstr(out, "1 winners, 1 keys keep their default, 2 machines"), "%s", out);

    snprintf(path, sizeof path, "%s/results/tuned/%s.conf", dir, fa);
    char *text = slurp(path);
    snprintf(want, sizeof want, "fingerprint %s\ni2_s.scalar 256x512 n=1 threads=1 pf=8192\n", fa);
    cr_assert(strstr(text, want), "%s:\n%s", path, text);
    snprintf(path, sizeof path, "%s/results/tuned/%s.conf", dir, fb);
    text = slurp(path);
    snprintf(want, sizeof want, "fingerprint %s\ni2_s.scalar 256x512 n=1 threads=1 pf=0\n", fb);
    cr_assert(strstr(text, want), "%s:\n%s", path, text);

    /* a config of another machine under this fingerprint's name is refused */
    snprintf(path, sizeof path, "%s/results/tuned/%s.conf", dir, fa);
    FILE *f = fopen(path, "w");
    fputs("fingerprint someone-else\n", f);
    fclose(f);
    cr_assert_eq(run_in(dir, NULL, "tune --from-sweep --db all.db"), 2, "%s", out);
    cr_assert(strstr(out, "fingerprint mismatch"), "%s", out);
    cr_assert_eq(run_in(dir, NULL, "tune --from-sweep --db nosuch.db"), 2, "%s", out);
    cr_assert(strstr(out, "nosuch.db"), "%s", out);
}
