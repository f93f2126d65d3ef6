/* llamacpp-peer.c - llama.cpp's ggml as a peer of our kernels (issue 15): loads
 * libggml-base.so and the best libggml-cpu-<uarch>.so of the pinned npm package
 * with dlopen, checks the few ABI facts ggml-api.h relies on, and runs
 * y = mul_mat(W, x) on ggml's CPU backend the way llama.cpp does.  See
 * llamacpp.h for where the library is looked for and what each slot does.
 *
 * Choices that bear on the timings (what is inside a timed call):
 *   - the graph (3 tensors, 1 node) is built once per (type, rows, K, N) and
 *     cached; a timed call only points the tensors at this call's weight copy,
 *     activations and output, then runs ggml_backend_graph_compute.  llama.cpp
 *     rebuilds its graph per token, but for a whole model at once, so its cost
 *     per mul_mat is far below one call here; not building it per call is the
 *     closer match;
 *   - the threadpool is created once per thread count and kept, as llama.cpp
 *     keeps its own; the calling thread (the harness's thread 0) computes as
 *     ggml's worker 0 and keeps its pinning, ggml's other workers are pinned one
 *     each to the PUs of the harness's threads 1..n-1 (core i, its first PU;
 *     then PUs round robin, as harness/pool.c does);
 *   - poll = 50, ggml's default and llama.cpp's for inference (MPBENCH_GGML_POLL
 *     overrides, 0..100): a worker that finished a graph spins for the next
 *     one (~190 ms on the 2-vCPU test VM) before it sleeps, so in inference
 *     ggml's workers are awake at the start of every mul_mat (inside a graph
 *     they pass from op to op at a spinning barrier).  A timed call is made in
 *     that state: the harness calls mp_llamacpp_keep_awake(op, 1) before it
 *     and (op, 0) after it, untimed, so the workers do not spin on the cores
 *     of the other variants' calls measured in between.  Until issue 37 poll
 *     was 0 for that reason, and every call paid a wake-up of the workers:
 *     +49-62 us on a ~25 us 2-thread 640x2560 tq2_0 GEMV while the harness's
 *     idle thread yielded on the worker's core, and still 4-26 us with that
 *     core idle (a KVM guest can be slow to wake a halted vCPU);
 *   - the F32 -> vec_dot type conversion of the activations (Q8_K for TQ1_0 and
 *     TQ2_0, Q8_0 for Q4_0 and Q8_0, F16 for F16) happens inside mul_mat, hence
 *     inside the timed call, as in llama.cpp.
 * compute serializes on one mutex (one backend and its work buffer); the
 * harness calls a self-threaded variant from one thread anyway. */
#include "llamacpp.h"

#include <dirent.h>
#include <stdarg.h>
#include <dlfcn.h>
#include <hwloc.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ggml-api.h"
#include "../common/mp_parse.h"

enum { MAX_THREADS = 64, MAX_GRAPHS = 16 };

/* ops independent mul_mats of one activation tensor x: 1 for a call of the
 * variant, up to MP_LLAMACPP_MAX_OPS for mp_llamacpp_compute_graph. */
typedef struct graph {
    int type, rows, k, n, ops;
    unsigned long used;
    mp_ggml_context *ctx;
    mp_ggml_tensor *w[MP_LLAMACPP_MAX_OPS], *x, *y[MP_LLAMACPP_MAX_OPS];
    mp_ggml_cgraph *g;
} graph;

static struct {
    pthread_once_t once;
    int ok;
    char why[512];
    char desc[768];
    void *hbase, *hcpu;
#define MP_GGML_PTR(ret, name, args) ret(*name) args;
    MP_GGML_BASE_FUNCS(MP_GGML_PTR)
    MP_GGML_CPU_FUNCS(MP_GGML_PTR)
#undef MP_GGML_PTR
    mp_ggml_backend *backend;
    mp_ggml_threadpool *tp[MAX_THREADS + 1];
    int cur_threads;
    int paused[MAX_THREADS + 1]; /* tp[i] paused: by keep_awake(op, 0), or by ggml
                                  * when the backend switched to another pool */
    pthread_mutex_t mu;
    graph graphs[MAX_GRAPHS];
    unsigned long clock;
} G = {.once = PTHREAD_ONCE_INIT, .mu = PTHREAD_MUTEX_INITIALIZER};

/* Block geometry of the types used, as ggml defines them (checked at load). */
static const struct {
    int type;
    const char *name;
    int blck, bytes;
} types[] = {
    {MP_GGML_TYPE_F32, "f32", 1, 4},       {MP_GGML_TYPE_F16, "f16", 1, 2},
    {MP_GGML_TYPE_Q4_0, "q4_0", 32, 18},   {MP_GGML_TYPE_Q8_0, "q8_0", 32, 34},
    {MP_GGML_TYPE_TQ1_0, "tq1_0", 256, 54}, {MP_GGML_TYPE_TQ2_0, "tq2_0", 256, 66},
};

/* snprintf that may truncate on purpose (paths, reasons): vsnprintf keeps
 * -Wformat-truncation quiet where a long path would only shorten a message. */
static void fmt(char *buf, size_t len, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void fmt(char *buf, size_t len, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, len, f, ap);
    va_end(ap);
}

static size_t row_bytes(int type, int k)
{
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (types[i].type == type)
            return (size_t)k / (size_t)types[i].blck * (size_t)types[i].bytes;
    return 0;
}

static int has_base(const char *dir)
{
    char p[4096];
    fmt(p, sizeof p, "%s/libggml-base.so", dir);
    return access(p, R_OK) == 0;
}

/* $MPBENCH_GGML_DIR, else third_party/ggml beside the binary or its parent, else
 * ./third_party/ggml.  Writes the directory tried last when none has the library. */
static int find_dir(char *dir, size_t len)
{
    const char *env = getenv("MPBENCH_GGML_DIR");
    if (env) {
        fmt(dir, len, "%s", env);
        return has_base(dir) ? 0 : -1;
    }
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            fmt(dir, len, "%s/third_party/ggml", exe);
            if (has_base(dir))
                return 0;
            fmt(dir, len, "%s/../third_party/ggml", exe);
            if (has_base(dir))
                return 0;
        }
    }
    fmt(dir, len, "third_party/ggml");
    return has_base(dir) ? 0 : -1;
}

#define FAIL(...)                                          \
    do {                                                   \
        fmt(G.why, sizeof G.why, "llama.cpp peer: " __VA_ARGS__); \
        return;                                            \
    } while (0)

/* The package version from DIR/package.json ("version": "3.22.1"). */
static void pkg_version(const char *dir, char *out, size_t len)
{
    fmt(out, len, "?");
    char p[4096], buf[4096];
    fmt(p, sizeof p, "%s/package.json", dir);
    FILE *f = fopen(p, "r");
    if (!f)
        return;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *v = strstr(buf, "\"version\"");
    if (v && (v = strchr(v + 9, '"'))) {
        char *e = strchr(v + 1, '"');
        if (e)
            fmt(out, len, "%.*s", (int)(e - v - 1), v + 1);
    }
}

static void cleanup(void)
{
    pthread_mutex_lock(&G.mu);
    for (int i = 0; i < MAX_GRAPHS; i++)
        if (G.graphs[i].ctx)
            G.ggml_free(G.graphs[i].ctx);
    memset(G.graphs, 0, sizeof G.graphs);
    if (G.backend)
        G.ggml_backend_free(G.backend);
    G.backend = NULL;
    for (int i = 0; i <= MAX_THREADS; i++)
        if (G.tp[i])
            G.ggml_threadpool_free(G.tp[i]);
    memset(G.tp, 0, sizeof G.tp);
    memset(G.paused, 0, sizeof G.paused);
    G.cur_threads = 0;
    G.ok = 0;
    fmt(G.why, sizeof G.why, "llama.cpp peer: unloaded at exit");
    pthread_mutex_unlock(&G.mu);
}

/* The libggml-cpu-*.so with the highest ggml_backend_score (0 = cannot run on
 * this CPU), or the one MPBENCH_GGML_CPU names ("zen4" -> libggml-cpu-zen4.so). */
static void *pick_cpu(const char *dir, char *name, size_t nlen, int *score)
{
    const char *want = getenv("MPBENCH_GGML_CPU");
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    void *best = NULL;
    *score = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (strncmp(de->d_name, "libggml-cpu-", 12) || l < 16 || strcmp(de->d_name + l - 3, ".so"))
            continue;
        if (want && *want && (l - 15 != strlen(want) || strncmp(de->d_name + 12, want, l - 15)))
            continue;
        char p[4096];
        fmt(p, sizeof p, "%s/%s", dir, de->d_name);
        void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
        if (!h)
            continue;
        int (*sc)(void) = (int (*)(void))dlsym(h, "ggml_backend_score");
        int s = sc ? sc() : 0;
        if (s > *score) {
            if (best)
                dlclose(best);
            best = h;
            *score = s;
            fmt(name, nlen, "%s", de->d_name);
        } else {
            dlclose(h);
        }
    }
    closedir(d);
    return best;
}

static void load(void)
{
    char dir[4096];
    if (find_dir(dir, sizeof dir))
        FAIL("no libggml-base.so in %s (run `make peers`, or set MPBENCH_GGML_DIR)", dir);
    char p[4200];
    fmt(p, sizeof p, "%s/libggml-base.so", dir);
    G.hbase = dlopen(p, RTLD_NOW | RTLD_LOCAL);
    if (!G.hbase)
        FAIL("cannot load %s: %s", p, dlerror());
#define MP_GGML_SYM(h, name)                                                  \
    do {                                                                      \
        *(void **)&G.name = dlsym(h, #name);                                  \
        if (!G.name)                                                          \
            FAIL("%s does not export %s", h == G.hbase ? "libggml-base.so" : cpu, #name); \
    } while (0);
    const char *cpu = "libggml-cpu";
#define MP_GGML_BASE_SYM(ret, name, args) MP_GGML_SYM(G.hbase, name)
    MP_GGML_BASE_FUNCS(MP_GGML_BASE_SYM)
#undef MP_GGML_BASE_SYM
    char cpu_name[256] = "";
    int score = 0;
    G.hcpu = pick_cpu(dir, cpu_name, sizeof cpu_name, &score);
    if (!G.hcpu) {
        const char *want = getenv("MPBENCH_GGML_CPU");
        FAIL("no libggml-cpu-%s.so in %s runs on this CPU (ggml_backend_score 0 or missing)",
             want && *want ? want : "*", dir);
    }
    cpu = cpu_name;
#define MP_GGML_CPU_SYM(ret, name, args) MP_GGML_SYM(G.hcpu, name)
    MP_GGML_CPU_FUNCS(MP_GGML_CPU_SYM)
#undef MP_GGML_CPU_SYM
#undef MP_GGML_SYM

    /* enum values: name and block geometry of every type used */
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        const char *tn = G.ggml_type_name(types[i].type);
        if (!tn || strcmp(tn, types[i].name) || G.ggml_blck_size(types[i].type) != types[i].blck ||
            G.ggml_type_size(types[i].type) != (size_t)types[i].bytes)
            FAIL("ggml type %d is '%s' (block %lld, %zu bytes), expected %s (%d, %d): ABI "
                 "differs from ggml-api.h",
                 types[i].type, tn ? tn : "?", (long long)G.ggml_blck_size(types[i].type),
                 G.ggml_type_size(types[i].type), types[i].name, types[i].blck, types[i].bytes);
    }
    /* struct ggml_tensor through `data`, on a real tensor */
    mp_ggml_context *ctx = G.ggml_init((mp_ggml_init_params){1 << 16, NULL, false});
    if (!ctx)
        FAIL("ggml_init failed");
    mp_ggml_tensor *t = G.ggml_new_tensor_2d(ctx, MP_GGML_TYPE_Q8_0, 64, 3);
    int layout_ok = t && t->type == MP_GGML_TYPE_Q8_0 && t->ne[0] == 64 && t->ne[1] == 3 &&
                    t->ne[2] == 1 && t->nb[0] == 34 && t->nb[1] == 68 &&
                    G.ggml_row_size(MP_GGML_TYPE_Q8_0, 64) == 68 && t->data &&
                    t->data == G.ggml_get_data(t) && G.ggml_nbytes(t) == 204;
    G.ggml_free(ctx);
    if (!layout_ok)
        FAIL("struct ggml_tensor layout differs from ggml-api.h");
    /* struct ggml_threadpool_params, with room to spare should it be larger */
    union {
        mp_ggml_threadpool_params p;
        char pad[4 * sizeof(mp_ggml_threadpool_params)];
    } tpp;
    memset(&tpp, 0x5a, sizeof tpp);
    G.ggml_threadpool_params_init(&tpp.p, 3);
    if (tpp.p.n_threads != 3 || tpp.p.prio != 0 || tpp.p.poll != 50 || tpp.p.strict_cpu ||
        tpp.p.paused || tpp.p.cpumask[0] || tpp.pad[sizeof tpp.p] != 0x5a)
        FAIL("struct ggml_threadpool_params layout differs from ggml-api.h");
    G.backend = G.ggml_backend_cpu_init();
    if (!G.backend)
        FAIL("ggml_backend_cpu_init failed (%s)", cpu_name);
    char ver[64];
    pkg_version(dir, ver, sizeof ver);
    fmt(G.desc, sizeof G.desc, "ggml %s (%s), %s (score %d), @node-llama-cpp/linux-x64 %s, %s",
             G.ggml_version(), G.ggml_commit(), cpu_name, score, ver, dir);
    atexit(cleanup);
    G.ok = 1;
}

int mp_llamacpp_available(char *why, size_t len)
{
    pthread_once(&G.once, load);
    if (G.ok)
        return 0;
    fmt(why, len, "%s", G.why);
    return -1;
}

const char *mp_llamacpp_describe(char *buf, size_t len)
{
    char why[512];
    if (mp_llamacpp_available(why, sizeof why))
        fmt(buf, len, "%s", why);
    else
        fmt(buf, len, "llama.cpp peer: %s", G.desc);
    return buf;
}

size_t mp_llamacpp_packed_size(int type, int m, int k)
{
    return (size_t)m * row_bytes(type, k);
}

int mp_llamacpp_quantize(int type, const int8_t *w, float w_scale, int m, int k, uint8_t *out)
{
    char why[512];
    if (mp_llamacpp_available(why, sizeof why))
        return -1;
    enum { CHUNK = 64 };
    size_t rb = row_bytes(type, k);
    float *f = malloc(sizeof(float) * (size_t)CHUNK * (size_t)k);
    if (!f)
        return -1;
    for (int r0 = 0; r0 < m; r0 += CHUNK) {
        int nr = m - r0 < CHUNK ? m - r0 : CHUNK;
        for (size_t i = 0; i < (size_t)nr * (size_t)k; i++)
            f[i] = (float)w[(size_t)r0 * (size_t)k + i] * w_scale;
        G.ggml_quantize_chunk(type, f, out + (size_t)r0 * rb, 0, nr, k, NULL);
    }
    free(f);
    return 0;
}

/* The OS index of the PU the harness's pool pins thread i to (harness/pool.c:
 * core i, its first PU; beyond the cores, PU i mod #PUs), or -1. */
static void pool_pus(int n, int *pu)
{
    hwloc_topology_t topo;
    for (int i = 0; i < n; i++)
        pu[i] = -1;
    if (hwloc_topology_init(&topo))
        return;
    if (hwloc_topology_load(topo) == 0) {
        int ncore = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        int npu = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
        for (int i = 0; i < n; i++) {
            hwloc_obj_t o = NULL;
            if (i < ncore)
                o = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, i);
            else if (npu > 0)
                o = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, i % npu);
            if (o && o->cpuset)
                pu[i] = hwloc_bitmap_first(o->cpuset);
        }
    }
    hwloc_topology_destroy(topo);
}

/* Under G.mu: the backend runs on a pinned threadpool of n threads. */
static void use_threads(int n)
{
    if (n < 1)
        n = 1;
    if (n > MAX_THREADS)
        n = MAX_THREADS;
    if (n == G.cur_threads)
        return;
    if (!G.tp[n]) {
        union {
            mp_ggml_threadpool_params p;
            char pad[4 * sizeof(mp_ggml_threadpool_params)];
        } tpp;
        G.ggml_threadpool_params_init(&tpp.p, n);
        /* ggml's strict placement gives workers 1..n-1 the set CPUs of the mask in
         * ascending order and the calling thread (worker 0) the next one, wrapping
         * around, and pins the calling thread there.  The caller is the harness's
         * thread 0, already pinned to pu[0]: so the mask holds pu[1..n-1] only
         * (one ggml worker on each of the harness's other PUs), and the caller's
         * own affinity is put back afterwards. */
        int pu[MAX_THREADS], pinned = 1;
        pool_pus(n, pu);
        for (int i = 1; i < n; i++)
            pinned &= pu[i] >= 0 && pu[i] < MP_GGML_MAX_N_THREADS && !tpp.p.cpumask[pu[i]];
        if (pinned && n > 1) {
            for (int i = 1; i < n; i++)
                tpp.p.cpumask[pu[i]] = true;
            tpp.p.strict_cpu = true;
        }
        long poll = mp_env_long("MPBENCH_GGML_POLL", -1); /* unset: ggml's default, 50 */
        if (poll >= 0)
            tpp.p.poll = (uint32_t)poll;
        cpu_set_t saved;
        int have_saved = pthread_getaffinity_np(pthread_self(), sizeof saved, &saved) == 0;
        G.tp[n] = G.ggml_threadpool_new(&tpp.p);
        if (have_saved)
            pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
        if (!G.tp[n]) {
            fprintf(stderr, "llama.cpp peer: ggml_threadpool_new(%d) failed\n", n);
            abort();
        }
    }
    G.ggml_backend_cpu_set_n_threads(G.backend, n);
    G.ggml_backend_cpu_set_threadpool(G.backend, G.tp[n]);
    if (G.cur_threads > 0)
        G.paused[G.cur_threads] = 1; /* ggml pauses the pool it switches from */
    G.cur_threads = n;
}

/* Under G.mu, before a compute: a paused pool is resumed here.  Left to ggml,
 * the compute would resume it itself, but then also pin the calling thread to
 * its worker 0's CPUs, which are the other workers' here (see use_threads):
 * every thread of the harness on one core (an end-to-end decode ran 6x slower). */
static void unpause(void)
{
    if (G.paused[G.cur_threads])
        G.ggml_threadpool_resume(G.tp[G.cur_threads]);
    G.paused[G.cur_threads] = 0;
}

/* Under G.mu: the cached graph y_i = mul_mat(W_i[rows x k], X[n x k]), i < ops. */
static graph *graph_for(int type, int rows, int k, int n, int ops)
{
    graph *lru = &G.graphs[0];
    for (int i = 0; i < MAX_GRAPHS; i++) {
        graph *g = &G.graphs[i];
        if (g->ctx && g->type == type && g->rows == rows && g->k == k && g->n == n &&
            g->ops == ops) {
            g->used = ++G.clock;
            return g;
        }
        if (!g->ctx || (lru->ctx && g->used < lru->used))
            lru = g;
    }
    if (lru->ctx)
        G.ggml_free(lru->ctx);
    memset(lru, 0, sizeof *lru);
    size_t mem = (size_t)(2 + 2 * ops) * G.ggml_tensor_overhead() + G.ggml_graph_overhead() + 4096;
    lru->ctx = G.ggml_init((mp_ggml_init_params){mem, NULL, true});
    if (!lru->ctx) {
        fprintf(stderr, "llama.cpp peer: ggml_init(%zu) failed\n", mem);
        abort();
    }
    lru->x = G.ggml_new_tensor_2d(lru->ctx, MP_GGML_TYPE_F32, k, n);
    lru->g = G.ggml_new_graph(lru->ctx);
    for (int i = 0; i < ops; i++) {
        lru->w[i] = G.ggml_new_tensor_2d(lru->ctx, type, k, rows);
        lru->y[i] = G.ggml_mul_mat(lru->ctx, lru->w[i], lru->x);
        G.ggml_build_forward_expand(lru->g, lru->y[i]);
    }
    lru->type = type, lru->rows = rows, lru->k = k, lru->n = n, lru->ops = ops;
    lru->used = ++G.clock;
    return lru;
}

typedef struct peer_act {
    const float *x;
} peer_act;

size_t mp_llamacpp_act_size(int n, int k, const int *param)
{
    (void)n, (void)k, (void)param;
    return sizeof(peer_act);
}

void mp_llamacpp_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1)
{
    (void)op, (void)n, (void)t1;
    if (t0 == 0) /* callers splitting tokens over threads all pass the same x */
        ((peer_act *)act)->x = x;
}

/* Takes G.mu for a compute on op->threads threads, awake (unpause: not ggml's
 * own resume, which pins the caller); aborts when the peer is not loaded. */
static void lock_for_compute(const mp_op *op)
{
    pthread_mutex_lock(&G.mu);
    if (!G.ok) {
        fprintf(stderr, "llama.cpp peer: compute called while %s\n", G.why);
        abort();
    }
    use_threads(op->threads);
    unpause();
}

void mp_llamacpp_compute(int type, const mp_op *op, const void *act, int n, float *y,
                         int m0, int m1)
{
    if (m0 >= m1)
        return;
    const int rows = m1 - m0, full = m0 == 0 && m1 == op->m;
    const size_t rb = row_bytes(type, op->k);
    float *out = y;
    if (!full) {
        out = malloc(sizeof(float) * (size_t)rows * (size_t)n);
        if (!out)
            abort();
    }
    lock_for_compute(op);
    graph *g = graph_for(type, rows, op->k, n, 1);
    g->w[0]->data = (void *)(op->w + (size_t)m0 * rb);
    g->x->data = (void *)((const peer_act *)act)->x;
    g->y[0]->data = out;
    int st = G.ggml_backend_graph_compute(G.backend, g->g);
    pthread_mutex_unlock(&G.mu);
    if (st != 0) /* hot path: no error return; NaN fails the output check loudly */
        for (size_t i = 0; i < (size_t)rows * (size_t)n; i++)
            out[i] = NAN;
    if (!full) {
        for (int t = 0; t < n; t++)
            memcpy(y + (size_t)t * (size_t)op->m + m0, out + (size_t)t * (size_t)rows,
                   sizeof(float) * (size_t)rows);
        free(out);
    }
}

void mp_llamacpp_compute_graph(int type, const mp_op *op, const uint8_t *const *w, int ops,
                               const void *act, int n, float *const *y)
{
    if (ops < 1 || ops > MP_LLAMACPP_MAX_OPS) {
        fprintf(stderr, "llama.cpp peer: a graph of %d mul_mats (1..%d)\n", ops,
                MP_LLAMACPP_MAX_OPS);
        abort();
    }
    lock_for_compute(op);
    graph *g = graph_for(type, op->m, op->k, n, ops);
    g->x->data = (void *)((const peer_act *)act)->x;
    for (int i = 0; i < ops; i++) {
        g->w[i]->data = (void *)w[i];
        g->y[i]->data = y[i];
    }
    int st = G.ggml_backend_graph_compute(G.backend, g->g);
    pthread_mutex_unlock(&G.mu);
    if (st != 0)
        for (int i = 0; i < ops; i++)
            for (size_t j = 0; j < (size_t)op->m * (size_t)n; j++)
                y[i][j] = NAN;
}

void mp_llamacpp_keep_awake(const mp_op *op, int awake)
{
    pthread_mutex_lock(&G.mu);
    if (G.ok) {
        use_threads(op->threads);
        if (!awake) {
            G.ggml_threadpool_pause(G.tp[G.cur_threads]); /* pollers see it and sleep */
            G.paused[G.cur_threads] = 1;
        } else if (G.cur_threads > 1) {
            /* resuming only wakes them; one tiny graph returns when every
             * worker has passed its barrier, i.e. is running and now polls */
            static float w[16 * 32], x[32], y[16];
            unpause();
            graph *g = graph_for(MP_GGML_TYPE_F32, 16, 32, 1, 1);
            g->w[0]->data = w, g->x->data = x, g->y[0]->data = y;
            G.ggml_backend_graph_compute(G.backend, g->g);
        }
    }
    pthread_mutex_unlock(&G.mu);
}
