/* cli-report.c - `mpbench report`: REPORT.md regenerated from the store, each
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
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mp_cli.h"
#include "cli/mp_options.h"
#include "mp_report.h"
#include "../variants/mp_registry.h"

enum { MAXV = 128, MAXS = 64, MAXN = 32 };

/* ---- the papers' own figures --------------------------------------------------- */

/* Model-size columns: our model files (bitnetcpp-SIZE) and the papers' labels.
 * Seed 004 Appendix A's "2.5B" (hidden 2560, 30 layers) differs from the 2.7B of
 * BitNet's dummy-model script that models/shapes/bitnetcpp-2.7b.txt follows. */
static const struct {
    const char *ours;  /* model file name, NULL: only the paper has it */
    const char *label; /* column header */
} sizes[] = {
    {"bitnetcpp-125m", "125M"}, {"bitnetcpp-350m", "350M"}, {"bitnetcpp-700m", "700M"},
    {"bitnetcpp-1b", "1B"},     {"bitnetcpp-1.5b", "1.5B"}, {NULL, "2.5B"},
    {"bitnetcpp-2.7b", "2.7B"}, {"bitnetcpp-3.8b", "3.8B"}, {"bitnetcpp-7b", "7B"},
    {"bitnetcpp-13b", "13B"},   {"bitnetcpp-30b", "30B"},   {"bitnetcpp-70b", "70B"},
    {"bitnetcpp-100b", "100B"},
};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };
#define NA -1.0 /* "N/A" in the paper */
#define NO -2.0 /* column not in that table */

typedef struct paper_row {
    const char *cite, *what;
    double v[NSIZES];
} paper_row;

/* seed 000 Table 7 (unlimited threads), rows per CPU and kernel, columns 700M..100B;
 * seed 004 Tables 4 (unlimited threads) and 5 (2 threads), 125M..100B. */
static const paper_row paper_tps[] = {
#define T7(cpu, k, a, b, c, d, e, f, g, h)                                                \
    {"seed 000 Table 7", cpu " " k, {NO, NO, a, NO, b, NO, NO, c, d, e, f, g, h}}
    T7("i7-13700H", "Float16 b(16)", 30.73, 15.02, 5.85, 3.30, 1.78, NA, NA, NA),
    T7("i7-13700H", "Q4_0 b(4.5)", 67.57, 35.46, 16.33, 9.09, 5.04, 2.13, 0.94, 0.67),
    T7("i7-13700H", "T-MAC b(2)", 76.29, 42.38, 18.12, 12.29, 6.44, 2.54, 1.32, 0.73),
    T7("i7-13700H", "TQ1_0 b(1.69)", 114.20, 64.86, 26.59, 17.96, 10.55, 4.62, 2.09, 1.48),
    T7("i7-13700H", "TQ2_0 b(2.06)", 123.94, 71.92, 33.19, 19.92, 11.21, 5.25, 2.32, 1.61),
    T7("i7-13700H", "TL1_0 b(2)", 75.62, 43.44, 17.91, 11.89, 6.32, 2.65, 1.49, 0.75),
    T7("i7-13700H", "TL2_0 b(1.67)", 126.99, 74.16, 35.43, 20.72, 11.41, 4.99, 2.42, 1.69),
    T7("i7-13700H", "I2_S b(2)", 125.37, 77.75, 35.04, 20.62, 10.62, 5.70, 2.30, 1.65),
    T7("M2 Ultra", "Float16 b(16)", 110.65, 59.49, 28.31, 14.87, 8.42, 3.78, 1.71, NA),
    T7("M2 Ultra", "Q4_0 b(4.5)", 197.38, 117.77, 71.89, 39.47, 23.28, 10.98, 5.16, 3.56),
    T7("M2 Ultra", "T-MAC b(2)", 220.22, 135.27, 91.84, 53.37, 31.72, 16.40, 9.48, 6.45),
    T7("M2 Ultra", "TQ1_0 b(1.69)", 217.64, 130.10, 73.14, 45.55, 25.83, 12.85, 6.30, 4.53),
    T7("M2 Ultra", "TQ2_0 b(2.06)", 237.61, 145.68, 88.66, 54.90, 34.63, 15.46, 8.16, 6.18),
    T7("M2 Ultra", "TL1_0 b(2)", 214.53, 132.68, 90.73, 52.77, 32.12, 15.02, 9.23, 6.34),
    T7("M2 Ultra", "TL2_0 b(1.67)", 229.21, 138.28, 92.12, 55.42, 33.22, 19.59, 10.37, 7.45),
    T7("M2 Ultra", "I2_S b(2)", 238.16, 143.43, 91.65, 54.74, 32.88, 16.41, 8.39, 6.50),
#undef T7
#define T45(t, cpu, k, a, b, c, d, e, f, g, h, i, j, l, m)                                \
    {"seed 004 Table " t, cpu " " k, {a, b, c, d, e, f, NO, g, h, i, j, l, m}}
    T45("4", "M2 Ultra", "llama.cpp", 434.40, 186.56, 114.47, 85.60, 60.95, 39.73, 28.31, 15.61,
        8.79, 3.78, 1.71, NA),
    T45("4", "M2 Ultra", "bitnet.cpp", 593.43, 281.51, 194.38, 169.45, 119.24, 96.21, 84.77,
        52.36, 33.78, 17.07, 8.67, 6.58),
    T45("4", "i7-13700H", "llama.cpp", 164.04, 56.67, 30.73, 22.31, 15.02, 11.07, 5.85, 3.30,
        1.78, NA, NA, NA),
    T45("4", "i7-13700H", "bitnet.cpp", 389.08, 172.95, 119.08, 86.50, 67.12, 46.33, 30.51,
        18.75, 10.99, 5.10, 2.44, 1.70),
    T45("5 (2 threads)", "M2 Ultra", "llama.cpp", 251.95, 95.18, 53.93, 41.36, 26.67, 17.61,
        11.88, 6.71, 3.73, 1.60, 0.71, NA),
    T45("5 (2 threads)", "M2 Ultra", "bitnet.cpp", 401.76, 168.88, 96.34, 79.23, 56.31, 37.29,
        26.75, 15.26, 8.75, 3.89, 1.76, 1.27),
    T45("5 (2 threads)", "i7-13700H", "llama.cpp", 119.84, 41.57, 18.56, 13.92, 8.99, 6.95,
        3.49, 1.92, 1.30, NA, NA, NA),
    T45("5 (2 threads)", "i7-13700H", "bitnet.cpp", 316.35, 137.68, 80.13, 57.76, 44.69, 29.41,
        20.51, 12.41, 7.09, 3.23, 1.51, 0.97),
#undef T45
};

/* seed 004 Table 7: share of 1000 WildChat prompts (700M model, <= 100 tokens)
 * whose output matched the FP32 kernel exactly. */
static const struct {
    const char *method; /* our method name, matched exactly (issue 16: TL1_0/TL2_0, the
                         * lossy int8-table variants, are not the paper's lossless TL1/TL2) */
    const char *figure;
} paper_lossless[] = {
    {"TQ1_0", "1.4%"}, {"TQ2_0", "1.4%"}, {"I2_S", "100%"}, {"TL1_1", "100% (TL1)"},
    {"TL2_1", "100% (TL2)"},
};

/* ---- small formatting helpers -------------------------------------------------- */

/* Writes s as one markdown table cell's text (| escaped, newlines as spaces). */
static void md_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", f);
        else if (*s == '\n')
            fputc(' ', f);
        else
            fputc(*s, f);
    }
}

/* The cell for one measured value of row x (NULL: not measured). */
static void cell(char *buf, size_t len, const mp_rep_row *x, double v, const char *fmt)
{
    if (!x) {
        snprintf(buf, len, "–");
        return;
    }
    if (!strcmp(x->status, "failed") || !strcmp(x->status, "skipped")) {
        snprintf(buf, len, "%s", x->status);
        return;
    }
    size_t u = (size_t)snprintf(buf, len, fmt, v);
    if (!strcmp(x->status, "unstable") && u < len)
        u += (size_t)snprintf(buf + u, len - u, "†");
    if (!x->is_default && u < len)
        snprintf(buf + u, len - u, "‡");
}

/* "MxK". */
static void shape_str(char *buf, size_t len, int m, int k)
{
    snprintf(buf, len, "%dx%d", m, k);
}

/* "variant (METHOD) b(bpw)" from the variant's first stored row. */
static const char *row_label(const mp_rep *r, const char *variant, char *buf, size_t len)
{
    for (int i = 0; i < r->nrows; i++)
        if (!strcmp(r->rows[i].variant, variant)) {
            snprintf(buf, len, "%s (%s) b(%.2f)", variant, r->rows[i].method, r->rows[i].bpw);
            return buf;
        }
    snprintf(buf, len, "%s", variant);
    return buf;
}

/* "Runs: a, b, c." for the distinct runs in ids (n of them), then a blank line:
 * every table names the runs its numbers come from (issue 16). */
static void runs_line(FILE *f, const int64_t *ids, int n)
{
    int64_t u[256];
    int nu = 0;
    for (int i = 0; i < n; i++) {
        int j;
        for (j = 0; j < nu && u[j] != ids[i]; j++)
            ;
        if (j == nu && nu < 256)
            u[nu++] = ids[i];
    }
    for (int a = 0; a < nu; a++)
        for (int b = a + 1; b < nu; b++)
            if (u[b] < u[a]) {
                int64_t t = u[a];
                u[a] = u[b], u[b] = t;
            }
    if (!nu)
        return;
    fprintf(f, "From run%s ", nu > 1 ? "s" : "");
    for (int i = 0; i < nu; i++)
        fprintf(f, "%s%lld", i ? ", " : "", (long long)u[i]);
    fputs(".\n\n", f);
}

/* ---- sections ------------------------------------------------------------------- */

/* Title, the machine (machines table) and the caveats that apply to every number. */
/* One unavailable counter event in the caveats' list. */
typedef struct unavail_ctx {
    FILE *f;
    int any;
} unavail_ctx;

static void unavail_counter(const char *event, const char *reason, void *ctx)
{
    unavail_ctx *u = ctx;
    fprintf(u->f, "%s %s (%s)",
            u->any++ ? ";" : "- Hardware counters unavailable on this machine (from "
                             "run_counters; tables hold no counter figures for them):",
            event, reason);
}

static void sec_header(FILE *f, mp_rep *r, const char *db)
{
    char now[64];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(now, sizeof now, "%Y-%m-%d %H:%M UTC", &tm);
    const mp_rep_machine *m = &r->mach;
    char first[64], last[64], commits[512];
    int nruns = mp_store_rep_run_span(r->store, m->id, first, last, commits, sizeof commits);
    fprintf(f, "# mpbench report\n\n"
               "**Measured** on %s (fingerprint `%s`, %d cores, %d GiB%s%s), %d runs from %s to "
               "%s, by commit%s %s.  Every number comes from the store `%s` (`make "
               "report-data` measures it); the papers' figures are quoted with their seed file, "
               "table or figure (seeds in `../shared/seeds/`).\n\n"
               "Generated by `mpbench report` on %s (`make report`).\n\n",
            m->cpu_model[0] ? m->cpu_model : "unknown CPU", m->fingerprint, m->cores, m->mem_gib,
            m->hypervisor[0] ? ", virtual machine: " : "", m->hypervisor, nruns,
            first[0] ? first : "?", last[0] ? last : "?", strchr(commits, ',') ? "s" : "",
            commits[0] ? commits : "?", db, now);
}

/* One machine's line of the summary's machine table: its verdict counts and
 * the H rows, each from that machine's own rows only. */
static void machine_line(FILE *f, mp_rep *r, const mp_claim *c, int nc)
{
    char first[64], last[64], commits[512];
    int nruns = mp_store_rep_run_span(r->store, r->mach.id, first, last, commits, sizeof commits);
    int cnt[4];
    mp_rep_claims_counts(c, nc, cnt);
    fprintf(f, "| `%s` | %s, %s | %d runs, %.10s – %.10s, %s | %d / %d / %d / %d |", r->mach.fingerprint,
            r->mach.cpu_model, r->mach.isa_flags, nruns, first, last, commits, cnt[0], cnt[1],
            cnt[2], cnt[3]);
    for (int i = 0; i < nc; i++)
        if (c[i].id[0] == 'H' && c[i].judged)
            fprintf(f, " %s %s;", c[i].id, c[i].ours);
    fputs(" |\n", f);
}

struct machines_ctx {
    char fp[16][64];
    int n;
};

static void collect_machine(void *ctx, const char *fp, const char *cpu)
{
    struct machines_ctx *m = ctx;
    (void)cpu;
    if (m->n < 16)
        snprintf(m->fp[m->n++], sizeof m->fp[0], "%s", fp);
}

/* Every machine of the database, each judged on its own rows (a ratio never
 * mixes two machines: mp_rep loads one machine's rows).  Only when the
 * database holds more than this report's machine. */
static void machines_table(FILE *f, mp_rep *r, const char *db, const char *claims_path,
                           const mp_claim *c, int nc)
{
    struct machines_ctx mc = {.n = 0};
    mp_store_rep_other_machines(r->store, r->mach.id, collect_machine, &mc);
    if (!mc.n)
        return;
    fputs("**Every machine in this database**, each from its own rows only (this report's "
          "tables are the first machine's; `mpbench report --machine FINGERPRINT` gives "
          "another's):\n\n| machine | CPU, ISA | runs | claims yes / partly / no / – | "
          "against llama.cpp |\n|---|---|---|---|---|\n", f);
    machine_line(f, r, c, nc);
    static mp_claim oc[128];
    for (int i = 0; i < mc.n; i++) {
        mp_rep o;
        mp_err e;
        if (mp_rep_open(db, mc.fp[i], &o, &e)) {
            fprintf(f, "| `%s` | (unreadable: %s) | | | |\n", mc.fp[i], e.msg);
            continue;
        }
        o.cache = r->cache;
        mp_rep_e2e *all = NULL;
        char err[256];
        int na = mp_store_rep_e2e(o.store, o.mach.id, 1, &all, err, sizeof err);
        int n = mp_rep_claims_eval(&o, all, na > 0 ? na : 0, claims_path, oc, 128, err, sizeof err);
        machine_line(f, &o, oc, n);
        free(all);
        mp_rep_close(&o);
    }
    fputc('\n', f);
    fprintf(stderr, "mpbench: report: %s holds %d other machine%s: in the summary's machine "
                    "table; their tables: --machine FINGERPRINT\n", db, mc.n, mc.n > 1 ? "s" : "");
}

/* The first screen: verdict counts, the headline ratios against llama.cpp
 * (claims.tsv rows whose id starts with H), how this machine differs from the
 * papers', and the other machines of the database. */
static void sec_summary(FILE *f, mp_rep *r, const char *db, const char *claims_path,
                        const mp_claim *c, int nc)
{
    fputs("## Summary\n\n", f);
    int cnt[4];
    int paper = mp_rep_claims_counts(c, nc, cnt);
    if (nc >= 0)
        fprintf(f, "**The papers' claims** (%d, in [Claims](#claims)): %d yes, %d partly, %d no; "
                   "%d not judged here (not reproducible on this machine, or not measured).\n\n",
                paper, cnt[0], cnt[1], cnt[2], cnt[3]);
    int nh = 0;
    for (int i = 0; i < nc; i++)
        if (c[i].id[0] == 'H') {
            if (!nh++)
                fputs("**Against llama.cpp, same run** (the project's targets):\n\n"
                      "| # | what | target | ours | met | here |\n|---|---|---|---|---|---|\n", f);
            fprintf(f, "| %s | %s | %s | %s | %s | %s |\n", c[i].id, c[i].claim, c[i].paper,
                    c[i].ours, c[i].verdict, c[i].here[0] ? c[i].here : c[i].backing);
        }
    if (nh)
        fputc('\n', f);
    const mp_rep_machine *m = &r->mach;
    double bw1 = mp_rep_probe(r, "read_DRAM", 1, NULL), bw2 = mp_rep_probe(r, "read_DRAM", 2, NULL);
    fprintf(f, "**Where this machine differs from the papers'.** %d cores (the papers: 8–24; seed "
               "004 Table 5 and seed 001 also at 2 threads)%s; read bandwidth %.1f GB/s on one "
               "thread, %.1f on two (seed 003 §IV-A: 75–98 GB/s on 8–24-core AI PCs); weights "
               "are synthetic and seeded (no trained model: quality claims are not testable); "
               "models up to the sizes in section 2 (the papers: up to 100B).\n\n",
            m->cores, m->hypervisor[0] ? ", a virtual machine sharing its host" : "", bw1, bw2);
    machines_table(f, r, db, claims_path, c, nc);
}

static void sec_caveats(FILE *f, mp_rep *r)
{
    const mp_rep_machine *m = &r->mach;
    fprintf(f, "**Machine:** %s — %d cores / %d hardware threads, %d GiB, L1d %ld KiB, L2 %ld "
               "KiB, L3 %ld KiB%s%s.  ISA flags: %s.\n\n",
            m->cpu_model[0] ? m->cpu_model : "unknown CPU", m->cores, m->pus, m->mem_gib,
            m->l1d_kib, m->l2_kib, m->l3_kib, m->hypervisor[0] ? ", hypervisor " : "",
            m->hypervisor, m->isa_flags[0] ? m->isa_flags : "unknown");
    fprintf(f, "- %d cores%s: the papers measured 8- to 24-core CPUs (seed 001 used 2–8 cores "
               "of its devices, seed 004 also 2 threads); multi-thread figures here stop at %d "
               "threads, and the machine is shared with other work while it measures.\n",
            m->cores, m->cores <= 2 ? " only" : "", m->pus);
    if (m->hypervisor[0])
        fprintf(f, "- A virtual machine (hypervisor: %s): memory bandwidth, caches and timers are the "
                   "host's to share; expect noise between runs.\n", m->hypervisor);
    if (m->caches_note[0])
        fprintf(f, "- Cache sizes: %s.\n", m->caches_note);
    double max_load;
    int nruns = mp_store_rep_run_load(r->store, m->id, &max_load);
    if (nruns > 0)
        fprintf(f, "- %d runs stored for this machine; the highest load average at the "
                   "start of a run was %.2f (on %d cores): a shared, noisy machine.\n",
                nruns, max_load, m->cores);
    unavail_ctx uc = {f, 0};
    if (mp_store_rep_unavailable_counters(r->store, m->id, unavail_counter, &uc))
        fputs(".\n", f);
    int warm = 0;
    for (int i = 0; i < r->nrows; i++)
        warm += strcmp(r->rows[i].cache, r->cache) != 0;
    if (warm && !strcmp(r->cache, "cold"))
        fprintf(f, "- %d warm-cache results (`--warm`) are left out of the tables below: the "
                   "papers' figures are for weights streamed from memory (`--cache warm` "
                   "shows them instead).\n", warm);
    else if (warm)
        fprintf(f, "- Warm-cache results only (`--cache warm`): weights stay in the caches "
                   "between calls, unlike the papers' memory-bound figures; %d cold-cache "
                   "results are left out.\n", warm);
    fputs("- Cells are medians of the repetitions.  † unstable (still noisy after "
          "re-measuring), ‡ measured with non-default parameters, `failed`/`skipped` in place "
          "of a number; the [last section](#rows-not-measured-or-not-stable) counts them and "
          "the CSV file it links lists each with its reason.\n\n",
          f);
}

/* Section 1: the newest probe as figure x thread count, and the papers' machines. */
static void sec_probe(FILE *f, mp_rep *r)
{
    fputs("## 1. Machine and probe figures\n\n", f);
    if (!r->nprobe) {
        fputs("No probe of this machine: run `mpbench probe`.\n\n", f);
    } else {
        int tv[64];
        int nt = 0, nceil = 0, percall = mp_rep_has_ceilings(r);
        for (int i = 0; i < r->nprobe; i++) {
            int j;
            /* variants: one ceiling each in an old probe, one per N and threads now */
            int first = !strncmp(r->probe[i].kind, "ceiling_", 8);
            for (int q = 0; q < i && first; q++)
                first = strcmp(r->probe[q].kind, r->probe[i].kind) != 0;
            nceil += first;
            for (j = 0; j < nt && tv[j] != r->probe[i].threads; j++)
                ;
            if (j == nt && nt < 64)
                tv[nt++] = r->probe[i].threads;
        }
        for (int a = 0; a < nt; a++)
            for (int b = a + 1; b < nt; b++)
                if (tv[b] < tv[a]) {
                    int t = tv[a];
                    tv[a] = tv[b];
                    tv[b] = t;
                }
        fprintf(f, "Newest probe of this machine (run %lld):\n\n| figure | unit |",
                (long long)r->probe_run);
        for (int j = 0; j < nt; j++)
            fprintf(f, " %d thread%s |", tv[j], tv[j] > 1 ? "s" : "");
        fputs("\n|---|---|", f);
        for (int j = 0; j < nt; j++)
            fputs("--:|", f);
        fputc('\n', f);
        char done[256][48];
        int nd = 0;
        for (int i = 0; i < r->nprobe; i++) {
            int seen = 0;
            for (int d = 0; d < nd; d++)
                seen |= !strcmp(done[d], r->probe[i].kind);
            /* read_<level>_<method>: the best of them is read_<level> (the body
             * shows that; the store and `mpbench probe` keep each method) */
            const char *k = r->probe[i].kind;
            int method = !strncmp(k, "read_", 5) && strchr(k + 5, '_');
            if (seen || nd == 256 || !strncmp(k, "ceiling_", 8) || method)
                continue;
            snprintf(done[nd++], sizeof done[0], "%s", r->probe[i].kind);
            fprintf(f, "| %s | %s |", r->probe[i].kind, r->probe[i].unit);
            for (int j = 0; j < nt; j++) {
                int found = -1;
                for (int q = 0; q < r->nprobe; q++)
                    if (r->probe[q].threads == tv[j] && !strcmp(r->probe[q].kind, r->probe[i].kind))
                        found = q;
                if (found >= 0)
                    fprintf(f, " %.2f |", r->probe[found].value);
                else
                    fputs(" – |", f);
            }
            fputc('\n', f);
        }
        fputc('\n', f);
        int methods = 0;
        for (int i = 0; i < r->nprobe && !methods; i++)
            methods = !strncmp(r->probe[i].kind, "read_DRAM_", 10);
        fputs("Bandwidth is measured the way STREAM does it: each thread pinned, streaming its "
              "own first-touched part of the buffer, all threads started together, best of "
              "several passes; copy counts 2 bytes per byte copied, triad 3.", f);
        fputs(methods ? "  read_<level> is the best of the read methods (plain 256-bit loads, "
                        "wide 512-bit, software-prefetched, non-temporal; each stored as "
                        "read_<level>_<method>, printed by `mpbench probe`), the bandwidth roof."
                      : "  read_<level> is one plain read (a probe from before the read methods "
                        "of issue 37).",
              f);
        if (nceil && percall)
            fprintf(f, "  The same probe measured the compute ceiling of %d variants at a real "
                       "shape per N and thread count (section 7's compute roofs).", nceil);
        else if (nceil)
            fprintf(f, "  The same probe measured the in-cache compute ceiling of %d variants "
                       "on one core (section 7's compute roofs, times the threads).", nceil);
        fputs("\n\n", f);
    }
    fputs("The papers' machines, for scale (seed 003 §IV-A, measured read bandwidth): Core "
          "Ultra 9 285K (ARL, 24 cores) 98 GB/s; Core Ultra 7 255H (ARLH, 14 cores) 75 GB/s; "
          "Core Ultra 7 258V (LNL, 8 cores) 97 GB/s.  Seed 004 §3.1: i7-13700H (14 cores, 20 "
          "threads, 64 GB) and M2 Ultra (64 GB); seed 001 Table 4: i7-13700k (4 cores tested, "
          "48 KiB L1D) among five devices.\n\n",
          f);
}

/* e2e rows of this machine, newest per key. */
typedef mp_rep_e2e e2e_row;

static char e2e_error[256]; /* why an existing e2e table could not be read */

/* e2e rows of this machine into *out (malloc'd); count, -1 no e2e table, -2 unreadable. */
static int load_e2e(mp_rep *r, int all, e2e_row **out)
{
    return mp_store_rep_e2e(r->store, r->mach.id, all, out, e2e_error, sizeof e2e_error);
}

/* Column of a bitnetcpp-* model in sizes[], -1 for other models. */
static int size_col(const char *model)
{
    for (int i = 0; i < NSIZES; i++)
        if (sizes[i].ours && !strcmp(sizes[i].ours, model))
            return i;
    return -1;
}

/* An e2e row whose repetitions span more than this share of its median
 * ((max - min) / median) is marked unstable, as a kernel row past 10% CV is. */
#define E2E_UNSTABLE_PCT 20.0

/* tokens/s, "±h%" (half the min-max spread), "(L/M layers)" for partial models;
 * the status when not ok. */
static void e2e_cell(char *buf, size_t len, const e2e_row *x)
{
    if (strcmp(x->status, "ok")) {
        snprintf(buf, len, "%s", x->status[0] ? x->status : "?");
        return;
    }
    size_t u = (size_t)snprintf(buf, len, "%.2f", x->tps);
    /* spread over the repetitions, † past the kernel tables' 10% (issue 16) */
    if (x->tps > 0 && x->tps_max > 0 && x->tps_min > 0 && u < len) {
        double spread = 100.0 * (x->tps_max - x->tps_min) / x->tps;
        u += (size_t)snprintf(buf + u, len - u, " ±%.0f%%%s", spread / 2,
                              spread > E2E_UNSTABLE_PCT ? "†" : "");
    }
    if (x->layers > 0 && x->layers < x->model_layers && u < len)
        snprintf(buf + u, len - u, " (%d/%d layers)", x->layers, x->model_layers);
}

/* The seed 000 Table 7 row (i7-13700H) of a kernel method, NULL if the table has none. */
static const paper_row *t7_row(const char *method)
{
    static const struct {
        const char *method, *paper;
    } names[] = {{"F16", "Float16"}, {"Q4_0", "Q4_0"},   {"TMAC_INT2", "T-MAC"},
                 {"TQ1_0", "TQ1_0"}, {"TQ2_0", "TQ2_0"}, {"TL1_0", "TL1_0"},
                 {"TL2_0", "TL2_0"}, {"I2_S", "I2_S"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(names[i].method, method))
            continue;
        char want[64];
        snprintf(want, sizeof want, "i7-13700H %s b(", names[i].paper);
        for (size_t j = 0; j < sizeof paper_tps / sizeof paper_tps[0]; j++)
            if (!strcmp(paper_tps[j].cite, "seed 000 Table 7") &&
                !strncmp(paper_tps[j].what, want, strlen(want)))
                return &paper_tps[j];
    }
    return NULL;
}

/* Decode tokens/s relative to TQ2_0 (llama.cpp's ternary kernel) in the same model and
 * run setting, ours beside seed 000 Table 7's i7-13700H: ratios travel between
 * machines better than tokens/s do (memory bandwidth sets both). */
static void e2e_ratio_table(FILE *f, const e2e_row *e, int ne, int threads)
{
    const paper_row *p_tq2 = t7_row("TQ2_0");
    const char *vars[MAXV];
    int nv = 0;
    for (int i = 0; i < ne; i++) {
        const e2e_row *x = &e[i];
        if (size_col(x->model) < 0 || strncmp(x->test, "tg", 2) || strchr(x->test, ' ') ||
            x->threads != threads || !t7_row(x->method))
            continue;
        int j;
        for (j = 0; j < nv && strcmp(vars[j], x->variant); j++)
            ;
        if (j == nv && nv < MAXV)
            vars[nv++] = x->variant;
    }
    if (!nv || !p_tq2)
        return;
    fprintf(f, "Decode speed relative to our TQ2_0 (a re-implementation of llama.cpp's format; "
               "llama.cpp end to end is not measured here yet, issue 39) in the same model and "
               "the same run (\"–\" when the two rows come from different runs), this machine "
               "(%d thread%s, cold) [seed 000 Table 7, i7-13700H, against llama.cpp's TQ2_0, in "
               "brackets].  A partial model \"(L/M layers)\" "
               "runs the first L of its M layers with the whole embedding and output head, so the "
               "head's share of the time is larger than in the whole model and its ratio is not "
               "the paper's whole-model ratio (printed \"whole model\" beside it, not "
               "comparable):\n\n"
               "| kernel |", threads, threads > 1 ? "s" : "");
    for (int c = 0; c < NSIZES; c++)
        if (sizes[c].ours)
            fprintf(f, " %s |", sizes[c].label);
    fputs("\n|---|", f);
    for (int c = 0; c < NSIZES; c++)
        if (sizes[c].ours)
            fputs("--:|", f);
    fputc('\n', f);
    for (int vi = 0; vi < nv; vi++) {
        const e2e_row *cells[NSIZES] = {0}, *tq2[NSIZES] = {0};
        const char *method = "";
        for (int i = 0; i < ne; i++) {
            const e2e_row *x = &e[i];
            int c = size_col(x->model);
            if (c < 0 || strncmp(x->test, "tg", 2) || strchr(x->test, ' ') ||
                x->threads != threads || strcmp(x->status, "ok"))
                continue;
            if (!strcmp(x->variant, vars[vi]))
                cells[c] = x, method = x->method;
            if (!strcmp(x->method, "TQ2_0"))
                tq2[c] = x;
        }
        const paper_row *p = t7_row(method);
        fputs("| ", f);
        md_escape(f, vars[vi]);
        fputs(" |", f);
        for (int c = 0; c < NSIZES; c++) {
            if (!sizes[c].ours)
                continue;
            char ours[64] = "–", theirs[48] = "";
            int partial = 0;
            if (cells[c] && tq2[c] && tq2[c]->tps > 0 && cells[c]->layers == tq2[c]->layers &&
                cells[c]->run == tq2[c]->run) { /* one run per ratio (issue 37) */
                partial = cells[c]->layers > 0 && cells[c]->layers < cells[c]->model_layers;
                if (partial)
                    snprintf(ours, sizeof ours, "%.2f (%d/%d layers)", cells[c]->tps / tq2[c]->tps,
                             cells[c]->layers, cells[c]->model_layers);
                else
                    snprintf(ours, sizeof ours, "%.2f", cells[c]->tps / tq2[c]->tps);
            }
            if (p && p->v[c] > 0 && p_tq2->v[c] > 0)
                snprintf(theirs, sizeof theirs, partial ? " [whole model: %.2f]" : " [%.2f]",
                         p->v[c] / p_tq2->v[c]);
            else if (p && p->v[c] == NA)
                snprintf(theirs, sizeof theirs, " [N/A]");
            fprintf(f, " %s%s |", ours, theirs);
        }
        fputc('\n', f);
    }
    fputc('\n', f);
}

/* Section 2: tokens/s per variant x model size, one table per test kind and thread
 * count, then the papers' rows (paper_tps). */
static void sec_e2e_tps(FILE *f, mp_rep *r, const e2e_row *e, int ne)
{
    fputs("## 2. End-to-end tokens/s per kernel and model size (seed 000 Table 7; seed 004 "
          "Tables 4–5)\n\n",
          f);
    int any = 0;
    /* one table per (test kind, threads): decode first, as the papers' tables */
    for (int kind = 0; kind < 2; kind++) {
        int tv[16], nt = 0;
        for (int i = 0; i < ne; i++) {
            const e2e_row *x = &e[i];
            if (size_col(x->model) < 0 || strncmp(x->test, kind ? "pp" : "tg", 2) ||
                strchr(x->test, ' '))
                continue;
            int j;
            for (j = 0; j < nt && tv[j] != x->threads; j++)
                ;
            if (j == nt && nt < 16)
                tv[nt++] = x->threads;
        }
        for (int ti = 0; ti < nt; ti++) {
            const char *vars[MAXV];
            int nv = 0;
            for (int i = 0; i < ne; i++) {
                const e2e_row *x = &e[i];
                if (size_col(x->model) < 0 || strncmp(x->test, kind ? "pp" : "tg", 2) ||
                    strchr(x->test, ' ') || x->threads != tv[ti])
                    continue;
                int j;
                for (j = 0; j < nv && strcmp(vars[j], x->variant); j++)
                    ;
                if (j == nv && nv < MAXV)
                    vars[nv++] = x->variant;
            }
            any = 1;
            fprintf(f, "%s, %d thread%s (this machine, tokens/s%s%s):\n\n",
                    kind ? "Prefill (ppN)" : "Decode (tgN)", tv[ti], tv[ti] > 1 ? "s" : "",
                    tv[ti] == 2 ? "; compare seed 004 Table 5, 2 threads" : "",
                    tv[ti] >= r->mach.pus ? "; all hardware threads: compare seed 000 Table 7 "
                                            "and seed 004 Table 4, unlimited threads"
                                          : "");
            fputs("| kernel b(bpw) |", f);
            for (int c = 0; c < NSIZES; c++)
                fprintf(f, " %s |", sizes[c].label);
            fputs("\n|---|", f);
            for (int c = 0; c < NSIZES; c++)
                fputs("--:|", f);
            fputc('\n', f);
            int64_t runs[MAXV];
            int nruns = 0;
            for (int vi = 0; vi < nv; vi++) {
                const e2e_row *cells[NSIZES] = {0};
                double bpw = 0;
                char method[64] = "";
                for (int i = 0; i < ne; i++) {
                    const e2e_row *x = &e[i];
                    int c = size_col(x->model);
                    if (c < 0 || strncmp(x->test, kind ? "pp" : "tg", 2) || strchr(x->test, ' ') ||
                        x->threads != tv[ti] || strcmp(x->variant, vars[vi]))
                        continue;
                    cells[c] = x; /* newest wins (ordered by id) */
                    if (x->bpw > 0)
                        bpw = x->bpw;
                    snprintf(method, sizeof method, "%s", x->method);
                }
                fputs("| ", f);
                md_escape(f, vars[vi]);
                fprintf(f, "%s%s%s b(%.2f) |", method[0] ? " (" : "", method, method[0] ? ")" : "",
                        bpw);
                for (int c = 0; c < NSIZES; c++) {
                    char buf[64] = "–";
                    if (cells[c]) {
                        e2e_cell(buf, sizeof buf, cells[c]);
                        if (nruns < MAXV)
                            runs[nruns++] = cells[c]->run;
                    }
                    fprintf(f, " %s |", buf);
                }
                fputc('\n', f);
            }
            fputc('\n', f);
            runs_line(f, runs, nruns);
            if (!kind && tv[ti] >= r->mach.pus)
                e2e_ratio_table(f, e, ne, tv[ti]);
        }
    }
    if (ne == -2)
        fprintf(f, "The e2e table of this database could not be read (%s): this mpbench "
                   "expects the e2e schema of harness/e2e.c.\n\n", e2e_error);
    else if (!any)
        fputs(ne < 0 ? "No e2e table in this database (this mpbench has no end-to-end runner "
                       "yet): run `mpbench e2e --model bitnetcpp-125m --variant ...` once it "
                       "exists.\n\n"
                     : "No e2e results for the bitnetcpp-* models on this machine: run "
                       "`mpbench e2e --model bitnetcpp-125m --variant 'i2_s*,tq2_0*' --tg 16 "
                       "--threads 2` (and the other sizes; `--layers L` for a quick partial "
                       "model).\n\n",
              f);
    else
        fputs("\"(L/M layers)\": run with `--layers L` of the model's M, so tokens/s are not the "
              "full model's.  b(x): measured bits per ternary weight of the packed layers.\n\n",
              f);
    /* other models (not in the papers' tables) */
    int other = 0;
    for (int i = 0; i < ne; i++) {
        const e2e_row *x = &e[i];
        if ((size_col(x->model) >= 0 && !strchr(x->test, ' ')) || !strcmp(x->test, "lossless"))
            continue;
        if (!other++)
            fputs("Other end-to-end rows (other models; parallel decoding `tgN bB`, B sequences "
                  "at once):\n\n| model | variant | test | "
                  "threads | tokens/s |\n|---|---|---|--:|--:|\n", f);
        char buf[64];
        e2e_cell(buf, sizeof buf, x);
        fprintf(f, "| %s | ", x->model);
        md_escape(f, x->variant);
        fprintf(f, " | %s | %d | %s |\n", x->test, x->threads, buf);
    }
    if (other)
        fputc('\n', f);
    fputs("The papers' x86 figures (tokens/s; N/A: the paper's CPU could not host the model; – "
          "not in that table; 2.5B is seed 004 Appendix A's model, our 2.7B follows BitNet's "
          "dummy-model script; the M2 Ultra rows are in the seeds' tables, no claim here is "
          "judged against Arm):\n\n| source | CPU, kernel |",
          f);
    for (int c = 0; c < NSIZES; c++)
        fprintf(f, " %s |", sizes[c].label);
    fputs("\n|---|---|", f);
    for (int c = 0; c < NSIZES; c++)
        fputs("--:|", f);
    fputc('\n', f);
    for (size_t i = 0; i < sizeof paper_tps / sizeof paper_tps[0]; i++) {
        if (strstr(paper_tps[i].what, "M2 Ultra"))
            continue;
        fprintf(f, "| %s | %s |", paper_tps[i].cite, paper_tps[i].what);
        for (int c = 0; c < NSIZES; c++) {
            double v = paper_tps[i].v[c];
            if (v == NO)
                fputs(" – |", f);
            else if (v == NA)
                fputs(" N/A |", f);
            else
                fprintf(f, " %.2f |", v);
        }
        fputc('\n', f);
    }
    fputc('\n', f);
}

/* The paper's lossless figure for a method (exact name), "–" when the paper has none. */
static const char *paper_lossless_figure(const char *method)
{
    for (size_t p = 0; p < sizeof paper_lossless / sizeof paper_lossless[0]; p++)
        if (!strcmp(method, paper_lossless[p].method))
            return paper_lossless[p].figure;
    return "–";
}

/* Largest kernel error (max relative error against the reference) stored for a
 * variant in any kernel result; NAN when none. */
static double kernel_error(const mp_rep *r, const char *variant)
{
    double e = NAN;
    for (int i = 0; i < r->nrows; i++)
        if (!strcmp(r->rows[i].variant, variant) && !isnan(r->rows[i].max_rel_err) &&
            (isnan(e) || r->rows[i].max_rel_err > e))
            e = r->rows[i].max_rel_err;
    return e;
}

/* Section 3: the lossless check's share per variant beside seed 004 Table 7 and
 * the logit figures that separate lossy from lossless where exact match cannot
 * (issue 37); the numerics label comes from the variant's catalog row, the
 * paper's figure only for the method the paper measured (exact name). */
static void sec_lossless(FILE *f, const mp_rep *r, const e2e_row *e, int ne)
{
    fputs("## 3. Lossless share (seed 004 Table 7)\n\n", f);
    int any = 0, nruns = 0;
    int64_t runs[MAXV];
    for (int i = 0; i < ne; i++) {
        const e2e_row *x = &e[i];
        if (strcmp(x->test, "lossless"))
            continue;
        if (!any++)
            fputs("| variant | method | numerics | model | layers | prompts | tokens | matched | "
                  "share | max logit diff / range | first diverging token | "
                  "kernel error (max rel) | paper (seed 004 Table 7) |\n"
                  "|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n", f);
        const char *numerics = mp_rep_numerics(x->variant);
        if (nruns < MAXV)
            runs[nruns++] = x->run;
        fputs("| ", f);
        md_escape(f, x->variant);
        fprintf(f, " | %s | %s | %s | %d/%d | %d | %d | ", x->method, numerics, x->model,
                x->layers, x->model_layers, x->prompts, x->tokens);
        char err[32] = "–";
        double ke = kernel_error(r, x->variant);
        if (!strcmp(numerics, "lossless"))
            snprintf(err, sizeof err, "0 (bit for bit)");
        else if (!isnan(ke))
            snprintf(err, sizeof err, "%.2g", ke);
        if (strcmp(x->status, "ok") && strcmp(x->status, "failed")) {
            fprintf(f, "%s: ", x->status);
            md_escape(f, x->reason[0] ? x->reason : "no reason stored");
            fprintf(f, " | – | – | – | %s | %s |\n", err, paper_lossless_figure(x->method));
        } else {
            char diff[32] = "–", first[16] = "–";
            if (!isnan(x->logit_diff) && x->first_diff >= 0) {
                snprintf(diff, sizeof diff, x->logit_diff == 0 ? "0" : "%.2g", x->logit_diff);
                snprintf(first, sizeof first, x->first_diff ? "%d" : "none", x->first_diff);
            }
            fprintf(f, "%d | %.1f%%%s | %s | %s | %s | %s |\n", x->matched, 100.0 * x->share,
                    strcmp(x->status, "ok") ? " (failed)" : "", diff, first, err,
                    paper_lossless_figure(x->method));
        }
    }
    if (!any)
        fputs("No lossless check on this machine: run `mpbench e2e --lossless --model "
              "bitnetcpp-125m --variant 'i2_s*,tq2_0*,tq1_0*' --prompts 10 --tokens 64`.\n\n",
              f);
    else
        fputc('\n', f);
    runs_line(f, runs, nruns);
    fputs("numerics: the variant's catalog row (lossless: bit for bit with the reference; "
          "lossy: int8 tables or block-quantized activations, its kernel error is the largest "
          "max relative error stored for it; float: a float baseline).  The paper's figure is "
          "printed only beside the method it measured: its TL1/TL2 are the lossless "
          "pack-and-unpack kernels (our TL1_1/TL2_1), not the int8-table TL1_0/TL2_0.  TQ1_0 "
          "and TQ2_0 need K to be a multiple of their 256-weight block: a model whose K is not "
          "(the 2-layer test model has K = 128) is skipped with that reason.\n\n"
          "max logit diff / range: the variant decoded on the reference's tokens (teacher-"
          "forced, so one divergence does not cascade), the largest |logit - reference logit| "
          "over every prompt, step and vocabulary entry, relative to that step's reference "
          "logit range; 0 only when every logit is bit for bit the reference's (a lossless "
          "variant with any difference fails).  first diverging token: the earliest generated "
          "token at which a prompt's argmax left the reference's (none: no prompt diverged); "
          "\"–\": a row stored before these figures.  Exact match has little power on "
          "bitnetcpp-125m's synthetic weights: its head is tied to the embedding, and the "
          "argmax is nearly always the token just fed (637 of 640 steps with all 11 layers, "
          "a median top-1/top-2 margin of a fifth of the logit range; 1600 of 1600 with 2 "
          "layers, at least a third), while a lossy kernel moves the logits by 3-5% of the "
          "range: a prompt can diverge only at its first token (issue 37's measurements).  The "
          "logit difference separates lossy from lossless there; on an untied head the test "
          "suite shows exact match failing for TQ2_0 too (tests/test_e2e.c).\n\n"
          "Paper (seed 004 Table 7, 1000 WildChat prompts, 700M model, up to 100 tokens, exact "
          "match with an FP32 kernel): TQ1_0 1.4%, TQ2_0 1.4%, I2_S 100%, TL1 100%, TL2 100%.  "
          "Our prompts are seeded random token sequences on synthetic weights, against the "
          "reference integer arithmetic (DESIGN.md \"Numerics\").\n\n",
          f);
}

/* ---- kernel sections -------------------------------------------------------------- */

typedef struct flt {
    int n, threads, m, k; /* -1: any */
    const char *method_prefix;
} flt;

/* mp_rep_filter over a flt. */
static int f_match(const mp_rep_row *x, const void *ctx)
{
    const flt *c = ctx;
    return (c->n < 0 || x->n == c->n) && (c->threads < 0 || x->threads == c->threads) &&
           (c->m < 0 || (x->m == c->m && x->k == c->k)) &&
           (!c->method_prefix || !strncmp(x->method, c->method_prefix, strlen(c->method_prefix)));
}

/* Keeps, of vars (sorted by method), the variant of each method with the highest
 * mean value (gops or gbps) over the shapes at (n, threads): the body shows the
 * best path per method, the CSV beside the report every variant.  Returns the count. */
static int best_per_method(const mp_rep *r, const char **vars, int nv, int (*shapes)[2], int ns,
                           int n, int threads, int gbps)
{
    int out = 0;
    for (int v = 0; v < nv;) {
        const char *method = "";
        for (int i = 0; i < r->nrows; i++)
            if (!strcmp(r->rows[i].variant, vars[v]))
                method = r->rows[i].method;
        int best = v;
        double best_mean = -1;
        int w;
        for (w = v; w < nv; w++) {
            const char *m2 = "";
            for (int i = 0; i < r->nrows; i++)
                if (!strcmp(r->rows[i].variant, vars[w]))
                    m2 = r->rows[i].method;
            if (strcmp(m2, method))
                break;
            double sum = 0;
            for (int s = 0; s < ns; s++) {
                const mp_rep_row *x = mp_rep_pick(r, vars[w], shapes[s][0], shapes[s][1], n, threads);
                if (x && (!strcmp(x->status, "ok") || !strcmp(x->status, "unstable")))
                    sum += gbps ? x->gbps : x->gops;
            }
            if (sum / ns > best_mean)
                best_mean = sum / ns, best = w;
        }
        if (mp_rep_body_method(method))
            vars[out++] = vars[best];
        v = w;
    }
    return out;
}

/* Table: rows the best variant per method, columns shapes, value gops or gbps,
 * at (n, threads). */
static void grid(FILE *f, mp_rep *r, int n, int threads, int gbps)
{
    flt c = {n, threads, -1, -1, NULL};
    int shapes[MAXS][2];
    const char *vars[MAXV];
    int ns = mp_rep_distinct_shapes(r, f_match, &c, shapes, MAXS);
    int nv = mp_rep_distinct_variants(r, f_match, &c, vars, MAXV);
    nv = best_per_method(r, vars, nv, shapes, ns, n, threads, gbps);
    char cols[MAXS][32];
    const char *colp[MAXS];
    for (int s = 0; s < ns; s++) {
        shape_str(cols[s], sizeof cols[s], shapes[s][0], shapes[s][1]);
        colp[s] = cols[s];
    }
    mp_rep_table_head(f, "variant (method) b(bpw)", colp, ns);
    int64_t runs[MAXV * 4];
    int nruns = 0;
    for (int v = 0; v < nv; v++) {
        char label[160];
        fprintf(f, "| %s |", row_label(r, vars[v], label, sizeof label));
        for (int s = 0; s < ns; s++) {
            const mp_rep_row *x = mp_rep_pick(r, vars[v], shapes[s][0], shapes[s][1], n, threads);
            char buf[64];
            cell(buf, sizeof buf, x, x ? (gbps ? x->gbps : x->gops) : 0, gbps ? "%.2f" : "%.1f");
            fprintf(f, " %s |", buf);
            if (x && nruns < MAXV * 4)
                runs[nruns++] = x->run_id;
        }
        fputc('\n', f);
    }
    fputc('\n', f);
    runs_line(f, runs, nruns);
}

/* Section 4: GOPS per variant x shape at N = 128 (else the largest N), per thread count. */
static void sec_fig8(FILE *f, mp_rep *r)
{
    fputs("## 4. Kernel benchmark: GOPS per variant and shape (seed 001 Fig. 8)\n\n", f);
    int nv[MAXN];
    int nn = mp_rep_distinct_int(r, MP_REP_N, NULL, NULL, nv, MAXN);
    if (!nn) {
        fputs("No kernel results on this machine: run `mpbench sweep --quick` or `mpbench run "
              "--variant ... --model bitnet-b1.58-2b-4t --n 128`.\n\n",
              f);
    } else {
        int n = nv[nn - 1];
        for (int i = 0; i < nn; i++)
            if (nv[i] == 128)
                n = 128;
        flt c = {n, -1, -1, -1, NULL};
        int tv[MAXN];
        int nt = mp_rep_distinct_int(r, MP_REP_THREADS, f_match, &c, tv, MAXN);
        for (int t = 0; t < nt; t++) {
            fprintf(f, "N = %d%s, %d thread%s, %s cache, GOPS (2·M·K·N / median time), the best "
                       "variant per method (every variant: the CSV below):\n\n", n,
                    n == 128 ? "" : " (no N = 128 stored: the largest N)", tv[t],
                    tv[t] > 1 ? "s" : "", r->cache);
            grid(f, r, n, tv[t], 0);
        }
    }
    fputs("Paper (seed 001 Fig. 8, plot only; §5.2 text): Vec-LUT I1 (b1.60) vs TQ1_0 (b1.69) "
          "3.4–4.7× and I2 (b2.00) vs TQ2_0 (b2.06) 1.7–2.9× in single-thread mpGeMM, 2.9–3.7× "
          "and 1.6–2.8× multi-thread, averaged over GeMM shapes; I2 vs T-MAC INT_N 1.8–3.2× "
          "single-thread and 1.5–1.9× multi-thread.  The paper compares runs/s; GOPS here is "
          "the same ordering per shape.\n\n",
          f);
}

/* Rows of the vector-LUT family. */
static int f_vlut(const mp_rep_row *x, const void *ctx)
{
    (void)ctx;
    return !strncmp(x->method, "VLUT", 4) || !strcmp(x->family, "veclut");
}

/* Section 5: up to four (variant, shape, N, threads) points of the vector-LUT family
 * measured with several parameter settings, fastest-relative speed-ups. */
static void sec_fig11(FILE *f, mp_rep *r)
{
    fputs("## 5. Ablation: Vec-LUT techniques switched on and off (seed 001 Fig. 11)\n\n", f);
    /* groups: (variant, m, k, n, threads) with >= 2 distinct params, cold */
    typedef struct grp {
        const mp_rep_row *first;
        int count;
    } grp;
    grp g[256];
    int ng = 0;
    for (int i = 0; i < r->nrows; i++) {
        const mp_rep_row *x = &r->rows[i];
        if (strcmp(x->cache, r->cache) || !f_vlut(x, NULL))
            continue;
        int j;
        for (j = 0; j < ng; j++) {
            const mp_rep_row *y = g[j].first;
            if (!strcmp(y->variant, x->variant) && y->m == x->m && y->k == x->k && y->n == x->n &&
                y->threads == x->threads)
                break;
        }
        if (j == ng) {
            if (ng == 256)
                continue;
            g[ng].first = x;
            g[ng++].count = 0;
        }
        g[j].count++;
    }
    int shown = 0;
    for (int pass = 0; pass < 4; pass++) {
        int best = -1;
        for (int j = 0; j < ng; j++)
            if (g[j].count >= 2 && (best < 0 || g[j].count > g[best].count ||
                                    (g[j].count == g[best].count && g[j].first->n > g[best].first->n)))
                best = j;
        if (best < 0)
            break;
        const mp_rep_row *y = g[best].first;
        g[best].count = -g[best].count;
        double slow = 0;
        for (int i = 0; i < r->nrows; i++) {
            const mp_rep_row *x = &r->rows[i];
            if (!strcmp(x->cache, r->cache) && !strcmp(x->variant, y->variant) && x->m == y->m &&
                x->k == y->k && x->n == y->n && x->threads == y->threads &&
                (!strcmp(x->status, "ok") || !strcmp(x->status, "unstable")) && x->median_us > slow)
                slow = x->median_us;
        }
        shown++;
        fprintf(f, "%s, %dx%d, N = %d, %d thread%s (speed-up against the slowest setting):\n\n"
                   "| params | median µs | GOPS | speed-up |\n|---|--:|--:|--:|\n",
                y->variant, y->m, y->k, y->n, y->threads, y->threads > 1 ? "s" : "");
        for (int i = 0; i < r->nrows; i++) {
            const mp_rep_row *x = &r->rows[i];
            if (strcmp(x->cache, r->cache) || strcmp(x->variant, y->variant) || x->m != y->m ||
                x->k != y->k || x->n != y->n || x->threads != y->threads)
                continue;
            char us[64], gops[64];
            mp_rep_row tmp = *x;
            tmp.is_default = 1;
            cell(us, sizeof us, &tmp, x->median_us, "%.1f");
            cell(gops, sizeof gops, &tmp, x->gops, "%.1f");
            int known = mp_registry_find(x->variant) != NULL;
            fprintf(f, "| %s%s | %s | %s | ", x->params[0] ? x->params : "(none)",
                    known && x->is_default ? " (default)" : "", us, gops);
            if (slow > 0 && x->median_us > 0 && (!strcmp(x->status, "ok") || !strcmp(x->status, "unstable")))
                fprintf(f, "%.2f× |\n", slow / x->median_us);
            else
                fputs("– |\n", f);
        }
        fputc('\n', f);
    }
    if (!shown)
        fputs("No Vec-LUT results with differing parameters: run `mpbench sweep --variant "
              "'vlut_i2*' --params all --shape 3200x3200 --n 128` (the techniques are the "
              "parameters stream, topo, hier, tcl).\n\n",
              f);
    fputs("Paper (seed 001 Fig. 11, HF BitNet 3B prefilling on the Intel PC, plot only; §5.5 "
          "text): the layout optimizations give the initial 10.6–11.9× speed-up and the "
          "streamed LUT optimizations another 4.1–9.0×.\n\n",
          f);
}

/* Section 6: GOPS against N at the (shape, threads) with the most N values, and the
 * e2e prefill rows by prompt length. */
static void sec_fig12(FILE *f, mp_rep *r, const e2e_row *e, int ne)
{
    fputs("## 6. Prompt length: throughput against N (seed 001 Fig. 12)\n\n", f);
    /* the (shape, threads) with the most distinct N */
    int shapes[MAXS][2], tv[MAXN];
    int ns = mp_rep_distinct_shapes(r, NULL, NULL, shapes, MAXS);
    int nt = mp_rep_distinct_int(r, MP_REP_THREADS, NULL, NULL, tv, MAXN);
    int bs = -1, bt = -1, bn = 0;
    for (int s = 0; s < ns; s++)
        for (int t = 0; t < nt; t++) {
            flt c = {-1, tv[t], shapes[s][0], shapes[s][1], NULL};
            int nv[MAXN];
            int nn = mp_rep_distinct_int(r, MP_REP_N, f_match, &c, nv, MAXN);
            if (nn > bn)
                bn = nn, bs = s, bt = t;
        }
    if (bn < 2) {
        fputs("No shape measured at more than one N: run `mpbench sweep --variant ... --shape "
              "3200x8640 --n 1,8,32,64,128,256`.\n\n",
              f);
    } else {
        flt c = {-1, tv[bt], shapes[bs][0], shapes[bs][1], NULL};
        int nv[MAXN];
        const char *vars[MAXV];
        int nn = mp_rep_distinct_int(r, MP_REP_N, f_match, &c, nv, MAXN);
        int nvar = mp_rep_distinct_variants(r, f_match, &c, vars, MAXV);
        /* only the variants measured at more than one N (the others are
         * section 4's and 7's rows) */
        int keep = 0;
        for (int v = 0; v < nvar; v++) {
            int got = 0;
            for (int i = 0; i < nn; i++) {
                const mp_rep_row *x =
                    mp_rep_pick(r, vars[v], shapes[bs][0], shapes[bs][1], nv[i], tv[bt]);
                got += x && (!strcmp(x->status, "ok") || !strcmp(x->status, "unstable"));
            }
            if (got > 2) /* N = 1 and 128 alone are sections 7 and 4 */
                vars[keep++] = vars[v];
        }
        nvar = keep;
        fprintf(f, "Kernel GOPS at %dx%d, %d thread%s, %s cache, against N (tokens per call); "
                   "the variants measured at three N or more:\n\n",
                shapes[bs][0], shapes[bs][1], tv[bt], tv[bt] > 1 ? "s" : "", r->cache);
        char cols[MAXN][24];
        const char *colp[MAXN];
        for (int i = 0; i < nn; i++) {
            snprintf(cols[i], sizeof cols[i], "N=%d", nv[i]);
            colp[i] = cols[i];
        }
        mp_rep_table_head(f, "variant (method) b(bpw)", colp, nn);
        for (int v = 0; v < nvar; v++) {
            char label[160];
            fprintf(f, "| %s |", row_label(r, vars[v], label, sizeof label));
            for (int i = 0; i < nn; i++) {
                const mp_rep_row *x = mp_rep_pick(r, vars[v], shapes[bs][0], shapes[bs][1], nv[i],
                                                  tv[bt]);
                char buf[64];
                cell(buf, sizeof buf, x, x ? x->gops : 0, "%.1f");
                fprintf(f, " %s |", buf);
            }
            fputc('\n', f);
        }
        fputc('\n', f);
    }
    /* end to end: prefill tokens/s against prompt length */
    int any = 0;
    for (int i = 0; i < ne; i++) {
        if (strncmp(e[i].test, "pp", 2) || strchr(e[i].test, ' '))
            continue;
        if (!any++)
            fputs("End-to-end prefill tokens/s by prompt length:\n\n| model | variant | threads | "
                  "prompt | tokens/s |\n|---|---|--:|--:|--:|\n", f);
        char buf[64];
        e2e_cell(buf, sizeof buf, &e[i]);
        fprintf(f, "| %s | ", e[i].model);
        md_escape(f, e[i].variant);
        fprintf(f, " | %d | %d | %s |\n", e[i].threads, e[i].n_prompt, buf);
    }
    if (any)
        fputc('\n', f);
    fputs("Paper (seed 001 Fig. 12, HF BitNet 3B prefilling on the Intel PC, plot only; §5.5 "
          "text): Vec-LUT's throughput increases linearly with the prompt length and peaks when "
          "the prompt length equals the N-tiling size; N_tile 32 outperforms 64; T-MAC's "
          "throughput stays nearly constant.\n\n",
          f);
}

/* ratios within one run against a baseline method */
/* base-method time / variant time at N = n, all from the newest non-tune run that
 * measured base at n (one table per thread count of that run). */
static void ratio_table(FILE *f, mp_rep *r, const char *base, int n)
{
    int64_t run = mp_store_rep_ratio_run(r->store, r->mach.id, base, n, r->cache);
    if (!run) {
        const char *hint = !strcmp(base, "LLAMACPP_TQ2_0") ? "llamacpp.tq2_0"
                           : !strcmp(base, "LLAMACPP_Q8_0") ? "llamacpp.q8_0"
                           : base[0] == 'T'                  ? "tq2_0"
                                                             : "i2_s";
        fprintf(f, "Against %s at N = %d: no run measured %s at N = %d on this machine (run "
                   "`mpbench run --variant '%s*,...' --model bitnet-b1.58-2b-4t --n %d`%s).\n\n",
                base, n, base, n, hint, n,
                strncmp(base, "LLAMACPP_", 9) ? "" : " after `make peers`");
        return;
    }
    /* rows of that run at n, cold: variant, method, m, k, threads, median, status, params */
    typedef struct rr {
        char variant[64], method[32], status[12], params[128];
        int m, k, t, def;
        double us;
    } rr;
    mp_rep_row *rows;
    int nx = mp_store_rep_run_rows(r->store, run, n, r->cache, &rows);
    rr *x = calloc((size_t)(nx ? nx : 1), sizeof *x);
    for (int i = 0; i < nx; i++) {
        rr *y = &x[i];
        snprintf(y->variant, sizeof y->variant, "%s", rows[i].variant);
        snprintf(y->method, sizeof y->method, "%s", rows[i].method);
        snprintf(y->status, sizeof y->status, "%s", rows[i].status);
        snprintf(y->params, sizeof y->params, "%s", rows[i].params);
        y->m = rows[i].m;
        y->k = rows[i].k;
        y->t = rows[i].threads;
        y->us = rows[i].median_us;
        y->def = mp_rep_params_default(y->variant, y->params);
    }
    free(rows);
    int tv[16], nt = 0, shapes[MAXS][2], ns = 0;
    const char *vars[MAXV];
    int nv = 0;
    for (int i = 0; i < nx; i++) {
        int j;
        for (j = 0; j < nt && tv[j] != x[i].t; j++)
            ;
        if (j == nt && nt < 16)
            tv[nt++] = x[i].t;
        for (j = 0; j < ns && (shapes[j][0] != x[i].m || shapes[j][1] != x[i].k); j++)
            ;
        if (j == ns && ns < MAXS)
            shapes[ns][0] = x[i].m, shapes[ns][1] = x[i].k, ns++;
        for (j = 0; j < nv && strcmp(vars[j], x[i].variant); j++)
            ;
        if (j == nv && nv < MAXV)
            vars[nv++] = x[i].variant;
    }
    /* the body: the run's largest thread count only (kernel-results.csv has the rest) */
    int tmax = 0;
    for (int t = 1; t < nt; t++)
        if (tv[t] > tv[tmax])
            tmax = t;
    for (int t = tmax; t < nt && t == tmax; t++) {
        fprintf(f, "Against %s at N = %d, %d thread%s, %s cache (run %lld; %s time ÷ variant "
                   "time, > 1: faster than %s; the fastest %s variant of the run is the baseline; "
                   "the fastest variant of each method):\n\n",
                base, n, tv[t], tv[t] > 1 ? "s" : "", r->cache, (long long)run, base, base, base);
        char cols[MAXS][32];
        const char *colp[MAXS];
        for (int s = 0; s < ns; s++) {
            shape_str(cols[s], sizeof cols[s], shapes[s][0], shapes[s][1]);
            colp[s] = cols[s];
        }
        mp_rep_table_head(f, "variant (method)", colp, ns);
        double bus[MAXS];
        for (int s = 0; s < ns; s++) {
            bus[s] = 0;
            for (int i = 0; i < nx; i++)
                if (x[i].t == tv[t] && x[i].m == shapes[s][0] && x[i].k == shapes[s][1] &&
                    !strcmp(x[i].method, base) &&
                    (!strcmp(x[i].status, "ok") || !strcmp(x[i].status, "unstable")) &&
                    (bus[s] == 0 || x[i].us < bus[s]))
                    bus[s] = x[i].us;
        }
        /* the body shows the fastest variant of each method (highest mean speed-up
         * over the shapes; every row is in kernel-results.csv) */
        double mean[MAXV];
        for (int v = 0; v < nv; v++) {
            double sum = 0;
            for (int s = 0; s < ns; s++) {
                double bt = 0;
                for (int i = 0; i < nx; i++)
                    if (x[i].t == tv[t] && x[i].m == shapes[s][0] && x[i].k == shapes[s][1] &&
                        !strcmp(x[i].variant, vars[v]) && x[i].us > 0 &&
                        (!strcmp(x[i].status, "ok") || !strcmp(x[i].status, "unstable")) &&
                        (bt == 0 || x[i].us < bt))
                        bt = x[i].us;
                if (bt > 0 && bus[s] > 0)
                    sum += bus[s] / bt;
            }
            mean[v] = ns ? sum / ns : 0;
        }
        for (int v = 0; v < nv; v++) {
            int present = 0, beaten = 0;
            for (int i = 0; i < nx; i++)
                present |= x[i].t == tv[t] && !strcmp(x[i].variant, vars[v]);
            const char *mv = "";
            for (int i = 0; i < nx; i++)
                if (!strcmp(x[i].variant, vars[v]))
                    mv = x[i].method;
            for (int w = 0; w < nv && present; w++) {
                if (w == v)
                    continue;
                const char *mw = "";
                int pw = 0;
                for (int i = 0; i < nx; i++)
                    if (!strcmp(x[i].variant, vars[w])) {
                        mw = x[i].method;
                        pw |= x[i].t == tv[t];
                    }
                if (pw && !strcmp(mv, mw) && (mean[w] > mean[v] || (mean[w] == mean[v] && w < v)))
                    beaten = 1;
            }
            if (!present || beaten || !mp_rep_body_method(mv))
                continue;
            const char *method = "";
            for (int i = 0; i < nx; i++)
                if (!strcmp(x[i].variant, vars[v]))
                    method = x[i].method;
            fprintf(f, "| %s (%s) |", vars[v], method);
            for (int s = 0; s < ns; s++) {
                const rr *best = NULL;
                for (int i = 0; i < nx; i++)
                    if (x[i].t == tv[t] && x[i].m == shapes[s][0] && x[i].k == shapes[s][1] &&
                        !strcmp(x[i].variant, vars[v]) &&
                        (!best || x[i].def > best->def ||
                         (x[i].def == best->def && !strcmp(x[i].status, "ok") &&
                          strcmp(best->status, "ok"))))
                        best = &x[i];
                if (!best)
                    fputs(" – |", f);
                else if (strcmp(best->status, "ok") && strcmp(best->status, "unstable"))
                    fprintf(f, " %s |", best->status);
                else if (bus[s] > 0 && best->us > 0 && bus[s] / best->us < 0.01)
                    fprintf(f, " <0.01×%s |", strcmp(best->status, "unstable") ? "" : "†");
                else if (bus[s] > 0 && best->us > 0)
                    fprintf(f, " %.2f×%s |", bus[s] / best->us,
                            strcmp(best->status, "unstable") ? "" : "†");
                else
                    fputs(" – |", f);
            }
            fputc('\n', f);
        }
        fputc('\n', f);
    }
    free(x);
}

/* Section 8: ratio tables against llama.cpp's own TQ2_0 and Q8_0 (the peers,
 * issue 15: our re-implementations are rows of the same tables), then against
 * our TQ2_0 and I2_S, at N = 1 and 128. */
static void sec_ratios(FILE *f, mp_rep *r)
{
    fputs("## 8. Speed ratios within one run, N = 1 and N = 128\n\n", f);
    fputs("First against llama.cpp's own kernels (the `llamacpp.*` peers: ggml's CPU backend "
          "loaded from the pinned npm build, `make peers`), with our re-implementation of the "
          "same format as a row of the same table (our TQ2_0 is the baseline only where llama.cpp's "
          "was not measured; every other pair: kernel-results.csv, one run per N).\n\n", f);
    /* llama.cpp's Q8_0 as a baseline is in kernel-results.csv (every row): the body
     * keeps the ternary baselines (issue 37: at most 500 lines) */
    static const char *const bases[] = {"LLAMACPP_TQ2_0", "TQ2_0"};
    static const int ns[] = {1, 128};
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < 2; i++) {
            /* our TQ2_0 is a row of llama.cpp's TQ2_0 table when that was measured:
             * a second table against it would repeat the first (kernel-results.csv
             * has every row) */
            if (!strcmp(bases[b], "TQ2_0") &&
                mp_store_rep_ratio_run(r->store, r->mach.id, "LLAMACPP_TQ2_0", ns[i], r->cache))
                continue;
            ratio_table(f, r, bases[b], ns[i]);
        }
    fputs("Papers, for comparison: seed 001 §5.2 (Fig. 8) Vec-LUT I2 over TQ2_0 1.7–2.9× "
          "single-thread (kernel, N = prompt tokens); seed 000 Table 7 (i7-13700H, 7B): I2_S "
          "20.62 vs TQ2_0 19.92 tokens/s (1.04×), TL2_0 20.72; seed 003 §IV-B: int2 within "
          "10–20% of int8 at N = 1.\n\n",
          f);
}

/* One row of section 9's table (the header before the first). */
typedef struct tuned_ctx {
    FILE *f;
    int any;
} tuned_ctx;

static void tuned_row(const mp_rep_tuned *t, void *ctx)
{
    tuned_ctx *c = ctx;
    FILE *f = c->f;
    if (!c->any++)
        fputs("| variant | shape | N | threads | strategy | chosen | default | best µs | "
              "default µs | gain | p | evaluations | decision |\n"
              "|---|---|--:|--:|---|---|---|--:|--:|--:|--:|--:|---|\n", f);
    fprintf(f, "| %s | %dx%d | %d | %d | %s | %s | %s | %.1f | %.1f | %.1f%% | %.2g | %d "
               "| ",
            t->variant, t->m, t->k, t->n, t->threads, t->strategy, t->chosen, t->defaults,
            t->best_us, t->default_us, t->gain_pct, t->p_value, t->evaluations);
    md_escape(f, t->decision);
    fputs(" |\n", f);
}

/* Section 9: the newest tuner decision per (variant, shape, N, threads). */
static void sec_tuned(FILE *f, mp_rep *r)
{
    fputs("## 9. Tuned parameters on this machine\n\n", f);
    tuned_ctx tc = {f, 0};
    int any = mp_store_rep_tuned(r->store, r->mach.id, tuned_row, &tc);
    if (!any)
        fputs("No tuner decisions for this machine: run `mpbench tune --variant 'i2_s.avx2' "
              "--model bitnet-b1.58-2b-4t --strategy exhaustive`.\n\n",
              f);
    else
        fputs("\nA chosen setting differs from the default only when the winner was faster by "
              "the margin with a significant rank test and an A-B-A confirmation "
              "(`mpbench tune --help`).\n\n",
              f);
}

/* Section 10: links to the plots that exist in `plots`, the command for the others. */
static void sec_plots(FILE *f, const char *plots)
{
    fputs("## 10. Plots\n\n", f);
    static const char *const kinds[][2] = {
        {"roofline", "GOPS against arithmetic intensity with the probe's bandwidth and "
                     "compute roofs"},
        {"gbps", "GEMV (N = 1) GB/s per shape and variant (seed 003 Fig. 5–7)"},
        {"threads", "scaling with the thread count"},
        {"prompt", "GOPS against N (seed 001 Fig. 12)"},
        {"tuner", "the tuner's landscape: time against parameter values"},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        char path[4200];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s.png", plots, kinds[i][0]);
        if (stat(path, &sb) == 0)
            fprintf(f, "- [%s](%s) ([svg](%s/%s.svg)): %s\n", kinds[i][0], path, plots,
                    kinds[i][0], kinds[i][1]);
        else
            fprintf(f, "- %s: %s — not generated yet (`make plots` or `mpbench plot %s`)\n",
                    kinds[i][0], kinds[i][1], kinds[i][0]);
    }
    fputc('\n', f);
}

/* Writes s as one CSV field (quoted when it holds a comma, quote or newline). */
static void csv_field(FILE *c, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, c);
        return;
    }
    fputc('"', c);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', c);
        fputc(*s == '\n' ? ' ' : *s, c);
    }
    fputc('"', c);
}

/* Every stored kernel result of the report's machine (newest per key, the
 * report's cache mode) into CSV_DIR/kernel-results.csv: the exhaustive tables
 * the body leaves out. */
static void csv_results(FILE *f, const mp_rep *r, mp_rep_out *o)
{
    char path[4200], err[512];
    FILE *c = mp_rep_out_csv(o, "kernel-results.csv", path, sizeof path, err, sizeof err);
    if (!c) {
        fprintf(f, "(The table of every kernel result could not be written: %s.)\n\n", err);
        return;
    }
    fputs("run,variant,method,family,isa,params,m,k,n,threads,cache,status,bpw,median_us,gops,"
          "gbps,max_rel_err,reason\n", c);
    for (int i = 0; i < r->nrows; i++) {
        const mp_rep_row *x = &r->rows[i];
        if (strcmp(x->cache, r->cache))
            continue;
        fprintf(c, "%lld,%s,%s,%s,%s,", (long long)x->run_id, x->variant, x->method, x->family,
                x->isa);
        csv_field(c, x->params);
        fprintf(c, ",%d,%d,%d,%d,%s,%s,%.4f,%.3f,%.3f,%.3f,", x->m, x->k, x->n, x->threads,
                x->cache, x->status, x->bpw, x->median_us, x->gops, x->gbps);
        if (!isnan(x->max_rel_err))
            fprintf(c, "%.3g", x->max_rel_err);
        fputc(',', c);
        csv_field(c, x->reason);
        fputc('\n', c);
    }
    fprintf(f, "Every kernel result of this machine (newest per variant, parameters, shape, N, "
               "threads; %s cache), with its run, status and reason: [%s](%s).\n\n",
            r->cache, path, path);
}

/* The last section: every row that failed or was skipped, with its reason (first 20);
 * unstable rows are counted here and listed in the CSV. */
static void sec_bad(FILE *f, mp_rep *r)
{
    fputs("## Rows not measured or not stable\n\n", f);
    int n = 0, unstable = 0, lacks = 0;
    for (int i = 0; i < r->nrows; i++) {
        const mp_rep_row *x = &r->rows[i];
        if (!strcmp(x->status, "unstable")) {
            unstable++;
            continue;
        }
        if (!strcmp(x->status, "ok"))
            continue;
        if (!strcmp(x->status, "skipped") && !strncmp(x->reason, "cpu lacks ", 10)) {
            lacks++; /* counted per ISA below: not a defect of the row */
            continue;
        }
        if (n++ == 0)
            fputs("| variant | params | shape | N | threads | cache | status | reason |\n"
                  "|---|---|---|--:|--:|---|---|---|\n", f);
        if (n > 20)
            continue;
        fprintf(f, "| %s | %s | %dx%d | %d | %d | %s | %s | ", x->variant, x->params, x->m,
                x->k, x->n, x->threads, x->cache, x->status);
        md_escape(f, x->reason);
        fputs(" |\n", f);
    }
    if (n > 20)
        fprintf(f, "| … %d more (kernel-results.csv) | | | | | | | |\n", n - 20);
    if (n)
        fputc('\n', f);
    if (unstable)
        fprintf(f, "%d rows are unstable (robust CV above 10%% after re-measuring; † in the "
                   "tables): status and reason in kernel-results.csv.\n\n", unstable);
    if (lacks) {
        /* the ISAs, in order of first appearance */
        char isas[8][40];
        int counts[8] = {0}, ni = 0;
        for (int i = 0; i < r->nrows; i++) {
            const mp_rep_row *x = &r->rows[i];
            if (strcmp(x->status, "skipped") || strncmp(x->reason, "cpu lacks ", 10))
                continue;
            int j;
            for (j = 0; j < ni && strcmp(isas[j], x->reason + 10); j++)
                ;
            if (j == ni && ni < 8)
                snprintf(isas[ni++], sizeof isas[0], "%.39s", x->reason + 10);
            if (j < 8)
                counts[j]++;
        }
        fprintf(f, "%d rows were skipped because this CPU lacks their ISA (", lacks);
        for (int j = 0; j < ni; j++)
            fprintf(f, "%s%s: %d", j ? ", " : "", isas[j], counts[j]);
        fputs("); each is in kernel-results.csv.\n\n", f);
    }
    if (!n && !unstable && !lacks)
        fputs("None: every stored result of this machine has status ok.\n\n", f);
}

typedef struct report_opts {
    const char *db, *out, *machine, *plots, *cache, *csv, *claims;
    int check;
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
    MP_OPT_END};

static const mp_cmd_spec report_spec = {
    .name = "report",
    .synopsis = "[--db PATH] [--out REPORT.md] [--csv DIR] [--claims TSV]\n"
                "                      [--machine FINGERPRINT] [--plots DIR] [--cache cold|warm] [--check]",
    .about = "Regenerates the report from the store (`make report`) for one machine, each\n"
             "table next to the papers' own figures, and the exhaustive tables as CSV files\n"
             "(linked relative to the report).  --cache cold: weights streamed from memory,\n"
             "as in the papers.  --check: write nothing; regenerate into temporary files and\n"
             "compare them with --out and the CSVs in place (every byte but the\n"
             "generation-time line); exit 1 naming the first difference.\n",
    .opts = report_table};

int mp_cmd_report(int argc, char **argv)
{
    report_opts a = {.db = "results/report.db", .out = "REPORT.md", .plots = "results/plots",
                     .cache = "cold", .claims = "results/claims.tsv"};
    mp_opts_out po;
    int prc;
    if ((prc = mp_opts_parse(&report_spec, argc, argv, &a, &po)) || po.help)
        return prc;
    const char *db = a.db, *out = a.out, *machine = a.machine, *plots = a.plots,
               *cache = a.cache, *csv = a.csv, *claims = a.claims;
    int check = a.check;
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
    e2e_row *e2e, *e2e_all;
    int ne = load_e2e(&r, 0, &e2e);
    int na = load_e2e(&r, 1, &e2e_all);
    static mp_claim cl[128];
    int nc = mp_rep_claims_eval(&r, e2e_all, na > 0 ? na : 0, claims, cl, 128, err, sizeof err);
    if (nc < 0 && strcmp(claims, "results/claims.tsv")) { /* a --claims the user named */
        free(e2e), free(e2e_all);
        mp_rep_close(&r);
        mp_rep_out_finish(&o, 0, err, sizeof err);
        return mp_die(2, "--claims %s: cannot read it", claims);
    }
    sec_header(f, &r, db);
    sec_summary(f, &r, db, claims, cl, nc);
    fputs("## Claims\n\n", f);
    mp_rep_sec_claims(f, cl, nc, claims);
    fputs("## Caveats\n\n", f);
    sec_caveats(f, &r);
    sec_probe(f, &r);
    sec_e2e_tps(f, &r, e2e, ne);
    mp_rep_sec_e2e_limit(f, e2e, ne, &o);
    sec_lossless(f, &r, e2e, ne);
    sec_fig8(f, &r);
    csv_results(f, &r, &o);
    sec_fig11(f, &r);
    sec_fig12(f, &r, e2e, ne);
    mp_rep_sec_roofline(f, &r, &o);
    sec_ratios(f, &r);
    sec_tuned(f, &r);
    /* links are relative to the report: a relative --plots only works from a
     * report in the current folder, else link the absolute path */
    char plinks[4096];
    snprintf(plinks, sizeof plinks, "%s", plots);
    if (plots[0] != '/' && strchr(out, '/')) {
        char cwd[2048];
        if (getcwd(cwd, sizeof cwd))
            snprintf(plinks, sizeof plinks, "%s/%s", cwd, plots);
    }
    sec_plots(f, plinks);
    sec_bad(f, &r);
    free(e2e);
    free(e2e_all);
    mp_rep_close(&r);
    if (mp_rep_out_finish(&o, 1, err, sizeof err))
        return mp_die(1, "report%s: %s", check ? " --check" : "", err);
    fprintf(stderr, check ? "mpbench: report: %s and its CSV files match %s\n"
                          : "mpbench: report written to %s (from %s)\n",
            out, db);
    return 0;
}
