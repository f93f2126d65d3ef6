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
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mp_cli.h"
#include "../report/mp_report.h"
#include "../../variants/mp_registry.h"

static void plot_usage(FILE *f)
{
    fputs("usage: mpbench plot KIND [--db PATH] [--outdir DIR] [--threads T] [--n N]\n"
          "                         [--variant NAME] [--machine FINGERPRINT] [--cache cold|warm]\n"
          "  KIND: roofline, gbps, threads, prompt, tuner or all.  Writes DIR/KIND.png,\n"
          "  DIR/KIND.svg and the data DIR/KIND.dat (default DIR results/plots) with\n"
          "  gnuplot and scripts/KIND.gp.  --threads/--n fix what is otherwise chosen\n"
          "  from the data; --variant picks the tuner plot's variant.  `all` writes every\n"
          "  plot that has data and exits 1 only when none has.\n",
          f);
}

int mp_cmd_plot(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, 0, 'd'},      {"outdir", required_argument, 0, 'o'},
        {"threads", required_argument, 0, 't'}, {"n", required_argument, 0, 'n'},
        {"variant", required_argument, 0, 'v'}, {"machine", required_argument, 0, 'm'},
        {"cache", required_argument, 0, 'c'},   {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *db = "results/mpbench.db", *machine = NULL, *cache = "cold";
    mp_plot_opts o = {"results/plots", NULL, 0, 0};
    mp_err e;
    int c, rc;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'o': o.outdir = optarg; break;
        case 't':
            if ((rc = mp_parse_int(optarg, "--threads", 1, 1024, &o.threads, &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'n':
            if ((rc = mp_parse_int(optarg, "--n", 1, 65536, &o.n, &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'v': o.variant = optarg; break;
        case 'm': machine = optarg; break;
        case 'c':
            if (strcmp(optarg, "cold") && strcmp(optarg, "warm"))
                return mp_die(2, "--cache: '%s' is not cold or warm", optarg);
            cache = optarg;
            break;
        case 'h': plot_usage(stdout); return 0;
        default:
            plot_usage(stderr);
            return mp_die(2, "plot: unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) {
        plot_usage(stderr);
        return mp_die(2, "plot: give a KIND (roofline, gbps, threads, prompt, tuner, all)");
    }
    const char *kind = argv[optind];
    if (optind + 1 < argc)
        return mp_die(2, "plot: unexpected argument '%s'", argv[optind + 1]);
    int which = mp_plot_kind(kind);
    if (which < 0 && strcmp(kind, "all"))
        return mp_die(2, "plot: unknown KIND '%s' (roofline, gbps, threads, prompt, tuner, all)",
                      kind);
    if (!*o.outdir)
        return mp_die(2, "--outdir: empty path");
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
    struct stat sb;
    if (stat(o.outdir, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
        mp_rep_close(&r);
        return mp_die(2, "--outdir %s: exists and is not a folder", o.outdir);
    }
    /* create the folder (and its parent, for the default results/plots) */
    if (stat(o.outdir, &sb) != 0) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s", o.outdir);
        for (char *p = tmp + 1; *p; p++)
            if (*p == '/') {
                *p = 0;
                mkdir(tmp, 0755);
                *p = '/';
            }
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST) {
            mp_rep_close(&r);
            return mp_die(2, "--outdir %s: cannot create (%s)", o.outdir, strerror(errno));
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
    return rc;
}

