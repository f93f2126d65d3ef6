/* test_shardplan.c - `mpbench sweep --dry-run --shard I/N`, which sizes a Slurm
 * job array (scripts/slurm/): every shard's listing is a disjoint part of the
 * unsharded plan and together they are all of it; nothing is measured or
 * stored. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_test.h"

static char out[1 << 16];

#define PLAN "sweep --variant 'i2_s.scalar,tq2_0.scalar' --shape 64x256,128x256,64x512 " \
             "--n 1,2 --threads 1,2 --params all --warm"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the result lines (not '#') of out, sorted, newline-joined into buf; returns the
 * count; *dups: how many lines equal their predecessor */
static int keys(char *buf, size_t len, int *dups)
{
    static char *lines[4096];
    int n = 0;
    for (char *save = NULL, *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        if (l[0] != '#' && n < 4096)
            lines[n++] = strdup(l);
    qsort(lines, (size_t)n, sizeof *lines, cmp_str);
    buf[0] = 0;
    size_t used = 0;
    *dups = 0;
    for (int i = 0; i < n; i++) {
        *dups += i && !strcmp(lines[i - 1], lines[i]);
        used += (size_t)snprintf(buf + used, len - used, "%s\n", lines[i]);
    }
    for (int i = 0; i < n; i++)
        free(lines[i]);
    return n;
}

Test(shardplan, shards_partition_the_plan_and_store_nothing)
{
    char dir[] = "/tmp/mpshard-XXXXXX", cmd[1024], db[128];
    cr_assert(mkdtemp(dir));
    snprintf(db, sizeof db, "%s/never.db", dir);
    static char whole[1 << 16], parts[1 << 16], one[1 << 16];
    snprintf(cmd, sizeof cmd, PLAN " --dry-run --db %s", db);
    cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
    /* 6 i2_s settings (5 pf + tq2_0's one) x 3 shapes x 2 n x 2 threads */
    cr_assert(strstr(out, "= 12 points, 72 results; shard 1/1: 12 points, 72 results"), "%s", out);
    cr_assert(strstr(out, "i2_s.scalar\tpf=0\t64\t512\t2\t2\n"), "%s", out);
    int dups;
    int nwhole = keys(whole, sizeof whole, &dups);
    cr_assert_eq(nwhole, 72);
    cr_assert_eq(dups, 0);
    int total = 0;
    parts[0] = 0;
    for (int i = 1; i <= 5; i++) {
        snprintf(cmd, sizeof cmd, PLAN " --dry-run --shard %d/5 --db %s", i, db);
        cr_assert_eq(mp_test_cli(out, sizeof out, cmd), 0, "%s", out);
        char want[64];
        snprintf(want, sizeof want, "shard %d/5: %d points, %d results", i, i <= 2 ? 3 : 2,
                 6 * (i <= 2 ? 3 : 2));
        cr_assert(strstr(out, want), "shard %d: %s", i, out);
        int n = keys(one, sizeof one, &dups);
        cr_assert_eq(n, 6 * (i <= 2 ? 3 : 2), "shard %d lists %d results", i, n);
        total += n;
        strcat(parts, one);
    }
    cr_assert_eq(total, nwhole);
    /* union == whole, and disjoint: no line twice in all the shards' listings */
    snprintf(out, sizeof out, "%s", parts);
    cr_assert_eq(keys(one, sizeof one, &dups), nwhole);
    cr_assert_eq(dups, 0, "%d results listed in two shards", dups);
    cr_assert_str_eq(one, whole);
    cr_assert(access(db, F_OK) != 0, "--dry-run created %s", db);
}

Test(shardplan, a_bad_shard_is_refused)
{
    cr_assert_eq(mp_test_cli(out, sizeof out, PLAN " --dry-run --shard 5/4"), 2, "%s", out);
    cr_assert(strstr(out, "--shard: '5/4'"), "%s", out);
    cr_assert_eq(mp_test_cli(out, sizeof out, PLAN " --dry-run --shard 0/4"), 2, "%s", out);
}
