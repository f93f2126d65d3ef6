/* mp_options.h - one option table per command, one parser for all of them
 * (issue 38).  A command describes each option as a row: its long name, a
 * one-letter short name if any, what it takes (mp_opt_kind), where the value
 * goes (an offset into the command's own options struct), the valid range and
 * a help line.  mp_opts_parse reads argv against the table, validates each
 * value with a message naming the option and the value (exit 2), and answers
 * --help / -h from the same table, so that the usage text cannot drift from
 * what is parsed.
 *
 * Repeats are consistent: a list option (ints, strings, shapes) takes a
 * comma-separated list and may be repeated, the items of every occurrence
 * appended in order (`--shape A,B` is `--shape A --shape B`); a scalar option
 * given twice keeps the last value, except the selections a command takes
 * once (mp_cmd_spec.once: run's --model/--gguf, pack's --variant), refused. */
#ifndef MP_OPTIONS_H
#define MP_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "../core/mp_core.h"

typedef enum mp_opt_kind {
    MP_OPT_FLAG,   /* int set to 1 */
    MP_OPT_INT,    /* int in [lo, hi] */
    MP_OPT_INTS,   /* int[max] in [lo, hi], count at count_off */
    MP_OPT_DOUBLE, /* double in [lo, hi] */
    MP_OPT_STR,    /* const char * (points into argv) */
    MP_OPT_STRS,   /* char[max] bytes: the items comma-joined */
    MP_OPT_SHAPES, /* int[max][2] of MxK, count at count_off */
    MP_OPT_CHOICE, /* const char *, one of the '|'-separated words of choices */
    MP_OPT_FORMAT, /* mp_format: one of choices (of table, csv, json, md) */
    MP_OPT_FN,     /* fn(arg, target, e) parses and stores */
} mp_opt_kind;

typedef struct mp_opt {
    const char *name;  /* long name without "--"; NULL ends a table */
    char short_name;   /* 0: none */
    mp_opt_kind kind;
    size_t off;        /* the target's offset in the options struct */
    size_t count_off;  /* lists: offset of their int count */
    double lo, hi;     /* INT, INTS, DOUBLE: the valid range */
    int max;           /* INTS, SHAPES: items; STRS: bytes */
    const char *arg;   /* the value's name in --help ("N", "GLOB") */
    const char *help;  /* one line */
    const char *choices;                                   /* CHOICE, FORMAT: "a|b|c" */
    int (*fn)(const char *arg, void *target, mp_err *e);   /* FN */
} mp_opt;

typedef struct mp_cmd_spec {
    const char *name;     /* "run", "list variants": the messages' prefix */
    const char *synopsis; /* after "usage: mpbench NAME " */
    const char *about;    /* paragraphs printed after the options, or NULL */
    const mp_opt *opts;   /* ends with a row whose name is NULL */
    int max_pos;          /* positional arguments allowed (kept in mp_opts_out) */
    /* selections the command takes once (issue 40), space-separated groups of
     * '|'-joined option names ("model|gguf variant"): a second option of a
     * group is refused (exit 2) naming both values, never one silently kept */
    const char *once;
} mp_cmd_spec;

enum { MP_OPTS_MAX = 64, MP_OPTS_MAX_POS = 4096 };

typedef struct mp_opts_out {
    int seen[MP_OPTS_MAX];          /* per table row: how many times it was given */
    const char *pos[MP_OPTS_MAX_POS];
    int npos;
    int help;                       /* --help was answered: return 0 */
} mp_opts_out;

/* Parses argv[1..argc) (argv[0] the command's name) into the struct at dst.
 * Returns 0 when parsed (out->help set when --help was printed to stdout: the
 * command then returns 0), else MP_EUSAGE after printing "mpbench: NAME: ..."
 * naming the option and value.  dst keeps the defaults the command put in it
 * for options not given. */
int mp_opts_parse(const mp_cmd_spec *spec, int argc, char **argv, void *dst, mp_opts_out *out);
/* --help text from the table. */
void mp_opts_usage(const mp_cmd_spec *spec, FILE *f);
/* How many times the option named `name` was given (0: never). */
int mp_opts_seen(const mp_cmd_spec *spec, const mp_opts_out *out, const char *name);

/* Shared FN parsers. */
int mp_opt_clock_gate(const char *arg, void *target, mp_err *e); /* double fraction */
int mp_opt_shard(const char *arg, void *target, mp_err *e);      /* int[2]: I, N */
/* --gguf FILE: the file is loaded and its architecture checked (issue 19);
 * target is a const char * set to FILE (mp_model_load reads GGUF files). */
int mp_opt_gguf(const char *arg, void *target, mp_err *e);

/* Row builders: the common shapes of a row, so that a table reads as a list. */
#define MP_OPT_F(nm, sh, st, fld, hlp) \
    {.name = nm, .short_name = sh, .kind = MP_OPT_FLAG, .off = offsetof(st, fld), .help = hlp}
#define MP_OPT_I(nm, st, fld, l, h, a, hlp)                                              \
    {.name = nm, .kind = MP_OPT_INT, .off = offsetof(st, fld), .lo = l, .hi = h, .arg = a, \
     .help = hlp}
#define MP_OPT_IL(nm, st, fld, cnt, l, h, a, hlp)                                        \
    {.name = nm, .kind = MP_OPT_INTS, .off = offsetof(st, fld), .count_off = offsetof(st, cnt), \
     .lo = l, .hi = h, .max = (int)(sizeof((st *)0)->fld / sizeof(int)), .arg = a, .help = hlp}
#define MP_OPT_D(nm, st, fld, l, h, a, hlp)                                              \
    {.name = nm, .kind = MP_OPT_DOUBLE, .off = offsetof(st, fld), .lo = l, .hi = h, .arg = a, \
     .help = hlp}
#define MP_OPT_S(nm, st, fld, a, hlp) \
    {.name = nm, .kind = MP_OPT_STR, .off = offsetof(st, fld), .arg = a, .help = hlp}
#define MP_OPT_SL(nm, st, fld, a, hlp)                                                   \
    {.name = nm, .kind = MP_OPT_STRS, .off = offsetof(st, fld),                          \
     .max = (int)sizeof((st *)0)->fld, .arg = a, .help = hlp}
#define MP_OPT_SHL(nm, st, fld, cnt, a, hlp)                                             \
    {.name = nm, .kind = MP_OPT_SHAPES, .off = offsetof(st, fld),                        \
     .count_off = offsetof(st, cnt), .max = (int)(sizeof((st *)0)->fld / sizeof(int[2])), \
     .arg = a, .help = hlp}
#define MP_OPT_C(nm, st, fld, ch, hlp) \
    {.name = nm, .kind = MP_OPT_CHOICE, .off = offsetof(st, fld), .choices = ch, .arg = ch, .help = hlp}
/* --format of the formats ch offers, in the order its messages name them. */
#define MP_OPT_FMT_OF(st, fld, ch, hlp)                                                  \
    {.name = "format", .kind = MP_OPT_FORMAT, .off = offsetof(st, fld), .choices = ch,   \
     .arg = ch, .help = hlp}
#define MP_OPT_FMT(st, fld) \
    MP_OPT_FMT_OF(st, fld, "table|csv|json|md", "output format (default table)")
#define MP_OPT_FN_(nm, st, fld, f, a, hlp) \
    {.name = nm, .kind = MP_OPT_FN, .off = offsetof(st, fld), .fn = f, .arg = a, .help = hlp}
#define MP_OPT_END {.name = NULL}

/* A command's spec over its table: the name, then the other fields
 * (.synopsis, .about, .max_pos) as designated initializers. */
#define MP_CMD_SPEC(nm, tbl, ...) {.name = nm, .opts = tbl, __VA_ARGS__}

/* Rows several commands share, so that an option reads the same in each
 * command's --help. */
#define MP_OPT_DB(st, fld) MP_OPT_S("db", st, fld, "PATH", "database (default results/mpbench.db)")
#define MP_OPT_QUIET(st, fld) MP_OPT_F("quiet", 'q', st, fld, "no progress lines")
#define MP_OPT_SEED(st, fld, hlp) MP_OPT_I("seed", st, fld, 0, 2147483647, "S", hlp)
/* --db, --no-db, --format, --quiet of a command that stores what it measures
 * (fields db, no_db, fmt, quiet). */
#define MP_OPT_STORE_ROWS(st)                                                          \
    MP_OPT_DB(st, db), MP_OPT_F("no-db", 0, st, no_db, "store nothing"), MP_OPT_FMT(st, fmt), \
        MP_OPT_QUIET(st, quiet)
/* --n and --threads, the lists of N and thread counts a command measures at
 * (fields nv, nn, tv, nt), their values named a_n and a_t in --help. */
#define MP_OPT_N_THREADS(st, a_n, a_t)                                                 \
    MP_OPT_IL("n", st, nv, nn, 1, 65536, a_n, "tokens per call (default 1)"),            \
        MP_OPT_IL("threads", st, tv, nt, 1, 1024, a_t, "thread counts (default 1)")
/* --reps, --min-time, --clock-gate, --warm into the command's mp_bench_opts bo. */
#define MP_OPT_TIMING_ROWS(st, gate_hlp, warm_hlp)                                      \
    MP_OPT_I("reps", st, bo.min_reps, 1, 1000000, "R", "minimum repetitions"),           \
        MP_OPT_D("min-time", st, bo.min_time, 0, 3600, "SEC", "minimum time per point"),  \
        MP_OPT_FN_("clock-gate", st, bo.clock_gate, mp_opt_clock_gate, "PCT", gate_hlp), \
        MP_OPT_F("warm", 0, st, bo.warm, warm_hlp)

#endif
