/* report-md-e2e.c - the end-to-end sections of REPORT.md (report-md.h): decode
 * and prefill tokens/s next to the papers' own tables, and the lossless check. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report-md.h"
#include "../../variants/mp_registry.h"

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

static char e2e_error[256]; /* why an existing e2e table could not be read */

/* e2e rows of this machine into *out (malloc'd); count, -1 no e2e table, -2 unreadable. */
int mp_rep_load_e2e(mp_rep *r, int all, e2e_row **out)
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
void mp_rep_e2e_cell(char *buf, size_t len, const e2e_row *x)
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

/* The seed 000 Table 7 row (i7-13700H) of a kernel method, NULL if the table has none
 * (llama.cpp's own, LLAMACPP_X, is the paper's X: its Table 7 ran llama.cpp's kernels). */
static const paper_row *t7_row(const char *method)
{
    if (!strncmp(method, "LLAMACPP_", 9))
        method += 9;
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

/* Whether x is the ratio table's baseline: llama.cpp's own TQ2_0 end to end when the
 * table has it (llama), else our TQ2_0. */
static int is_base(const e2e_row *x, int llama)
{
    return llama ? !strcmp(x->method, "LLAMACPP_TQ2_0") : !strcmp(x->method, "TQ2_0");
}

/* Decode tokens/s relative to TQ2_0 (llama.cpp's ternary kernel) in the same model and
 * run setting, ours beside seed 000 Table 7's i7-13700H: ratios travel between
 * machines better than tokens/s do (memory bandwidth sets both).  The baseline is
 * llama.cpp's own TQ2_0 end to end (issue 39) when those rows exist at these
 * threads, else our re-implementation, and the caption says which. */
static void e2e_ratio_table(FILE *f, const e2e_row *e, int ne, int threads)
{
    const paper_row *p_tq2 = t7_row("TQ2_0");
    const char *vars[MAXV];
    int nv = 0, llama = 0;
    for (int i = 0; i < ne; i++) {
        const e2e_row *x = &e[i];
        if (size_col(x->model) < 0 || strncmp(x->test, "tg", 2) || strchr(x->test, ' ') ||
            x->threads != threads || !t7_row(x->method))
            continue;
        llama |= !strcmp(x->method, "LLAMACPP_TQ2_0") && !strcmp(x->status, "ok");
        int j;
        for (j = 0; j < nv && strcmp(vars[j], x->variant); j++)
            ;
        if (j == nv && nv < MAXV)
            vars[nv++] = x->variant;
    }
    if (!nv || !p_tq2)
        return;
    fprintf(f, "Decode speed relative to %s in the same model and "
               "the same run (\"–\" when the two rows come from different runs), this machine "
               "(%d thread%s, cold) [seed 000 Table 7, i7-13700H, against llama.cpp's TQ2_0, in "
               "brackets].  A partial model \"(L/M layers)\" "
               "runs the first L of its M layers with the whole embedding and output head, so the "
               "head's share of the time is larger than in the whole model and its ratio is not "
               "the paper's whole-model ratio (printed \"whole model\" beside it, not "
               "comparable):\n\n"
               "| kernel |",
            llama ? "llama.cpp's own TQ2_0 end to end (llamacpp.tq2_0: libllama on the same "
                    "weights)"
                  : "our TQ2_0 (a re-implementation of llama.cpp's format; llama.cpp end to end "
                    "has no rows at these threads)",
            threads, threads > 1 ? "s" : "");
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
            if (is_base(x, llama))
                tq2[c] = x;
        }
        const paper_row *p = t7_row(method);
        fputs("| ", f);
        mp_rep_md_escape(f, vars[vi]);
        fputs(" |", f);
        for (int c = 0; c < NSIZES; c++) {
            if (!sizes[c].ours)
                continue;
            char ours[64] = "–", theirs[48] = "";
            int partial = 0;
            if (cells[c] && tq2[c] && tq2[c]->tps > 0 && cells[c]->layers == tq2[c]->layers &&
                cells[c]->run == tq2[c]->run && /* one run per ratio (issue 37) */
                mp_rep_e2e_reads_match(cells[c], tq2[c])) { /* at one bandwidth level */
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
void mp_rep_sec_e2e_tps(FILE *f, mp_rep *r, const e2e_row *e, int ne)
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
                mp_rep_md_escape(f, vars[vi]);
                fprintf(f, "%s%s%s b(%.2f) |", method[0] ? " (" : "", method, method[0] ? ")" : "",
                        bpw);
                for (int c = 0; c < NSIZES; c++) {
                    char buf[64] = "–";
                    if (cells[c]) {
                        mp_rep_e2e_cell(buf, sizeof buf, cells[c]);
                        if (nruns < MAXV)
                            runs[nruns++] = cells[c]->run;
                    }
                    fprintf(f, " %s |", buf);
                }
                fputc('\n', f);
            }
            fputc('\n', f);
            mp_rep_runs_line(f, runs, nruns);
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
        if ((size_col(x->model) >= 0 && !strchr(x->test, ' ')) || !strcmp(x->test, "lossless") ||
            !strcmp(x->test, "bpb") || !strcmp(x->test, "zeros") || /* sections 3, 3a */
            x->bound_tps > 0 || (strcmp(x->status, "ok") && strstr(x->reason, "clock gate")))
            continue; /* and section 2a's */
        if (x->lm_head[0] && strcmp(x->lm_head, "f16"))
            continue; /* another head: section 2a */
        if (!other++)
            fputs("Other end-to-end rows (other models, without a bound: section 2a has those; "
                  "parallel decoding `tgN bB`, B sequences at once):\n\n| model | variant | test | "
                  "threads | tokens/s |\n|---|---|---|--:|--:|\n", f);
        char buf[64];
        mp_rep_e2e_cell(buf, sizeof buf, x);
        fprintf(f, "| %s | ", x->model);
        mp_rep_md_escape(f, x->variant);
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
void mp_rep_sec_lossless(FILE *f, const mp_rep *r, const e2e_row *e, int ne)
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
                  "share | max logit diff / range | first diverging token | steps agreeing | "
                  "kernel error (max rel) | paper (seed 004 Table 7) |\n"
                  "|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n", f);
        const char *numerics = mp_rep_numerics(x->variant);
        if (nruns < MAXV)
            runs[nruns++] = x->run;
        fputs("| ", f);
        mp_rep_md_escape(f, x->variant);
        if (x->lm_head[0] && strcmp(x->lm_head, "f16")) /* against the f16 head's tokens */
            fprintf(f, " [%s head]", x->lm_head);
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
            mp_rep_md_escape(f, x->reason[0] ? x->reason : "no reason stored");
            fprintf(f, " | – | – | – | – | %s | %s |\n", err, paper_lossless_figure(x->method));
        } else {
            char diff[32] = "–", first[16] = "–", steps[32] = "–";
            if (!isnan(x->logit_diff) && x->first_diff >= 0) {
                snprintf(diff, sizeof diff, x->logit_diff == 0 ? "0" : "%.2g", x->logit_diff);
                snprintf(first, sizeof first, x->first_diff ? "%d" : "none", x->first_diff);
            }
            long all = (long)x->prompts * x->tokens;
            if (x->steps_matched >= 0 && all > 0)
                snprintf(steps, sizeof steps, "%.2f%%", 100.0 * x->steps_matched / (double)all);
            fprintf(f, "%d | %.1f%%%s | %s | %s | %s | %s | %s |\n", x->matched, 100.0 * x->share,
                    strcmp(x->status, "ok") ? " (failed)" : "", diff, first, steps, err,
                    paper_lossless_figure(x->method));
        }
    }
    if (!any)
        fputs("No lossless check on this machine: run `mpbench e2e --lossless --model "
              "bitnetcpp-125m --variant 'i2_s*,tq2_0*,tq1_0*' --prompts 10 --tokens 64`.\n\n",
              f);
    else
        fputc('\n', f);
    mp_rep_runs_line(f, runs, nruns);
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
          "steps agreeing: of the prompts x tokens teacher-forced steps, the share whose argmax "
          "is the reference's token (exact match needs all of a prompt's steps, so one near tie "
          "anywhere loses the prompt; compare the two figures of a rounding head or linear in "
          "the rows above); "
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
          "reference integer arithmetic (DESIGN.md \"Numerics\"), except the trained model's "
          "(models/trained/, section 3a; issue 42): BOS and 7-15 bytes of its held-out text at "
          "seeded offsets (`--prompt-text`), on trained weights whose head is not a copy "
          "machine, so exact match has the power there that it lacks on synthetic weights.\n\n",
          f);
}

