/* report-md-trained.c - section 3a of the report (issue 42): the model trained
 * here (models/trained/), the claims synthetic weights cannot test.
 *
 *   bits per byte   every variant on the held-out text (`e2e --gguf F --ppl
 *                   TEXT`, rows of test "bpb"), against the reference and as a
 *                   per-byte perplexity ratio to our F16 kernel, beside seed 000
 *                   Table 2's WikiText2 perplexities (another model, another
 *                   unit: the ratios compare, not the figures)
 *   zero weights    the share of the file's ternary weights that are zero (the
 *                   "zeros" row the same command stores), beside seed 002
 *   float twin      the trainer's own evaluation of the ternary model and its
 *                   float twin, read from models/trained/metrics.json (written
 *                   by `make tiny-model`; our store has no float model's rows)
 *
 * The lossless check on the same model (seed 004 Table 7) is in section 3's
 * table, one row per variant with this model's name. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report-md.h"

/* seed 000 Table 2: WikiText2 perplexity per method on bitnet_b1_58-large */
static const struct {
    const char *method;
    double ppl;
} paper_t2[] = {
    {"F16", 11.29}, {"Q4_0", 11.57}, {"TL1_0", 11.30}, {"TL2_0", 11.30},
    {"TL1_1", 11.29}, {"TL2_1", 11.29}, {"I2_S", 11.29},
};

static double paper_ppl(const char *method)
{
    for (size_t i = 0; i < sizeof paper_t2 / sizeof paper_t2[0]; i++)
        if (!strcmp(method, paper_t2[i].method))
            return paper_t2[i].ppl;
    return 0;
}

/* The number after "key": inside the JSON object that follows "obj":; NAN when
 * absent (metrics.json is written by scripts/train/train.py, flat enough for
 * this). */
static double json_field(const char *text, const char *obj, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": {", obj);
    const char *o = strstr(text, pat);
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *k = o ? strstr(o, pat) : NULL;
    const char *end = o ? strchr(o, '}') : NULL;
    if (!k || (end && k > end))
        return NAN;
    char *stop;
    double v = strtod(k + strlen(pat), &stop);
    return stop == k + strlen(pat) ? NAN : v;
}

/* The trainer's held-out figures of both models, and ours beside them. */
static void float_twin(FILE *f, const char *path, double ours)
{
    FILE *in = fopen(path, "r");
    char text[65536];
    size_t n = in ? fread(text, 1, sizeof text - 1, in) : 0;
    if (in)
        fclose(in);
    text[n] = 0;
    double t = json_field(text, "ternary", "heldout_bpb"),
           fl = json_field(text, "float", "heldout_bpb");
    if (isnan(t) || isnan(fl)) {
        fprintf(f, "The float twin: %s holds no held-out figures (`make tiny-model` writes "
                   "them).\n\n", path);
        return;
    }
    fprintf(f, "Against its float twin (the same module with float linears, the same data, "
               "seed and steps), the trainer's own evaluation (`make tiny-model`, %s: "
               "PyTorch, float32, the same 256-byte chunks): ternary **%.4f**, float twin "
               "**%.4f** bits per byte, the ternary model %+.1f%%",
            path, t, fl, 100 * (t / fl - 1));
    if (ours > 0)
        fprintf(f, "; our reference arithmetic gives %.4f on the text of the rows above "
                   "(integer activations, where the trainer's forward pass rounds in float)",
                ours);
    fputs(".  Scale: 1.2 M parameters trained on 1.6 M bytes, where the papers' models "
          "have 0.7-100 B parameters trained on billions of tokens, and bits per byte "
          "where they report per-token perplexity.\n\n", f);
}

void mp_rep_sec_trained(FILE *f, const mp_rep *r, const e2e_row *e, int ne)
{
    (void)r;
    fputs("### 3a. The trained model: bits per byte and zero weights (issue 42; seed 000 "
          "Table 2, seed 002)\n\n", f);
    /* the newest bpb run */
    int64_t run = 0;
    for (int i = 0; i < ne; i++)
        if (!strcmp(e[i].test, "bpb") && e[i].run > run)
            run = e[i].run;
    if (!run) {
        fputs("No bits-per-byte rows: run `mpbench e2e --gguf models/trained/ternary.gguf "
              "--ppl models/trained/heldout.txt --variant '*.avx2*'` (scripts/report-data.sh "
              "does).\n\n", f);
        return;
    }
    const e2e_row *ref = NULL, *f16 = NULL, *zeros = NULL;
    for (int i = 0; i < ne; i++) {
        if (e[i].run != run)
            continue;
        if (!strcmp(e[i].test, "bpb") && !strcmp(e[i].method, "REF"))
            ref = &e[i];
        if (!strcmp(e[i].test, "bpb") && !strcmp(e[i].method, "F16") &&
            !strcmp(e[i].status, "ok"))
            f16 = &e[i];
        if (!strcmp(e[i].test, "zeros"))
            zeros = &e[i];
    }
    const e2e_row *any = ref ? ref : zeros;
    fprintf(f, "Model `%s` (%d/%d layers), %d bytes of text in 256-byte chunks, each "
               "from a fresh context; bits per byte = the mean of -log2 p(byte):\n\n",
            any ? any->model : "the model", any ? any->layers : 0, any ? any->model_layers : 0,
            any ? any->tokens : 0);
    fputs("| variant | method | numerics | bits per byte | - reference | per-byte perplexity "
          "/ F16's | paper PPL (seed 000 Table 2) | paper / Float16 |\n"
          "|---|---|---|--:|--:|--:|--:|--:|\n", f);
    for (int i = 0; i < ne; i++) {
        const e2e_row *x = &e[i];
        if (x->run != run || strcmp(x->test, "bpb"))
            continue;
        fputs("| ", f);
        mp_rep_md_escape(f, x->variant);
        int isref = !strcmp(x->method, "REF");
        fprintf(f, " | %s | %s | ", x->method, isref ? "reference" : mp_rep_numerics(x->variant));
        if (strcmp(x->status, "ok") && strcmp(x->status, "failed")) {
            fprintf(f, "%s: ", x->status);
            mp_rep_md_escape(f, x->reason);
            fputs(" | – | – | – | – |\n", f);
            continue;
        }
        char d[32] = "–", q[32] = "–", pp[16] = "–", pq[16] = "–";
        if (ref && !isref)
            snprintf(d, sizeof d, x->share == ref->share ? "0 (the same bits)" : "%+.2e",
                     x->share - ref->share);
        if (f16)
            snprintf(q, sizeof q, "%.5f", exp2(x->share - f16->share));
        double p = paper_ppl(x->method);
        if (p > 0)
            snprintf(pp, sizeof pp, "%.2f", p),
                snprintf(pq, sizeof pq, "%.3f", p / paper_ppl("F16"));
        fprintf(f, "%.6f%s | %s | %s | %s | %s |\n", x->share,
                strcmp(x->status, "ok") ? " (failed)" : "", d, q, pp, pq);
    }
    fputc('\n', f);
    int64_t runs[1] = {run};
    mp_rep_runs_line(f, runs, 1);
    fputs("A lossless variant must give the reference's bits to the last digit (any "
          "difference fails the row); a lossy one differs by what its kernel error costs.  "
          "F16 is our float kernel (float activations, where the reference quantizes them "
          "to int8 per token); the paper's Float16 is llama.cpp's.\n\n", f);
    if (zeros)
        fprintf(f, "Zero weights: **%.1f%%**, run %lld: %s [seed 002: about 50%% of trained "
                   "BitNet weights; claim C22].\n\n",
                100 * zeros->share, (long long)zeros->run, zeros->reason);
    float_twin(f, "models/trained/metrics.json", ref ? ref->share : 0);
}
