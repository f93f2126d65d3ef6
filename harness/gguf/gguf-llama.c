/* gguf-llama.c - greedy decoding through llama.cpp itself (issue 19), to check
 * that a GGUF file means the same model to llama.cpp and to our runner.
 *
 * libllama (and libggml, whose CPU backends are loaded from the same folder)
 * come from the llama.cpp peer package and are dlopen'ed; only the C entry
 * points called here are declared.  Parameter structs are passed and returned
 * by value in llama.h; their layout changes between releases, so they are
 * taken from llama_*_default_params() into a buffer larger than any release's
 * struct and passed back untouched (x86-64 SysV passes and returns such
 * structs in memory, so the callee only reads its own size).  llama_batch is
 * declared exactly: it has not changed since llama_batch_get_one took two
 * arguments.  llama.cpp's log is kept quiet (errors are collected for the
 * message); MP_LLAMA_LOG=1 prints all of it to stderr. */
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_gguf.h"

typedef struct blob {
    unsigned char b[1024];
} blob;

typedef struct llama_batch_ {
    int32_t n_tokens;
    int32_t *token;
    float *embd;
    int32_t *pos;
    int32_t *n_seq_id;
    int32_t **seq_id;
    int8_t *logits;
} llama_batch_;

typedef void (*log_cb)(int, const char *, void *);

/* The entry points called here, as X(library, return type, field, parameters,
 * symbol), the library 0 for libllama and 1 for libggml: the one list the
 * struct and its loading table are made from. */
#define LLAMA_FUNCS(X)                                                                 \
    X(0, void, backend_init, (void), llama_backend_init)                               \
    X(1, void, load_all_from_path, (const char *), ggml_backend_load_all_from_path)    \
    X(0, void, log_set, (log_cb, void *), llama_log_set)                               \
    X(0, blob, model_default, (void), llama_model_default_params)                      \
    X(0, void *, model_load, (const char *, blob), llama_model_load_from_file)         \
    X(0, blob, ctx_default, (void), llama_context_default_params)                      \
    X(0, void *, init_from_model, (void *, blob), llama_init_from_model)               \
    X(0, llama_batch_, batch_get_one, (int32_t *, int32_t), llama_batch_get_one)       \
    X(0, int32_t, decode, (void *, llama_batch_), llama_decode)                        \
    X(0, float *, logits_ith, (void *, int32_t), llama_get_logits_ith)                 \
    X(0, const void *, get_vocab, (const void *), llama_model_get_vocab)               \
    X(0, int32_t, n_tokens, (const void *), llama_vocab_n_tokens)                      \
    X(0, void, free_ctx, (void *), llama_free)                                         \
    X(0, void, free_model, (void *), llama_model_free)                                 \
    X(0, void, set_threads, (void *, int32_t, int32_t), llama_set_n_threads)

typedef struct llama_api {
#define FIELD(lib, ret, field, params, sym) ret (*field) params;
    LLAMA_FUNCS(FIELD)
#undef FIELD
    void (*ggml_log_set)(log_cb, void *); /* libggml-base's, where it is loaded */
} llama_api;

static const mp_dl_sym llama_syms[] = {
#define ROW(lib, ret, field, params, sym) {lib, offsetof(llama_api, field), #sym},
    LLAMA_FUNCS(ROW)
#undef ROW
};

/* The first file in dir whose name starts with prefix and ends with ".so". */
static int find_lib(const char *dir, const char *prefix, char *out, size_t len)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *de;
    int found = -1;
    size_t pl = strlen(prefix);
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name);
        if (!strncmp(de->d_name, prefix, pl) && n > 3 && !strcmp(de->d_name + n - 3, ".so") &&
            (de->d_name[pl] == '.' || de->d_name[pl] == 0)) {
            snprintf(out, len, "%s/%s", dir, de->d_name);
            found = 0;
            break;
        }
    }
    closedir(d);
    return found;
}

static char llog[2048];

static void quiet(int level, const char *text, void *user)
{
    (void)user;
    if (getenv("MP_LLAMA_LOG")) fputs(text, stderr);
    if (level >= 4) { /* GGML_LOG_LEVEL_ERROR */
        size_t l = strlen(llog);
        if (l + 1 < sizeof llog)
            snprintf(llog + l, sizeof llog - l, "%s", text);
    }
}

static int api_open(llama_api *a, mp_err *e)
{
    static llama_api cached;
    static int state; /* 0 untried, 1 ok, -1 absent */
    if (state == 1) {
        *a = cached;
        return MP_OK;
    }
    const char *dir = mp_ggml_dir();
    if (!dir) {
        mp_fail(e, MP_ERUN, "llama.cpp peer libraries not found (MPBENCH_GGML_DIR or "
                "third_party/ggml/)");
        return -1;
    }
    char gp[PATH_MAX], lp[PATH_MAX];
    if (find_lib(dir, "libggml", gp, sizeof gp) || find_lib(dir, "libllama", lp, sizeof lp)) {
        mp_fail(e, MP_ERUN, "%s: no libggml*.so or libllama*.so", dir);
        return -1;
    }
    void *hb = dlopen(gp, RTLD_NOW | RTLD_GLOBAL), *hl = hb ? dlopen(lp, RTLD_NOW) : NULL;
    if (!hb || !hl)
        return mp_fail(e, MP_ERUN, "dlopen: %s", dlerror());
    void *hbase = dlopen("libggml-base.so", RTLD_NOW | RTLD_NOLOAD);
    void *const libs[2] = {hl, hb};
    const char *missing = mp_dl_syms(libs, llama_syms, sizeof llama_syms / sizeof llama_syms[0], a);
    if (missing)
        return mp_fail(e, MP_ERUN, "llama.cpp peer library lacks %s", missing);
    if (hbase)
        *(void **)&a->ggml_log_set = dlsym(hbase, "ggml_log_set");
    a->log_set(quiet, NULL);
    if (a->ggml_log_set)
        a->ggml_log_set(quiet, NULL);
    a->load_all_from_path(dir);
    a->backend_init();
    cached = *a;
    state = 1;
    return MP_OK;
}

int mp_llama_greedy(const char *path, const int *const *prompts, const int *plen, int nprompts,
                    int gen, int *out, float *first_logits, mp_err *e)
{
    llama_api a;
    int rc = api_open(&a, e);
    if (rc)
        return rc;
    llog[0] = 0;
    void *model = a.model_load(path, a.model_default());
    if (!model) {
        for (char *q = llog; *q; q++)
            if (*q == '\n')
                *q = ' ';
        return mp_fail(e, MP_EUSAGE, "%s: llama.cpp's model loader refused it: %s", path,
                       llog[0] ? llog : "(no message)");
    }
    int vocab = a.n_tokens(a.get_vocab(model));
    /* llama_context_params has begun with n_ctx, n_batch, n_ubatch (u32) for many
     * releases: when the defaults read there are the known ones (512, 2048, 512),
     * ask for a small context; threads are set through llama_set_n_threads (tests
     * share 2 cores, and the default is all of them). */
    blob cp = a.ctx_default();
    uint32_t f[3];
    memcpy(f, cp.b, sizeof f);
    if (f[0] == 512 && f[1] == 2048 && f[2] == 512) {
        uint32_t set[3] = {256, 256, 256};
        memcpy(cp.b, set, sizeof set);
    }
    rc = MP_OK;
    for (int p = 0; p < nprompts && !rc; p++) {
        void *ctx = a.init_from_model(model, cp);
        if (!ctx) {
            rc = mp_fail(e, MP_ERUN, "%s: llama_init_from_model failed: %s", path, llog);
            break;
        }
        a.set_threads(ctx, 1, 1);
        int32_t tok[256];
        int n = plen[p] < 256 ? plen[p] : 256;
        for (int i = 0; i < n; i++)
            tok[i] = prompts[p][i];
        for (int g = 0; g < gen && !rc; g++) {
            if (a.decode(ctx, a.batch_get_one(tok, n))) {
                rc = mp_fail(e, MP_ERUN, "%s: llama_decode failed: %s", path, llog);
                break;
            }
            const float *lg = a.logits_ith(ctx, -1);
            if (first_logits && g == 0)
                memcpy(first_logits + (size_t)p * vocab, lg, sizeof(float) * (size_t)vocab);
            int best = 0;
            for (int v = 1; v < vocab; v++)
                if (lg[v] > lg[best])
                    best = v;
            out[p * gen + g] = best;
            tok[0] = best;
            n = 1;
        }
        a.free_ctx(ctx);
    }
    a.free_model(model);
    return rc;
}
