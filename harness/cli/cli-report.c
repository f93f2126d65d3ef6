/* cli-report.c - `mpbench report`: its options; the report itself is
 * report/report-md.c's (mp_rep_write).  REPORT.md is regenerated from the store, each
 * table next to the figures the papers themselves printed (cited by seed file,
 * table or figure, and row), for one machine, with that machine's caveats.
 *
 * Every section is always present; an empty one says which command fills it.
 * Numbers are medians of repetitions.  Cells are marked, never silently dropped:
 * † unstable (noisy after re-measuring), ‡ measured with non-default parameters,
 * "failed"/"skipped" in place of a number, and all such rows are listed with
 * their reasons in the last section.  Ratios are only taken between results of
 * one run (same load, same binary).  The file is written to a temporary name
 * next to the target and renamed, so a failed report leaves the old one. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_cli.h"
#include "../report/mp_report.h"

static void report_usage(FILE *f)
{
    fputs("usage: mpbench report [--db PATH] [--out REPORT.md] [--csv DIR] [--claims TSV]\n"
          "                      [--machine FINGERPRINT] [--plots DIR] [--cache cold|warm]\n"
          "                      [--check]\n"
          "  Regenerates the report from the store (default results/report.db, the\n"
          "  committed database: `make report`) for one machine (default: the machine of\n"
          "  the newest run), each table next to the papers' own figures, and the\n"
          "  exhaustive tables as CSV files in --csv (default results/report beside the\n"
          "  report, linked relative to it).  --claims:\n"
          "  the papers' claims to judge (default results/claims.tsv).  --plots: where\n"
          "  `mpbench plot` wrote its PNGs, for the links (default results/plots).\n"
          "  --cache: which results the tables show (default cold: weights streamed from\n"
          "  memory, as in the papers).  --check: write nothing; regenerate into temporary\n"
          "  files and compare them with --out and the CSVs in place (every byte but the\n"
          "  generation-time line); exit 1 naming the first difference.\n",
          f);
}

int mp_cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, 0, 'd'},      {"out", required_argument, 0, 'o'},
        {"machine", required_argument, 0, 'm'}, {"plots", required_argument, 0, 'p'},
        {"cache", required_argument, 0, 'c'},   {"csv", required_argument, 0, 'C'},
        {"claims", required_argument, 0, 'L'},  {"check", no_argument, 0, 'K'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    const char *db = "results/report.db", *out = "REPORT.md", *machine = NULL,
               *plots = "results/plots", *cache = "cold", *csv = NULL,
               *claims = "results/claims.tsv";
    int c, check = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'o': out = optarg; break;
        case 'm': machine = optarg; break;
        case 'p': plots = optarg; break;
        case 'C': csv = optarg; break;
        case 'L': claims = optarg; break;
        case 'K': check = 1; break;
        case 'c':
            if (strcmp(optarg, "cold") && strcmp(optarg, "warm"))
                return mp_die(2, "--cache: '%s' is not cold or warm", optarg);
            cache = optarg;
            break;
        case 'h': report_usage(stdout); return 0;
        default:
            report_usage(stderr);
            return mp_die(2, "report: unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return mp_die(2, "report: unexpected argument '%s'", argv[optind]);
    if (!*out)
        return mp_die(2, "--out: empty path");
    if (csv && !*csv)
        return mp_die(2, "--csv: empty path");
    struct stat sb;
    if (stat(out, &sb) == 0 && S_ISDIR(sb.st_mode))
        return mp_die(2, "--out %s: is a directory", out);
    if (csv && stat(csv, &sb) == 0 && !S_ISDIR(sb.st_mode))
        return mp_die(2, "--csv %s: not a directory", csv);
    if (check && stat(out, &sb) != 0)
        return mp_die(2, "--check: --out %s does not exist (nothing to compare with)", out);
    if (mp_parse_only_stop("report")) /* mp_rep_open copies the database into /tmp */
        return 0;
    mp_rep r;
    mp_err e;
    int rc = mp_rep_open(db, machine, &r, &e);
    if (rc)
        return mp_die(rc, "%s", e.msg);
    r.cache = cache;
    /* the CSV tables: --csv as given, else results/report beside the report
     * (linked relative to it) */
    static mp_rep_out o;
    o.check = check;
    if (csv) {
        snprintf(o.csv_dir, sizeof o.csv_dir, "%s", csv);
        snprintf(o.csv_link, sizeof o.csv_link, "%s", csv);
    } else {
        const char *slash = strrchr(out, '/');
        snprintf(o.csv_dir, sizeof o.csv_dir, "%.*s%sresults/report",
                 slash ? (int)(slash - out) : 0, out, slash ? "/" : "");
        snprintf(o.csv_link, sizeof o.csv_link, "results/report");
    }
    char err[1024];
    FILE *f = mp_rep_out_open(&o, out, err, sizeof err);
    if (!f) {
        mp_rep_close(&r);
        return mp_die(2, "--out %s", err);
    }
    /* links are relative to the report: a relative --plots only works from a
     * report in the current folder, else link the absolute path */
    char plinks[4096];
    snprintf(plinks, sizeof plinks, "%s", plots);
    if (plots[0] != '/' && strchr(out, '/')) {
        char cwd[2048];
        if (getcwd(cwd, sizeof cwd))
            snprintf(plinks, sizeof plinks, "%s/%s", cwd, plots);
    }
    if (mp_rep_write(f, &r, db, claims, plinks, &o)) {
        mp_rep_close(&r);
        mp_rep_out_finish(&o, 0, err, sizeof err);
        return mp_die(2, "--claims %s: cannot read it", claims);
    }
    mp_rep_close(&r);
    if (mp_rep_out_finish(&o, 1, err, sizeof err))
        return mp_die(1, "report%s: %s", check ? " --check" : "", err);
    fprintf(stderr, check ? "mpbench: report: %s and its CSV files match %s\n"
                          : "mpbench: report written to %s (from %s)\n",
            out, db);
    return 0;
}

