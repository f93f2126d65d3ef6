/* mp_test.h - the shared test oracle: runs one variant on one (M, K, N) and
 * checks it, so every family's tests judge variants the same way (check.c,
 * also linked into mptest-arm); and the helpers the Criterion tests share
 * instead of each keeping a copy (mp_test.c): scratch folders, the binary as a
 * child, SQL on a test database, command-line expectations. */
#ifndef MP_TEST_H
#define MP_TEST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../kernels/mp_kernel.h"

typedef struct mp_check {
    int skipped;          /* the variant does not take this shape (why says so) */
    int ok;               /* passed */
    double max_rel_err;   /* vs the oracle of its exactness, normalized by max|ref| */
    double mean_rel_err;
    char why[768];        /* failure: variant, shape, seed, first bad index, rerun command */
} mp_check;

/* Packs seeded weights for (m, k), quantizes seeded activations for n tokens,
 * computes rows on a sample of row ranges (all rows for small problems; always
 * the first range and the tail) and compares:
 *   MP_LOSSLESS: equal to the int8 reference bit for bit;
 *   MP_LOSSY / MP_FLOAT: error measured (and returned), and when `sibling` is
 *     given, equal to it (bit for bit, or within v->sibling_tol).
 * A lossless SIMD variant is also compared with its scalar sibling.
 * Guards: outputs are NaN-poisoned; the packed buffer has guard bytes.
 * param may be NULL for the defaults.  `binary` selects ±1 weights. */
void mp_check_variant(const mp_variant *v, const int *param, int m, int k, int n,
                      uint64_t seed, mp_check *out);

/* Asserts that v->unpack of the packed tensor p (m x k, param) returns w,
 * naming v and the first weight that differs. */
void mp_test_unpacks_to(const mp_variant *v, const void *p, int m, int k, const int *param,
                        const int8_t *w);

/* Identity of a packer rewritten for speed with its direct definition (the
 * packer as first written, kept in the family's test file as the oracle).  A
 * case is one shape and the weight fills it is packed with (bits 1 << MP_FILL_*):
 * seeded ternary (mp_gen_weights), seeded binary, all -1, all +1. */
enum { MP_FILL_TERNARY, MP_FILL_BINARY, MP_FILL_MINUS, MP_FILL_PLUS, MP_FILL_COUNT };
#define MP_FILL_ALL ((1 << MP_FILL_COUNT) - 1)
typedef struct mp_pack_case {
    int m, k;
    unsigned fills;
} mp_pack_case;
typedef void mp_pack_fn(const int8_t *w, float w_scale, int m, int k, const int *param,
                        uint8_t *out);

/* Packs every case with v->pack and with `oracle` and compares the whole packed
 * buffer (trailer included) byte for byte.  v->pack runs twice, on buffers
 * poisoned 0xA5 and 0x5A, so a byte it leaves unwritten differs in one of them;
 * the guard bytes after the buffer must keep the poison.  Returns 0 when every
 * case is identical, else 1 with why: variant, shape, fill, seed, the first
 * differing byte index and both values.  Prints one line per variant. */
int mp_test_pack_identity(const mp_variant *v, const int *param, mp_pack_fn *oracle,
                          const mp_pack_case *cases, int ncases, char *why, size_t len);

/* The cases of a packer identity test: with real, the linear shapes of BitNet
 * b1.58 2B-4T and Llama3-8B-1.58 (K = 2560, 6912, 4096, 14336) seeded ternary,
 * with binary, all -1 and all +1 also on the smallest of each K (33x14336 for
 * 14336); then M = 1, 15, 17, 33, 100 (one row, a partial block, blocks and a
 * tail) on each of the nk K of ks, every fill.  Returns the count (<= max). */
int mp_test_pack_cases(mp_pack_case *c, int max, int real, const int *ks, int nk);

/* The distinct ternary shapes of the nine real models (out: [][2]); returns count. */
int mp_test_real_shapes(int (*out)[2], int max);

/* The odd shapes of the variant grid: K at, below and above common blocks
 * (32, 128, 192, 256), M tails and one row (out: [][2]); returns count. */
int mp_test_odd_shapes(int (*out)[2], int max);

/* A variant ready to compute on fixed inputs: weights packed, n tokens
 * prepared, scratch allocated (NULL when it takes none); for the tests that
 * build their own inputs (saturation, sign patterns) instead of the oracle's. */
typedef struct mp_test_op {
    mp_op op;
    void *act, *scratch;
} mp_test_op;
void mp_test_op_make(mp_test_op *t, const mp_variant *v, const int *param, const int8_t *w,
                     float w_scale, int m, int k, const float *x, int n);
void mp_test_op_free(mp_test_op *t);

/* Runs `./mpbench ARGS` (MPBENCH_BIN or ./mpbench), captures stdout+stderr into
 * buf; returns the exit status. */
int mp_test_cli(char *buf, size_t len, const char *args);

/* Runs the CLI with printf-style args into buf (an array: sizeof is taken) and
 * asserts its exit code and that needle ("" for none) is in the output.  For
 * Criterion test files; a file names it once, e.g.
 * #define EXPECT(...) MP_TEST_EXPECT(out, __VA_ARGS__). */
#define MP_TEST_EXPECT(buf, code, needle, ...)                                               \
    do {                                                                                     \
        char args_[20000];                                                                   \
        snprintf(args_, sizeof args_, __VA_ARGS__);                                          \
        int rc_ = mp_test_cli(buf, sizeof buf, args_);                                       \
        cr_assert_eq(rc_, code, "mpbench %s: exit %d, want %d; output:\n%s", args_, rc_,     \
                     code, buf);                                                             \
        cr_assert(strstr(buf, needle), "mpbench %s: output lacks '%s':\n%s", args_, needle,  \
                  buf);                                                                      \
    } while (0)

/* A table of command lines and what each must give; MP_TEST_EXPECT_ALL runs
 * every row (cases: an array). */
typedef struct mp_test_cli_case {
    int code;
    const char *needle, *args;
} mp_test_cli_case;
#define MP_TEST_EXPECT_ALL(buf, cases)                                                       \
    for (size_t i_ = 0; i_ < sizeof cases / sizeof cases[0]; i_++)                          \
        MP_TEST_EXPECT(buf, cases[i_].code, cases[i_].needle, "%s", cases[i_].args)

/* ---- the Criterion tests' helpers (tests/mp_test.c; not in mptest-arm) ---- */

/* The binary under test: MPBENCH_BIN, else ./mpbench. */
const char *mp_test_bin(void);

/* Makes a fresh folder /tmp/mptest-TAG-XXXXXX into buf (asserts). */
void mp_test_tmpdir(char *buf, size_t len, const char *tag);

/* mp_test_tmpdir, then path = DIR/NAME (a file not yet made). */
void mp_test_scratch(char *dir, size_t dlen, char *path, size_t plen, const char *tag,
                     const char *name);

/* Writes text to path (asserts). */
void mp_test_write(const char *path, const char *text);

/* fork+exec the binary with a NULL-terminated argv (args[0] included), stdout
 * discarded and stderr into the file err (or discarded); returns the pid. */
pid_t mp_test_spawn(char *const *args, const char *err);

/* Spawns args (output discarded), waits until the count sql gives reaches
 * at_least (60 s at most, asserted), kills it with SIGKILL and asserts it was
 * still running; returns the count left behind. */
long mp_test_kill_midway(char *const *args, const char *db, const char *sql, long at_least);

/* system(cmd), asserting it exited 0. */
void mp_test_sh(const char *cmd);

/* The first column of the first row of sql on db (opened read-only, waiting
 * out a writer's lock): as an integer, -1 when there is no row or no database;
 * as text into buf ("NULL" for NULL, "" for no row); every row's first column,
 * each followed by a newline. */
long mp_test_query_long(const char *db, const char *sql);
void mp_test_query_text(const char *db, const char *sql, char *buf, size_t len);
void mp_test_query_rows(const char *db, const char *sql, char *buf, size_t len);

/* Polls the count sql gives (every 5 ms, for at most `seconds`) until it
 * reaches at_least; returns the last count (-1: no database yet). */
long mp_test_wait_rows(const char *db, const char *sql, long at_least, int seconds);

/* PRAGMA integrity_check says "ok". */
int mp_test_integrity_ok(const char *db);

/* Runs sql (any number of statements) on an open handle, or on the file db;
 * asserts it succeeded. */
struct sqlite3;
void mp_test_sql(struct sqlite3 *db, const char *sql);
void mp_test_exec(const char *db, const char *sql);

/* mp_test_sql of sqlite3_mprintf(fmt, ...) (%Q quotes a string). */
void mp_test_sqlf(struct sqlite3 *db, const char *fmt, ...);

/* Creates db with the first n of the schema's migrations (harness's
 * mp_schema_migrations) applied, asserted one by one; returns it open. */
struct sqlite3 *mp_test_schema(const char *db, const char *const *migrations, int n);

/* The whole file, malloc'd and NUL-terminated (its length into *len when len
 * is not NULL); NULL when it cannot be opened. */
char *mp_test_slurp(const char *path, long *len);

#endif
