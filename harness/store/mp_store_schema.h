/* mp_store_schema.h - the store's schema as numbered migrations.  Migration i
 * takes a database from version i to i+1; never edit a released one, append. */
#ifndef MP_STORE_SCHEMA_H
#define MP_STORE_SCHEMA_H

/* Migration 8's rename of the vnni family's parameters (variants/catalog.h,
 * MP_PARAM_RENAMES): bm -> mtile, bn -> ntile, bk -> ktile, gemm_n -> gemv in a
 * "name=value,..." column COL, as an SQL expression; idempotent.  Also applied
 * by compare to the rows of databases it reads unmigrated.  Frozen with
 * migration 8: never edit. */
#define MP_SCHEMA8_VNNI "variant LIKE 'vnni\\_%' ESCAPE '\\'"
#define MP_SCHEMA8_PARAMS(COL)                                                              \
    "substr(replace(replace(replace(replace(','||" COL ",',bm=',',mtile='),',bn=',',ntile='),"  \
    "',bk=',',ktile='),',gemm_n=',',gemv='),2)"

static const char *const mp_schema_migrations[] = {
    /* 1: machines, runs, results, counters */
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE machines(id INTEGER PRIMARY KEY, fingerprint TEXT UNIQUE NOT NULL,"
    " cpu_model TEXT, cores INTEGER, pus INTEGER, isa_flags TEXT, mem_gib INTEGER,"
    " l1d_kib INTEGER, l2_kib INTEGER, l3_kib INTEGER, caches_note TEXT, hypervisor TEXT,"
    " first_seen TEXT);"
    "CREATE TABLE runs(id INTEGER PRIMARY KEY, machine_id INTEGER NOT NULL REFERENCES machines(id),"
    " kind TEXT, started TEXT, finished TEXT, git_commit TEXT, compiler TEXT, kernel TEXT,"
    " command TEXT, load_avg REAL, governor TEXT, hypervisor TEXT, binding TEXT, status TEXT);"
    "CREATE TABLE results(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),"
    " variant TEXT NOT NULL, method TEXT, family TEXT, isa TEXT, params TEXT NOT NULL DEFAULT '',"
    " m INTEGER, k INTEGER, n INTEGER, threads INTEGER, cache_mode TEXT, bpw REAL,"
    " packed_bytes INTEGER, copies INTEGER, reps INTEGER, median_us REAL, min_us REAL,"
    " max_us REAL, mad_us REAL, mean_us REAL, cv REAL, gbps REAL, gops REAL,"
    " max_rel_err REAL, mean_rel_err REAL, status TEXT, reason TEXT, times_us TEXT,"
    " created TEXT, UNIQUE(run_id, variant, params, m, k, n, threads, cache_mode));"
    "CREATE INDEX results_key ON results(variant, m, k, n, threads);"
    "CREATE TABLE counters(result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,"
    " event TEXT NOT NULL, value REAL, status TEXT, reason TEXT, PRIMARY KEY(result_id, event));",
    /* 2: resumable sweeps, events refused per run, machine probe, tuner */
    "ALTER TABLE runs ADD COLUMN config_key TEXT;"
    "ALTER TABLE results ADD COLUMN sweep_key TEXT;"
    "CREATE UNIQUE INDEX results_sweep ON results(sweep_key, variant, params, m, k, n, threads,"
    " cache_mode) WHERE sweep_key IS NOT NULL;"
    "CREATE TABLE run_counters(run_id INTEGER NOT NULL REFERENCES runs(id), event TEXT NOT NULL,"
    " status TEXT, reason TEXT, PRIMARY KEY(run_id, event));"
    "CREATE TABLE probe(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),"
    " kind TEXT NOT NULL, threads INTEGER, bytes INTEGER, value REAL, unit TEXT);"
    "CREATE TABLE tuned(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),"
    " variant TEXT NOT NULL, m INTEGER, k INTEGER, n INTEGER, threads INTEGER, strategy TEXT,"
    " best_params TEXT, default_params TEXT, chosen_params TEXT, best_us REAL, default_us REAL,"
    " gain_pct REAL, p_value REAL, aba_confirmed INTEGER, decision TEXT, evaluations INTEGER,"
    " seconds REAL, exhaustive_best_us REAL, exhaustive_params TEXT, created TEXT);",
    /* 3: end-to-end results (harness/e2e.c): one row per (run, variant, test) */
    "CREATE TABLE e2e(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),"
    " model TEXT NOT NULL, variant TEXT NOT NULL, method TEXT, layers INTEGER,"
    " model_layers INTEGER, test TEXT NOT NULL, n_prompt INTEGER, n_gen INTEGER, batch INTEGER,"
    " threads INTEGER, reps INTEGER, tps_median REAL, tps_min REAL, tps_max REAL,"
    " tps_spread REAL, model_bytes INTEGER, ternary_bytes INTEGER, bpw REAL, prompts INTEGER,"
    " tokens INTEGER, matched INTEGER, match_share REAL, seed INTEGER, status TEXT, reason TEXT,"
    " times_s TEXT, created TEXT, UNIQUE(run_id, variant, test));"
    "CREATE INDEX e2e_key ON e2e(model, variant, test, threads);",
    /* 4: tune and e2e store each row as measured and resume (issue 14): rows of a
     * resumable plan carry its key; a key holds each point once */
    "ALTER TABLE tuned ADD COLUMN plan_key TEXT;"
    "CREATE UNIQUE INDEX tuned_plan ON tuned(plan_key, variant, m, k, n, threads)"
    " WHERE plan_key IS NOT NULL;"
    "ALTER TABLE e2e ADD COLUMN plan_key TEXT;"
    "CREATE UNIQUE INDEX e2e_plan ON e2e(plan_key, model, variant, test, threads)"
    " WHERE plan_key IS NOT NULL;",
    /* 5: which llama.cpp build the llamacpp.* peers of a run were (issue 15) */
    "ALTER TABLE runs ADD COLUMN peers TEXT;",
    /* 6: exact run identity (issue 20): a random 128-bit uid per run (hex), unique
     * across machines, so merge never takes two runs for one; the host and pid
     * of the process, so a run left 'running' by a killed process is marked
     * 'interrupted' on the next open.  Runs from before keep NULL. */
    "ALTER TABLE runs ADD COLUMN uid TEXT;"
    "ALTER TABLE runs ADD COLUMN host TEXT;"
    "ALTER TABLE runs ADD COLUMN pid INTEGER;"
    "CREATE UNIQUE INDEX runs_uid ON runs(uid) WHERE uid IS NOT NULL;",
    /* 7: e2e at the memory limit (issue 17): the head's precision, the build time,
     * the row's bound (decode: bytes per step / read bandwidth; prefill: its
     * GEMMs alone) and share, and the --profile split ("group=s/token,...") */
    "ALTER TABLE e2e ADD COLUMN lm_head TEXT;"
    "ALTER TABLE e2e ADD COLUMN setup_s REAL;"
    "ALTER TABLE e2e ADD COLUMN token_bytes INTEGER;"
    "ALTER TABLE e2e ADD COLUMN bw_gbs REAL;"
    "ALTER TABLE e2e ADD COLUMN bound_tps REAL;"
    "ALTER TABLE e2e ADD COLUMN bound_share REAL;"
    "ALTER TABLE e2e ADD COLUMN profile TEXT;",
    /* 8: one meaning per parameter name (issue 18): the vnni rows' bm, bn, bk,
     * gemm_n are mtile, ntile, ktile, gemv, so stored rows are found (resume,
     * report defaults, tune --from-sweep) under the names the catalog now has */
    "UPDATE results SET params=" MP_SCHEMA8_PARAMS("params") " WHERE " MP_SCHEMA8_VNNI ";"
    "UPDATE tuned SET best_params=" MP_SCHEMA8_PARAMS("best_params") ","
    " default_params=" MP_SCHEMA8_PARAMS("default_params") ","
    " chosen_params=" MP_SCHEMA8_PARAMS("chosen_params") ","
    " exhaustive_params=" MP_SCHEMA8_PARAMS("exhaustive_params")
    " WHERE " MP_SCHEMA8_VNNI ";",
    /* 9: the clock gate (sweep/run --clock-gate): the median clock of a result's
     * kept calls (G adds/s, engine/clock.c) and how many calls it discarded as
     * made below full speed; NULL for results measured without the gate
     * (parenthesized: clang's -Wstring-concatenation takes two literals in a
     * row, last in the list, for a missing comma) */
    ("ALTER TABLE results ADD COLUMN clock_ghz REAL;"
     "ALTER TABLE results ADD COLUMN slow_reps INTEGER;"),
    /* 10: the lossless check's logits (issue 37): the largest |logit - reference
     * logit| of the variant decoded on the reference's tokens, relative to each
     * step's reference logit range (0: bit for bit), and the earliest generated
     * token (1-based) whose argmax left the reference's, 0 when none did; NULL
     * for performance rows and lossless rows stored before */
    ("ALTER TABLE e2e ADD COLUMN logit_diff REAL;"
     "ALTER TABLE e2e ADD COLUMN first_diff INTEGER;"),
    /* 11: roofs that hold (issue 37): a compute ceiling is measured per variant
     * at a real shape M x K, per N and per thread count (engine/ceiling.c), so
     * its probe row says which; NULL on every other probe row and on the
     * ceilings of older probes (one core, a 32 x 2048 tile, N = 1) */
    ("ALTER TABLE probe ADD COLUMN n INTEGER;"
     "ALTER TABLE probe ADD COLUMN m INTEGER;"
     "ALTER TABLE probe ADD COLUMN k INTEGER;"),
    /* 12: the lossless check's step agreement (issue 39): of its prompts x
     * tokens teacher-forced steps, those whose argmax is the reference's token;
     * NULL for performance rows and lossless rows stored before */
    ("ALTER TABLE e2e ADD COLUMN steps_matched INTEGER;"),
    /* 13: a decode row's read at its own moments (mp_e2e_row.bw_row_gbs): the
     * bound keeps the best read ever seen, this the best made beside the row;
     * NULL for prefill, lossless and older rows */
    ("ALTER TABLE e2e ADD COLUMN bw_row_gbs REAL;"),
};

enum { MP_SCHEMA_VERSION = (int)(sizeof mp_schema_migrations / sizeof mp_schema_migrations[0]) };

#endif
