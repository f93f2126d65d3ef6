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
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_paths.h"
#include "mp_cli.h"
#include "mp_options.h"
#include "../report/mp_report.h"

typedef struct report_opts {
    const char *db, *out, *machine, *plots, *cache, *csv, *claims;
    int check, shares;
} report_opts;

static const mp_opt report_table[] = {
    MP_OPT_S("db", report_opts, db, "PATH", "the store (default results/report.db, the committed one)"),
    MP_OPT_S("out", report_opts, out, "REPORT.md", "the report (default REPORT.md)"),
    MP_OPT_S("csv", report_opts, csv, "DIR", "the exhaustive tables (default results/report beside the report)"),
    MP_OPT_S("claims", report_opts, claims, "TSV", "the papers' claims to judge (default results/claims.tsv)"),
    MP_OPT_S("machine", report_opts, machine, "FINGERPRINT", "the machine (default: the newest run's)"),
    MP_OPT_S("plots", report_opts, plots, "DIR", "where `mpbench plot` wrote its PNGs (default results/plots)"),
    MP_OPT_C("cache", report_opts, cache, "cold|warm", "which results the tables show (default cold)"),
    MP_OPT_F("check", 0, report_opts, check, "write nothing; compare with --out and the CSVs (below)"),
    MP_OPT_F("shares", 0, report_opts, shares, "write nothing; print each point's best variants' share of their roof (below)"),
    MP_OPT_END};

static const mp_cmd_spec report_spec = MP_CMD_SPEC("report", report_table,
    .synopsis = "[--db PATH] [--out REPORT.md] [--csv DIR] [--claims TSV]\n"
                "                      [--machine FINGERPRINT] [--plots DIR] [--cache cold|warm] [--check]\n"
                "       mpbench report --shares [--db PATH] [--machine FINGERPRINT] [--cache cold|warm]",
    .about = "Regenerates the report from the store (`make report`) for one machine, each\n"
             "table next to the papers' own figures, and the exhaustive tables as CSV files\n"
             "(linked relative to the report).  --cache cold: weights streamed from memory,\n"
             "as in the papers.  --check: write nothing; regenerate into temporary files and\n"
             "compare them with --out and the CSVs in place (every byte but the\n"
             "generation-time line); exit 1 naming the first difference.\n"
             "--shares: write nothing; print to stdout, per (shape, N, threads) of the\n"
             "newest run that measured it, the fastest variant and each method's best with\n"
             "its rate, its roof and its share of it: N = 1 GB/s against the read roof,\n"
             "N > 1 GOPS against the variant's compute roof (the probe's ceiling); a share\n"
             "above 100% is printed as measured and flagged ROOF WRONG.  Then, per N, the\n"
             "best variant's worst share against the target (N = 1: 92% of the read roof,\n"
             "N = 128: 85% of the compute roof).  Exit 2 when the database holds no probe\n"
             "or no measured kernel row.  `make bench` measures and prints it.\n");

/* --shares: the table of report-shares.c on stdout; nothing written. */
static int report_shares(const report_opts *a, const mp_opts_out *po)
{
    static const char *const only_md[] = {"out", "csv", "claims", "plots", "check"};
    for (int i = 0; i < 5; i++)
        if (mp_opts_seen(&report_spec, po, only_md[i]))
            return mp_die(2, "report --shares prints to stdout: --%s does not apply", only_md[i]);
    const mp_path dbp = {"--db", a->db, MP_PATH_IN, NULL};
    int rc = mp_paths_check("report", &dbp, 1);
    if (rc)
        return rc;
    if (mp_parse_only_stop("report")) /* mp_rep_open copies the database into /tmp */
        return 0;
    mp_rep r;
    mp_err e;
    if ((rc = mp_rep_open(a->db, a->machine, &r, &e)))
        return mp_die(rc, "%s", e.msg);
    r.cache = a->cache;
    if (!r.nprobe) {
        mp_rep_close(&r);
        return mp_die(2, "report --shares: --db %s holds no probe of machine %s: no roofs (run "
                         "`mpbench probe --db %s` first)", a->db, r.mach.fingerprint, a->db);
    }
    rc = mp_rep_shares_print(stdout, &r, a->db);
    mp_rep_close(&r);
    if (rc < 0)
        return mp_die(MP_EIO, "report --shares: out of memory");
    if (rc == 0)
        return mp_die(2, "report --shares: --db %s holds no measured kernel row (%s cache) of "
                         "machine %s (run `mpbench run --db %s` first)", a->db, a->cache,
                      r.mach.fingerprint, a->db);
    return 0;
}

int mp_cmd_report(int argc, char **argv)
{
    report_opts a = {.db = "results/report.db", .out = "REPORT.md", .plots = "results/plots",
                     .cache = "cold", .claims = "results/claims.tsv"};
    mp_opts_out po;
    int prc;
    if ((prc = mp_opts_parse(&report_spec, argc, argv, &a, &po)) || po.help)
        return prc;
    if (a.shares)
        return report_shares(&a, &po);
    const char *db = a.db, *out = a.out, *machine = a.machine, *plots = a.plots,
               *cache = a.cache, *csv = a.csv, *claims = a.claims;
    int check = a.check;
    struct stat sb;
    if (check && stat(out, &sb) != 0)
        return mp_die(2, "--check: --out %s does not exist (nothing to compare with)", out);
    if (claims && stat(claims, &sb) == 0 && S_ISDIR(sb.st_mode))
        return mp_die(2, "--claims %s: is a directory, not the claims file", claims);
    char cerr[1024]; /* the claims checked before anything is read or written; the
                      * default file may be missing (the report says so) */
    int crc = mp_rep_claims_check(claims, cerr, sizeof cerr);
    if (crc && (strcmp(claims, "results/claims.tsv") || stat(claims, &sb) == 0))
        return mp_die(crc, "--claims: %s", cerr);
    static const char *const csv_names[] = {"kernel-results.csv", "gemv-roofline.csv",
                                            "e2e-bounds.csv", NULL};
    const mp_path paths[] = {{"--db", db, MP_PATH_IN, NULL},
                             {"--claims", claims, MP_PATH_IN, NULL},
                             {"--out", out, check ? MP_PATH_IN : MP_PATH_FILE, NULL},
                             {"--csv", csv, check ? MP_PATH_IN : MP_PATH_DIR, csv_names}};
    if ((prc = mp_paths_check("report", paths, 4)))
        return prc;
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
    int csv_new = 0; /* --csv made by this report: removed again if it fails */
    if (csv) {
        snprintf(o.csv_dir, sizeof o.csv_dir, "%s", csv);
        mp_path_link(out, csv, o.csv_link, sizeof o.csv_link);
    } else {
        const char *slash = strrchr(out, '/');
        snprintf(o.csv_dir, sizeof o.csv_dir, "%.*s%sresults/report",
                 slash ? (int)(slash - out) : 0, out, slash ? "/" : "");
        snprintf(o.csv_link, sizeof o.csv_link, "results/report");
    }
    csv_new = stat(o.csv_dir, &sb) != 0;
    char err[1024];
    FILE *f = mp_rep_out_open(&o, out, err, sizeof err);
    if (!f) {
        mp_rep_close(&r);
        return mp_die(MP_EIO, "--out %s", err);
    }
    /* links are relative to the report (mp_path_link) */
    char plinks[4096];
    mp_path_link(out, plots, plinks, sizeof plinks);
    if (mp_rep_write(f, &r, db, claims, plots, plinks, &o)) {
        mp_rep_close(&r);
        mp_rep_out_finish(&o, 0, err, sizeof err);
        if (csv_new)
            rmdir(o.csv_dir);
        return mp_die(2, "--claims %s: cannot read it", claims);
    }
    mp_rep_close(&r);
    if ((prc = mp_rep_out_finish(&o, 1, err, sizeof err))) {
        if (csv_new)
            rmdir(o.csv_dir); /* only when empty: nothing of ours was renamed into it */
        return mp_die(prc, "report%s: %s", check ? " --check" : "", err);
    }
    fprintf(stderr, check ? "mpbench: report: %s and its CSV files match %s\n"
                          : "mpbench: report written to %s (from %s)\n",
            out, db);
    return 0;
}

