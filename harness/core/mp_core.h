/* mp_core.h - the bottom of the mpbench program, what every subsystem folder
 * shares: statuses and errors, models and shapes, the machine, the thread pool,
 * the measured-point types (mp_result, mp_e2e_row) with their status names and
 * keys, the counter names a result carries, and small parsers.  Nothing here
 * calls into another folder of harness/ (scripts/check-layers.sh).  Functions at this boundary return status codes
 * (MP_OK, MP_EUSAGE for bad input, MP_ERUN for run-time failures, MP_EIO for a
 * database or file that cannot be read or written: unreadable, read-only,
 * corrupt, locked, disk full) and write a message naming the input into an
 * mp_err.  The codes are the process's exit codes (README "Exit codes"). */
#ifndef MP_CORE_H
#define MP_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../kernels/common/mp_parse.h"
#include "../../kernels/mp_kernel.h"

enum { MP_OK = 0, MP_ERUN = 1, MP_EUSAGE = 2, MP_EIO = 3 };

typedef struct mp_err {
    char msg[1024];
} mp_err;

/* Sets e->msg from a format and returns code. */
int mp_fail(mp_err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Prints "mpbench: MESSAGE" to stderr and returns code (for `return mp_die(...)`). */
int mp_die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* argv joined with spaces, for the runs table (a long line is cut with "..."). */
void mp_join_argv(int argc, char **argv, char *buf, size_t len);
/* Appends sep (when buf is not empty) and item to buf; MP_EUSAGE naming `what`
 * when it does not fit, never a silent cut. */
int mp_append(char *buf, size_t len, const char *item, const char *what, mp_err *e);
/* 1 when word is an item of list, the items separated by sep ("a|b|c"). */
int mp_list_has(const char *list, char sep, const char *word);
/* A finite number in [lo, hi] (NaN and inf refused), naming `what`. */
int mp_parse_double(const char *s, const char *what, double lo, double hi, double *out,
                    mp_err *e);
/* --clock-gate PCT (50..100) as the fraction mp_bench_opts.clock_gate takes. */
int mp_parse_clock_gate(const char *s, double *fraction, mp_err *e);
/* --shard I/N: 1 <= I <= N <= 1000000, digits only, overflow refused. */
int mp_parse_shard(const char *s, int *i, int *n, mp_err *e);
/* A comma-separated list of MxK shapes into out[max][2]; more than max, an
 * empty item or a bad shape is refused. */
int mp_parse_shape_list(const char *s, int (*out)[2], int max, int *count, mp_err *e);
/* 1 when a and b name the same existing file (through links, ./, symlinks). */
int mp_same_file(const char *a, const char *b);
/* The memory a command may plan to use: 3/4 of the machine's RAM (sysconf), or
 * MPBENCH_MEM_LIMIT_MB when set (tests). */
size_t mp_mem_limit(void);
/* Parse-only mode, for the CLI fuzz target (tests/fuzz/fuzz-cli.c) and its
 * tests; no option or variable of mpbench sets it.  Set, every command stops
 * with exit 0 once its arguments are parsed and validated, before it measures,
 * opens a database read-write, writes, renames or deletes a file, forks or
 * loads llama.cpp.  Commands call mp_parse_only_stop(NAME) at that point: it
 * returns 1 (and keeps NAME in mp_parse_only_stopped) in parse-only mode, else 0. */
extern int mp_parse_only;
extern const char *mp_parse_only_stopped;
int mp_parse_only_stop(const char *where);

/* ---- models (core/models.c) ---------------------------------------------- */
typedef struct mp_model {
    char name[64];
    char source[512];
    int hidden, intermediate, layers, heads, kv_heads, head_dim, vocab, max_pos;
    double rope_theta, norm_eps;
    char ffn_act[16]; /* "silu" or "relu2" */
    int tied, sub_norm;
} mp_model;

typedef struct mp_linear {
    const char *layer; /* "q", "k", "v", "o", "gate", "up", "down", "head" */
    int m, k;
    int ternary;       /* 0: kept in higher precision by the papers */
} mp_linear;

/* Directory of the model files: $MPBENCH_MODELS, ./models/shapes, or next to the binary. */
const char *mp_models_dir(void);
/* Loads models/shapes/NAME.txt (or a path containing '/'); a GGUF file is
 * gguf/'s (mp_model_load in gguf/mp_gguf.h takes both). */
int mp_model_load_text(const char *name_or_path, mp_model *m, mp_err *e);
/* All linear layers of one decoder layer plus the head: fills out[8]; returns count. */
int mp_model_linears(const mp_model *m, mp_linear *out);
/* Distinct ternary (M, K) shapes in order of first appearance; layers joined into
 * names[i] ("gate,up").  Returns count (<= 8). */
int mp_model_shapes(const mp_model *m, int shapes[][2], char names[][32]);
/* Lists model names (sorted) into a malloc'd array; returns count. */
int mp_model_list(char ***names);
/* MP_EIO naming it when the models folder (MPBENCH_MODELS) is not a folder. */
int mp_models_dir_check(mp_err *e);

/* ---- machine (core/machine.c) --------------------------------------------- */
typedef struct mp_machine {
    char cpu_model[128];
    char cpu_id[48];       /* "family 25 model 17" (x86), "implementer 0x41 part 0xd0c" */
    char isa_flags[256];   /* the flags that matter here, space separated */
    int cores, pus;
    int mem_gib;
    long l1d_kib, l2_kib, l3_kib; /* sanity-checked */
    char caches_note[256];        /* what was rejected and why */
    char fingerprint[64];         /* hash of model, cores, flags, memory, cpu_id */
    char hypervisor[160];
    char governor[64];
    double load_avg;
    char kernel[192];
    char compiler[64];
    char git_commit[48];
    char peers[512];       /* the llama.cpp build of the llamacpp.* peers, or why none */
} mp_machine;

void mp_machine_probe_info(mp_machine *m);
/* Warns on stderr about what makes timings untrustworthy (load, hypervisor). */
void mp_machine_warn(const mp_machine *m);
/* Last-level cache bytes to defeat with rotation (sanity-checked). */
size_t mp_machine_llc_bytes(const mp_machine *m);

/* ---- thread pool (core/pool.c) --------------------------------------------- */
typedef void (*mp_task_fn)(void *arg, int tid, int nthreads);
typedef struct mp_pool mp_pool;

/* Creates a pool of n threads (the caller is thread 0), pinned with hwloc: one
 * per core, then per PU.  binding receives a description. */
mp_pool *mp_pool_create(int n, char *binding, size_t len);
/* Runs fn(arg, tid, n) on all threads and waits for all. */
void mp_pool_run(mp_pool *p, mp_task_fn fn, void *arg);
int mp_pool_size(const mp_pool *p);
/* Idle workers stop spinning until the next mp_pool_run (issues 15, 37: a
 * self-threaded peer's own threads need the cores): with sleep, they sleep
 * (futex) and take no CPU, and the next run pays their wake-up; without, they
 * yield, cheap to resume but still taking turns on the CPU. */
void mp_pool_rest(mp_pool *p, int sleep);
void mp_pool_destroy(mp_pool *p);

/* The pool threads' kernel thread ids (for per-thread counters). */
const int *mp_pool_tids(const mp_pool *p);

/* ---- counter names (the events a result's values belong to) ------------------ */
/* An open counter set (engine/counters.c) starts with its event names and why
 * each is unavailable, so that results, the store and the output read them
 * without the engine (core/result.c). */
enum { MP_MAX_EVENTS = 16 };
typedef struct mp_counters mp_counters;
typedef struct mp_event_names {
    int n;
    char name[MP_MAX_EVENTS][96];
    char reason[MP_MAX_EVENTS][200]; /* empty when available */
} mp_event_names;
int mp_counters_n(const mp_counters *c);
const char *mp_counters_name(const mp_counters *c, int i);
/* NULL when available, else the reason it is not. */
const char *mp_counters_unavailable(const mp_counters *c, int i);

/* ---- measured points: what the engine measures, the store keeps and reports print */
typedef struct mp_case {
    const mp_variant *v;
    int param[MP_MAX_PARAMS];
} mp_case;

typedef struct mp_bench_opts {
    int min_reps;       /* default 9 */
    double min_time;    /* seconds per case, default 0.2 */
    double max_time;    /* seconds per case, default 10 */
    int warm;           /* 1: no rotation of weight copies */
    uint64_t seed;
    size_t llc_bytes;   /* from the machine, for rotation */
    double cv_threshold; /* robust CV above this after a second round: unstable */
    struct mp_counters *counters; /* NULL: none; else counted around every timed call */
    int quiet;
    int stream;         /* cold points with N <= 4: time a read stream of the 2-bit bytes
                         * interleaved with the variants (mp_result.read_gbps); default 1 */
    double clock_gate;  /* > 0: keep only calls made at full speed: the clock (engine/clock.c)
                         * before and after the call at least this fraction of the fastest
                         * seen; the others are discarded and retried (mp_result.slow_reps).
                         * 0 (default): every call is kept */
} mp_bench_opts;

typedef enum mp_status { MP_ST_OK, MP_ST_SKIPPED, MP_ST_FAILED, MP_ST_UNSTABLE } mp_status;

typedef struct mp_result {
    const mp_variant *v;
    char params[128];
    int m, k, n, threads, warm;
    double bpw;
    size_t packed_bytes;
    int copies;
    int reps;
    double median_us, min_us, max_us, mad_us, mean_us, cv;
    double gbps, gops;
    double max_rel_err, mean_rel_err; /* NaN when not applicable */
    mp_status status;
    char reason[256];
    double *times_us; /* reps entries, malloc'd */
    const struct mp_counters *counters; /* event names; values below are per call */
    double events[16];
    double model_gbps;    /* seed 003 eq. 3 prediction (VNNI, N = 1), else NaN or 0 */
    char model_note[128];
    /* the same-run read stream of this point (GB/s, median over reps interleaved
     * with the variants', of M*K/4 bytes rotated like the weights); 0: none */
    double read_gbps;
    long long read_bytes;
    /* with a clock gate: the median clock (G adds/s) of the kept calls, and how
     * many calls were discarded because the CPU ran slower than full speed */
    double clock_ghz;
    int slow_reps;
} mp_result;

/* core/result.c */
void mp_result_free(mp_result *r);
const char *mp_status_name(mp_status s);
/* The key of one measured point in a plan: "variant|params|m|k|n|threads". */
void mp_point_key(char *buf, size_t len, const char *variant, const char *params, int m, int k,
                  int n, int threads);


/* ---- rows of the e2e table (e2e/, engine/e2e-measure.c) ---------------------------------------------------- */
typedef struct mp_e2e_row {
    char model[64];
    char variant[256];   /* one name, or "qkv=..,o=..,ffn_up=..,ffn_down=.." */
    char method[64];
    int layers, model_layers;
    char test[32];       /* "pp64", "tg16", "tg16 b4", "lossless" */
    int n_prompt, n_gen, batch, threads, reps;
    double tps_median, tps_min, tps_max, tps_spread; /* spread: sample std dev */
    size_t model_bytes, ternary_bytes;
    double bpw;
    int prompts, tokens, matched; /* lossless check */
    double share;                 /* matched / prompts */
    /* lossless check, beside the exact match (issue 37): the variant decoded on
     * the reference's tokens (teacher-forced), its largest |logit - reference
     * logit| over every prompt, step and vocabulary entry, each step's
     * difference relative to that step's reference logit range (max - min);
     * exactly 0 when every logit is bit for bit the reference's, NAN when not
     * measured.  first_diff: the earliest generated token (1-based) at which
     * any prompt's argmax left the reference's token, 0 when none did, -1 when
     * not measured. */
    double logit_diff;
    int first_diff;
    /* lossless check (issue 39): of the prompts x tokens teacher-forced steps,
     * those whose argmax is the reference's token; -1 when not measured.
     * Exact match counts a prompt only when all its steps agree, so one near
     * tie anywhere in it loses the prompt: this says how often the variant
     * picks the reference's token, step by step. */
    int steps_matched;
    uint64_t seed;
    char status[16];     /* ok, skipped, failed */
    char reason[512];    /* what the row did: notes, the clock gate, the bound's reads */
    char times[512];     /* seconds per rep, comma separated */
    char lm_head[8];     /* f16, q8_0, q4_0 */
    /* issue 17: the memory bound of a decode row (bytes read per token / the
     * probe's read bandwidth at these threads) or, for prefill, the sum of its
     * GEMMs measured alone; share = tps_median / bound_tps.  0 when not known. */
    size_t token_bytes;
    double bw_gbs, bound_tps, bound_share;
    /* a decode row's read at its own moments: the best of the reads made just
     * before it (and beside its steps, when no probe is stored), GB/s; 0 when
     * not made.  bw_gbs takes the stored probe too, so it is the roof; this
     * says how much of it the host gave while the row ran (a shared VM's
     * bandwidth moves between levels over minutes: 2026-11-30 session note) */
    double bw_row_gbs;
    double setup_s;      /* the instance's build time (seconds) */
    char profile[512];   /* --profile: "group=seconds per token,..." */
} mp_e2e_row;

/* Output formats of tables (report/mp_output.h prints them). */
typedef enum mp_format { MP_FMT_TABLE, MP_FMT_CSV, MP_FMT_JSON, MP_FMT_MD } mp_format;

/* ---- small parsers (core/util.c) --------------------------------------------- */
/* "MxK" or "MxKxN"; n may be NULL when N is not allowed. */
int mp_parse_shape(const char *s, int *m, int *k, int *n, mp_err *e);
/* Positive int with a name for the message. */
int mp_parse_int(const char *s, const char *what, int lo, int hi, int *out, mp_err *e);
/* Comma-separated list of ints. */
int mp_parse_int_list(const char *s, const char *what, int lo, int hi, int *out, int max,
                      int *count, mp_err *e);
/* Variants matching comma-separated globs, in registry order, each once. */
int mp_select_variants(const char *globs, const mp_variant **out, int max, int *count,
                       mp_err *e);
double mp_now(void); /* monotonic seconds */

#endif
