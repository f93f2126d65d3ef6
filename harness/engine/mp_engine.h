/* mp_engine.h - the measurement engine every command runs on: plan -> measure
 * -> store (DESIGN.md "Layout": harness/).
 *
 * A plan is a list of points.  A kernel point is (variant, parameter values,
 * M, K, N, threads, cache mode); points of one problem (M, K, N, threads) are
 * measured together, their repetitions interleaved (engine/measure.c).  The
 * engine stores each problem's results as soon as they are measured, skips
 * points a resumable plan already stored (its key is stored with every row),
 * shows progress on a terminal, stops cleanly on SIGINT/SIGTERM, and prints for
 * every failed point a one-line command that re-runs exactly that point.
 * `run` and `sweep` are kernel plans; `tune` measures through the same
 * sessions behind the tuner's cost function (engine/tune.c); `e2e` plans
 * (variant, test) points of the decoder (engine/e2e-plan.c); `probe` measures
 * the machine (engine/probe.c).  Commands only parse, plan, and print. */
#ifndef MP_ENGINE_H
#define MP_ENGINE_H

#include <stdarg.h>

#include "../core/mp_bigmem.h"
#include "../e2e/mp_e2e.h"
#include "../core/mp_core.h"
#include "../store/mp_store.h"

/* ---- measuring one point (engine/measure.c) ---------------------------------- */
void mp_bench_defaults(mp_bench_opts *o);
/* Bytes one point needs before rotation copies (weights, activations,
 * outputs, oracles, one packed copy, prepared activations and scratch of
 * every case), as a double so no shape overflows it.  The engine refuses a
 * point beyond mp_mem_limit() (its cases are skipped with the reason). */
double mp_bench_memory(const mp_case *cases, int ncase, int m, int k, int n, int threads);
/* Measures every case on one problem (m, k, n) with the pool's threads; results
 * has ncase entries.  Repetitions of the cases are interleaved in random order. */
int mp_bench_point(mp_pool *pool, const mp_case *cases, int ncase, int m, int k, int n,
                   const mp_bench_opts *o, mp_result *results, mp_err *e);

/* The same engine in steps, for the tuner: open packs and checks every case
 * (res[i] gets bpw, errors, status); rounds does what mp_bench_point does after
 * that (interleaved timing into res, may be called again to re-measure);
 * time1 is one timed call of case i, in seconds, recorded nowhere. */
typedef struct mp_session mp_session;
int mp_session_open(mp_pool *pool, const mp_case *cases, int ncase, int m, int k, int n,
                    const mp_bench_opts *o, mp_result *res, mp_session **out, mp_err *e);
int mp_session_ready(const mp_session *s, int i); /* packed, correct, timeable */
void mp_session_rounds(mp_session *s);
double mp_session_time1(mp_session *s, int i);
void mp_session_close(mp_session *s);

/* Fills model_gbps / model_note of the VNNI GEMV results (engine/model.c). */
void mp_model_annotate(mp_result *r, int n, mp_pool *pool, mp_store *store,
                       const mp_machine *mach);

/* ---- progress (engine/progress.c) ----------------------------------------------
 * On stderr when it is a terminal and not quiet: "[done/total] elapsed, ETA,
 * current point"; silent otherwise. */
typedef struct mp_progress {
    long total, done;
    double t0;
    int on;
} mp_progress;

void mp_progress_begin(mp_progress *p, long total, int quiet);
/* Shows the current point (printf format) with the counts. */
void mp_progress_show(mp_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mp_progress_step(mp_progress *p, long n);
void mp_progress_end(mp_progress *p);

/* ---- interruption (engine/progress.c) -------------------------------------------
 * The first SIGINT/SIGTERM asks the engine to stop: the timing loop stops at
 * its next call, the point in flight is abandoned (not stored) and what was
 * stored before stays; a second one exits at once with 130. */
void mp_engine_catch_signals(void);
int mp_engine_interrupted(void);

/* ---- the CPU's speed now (engine/clock.c) ---------------------------------------
 * The rate (G steps/s) of a fixed chain of dependent adds, timed on every pool
 * thread; the slowest thread's.  measure.c compares it with the fastest rate of
 * the process to keep only calls made at full speed (mp_bench_opts.clock_gate).
 * mp_clock_best is that fastest rate (0 before the first reading);
 * mp_clock_set_source replaces the chain by fn (tests; NULL restores it) and
 * forgets the fastest rate. */
double mp_clock_now(mp_pool *pool);
double mp_clock_best(void);
void mp_clock_set_source(double (*fn)(void));

/* ---- kernel plans (engine/plan.c) ----------------------------------------------- */
typedef struct mp_problem {
    int m, k, n, threads;
} mp_problem;

typedef struct mp_plan {
    mp_case *cases;     /* variants with parameter values, measured on every problem */
    int ncase;
    mp_problem *probs;  /* this shard's problems, in measurement order (threads outer) */
    int nprob;
    int all_probs;      /* problems in the whole plan, every shard */
    int warm;
    char key[32];       /* non-empty: resumable, stored with each row (the sweep key) */
    /* NULL: every case on every problem; else only the pairs it returns
     * non-zero for (run --tuned: each key's tuned parameters, defaults elsewhere) */
    int (*applies)(const mp_case *c, const mp_problem *pr, const void *ctx);
    const void *applies_ctx;
} mp_plan;

/* Expands variants into cases: defaults only, or every combination of each
 * variant's parameter values (all_params). */
int mp_plan_cases(const mp_variant *const *sel, int nsel, int all_params, mp_case *cases,
                  int max, int *ncase, mp_err *e);
/* The cross product cases x shapes x nv x tv; the shard I/N takes every N-th
 * problem of the full order (shapes, then n, then threads), deterministically. */
int mp_plan_kernels(mp_plan *p, const mp_case *cases, int ncase, const int (*shapes)[2],
                    int ns, const int *nv, int nn, const int *tv, int nt, int shard_i,
                    int shard_n, int warm, mp_err *e);
/* Sets p->key from a text describing everything that defines the plan. */
void mp_plan_set_key(mp_plan *p, const char *config);
void mp_plan_free(mp_plan *p);
/* The key of one result inside a plan: variant|params|m|k|n|threads. */
/* The one-line command that re-runs exactly this result's point. */
void mp_point_rerun(char *buf, size_t len, const mp_result *r, uint64_t seed);

/* ---- the kernel engine (engine/engine.c) ---------------------------------------- */
typedef struct mp_engine_opts {
    mp_bench_opts bench;
    const char *kind;      /* runs.kind: "run", "sweep" */
    const char *cmdline;
    const char *counters;  /* libpfm4 event list; NULL: software events; "none": none */
    const char *backend;   /* "pfm" or "papi" */
    int probe_bw;          /* store this run's DRAM read bandwidth per thread count */
    int annotate;          /* seed 003 eq. 3 next to VNNI GEMV results */
    int quiet;
} mp_engine_opts;

typedef struct mp_engine_out {
    mp_result *rows;       /* what this process measured (times freed), in order */
    int nrows;
    long total, todo;      /* results in this shard; not yet stored when it started */
    int failed, interrupted;
    long stored;           /* result rows this process added to the store */
    int abandoned;         /* the problem in flight at an interruption, not stored */
    int64_t run_id;        /* 0 when nothing was run (all stored) or no store */
    struct mp_counters *cs[64]; /* open until mp_engine_out_free: rows name their events */
    int ncs;
} mp_engine_out;

/* Measures the plan's missing points, storing each problem's results as soon as
 * they are measured (store may be NULL: nothing stored, nothing skipped).
 * Returns MP_OK also when points failed or the run was interrupted (see out). */
int mp_engine_run(mp_store *store, const mp_machine *mach, const mp_plan *plan,
                  const mp_engine_opts *o, mp_engine_out *out, mp_err *e);
void mp_engine_out_free(mp_engine_out *out);

/* ---- tuning (engine/tune.c): the tuner's cost function over the engine ---------- */
struct mp_space;
typedef struct mp_tune_problem {
    mp_pool *pool;
    const mp_variant *v;
    const struct mp_space *sp;
    int m, k, n;
    mp_bench_opts base;
    mp_store *store;       /* NULL: evaluations are not stored or reused */
    int64_t run_id;
    const char *key;       /* the tune plan's key: stored evaluations are reused */
    int verbose;
    /* filled as the search goes: the longest measurement of each point */
    struct mp_tune_eval *ev;
    int nev;
    long measured, reused;
    int store_rc; /* not 0: storing an evaluation failed (said on stderr); the tune fails */
} mp_tune_problem;

typedef struct mp_tune_eval {
    char params[128];
    int effort;
    double median_us;
    mp_status status;
} mp_tune_eval;

/* mp_cost_fn of tuner/mp_search.h: median microseconds of each point, measured
 * interleaved (more repetitions at higher effort), each evaluation stored as it
 * is measured and taken from the store when the plan already has it. */
void mp_tune_cost(void *ctx, const int (*pts)[MP_MAX_PARAMS], int count, int effort,
                  double *cost);

typedef struct mp_tune_decision {
    double best_us, default_us, gain_pct, p_value;
    int aba_confirmed, winner;
    char text[128];
} mp_tune_decision;

/* The A-B-A confirmation: rounds of three timed calls, the default (A), the
 * winner (B), the default again, by time1(arg, 0 or 1) in microseconds.
 * Ungated (gate 0): reps rounds, all kept.  Gated (gate in (0, 1]): the clock
 * (mp_clock_now) is read before and after each round, and a round is kept only
 * if both readings are at least gate x the fastest rate seen by the end, so a
 * round kept before full speed was first seen is dropped again; rounds are made
 * until reps are kept or GATE_TRIES x reps were made.  Medians over the kept
 * rounds (0 when none). */
typedef struct mp_tune_aba {
    int kept, dropped;
    double a_median_us, b_median_us;
} mp_tune_aba;
void mp_tune_aba_rounds(mp_pool *pool, double (*time1)(void *arg, int which), void *arg,
                        int reps, double gate, mp_tune_aba *out);

/* Is `best` really faster than `def`: interleaved re-measurement, one-sided
 * Mann-Whitney U, margin, then the A-B-A rounds (mp_tune_aba_rounds): confirmed
 * only when all reps rounds ran at full speed and B's median beats A's by the
 * margin (see harness/cli-tune.c). */
void mp_tune_decide(mp_tune_problem *t, const int *def, const int *best, int reps,
                    double margin, double alpha, mp_tune_decision *d);
void mp_tune_problem_free(mp_tune_problem *t);

/* ---- end-to-end tests (engine/e2e-measure.c, e2e-lossless.c) ---------------------- */
enum { MP_E2E_MAX_BATCH = 16 };

/* What runs the linears of one row set: a variant, or one per layer group. */
typedef struct mp_e2e_config {
    mp_e2e_choice lin[MP_E2E_NLIN];
    char label[256], method[64];
    char skip[512]; /* non-empty: reported as skipped with this reason */
} mp_e2e_config;

/* A text file for the runner (engine/e2e-text.c, issue 42): its bytes and the
 * model's token of each byte ("<0xHH>" pieces) and BOS. */
typedef struct mp_e2e_text {
    unsigned char *text;
    size_t len;
    int map[256], bos;
} mp_e2e_text;

typedef struct mp_e2e_job {
    int layers, threads, reps, seed;
    int pp, tg, nbatch, batch[MP_E2E_MAX_BATCH]; /* performance tests */
    int prompts, tokens;                         /* the lossless check */
    mp_store *store;    /* NULL: nothing stored or resumed */
    int64_t run_id;
    const char *key;    /* the e2e plan's key: its stored rows are not measured again */
    int quiet;
    const struct mp_e2e_source *src; /* real weights (a GGUF file), NULL: synthetic */
    const char *gguf_path;   /* that file (llama.cpp configurations run it), or NULL */
    /* issue 17 */
    int profile;             /* --profile: per-group times with each row */
    mp_e2e_head_fmt head;    /* --lm-head */
    const char *cache_dir;   /* --weight-cache DIR, NULL: none */
    const char *fingerprint; /* this machine's: the probe's read bandwidth for the bound */
    /* --clock-gate: a decode step, a prefill repetition and each measurement of
     * the bound count only when the clock before and after it is at least this
     * fraction of the fastest seen (engine/clock.c); 0 = off */
    double clock_gate;
    const mp_e2e_text *text; /* --prompt-text / --ppl (issue 42), NULL: seeded prompts */
    /* --interleave: every configuration built at once, each test's rows made a
     * repetition of each in turn on the same tokens (e2e-measure.c) */
    int interleave;
} mp_e2e_job;

/* pp / tg / batch rows of every configuration into rows (ncfg x tests). */
int mp_e2e_run_perf(const mp_e2e_job *o, const mp_model *md, mp_pool *pool,
                    const mp_e2e_config *cfg, int ncfg, mp_e2e_row *rows, int *nrows, mp_err *e);
/* A row whose rate passes its bound (share > 1) shows the bound wrong, not the
 * row fast: the reason says so first, and a decode row (whose bound is the
 * machine's best read, a roof) is marked "unstable"; the rate and the bound are
 * left as measured (never clamped).  A prefill row keeps its status: its bound
 * is its own GEMMs timed alone, a component the row cannot outrun in truth but
 * can in noise where the GEMMs are nearly all of it (a 4-token prompt of the
 * tests' tiny model: 0.98-1.03), so there the reason is the flag.  Other rows
 * are untouched. */
void mp_e2e_bound_verdict(mp_e2e_row *r);
/* What a row drives (engine/e2e-decoder.c): our runner, or llama.cpp end to end
 * for a configuration whose variant is a llamacpp.* peer (issue 39). */
typedef struct mp_e2e_dec mp_e2e_dec;
/* The ggml type llama.cpp runs for configuration c when all its linears are
 * one llamacpp.* peer (llamacpp.tq2_0 -> TQ2_0); -1 otherwise (our runner, a
 * peer's kernel on the linears --variant-for gives it). */
int mp_e2e_dec_llama_type(const mp_e2e_config *c);
/* Builds configuration c: mp_e2e_create of spec, or llama.cpp's session on
 * the file (written or taken from the weight cache).  *out is set even on
 * error (free it). */
int mp_e2e_dec_open(const mp_e2e_job *o, const mp_model *md, const mp_e2e_config *c,
                    const mp_e2e_spec *spec, mp_pool *pool, mp_e2e_dec **out, mp_err *e);
void mp_e2e_dec_free(mp_e2e_dec *d);
mp_e2e *mp_e2e_dec_ours(const mp_e2e_dec *d); /* NULL for llama.cpp */
void mp_e2e_dec_reset(mp_e2e_dec *d);
int mp_e2e_dec_forward(mp_e2e_dec *d, const int *tok, const int *seq, int n,
                       const unsigned char *want, float *logits);
const int *mp_e2e_dec_tokens(const mp_e2e_dec *d); /* argmax of each logits row */
/* llama.cpp's workers asleep (1) while our pool reads the clock or the bound's
 * bytes between its steps, awake again (0); nothing for ours. */
void mp_e2e_dec_quiet(mp_e2e_dec *d, int quiet);
double mp_e2e_dec_setup_s(const mp_e2e_dec *d);
void mp_e2e_dec_sizes(const mp_e2e_dec *d, mp_e2e_row *r); /* ternary/model bytes, bpw */
/* Bytes a decode step of B sequences reads (the decode bound's numerator). */
size_t mp_e2e_dec_token_bytes(const mp_e2e_dec *d, const mp_e2e_job *o, const mp_model *md,
                              int B);
/* What a llama.cpp row's reason says first ("" for ours). */
const char *mp_e2e_dec_note(const mp_e2e_dec *d, const mp_model *md);

/* The byte tokens and BOS of a GGUF file's vocabulary (every "<0xHH>" piece
 * present, else MP_EUSAGE naming the file). */
int mp_e2e_byte_map(const char *gguf, int map[256], int *bos, mp_err *e);
/* A whole text file (malloc'd; at least MP_E2E_PROMPT_MAX bytes). */
int mp_e2e_text_read(const char *path, unsigned char **text, size_t *len, mp_err *e);
/* Prompt p of the lossless check from text: BOS and MP_E2E_PROMPT_MIN - 1 ..
 * MP_E2E_PROMPT_MAX - 1 bytes at a seeded offset; returns the length. */
int mp_e2e_text_prompt(const mp_e2e_text *t, uint64_t seed, int p, int *tok);
/* Bits per byte of o->text: a "reference" row, for a file's weights the
 * share of them that are zero (test "zeros", e2e-text.c), then one row per
 * configuration (rows: ncfg + 2; test "bpb", share = bpb, prompts = chunks,
 * tokens = bytes, tps_median = bytes scored per second); *failed when a
 * lossless variant's bpb is not the reference's, bit for bit. */
int mp_e2e_run_ppl(const mp_e2e_job *o, const mp_model *md, mp_pool *pool,
                   const mp_e2e_config *cfg, int ncfg, mp_e2e_row *rows, int *nrows, int *failed,
                   mp_err *e);

/* One lossless row per configuration; *failed when a lossless variant missed. */
int mp_e2e_run_lossless(const mp_e2e_job *o, const mp_model *md, mp_pool *pool,
                        const mp_e2e_config *cfg, int ncfg, mp_e2e_row *rows, int *nrows,
                        int *failed, mp_err *e);

/* ---- machine measurements (engine/probe.c, engine/ceiling.c) --------------------- */
/* One read of [p, p + bytes) (64-byte aligned; whole 256-byte units) split in
 * contiguous parts over the pool's threads, as a kernel splits its rows: the
 * same-run read stream measure.c interleaves with decode points.  Returns a
 * value that depends on every byte read. */
uint64_t mp_probe_stream(mp_pool *pool, const void *p, size_t bytes);

struct mp_probe_row;
/* Read-only DRAM bandwidth (GB/s, best of reps and of the read methods of
 * mp_registry_probe_reads) with the pool's threads over `total` bytes, each
 * thread first-touching and streaming its own part. */
double mp_probe_dram_read(mp_pool *pool, size_t total, int reps);
/* The same with the read loop given (tests count what the probe reads, and
 * where): one warm-up and `reps` timed passes, each thread one read of its own
 * buffer of total / threads bytes (whole 256-byte units) per pass. */
struct mp_probe_ops;
double mp_probe_dram_read_ops(mp_pool *pool, size_t total, int reps, int huge,
                              const struct mp_probe_ops *ops);
/* The same read kept for single passes at chosen moments (the e2e decode
 * bound reads beside each step): total / threads bytes per thread (rounded up
 * to 256), first-touched by its thread and read once as a warm-up by _new,
 * with the read loop given (NULL: the registry's software-prefetched read,
 * mp_registry_probe_read_pf, issue 37); _pass times one pass of
 * every thread and returns its GB/s.  NULL: more threads than the probe
 * handles. */
typedef struct mp_probe_reader mp_probe_reader;
mp_probe_reader *mp_probe_reader_new(mp_pool *pool, size_t total, int huge,
                                     const struct mp_probe_ops *ops);
size_t mp_probe_reader_bytes(const mp_probe_reader *r, const mp_pool *pool);
double mp_probe_reader_pass(mp_probe_reader *r, mp_pool *pool);
/* One pass with each of the probe's read methods (mp_registry_probe_reads, as
 * read_DRAM is the best of them); returns the best GB/s, and the method that
 * gave it reads the later passes (the prefetched read is not the best on every
 * CPU: 27.3 against plain loads' 30.7 GB/s on the Zen 4 VM).  A reader of given
 * ops keeps them. */
double mp_probe_reader_pass_best(mp_probe_reader *r, mp_pool *pool);
/* "plain", "pf", ... the method of the reader's passes; "given" for given ops. */
const char *mp_probe_reader_method(const mp_probe_reader *r);
void mp_probe_reader_free(mp_probe_reader *r, mp_pool *pool);
/* The per-core compute peaks (the int8 dot product and the byte shuffle of
 * ops): the best of MP_PROBE_PEAK_SAMPLES samples of iters rounds each, on (up to
 * MP_CEILING_FULL_CAP x as many) until MP_CEILING_FULL_SAMPLES of them ran
 * with the clock (engine/clock.c) at MP_CEILING_FULL of the fastest seen, as a
 * compute ceiling is sampled (ceiling.c): a window wholly in a slow stretch of
 * the vCPU gave a 195 GOPS int8 peak beside clock-gated vnni_int2.avx2 rows of
 * 256-262 (make bench, AMD EPYC AVX2 VM; 306-324 in other probes). */
enum { MP_PROBE_PEAK_SAMPLES = 5 };
typedef struct mp_probe_peak {
    double dot_gops, shuffle_gbs;
    int samples, full; /* samples made; of them, at full speed */
} mp_probe_peak;
void mp_probe_peaks(const struct mp_probe_ops *ops, long iters, mp_probe_peak *out);
/* The full probe: read (each method of mp_registry_probe_reads as
 * read_<level>_<method>, and read_<level> their best), copy and triad per level
 * and thread count, then the one-core int8 dot and byte-shuffle peaks; rows[]
 * gets at most max. */
int mp_probe_measure(const mp_machine *mach, const int *tv, int nt, int quick,
                     struct mp_probe_row *rows, int max, int quiet);
/* The peaks sampled again after the compute ceilings, rows[0..n) raised where
 * this sampling beat them (a peak is the best of its samples; more samples at
 * another moment only find a truer one): "full speed" is relative to the
 * fastest clock seen so far, and before the ceilings the process may not have
 * seen it (make bench, AMD EPYC AVX2 VM: an int8 peak of 222 GOPS beside
 * vnni_int2.avx2's ceiling of 266, both of one probe).  Returns how many rows
 * it raised.  iters: MP_PROBE_PEAK_ITERS(quick), as the first sampling. */
/* The DRAM reads (each method of mp_registry_probe_reads, and their best)
 * sampled again after the compute ceilings, minutes after the first sampling,
 * rows[0..n) raised where it beat them, as the peaks are: a roof is the best
 * of its samples, and one sampling can fall wholly in a slow stretch of a
 * shared host (make bench on the Zen 4 VM: a 2-thread read_DRAM of 36.5 GB/s
 * beside i8.avx2 rows reading 46.5, while probes before and after gave
 * 60.3-62.9).  Returns how many rows it raised. */
int mp_probe_dram_again(const mp_machine *mach, const int *tv, int nt, int quick,
                        struct mp_probe_row *rows, int n);
#define MP_PROBE_PEAK_ITERS(quick) ((quick) ? 2000000L : 10000000L)
int mp_probe_peaks_again(const struct mp_probe_ops *ops, long iters, struct mp_probe_row *rows,
                         int n);
/* Bytes per thread the probe streams for level 0 L1, 1 L2, 2 L3, 3 DRAM at
 * `threads`: half of L1 and L2 per thread; half the L3 split over the threads
 * (at least twice the L2); DRAM 4 GiB (quick: 256 MiB) and at least 4x the
 * last-level cache in all, split over the threads.  Multiples of 256. */
size_t mp_probe_level_bytes(const mp_machine *mach, int level, int threads, int quick);

/* Seed 003 eq. 3's per-core C (harness/model.c): in-cache throughput of v's
 * compute loop on one core, a 32 x 2048 L1 tile at N = 1, bytes of 2-bit
 * (1-bit) weights per second of thread CPU time; 0 when v is unavailable or
 * cannot take the tile.  Not a roof (see mp_ceiling_measure). */
double mp_ceiling_bytes_per_sec(const mp_variant *v, const int *param);

/* ---- compute roofs (engine/ceiling.c, issue 37) -------------------------------- */
/* Seconds of timed calls per (variant, N, threads), and the call time above
 * which one call is all that is timed (scalar paths at N = 128). */
#define MP_CEILING_BUDGET_S 0.15
/* passes over the variants; each ceiling is the best of its rounds (ceiling.c) */
#define MP_CEILING_ROUNDS 3
#define MP_CEILING_SLOW_S 0.25
/* Sampling goes on past the budget (up to MP_CEILING_FULL_CAP x it) until
 * MP_CEILING_FULL_SAMPLES samples ran with the clock (engine/clock.c) at
 * MP_CEILING_FULL of the fastest seen: the rows a roof bounds are clock-gated. */
#define MP_CEILING_FULL 0.95
#define MP_CEILING_FULL_CAP 10
enum { MP_CEILING_FULL_SAMPLES = 2 };
/* The fewest rows a compute roof is measured over (issue 37: M >= 1024). */
enum { MP_CEILING_MIN_M = 1024 };

typedef struct mp_ceiling {
    int m, k, n, threads;
    long long packed_bytes;
    double seconds; /* best wall time of one call's compute */
    double gops;    /* 2 M K N / seconds */
    int calls;      /* calls made, the warm-up included */
    int full;       /* timed samples made with the CPU at full speed (ceiling.c) */
} mp_ceiling;

/* The real shape a variant's compute roof is measured at: the first of the
 * list in ceiling.c it takes (6912 x 2560 first; M >= 1024 always); -1 with
 * the reason when it takes none. */
int mp_ceiling_shape(const mp_variant *v, const int *param, int *m, int *k, char *why,
                     size_t len);
/* v's compute roof (param NULL: defaults) at its ceiling shape for each N of
 * nv and each pool (its thread count): out gets nn x np entries, N outer, in
 * that order.  Wall time (mp_now), warm weights, compute alone (prepare runs
 * once, untimed), each thread its contiguous share of the rows, best of the
 * calls made within `budget` seconds.  Returns the entries written, or -1 with
 * the reason (a shape it takes none of, a self-threaded peer). */
int mp_ceiling_measure(const mp_variant *v, const int *param, const int *nv, int nn,
                       mp_pool *const *pools, int np, double budget, mp_ceiling *out,
                       char *why, size_t len);
/* The same at the which-th real shape the variant accepts (cyclically; 0: the
 * one mp_ceiling_shape names). */
int mp_ceiling_measure_at(const mp_variant *v, const int *param, int which, const int *nv,
                          int nn, mp_pool *const *pools, int np, double budget, mp_ceiling *out,
                          char *why, size_t len);
/* The probe's compute roofs: for each of the nsel variants (peers, self-threaded
 * and unavailable ones skipped) one "ceiling_<variant>" row per N of nv and
 * thread count of tv, in GOPS, with its n, m, k and packed bytes, appended to
 * rows[] from index n; the new count is returned.  budget: seconds of timed
 * calls per (variant, N, threads), <= 0 for MP_CEILING_BUDGET_S. */
int mp_ceiling_rows(const mp_variant *const *sel, int nsel, const int *tv, int nt,
                    const int *nv, int nn, double budget, struct mp_probe_row *rows, int n,
                    int max, int quiet);

#endif
