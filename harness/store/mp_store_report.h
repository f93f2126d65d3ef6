/* mp_store_report.h - the typed questions `mpbench report` and `mpbench plot`
 * ask the store (store-report.c): a machine, its newest result per key, its
 * probe, its runs' load, unavailable counters, e2e rows, tuner decisions, one
 * run's rows for ratios, a tune run's evaluations.  Answers are C structs; no
 * caller sees SQL.  All of it reads; nothing here writes to the database.
 * Text columns read as "" when NULL. */
#ifndef MP_STORE_REPORT_H
#define MP_STORE_REPORT_H

#include <stdint.h>

#include "mp_store.h"
#include "mp_probe_store.h"

/* The machine a report describes (one row of the machines table). */
typedef struct mp_rep_machine {
    int64_t id;
    char fingerprint[64], cpu_model[128], isa_flags[256], caches_note[256], hypervisor[160];
    int cores, pus, mem_gib;
    long l1d_kib, l2_kib, l3_kib;
} mp_rep_machine;

/* One stored result (the columns the reports use). */
typedef struct mp_rep_row {
    int64_t id, run_id;
    char variant[64], method[32], family[16], isa[16], params[128], cache[8], status[12];
    char reason[160];
    int m, k, n, threads;
    double bpw, median_us, gbps, gops, max_rel_err; /* max_rel_err NaN when NULL */
    long long packed_bytes;
    int is_default; /* params equal the variant's defaults (or it has none / is unknown) */
    double clock_ghz; /* clock-gated rows: the median clock-chain rate of the calls kept; 0 */
} mp_rep_row;

/* One e2e row (harness/e2e.c's table). */
typedef struct mp_rep_e2e {
    char model[64], variant[256], method[64], test[32], status[16], reason[160];
    int layers, model_layers, n_prompt, n_gen, batch, threads, prompts, tokens, matched;
    double tps, bpw, share;
    double tps_min, tps_max; /* over the repetitions; 0 when not stored */
    int reps;
    int64_t run; /* the run that stored it */
    /* issue 17: the row's memory-limit figures (0 / "" when not stored) */
    char lm_head[8]; /* the head's format ("" or "f16": as the model ships) */
    double bound_tps, bound_share;
    double bw_row_gbs; /* a decode row's read at its own moments (0: not stored) */
    char profile[512]; /* "group=seconds per token,..." (mp_e2e_profile_parse) */
    char commit[16];   /* the run's git commit */
    /* issue 37: a lossless row's largest logit difference relative to the
     * logit range and its first diverging token (0: none); NAN and -1 when
     * not stored */
    double logit_diff;
    int first_diff;
    int steps_matched; /* teacher-forced steps on the reference's token; -1: not stored */
} mp_rep_e2e;

/* One tuner decision (the tuned table); the text is valid during the callback
 * only, "" for NULL. */
typedef struct mp_rep_tuned {
    const char *variant, *strategy, *chosen, *defaults, *decision;
    int m, k, n, threads, evaluations;
    double best_us, default_us, gain_pct, p_value;
} mp_rep_tuned;

/* A tune run's group of evaluations: one (run, variant, shape, N, threads). */
typedef struct mp_rep_tune_group {
    int64_t run;
    char variant[64];
    int m, k, n, threads, settings; /* settings: distinct parameter settings evaluated */
} mp_rep_tune_group;

/* 1 when the database has a table of that name. */
int mp_store_rep_has_table(mp_store *s, const char *name);

/* The machine whose fingerprint starts with `want`, or (want NULL) the machine
 * of the newest run.  MP_EUSAGE, naming db_path, when none or several match. */
int mp_store_rep_machine(mp_store *s, const char *db_path, const char *want, mp_rep_machine *m,
                         mp_err *e);

/* The newest row per (variant, params, m, k, n, threads, cache mode) of the
 * machine, in storage order, into *rows (malloc'd; *n rows).  is_default is
 * left 0: it is the registry's business (report-data.c). */
int mp_store_rep_results(mp_store *s, const char *db_path, int64_t machine_id, mp_rep_row **rows,
                         int *n, mp_err *e);

/* The newest full probe (run kind 'probe') of the machine, else the newest probe
 * rows of any of its runs: up to max rows; count returned, *run its run (0: none). */
int mp_store_rep_probe(mp_store *s, int64_t machine_id, mp_probe_row *out, int max,
                       int64_t *run);

/* Runs stored for the machine and the highest load average at their start;
 * 0 when it has no runs (or they cannot be read). */
int mp_store_rep_run_load(mp_store *s, int64_t machine_id, double *max_load);

/* For each counter event the machine refused in some run (run_counters status
 * 'unavailable'), in event order: fn(event, a reason, ctx).  Returns the count. */
int mp_store_rep_unavailable_counters(mp_store *s, int64_t machine_id,
                                      void (*fn)(const char *event, const char *reason,
                                                 void *ctx),
                                      void *ctx);

/* The machine's runs: count, first start and last finish (ISO text), and its
 * distinct git commits in run order, comma-separated; each buffer len bytes. */
int mp_store_rep_run_span(mp_store *s, int64_t machine_id, char *first, char *last,
                          char *commits, size_t len);

/* The newest e2e row per (model, variant, test, threads, layers) of the machine
 * into *out (malloc'd); all != 0: every row of every run (a ratio taken within
 * one run needs the older runs' rows too).  Count; -1 when there is no e2e
 * table; -2 when it cannot be read (why in err). */
int mp_store_rep_e2e(mp_store *s, int64_t machine_id, int all, mp_rep_e2e **out, char *err,
                     size_t errlen);

/* read_DRAM GB/s that run stored for itself at `threads` (sweep --probe-bw), 0 if none. */
double mp_store_rep_run_bw(mp_store *s, int64_t run, int threads);

/* The newest run (not a tune run) of the machine that measured method at N = n
 * in cache mode `cache` with an ok or unstable result; 0 if none. */
int64_t mp_store_rep_ratio_run(mp_store *s, int64_t machine_id, const char *method, int n,
                               const char *cache);

/* All rows of run at N = n in cache mode `cache`, in storage order, into *rows
 * (malloc'd): variant, method, status, params, m, k, threads, median_us set.
 * Returns the count. */
int mp_store_rep_run_rows(mp_store *s, int64_t run, int n, const char *cache, mp_rep_row **rows);

/* The newest tuner decision per (variant, m, k, n, threads) of the machine,
 * ordered by variant, m, k, n, threads: fn(row, ctx) each.  Returns the count. */
int mp_store_rep_tuned(mp_store *s, int64_t machine_id,
                       void (*fn)(const mp_rep_tuned *t, void *ctx), void *ctx);

/* The tune-run group of the machine (of `variant` if not NULL) with the most
 * distinct settings evaluated (ok or unstable), newest run first on ties.
 * 1 found, 0 none, -1 database error (why in e). */
int mp_store_rep_tune_group(mp_store *s, int64_t machine_id, const char *variant,
                            mp_rep_tune_group *g, mp_err *e);

/* The group's evaluations (ok or unstable) in storage order: fn(params, median_us,
 * ctx) each until fn returns nonzero.  Returns the number passed to fn. */
int mp_store_rep_tune_evals(mp_store *s, const mp_rep_tune_group *g,
                            int (*fn)(const char *params, double median_us, void *ctx),
                            void *ctx);

/* The tuner's stored decision for the group's point into buf; 1 if there is one. */
int mp_store_rep_tune_decision(mp_store *s, const mp_rep_tune_group *g, char *buf, size_t len);

/* Calls fn for every other machine that has runs in the database (a merged
 * database of several node kinds); returns their count, -1 on error. */
int mp_store_rep_other_machines(mp_store *s, int64_t machine_id,
                                void (*fn)(void *ctx, const char *fingerprint, const char *cpu),
                                void *ctx);

#endif
