/* cli-run.c - `mpbench run`: measure the selected variants on one shape or on
 * every distinct ternary shape of a model, print the results and store them in
 * one transaction. */
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_cli.h"
#include "mp_gguf.h"
#include "mp_harness.h"
#include "../variants/mp_registry.h"

enum { MAX_SEL = 512, MAX_SHAPES = 16 };

int mp_die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mpbench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

void mp_join_argv(int argc, char **argv, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "mpbench");
    for (int i = 0; i < argc && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, " %s", argv[i]);
}

static void run_usage(FILE *f)
{
    fputs("usage: mpbench run --variant GLOB[,GLOB...] (--shape MxK[xN] | --model NAME | --gguf FILE)\n"
          "                   [--n N] [--threads T] [--reps R] [--min-time SEC] [--warm]\n"
          "                   [--params name=value,...] [--seed S] [--db PATH | --no-db]\n"
          "                   [--format table|csv|json|md]\n"
          "  Measures each variant (cold cache unless --warm) and stores the results in\n"
          "  the database (default results/mpbench.db).\n",
          f);
}

int mp_cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"variant", required_argument, 0, 'v'}, {"shape", required_argument, 0, 's'},
        {"model", required_argument, 0, 'M'},   {"gguf", required_argument, 0, 'G'},   {"n", required_argument, 0, 'n'},
        {"threads", required_argument, 0, 't'}, {"reps", required_argument, 0, 'r'},
        {"min-time", required_argument, 0, 'T'}, {"warm", no_argument, 0, 'w'},
        {"params", required_argument, 0, 'p'},  {"seed", required_argument, 0, 'S'},
        {"db", required_argument, 0, 'd'},      {"no-db", no_argument, 0, 'D'},
        {"format", required_argument, 0, 'f'},  {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    char globs[1024] = "", cmdline[2048];
    const char *shape = NULL, *model = NULL, *params = NULL, *db = "results/mpbench.db";
    int n = 1, n_given = 0, threads = 1, no_db = 0, seed = 1;
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
        case 'v': {
            size_t l = strlen(globs);
            snprintf(globs + l, sizeof globs - l, "%s%s", l ? "," : "", optarg);
            break;
        }
        case 's': shape = optarg; break;
        case 'M': model = optarg; break;
        case 'G': /* --gguf FILE (issue 19): mp_model_load reads GGUF files */
            if ((rc = mp_cli_gguf_arg(optarg)))
                return rc;
            model = optarg;
            break;
        case 'n':
            if ((rc = mp_parse_int(optarg, "--n", 1, 65536, &n, &e)))
                return mp_die(rc, "%s", e.msg);
            n_given = 1;
            break;
        case 't':
            if ((rc = mp_parse_int(optarg, "--threads", 1, 1024, &threads, &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'r':
            if ((rc = mp_parse_int(optarg, "--reps", 1, 1000000, &bo.min_reps, &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'T': {
            char *end;
            bo.min_time = strtod(optarg, &end);
            if (*end || bo.min_time < 0 || bo.min_time > 3600)
                return mp_die(2, "--min-time: '%s' is not a number of seconds in [0, 3600]",
                              optarg);
            break;
        }
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
            if (n_given && sn != n) {
                free(cases);
                return mp_die(2, "--shape %s gives N=%d but --n gives %d", shape, sn, n);
            }
            n = sn;
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

    mp_machine mach;
    mp_machine_probe_info(&mach);
    bo.llc_bytes = mp_machine_llc_bytes(&mach);
    mp_store *store = NULL;
    int64_t machine_id = 0, run_id = 0;
    char binding[512];
    mp_pool *pool = mp_pool_create(threads, binding, sizeof binding);
    /* open the store before measuring (a bad --db fails fast), write the run
     * row and its results together at the end (nothing half-written) */
    if (!no_db) {
        if ((rc = mp_store_open(db, &store, &e)) ||
            (rc = mp_store_machine(store, &mach, &machine_id, &e))) {
            mp_store_close(store);
            mp_pool_destroy(pool);
            free(cases);
            return mp_die(rc, "%s", e.msg);
        }
    }
    mp_machine_warn(&mach);
    if (threads > mach.pus)
        fprintf(stderr, "mpbench: warning: %d threads on %d hardware threads: timings are "
                        "oversubscribed\n", threads, mach.pus);

    mp_result *res = calloc((size_t)ns * nsel, sizeof *res);
    int tty = isatty(2), failed = 0;
    double t0 = mp_now();
    for (int i = 0; i < ns; i++) {
        if (tty)
            fprintf(stderr, "\r[%d/%d] %dx%d n=%d t=%d  %.0fs elapsed   ", i + 1, ns,
                    shapes[i][0], shapes[i][1], n, threads, mp_now() - t0);
        mp_bench_point(pool, cases, nsel, shapes[i][0], shapes[i][1], n, &bo,
                       res + (size_t)i * nsel, &e);
    }
    if (tty)
        fputs("\r\033[K", stderr);
    int total = ns * nsel;
    for (int i = 0; i < total; i++)
        failed |= res[i].status == MP_ST_FAILED;
    mp_model_annotate(res, total, pool, store, &mach);
    mp_results_print(stdout, fmt, res, total);
    rc = 0;
    if (store) {
        if ((rc = mp_store_run_begin(store, machine_id, "run", &mach, cmdline, binding,
                                     &run_id, &e)) ||
            (rc = mp_store_results(store, run_id, NULL, res, total, &e)) ||
            (rc = mp_store_run_end(store, run_id, failed ? "failed" : "ok", &e)))
            mp_die(rc, "%s", e.msg);
    }
    for (int i = 0; i < total; i++)
        mp_result_free(&res[i]);
    free(res);
    free(cases);
    mp_store_close(store);
    mp_pool_destroy(pool);
    if (rc)
        return rc;
    return failed ? mp_die(1, "some variants gave wrong results (status failed)") : 0;
}
