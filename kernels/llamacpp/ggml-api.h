/* ggml-api.h - the few ggml entry points, types and enum values the llama.cpp
 * peer (llamacpp-peer.c) calls, declared here because ggml is not a build
 * dependency: its shared libraries are loaded at run time with dlopen from the
 * pinned npm package @node-llama-cpp/linux-x64@3.22.1 (ggml 0.25.1, commit
 * 0ad4a86; `make peers`).  Written from ggml's public headers (ggml.h,
 * ggml-cpu.h, ggml-backend.h): only what is used, nothing of ggml's code.
 *
 * What the declarations rely on, and how llamacpp-peer.c checks it before any
 * variant is declared available (a mismatch makes the peers unavailable with
 * the reason, never a wrong result):
 *   - enum ggml_type values (stable since ggml appends new types at the end):
 *     checked by name and block geometry through ggml_type_name,
 *     ggml_blck_size and ggml_type_size;
 *   - struct ggml_tensor up to `data` (type, buffer, ne[4], nb[4], op,
 *     op_params[16], flags, src[10], view_src, view_offs, data): checked on a
 *     real tensor against ggml_get_data, ggml_nbytes and ggml_row_size;
 *   - struct ggml_threadpool_params (cpumask[512], n_threads, prio, poll,
 *     strict_cpu, paused): checked against ggml_threadpool_params_init. */
#ifndef MP_GGML_API_H
#define MP_GGML_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    MP_GGML_TYPE_F32 = 0,
    MP_GGML_TYPE_F16 = 1,
    MP_GGML_TYPE_Q4_0 = 2,
    MP_GGML_TYPE_Q8_0 = 8,
    MP_GGML_TYPE_TQ1_0 = 34,
    MP_GGML_TYPE_TQ2_0 = 35,
};

enum {
    MP_GGML_MAX_DIMS = 4,
    MP_GGML_MAX_OP_PARAMS = 64, /* bytes */
    MP_GGML_MAX_SRC = 10,
    MP_GGML_MAX_N_THREADS = 512,
};

/* The leading fields of ggml's struct ggml_tensor, through `data`; tensors are
 * only ever created by ggml (ggml_new_tensor_2d), so the fields after `data`
 * (name, extra, padding) need not be declared. */
typedef struct mp_ggml_tensor {
    int type;
    void *buffer;
    int64_t ne[MP_GGML_MAX_DIMS];
    size_t nb[MP_GGML_MAX_DIMS];
    int op;
    int32_t op_params[MP_GGML_MAX_OP_PARAMS / sizeof(int32_t)];
    int32_t flags;
    struct mp_ggml_tensor *src[MP_GGML_MAX_SRC];
    struct mp_ggml_tensor *view_src;
    size_t view_offs;
    void *data;
} mp_ggml_tensor;

typedef struct mp_ggml_init_params {
    size_t mem_size;
    void *mem_buffer;
    bool no_alloc;
} mp_ggml_init_params;

typedef struct mp_ggml_threadpool_params {
    bool cpumask[MP_GGML_MAX_N_THREADS];
    int n_threads;
    int prio;      /* enum ggml_sched_priority, 0 = normal */
    uint32_t poll; /* 0 = no polling: idle workers sleep */
    bool strict_cpu;
    bool paused;
} mp_ggml_threadpool_params;

/* Opaque handles. */
typedef struct mp_ggml_context mp_ggml_context;
typedef struct mp_ggml_cgraph mp_ggml_cgraph;
typedef struct mp_ggml_backend mp_ggml_backend;
typedef struct mp_ggml_threadpool mp_ggml_threadpool;

/* The entry points, as function-pointer types filled by dlsym.  The first group
 * lives in libggml-base.so, the second in the chosen libggml-cpu-<uarch>.so. */
#define MP_GGML_BASE_FUNCS(X)                                                            \
    X(const char *, ggml_version, (void))                                                \
    X(const char *, ggml_commit, (void))                                                 \
    X(const char *, ggml_type_name, (int type))                                          \
    X(int64_t, ggml_blck_size, (int type))                                               \
    X(size_t, ggml_type_size, (int type))                                                \
    X(size_t, ggml_row_size, (int type, int64_t ne))                                     \
    X(size_t, ggml_nbytes, (const mp_ggml_tensor *t))                                    \
    X(void *, ggml_get_data, (const mp_ggml_tensor *t))                                  \
    X(size_t, ggml_tensor_overhead, (void))                                              \
    X(size_t, ggml_graph_overhead, (void))                                               \
    X(mp_ggml_context *, ggml_init, (mp_ggml_init_params p))                             \
    X(void, ggml_free, (mp_ggml_context * ctx))                                          \
    X(mp_ggml_tensor *, ggml_new_tensor_2d, (mp_ggml_context * ctx, int type, int64_t ne0, \
                                             int64_t ne1))                                 \
    X(mp_ggml_tensor *, ggml_mul_mat, (mp_ggml_context * ctx, mp_ggml_tensor * a,          \
                                       mp_ggml_tensor * b))                                \
    X(mp_ggml_cgraph *, ggml_new_graph, (mp_ggml_context * ctx))                          \
    X(void, ggml_build_forward_expand, (mp_ggml_cgraph * g, mp_ggml_tensor * t))          \
    X(size_t, ggml_quantize_chunk, (int type, const float *src, void *dst, int64_t start, \
                                    int64_t nrows, int64_t n_per_row, const float *imatrix)) \
    X(int, ggml_backend_graph_compute, (mp_ggml_backend * b, mp_ggml_cgraph * g))        \
    X(void, ggml_backend_free, (mp_ggml_backend * b))

#define MP_GGML_CPU_FUNCS(X)                                                             \
    X(int, ggml_backend_score, (void))                                                   \
    X(mp_ggml_backend *, ggml_backend_cpu_init, (void))                                  \
    X(void, ggml_backend_cpu_set_n_threads, (mp_ggml_backend * b, int n))                \
    X(void, ggml_backend_cpu_set_threadpool, (mp_ggml_backend * b, mp_ggml_threadpool * tp)) \
    X(void, ggml_threadpool_params_init, (mp_ggml_threadpool_params * p, int n))         \
    X(mp_ggml_threadpool *, ggml_threadpool_new, (mp_ggml_threadpool_params * p))        \
    X(void, ggml_threadpool_free, (mp_ggml_threadpool * tp))                            \
    X(void, ggml_threadpool_pause, (mp_ggml_threadpool * tp))                           \
    X(void, ggml_threadpool_resume, (mp_ggml_threadpool * tp))

#endif
