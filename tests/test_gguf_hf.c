/* test_gguf_hf.c - suite `gguf_hf`: the GGUF files our writer makes for
 * llama.cpp (issue 39) as two readers that are not ours see them.
 *
 * For every linear type the writer takes (tq2_0, tq1_0, i2_s, q8_0, q4_0, f16)
 * against every head type (bf16, f16, q8_0, q4_0), on the bitnet fixture
 * (tied head) and on the llama one (a separate output.weight): `mpbench pack
 * --gguf-out` writes the file, then
 *  - @huggingface/gguf (Hugging Face's TypeScript parser, fetched pinned by
 *    make peers; run through scripts/gguf-hf.mjs) must see what `mpbench list
 *    gguf FILE --tensors` prints: version, key and tensor counts, alignment,
 *    first data byte, every key in order with its value (strings to the 100
 *    characters we print, floats to our 6 digits, arrays as length and element
 *    type), every tensor in order with its name, ggml type number, shape and
 *    offset;
 *  - in its view each tensor has the type asked for: linears the --variant's,
 *    embedding and head the --lm-head's, norms f32 (and, beside TQ linears of
 *    bitnet files only, one f32 `.scale` per linear), by ggml's type numbers
 *    written out here (ggml.h's enum; 36 is bitnet.cpp's I2_S, which the
 *    package does not name: it is compared as a number);
 *  - ggml's gguf_init_from_file (the llama.cpp peer) agrees on every key and
 *    tensor; with i2_s linears it must refuse the file naming type 36, since
 *    upstream ggml has no I2_S.
 * A last test plants defects (an offset, a type, a dimension, a value, a key
 * count, a missing tensor, and a type byte flipped in the file itself) and
 * checks each is caught, so a comparison that sees nothing cannot pass.
 *
 * Without Node or the package the tests skip with the reason (failing
 * instead when MPBENCH_REQUIRE_PEERS=1); without the ggml peer only ggml's
 * verdict is left out, with a warning. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mp_test.h"

/* ggml's type numbers (ggml.h's enum ggml_type; I2_S from bitnet.cpp's ggml) */
typedef struct ggml_type_num {
    const char *name;
    int num;
} ggml_type_num;
static const ggml_type_num type_nums[] = {
    {"f32", 0},   {"f16", 1},    {"q4_0", 2},   {"q8_0", 8},
    {"bf16", 30}, {"tq1_0", 34}, {"tq2_0", 35}, {"i2_s", 36},
};
#define NTYPES ((int)(sizeof type_nums / sizeof type_nums[0]))

static int type_num(const char *name)
{
    for (int i = 0; i < NTYPES; i++)
        if (!strcmp(type_nums[i].name, name))
            return type_nums[i].num;
    return -1;
}

/* GGUF value types by the names scripts/gguf-hf.mjs prints (their index) */
static const char *const value_types[] = {"u8",   "i8",     "u16",   "i16", "u32",
                                          "i32",  "f32",    "bool",  "string",
                                          "array", "u64",   "i64",   "f64"};

static int value_type(const char *name)
{
    for (int i = 0; i < (int)(sizeof value_types / sizeof *value_types); i++)
        if (!strcmp(value_types[i], name))
            return i;
    return -1;
}

/* ---- one view of a file: ours (list gguf --tensors) or Hugging Face's ---------- */
enum { MAXKV = 64, MAXT = 64 };
typedef struct view_kv {
    char key[128], type[16]; /* type: the value type's name (Hugging Face's view only) */
    char val[512];
} view_kv;
typedef struct view_tensor {
    char name[128];
    int type;
    long long ne[4];
    unsigned long long off;
} view_tensor;
typedef struct view {
    int version;
    long long nkv, ntensors;
    unsigned long long align, data;
    int nk, nt;
    view_kv kv[MAXKV];
    view_tensor t[MAXT];
} view;

static int failf(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int failf(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return 1;
}

/* The next line of *s into line (newline dropped); 0 at the end. */
static int next_line(const char **s, char *line, size_t len)
{
    if (!**s)
        return 0;
    size_t n = strcspn(*s, "\n");
    snprintf(line, len, "%.*s", (int)n, *s);
    *s += n + ((*s)[n] == '\n');
    return 1;
}

/* `mpbench list gguf FILE --tensors`: the header, n_kv key lines ("  %-44s
 * VALUE"), the tensor lines; anything else (stderr, totals, model, ggml) is
 * passed over.  Returns 0, or 1 with why. */
static int parse_ours(const char *text, view *v, char *why, size_t len)
{
    memset(v, 0, sizeof *v);
    const char *s = text;
    char line[1024];
    int head = 0;
    while (next_line(&s, line, sizeof line)) {
        const char *h = strstr(line, ": GGUF version ");
        if (line[0] == '#' && h &&
            sscanf(h, ": GGUF version %d, %lld keys, %lld tensors, alignment %llu, data at "
                      "byte %llu", &v->version, &v->nkv, &v->ntensors, &v->align, &v->data) == 5) {
            head = 1;
            break;
        }
    }
    if (!head)
        return failf(why, len, "list gguf: no header line in:\n%s", text);
    if (v->nkv > MAXKV || v->ntensors > MAXT)
        return failf(why, len, "list gguf: %lld keys, %lld tensors: more than this test holds",
                     v->nkv, v->ntensors);
    for (v->nk = 0; v->nk < v->nkv; v->nk++) {
        if (!next_line(&s, line, sizeof line) || strncmp(line, "  ", 2) || line[2] == ' ')
            return failf(why, len, "list gguf: key line %d missing or malformed: '%s'", v->nk,
                         line);
        size_t kl = strcspn(line + 2, " ");
        snprintf(v->kv[v->nk].key, sizeof v->kv[v->nk].key, "%.*s", (int)kl, line + 2);
        size_t at = 2 + (kl > 44 ? kl : 44) + 1; /* printf's %-44s, then one space */
        snprintf(v->kv[v->nk].val, sizeof v->kv[v->nk].val, "%s",
                 strlen(line) >= at ? line + at : "");
    }
    while (next_line(&s, line, sizeof line)) {
        char name[128], type[16];
        if (strncmp(line, "  tensor ", 9))
            continue;
        if (v->nt == MAXT)
            return failf(why, len, "list gguf: more than %d tensor lines", MAXT);
        view_tensor *t = &v->t[v->nt];
        if (sscanf(line, "  tensor %127s %15s [%lld, %lld, %lld, %lld] offset %llu", name, type,
                   &t->ne[0], &t->ne[1], &t->ne[2], &t->ne[3], &t->off) != 7)
            return failf(why, len, "list gguf: malformed tensor line '%s'", line);
        if ((t->type = type_num(type)) < 0)
            return failf(why, len, "list gguf: tensor %s of type '%s', which has no ggml number "
                                   "in this test", name, type);
        snprintf(t->name, sizeof t->name, "%s", name);
        v->nt++;
    }
    return 0;
}

/* scripts/gguf-hf.mjs's lines (its header comment has the format). */
static int parse_hf(const char *text, view *v, char *why, size_t len)
{
    memset(v, 0, sizeof *v);
    const char *s = text;
    char line[1024];
    int head = 0;
    while (next_line(&s, line, sizeof line)) {
        if (sscanf(line, "gguf version %d kv %lld tensors %lld alignment %llu data %llu",
                   &v->version, &v->nkv, &v->ntensors, &v->align, &v->data) == 5) {
            head = 1;
        } else if (!strncmp(line, "kv ", 3)) {
            if (v->nk == MAXKV)
                return failf(why, len, "gguf-hf: more than %d keys", MAXKV);
            int kl = 0, tl = 0;
            if (sscanf(line, "kv %127s%n %15s%n", v->kv[v->nk].key, &kl, v->kv[v->nk].type,
                       &tl) != 2)
                return failf(why, len, "gguf-hf: malformed key line '%s'", line);
            snprintf(v->kv[v->nk].val, sizeof v->kv[v->nk].val, "%s",
                     line[tl] == ' ' ? line + tl + 1 : "");
            v->nk++;
        } else if (!strncmp(line, "tensor ", 7)) {
            if (v->nt == MAXT)
                return failf(why, len, "gguf-hf: more than %d tensors", MAXT);
            view_tensor *t = &v->t[v->nt];
            char dims[128];
            if (sscanf(line, "tensor %127s %d %127s %llu", t->name, &t->type, dims, &t->off) != 4)
                return failf(why, len, "gguf-hf: malformed tensor line '%s'", line);
            int d = 0;
            for (char *p = dims; d < 5 && *p; d++) {
                char *end;
                long long x = strtoll(p, &end, 10);
                if (end == p || (*end && *end != ','))
                    return failf(why, len, "gguf-hf: tensor %s: shape '%s'", t->name, dims);
                if (d < 4)
                    t->ne[d] = x;
                p = *end ? end + 1 : end;
            }
            if (d < 1 || d > 4)
                return failf(why, len, "gguf-hf: tensor %s has %d dimensions", t->name, d);
            for (; d < 4; d++)
                t->ne[d] = 1; /* we print four, padded with 1 as ggml does */
            v->nt++;
        } else if (line[0]) {
            return failf(why, len, "gguf-hf: unexpected line '%s'", line);
        }
    }
    if (!head)
        return failf(why, len, "gguf-hf: no header line in:\n%s", text);
    return 0;
}

/* One key's value: ours as list gguf prints it against Hugging Face's typed
 * one.  Returns 0 when they agree. */
static int value_differs(const char *ours, const char *type, const char *hf)
{
    int vt = value_type(type);
    switch (vt) {
    case 8: /* string: ours is cut at 100 characters and not escaped */
        return strchr(hf, '\\') ? strncmp(ours, hf, strlen(ours)) != 0 /* escaped: prefix */
                                : strlen(ours) != (strlen(hf) < 100 ? strlen(hf) : 100) ||
                                      strncmp(ours, hf, strlen(ours));
    case 9: { /* "[N elements of type T]" against "N ELEMTYPE" */
        unsigned long long n, hn;
        int t;
        char et[16];
        return sscanf(ours, "[%llu elements of type %d]", &n, &t) != 2 ||
               sscanf(hf, "%llu %15s", &hn, et) != 2 || n != hn || t != value_type(et);
    }
    case 6: case 12: { /* ours is %g: 6 significant digits */
        char *e1, *e2;
        double a = strtod(ours, &e1), b = strtod(hf, &e2);
        double tol = 1e-5 * (b < 0 ? -b : b);
        return *ours == 0 || *e1 || *e2 || (a - b > tol || b - a > tol);
    }
    case 7:
        return strcmp(ours, !strcmp(hf, "true") ? "1" : "0") || (strcmp(hf, "true") &&
                                                                   strcmp(hf, "false"));
    default: /* integers, printed in full by both */
        return vt < 0 || strcmp(ours, hf);
    }
}

/* The expected type of tensor name in a file packed with linears lin and
 * head head (ggml numbers); scales: the file has llama.cpp bitnet's per-linear
 * `.scale` tensors (TQ types in the bitnet architecture), f32 [1]; -1 when the
 * tensor should not be there. */
static int expected_type(const char *name, int lin, int head, int scales)
{
    size_t n = strlen(name);
    if (!strcmp(name, "token_embd.weight") || !strcmp(name, "output.weight"))
        return head;
    if (n > 11 && !strcmp(name + n - 11, "norm.weight"))
        return 0; /* attn_norm, ffn_norm, the sub-norms, output_norm: f32 */
    if (!strncmp(name, "blk.", 4) && n > 6 && !strcmp(name + n - 6, ".scale"))
        return scales ? 0 : -1;
    if (!strncmp(name, "blk.", 4) && n > 7 && !strcmp(name + n - 7, ".weight"))
        return lin;
    return -1;
}

/* Our view (list gguf --tensors output) against Hugging Face's (gguf-hf.mjs
 * output) and against the types asked for.  Returns 0, or 1 with the first
 * difference in why. */
static int compare_views(const char *ours_text, const char *hf_text, int lin, int head, char *why,
                         size_t len)
{
    static view a, b;
    if (parse_ours(ours_text, &a, why, len) || parse_hf(hf_text, &b, why, len))
        return 1;
    if (a.version != b.version || a.nkv != b.nkv || a.ntensors != b.ntensors ||
        a.align != b.align || a.data != b.data)
        return failf(why, len, "header: ours version %d, %lld keys, %lld tensors, alignment "
                     "%llu, data at %llu; @huggingface/gguf %d, %lld, %lld, %llu, %llu",
                     a.version, a.nkv, a.ntensors, a.align, a.data, b.version, b.nkv,
                     b.ntensors, b.align, b.data);
    if (a.nk != b.nk || b.nk != b.nkv)
        return failf(why, len, "keys: ours lists %d, @huggingface/gguf %d (header %lld)", a.nk,
                     b.nk, b.nkv);
    for (int i = 0; i < a.nk; i++) {
        if (strcmp(a.kv[i].key, b.kv[i].key))
            return failf(why, len, "key %d: ours '%s', @huggingface/gguf '%s'", i, a.kv[i].key,
                         b.kv[i].key);
        if (value_differs(a.kv[i].val, b.kv[i].type, b.kv[i].val))
            return failf(why, len, "key %s: ours '%s', @huggingface/gguf %s '%s'", a.kv[i].key,
                         a.kv[i].val, b.kv[i].type, b.kv[i].val);
    }
    /* llama.cpp's bitnet loads a per-linear scale beside TQ1_0/TQ2_0 weights */
    const char *arch = "?";
    for (int i = 0; i < b.nk; i++)
        if (!strcmp(b.kv[i].key, "general.architecture"))
            arch = b.kv[i].val;
    int scales = !strcmp(arch, "bitnet") && (lin == 34 || lin == 35), nlin = 0, nscale = 0;
    if (a.nt != b.nt || b.nt != b.ntensors)
        return failf(why, len, "tensors: ours lists %d, @huggingface/gguf %d (header %lld)",
                     a.nt, b.nt, b.ntensors);
    for (int i = 0; i < a.nt; i++) {
        const view_tensor *x = &a.t[i], *y = &b.t[i];
        if (strcmp(x->name, y->name) || x->type != y->type || x->off != y->off ||
            memcmp(x->ne, y->ne, sizeof x->ne))
            return failf(why, len, "tensor %d: ours %s type %d [%lld, %lld, %lld, %lld] offset "
                         "%llu; @huggingface/gguf %s type %d [%lld, %lld, %lld, %lld] offset %llu",
                         i, x->name, x->type, x->ne[0], x->ne[1], x->ne[2], x->ne[3], x->off,
                         y->name, y->type, y->ne[0], y->ne[1], y->ne[2], y->ne[3], y->off);
        int want = expected_type(y->name, lin, head, scales);
        if (want < 0)
            return failf(why, len, "tensor %s: not expected in a file of %s with type %d "
                         "linears", y->name, arch, lin);
        if (y->type != want)
            return failf(why, len, "tensor %s: @huggingface/gguf reads type %d, asked for %d",
                         y->name, y->type, want);
        size_t n = strlen(y->name);
        nlin += want == lin && !strncmp(y->name, "blk.", 4);
        nscale += n > 6 && !strcmp(y->name + n - 6, ".scale");
    }
    if (scales && nscale != nlin)
        return failf(why, len, "%d linears but %d .scale tensors", nlin, nscale);
    return 0;
}

/* ---- running the two tools -------------------------------------------------------- */
/* sh -c cmd with stdout and stderr into buf; the exit status (127: not found). */
static int run_capture(const char *cmd, char *buf, size_t len)
{
    char full[2048];
    snprintf(full, sizeof full, "%s 2>&1", cmd);
    FILE *p = popen(full, "r");
    cr_assert(p, "popen %s", cmd);
    size_t used = 0, got;
    buf[0] = 0;
    while ((got = fread(buf + used, 1, len - 1 - used, p)) > 0)
        used += got;
    buf[used] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char ours[1 << 16], hf[1 << 16];

/* Skips the test (or fails it under MPBENCH_REQUIRE_PEERS=1) when Node or the
 * package cannot run scripts/gguf-hf.mjs; it exits 1 on /dev/null (no GGUF). */
static void need_hf(void)
{
    int rc = run_capture("node scripts/gguf-hf.mjs /dev/null", hf, sizeof hf);
    if (rc == 0 || rc == 1)
        return;
    char reason[600];
    snprintf(reason, sizeof reason, "%.500s", rc == 127 ? "node not found (make deps installs it)"
                                                      : hf);
    reason[strcspn(reason, "\n")] = 0;
    const char *req = getenv("MPBENCH_REQUIRE_PEERS");
    cr_assert(!(req && !strcmp(req, "1")), "MPBENCH_REQUIRE_PEERS=1 but @huggingface/gguf "
              "cannot run: %s", reason);
    cr_skip_test("@huggingface/gguf cannot run here: %s", reason);
}

static int warned_ggml;

/* Packs fixture fx with linears lin and head head into dir and holds the
 * file against both readers; 0, or 1 with why (and the commands to rerun). */
static int check_case(const char *dir, const char *fx, const char *lin, const char *head,
                      char *why, size_t len)
{
    char path[256], args[1024], cmd[1024], repro[2000], w[2000];
    const char *base = strrchr(fx, '/') ? strrchr(fx, '/') + 1 : fx;
    snprintf(path, sizeof path, "%s/%.*s-%s-%s.gguf", dir, (int)strcspn(base, "."), base, lin,
             head);
    snprintf(args, sizeof args, "pack --gguf-out %s --model %s --variant %s --lm-head %s --seed 5",
             path, fx, lin, head);
    snprintf(repro, sizeof repro, "rerun: mpbench %s && node scripts/gguf-hf.mjs %s && mpbench "
             "list gguf %s --tensors", args, path, path);
    int rc = mp_test_cli(ours, sizeof ours, args);
    if (rc)
        return failf(why, len, "mpbench %s: exit %d:\n%s", args, rc, ours);
    snprintf(cmd, sizeof cmd, "node scripts/gguf-hf.mjs %s", path);
    if ((rc = run_capture(cmd, hf, sizeof hf)))
        return failf(why, len, "%s: exit %d:\n%s\n%s", cmd, rc, hf, repro);
    snprintf(args, sizeof args, "list gguf %s --tensors", path);
    if ((rc = mp_test_cli(ours, sizeof ours, args)))
        return failf(why, len, "mpbench %s: exit %d:\n%s\n%s", args, rc, ours, repro);
    if (compare_views(ours, hf, type_num(lin), type_num(head), w, sizeof w))
        return failf(why, len, "%s %s / %s: %s\n%s", fx, lin, head, w, repro);
    /* ggml's verdict, the last line list gguf prints about the file */
    const char *g = strstr(ours, "\nggml: ");
    const char *req = getenv("MPBENCH_REQUIRE_PEERS");
    if (g && !strncmp(g, "\nggml: not checked", 18) && !(req && !strcmp(req, "1"))) {
        if (!warned_ggml++)
            cr_log_warn("ggml's reader not checked (no llama.cpp peer: make peers)");
    } else if (!strcmp(lin, "i2_s")) {
        if (!g || !strstr(g, "refused") || !strstr(g, "type 36"))
            return failf(why, len, "ggml should refuse I2_S (type 36), which upstream ggml "
                         "lacks; it said: %.600s\n%s", g ? g + 1 : "nothing", repro);
    } else if (!g || !strstr(g, "every key and tensor agrees")) {
        return failf(why, len, "ggml's reader does not agree: %.800s\n%s", g ? g + 1 : "nothing",
                     repro);
    }
    unlink(path);
    return 0;
}

static const char *const lins[] = {"tq2_0", "tq1_0", "i2_s", "q8_0", "q4_0", "f16"};
static const char *const heads[] = {"bf16", "f16", "q8_0", "q4_0"};

/* Linears lin against every head type on the bitnet fixture (tied head). */
static void bitnet_every_head(const char *lin)
{
    need_hf();
    char dir[64], why[4000];
    mp_test_tmpdir(dir, sizeof dir, "gguf-hf");
    for (size_t h = 0; h < sizeof heads / sizeof *heads; h++)
        cr_assert(!check_case(dir, "tests/fixtures/tiny-tq.txt", lin, heads[h], why, sizeof why),
                  "%s", why);
    rmdir(dir);
}

/* one test per linear type, so that -j runs them side by side (Node starts in
 * about 0.3 s, a case takes about 0.7 s) */
Test(gguf_hf, bitnet_tq2_0_every_head, .timeout = 120) { bitnet_every_head("tq2_0"); }
Test(gguf_hf, bitnet_tq1_0_every_head, .timeout = 120) { bitnet_every_head("tq1_0"); }
Test(gguf_hf, bitnet_i2_s_every_head, .timeout = 120) { bitnet_every_head("i2_s"); }
Test(gguf_hf, bitnet_q8_0_every_head, .timeout = 120) { bitnet_every_head("q8_0"); }
Test(gguf_hf, bitnet_q4_0_every_head, .timeout = 120) { bitnet_every_head("q4_0"); }
Test(gguf_hf, bitnet_f16_every_head, .timeout = 120) { bitnet_every_head("f16"); }

Test(gguf_hf, llama_untied_head_every_head, .timeout = 120)
{
    /* output.weight of its own, in each head type; the linears rotate */
    need_hf();
    char dir[64], why[4000];
    mp_test_tmpdir(dir, sizeof dir, "gguf-hf");
    for (size_t h = 0; h < sizeof heads / sizeof *heads; h++)
        for (size_t l = h; l < sizeof lins / sizeof *lins; l += 4)
            cr_assert(!check_case(dir, "tests/fixtures/tiny-tq-llama.txt", lins[l], heads[h],
                                  why, sizeof why), "%s", why);
    rmdir(dir);
}

/* ---- planted defects ----------------------------------------------------------------- */
/* A copy of text with the first occurrence of from replaced by to. */
static char *plant(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    cr_assert(at, "planting: '%s' not found in:\n%s", from, text);
    size_t n = strlen(text) + strlen(to) + 1;
    char *s = malloc(n);
    snprintf(s, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return s;
}

Test(gguf_hf, planted_defects_are_caught, .timeout = 120)
{
    need_hf();
    char dir[64], path[160], why[4000];
    mp_test_tmpdir(dir, sizeof dir, "gguf-hf");
    snprintf(path, sizeof path, "%s/p.gguf", dir);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "pack --gguf-out %s --model tests/fixtures/tiny-tq.txt --variant "
             "q8_0 --lm-head q4_0 --seed 5", path);
    cr_assert_eq(mp_test_cli(ours, sizeof ours, cmd), 0, "%s", ours);
    snprintf(cmd, sizeof cmd, "list gguf %s --tensors", path);
    cr_assert_eq(mp_test_cli(ours, sizeof ours, cmd), 0, "%s", ours);
    snprintf(cmd, sizeof cmd, "node scripts/gguf-hf.mjs %s", path);
    cr_assert_eq(run_capture(cmd, hf, sizeof hf), 0, "%s", hf);
    cr_assert(!compare_views(ours, hf, 8, 2, why, sizeof why), "unplanted: %s", why);
    /* each defect in Hugging Face's view, and the words the difference must name */
    const struct {
        const char *from, *to, *names;
    } d[] = {
        {"tensor blk.0.attn_k.weight 8 256,128 ", "tensor blk.0.attn_k.weight 8 256,128 1",
         "blk.0.attn_k.weight"},                                       /* offset */
        {"tensor blk.1.ffn_up.weight 8 ", "tensor blk.1.ffn_up.weight 2 ", "type 2"}, /* type */
        {"tensor blk.0.ffn_down.weight 8 512,", "tensor blk.0.ffn_down.weight 8 511,",
         "[511, "},                                                    /* shape */
        {"tensor output_norm.weight 0 256 ", "tensor output_norm.weight 0 256,1,1,1,1 ",
         "5 dimensions"},                                              /* rank */
        {"bitnet.block_count u32 2", "bitnet.block_count u32 3", "block_count"}, /* value */
        {"rms_epsilon f32 0.0000099", "rms_epsilon f32 0.0000098", "rms_epsilon"}, /* float */
        {"tokens array 320 string", "tokens array 320 i32", "tokens"}, /* array type */
        {" kv 22 ", " kv 21 ", "header"},                              /* key count */
        {"tensor token_embd.weight", "x", "unexpected line"},          /* a line broken */
    };
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
        char *bad = plant(hf, d[i].from, d[i].to);
        cr_assert(compare_views(ours, bad, 8, 2, why, sizeof why),
                  "planted '%s' -> '%s' not caught", d[i].from, d[i].to);
        cr_assert(strstr(why, d[i].names), "planted '%s' -> '%s': the difference is named "
                  "'%s', without '%s'", d[i].from, d[i].to, why, d[i].names);
        free(bad);
    }
    /* a tensor missing from Hugging Face's view */
    char *line = strstr(hf, "tensor blk.1.ffn_down.weight");
    cr_assert(line);
    *line = 0;
    cr_assert(compare_views(ours, hf, 8, 2, why, sizeof why) && strstr(why, "tensors"), "%s", why);
    /* the file itself: blk.0.attn_q.weight's type field (after its name, n_dims = 2 and two
     * u64 dimensions) flipped from Q8_0 to Q4_0; both readers now agree with each other,
     * and the type asked for catches it */
    FILE *f = fopen(path, "r+b");
    cr_assert(f);
    static unsigned char buf[16384];
    size_t n = fread(buf, 1, sizeof buf, f);
    const char *name = "blk.0.attn_q.weight";
    unsigned char *at = memmem(buf, n, name, strlen(name));
    cr_assert(at);
    long pos = (long)(at - buf) + (long)strlen(name) + 4 + 16;
    uint32_t ty;
    memcpy(&ty, buf + pos, 4);
    cr_assert_eq(ty, 8, "blk.0.attn_q.weight type field: %u, want 8 (q8_0)", ty);
    ty = 2;
    cr_assert(fseek(f, pos, SEEK_SET) == 0 && fwrite(&ty, 4, 1, f) == 1 && fclose(f) == 0);
    snprintf(cmd, sizeof cmd, "list gguf %s --tensors", path);
    cr_assert_eq(mp_test_cli(ours, sizeof ours, cmd), 0, "%s", ours);
    snprintf(cmd, sizeof cmd, "node scripts/gguf-hf.mjs %s", path);
    cr_assert_eq(run_capture(cmd, hf, sizeof hf), 0, "%s", hf);
    cr_assert(compare_views(ours, hf, 8, 2, why, sizeof why), "flipped type byte not caught");
    cr_assert(strstr(why, "blk.0.attn_q.weight: @huggingface/gguf reads type 2, asked for 8"),
              "%s", why);
    unlink(path);
    rmdir(dir);
}
