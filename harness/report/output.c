/* output.c - results as an aligned table, CSV, JSON or markdown.  The CSV
 * columns are fixed (issue 2): variant,method,family,isa,m,k,n,threads,bpw,
 * median_us,min_us,gbps,gops,max_rel_err,status. */
#include <math.h>
#include <string.h>

#include "mp_output.h"
#include "../core/mp_core.h"
#include "../../variants/mp_registry.h"

int mp_format_parse(const char *s, mp_format *f)
{
    static const char *const names[] = {"table", "csv", "json", "md"};
    for (int i = 0; i < 4; i++)
        if (s && !strcmp(s, names[i])) {
            *f = (mp_format)i;
            return 0;
        }
    return -1;
}

static const char *status_text(const mp_result *r, char *buf, size_t len)
{
    if (r->status == MP_ST_OK)
        return "ok";
    snprintf(buf, len, "%s%s%s", mp_status_name(r->status), r->reason[0] ? ":" : "", r->reason);
    return buf;
}

static void fmt_err(char *buf, size_t len, double v)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.3g", v);
}

void mp_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

void mp_csv_str(FILE *f, const char *s, int one_line)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(one_line && *s == '\n' ? ' ' : *s, f);
    }
    fputc('"', f);
}

/* Per-call event values and, where the hardware events exist, the derived
 * figures: IPC, bytes of weights per instruction, cache misses per KB of weights. */
static void print_events(FILE *f, const mp_result *x)
{
    double cyc = -1, ins = -1, miss = -1;
    fputs(", \"events\": {", f);
    int first = 1;
    for (int i = 0; i < mp_counters_n(x->counters); i++) {
        if (mp_counters_unavailable(x->counters, i))
            continue;
        const char *name = mp_counters_name(x->counters, i);
        fprintf(f, "%s\"%s\": %.1f", first ? "" : ", ", name, x->events[i]);
        first = 0;
        if (!strcmp(name, "cycles"))
            cyc = x->events[i];
        else if (!strcmp(name, "instructions"))
            ins = x->events[i];
        else if (!strcmp(name, "cache-misses"))
            miss = x->events[i];
    }
    fputc('}', f);
    if (cyc > 0 && ins > 0)
        fprintf(f, ", \"ipc\": %.3f", ins / cyc);
    if (ins > 0)
        fprintf(f, ", \"bytes_per_instruction\": %.3f", (double)x->packed_bytes / ins);
    if (miss >= 0 && x->packed_bytes)
        fprintf(f, ", \"misses_per_kb\": %.3f", miss / ((double)x->packed_bytes / 1024.0));
}

void mp_results_print(FILE *f, mp_format fmt, const mp_result *r, int n)
{
    char st[400], isa[32], err[32];
    int measured;
    switch (fmt) {
    case MP_FMT_CSV:
        fprintf(f, "variant,method,family,isa,m,k,n,threads,bpw,median_us,min_us,gbps,gops,"
                   "max_rel_err,status\n");
        for (int i = 0; i < n; i++) {
            const mp_result *x = &r[i];
            measured = x->reps > 0;
            fmt_err(err, sizeof err, x->max_rel_err);
            fprintf(f, "%s,%s,%s,%s,%d,%d,%d,%d,", x->v->name, x->v->method,
                    mp_family_name(x->v->family), mp_variant_isa_token(x->v, isa, sizeof isa),
                    x->m, x->k, x->n, x->threads);
            if (x->bpw > 0)
                fprintf(f, "%.4f,", x->bpw);
            else
                fputc(',', f);
            if (measured)
                fprintf(f, "%.3f,%.3f,%.3f,%.3f,", x->median_us, x->min_us, x->gbps, x->gops);
            else
                fputs(",,,,", f);
            /* the status may contain commas: quote it */
            fprintf(f, "%s,\"%s\"\n", isnan(x->max_rel_err) ? "" : err,
                    status_text(x, st, sizeof st));
        }
        break;
    case MP_FMT_JSON:
        fputs("[\n", f);
        for (int i = 0; i < n; i++) {
            const mp_result *x = &r[i];
            fputs("  {\"variant\": ", f);
            mp_json_str(f, x->v->name);
            fputs(", \"method\": ", f);
            mp_json_str(f, x->v->method);
            fprintf(f, ", \"family\": \"%s\", \"isa\": \"%s\", \"params\": ",
                    mp_family_name(x->v->family), mp_variant_isa_token(x->v, isa, sizeof isa));
            mp_json_str(f, x->params);
            fprintf(f, ", \"m\": %d, \"k\": %d, \"n\": %d, \"threads\": %d, \"cache\": \"%s\"",
                    x->m, x->k, x->n, x->threads, x->warm ? "warm" : "cold");
            if (x->bpw > 0)
                fprintf(f, ", \"bpw\": %.4f", x->bpw);
            if (x->reps > 0)
                fprintf(f, ", \"reps\": %d, \"median_us\": %.3f, \"min_us\": %.3f, \"max_us\": %.3f,"
                           " \"mad_us\": %.3f, \"gbps\": %.3f, \"gops\": %.3f",
                        x->reps, x->median_us, x->min_us, x->max_us, x->mad_us, x->gbps, x->gops);
            if (!isnan(x->max_rel_err))
                fprintf(f, ", \"max_rel_err\": %.6g, \"mean_rel_err\": %.6g", x->max_rel_err,
                        x->mean_rel_err);
            if (x->counters && x->reps > 0)
                print_events(f, x);
            if (x->model_gbps > 0) {
                fprintf(f, ", \"model_gbps\": %.3f, \"model\": ", x->model_gbps);
                mp_json_str(f, x->model_note);
            }
            if (x->read_gbps > 0)
                fprintf(f, ", \"read_gbps\": %.3f", x->read_gbps);
            if (x->clock_ghz > 0)
                fprintf(f, ", \"clock_ghz\": %.3f, \"slow_reps\": %d", x->clock_ghz, x->slow_reps);
            fputs(", \"status\": ", f);
            mp_json_str(f, mp_status_name(x->status));
            fputs(", \"reason\": ", f);
            mp_json_str(f, x->reason);
            fprintf(f, "}%s\n", i + 1 < n ? "," : "");
        }
        fputs("]\n", f);
        break;
    case MP_FMT_MD:
    case MP_FMT_TABLE: {
        int md = fmt == MP_FMT_MD;
        int models = 0, reads = 0;
        for (int i = 0; i < n; i++) {
            models |= r[i].model_gbps > 0;
            reads |= r[i].read_gbps > 0;
        }
        /* "of read": GB/s over the same-run read stream of the point (measure.c) */
        const char *hdr[] = {"variant", "m", "k", "n", "thr", "bpw", "median_us", "min_us",
                             "GB/s", "GOPS", "max_rel_err", "status"};
        const int wd[] = {-24, 6, 6, 4, 3, 6, 10, 10, 7, 8, 11, 0};
        if (md) {
            fputs("|", f);
            for (int j = 0; j < 12; j++)
                fprintf(f, " %s |", hdr[j]);
            if (reads)
                fputs(" of read (same run) |", f);
            if (models)
                fputs(" model GB/s (seed 003 eq. 3) |", f);
            fputs("\n|", f);
            for (int j = 0; j < 12; j++)
                fputs(j == 0 || j == 11 ? "---|" : "--:|", f);
            if (reads)
                fputs("--:|", f);
            if (models)
                fputs("---|", f);
            fputc('\n', f);
        } else {
            for (int j = 0; j < 12; j++)
                fprintf(f, "%*s%s", wd[j], hdr[j], j < 11 || models || reads ? "  " : "\n");
            if (reads)
                fprintf(f, "%-18s%s", "of read (same run)", models ? "  " : "\n");
            if (models)
                fputs("model GB/s (seed 003 eq. 3)\n", f);
        }
        for (int i = 0; i < n; i++) {
            const mp_result *x = &r[i];
            char c[12][420];
            snprintf(c[0], sizeof c[0], "%s", x->v->name);
            if (x->params[0]) {
                size_t l = strlen(c[0]);
                snprintf(c[0] + l, sizeof c[0] - l, "[%s]", x->params);
            }
            snprintf(c[1], sizeof c[1], "%d", x->m);
            snprintf(c[2], sizeof c[2], "%d", x->k);
            snprintf(c[3], sizeof c[3], "%d", x->n);
            snprintf(c[4], sizeof c[4], "%d", x->threads);
            if (x->bpw > 0)
                snprintf(c[5], sizeof c[5], "%.3f", x->bpw);
            else
                snprintf(c[5], sizeof c[5], "-");
            if (x->reps > 0) {
                snprintf(c[6], sizeof c[6], "%.1f", x->median_us);
                snprintf(c[7], sizeof c[7], "%.1f", x->min_us);
                snprintf(c[8], sizeof c[8], "%.2f", x->gbps);
                snprintf(c[9], sizeof c[9], "%.1f", x->gops);
            } else {
                for (int j = 6; j < 10; j++)
                    snprintf(c[j], sizeof c[j], "-");
            }
            fmt_err(c[10], sizeof c[10], x->max_rel_err);
            snprintf(c[11], sizeof c[11], "%s", status_text(x, st, sizeof st));
            char mdl[200] = "", rd[64] = "-";
            if (x->read_gbps > 0 && x->reps > 0)
                snprintf(rd, sizeof rd, "%.0f%% of %.1f", 100.0 * x->gbps / x->read_gbps,
                         x->read_gbps);
            if (models && x->model_gbps > 0)
                snprintf(mdl, sizeof mdl, "%.1f (%.0f%% reached; %s)", x->model_gbps,
                         x->reps ? 100.0 * x->gbps / x->model_gbps : 0.0, x->model_note);
            if (md) {
                fputs("|", f);
                for (int j = 0; j < 12; j++)
                    fprintf(f, " %s |", c[j]);
                if (reads)
                    fprintf(f, " %s |", rd);
                if (models)
                    fprintf(f, " %s |", mdl);
                fputc('\n', f);
            } else {
                for (int j = 0; j < 12; j++)
                    fprintf(f, "%*s%s", wd[j], c[j], j < 11 || models || reads ? "  " : "\n");
                if (reads)
                    fprintf(f, "%-18s%s", rd, models ? "  " : "\n");
                if (models)
                    fprintf(f, "%s\n", mdl);
            }
        }
        break;
    }
    }
}
