/* report-e2e-limit.c - section 2a of the report (issue 17): every end-to-end
 * row of the machine that stores a bound, as its share of that bound, and the
 * --profile rows as milliseconds per token per operation group.
 *
 *   decode (tgN)   bound = bytes a token reads / the read bandwidth at the
 *                  row's thread count (reads beside its steps, or the stored
 *                  probe's read; the row's reason says which)
 *   prefill (ppN)  bound = the prompt's GEMMs measured alone, one pass right
 *                  after each repetition (harness/engine/e2e-measure.c)
 *
 * One table per (test, threads): a row per variant, a column per model, the
 * cell "share (tokens/s / bound tokens/s)" ("[q8_0 head]" after it when the
 * row ran with another head than the model's), † when the row is unstable, the
 * status alone when it stores no bound (a gated row left unstable).  The
 * profile table prints its groups' sum beside 1000 / tokens/s: the profile
 * covers every timed repetition, slow ones included, the rate only the kept
 * ones, so the two agree only on a quiet machine (the test
 * e2e_limit/profile_parts_add_up checks the sum against the wall time). */
#include <stdlib.h>
#include <string.h>

#include "../e2e/mp_e2e.h"
#include "mp_report.h"

enum { MAXG = 32, MAXM = 32, MAXV = 64, MAXR = 64 }; /* table7 stores 13 model sizes */

/* A row of the tables: one that stores a bound, or a gated one left unstable
 * (the store keeps no rate or bound for those, only the reason). */
static int bounded_any(const mp_rep_e2e *x)
{
    return strcmp(x->test, "lossless") &&
           (x->bound_tps > 0 || (strcmp(x->status, "ok") && strstr(x->reason, "clock gate")));
}

/* The body's rows: the real models' (the bitnetcpp-* size ladder's rows go to
 * e2e-bounds.csv and into the claims' backings, issue 37: body <= 500 lines). */
static int bounded(const mp_rep_e2e *x)
{
    return bounded_any(x) && strncmp(x->model, "bitnetcpp-", 10);
}

/* Every row with a bound, into CSV_DIR/e2e-bounds.csv; 0 when written. */
static int bounds_csv(FILE *f, const mp_rep_e2e *e, int ne, mp_rep_out *o)
{
    char path[4200], err[512];
    FILE *c = mp_rep_out_csv(o, "e2e-bounds.csv", path, sizeof path, err, sizeof err);
    if (!c) {
        fprintf(f, "(e2e-bounds.csv could not be written: %s.)\n\n", err);
        return 1;
    }
    fputs("model,variant,test,threads,status,tokens_per_s,bound_tokens_per_s,share,lm_head,run,"
          "read_at_row_gbs\n", c);
    int n = 0;
    for (int i = 0; i < ne; i++) {
        const mp_rep_e2e *x = &e[i];
        if (!bounded_any(x))
            continue;
        n++;
        fprintf(c, "%s,%s,%s,%d,%s,%.4f,%.4f,%.4f,%s,%lld,", x->model, x->variant, x->test,
                x->threads, x->status, x->tps, x->bound_tps, x->bound_share,
                x->lm_head[0] ? x->lm_head : "f16", (long long)x->run);
        if (x->bw_row_gbs > 0)
            fprintf(c, "%.2f", x->bw_row_gbs);
        fputc('\n', c);
    }
    fprintf(f, "Every end-to-end row with its bound (%d rows, the bitnetcpp-* models of section 2 "
               "too): [%s](%s).\n\n", n, path, path);
    return 0;
}

/* A head other than the model's own (--lm-head q8_0|q4_0): its bound is smaller. */
static int head_other(const mp_rep_e2e *x)
{
    return x->lm_head[0] && strcmp(x->lm_head, "f16");
}

/* Index of s in v[0..*n), appended when new and there is room; -1 when full. */
static int find_add(const char **v, int *n, int cap, const char *s)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp(v[i], s))
            return i;
    if (*n == cap)
        return -1;
    v[*n] = s;
    return (*n)++;
}

/* "From runs 9, 10 (commit 877e6c5)." over the rows that pass keep(). */
static void runs_and_commits(FILE *f, const mp_rep_e2e *e, int ne, int (*keep)(const mp_rep_e2e *))
{
    int64_t runs[MAXR];
    const char *commits[MAXR];
    int nr = 0, nc = 0;
    for (int i = 0; i < ne; i++) {
        if (!keep(&e[i]))
            continue;
        int j = 0;
        while (j < nr && runs[j] != e[i].run)
            j++;
        if (j == nr && nr < MAXR)
            runs[nr++] = e[i].run;
        if (e[i].commit[0])
            find_add(commits, &nc, MAXR, e[i].commit);
    }
    fputs("From run", f);
    fputs(nr > 1 ? "s " : " ", f);
    for (int j = 0; j < nr; j++)
        fprintf(f, "%s%lld", j ? ", " : "", (long long)runs[j]);
    for (int j = 0; j < nc; j++)
        fprintf(f, "%s%s", j ? ", " : nc > 1 ? " (commits " : " (commit ", commits[j]);
    fputs(nc ? ").\n\n" : ".\n\n", f);
}

static int profiled(const mp_rep_e2e *x)
{
    double sec[MP_E2E_NPROF];
    return mp_e2e_profile_parse(x->profile, sec) > 0;
}

/* Of names[0..n) (models, or row labels when lab is given), those with a row of
 * the group (test, threads) into out, in their order; returns how many. */
static int in_group(const mp_rep_e2e *e, int ne, const char *test, int threads,
                    const char *const *names, int n, char (*lab)[300], const char **out)
{
    int k = 0;
    for (int a = 0; a < n; a++)
        for (int i = 0; i < ne; i++)
            if (bounded(&e[i]) && e[i].threads == threads && !strcmp(e[i].test, test) &&
                !strcmp(lab ? lab[i] : e[i].model, names[a])) {
                out[k++] = names[a];
                break;
            }
    return k;
}

/* A row's label in the tables: its variant, and its head when not the model's
 * own (the Q8_0 head's rows beside the F16 head's of the same variant). */
static const char *row_label(const mp_rep_e2e *x, char (*lab)[300], const mp_rep_e2e *e)
{
    char *b = lab[x - e];
    snprintf(b, 300, "%s%s%s%s", x->variant, head_other(x) ? " [" : "",
             head_other(x) ? x->lm_head : "", head_other(x) ? " head]" : "");
    return b;
}

static void share_tables(FILE *f, const mp_rep_e2e *e, int ne)
{
    char (*lab)[300] = calloc((size_t)ne + 1, sizeof *lab);
    if (!lab)
        return;
    for (int i = 0; i < ne; i++)
        row_label(&e[i], lab, e);
    /* the (test, threads) groups, in order: decode before prefill, then threads */
    struct {
        const char *test;
        int threads, pp;
    } grp[MAXG], t;
    int ng = 0;
    for (int i = 0; i < ne; i++) {
        const mp_rep_e2e *x = &e[i];
        int j = 0;
        while (j < ng && (grp[j].threads != x->threads || strcmp(grp[j].test, x->test)))
            j++;
        if (!bounded(x) || j < ng || ng == MAXG)
            continue;
        grp[ng].test = x->test, grp[ng].threads = x->threads;
        grp[ng++].pp = !strncmp(x->test, "pp", 2);
    }
    for (int i = 1; i < ng; i++) /* insertion sort: stable, a handful of groups */
        for (int j = i; j > 0 && (grp[j - 1].pp > grp[j].pp ||
                                  (grp[j - 1].pp == grp[j].pp && grp[j - 1].threads > grp[j].threads));
             j--)
            t = grp[j], grp[j] = grp[j - 1], grp[j - 1] = t;
    /* models and variants in the order they first appear in any table, so every
     * table has its columns and rows in the same order */
    const char *all_m[MAXM], *all_v[MAXV];
    int nam = 0, nav = 0;
    for (int i = 0; i < ne; i++)
        if (bounded(&e[i]))
            find_add(all_m, &nam, MAXM, e[i].model), find_add(all_v, &nav, MAXV, lab[i]);
    for (int g = 0; g < ng; g++) {
        const char *models[MAXM], *vars[MAXV];
        int nm = in_group(e, ne, grp[g].test, grp[g].threads, all_m, nam, NULL, models);
        int nv = in_group(e, ne, grp[g].test, grp[g].threads, all_v, nav, lab, vars);
        fprintf(f, "%s, %d thread%s: share of the bound (tokens/s / bound tokens/s)\n\n",
                grp[g].test, grp[g].threads, grp[g].threads > 1 ? "s" : "");
        mp_rep_table_head(f, "variant", models, nm);
        for (int v = 0; v < nv; v++) {
            fprintf(f, "| %s |", vars[v]);
            for (int m = 0; m < nm; m++) {
                const mp_rep_e2e *x = NULL;
                for (int i = 0; i < ne; i++)
                    if (bounded(&e[i]) && e[i].threads == grp[g].threads &&
                        !strcmp(e[i].test, grp[g].test) && !strcmp(e[i].model, models[m]) &&
                        !strcmp(lab[i], vars[v]))
                        x = &e[i]; /* rows come oldest first: the newest wins */
                if (!x)
                    fputs(" – |", f);
                else if (!(x->bound_tps > 0) ||
                         (strcmp(x->status, "ok") && strcmp(x->status, "unstable")))
                    fprintf(f, " %s |", x->status[0] ? x->status : "?");
                else
                    fprintf(f, " %.2f%s (%.2f / %.2f) |", x->bound_share,
                            strcmp(x->status, "ok") ? "†" : "", x->tps, x->bound_tps);
            }
            fputc('\n', f);
        }
        fputc('\n', f);
    }
    runs_and_commits(f, e, ne, bounded);
    free(lab);
}

static int is_llama(const mp_rep_e2e *x)
{
    return !strncmp(x->variant, "llamacpp.", 9);
}

/* A pp or tg row of one sequence (not bpb, lossless, zeros, tgN bB). */
static int pp_or_tg(const mp_rep_e2e *x)
{
    return (!strncmp(x->test, "pp", 2) || !strncmp(x->test, "tg", 2)) && !strchr(x->test, ' ') &&
           strcmp(x->test, "bpb");
}

/* Issue 39's table: per real model, test and thread count, our fastest variant
 * against llama.cpp's own TQ2_0 end to end, both from the run that measured
 * llamacpp.tq2_0 (one model's weights, the same threads and clock gate), each
 * with its share of its bound, and the mission's target.  Every run's pair, not
 * the newest only (e: all rows): on a shared VM whose bandwidth moves between
 * levels, a decode ratio depends on the level its run met, and the read at the
 * row says which (2026-11-30: 1.37x and 2.02x for one model, threads and head
 * at 35.7 and 63.0 GB/s). */
static void llama_table(FILE *f, const mp_rep_e2e *e, int ne)
{
    int n = 0;
    for (int i = 0; i < ne; i++) {
        const mp_rep_e2e *l = &e[i], *b = NULL;
        if (strcmp(l->variant, "llamacpp.tq2_0") || !strncmp(l->model, "bitnetcpp-", 10) ||
            !(l->tps > 0) || !pp_or_tg(l))
            continue;
        /* the same head on both sides: the 8-bit head's rows against llama.cpp's
         * on the same Q8_0 head, from their own run */
        for (int j = 0; j < ne; j++) {
            const mp_rep_e2e *x = &e[j];
            if (x->run == l->run && !is_llama(x) && head_other(x) == head_other(l) &&
                (!head_other(x) || !strcmp(x->lm_head, l->lm_head)) && x->tps > 0 &&
                x->threads == l->threads && !strcmp(x->test, l->test) &&
                !strcmp(x->model, l->model) && (!b || x->tps > b->tps))
                b = x;
        }
        if (!b)
            continue;
        if (!n++)
            fputs("Against llama.cpp end to end (issue 39): our fastest variant and "
                  "`llamacpp.tq2_0` (libllama's own graph, kernels, threadpool and KV cache on "
                  "a GGUF file of the same weights) from one run, the same threads and clock "
                  "gate; each share is of its own row's bound (a llama.cpp prefill row has "
                  "none: its GEMMs are not timed alone).  Every run's pair: `interleaved` runs "
                  "took turns, one repetition of each variant at a time (`--interleave`), the "
                  "others measured one variant after another; the read at the row is the best "
                  "of the reads made just before each row (a shared VM's bandwidth moves "
                  "between levels, and a memory-bound decode with it):\n\n"
                  "| run | variants | model | test | head | threads | read at the row, GB/s "
                  "(ours / llama.cpp's) | ours | tokens/s | share | llamacpp.tq2_0 tokens/s | "
                  "share | ours / llama.cpp | target |\n"
                  "|--:|---|---|---|---|--:|--:|---|--:|--:|--:|--:|--:|---|\n", f);
        double ratio = b->tps / l->tps, target = strncmp(l->test, "pp", 2) ? 1.5 : 3.0;
        char sb[16] = "–", sl[16] = "–";
        if (b->bound_tps > 0)
            snprintf(sb, sizeof sb, "%.2f", b->bound_share);
        if (l->bound_tps > 0)
            snprintf(sl, sizeof sl, "%.2f", l->bound_share);
        char rd[40] = "–";
        if (b->bw_row_gbs > 0 && l->bw_row_gbs > 0)
            snprintf(rd, sizeof rd, "%.1f / %.1f", b->bw_row_gbs, l->bw_row_gbs);
        char verdict[96];
        if (mp_rep_e2e_reads_match(b, l))
            snprintf(verdict, sizeof verdict, "≥ %.1f×: %s", target,
                     ratio >= target ? "met" : "not met");
        else /* the two rows met different bandwidth levels: not the same conditions */
            snprintf(verdict, sizeof verdict, "not judged: reads %.2f× apart",
                     b->bw_row_gbs > l->bw_row_gbs ? b->bw_row_gbs / l->bw_row_gbs
                                                   : l->bw_row_gbs / b->bw_row_gbs);
        fprintf(f, "| %lld | %s | %s | %s | %s | %d | %s | %s | %.2f%s | %s | %.2f%s | %s | "
                   "%.2f× | %s |\n",
                (long long)l->run,
                strstr(b->reason, "interleaved with the other variants") ? "interleaved"
                                                                          : "one after another",
                l->model, l->test, head_other(l) ? l->lm_head : "f16",
                l->threads, rd, b->variant, b->tps,
                strcmp(b->status, "ok") ? "†" : "", sb, l->tps,
                strcmp(l->status, "ok") ? "†" : "", sl, ratio, verdict);
    }
    if (n)
        fputs("\nllama.cpp's `bitnet` graph (the npm build) runs SiLU where bitnet-b1.58-2b-4t "
              "has squared ReLU, and an f16 KV cache: other tokens, the same bytes read per "
              "token (each row's reason says so).\n\n", f);
}

static void profile_table(FILE *f, const mp_rep_e2e *e, int ne)
{
    fputs("Profile (`--profile`): milliseconds per token by operation group, over every timed "
          "repetition (slow ones included), their sum, and 1000 / tokens/s of the row (the kept "
          "repetitions or steps only):\n\n| model | variant | test | threads |",
          f);
    for (int g = 0; g < MP_E2E_NPROF; g++)
        fprintf(f, " %s |", mp_e2e_prof_name[g]);
    fputs(" sum | 1000 / t/s |\n|---|---|---|--:|", f);
    for (int g = 0; g < MP_E2E_NPROF + 2; g++)
        fputs("--:|", f);
    fputc('\n', f);
    for (int i = 0; i < ne; i++) {
        const mp_rep_e2e *x = &e[i];
        double sec[MP_E2E_NPROF], sum = 0;
        if (mp_e2e_profile_parse(x->profile, sec) <= 0)
            continue;
        fprintf(f, "| %s | %s | %s | %d |", x->model, x->variant, x->test, x->threads);
        for (int g = 0; g < MP_E2E_NPROF; g++) {
            fprintf(f, " %.3f |", 1e3 * sec[g]);
            sum += sec[g];
        }
        fprintf(f, " %.3f |", 1e3 * sum);
        if (x->tps > 0)
            fprintf(f, " %.3f |\n", 1e3 / x->tps);
        else
            fputs(" – |\n", f);
    }
    fputc('\n', f);
    runs_and_commits(f, e, ne, profiled);
}

void mp_rep_sec_e2e_limit(FILE *f, const mp_rep_e2e *e, int ne, const mp_rep_e2e *all, int na,
                          mp_rep_out *o)
{
    fputs("### 2a. Against the memory limit (issue 17)\n\n", f);
    int nb = 0, np = 0;
    for (int i = 0; i < ne; i++)
        nb += bounded_any(&e[i]), np += profiled(&e[i]);
    if (!nb) {
        fputs("No end-to-end row of this machine stores a bound: `mpbench e2e --model "
              "bitnet-b1.58-2b-4t --variant vnni_int2.avx512vnni --pp 128 --tg 16 --profile "
              "--clock-gate 90` (or `make e2e-limit`) stores them.\n\n",
              f);
        return;
    }
    fputs("Each end-to-end row against its bound: a decode row (tgN) against the bytes a token "
          "reads over the read bandwidth at its thread count (the reads made beside its steps, or "
          "the stored probe's read: the row's reason says which), a prefill row (ppN) against the "
          "sum of its GEMMs measured alone, one pass right after each repetition.  A share above "
          "1 is a defect of the bound (nothing may exceed it), printed as measured.  † unstable; "
          "`unstable` alone: the clock gate kept too few steps or repetitions at full speed, so "
          "the row stores no rate.  The tables show the real models' rows:\n\n",
          f);
    share_tables(f, e, ne);
    llama_table(f, all, na);
    bounds_csv(f, e, ne, o);
    if (np)
        profile_table(f, e, ne);
    else
        fputs("No row of this machine stores a profile: `mpbench e2e ... --profile` (or `make "
              "e2e-limit`) adds one.\n\n",
              f);
}
