/* cli-run.c - `mpbench run`: measure the selected variants on one shape or on
 * every distinct ternary shape of a model: a plan of one problem per shape for
 * the engine, which stores each problem's results as they are measured; the
 * results are printed at the end. */
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_cli.h"
#include "../gguf/mp_gguf.h"
#include "../core/mp_core.h"
#include "../report/mp_output.h"
#include "../engine/mp_engine.h"
#include "../../variants/mp_registry.h"

enum { MAX_SEL = 512, MAX_SHAPES = 16 };

static void run_usage(FILE *f)
{
    fputs("usage: mpbench run --variant GLOB[,GLOB...] (--shape MxK[xN] | --model NAME | --gguf FILE)\n"
          "                   [--n N[,N]] [--threads T[,T]] [--reps R] [--min-time SEC] [--warm]\n"
          "                   [--params name=value,...] [--seed S] [--db PATH | --no-db]\n"
          "                   [--format table|csv|json|md] [--clock-gate PCT] [--quiet]\n"
          "  Measures each variant (cold cache unless --warm) and stores the results in\n"
          "  the database (default results/mpbench.db).  --clock-gate PCT: only calls\n"
          "  made at full speed are kept (see mpbench sweep --help).\n",
          f);
}

int mp_cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"variant", required_argument, 0, 'v'}, {"shape", required_argument, 0, 's'},
        {"model", required_argument, 0, 'M'},   {"gguf", required_argument, 0, 'G'},   {"n", required_argument, 0, 'n'},
        {"threads", required_argument, 0, 't'}, {"reps", required_argument, 0, 'r'},
        {"min-time", required_argument, 0, 'T'},
        {"clock-gate", required_argument, 0, 'K'}, {"warm", no_argument, 0, 'w'},
        {"params", required_argument, 0, 'p'},  {"seed", required_argument, 0, 'S'},
        {"db", required_argument, 0, 'd'},      {"no-db", no_argument, 0, 'D'},
        {"format", required_argument, 0, 'f'},  {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    char globs[1024] = "", cmdline[2048];
    const char *shape = NULL, *model = NULL, *params = NULL, *db = "results/mpbench.db";
    int n = 1, n_given = 0, threads = 1, no_db = 0, seed = 1, quiet = 0;
    int nv[32] = {1}, nn = 1, tv[32] = {1}, nt = 1; /* --n and --threads take lists */
    mp_format fmt = MP_FMT_TABLE;
    mp_bench_opts bo;
    mp_bench_defaults(&bo);
    mp_err e;
    int c, rc;
    mp_join_argv(argc - 1, argv + 1, cmdline, sizeof cmdline);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'v':
            if ((rc = mp_append(globs, sizeof globs, optarg, "--variant", &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 's': shape = optarg; break;
        case 'M': model = optarg; break;
        case 'G': /* --gguf FILE (issue 19): mp_model_load reads GGUF files */
            if ((rc = mp_gguf_arg(optarg)))
                return rc;
            model = optarg;
            break;
        case 'n':
            if ((rc = mp_parse_int_list(optarg, "--n", 1, 65536, nv, 32, &nn, &e)))
                return mp_die(rc, "%s", e.msg);
            n = nv[0];
            n_given = 1;
            break;
        case 't':
            if ((rc = mp_parse_int_list(optarg, "--threads", 1, 1024, tv, 32, &nt, &e)))
                return mp_die(rc, "%s", e.msg);
            threads = tv[0];
            for (int i = 1; i < nt; i++)
                threads = tv[i] > threads ? tv[i] : threads;
            break;
        case 'r':
            if ((rc = mp_parse_int(optarg, "--reps", 1, 1000000, &bo.min_reps, &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'T':
            if ((rc = mp_parse_double(optarg, "--min-time", 0, 3600, &bo.min_time, &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'K':
            if ((rc = mp_parse_clock_gate(optarg, &bo.clock_gate, &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'w': bo.warm = 1; break;
        case 'p': params = optarg; break;
        case 'S':
            if ((rc = mp_parse_int(optarg, "--seed", 0, 2147483647, &seed, &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'd': db = optarg; break;
        case 'D': no_db = 1; break;
        case 'f':
            if (mp_format_parse(optarg, &fmt))
                return mp_die(2, "--format: '%s' is not one of table, csv, json, md", optarg);
            break;
        case 'q': quiet = 1; break;
        case 'h': run_usage(stdout); return 0;
        default:
            run_usage(stderr);
            return mp_die(2, "run: unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return mp_die(2, "run: unexpected argument '%s'", argv[optind]);
    if (!globs[0])
        return mp_die(2, "run: --variant is required (see 'mpbench list variants')");
    if (!!shape == !!model)
        return mp_die(2, "run: give exactly one of --shape MxK[xN] or --model NAME");
    bo.seed = (uint64_t)seed;

    const mp_variant *sel[MAX_SEL];
    int nsel;
    if ((rc = mp_select_variants(globs, sel, MAX_SEL, &nsel, &e)))
        return mp_die(rc, "%s", e.msg);
    mp_case *cases = calloc((size_t)nsel, sizeof *cases);
    int params_used = 0;
    for (int i = 0; i < nsel; i++) {
        cases[i].v = sel[i];
        mp_variant_defaults(sel[i], cases[i].param);
        if (params) {
            char why[256];
            if (mp_params_parse(sel[i], params, cases[i].param, why, sizeof why) == 0)
                params_used = 1;
            else if (nsel == 1) {
                free(cases);
                return mp_die(2, "--params '%s': %s", params, why);
            } else
                mp_variant_defaults(sel[i], cases[i].param);
        }
    }
    if (params && !params_used) {
        free(cases);
        return mp_die(2, "--params '%s': no selected variant has these parameters", params);
    }

    int shapes[MAX_SHAPES][2], ns = 0;
    if (shape) {
        int m, k, sn;
        if ((rc = mp_parse_shape(shape, &m, &k, &sn, &e))) {
            free(cases);
            return mp_die(rc, "%s", e.msg);
        }
        if (sn) {
            if (n_given && (nn != 1 || sn != n)) {
                free(cases);
                return mp_die(2, "--shape %s gives N=%d but --n gives %s", shape, sn,
                              nn == 1 ? "another" : "a list");
            }
            n = sn;
            nv[0] = sn, nn = 1;
        }
        shapes[0][0] = m;
        shapes[0][1] = k;
        ns = 1;
    } else {
        mp_model mdl;
        char names[MAX_SHAPES][32];
        if ((rc = mp_model_load(model, &mdl, &e))) {
            free(cases);
            return mp_die(rc, "%s", e.msg);
        }
        ns = mp_model_shapes(&mdl, shapes, names);
    }

    /* issue 20: a point beyond the machine's memory is refused before anything runs */
    for (int s = 0; s < ns; s++)
        for (int a = 0; a < nn; a++)
            for (int b = 0; b < nt; b++) {
                double need = mp_bench_memory(cases, nsel, shapes[s][0], shapes[s][1], nv[a], tv[b]);
                if (need > (double)mp_mem_limit()) {
                    free(cases);
                    return mp_die(2, "run: %dx%d n=%d needs ~%.1f GiB, over the limit of %.1f GiB "
                                     "(3/4 of this machine's RAM)", shapes[s][0], shapes[s][1],
                                  nv[a], need / 1073741824.0,
                                  (double)mp_mem_limit() / 1073741824.0);
                }
            }
    if (mp_parse_only_stop("run")) {
        free(cases);
        return 0;
    }
    mp_machine mach;
    mp_machine_probe_info(&mach);
    mp_store *store = NULL;
    /* open the store before measuring: a bad --db fails fast */
    if (!no_db && (rc = mp_store_open(db, &store, &e))) {
        free(cases);
        return mp_die(rc, "%s", e.msg);
    }
    mp_machine_warn(&mach);
    if (threads > mach.pus)
        fprintf(stderr, "mpbench: warning: %d threads on %d hardware threads: timings are "
                        "oversubscribed\n", threads, mach.pus);
    mp_plan plan;
    mp_engine_opts eo = {.bench = bo, .kind = "run", .cmdline = cmdline, .annotate = 1,
                         .quiet = quiet};
    mp_engine_out out;
    if (!(rc = mp_plan_kernels(&plan, cases, nsel, (const int(*)[2])shapes, ns, nv, nn, tv, nt,
                               1, 1, bo.warm, &e))) {
        rc = mp_engine_run(store, &mach, &plan, &eo, &out, &e);
        if (!rc)
            mp_results_print(stdout, fmt, out.rows, out.nrows);
        else
            mp_die(rc, "%s", e.msg);
        mp_plan_free(&plan);
    } else {
        mp_die(rc, "%s", e.msg);
    }
    int failed = !rc && out.failed, interrupted = !rc && out.interrupted;
    long stored = !rc ? out.stored : 0;
    if (!rc)
        mp_engine_out_free(&out);
    free(cases);
    mp_store_close(store);
    if (rc)
        return rc;
    if (interrupted)
        return mp_die(130, "interrupted: %ld results stored%s; the point in flight was not",
                      stored, store ? "" : " (--no-db: none)");
    return failed ? mp_die(1, "some variants gave wrong results (status failed)") : 0;
}
