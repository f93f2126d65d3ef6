/* cli-probe.c - `mpbench probe`: the figures rooflines need (measured by
 * harness/engine/probe.c), printed and stored with the machine fingerprint.
 * It changes nothing but the database. */
#include <stdlib.h>
#include <string.h>

#include "mp_paths.h"
#include "mp_cli.h"
#include "../core/mp_core.h"
#include "../report/mp_output.h"
#include "../store/mp_probe_store.h"
#include "../engine/mp_engine.h"
#include "../../variants/mp_registry.h"
#include "mp_options.h"

typedef struct probe_opts {
    char cglob[1024];
    const char *db;
    int tv[64], nt, nv[16], nn, no_db, quick, quiet, no_ceilings;
    double budget;
    mp_format fmt;
} probe_opts;

static int seconds_arg(const char *arg, void *target, mp_err *e)
{
    char *end;
    double b = strtod(arg, &end);
    if (end == arg || *end || !(b > 0) || b > 60)
        return mp_fail(e, MP_EUSAGE, "--ceiling-time: '%s' is not a number of seconds in (0, 60]",
                       arg);
    *(double *)target = b;
    return MP_OK;
}

static const mp_opt probe_table[] = {
    MP_OPT_IL("threads", probe_opts, tv, nt, 1, 64, "LIST", "thread counts (default 1..cores)"),
    MP_OPT_F("quick", 0, probe_opts, quick, "shorter bandwidth measurements"),
    MP_OPT_F("no-ceilings", 0, probe_opts, no_ceilings, "skip the variants' compute ceilings"),
    MP_OPT_SL("ceiling-variants", probe_opts, cglob, "GLOB", "the variants whose ceilings are measured (default all)"),
    MP_OPT_IL("ceiling-n", probe_opts, nv, nn, 1, 4096, "LIST", "N of the ceilings (default 1,128)"),
    MP_OPT_FN_("ceiling-time", probe_opts, budget, seconds_arg, "SEC",
               "seconds of timed calls per variant, N and thread count, in (0, 60] (default 0.15)"),
    MP_OPT_STORE_ROWS(probe_opts),
    MP_OPT_END};

static const mp_cmd_spec probe_spec = MP_CMD_SPEC("probe", probe_table,
    .synopsis = "[--threads LIST] [--quick] [--no-ceilings] [--ceiling-variants GLOB[,GLOB]]\n"
                "                     [--ceiling-n LIST] [--ceiling-time SEC] [--db PATH | --no-db]",
    .about = "Bandwidth (read with each read method and their best, copy, triad) per\n"
             "thread count and working set (L1, L2, L3, DRAM), int8 dot-product and\n"
             "byte-shuffle peaks of one core, and each available variant's compute\n"
             "ceiling (seed 003's compute roof: GOPS at a real shape with warm weights,\n"
             "per N and per thread count, the best of the timed calls).\n");

int mp_cmd_probe(int argc, char **argv)
{
    probe_opts o = {.db = "results/mpbench.db", .budget = MP_CEILING_BUDGET_S,
                    .fmt = MP_FMT_TABLE};
    mp_opts_out po;
    mp_err e;
    int rc, nsel = 0;
    char cmdline[1024];
    if ((rc = mp_opts_parse(&probe_spec, argc, argv, &o, &po)) || po.help)
        return rc;
    mp_join_argv(argc - 1, argv + 1, cmdline, sizeof cmdline);
    int *tv = o.tv, nt = o.nt, *nv = o.nv, nn = o.nn, ceilings = !o.no_ceilings;
    if (!nn)
        nv[0] = 1, nv[1] = 128, nn = 2;
    enum { MAXSEL = 512 };
    const mp_variant *sel[MAXSEL];
    if (ceilings && (rc = mp_select_variants(o.cglob[0] ? o.cglob : "*", sel, MAXSEL, &nsel, &e)))
        return mp_die(rc, "--ceiling-variants: %s",
                      strncmp(e.msg, "--variant: ", 11) ? e.msg : e.msg + 11);
    const mp_path dbp = {"--db", o.no_db ? NULL : o.db, MP_PATH_DB, NULL};
    if ((rc = mp_paths_check("probe", &dbp, 1)))
        return rc;
    if (mp_parse_only_stop("probe"))
        return 0;
    mp_machine mach;
    mp_machine_probe_info(&mach);
    for (int i = 1; !o.nt && i <= mach.cores && nt < 64; i++)
        tv[nt++] = i;
    /* the level buffers are sized from the caches: say when one was not believed */
    if (mach.caches_note[0] && !o.quiet)
        fprintf(stderr, "mpbench: probe: caches: %s\n", mach.caches_note);
    mp_store *store = NULL;
    int64_t machine_id = 0, run_id = 0;
    if (!o.no_db && ((rc = mp_store_open(o.db, &store, &e)) ||
                   (rc = mp_store_machine(store, &mach, &machine_id, &e))))
        return mp_die(rc, "%s", e.msg);

    /* per thread count: 4 levels x (read, up to 4 read methods, copy, triad),
     * then 2 peaks, then a ceiling per variant, N and thread count, then the
     * clock */
    int maxrows = nt * 4 * 7 + 2 + (ceilings ? nsel * nn * nt : 0) + 1;
    mp_probe_row *rows = calloc((size_t)maxrows, sizeof *rows);
    if (!rows)
        return mp_die(MP_EIO, "probe: out of memory");
    int nrows = mp_probe_measure(&mach, tv, nt, o.quick, rows, maxrows, o.quiet);
    if (ceilings && !mp_engine_interrupted()) {
        nrows = mp_ceiling_rows(sel, nsel, tv, nt, nv, nn, o.budget, rows, nrows, maxrows,
                                o.quiet);
        if (!mp_engine_interrupted())
            mp_probe_peaks_again(mp_registry_probe_ops(), MP_PROBE_PEAK_ITERS(o.quick), rows,
                                 nrows);
        if (!mp_engine_interrupted())
            mp_probe_dram_again(&mach, tv, nt, o.quick, rows, nrows);
    }
    if (mp_clock_best() > 0 && nrows < maxrows) {
        /* the fastest clock the peaks and ceilings saw: the report scales the
         * compute roofs by a run's faster one (mp_rep_clock_scale) */
        mp_probe_row *c = &rows[nrows++];
        memset(c, 0, sizeof *c);
        snprintf(c->kind, sizeof c->kind, "clock");
        c->threads = 1, c->value = mp_clock_best();
        snprintf(c->unit, sizeof c->unit, "Gadd/s");
    }
    if (mp_engine_interrupted()) { /* a partial probe is no roof: store none of it */
        free(rows);
        mp_store_close(store);
        return mp_die(130, "probe: interrupted: nothing stored%s%s", o.no_db ? "" : " in ",
                      o.no_db ? "" : o.db);
    }
    mp_probe_print(stdout, o.fmt, rows, nrows);
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
