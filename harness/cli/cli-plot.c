/* cli-plot.c - `mpbench plot KIND`: its options; the plots are
 * report/report-plot.c's (mp_plot_draw).  The data of one plot from the store into
 * OUTDIR/KIND.dat, then gnuplot (scripts/KIND.gp) draws OUTDIR/KIND.png and
 * OUTDIR/KIND.svg.
 *
 * Kinds: roofline (GOPS against arithmetic intensity with the probe's roofs),
 * gbps (GEMV GB/s per shape and variant, seed 003 Fig. 5-7), threads (scaling),
 * prompt (GOPS against N, seed 001 Fig. 12), tuner (a tune run's landscape),
 * all.  The scripts take their inputs as gnuplot variables (-e "datafile=...;
 * outpng=...; ..."), so they can be rerun by hand on the .dat files.  Everything
 * is written under temporary names and renamed at the end: a plot without data
 * or a failing gnuplot leaves no file behind (exit 1). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_paths.h"
#include "mp_cli.h"
#include "../report/mp_report.h"
#include "mp_options.h"
#include "../../variants/mp_registry.h"

typedef struct plot_cli {
    mp_plot_opts p;
    const char *db, *machine, *cache;
} plot_cli;

static const mp_opt plot_table[] = {
    MP_OPT_S("db", plot_cli, db, "PATH", "the store (default results/mpbench.db)"),
    MP_OPT_S("outdir", plot_cli, p.outdir, "DIR", "where the plots go (default results/plots)"),
    MP_OPT_I("threads", plot_cli, p.threads, 1, 1024, "T", "the thread count (default: from the data)"),
    MP_OPT_I("n", plot_cli, p.n, 1, 65536, "N", "N (default: from the data)"),
    MP_OPT_S("variant", plot_cli, p.variant, "NAME", "the tuner plot's variant"),
    MP_OPT_S("machine", plot_cli, machine, "FINGERPRINT", "the machine (default: the newest run's)"),
    MP_OPT_C("cache", plot_cli, cache, "cold|warm", "which results (default cold)"),
    MP_OPT_END};

static const mp_cmd_spec plot_spec = MP_CMD_SPEC("plot", plot_table, .max_pos = 1,
    .synopsis = "KIND [--db PATH] [--outdir DIR] [--threads T] [--n N]\n"
                "                         [--variant NAME] [--machine FINGERPRINT] [--cache cold|warm]",
    .about = "KIND: roofline, gbps, threads, prompt, tuner or all.  Writes DIR/KIND.png,\n"
             "DIR/KIND.svg and the data DIR/KIND.dat with gnuplot and scripts/KIND.gp.\n"
             "`all` writes every plot that has data and exits 1 only when none has.\n");

int mp_cmd_plot(int argc, char **argv)
{
    plot_cli a = {.p = {"results/plots", NULL, 0, 0}, .db = "results/mpbench.db",
                  .cache = "cold"};
    mp_opts_out po;
    mp_err e;
    int rc;
    if ((rc = mp_opts_parse(&plot_spec, argc, argv, &a, &po)) || po.help)
        return rc;
    if (!po.npos) {
        mp_opts_usage(&plot_spec, stderr);
        return mp_die(2, "plot: give a KIND (roofline, gbps, threads, prompt, tuner, all)");
    }
    const char *kind = po.pos[0], *db = a.db, *machine = a.machine, *cache = a.cache;
    mp_plot_opts o = a.p;
    int which = mp_plot_kind(kind);
    if (which < 0 && strcmp(kind, "all"))
        return mp_die(2, "plot: unknown KIND '%s' (roofline, gbps, threads, prompt, tuner, all)",
                      kind);
    if (!*o.outdir)
        return mp_die(2, "--outdir: empty path");
    static const char *const names[] = {
        "roofline.png", "roofline.svg", "roofline.dat", "gbps.png",   "gbps.svg",
        "gbps.dat",     "threads.png",  "threads.svg",  "threads.dat", "prompt.png",
        "prompt.svg",   "prompt.dat",   "tuner.png",    "tuner.svg",  "tuner.dat", NULL};
    const mp_path paths[] = {{"--db", db, MP_PATH_IN, NULL},
                             {"--outdir", o.outdir, MP_PATH_DIR, names}};
    if ((rc = mp_paths_check("plot", paths, 2)))
        return rc;
    if (mp_parse_only_stop("plot")) /* mp_rep_open copies the database into /tmp */
        return 0;
    mp_rep r;
    if ((rc = mp_rep_open(db, machine, &r, &e)))
        return mp_die(rc, "%s", e.msg);
    r.cache = cache;
    if (o.variant && !mp_registry_find(o.variant)) {
        int known = 0;
        for (int i = 0; i < r.nrows && !known; i++)
            known = !strcmp(r.rows[i].variant, o.variant);
        if (!known) {
            mp_rep_close(&r);
            return mp_die(2, "--variant %s: no such variant in the registry or the store",
                          o.variant);
        }
    }
    /* create the folder with its parents (the default results/plots); what this
     * command made is removed again, when empty, if no plot was written */
    char made[8][4096];
    int nmade = 0;
    struct stat sb;
    if (stat(o.outdir, &sb) != 0) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s", o.outdir);
        for (char *p = tmp + 1;; p++)
            if (*p == '/' || !*p) {
                char c = *p;
                *p = 0;
                if (mkdir(tmp, 0755) == 0) {
                    if (nmade < 8)
                        snprintf(made[nmade++], sizeof made[0], "%s", tmp);
                } else if (!c && errno != EEXIST) {
                    int err = errno;
                    while (nmade)
                        rmdir(made[--nmade]);
                    mp_rep_close(&r);
                    return mp_die(MP_EIO, "--outdir %s: cannot create (%s)", o.outdir,
                                  strerror(err));
                }
                if (!(*p = c))
                    break;
            }
    }
    if (which >= 0) {
        rc = mp_plot_draw(&r, &o, which);
    } else {
        int ok = 0;
        for (int i = 0; i < mp_plot_nkinds(); i++)
            ok += mp_plot_draw(&r, &o, i) == 0;
        rc = ok ? 0 : 1;
        if (!ok)
            mp_die(1, "plot all: no plot had data");
    }
    mp_rep_close(&r);
    while (rc && nmade)
        rmdir(made[--nmade]);
    return rc;
}

