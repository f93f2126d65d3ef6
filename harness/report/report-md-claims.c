/* report-md-claims.c - the report's claims table (the Claims section of
 * REPORT.md) and the verdict counts of its summary, printed from the claims
 * report-claims.c judged. */
#include <stdio.h>
#include <string.h>

#include "mp_report.h"

static void cell_text(FILE *f, const char *s)
{
    for (; *s; s++)
        if (*s == '|')
            fputs("\\|", f);
        else if (*s != '\n')
            fputc(*s, f);
}

int mp_rep_claims_counts(const mp_claim *c, int nc, int counts[4])
{
    int n = 0;
    memset(counts, 0, 4 * sizeof *counts);
    for (int i = 0; i < nc; i++) {
        if (c[i].id[0] != 'C')
            continue; /* the project's targets (H) are not paper claims */
        n++;
        counts[!strcmp(c[i].verdict, "yes")      ? 0
               : !strcmp(c[i].verdict, "partly") ? 1
               : !strcmp(c[i].verdict, "no")     ? 2
                                                 : 3]++;
    }
    return n;
}

void mp_rep_sec_claims(FILE *f, const mp_claim *c, int nc, const char *claims_path)
{
    if (nc < 0) {
        fprintf(f, "No claims file `%s`: the table of the papers' claims needs it "
                   "(`results/claims.tsv` in the repository).\n\n", claims_path);
        return;
    }
    fprintf(f, "Every headline claim of seeds 000–004 (from `%s`: the paper's figure, table, "
               "conditions and baseline), ours from the store under the conditions in the "
               "\"here\" column, and a verdict: the claim's statistic of ours (median over "
               "points; max for \"up to\" claims) inside the paper's range widened by %.0f%% "
               "each side → yes; outside, but our min–max overlaps it → partly; else no.  "
               "Where the paper gives a figure per model size, each size is judged against its "
               "own figure (all within %.0f%% → yes, some → partly).  A kernel ratio comes from "
               "one run, an end-to-end ratio from one run per model.  The backing is the point "
               "that gives the statistic: its two rows, each against its own roof (section 7) "
               "or memory bound.  A why is a measurement with the section it comes from, or it "
               "says \"hypothesis\".\n\n"
               "| # | seed | claim | paper (conditions) | baseline | here | ours | agree | "
               "backing and why |\n|---|---|---|---|---|---|---|---|---|\n",
            claims_path, 100 * MP_CLAIM_TOL, 100 * MP_CLAIM_TOL);
    for (int i = 0; i < nc; i++) {
        const mp_claim *x = &c[i];
        fprintf(f, "| %s | %s | ", x->id, x->seed);
        cell_text(f, x->claim);
        fputs(" | ", f);
        cell_text(f, x->paper);
        fputs(" | ", f);
        cell_text(f, x->baseline[0] ? x->baseline : "–");
        fputs(" | ", f);
        cell_text(f, x->here[0] ? x->here : "–");
        fputs(" | ", f);
        cell_text(f, x->ours);
        fprintf(f, " | %s | ", x->verdict);
        int show_why = strcmp(x->verdict, "yes") != 0 && x->why[0];
        cell_text(f, x->backing);
        if (show_why) {
            fputs(x->backing[0] ? ". " : "", f);
            cell_text(f, x->why);
        }
        fputs(" |\n", f);
    }
    fputc('\n', f);
}
