/* test_probe.c - the machine probe's bandwidth (harness/engine/probe.c, issue 16):
 * more threads must not read memory slower than fewer.
 *
 * The claim tested: read bandwidth with 2 pinned threads, each streaming its own
 * first-touched half of the buffer and started on the pool's barrier, is at
 * least 0.95x that of 1 thread.  On an idle machine of this kind it is about
 * 1.8x (64 against 35 GB/s); the bug this guards against (issue 16: 32.8 GB/s
 * on 2 threads below 36.4 on 1, i.e. 0.90x) fails it.  The 5% tolerance and
 * the best-of are for the shared build machine: other processes take a core
 * away for part of a pass, which slows a 2-thread pass (it ends with its
 * slower thread) more than a 1-thread one.  So the 1- and 2-thread figures are
 * measured in alternation (a load burst hits both), each the best of 5 rounds
 * of 3 passes, and the comparison gets 4 attempts; it fails only if every
 * attempt finds 2 threads below 0.95x of 1.  No absolute figure is asserted. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "../harness/mp_harness.h"
#include "../harness/engine/mp_engine.h"

Test(probe, two_threads_read_at_least_one_thread, .timeout = 300)
{
    const size_t total = (size_t)256 << 20;
    char binding[512];
    mp_pool *p1 = mp_pool_create(1, binding, sizeof binding);
    mp_pool *p2 = mp_pool_create(2, binding, sizeof binding);
    double best1 = 0, best2 = 0, ratio = 0;
    int attempt;
    for (attempt = 0; attempt < 4; attempt++) {
        best1 = best2 = 0;
        for (int round = 0; round < 5; round++) {
            double b1 = mp_probe_dram_read(p1, total, 3);
            double b2 = mp_probe_dram_read(p2, total, 3);
            best1 = b1 > best1 ? b1 : best1;
            best2 = b2 > best2 ? b2 : best2;
        }
        cr_assert_gt(best1, 0, "1-thread read measured nothing");
        ratio = best2 / best1;
        if (ratio >= 0.95)
            break;
        fprintf(stderr, "probe test: attempt %d: 2 threads %.2f GB/s, 1 thread %.2f GB/s "
                        "(%.2fx); retrying\n", attempt + 1, best2, best1, ratio);
    }
    mp_pool_destroy(p2);
    mp_pool_destroy(p1);
    cr_assert_geq(ratio, 0.95,
                  "read bandwidth: 2 threads %.2f GB/s < 0.95 x 1 thread %.2f GB/s (%.2fx) in "
                  "each of %d attempts",
                  best2, best1, ratio, attempt);
}
