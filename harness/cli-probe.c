/* cli-probe.c - `mpbench probe`: the figures rooflines need, stored with the
 * machine fingerprint.  Read-only, copy and triad bandwidth for every thread
 * count and for working sets sized for L1, L2, L3 and DRAM (each thread streams
 * its own buffer; DRAM uses 1 GiB in total), reported as the best of several
 * passes (STREAM's convention; copy counts 2 bytes moved per byte, triad 3); and
 * the int8 dot-product and byte-shuffle throughput of one core.  Read-only: it
 * changes nothing but the database. */
#include <getopt.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_cli.h"
#include "mp_harness.h"
#include "mp_probe_store.h"
#include "../kernels/common/mp_isa.h"
#include "../kernels/common/mp_numerics.h"
#include "../kernels/probe/probe.h"

static const mp_probe_ops *pick_ops(void)
{
    unsigned isa = mp_isa_detect();
#if defined(__x86_64__) /* issue 22: no x86 probe kernels in an AArch64 build (no NEON ones yet) */
    if (isa & MP_ISA_AVX512VNNI)
        return &mp_probe_avx512vnni;
    if (isa & MP_ISA_AVX2)
        return &mp_probe_avx2;
#else
    (void)isa;
#endif
    return &mp_probe_scalar;
}

typedef struct bw_task {
    const mp_probe_ops *ops;
    int kind; /* 0 read, 1 copy, 2 triad */
    size_t bytes; /* per thread */
    int passes;
    uint8_t *buf[64][3];
    uint64_t sink[64];
} bw_task;

static void bw_run(void *arg, int tid, int nt)
{
    (void)nt;
    bw_task *t = arg;
    for (int p = 0; p < t->passes; p++) {
        if (t->kind == 0)
            t->sink[tid] ^= t->ops->read(t->buf[tid][0], t->bytes);
        else if (t->kind == 1)
            t->ops->copy(t->buf[tid][1], t->buf[tid][0], t->bytes);
        else
            t->ops->triad((float *)t->buf[tid][2], (const float *)t->buf[tid][0],
                          (const float *)t->buf[tid][1], 1.5f, t->bytes / 4);
    }
}

/* Best GB/s over reps of `passes` sweeps of each thread's buffer. */
static double measure_bw(mp_pool *pool, bw_task *t, int reps)
{
    double best = 0;
    double moved = (double)t->bytes * t->passes * mp_pool_size(pool) * (t->kind + 1);
    mp_pool_run(pool, bw_run, t); /* warm-up: fault pages in, fill caches */
    for (int r = 0; r < reps; r++) {
        double t0 = mp_now();
        mp_pool_run(pool, bw_run, t);
        double gbps = moved / (mp_now() - t0) * 1e-9;
        best = gbps > best ? gbps : best;
    }
    return best;
}

double mp_probe_dram_read(mp_pool *pool, size_t total, int reps)
{
    int nt = mp_pool_size(pool);
    bw_task *t = calloc(1, sizeof *t);
    t->ops = pick_ops();
    t->kind = 0;
    t->bytes = (total / (size_t)nt) & ~(size_t)255;
    t->passes = 1;
    for (int i = 0; i < nt; i++) {
        t->buf[i][0] = mp_alloc(t->bytes);
        memset(t->buf[i][0], i + 1, t->bytes);
    }
    double bw = measure_bw(pool, t, reps);
    for (int i = 0; i < nt; i++)
        mp_free(t->buf[i][0]);
    free(t);
    return bw;
}

static void probe_usage(FILE *f)
{
    fputs("usage: mpbench probe [--threads LIST] [--quick] [--db PATH | --no-db]\n"
          "                     [--format table|csv|json|md]\n"
          "  Bandwidth (read, copy, triad) per thread count and working set (L1, L2, L3,\n"
          "  DRAM), int8 dot-product and byte-shuffle peaks of one core.\n",
          f);
}

int mp_cmd_probe(int argc, char **argv)
{
    static const struct option opts[] = {
        {"threads", required_argument, 0, 't'}, {"quick", no_argument, 0, 'q'},
        {"db", required_argument, 0, 'd'},      {"no-db", no_argument, 0, 'D'},
        {"format", required_argument, 0, 'f'},  {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *tlist = NULL, *db = "results/mpbench.db";
    int no_db = 0, quick = 0, c, rc;
    mp_format fmt = MP_FMT_TABLE;
    mp_err e;
    char cmdline[1024];
    mp_join_argv(argc - 1, argv + 1, cmdline, sizeof cmdline);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 't': tlist = optarg; break;
        case 'q': quick = 1; break;
        case 'd': db = optarg; break;
        case 'D': no_db = 1; break;
        case 'f':
            if (mp_format_parse(optarg, &fmt))
                return mp_die(2, "--format: '%s' is not one of table, csv, json, md", optarg);
            break;
        case 'h': probe_usage(stdout); return 0;
        default:
            probe_usage(stderr);
            return mp_die(2, "probe: unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return mp_die(2, "probe: unexpected argument '%s'", argv[optind]);
    mp_machine mach;
    mp_machine_probe_info(&mach);
    int tv[64], nt = 0;
    if (tlist) {
        if ((rc = mp_parse_int_list(tlist, "--threads", 1, 64, tv, 64, &nt, &e)))
            return mp_die(rc, "%s", e.msg);
    } else {
        for (int i = 1; i <= mach.cores && nt < 64; i++)
            tv[nt++] = i;
    }
    mp_store *store = NULL;
    int64_t machine_id = 0, run_id = 0;
    if (!no_db && ((rc = mp_store_open(db, &store, &e)) ||
                   (rc = mp_store_machine(store, &mach, &machine_id, &e))))
        return mp_die(rc, "%s", e.msg);

    const mp_probe_ops *ops = pick_ops();
    static const char *const kinds[] = {"read", "copy", "triad"};
    struct {
        const char *name;
        size_t bytes; /* per thread; DRAM: total */
    } levels[4] = {{"L1", (size_t)mach.l1d_kib * 1024 / 2},
                   {"L2", (size_t)mach.l2_kib * 1024 / 2},
                   {"L3", (size_t)mach.l3_kib * 1024 / 4},
                   /* 4 GiB: this VM's caches flatter a 1 GiB stream (bench.c) */
                   {"DRAM", (size_t)(quick ? 256 : 4096) << 20}};
    mp_probe_row rows[256];
    int nrows = 0;
    int tty = isatty(2);
    for (int ti = 0; ti < nt; ti++) {
        char binding[512];
        mp_pool *pool = mp_pool_create(tv[ti], binding, sizeof binding);
        for (int l = 0; l < 4; l++) {
            size_t per = l == 3 ? levels[l].bytes / (size_t)tv[ti] : levels[l].bytes;
            per &= ~(size_t)255;
            bw_task *t = calloc(1, sizeof *t);
            t->ops = ops;
            t->bytes = per;
            /* enough passes that one timed round streams >= 64 MiB */
            t->passes = (int)((64u << 20) / (per * (size_t)tv[ti]) + 1);
            for (int i = 0; i < tv[ti]; i++)
                for (int b = 0; b < 3; b++) {
                    t->buf[i][b] = mp_alloc(per);
                    memset(t->buf[i][b], i + b, per);
                }
            for (int k = 0; k < 3; k++) {
                if (tty)
                    fprintf(stderr, "\r\033[Kprobe: %s %s, %d threads", kinds[k], levels[l].name,
                            tv[ti]);
                t->kind = k;
                mp_probe_row *r = &rows[nrows++];
                snprintf(r->kind, sizeof r->kind, "%s_%s", kinds[k], levels[l].name);
                r->threads = tv[ti];
                r->bytes = (long long)per * tv[ti];
                r->value = measure_bw(pool, t, quick ? 3 : 7);
                snprintf(r->unit, sizeof r->unit, "GB/s");
            }
            for (int i = 0; i < tv[ti]; i++)
                for (int b = 0; b < 3; b++)
                    mp_free(t->buf[i][b]);
            free(t);
        }
        mp_pool_destroy(pool);
    }
    /* per-core compute peaks */
    long iters = quick ? 2000000 : 10000000;
    double best_dot = 0, best_shuf = 0;
    for (int r = 0; r < 5; r++) {
        double t0 = mp_now();
        double macs = ops->dot(iters);
        double g = 2 * macs / (mp_now() - t0) * 1e-9;
        best_dot = g > best_dot ? g : best_dot;
        t0 = mp_now();
        double bytes = ops->shuffle(iters);
        g = bytes / (mp_now() - t0) * 1e-9;
        best_shuf = g > best_shuf ? g : best_shuf;
    }
    mp_probe_row *r = &rows[nrows++];
    snprintf(r->kind, sizeof r->kind, "int8_dot_%s", ops->isa);
    r->threads = 1, r->bytes = 0, r->value = best_dot;
    snprintf(r->unit, sizeof r->unit, "GOPS");
    r = &rows[nrows++];
    snprintf(r->kind, sizeof r->kind, "byte_shuffle_%s", ops->isa);
    r->threads = 1, r->bytes = 0, r->value = best_shuf;
    snprintf(r->unit, sizeof r->unit, "GB/s");
    if (tty)
        fputs("\r\033[K", stderr);
    mp_probe_print(stdout, fmt, rows, nrows);
    rc = 0;
    if (store) {
        if ((rc = mp_store_run_begin(store, machine_id, "probe", &mach, cmdline, "", &run_id, &e)) ||
            (rc = mp_probe_store(store, run_id, rows, nrows, &e)) ||
            (rc = mp_store_run_end(store, run_id, "ok", &e)))
            mp_die(rc, "%s", e.msg);
        mp_store_close(store);
    }
    return rc;
}
