/* cli.c - the mpbench command line: a table of commands, each implemented in
 * its own harness/cli-*.c file, and the dispatch through it (mp_cmd_main).  It
 * lives in the library, not in main.c, so the CLI fuzz target
 * (tests/fuzz/fuzz-cli.c) and its corpus replay in the tests go through the
 * same table as the program.  Exit codes: 0 ok, 1 run-time failure (wrong
 * results), 2 bad usage or bad input, 3 a database or file failure (MP_EIO),
 * 130 interrupted. */
#include <stdio.h>
#include <string.h>

#include "mp_cli.h"
#include "../core/mp_core.h"

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
} commands[] = {
    {"run", mp_cmd_run, "measure variants on a shape or a model's shapes"},
    {"list", mp_cmd_list, "list models, shapes, variants or the machine"},
    {"sweep", mp_cmd_sweep, "resumable sweep over variants, shapes, n, threads, parameters"},
    {"tune", mp_cmd_tune, "search a variant's parameters; keep a winner only if significant"},
    {"probe", mp_cmd_probe, "measure bandwidth and compute peaks for rooflines"},
    {"compare", mp_cmd_compare, "regressions and improvements between two runs"},
    {"merge", mp_cmd_merge, "merge databases (machines, shards) without duplicates"},
    {"pack", mp_cmd_pack, "write a variant's packed bytes for given ternary weights"},
    {"e2e", mp_cmd_e2e, "end-to-end decoder: pp/tg/batch tokens/s, lossless token check"},
    {"report", mp_cmd_report, "regenerate REPORT.md from the store, next to the papers' figures"},
    {"plot", mp_cmd_plot, "plot roofline, gbps, threads, prompt, tuner (or all) with gnuplot"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: mpbench COMMAND [options]   (mpbench COMMAND --help for its options)\n\n"
               "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
}

int mp_cmd_main(int argc, char **argv)
{
    char bad_env[256]; /* MPBENCH_* numbers checked once, before any command (mp_parse.h) */
    if (mp_env_check(bad_env, sizeof bad_env))
        return mp_die(MP_EUSAGE, "%s", bad_env);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "mpbench: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
