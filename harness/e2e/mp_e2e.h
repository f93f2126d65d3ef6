/* mp_e2e.h - the end-to-end runner: a BitNet-style decoder with the exact
 * architecture of a model file and synthetic seeded weights, whose seven ternary
 * linear layers per decoder layer run through chosen registry variants (or the
 * reference arithmetic), plus the pieces `mpbench e2e` and its tests need:
 * memory estimate, greedy decoding, the lossless check and the e2e store rows.
 * See harness/e2e.c for the design and DESIGN.md "End-to-end runner". */
#ifndef MP_E2E_H
#define MP_E2E_H

#include <stddef.h>
#include <stdint.h>

#include "mp_e2e_head.h"
#include "../core/mp_core.h"

/* The seven ternary linear layers of one decoder layer, in execution order. */
typedef enum mp_e2e_lin {
    MP_E2E_Q, MP_E2E_K, MP_E2E_V, MP_E2E_O, MP_E2E_GATE, MP_E2E_UP, MP_E2E_DOWN,
    MP_E2E_NLIN
} mp_e2e_lin;

/* What runs one linear layer type: a registry variant with parameter values,
 * or v == NULL for the reference arithmetic (mp_ref_gemm_q).  binary selects
 * ±1 weights for a reference that stands in for an int1-domain variant. */
typedef struct mp_e2e_choice {
    const mp_variant *v;
    int param[MP_MAX_PARAMS];
    int binary;
} mp_e2e_choice;

/* Where the runner's weights come from (issue 19).  NULL in the spec means the
 * synthetic seeded weights (mp_e2e_synthetic); harness/gguf-model.c gives a
 * GGUF file's real weights.  Each callback fills its output completely and
 * returns MP_OK, or an error naming the input.  norm's which: 0 attn_norm,
 * 1 ffn_norm, 2 attn_sub_norm (qd floats), 3 ffn_sub_norm (intermediate
 * floats), 4 the final norm (layer ignored).  matrix's which: 0 the
 * embedding, 1 the untied head (rows x cols bf16).  ternary: the weights of
 * linear lin of layer (M x K, row-major, {-1,0,1}, or ±1 when binary) and
 * their one scale.  The callbacks may be called from several pool threads at
 * once (different tensors, or different rows of one matrix): they must not
 * share mutable state. */
typedef struct mp_e2e_source {
    void *ctx;
    uint64_t seed;
    const char *name;   /* for messages: the file, or NULL for the synthetic weights */
    int ternary_only;   /* cannot give ±1 weights: int1-domain variants are refused */
    int (*matrix)(const struct mp_e2e_source *s, int which, uint16_t *out, int rows, int cols,
                  mp_err *e);
    int (*norm)(const struct mp_e2e_source *s, int which, int layer, float *out, int n,
                mp_err *e);
    int (*ternary)(const struct mp_e2e_source *s, int layer, int lin, int binary, int8_t *w,
                   int m, int k, float *scale, mp_err *e);
    /* Optional: rows [r0, r1) of matrix which (out holds those rows only), so
     * the embedding and head are generated in parallel; NULL: matrix() whole. */
    int (*matrix_rows)(const struct mp_e2e_source *s, int which, uint16_t *out, int r0, int r1,
                       int cols, mp_err *e);
    /* Identity of the weights for the on-disk packed-weight cache ("synthetic"
     * with the seed); NULL: never cached (a file's weights). */
    const char *cache_id;
} mp_e2e_source;

/* The synthetic seeded weights every e2e run used before GGUF files. */
void mp_e2e_synthetic(uint64_t seed, mp_e2e_source *src);

/* The weights of one run, generated once and shared by all its variants
 * (harness/e2e-share.c): a source that remembers what `inner` gave - the
 * embedding and head (bf16, generated in parallel on the pool at creation) and
 * every ternary tensor as 2-bit codes (on first request) - and gives it again
 * without generating.  Same values as inner, bit for bit. */
int mp_e2e_shared_create(const mp_e2e_source *inner, const mp_model *md, int layers,
                         mp_pool *pool, mp_e2e_source **out, mp_err *e);
void mp_e2e_shared_free(mp_e2e_source *s);
/* Bytes the shared copy holds for `layers` layers of md. */
size_t mp_e2e_shared_bytes(const mp_model *md, int layers);

typedef struct mp_e2e_spec {
    mp_model model;     /* architecture (model.layers is the file's count) */
    const mp_e2e_source *src; /* NULL: synthetic weights from seed */
    int layers;         /* decoder layers actually built: 1..model.layers */
    uint64_t seed;      /* all synthetic weights derive from it */
    mp_e2e_choice lin[MP_E2E_NLIN];
    int max_seqs;       /* sequences with their own KV cache (parallel decoding) */
    int max_ctx;        /* positions per sequence */
    int max_tokens;     /* tokens per forward call (prefill chunk / batch) */
    int threads;        /* pool size the instance will be run with */
    mp_e2e_head_fmt head; /* embedding/head precision (--lm-head), default f16 */
    const char *cache_dir; /* packed-weight cache directory, NULL: none */
    int shared;         /* estimate only: the run keeps a shared copy (mp_e2e_shared_create) */
    int bound_read;     /* estimate only: decode rows read beside each step (e2e-measure.c) */
    size_t ref_logits;  /* estimate only: bytes the lossless check keeps beside the instance
                           (the reference's logits of every prompt, e2e-lossless.c) */
} mp_e2e_spec;

/* The decode bound's read beside each step: min(bytes per token, this). */
#define MP_E2E_BOUND_READ_CAP ((size_t)1 << 30)

/* Bytes the instance will allocate, by part. */
typedef struct mp_e2e_mem {
    size_t ternary;     /* packed ternary weights, all layers */
    size_t floats;      /* embedding, head (bf16) and norm weights */
    size_t kv;          /* KV cache for max_seqs x max_ctx */
    size_t scratch;     /* activations, variant act/scratch, RoPE table, logits rows */
    size_t staging;     /* transient: int8 weights of the largest tensor per thread while packing */
    size_t shared;      /* the run's shared copy of the weights (spec.shared) */
    size_t bound_read;  /* after setup: the decode bound's read buffer (spec.bound_read) */
    size_t ref_logits;  /* the lossless check's reference logits (spec.ref_logits) */
    size_t total;       /* staging and bound_read never coexist: the larger counts */
    double ternary_weights; /* count of ternary weights, for bpw */
} mp_e2e_mem;

typedef struct mp_e2e mp_e2e;

/* How the instance was built: wall time of mp_e2e_create and what the packed-
 * weight cache did per linear type (one cache file each). */
typedef struct mp_e2e_setup {
    double seconds;
    int cache_hit, cache_miss, cache_stale, cache_corrupt, cache_written;
    char cache_note[256]; /* what was detected, for a warning */
    size_t kept;          /* bytes of embedding/head/packed arena taken from the last
                             freed instance (e2e.c "weight buffers ... kept") */
} mp_e2e_setup;

/* The --profile groups, each forward call's wall time split over them (see
 * harness/e2e.c "Profile"). */
enum {
    MP_E2E_P_QKV, MP_E2E_P_O, MP_E2E_P_FFN_UP, MP_E2E_P_FFN_DOWN, /* ternary linears */
    MP_E2E_P_ACT_QUANT,  /* the variants' prepare: activation quantization, tables */
    MP_E2E_P_LM_HEAD,    /* the head GEMV and the argmax */
    MP_E2E_P_EMBED,      /* embedding rows */
    MP_E2E_P_ATTN,       /* RoPE, KV store, attention */
    MP_E2E_P_NORMS,      /* RMSNorms; the residual adds and the FFN activation run in
                            the o/ffn_down and ffn_up tasks (counted there) except
                            next to a peer library's linear */
    MP_E2E_P_SYNC,       /* pool tasks' wall time beyond the threads' mean busy time */
    MP_E2E_P_OTHER,      /* the rest of the timed interval */
    MP_E2E_NPROF
};
extern const char *const mp_e2e_prof_name[MP_E2E_NPROF];
/* Parses a row's stored profile text ("qkv=0.0059,o=0.0040,...", seconds per
 * token) into sec[] by group (groups not named stay 0).  Returns the number of
 * groups read, -1 when an item is not "known-group=number". */
int mp_e2e_profile_parse(const char *text, double sec[MP_E2E_NPROF]);

/* Parses "qkv=NAME,o=NAME,ffn_up=NAME,ffn_down=NAME" (any subset) into
 * per-linear choices (ffn_up covers gate and up); set[] marks what was given.
 * Errors name the item. */
int mp_e2e_parse_variant_for(const char *s, mp_e2e_choice *lin, int *set, mp_err *e);
/* Checks every linear of the spec: variant available, shape accepted, sizes
 * sane.  Errors name the layer, its shape, the variant and why (MP_EUSAGE). */
int mp_e2e_check(const mp_e2e_spec *s, mp_err *e);
/* Memory the spec needs, computed without allocating. */
void mp_e2e_estimate(const mp_e2e_spec *s, mp_e2e_mem *m);
/* MemAvailable from /proc/meminfo in bytes, 0 when unknown. */
size_t mp_e2e_mem_available(void);
/* Refuses (MP_EUSAGE, message with the parts and a hint) when the estimate
 * exceeds MemAvailable minus a margin. */
int mp_e2e_mem_check(const mp_e2e_spec *s, mp_err *e);
/* The same check for n instances built at once (e2e --interleave): sum holds
 * their estimates' parts added (packing and shared: the largest, made one at a
 * time and shared). */
int mp_e2e_mem_check_sum(const mp_e2e_spec *s, const mp_e2e_mem *sum, int n, mp_err *e);

/* Builds the instance: synthetic weights packed once per linear with its
 * variant; every buffer the forward pass needs is allocated here. */
int mp_e2e_create(const mp_e2e_spec *s, mp_pool *pool, mp_e2e **out, mp_err *e);
void mp_e2e_free(mp_e2e *m);
/* Frees the weight buffers mp_e2e_free keeps for the next instance of about
 * the same size and the same threads (e2e.c); the end of a run calls it. */
void mp_e2e_spares_free(void);
/* Empties every sequence's KV cache. */
void mp_e2e_reset(mp_e2e *m);
int mp_e2e_vocab(const mp_e2e *m);
const mp_e2e_mem *mp_e2e_memory(const mp_e2e *m); /* what was really allocated */

/* One forward pass over n tokens: tok[i] is appended to sequence seq[i] at its
 * next position (tokens of one sequence in order).  Logits (vocab floats) are
 * computed for the tokens with want[i] != 0 (want NULL: all) and written, in
 * order, as consecutive rows of logits.  Returns MP_EUSAGE when n exceeds
 * max_tokens, a sequence would exceed max_ctx, or a token is out of range.
 * Does not allocate. */
int mp_e2e_forward(mp_e2e *m, const int *tok, const int *seq, int n, const unsigned char *want,
                   float *logits);
/* Index of the largest logit (the lowest index on ties). */
int mp_e2e_argmax(const float *logits, int vocab);
/* The argmax of each logits row of the last forward call (computed in parallel
 * with the head, equal to mp_e2e_argmax of the row). */
const int *mp_e2e_tokens(const mp_e2e *m);
const mp_e2e_setup *mp_e2e_setup_info(const mp_e2e *m);
/* 1 when weight-sized buffers ask for 2 MiB pages (the default;
 * MPBENCH_E2E_HUGEPAGES=0 turns it off): the decode bound's read probe uses
 * the same kind of pages. */
int mp_e2e_huge_pages(void);
/* --profile: on = 1 clears the per-group accumulators and starts adding every
 * forward call's time to them; get copies the seconds (MP_E2E_NPROF). */
void mp_e2e_profile(mp_e2e *m, int on);
void mp_e2e_profile_get(const mp_e2e *m, double *sec);
/* Wall seconds of every ternary linear of every layer run alone (prepare and
 * compute, grouped as in a forward call) on n tokens of seeded activations,
 * then of the head on head_rows (<= n) of them (its input prepared, the rows
 * dotted, the argmax; logits holds head_rows x vocab floats): the "sum of the
 * GEMMs measured alone" a prefill row is compared with.  Touches no KV cache;
 * 0 for arguments out of range. */
double mp_e2e_gemm_seconds(mp_e2e *m, int n, int head_rows, float *logits);

/* Greedy decoding of one prompt: prefill, then gen tokens (out[gen]).
 * logits_buf holds vocab floats. Uses sequence 0; resets the cache first. */
int mp_e2e_greedy(mp_e2e *m, const int *prompt, int plen, int gen, int *out, float *logits_buf);

/* The seeded random prompts of the lossless check: prompt p has length
 * MP_E2E_PROMPT_MIN..MP_E2E_PROMPT_MAX and tokens in [0, vocab). */
enum { MP_E2E_PROMPT_MIN = 8, MP_E2E_PROMPT_MAX = 16 };
int mp_e2e_prompt(uint64_t seed, int p, int vocab, int *tok);

#endif
