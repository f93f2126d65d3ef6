/* output-e2e.c - end-to-end rows as llama-bench-like tables, CSV, JSON or
 * markdown: tokens/s as median ± sample standard deviation, or, for the
 * lossless check, prompts matched out of prompts decoded, the largest logit
 * difference and the first diverging token. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_output.h"
#include "../e2e/mp_e2e.h"

static double gib(size_t b)
{
    return (double)b / (1024.0 * 1024.0 * 1024.0);
}

static void human_bytes(char *buf, size_t len, size_t b)
{
    if (b >= (1u << 30))
        snprintf(buf, len, "%.2f GiB", gib(b));
    else
        snprintf(buf, len, "%.2f MiB", (double)b / (1024.0 * 1024.0));
}

/* Footnotes of a table: a row that is not ok shows its status and a number in
 * its cell, and the reason goes below the table under that number (issue 38:
 * a reason inside the cell pushed the table 150 characters wide).  Rows with
 * the same status and reason share a number. */
enum { MAXNOTES = 64 };
typedef struct notes {
    char text[MAXNOTES][600];
    int n;
} notes;

static int note_of(notes *nt, const mp_e2e_row *r)
{
    char t[600];
    snprintf(t, sizeof t, "%s: %.500s", r->status, r->reason[0] ? r->reason : "(no reason given)");
    for (int i = 0; i < nt->n; i++)
        if (!strcmp(nt->text[i], t))
            return i + 1;
    if (nt->n == MAXNOTES)
        return MAXNOTES;
    memcpy(nt->text[nt->n++], t, sizeof t);
    return nt->n;
}

/* The notes below the table, wrapped at 100 columns. */
static void print_notes(FILE *f, const notes *nt)
{
    for (int i = 0; i < nt->n; i++) {
        const char *p = nt->text[i];
        int col = fprintf(f, "%s[%d] ", i ? "" : "\n", i + 1) - (i ? 0 : 1), indent = col;
        while (*p) {
            size_t wl = strcspn(p, " ");
            if (col > indent && col + (int)wl > 100) {
                fprintf(f, "\n%*s", indent, "");
                col = indent;
            }
            col += fprintf(f, "%.*s", (int)wl, p);
            p += wl;
            if (*p == ' ') {
                p++;
                if (*p && col + 1 + (int)strcspn(p, " ") <= 100)
                    col += fprintf(f, " ");
            }
        }
        fputc('\n', f);
    }
}

/* The text of a row's result cell: "123.45 ± 1.23"; a row not ok adds its
 * footnote's number to the rate measured ("12.34 ± 0.50 [1]": the note says
 * unstable and why) or, with none, shows its status and the number. */
static void result_cell(const mp_e2e_row *r, int lossless, notes *nt, char *buf, size_t len)
{
    int ok = !strcmp(r->status, "ok");
    if (lossless && !strcmp(r->status, "skipped"))
        snprintf(buf, len, "skipped [%d]", note_of(nt, r));
    else if (lossless)
        snprintf(buf, len, "%d/%d = %.1f%%%s%s", r->matched, r->prompts, 100.0 * r->share,
                 ok ? "" : "  ", ok ? "" : r->status);
    else if (!ok && r->tps_median > 0)
        snprintf(buf, len, "%.2f ± %.2f [%d]", r->tps_median, r->tps_spread, note_of(nt, r));
    else if (!ok)
        snprintf(buf, len, "%s [%d]", r->status, note_of(nt, r));
    else
        snprintf(buf, len, "%.2f ± %.2f", r->tps_median, r->tps_spread);
}

/* The lossless check's logit cells: the largest difference relative to the
 * logit range ("0" only when bit for bit) and the first diverging token. */
static void logit_cells(const mp_e2e_row *r, char *diff, size_t dlen, char *first, size_t flen)
{
    if (isnan(r->logit_diff) || r->first_diff < 0) {
        snprintf(diff, dlen, "-");
        snprintf(first, flen, "-");
        return;
    }
    snprintf(diff, dlen, r->logit_diff == 0 ? "0" : "%.3g", r->logit_diff);
    snprintf(first, flen, r->first_diff ? "%d" : "none", r->first_diff);
}

/* The lossless check's step agreement: "kept/all (share)", "-" when not measured. */
static void steps_cell(const mp_e2e_row *r, char *buf, size_t len)
{
    long all = (long)r->prompts * r->tokens;
    if (r->steps_matched < 0 || all <= 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%d/%ld (%.1f%%)", r->steps_matched, all,
                 100.0 * r->steps_matched / (double)all);
}

/* Numeric columns are right-aligned (layers, size, bpw, threads, t/s, bound,
 * share, setup). */
static int is_right(int c, int lossless)
{
    return lossless ? c >= 4 : (c == 1 || c == 2 || c == 3 || c == 5 || c >= 7);
}

int mp_e2e_profile_parse(const char *text, double sec[MP_E2E_NPROF])
{
    memset(sec, 0, sizeof(double) * MP_E2E_NPROF);
    int n = 0;
    for (const char *it = text && *text ? text : NULL; it; n++) {
        const char *eq = strchr(it, '=');
        if (!eq)
            return -1;
        int g = 0;
        while (g < MP_E2E_NPROF && (strlen(mp_e2e_prof_name[g]) != (size_t)(eq - it) ||
                                    strncmp(mp_e2e_prof_name[g], it, (size_t)(eq - it))))
            g++;
        char *end;
        double v = strtod(eq + 1, &end);
        if (g == MP_E2E_NPROF || end == eq + 1 || (*end && *end != ','))
            return -1;
        sec[g] = v;
        it = *end ? end + 1 : NULL;
    }
    return n;
}

/* --profile: one line per row, milliseconds per token and share of the time. */
static void print_profiles(FILE *f, const mp_e2e_row *rows, int n)
{
    for (int i = 0; i < n; i++) {
        const mp_e2e_row *r = &rows[i];
        double sec[MP_E2E_NPROF], total = 0;
        if (mp_e2e_profile_parse(r->profile, sec) <= 0)
            continue;
        for (int g = 0; g < MP_E2E_NPROF; g++)
            total += sec[g];
        fprintf(f, "profile %s %s (ms/token, share):", r->variant, r->test);
        for (int g = 0; g < MP_E2E_NPROF; g++)
            fprintf(f, " %s %.3f (%.1f%%)", mp_e2e_prof_name[g], 1e3 * sec[g],
                    total > 0 ? 100.0 * sec[g] / total : 0.0);
        fprintf(f, "; total %.3f\n", 1e3 * total);
    }
}

void mp_e2e_print(FILE *f, mp_format fmt, const mp_e2e_row *rows, int n, int lossless)
{
    char size[32], cell[400], lay[32], bpw[32];
    static const char *const perf_cols[] = {"model", "layers", "size", "bpw", "variant",
                                            "threads", "test", "t/s", "bound t/s", "share",
                                            "setup s"};
    static const char *const ll_cols[] = {"model", "layers", "variant", "method", "prompts",
                                          "tokens", "exact match", "max logit diff / range",
                                          "first diff token", "steps agree"};
    const char *const *cols = lossless ? ll_cols : perf_cols;
    int ncol = lossless ? 10 : 11;
    char ldiff[32], lfirst[16], lsteps[48];
    if (fmt == MP_FMT_CSV) {
        fputs(lossless ? "model,layers,model_layers,variant,method,prompts,tokens,matched,share,"
                         "status,reason,logit_diff,first_diff,steps_matched\n"
                       : "model,layers,model_layers,model_bytes,bpw,variant,threads,test,"
                         "n_prompt,n_gen,batch,reps,tps_median,tps_min,tps_max,tps_spread,"
                         "status,reason,lm_head,setup_s,token_bytes,bw_gbs,bound_tps,"
                         "bound_share,profile,bw_row_gbs\n",
              f);
        for (int i = 0; i < n; i++) {
            const mp_e2e_row *r = &rows[i];
            fprintf(f, "%s,%d,%d,", r->model, r->layers, r->model_layers);
            if (lossless) {
                mp_csv_str(f, r->variant, 0);
                fprintf(f, ",%s,%d,%d,%d,%.4f,%s,", r->method, r->prompts, r->tokens,
                        r->matched, r->share, r->status);
            } else {
                fprintf(f, "%zu,%.3f,", r->model_bytes, r->bpw);
                mp_csv_str(f, r->variant, 0);
                fprintf(f, ",%d,%s,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.3f,%s,", r->threads, r->test,
                        r->n_prompt, r->n_gen, r->batch, r->reps, r->tps_median, r->tps_min,
                        r->tps_max, r->tps_spread, r->status);
            }
            mp_csv_str(f, r->reason, 0);
            if (lossless) {
                if (isnan(r->logit_diff) || r->first_diff < 0)
                    fputs(",,", f);
                else
                    fprintf(f, ",%.9g,%d", r->logit_diff, r->first_diff);
                if (r->steps_matched >= 0)
                    fprintf(f, ",%d", r->steps_matched);
                else
                    fputc(',', f);
            } else {
                fprintf(f, ",%s,%.3f,%zu,%.3f,%.3f,%.4f,", r->lm_head, r->setup_s,
                        r->token_bytes, r->bw_gbs, r->bound_tps, r->bound_share);
                mp_csv_str(f, r->profile, 0);
                fprintf(f, ",%.3f", r->bw_row_gbs);
            }
            fputc('\n', f);
        }
        return;
    }
    if (fmt == MP_FMT_JSON) {
        fputs("[\n", f);
        for (int i = 0; i < n; i++) {
            const mp_e2e_row *r = &rows[i];
            fputs("  {\"model\": ", f);
            mp_json_str(f, r->model);
            fprintf(f, ", \"layers\": %d, \"model_layers\": %d, \"variant\": ", r->layers,
                    r->model_layers);
            mp_json_str(f, r->variant);
            fputs(", \"method\": ", f);
            mp_json_str(f, r->method);
            if (lossless) {
                fprintf(f, ", \"test\": \"lossless\", \"prompts\": %d, \"tokens\": %d, "
                           "\"matched\": %d, \"share\": %.6f",
                        r->prompts, r->tokens, r->matched, r->share);
                if (isnan(r->logit_diff) || r->first_diff < 0)
                    fputs(", \"logit_diff\": null, \"first_diff\": null", f);
                else if (isinf(r->logit_diff))
                    fprintf(f, ", \"logit_diff\": \"inf\", \"first_diff\": %d", r->first_diff);
                else
                    fprintf(f, ", \"logit_diff\": %.9g, \"first_diff\": %d", r->logit_diff,
                            r->first_diff);
                if (r->steps_matched >= 0)
                    fprintf(f, ", \"steps_matched\": %d", r->steps_matched);
                else
                    fputs(", \"steps_matched\": null", f);
            } else {
                fprintf(f, ", \"model_bytes\": %zu, \"ternary_bytes\": %zu, \"bpw\": %.4f, "
                           "\"threads\": %d, \"test\": \"%s\", \"n_prompt\": %d, \"n_gen\": %d, "
                           "\"batch\": %d, \"reps\": %d, \"tps_median\": %.4f, \"tps_min\": %.4f, "
                           "\"tps_max\": %.4f, \"tps_spread\": %.4f",
                        r->model_bytes, r->ternary_bytes, r->bpw, r->threads, r->test,
                        r->n_prompt, r->n_gen, r->batch, r->reps, r->tps_median, r->tps_min,
                        r->tps_max, r->tps_spread);
                fprintf(f, ", \"lm_head\": \"%s\", \"setup_s\": %.4f, \"token_bytes\": %zu, "
                           "\"bw_gbs\": %.4f, \"bound_tps\": %.4f, \"bound_share\": %.6f, "
                           "\"profile\": ",
                        r->lm_head, r->setup_s, r->token_bytes, r->bw_gbs, r->bound_tps,
                        r->bound_share);
                mp_json_str(f, r->profile);
                fprintf(f, ", \"bw_row_gbs\": %.4f", r->bw_row_gbs);
            }
            fprintf(f, ", \"status\": \"%s\", \"reason\": ", r->status);
            mp_json_str(f, r->reason);
            fprintf(f, "}%s\n", i + 1 < n ? "," : "");
        }
        fputs("]\n", f);
        return;
    }
    /* table and markdown: compute widths, then print */
    enum { MAXROWS = 4096 };
    int w[11];
    static notes nt;
    for (int c = 0; c < ncol; c++)
        w[c] = (int)strlen(cols[c]);
    for (int pass = 0; pass < 2; pass++) {
        nt.n = 0; /* numbered again in the printing pass, in row order */
        if (pass == 1) {
            if (fmt == MP_FMT_MD) {
                fputc('|', f);
                for (int c = 0; c < ncol; c++)
                    fprintf(f, " %-*s |", w[c], cols[c]);
                fputs("\n|", f);
                for (int c = 0; c < ncol; c++) {
                    for (int k = 0; k < w[c] + 1; k++)
                        fputc('-', f);
                    fputs(is_right(c, lossless) ? ":|" : "-|", f);
                }
                fputc('\n', f);
            } else {
                for (int c = 0; c < ncol; c++)
                    fprintf(f, "%-*s%s", w[c], cols[c], c + 1 < ncol ? "  " : "\n");
            }
        }
        for (int i = 0; i < n && i < MAXROWS; i++) {
            const mp_e2e_row *r = &rows[i];
            const char *v[11];
            char pr[16], tk[16];
            if (r->layers < r->model_layers)
                snprintf(lay, sizeof lay, "%d of %d", r->layers, r->model_layers);
            else
                snprintf(lay, sizeof lay, "%d", r->layers);
            result_cell(r, lossless, &nt, cell, sizeof cell);
            char th[16], bnd[32], shr[32], su[32];
            if (lossless) {
                snprintf(pr, sizeof pr, "%d", r->prompts);
                snprintf(tk, sizeof tk, "%d", r->tokens);
                logit_cells(r, ldiff, sizeof ldiff, lfirst, sizeof lfirst);
                steps_cell(r, lsteps, sizeof lsteps);
                const char *lv[10] = {r->model, lay, r->variant, r->method, pr, tk, cell,
                                      ldiff, lfirst, lsteps};
                memcpy(v, lv, sizeof lv);
            } else {
                human_bytes(size, sizeof size, r->model_bytes);
                snprintf(bpw, sizeof bpw, "%.2f", r->bpw);
                snprintf(th, sizeof th, "%d", r->threads);
                int ok = !strcmp(r->status, "ok");
                snprintf(bnd, sizeof bnd, ok && r->bound_tps > 0 ? "%.2f" : "-", r->bound_tps);
                snprintf(shr, sizeof shr, ok && r->bound_tps > 0 ? "%.1f%%" : "-",
                         100.0 * r->bound_share);
                snprintf(su, sizeof su, r->setup_s > 0 ? "%.2f" : "-", r->setup_s);
                const char *pv[11] = {r->model, lay, size, bpw, r->variant, th, r->test, cell,
                                      bnd, shr, su};
                memcpy(v, pv, sizeof pv);
            }
            for (int c = 0; c < ncol; c++) {
                int len = (int)strlen(v[c]);
                if (strstr(v[c], "±"))
                    len -= 1; /* two bytes, one column */
                if (pass == 0) {
                    if (len > w[c])
                        w[c] = len;
                    continue;
                }
                int pad = w[c] - len;
                int right = is_right(c, lossless);
                if (fmt == MP_FMT_MD)
                    fprintf(f, "%s %*s%s%*s |", c ? "" : "|", right ? pad : 0, "", v[c],
                            right ? 0 : pad, "");
                else
                    fprintf(f, "%*s%s%*s%s", right ? pad : 0, "", v[c], right ? 0 : pad, "",
                            c + 1 < ncol ? "  " : "\n");
            }
            if (pass == 1 && fmt == MP_FMT_MD)
                fputc('\n', f);
        }
    }
    print_notes(f, &nt);
    nt.n = 0;
    if (!lossless)
        print_profiles(f, rows, n);
}
