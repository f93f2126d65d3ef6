/* test_emulated.c - issue 22: timings from an emulated CPU are never stored.
 * mp_cpu_emulated() answers from MPBENCH_EMULATED when set (1 = emulated, 0 =
 * not, overriding detection) and the harness refuses to register a machine,
 * hence to store any timing, when it says yes; correctness runs (--no-db) go on.
 * The detection itself (an Arm binary seeing an x86 /proc/cpuinfo) is exercised
 * by `make test-arm`, whose driver prints it under qemu-aarch64. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_test.h"
#include "../kernels/common/mp_isa.h"

Test(emulated, told_by_environment)
{
    char why[256];
    setenv("MPBENCH_EMULATED", "1", 1);
    cr_assert_eq(mp_cpu_emulated(why, sizeof why), 1);
    cr_assert(strstr(why, "MPBENCH_EMULATED=1"), "reason names the variable: '%s'", why);
    setenv("MPBENCH_EMULATED", "0", 1);
    cr_assert_eq(mp_cpu_emulated(why, sizeof why), 0, "MPBENCH_EMULATED=0 overrides detection");
    unsetenv("MPBENCH_EMULATED");
    /* this test host runs its own x86 binaries natively */
    cr_assert_eq(mp_cpu_emulated(why, sizeof why), 0, "native x86 run reported emulated: %s", why);
}

Test(emulated, run_refuses_to_store_timings, .timeout = 120)
{
    char db[] = "/tmp/mp_emul_XXXXXX", buf[8192], args[512];
    int fd = mkstemp(db);
    cr_assert_geq(fd, 0);
    close(fd);
    unlink(db);
    setenv("MPBENCH_EMULATED", "1", 1);
    snprintf(args, sizeof args,
             "run --variant i2_s.scalar --shape 64x256 --n 1 --reps 3 --min-time 0.01 --warm --db %s",
             db);
    int rc = mp_test_cli(buf, sizeof buf, args);
    cr_assert_eq(rc, 2, "expected exit 2 when storing from an emulated CPU, got %d:\n%s", rc, buf);
    cr_assert(strstr(buf, "emulated"), "message should say why:\n%s", buf);
    /* the store may have been created (empty schema), but holds no run */
    if (access(db, F_OK) == 0) {
        sqlite3 *h;
        cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
        sqlite3_stmt *st;
        cr_assert_eq(sqlite3_prepare_v2(h, "SELECT (SELECT count(*) FROM runs) + "
                                           "(SELECT count(*) FROM results)", -1, &st, NULL),
                     SQLITE_OK, "%s", sqlite3_errmsg(h));
        cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
        cr_assert_eq(sqlite3_column_int(st, 0), 0, "rows were stored from an emulated CPU");
        sqlite3_finalize(st);
        sqlite3_close(h);
    }
    /* a correctness run without the store is allowed */
    rc = mp_test_cli(buf, sizeof buf,
                     "run --variant i2_s.scalar --shape 64x256 --n 1 --reps 3 --min-time 0.01 "
                     "--warm --no-db");
    cr_assert_eq(rc, 0, "--no-db run under MPBENCH_EMULATED=1 failed (%d):\n%s", rc, buf);
    unsetenv("MPBENCH_EMULATED");
    unlink(db);
}
