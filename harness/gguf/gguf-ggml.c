/* gguf-ggml.c - ggml's own GGUF reader as a second opinion on ours (issue 19).
 *
 * libggml-base.so from the llama.cpp peer package (@node-llama-cpp/linux-x64,
 * fetched into third_party/ggml/, or $MPBENCH_GGML_DIR) is dlopen'ed at run
 * time, so mpbench neither links nor needs it; only the gguf_* entry points
 * called here are declared, with the C signatures of ggml's gguf.h (gguf_type
 * numbering equals ours).  gguf_init_from_file with no_alloc reads metadata
 * and the tensor directory only; its log lines are captured so a refusal can
 * be reported in ggml's own words. */
#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_gguf.h"

struct gguf_context;
struct ggml_context;
struct gguf_init_params {
    bool no_alloc;
    struct ggml_context **ctx;
};
typedef void (*ggml_log_cb)(int level, const char *text, void *user);

/* The entry points called here, as X(return type, field, parameters, symbol):
 * the one list the struct and its loading table are made from. */
#define C const struct gguf_context *
#define GGML_FUNCS(X)                                                                  \
    X(struct gguf_context *, init, (const char *, struct gguf_init_params),            \
      gguf_init_from_file)                                                             \
    X(void, free_, (struct gguf_context *), gguf_free)                                 \
    X(uint32_t, version, (C), gguf_get_version)                                        \
    X(size_t, alignment, (C), gguf_get_alignment)                                      \
    X(size_t, data_offset, (C), gguf_get_data_offset)                                  \
    X(int64_t, n_kv, (C), gguf_get_n_kv)                                               \
    X(const char *, key, (C, int64_t), gguf_get_key)                                   \
    X(int, kv_type, (C, int64_t), gguf_get_kv_type)                                    \
    X(int, arr_type, (C, int64_t), gguf_get_arr_type)                                  \
    X(size_t, arr_n, (C, int64_t), gguf_get_arr_n)                                     \
    X(const void *, arr_data, (C, int64_t), gguf_get_arr_data)                         \
    X(const char *, arr_str, (C, int64_t, size_t), gguf_get_arr_str)                   \
    X(const void *, val_data, (C, int64_t), gguf_get_val_data)                         \
    X(const char *, val_str, (C, int64_t), gguf_get_val_str)                           \
    X(int64_t, n_tensors, (C), gguf_get_n_tensors)                                     \
    X(const char *, t_name, (C, int64_t), gguf_get_tensor_name)                        \
    X(int, t_type, (C, int64_t), gguf_get_tensor_type)                                 \
    X(size_t, t_offset, (C, int64_t), gguf_get_tensor_offset)                          \
    X(size_t, t_size, (C, int64_t), gguf_get_tensor_size)                              \
    X(const int64_t *, t_ne, (C, int64_t), gguf_get_tensor_ne)                         \
    X(void, log_set, (ggml_log_cb, void *), ggml_log_set)

typedef struct ggml_api {
#define FIELD(ret, field, params, sym) ret (*field) params;
    GGML_FUNCS(FIELD)
#undef FIELD
} ggml_api;

static const mp_dl_sym ggml_syms[] = {
#define ROW(ret, field, params, sym) {0, offsetof(ggml_api, field), #sym},
    GGML_FUNCS(ROW)
#undef ROW
};
#undef C

static int has_lib(const char *dir)
{
    char p[PATH_MAX + 32];
    struct stat st;
    snprintf(p, sizeof p, "%.*s/libggml-base.so", PATH_MAX - 1, dir);
    return stat(p, &st) == 0;
}

const char *mp_dl_syms(void *const *handles, const mp_dl_sym *syms, int n, void *api)
{
    for (int i = 0; i < n; i++) {
        void **slot = (void **)((char *)api + syms[i].off);
        if (!(*slot = dlsym(handles[syms[i].lib], syms[i].name)))
            return syms[i].name;
    }
    return NULL;
}

const char *mp_ggml_dir(void)
{
    static char dir[PATH_MAX];
    const char *env = getenv("MPBENCH_GGML_DIR");
    if (env && *env)
        return has_lib(env) ? env : NULL;
    static const char *const sub[] = {"package/bins/linux-x64", "bins/linux-x64", "lib", "."};
    char roots[2][PATH_MAX / 2];
    int nroots = 0;
    snprintf(roots[nroots++], sizeof roots[0], "third_party/ggml");
    char exe[PATH_MAX / 2 - 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            snprintf(roots[nroots++], sizeof roots[0], "%s/third_party/ggml", exe);
        }
    }
    for (int r = 0; r < nroots; r++)
        for (size_t s = 0; s < sizeof sub / sizeof sub[0]; s++) {
            snprintf(dir, sizeof dir, "%.*s/%s", PATH_MAX / 2, roots[r], sub[s]);
            if (has_lib(dir))
                return dir;
        }
    return NULL;
}

static void *lib_open(ggml_api *a, mp_err *e)
{
    static void *cached;
    static ggml_api api;
    if (cached) {
        *a = api;
        return cached;
    }
    const char *dir = mp_ggml_dir();
    if (!dir)
        return NULL;
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%.*s/libggml-base.so", PATH_MAX - 1, dir);
    void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        mp_fail(e, MP_ERUN, "dlopen %s: %s", p, dlerror());
        return NULL;
    }
    const char *missing = mp_dl_syms(&h, ggml_syms, sizeof ggml_syms / sizeof ggml_syms[0], a);
    if (missing) {
        mp_fail(e, MP_ERUN, "%s lacks %s", p, missing);
        dlclose(h);
        return NULL;
    }
    api = *a;
    cached = h;
    return h;
}

static char log_buf[1024];

static void log_cb(int level, const char *text, void *user)
{
    (void)level, (void)user;
    size_t len = strlen(log_buf);
    if (len + 1 < sizeof log_buf)
        snprintf(log_buf + len, sizeof log_buf - len, "%s", text);
}

static size_t vsz(int t)
{
    static const size_t s[MP_GGUF_NTYPES] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    return t >= 0 && t < MP_GGUF_NTYPES ? s[t] : 0;
}

/* Our widened scalar back to its file bytes. */
static void scalar_bytes(const mp_gguf_kv *kv, uint8_t *b)
{
    memset(b, 0, 8);
    switch (kv->type) {
    case MP_GGUF_F32: { float f = (float)kv->v.f; memcpy(b, &f, 4); break; }
    case MP_GGUF_F64: memcpy(b, &kv->v.f, 8); break;
    case MP_GGUF_I8: case MP_GGUF_I16: case MP_GGUF_I32: case MP_GGUF_I64:
        memcpy(b, &kv->v.i, 8);
        break;
    default: memcpy(b, &kv->v.u, 8); break;
    }
}

static int compare(const ggml_api *a, const struct gguf_context *c, const mp_gguf *g, mp_err *e)
{
    const char *p = g->path;
    if ((int)a->version(c) != g->version)
        return mp_fail(e, MP_ERUN, "%s: ggml reads version %u, ours %d", p, a->version(c),
                       g->version);
    if (a->alignment(c) != g->alignment || (g->n_tensors && a->data_offset(c) != g->data_offset))
        return mp_fail(e, MP_ERUN, "%s: ggml alignment %zu data offset %zu, ours %llu and %llu", p,
                       a->alignment(c), a->data_offset(c), (unsigned long long)g->alignment,
                       (unsigned long long)g->data_offset);
    if (a->n_kv(c) != g->n_kv || a->n_tensors(c) != g->n_tensors)
        return mp_fail(e, MP_ERUN, "%s: ggml %lld keys %lld tensors, ours %lld and %lld", p,
                       (long long)a->n_kv(c), (long long)a->n_tensors(c), (long long)g->n_kv,
                       (long long)g->n_tensors);
    for (int64_t i = 0; i < g->n_kv; i++) {
        const mp_gguf_kv *kv = &g->kv[i];
        if (strcmp(a->key(c, i), kv->key) || a->kv_type(c, i) != kv->type)
            return mp_fail(e, MP_ERUN, "%s: key %lld: ggml '%s' type %d, ours '%s' type %d", p,
                           (long long)i, a->key(c, i), a->kv_type(c, i), kv->key, kv->type);
        if (kv->type == MP_GGUF_STRING) {
            if (strcmp(a->val_str(c, i), kv->str))
                return mp_fail(e, MP_ERUN, "%s: key %s: ggml '%s', ours '%s'", p, kv->key,
                               a->val_str(c, i), kv->str);
        } else if (kv->type == MP_GGUF_ARRAY) {
            if (a->arr_type(c, i) != kv->arr_type || a->arr_n(c, i) != kv->n)
                return mp_fail(e, MP_ERUN, "%s: key %s: ggml array of %zu type %d, ours %llu "
                               "type %d", p, kv->key, a->arr_n(c, i), a->arr_type(c, i),
                               (unsigned long long)kv->n, kv->arr_type);
            if (kv->arr_type == MP_GGUF_STRING) {
                for (uint64_t j = 0; j < kv->n; j++) {
                    uint64_t len;
                    const char *s = mp_gguf_arr_str(kv, j, &len);
                    const char *gs = a->arr_str(c, i, j);
                    if (strlen(gs) != len || memcmp(gs, s, len))
                        return mp_fail(e, MP_ERUN, "%s: key %s[%llu]: ggml '%s', ours '%.*s'", p,
                                       kv->key, (unsigned long long)j, gs, (int)len, s);
                }
            } else if (kv->n && memcmp(a->arr_data(c, i), kv->data, kv->n * vsz(kv->arr_type))) {
                return mp_fail(e, MP_ERUN, "%s: key %s: array contents differ", p, kv->key);
            }
        } else {
            uint8_t b[8];
            scalar_bytes(kv, b);
            if (memcmp(a->val_data(c, i), b, vsz(kv->type)))
                return mp_fail(e, MP_ERUN, "%s: key %s: value differs", p, kv->key);
        }
    }
    for (int64_t i = 0; i < g->n_tensors; i++) {
        const mp_gguf_tensor *t = &g->t[i];
        const int64_t *ne = a->t_ne(c, i);
        if (strcmp(a->t_name(c, i), t->name) || a->t_type(c, i) != t->type ||
            a->t_offset(c, i) != t->offset || a->t_size(c, i) != t->bytes ||
            memcmp(ne, t->ne, sizeof t->ne))
            return mp_fail(e, MP_ERUN,
                           "%s: tensor %lld: ggml '%s' type %d ne [%lld,%lld,%lld,%lld] offset %zu "
                           "size %zu; ours '%s' type %d ne [%lld,%lld,%lld,%lld] offset %llu size "
                           "%zu", p, (long long)i, a->t_name(c, i), a->t_type(c, i),
                           (long long)ne[0], (long long)ne[1], (long long)ne[2], (long long)ne[3],
                           a->t_offset(c, i), a->t_size(c, i), t->name, t->type,
                           (long long)t->ne[0], (long long)t->ne[1], (long long)t->ne[2],
                           (long long)t->ne[3], (unsigned long long)t->offset, t->bytes);
    }
    return MP_OK;
}

int mp_ggml_crosscheck(const char *path, char *report, size_t rlen, mp_err *e)
{
    ggml_api a;
    mp_err le = {{0}};
    void *h = lib_open(&a, &le);
    if (!h) {
        if (le.msg[0])
            return mp_fail(e, MP_ERUN, "%s", le.msg);
        mp_fail(e, MP_ERUN, "libggml-base.so not found (set MPBENCH_GGML_DIR or fetch the "
                "llama.cpp peer package into third_party/ggml/)");
        return -1;
    }
    log_buf[0] = 0;
    a.log_set(log_cb, NULL);
    struct gguf_init_params prm = {.no_alloc = true, .ctx = NULL};
    struct gguf_context *c = a.init(path, prm);
    a.log_set(NULL, NULL);
    int rc;
    if (!c) {
        size_t len = strlen(log_buf);
        while (len && (log_buf[len - 1] == '\n' || log_buf[len - 1] == ' '))
            log_buf[--len] = 0;
        for (char *q = log_buf; *q; q++)
            if (*q == '\n')
                *q = ';';
        rc = mp_fail(e, MP_EUSAGE, "%s: ggml's gguf_init_from_file refused it: %s", path,
                     log_buf[0] ? log_buf : "(no message)");
        if (report)
            snprintf(report, rlen, "ggml refused: %s", log_buf);
        return rc; /* the library stays loaded: unloading C++ code is not worth the risk */
    }
    mp_gguf *g;
    rc = mp_gguf_open(path, &g, e);
    if (!rc) {
        rc = compare(&a, c, g, e);
        if (report)
            snprintf(report, rlen, "ggml gguf_init_from_file: version %u, %lld keys, %lld tensors, "
                     "alignment %zu, data at byte %zu: %s", a.version(c), (long long)a.n_kv(c),
                     (long long)a.n_tensors(c), a.alignment(c), a.data_offset(c),
                     rc ? "DIFFERS from ours" : "every key and tensor agrees with our reader");
        mp_gguf_close(g);
    }
    a.free_(c);
    return rc;
}
