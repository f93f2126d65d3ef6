/* mp_kernel.h - the kernel contract every mpbench variant implements.
 *
 * A variant is one row of the registry (variants/): identity, the weight domain
 * and shape constraints it accepts, its runtime-tunable parameters, and five
 * function slots (pack, prepare, compute, plus sizes).  The harness never knows
 * a kernel's internals: it packs the canonical ternary weights once, calls
 * prepare on the activations (timed), then compute on row ranges split over
 * threads (timed).  See ../shared/DESIGN.md "The kernel contract".
 *
 * Canonical layouts at the boundary: weights M x K int8 row-major with values in
 * {-1,0,1} (ternary) or {-1,1} (binary) and one float scale per tensor;
 * activations X are N x K float row-major; outputs Y are N x M float row-major.
 */
#ifndef MP_KERNEL_H
#define MP_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>

enum {
    MP_MAX_PARAMS = 8,        /* tunable parameters per variant */
    MP_MAX_PARAM_VALUES = 16, /* allowed values per parameter */
};

/* ISA features a path needs; a variant is runnable when all its bits are present. */
typedef enum mp_isa_bits {
    MP_ISA_SCALAR = 0,
    MP_ISA_AVX2 = 1u << 0,       /* avx2 + fma + f16c */
    MP_ISA_AVX512 = 1u << 1,     /* avx512 f/bw/vl/dq */
    MP_ISA_AVXVNNI = 1u << 2,    /* avx-vnni (VEX-encoded vpdpbusd) */
    MP_ISA_AVX512VNNI = 1u << 3, /* avx512-vnni */
    MP_ISA_NEON = 1u << 4,       /* AArch64 Advanced SIMD (every AArch64 CPU) */
    MP_ISA_DOTPROD = 1u << 5,    /* Armv8.2 FEAT_DotProd: sdot/udot */
    MP_ISA_I8MM = 1u << 6,       /* Armv8.6 FEAT_I8MM: smmla/usmmla */
} mp_isa_bits;

/* The families, one line each: enum suffix, the name results carry, what it
 * holds.  The enum, the catalog's list of tables (variants/catalog.h: one table
 * mp_catalog_<name> per line), mp_family_name and the help of `list variants`
 * are all generated from this list; adding a family is one line here and one
 * table in variants/<name>.c. */
#define MP_FAMILIES(X)                                                                  \
    X(BASELINE, baseline, "F32 and the naive 2-bit floor (seed 002)")                   \
    X(MAD, mad, "multiply-add: I2_S, TQ1_0, TQ2_0, Q4_0, Q8_0, F16 (seed 004 §2)")      \
    X(BITLUT, bitlut, "bit-wise LUT: T-MAC (seed 001 §2.2)")                             \
    X(ELUT, elut, "element-wise LUT: TL1_0, TL1_1, TL2_0, TL2_1 (seed 000 §3)")          \
    X(VECLUT, veclut, "vector LUT: VLUT_I2, VLUT_I1 (seed 001 §3-4)")                    \
    X(VNNI, vnni, "up-convert to int8 dot products: VNNI_INT2, VNNI_INT1 (seed 003)")    \
    X(PEER, peer, "another library's own kernels (llama.cpp's ggml), for comparison")

/* The compute slot of every ISA token a variant name may carry:
 * MP_DECLARE_COMPUTE(mp_f32_gemm) declares mp_f32_gemm__scalar, __avx2, ...,
 * __i8mm, so a family's header never lists its paths one by one and a new ISA
 * path is its kernel file (which defines the function) and its catalog row
 * (which names it), nothing else.  Declared but undefined paths cost nothing. */
#define MP_COMPUTE_ARGS                                                             \
    const struct mp_op *op, const void *act, int n, float *y, int m0, int m1,       \
        void *scratch
#define MP_DECLARE_COMPUTE(fn)                                                      \
    void fn##__scalar(MP_COMPUTE_ARGS);                                             \
    void fn##__avx2(MP_COMPUTE_ARGS);                                               \
    void fn##__avx512(MP_COMPUTE_ARGS);                                             \
    void fn##__avxvnni(MP_COMPUTE_ARGS);                                            \
    void fn##__avx512vnni(MP_COMPUTE_ARGS);                                         \
    void fn##__neon(MP_COMPUTE_ARGS);                                               \
    void fn##__dotprod(MP_COMPUTE_ARGS);                                            \
    void fn##__i8mm(MP_COMPUTE_ARGS)

typedef enum mp_family {
#define MP_FAMILY_ENUM_(E, name, doc) MP_FAMILY_##E,
    MP_FAMILIES(MP_FAMILY_ENUM_)
#undef MP_FAMILY_ENUM_
    MP_FAMILY_COUNT
} mp_family;

typedef enum mp_domain {
    MP_DOMAIN_TERNARY, /* {-1,0,1} */
    MP_DOMAIN_BINARY,  /* {-1,1}, the int1 domain */
} mp_domain;

/* How a variant's outputs are judged (DESIGN.md "Numerics"). */
typedef enum mp_exactness {
    MP_LOSSLESS, /* equal to the int8 reference bit for bit */
    MP_LOSSY,    /* error against the int8 reference is reported */
    MP_FLOAT,    /* float baseline: error against a double-precision float product */
} mp_exactness;

typedef struct mp_param_def {
    const char *name;
    int def;                          /* default value, one of values[] */
    int n_values;
    int values[MP_MAX_PARAM_VALUES];  /* the space the tuner explores */
    const char *doc;
    /* Left out of the params string (mp_params_str) while at def: a parameter a
     * variant gained after results were stored under strings without it, so
     * those rows keep their keys (resumed sweeps, compare, the report's
     * default rows, tuned configs). */
    bool omit_default;
} mp_param_def;

/* The hint of a weight stream's software prefetch: the values of the "pfh"
 * parameter every x86 SIMD row that streams weights has beside its distance
 * "pf" (README.md, "Parameters"; kernels/common/mp_x86.h, mp_x86_prefetch). */
enum { MP_PFH_T0, MP_PFH_T1, MP_PFH_T2, MP_PFH_NTA };

struct mp_variant;

/* One packed weight tensor bound to a variant and its parameter values. */
typedef struct mp_op {
    const struct mp_variant *v;
    int m, k;
    float w_scale;
    const uint8_t *w;          /* packed bytes (v->packed_size long) */
    int param[MP_MAX_PARAMS];  /* values, indexed like v->params */
    int threads;               /* self_threaded variants only: threads to use (0 = 1) */
} mp_op;

typedef struct mp_variant {
    const char *name;      /* lowercase method, ISA, fixed parameters: "i2_s.avx2" */
    const char *method;    /* as the papers write it: "I2_S" */
    int wformat;           /* weight format: its traits row (variants/mp_formats.h); 0 = none */
    mp_family family;
    unsigned isa;          /* mp_isa_bits needed */
    mp_exactness exactness;
    mp_domain domain;
    int k_multiple;        /* K must be a multiple of this (1 = any) */
    int m_align;           /* compute row ranges start at multiples of this */
    const char *source;    /* paper section it implements, e.g. "seed 004 §2" */
    /* Where the slots are defined, "file:function" with the file from the top of
     * the tree ("kernels/tl/tl-avx2.c:mp_tl_gemm__avx2"): the catalog row says it
     * (variants/catalog.h, MP_SOURCES); `mpbench list variants --source` prints it. */
    const char *pack_src, *prepare_src, *compute_src;
    /* How a SIMD path may differ from its scalar sibling, relative to max|y|:
     * 0 = bit for bit (the default; integer paths must use it).  A float path
     * whose summation order differs sets a bound and justifies it in its test. */
    double sibling_tol;

    int n_params;
    mp_param_def params[MP_MAX_PARAMS];

    /* Optional extra shape/parameter check beyond k_multiple; returns 0 when ok,
     * otherwise writes the reason to why. */
    int (*check)(int m, int k, const int *param, char *why, size_t len);

    /* Bytes of the packed tensor; everything stored per tensor counts (bpw). */
    size_t (*packed_size)(int m, int k, const int *param);
    /* Offline transform of canonical weights w (M x K) into out. */
    void (*pack)(const int8_t *w, float w_scale, int m, int k, const int *param,
                 uint8_t *out);
    /* Optional inverse of pack, for layout tests. */
    void (*unpack)(const uint8_t *packed, int m, int k, const int *param, int8_t *w);

    /* Per-call activation work for tokens [t0, t1) of X (N x K floats) into act,
     * which holds act_size(n, k) bytes.  Timed.  Threads may call it on disjoint
     * token ranges concurrently. */
    size_t (*act_size)(int n, int k, const int *param);
    void (*prepare)(const mp_op *op, const float *x, int n, void *act, int t0, int t1);

    /* Output rows [m0, m1) for all N tokens into Y (N x M floats).  m0 is a
     * multiple of m_align; m1 is too, or m1 == M.  scratch is per thread,
     * scratch_size(n, k) bytes, 64-byte aligned. */
    size_t (*scratch_size)(int n, int k, const int *param);
    void (*compute)(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                    void *scratch);

    /* Optional: the analytic parameter choice for a problem and this machine's
     * caches (e.g. seed 001 §4's K_tile/N_tile rule), the tuner's "model" start.
     * param holds the defaults on entry. */
    void (*suggest)(int m, int k, int n, long l1d_bytes, long l2_bytes, int *param);

    /* Extension for peers, i.e. another library's kernels (issue 15: llama.cpp's
     * ggml, which threads itself).  Zero/NULL for every mpbench kernel.
     *
     * self_threaded: the harness calls prepare once for all tokens and compute
     * once for all rows [0, M) from its calling thread, with op->threads set to
     * its thread count; the variant runs its own threads (pinned like the
     * harness's).  compute must still give correct rows for any [m0, m1) it is
     * called with (tests and the end-to-end runner split rows), and must be safe
     * to call concurrently (it may serialize). */
    int self_threaded;
    /* Optional, self_threaded only (issue 37): where the library's own threads
     * wait until its next call.  awake = 1: running and polling for work, as they
     * are between two ops of inference (llama.cpp's threads never sleep inside
     * a token); the function returns when they are.  awake = 0: asleep, taking
     * no CPU from the code that runs next; a later compute wakes them itself.
     * The bench engine calls (op, 1) before a timed call and (op, 0) after it,
     * outside the time; the end-to-end runner (op, 0) after each linear. */
    void (*keep_awake)(const mp_op *op, int awake);
    /* Optional run-time availability beyond the ISA bits (a library that may be
     * absent): 0 when usable, otherwise writes the reason to why. */
    int (*available)(char *why, size_t len);
} mp_variant;

/* op's value of its variant's parameter `name`, or def when the variant has no
 * such parameter: a compute reads pf and pfh this way, wherever they sit in its
 * row's list.  Once per call, never per row. */
static inline int mp_op_param(const mp_op *op, const char *name, int def)
{
    for (int i = 0; i < op->v->n_params; i++)
        if (!strcmp(op->v->params[i].name, name))
            return op->param[i];
    return def;
}

/* The machine probe's inner loops (kernels/probe/, one table per ISA), what
 * rooflines need; not a variant family.  The engine gets the widest the CPU
 * has from the registry (mp_registry_probe_ops). */
typedef struct mp_probe_ops {
    const char *isa;
    /* Reads n bytes (multiple of 256, 64-byte aligned); returns a value that
     * depends on every byte so the loads cannot be removed. */
    uint64_t (*read)(const void *p, size_t n);
    /* The same read with a software prefetch MP_PROBE_PF_DIST bytes ahead of
     * the loads (read_pf: prefetcht0, into every level) or with non-temporal
     * loads and a non-temporal prefetch ahead (read_nt: movntdqa, prefetchnta);
     * NULL where the ISA has no such loop.  A prefetch past the end of the
     * buffer is harmless (prefetches do not fault). */
    uint64_t (*read_pf)(const void *p, size_t n);
    uint64_t (*read_nt)(const void *p, size_t n);
    /* dst = src, n bytes (multiple of 256, aligned). */
    void (*copy)(void *dst, const void *src, size_t n);
    /* a = b + s * c over n floats (multiple of 64, aligned). */
    void (*triad)(float *a, const float *b, const float *c, float s, size_t n);
    /* Runs iters rounds of 12 independent int8 dot-product instructions; returns
     * the multiply-adds done (each counts 2 ops). */
    double (*dot)(long iters);
    /* Runs iters rounds of 12 independent byte shuffles; returns bytes shuffled. */
    double (*shuffle)(long iters);
} mp_probe_ops;

/* How far ahead the probe's prefetching reads prefetch: the kernels' default
 * prefetch distance (the catalog's pf = 8192), so that a kernel's prefetched
 * stream is never a read method the probe did not try. */
enum { MP_PROBE_PF_DIST = 8192 };

/* One way of reading memory the bandwidth probe tries (the registry lists the
 * ones this CPU runs, mp_registry_probe_reads): the roof is the best of them. */
typedef struct mp_probe_read {
    const char *name; /* "plain", "wide", "pf", "nt": the suffix of its probe kinds */
    uint64_t (*read)(const void *p, size_t n);
} mp_probe_read;

#endif
