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
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    X(0, void, set_threads, (void *, int32_t, int32_t), llama_set_n_threads)          \
    X(0, uint64_t, model_size, (const void *), llama_model_size)                       \
    X(0, int32_t, model_desc, (const void *, char *, size_t), llama_model_desc)        \
    X(0, void, attach, (void *, void *, void *), llama_attach_threadpool)              \
    X(0, llama_batch_, batch_init, (int32_t, int32_t, int32_t), llama_batch_init)      \
    X(0, void, batch_free, (llama_batch_), llama_batch_free)                           \
    X(0, void *, get_memory, (void *), llama_get_memory)                               \
    X(0, void, memory_clear, (void *, bool), llama_memory_clear)                       \
    X(1, void *, reg_by_name, (const char *), ggml_backend_reg_by_name)                \
    X(1, void *, reg_proc, (void *, const char *), ggml_backend_reg_get_proc_address)  \
    X(1, blob, tp_default, (int), ggml_threadpool_params_default)

typedef struct llama_api {
#define FIELD(lib, ret, field, params, sym) ret (*field) params;
    LLAMA_FUNCS(FIELD)
#undef FIELD
    void (*ggml_log_set)(log_cb, void *); /* libggml-base's, where it is loaded */
    void *(*tp_new)(blob *);              /* the CPU backend's, through reg_proc */
    void (*tp_free)(void *);
    void (*tp_pause)(void *), (*tp_resume)(void *); /* the same; NULL where absent */
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

/* The loaded CPU backend variant (libggml-cpu-*.so), found among the process's
 * objects: dl_iterate_phdr's callback. */
static int find_cpu_lib(struct dl_phdr_info *info, size_t size, void *out)
{
    (void)size;
    const char *base = strrchr(info->dlpi_name, '/');
    if (!base || strncmp(base + 1, "libggml-cpu", 11))
        return 0;
    snprintf(out, PATH_MAX, "%s", info->dlpi_name);
    return 1;
}

/* A symbol of the CPU backend variant ggml loaded: its registry's
 * get_proc_address first, else the library itself.  The npm build's registry
 * answers ggml_threadpool_new and _free but not _pause and _resume, which the
 * library exports: without this, "pause" did nothing, and llama.cpp's idle
 * worker spun through our bound's read (at 2 threads: 14.2-14.8 GB/s read
 * beside llamacpp.* steps against 22.3 beside ours, rows at 119-160% of a
 * bound). */
static void *cpu_proc(llama_api *a, void *cpu, const char *name)
{
    void *f = cpu ? a->reg_proc(cpu, name) : NULL;
    char path[PATH_MAX] = "";
    if (f || !dl_iterate_phdr(find_cpu_lib, path))
        return f;
    void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (!h)
        return NULL;
    f = dlsym(h, name);
    dlclose(h); /* NOLOAD took a reference; ggml keeps its own */
    return f;
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
    /* the CPU backend's threadpool calls come from the variant ggml loaded */
    void *cpu = a->reg_by_name("CPU");
    *(void **)&a->tp_new = cpu ? a->reg_proc(cpu, "ggml_threadpool_new") : NULL;
    *(void **)&a->tp_free = cpu ? a->reg_proc(cpu, "ggml_threadpool_free") : NULL;
    *(void **)&a->tp_pause = cpu_proc(a, cpu, "ggml_threadpool_pause");
    *(void **)&a->tp_resume = cpu_proc(a, cpu, "ggml_threadpool_resume");
    if (!a->tp_pause || !a->tp_resume)
        a->tp_pause = a->tp_resume = NULL;
    if (!a->tp_new || !a->tp_free)
        return mp_fail(e, MP_ERUN, "llama.cpp peer: the CPU backend gives no ggml_threadpool_new");
    cached = *a;
    state = 1;
    return MP_OK;
}

struct mp_llama {
    llama_api a;
    void *model, *ctx, *tp;
    llama_batch_ batch;
    int vocab, max_tokens, max_seqs;
    int pos[MP_LLAMA_MAX_SEQS];
};

/* llama.cpp's message so far, on one line. */
static const char *llog_line(void)
{
    for (char *q = llog; *q; q++)
        if (*q == '\n')
            *q = ' ';
    return llog[0] ? llog : "(no message)";
}

int mp_llama_open(const char *path, int threads, int max_ctx, int max_tokens, int max_seqs,
                  mp_llama **out, mp_err *e)
{
    *out = NULL;
    if (threads < 1 || max_ctx < 1 || max_tokens < 1 || max_seqs < 1 ||
        max_seqs > MP_LLAMA_MAX_SEQS)
        return mp_fail(e, MP_EUSAGE, "llama.cpp session: threads %d, context %d, tokens %d, "
                       "sequences %d out of range", threads, max_ctx, max_tokens, max_seqs);
    mp_llama *l = calloc(1, sizeof *l);
    if (!l)
        return mp_fail(e, MP_ERUN, "out of memory");
    int rc = api_open(&l->a, e);
    if (rc) {
        free(l);
        return rc;
    }
    llama_api *a = &l->a;
    llog[0] = 0;
    l->model = a->model_load(path, a->model_default());
    if (!l->model) {
        free(l);
        return mp_fail(e, MP_EUSAGE, "%s: llama.cpp's model loader refused it: %s", path,
                       llog_line());
    }
    l->vocab = a->n_tokens(a->get_vocab(l->model));
    /* llama_context_params has begun with n_ctx, n_batch, n_ubatch, n_seq_max
     * (u32) for many releases: when the defaults read there are the known ones
     * (512, 2048, 512, 1), they are set; otherwise the layout is not the one
     * assumed and the file is not run. */
    blob cp = a->ctx_default();
    uint32_t f[4];
    memcpy(f, cp.b, sizeof f);
    if (f[0] != 512 || f[1] != 2048 || f[2] != 512 || f[3] != 1) {
        mp_llama_close(l);
        return mp_fail(e, MP_ERUN, "libllama's llama_context_params defaults (%u, %u, %u, %u) are "
                       "not the layout this build expects", f[0], f[1], f[2], f[3]);
    }
    /* every sequence its own max_ctx positions (the cache is split evenly) */
    uint32_t ctx = (uint32_t)max_ctx * (uint32_t)max_seqs;
    ctx = (ctx + 255) / 256 * 256;
    uint32_t set[4] = {ctx, (uint32_t)max_tokens, (uint32_t)max_tokens, (uint32_t)max_seqs};
    memcpy(cp.b, set, sizeof set);
    l->ctx = a->init_from_model(l->model, cp);
    if (!l->ctx) {
        mp_llama_close(l);
        return mp_fail(e, MP_ERUN, "%s: llama_init_from_model failed: %s", path, llog_line());
    }
    /* ggml's workers inherit the creating thread's CPU set; the harness pins
     * its threads one CPU each, and workers confined to the caller's CPU
     * would wait at every barrier for a time slice (2 threads: ~0.7 s a
     * token on a model of 0.5 MiB).  They get every CPU the process may use,
     * as in llama.cpp's own tools, which pin nothing by default. */
    cpu_set_t mine, all;
    CPU_ZERO(&all);
    for (long c = 0, n = sysconf(_SC_NPROCESSORS_CONF); c < n && c < CPU_SETSIZE; c++)
        CPU_SET((int)c, &all);
    int widened = !pthread_getaffinity_np(pthread_self(), sizeof mine, &mine) &&
                  !pthread_setaffinity_np(pthread_self(), sizeof all, &all);
    blob tpp = a->tp_default(threads);
    l->tp = a->tp_new(&tpp);
    if (widened)
        pthread_setaffinity_np(pthread_self(), sizeof mine, &mine);
    if (!l->tp) {
        mp_llama_close(l);
        return mp_fail(e, MP_ERUN, "ggml_threadpool_new(%d) failed", threads);
    }
    a->attach(l->ctx, l->tp, l->tp);
    a->set_threads(l->ctx, threads, threads);
    l->batch = a->batch_init(max_tokens, 0, 1);
    l->max_tokens = max_tokens, l->max_seqs = max_seqs;
    *out = l;
    return MP_OK;
}

int mp_llama_pause(mp_llama *l, int pause)
{
    if (!l->a.tp_pause)
        return -1;
    (pause ? l->a.tp_pause : l->a.tp_resume)(l->tp);
    return 0;
}

void mp_llama_close(mp_llama *l)
{
    if (!l)
        return;
    if (l->batch.token)
        l->a.batch_free(l->batch);
    if (l->ctx)
        l->a.free_ctx(l->ctx);
    if (l->tp)
        l->a.tp_free(l->tp);
    if (l->model)
        l->a.free_model(l->model);
    free(l);
}

void mp_llama_reset(mp_llama *l)
{
    l->a.memory_clear(l->a.get_memory(l->ctx), true);
    memset(l->pos, 0, sizeof l->pos);
}

int mp_llama_vocab(const mp_llama *l)
{
    return l->vocab;
}

size_t mp_llama_model_bytes(const mp_llama *l)
{
    return (size_t)l->a.model_size(l->model);
}

void mp_llama_describe(const mp_llama *l, char *buf, size_t len)
{
    l->a.model_desc(l->model, buf, len);
}

int mp_llama_forward(mp_llama *l, const int *tok, const int *seq, int n, const unsigned char *want,
                     int *next, mp_err *e)
{
    if (n < 1 || n > l->max_tokens)
        return mp_fail(e, MP_EUSAGE, "llama.cpp session: %d tokens (1..%d)", n, l->max_tokens);
    llama_batch_ *b = &l->batch;
    b->n_tokens = n;
    for (int i = 0; i < n; i++) {
        int s = seq ? seq[i] : 0;
        if (s < 0 || s >= l->max_seqs || tok[i] < 0 || tok[i] >= l->vocab)
            return mp_fail(e, MP_EUSAGE, "llama.cpp session: token %d of sequence %d out of range",
                           tok[i], s);
        b->token[i] = tok[i];
        b->pos[i] = l->pos[s]++;
        b->n_seq_id[i] = 1;
        b->seq_id[i][0] = s;
        b->logits[i] = (int8_t)(want ? want[i] != 0 : 1);
    }
    llog[0] = 0;
    if (l->a.decode(l->ctx, *b))
        return mp_fail(e, MP_ERUN, "llama_decode failed: %s", llog_line());
    for (int i = 0, o = 0; i < n; i++) {
        if (!b->logits[i])
            continue;
        const float *lg = l->a.logits_ith(l->ctx, i);
        int best = 0;
        for (int v = 1; v < l->vocab; v++)
            if (lg[v] > lg[best])
                best = v;
        next[o++] = best;
    }
    return MP_OK;
}

const float *mp_llama_logits(const mp_llama *l, int i)
{
    return l->a.logits_ith(l->ctx, i);
}

int mp_llama_greedy(const char *path, const int *const *prompts, const int *plen, int nprompts,
                    int gen, int *out, float *first_logits, mp_err *e)
{
    mp_llama *l;
    int rc = mp_llama_open(path, 1, 256, 256, 1, &l, e);
    if (rc)
        return rc;
    for (int p = 0; p < nprompts && !rc; p++) {
        mp_llama_reset(l);
        int tok[256], n = plen[p] < 256 ? plen[p] : 256;
        memcpy(tok, prompts[p], sizeof(int) * (size_t)n);
        for (int g = 0; g < gen && !rc; g++) {
            unsigned char want[256] = {0};
            want[n - 1] = 1;
            if ((rc = mp_llama_forward(l, tok, NULL, n, want, &out[p * gen + g], e))) {
                char why[sizeof e->msg];
                snprintf(why, sizeof why, "%s", e->msg);
                rc = mp_fail(e, rc, "%s: %.900s", path, why);
                break;
            }
            if (first_logits && g == 0)
                memcpy(first_logits + (size_t)p * l->vocab, mp_llama_logits(l, n - 1),
                       sizeof(float) * (size_t)l->vocab);
            tok[0] = out[p * gen + g];
            n = 1;
        }
    }
    mp_llama_close(l);
    return rc;
}
