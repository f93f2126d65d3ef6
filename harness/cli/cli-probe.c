/* cli-probe.c - `mpbench probe`: the figures rooflines need (measured by
 * harness/engine/probe.c), printed and stored with the machine fingerprint.
 * It changes nothing but the database. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "mp_cli.h"
#include "../core/mp_core.h"
#include "../report/mp_output.h"
#include "../store/mp_probe_store.h"
#include "../engine/mp_engine.h"

static void probe_usage(FILE *f)
{
    fputs("usage: mpbench probe [--threads LIST] [--quick] [--no-ceilings]\n"
          "                     [--ceiling-variants GLOB[,GLOB...]] [--ceiling-n LIST]\n"
          "                     [--ceiling-time SEC]\n"
          "                     [--db PATH | --no-db] [--format table|csv|json|md] [--quiet]\n"
          "  Bandwidth (read with each read method and their best, copy, triad) per\n"
          "  thread count and working set (L1, L2, L3, DRAM), int8 dot-product and\n"
          "  byte-shuffle peaks of one core, and each available variant's compute\n"
          "  ceiling (seed 003's compute roof: GOPS at a real shape with warm weights,\n"
          "  per N of --ceiling-n, default 1,128, and per thread count;\n"
          "  --ceiling-variants picks the variants, default all; --ceiling-time: seconds\n"
          "  of timed calls per variant, N and thread count, best of them, default 0.15;\n"
          "  --no-ceilings skips them).  Threads default to 1..cores.\n",
          f);
}

int mp_cmd_probe(int argc, char **argv)
{
    static const struct option opts[] = {
        {"threads", required_argument, 0, 't'}, {"quick", no_argument, 0, 'q'},
        {"db", required_argument, 0, 'd'},      {"no-db", no_argument, 0, 'D'},
        {"format", required_argument, 0, 'f'},  {"quiet", no_argument, 0, 'Q'},
        {"no-ceilings", no_argument, 0, 'C'},   {"help", no_argument, 0, 'h'},
        {"ceiling-variants", required_argument, 0, 'V'},
        {"ceiling-n", required_argument, 0, 'N'},
        {"ceiling-time", required_argument, 0, 'T'},
        {0, 0, 0, 0}};
    const char *tlist = NULL, *db = "results/mpbench.db", *cglob = "*", *nlist = "1,128";
    int no_db = 0, quick = 0, quiet = 0, ceilings = 1, c, rc;
    double budget = MP_CEILING_BUDGET_S;
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
        case 'Q': quiet = 1; break;
        case 'C': ceilings = 0; break;
        case 'V': cglob = optarg; break;
        case 'N': nlist = optarg; break;
        case 'T': {
            char *end;
            budget = strtod(optarg, &end);
            if (end == optarg || *end || !(budget > 0) || budget > 60)
                return mp_die(2, "--ceiling-time: '%s' is not a number of seconds in (0, 60]",
                              optarg);
            break;
        }
        case 'h': probe_usage(stdout); return 0;
        default:
            probe_usage(stderr);
            return mp_die(2, "probe: unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return mp_die(2, "probe: unexpected argument '%s'", argv[optind]);
    int tv[64], nt = 0, nv[16], nn = 0, nsel = 0;
    if (tlist && (rc = mp_parse_int_list(tlist, "--threads", 1, 64, tv, 64, &nt, &e)))
        return mp_die(rc, "%s", e.msg);
    if ((rc = mp_parse_int_list(nlist, "--ceiling-n", 1, 4096, nv, 16, &nn, &e)))
        return mp_die(rc, "%s", e.msg);
    enum { MAXSEL = 512 };
    const mp_variant *sel[MAXSEL];
    if (ceilings && (rc = mp_select_variants(cglob, sel, MAXSEL, &nsel, &e)))
        return mp_die(rc, "--ceiling-variants: %s",
                      strncmp(e.msg, "--variant: ", 11) ? e.msg : e.msg + 11);
    if (mp_parse_only_stop("probe"))
        return 0;
    mp_machine mach;
    mp_machine_probe_info(&mach);
    if (!tlist) {
        for (int i = 1; i <= mach.cores && nt < 64; i++)
            tv[nt++] = i;
    }
    /* the level buffers are sized from the caches: say when one was not believed */
    if (mach.caches_note[0] && !quiet)
        fprintf(stderr, "mpbench: probe: caches: %s\n", mach.caches_note);
    mp_store *store = NULL;
    int64_t machine_id = 0, run_id = 0;
    if (!no_db && ((rc = mp_store_open(db, &store, &e)) ||
                   (rc = mp_store_machine(store, &mach, &machine_id, &e))))
        return mp_die(rc, "%s", e.msg);

    /* per thread count: 4 levels x (read, up to 4 read methods, copy, triad),
     * then 2 peaks, then a ceiling per variant, N and thread count */
    int maxrows = nt * 4 * 7 + 2 + (ceilings ? nsel * nn * nt : 0);
    mp_probe_row *rows = calloc((size_t)maxrows, sizeof *rows);
    if (!rows)
        return mp_die(MP_EIO, "probe: out of memory");
    int nrows = mp_probe_measure(&mach, tv, nt, quick, rows, maxrows, quiet);
    if (ceilings)
        nrows = mp_ceiling_rows(sel, nsel, tv, nt, nv, nn, budget, rows, nrows, maxrows, quiet);
    mp_probe_print(stdout, fmt, rows, nrows);
    rc = 0;
    if (store) {
        if ((rc = mp_store_run_begin(store, machine_id, "probe", &mach, cmdline, "", &run_id, &e)) ||
            (rc = mp_probe_store(store, run_id, rows, nrows, &e)) ||
            (rc = mp_store_run_end(store, run_id, "ok", &e)))
            mp_die(rc, "%s", e.msg);
        mp_store_close(store);
    }
    free(rows);
    return rc;
}
