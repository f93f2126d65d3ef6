/* cli-sweep.c - `mpbench sweep`: the cross product of variants (and their
 * parameter grids), shapes, token counts and thread counts, measured point by
 * point into the store.
 *
 * Resumable: the sweep's arguments (less --shard, --db, --format) hash to a
 * sweep key stored with every result; a restarted sweep reads the keys already
 * stored and measures only what is missing.  Each point's results are written in
 * one transaction as soon as they are measured, so an interruption (Ctrl-C, kill
 * -9, power loss) loses at most the point in flight, and a result stored twice
 * under one key is impossible (unique index).  --shard I/N takes every N-th
 * point, deterministically, so N machines can share a sweep and `mpbench merge`
 * their databases. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_cli.h"
#include "../engine/mp_counters.h"
#include "../gguf/mp_gguf.h"
#include "../core/mp_core.h"
#include "../report/mp_output.h"
#include "../engine/mp_engine.h"
#include "../../variants/mp_registry.h"

enum { MAX_SEL = 512, MAX_SHAPES = 256, MAX_LIST = 32, MAX_CASES = 4096 };

static void sweep_usage(FILE *f)
{
    fputs("usage: mpbench sweep [--quick] [--variant GLOB[,GLOB]] [--model NAME|all] [--gguf FILE]...\n"
          "                     [--shape MxK]... [--n LIST] [--threads LIST]\n"
          "                     [--params default|all] [--shard I/N] [--reps R]\n"
          "                     [--min-time SEC] [--warm] [--counters LIST|none]\n"
          "                     [--counters-backend pfm|papi] [--seed S] [--db PATH]\n"
          "                     [--format table|csv|json|md] [--rows] [--dry-run]\n"
          "                     [--probe-bw] [--clock-gate PCT] [--quiet]\n"
          "  --quick: the most specialized available path of every method on the\n"
          "  bitnet-b1.58-2b-4t shapes, n=1,32, threads=1,2, short timing.\n"
          "  Re-running the same command measures only what is missing.  At the end it\n"
          "  prints the best variant of each method per problem with GB/s (N = 1) or\n"
          "  GOPS and its speed against TQ2_0 measured in the same run; --rows prints\n"
          "  every stored result of the sweep instead.\n"
          "  --dry-run lists the results of the shard (--shard I/N) and the totals, and\n"
          "  measures and stores nothing: to size a job array.\n"
          "  --probe-bw stores this run's DRAM read bandwidth per thread count (used by\n"
          "  'mpbench compare' to cancel machine-speed drift).\n"
          "  --clock-gate PCT keeps only calls made at full speed: a 5 us chain of\n"
          "  dependent adds before and after each call runs within PCT% (e.g. 90) of\n"
          "  the fastest this process has seen, on every thread; the other calls are\n"
          "  discarded and made again.  For shared hosts whose vCPUs slow down for\n"
          "  seconds at a time (the regression gate uses it).\n",
          f);
}

/* For --quick: per method, the available variant with the richest ISA. */
static int best_per_method(const mp_variant **out, int max)
{
    int n = 0;
    for (int i = 0; i < mp_registry_count(); i++) {
        const mp_variant *v = mp_registry_get(i);
        if (!mp_variant_available(v))
            continue;
        int j;
        for (j = 0; j < n; j++)
            if (!strcmp(out[j]->method, v->method))
                break;
        if (j == n) {
            if (n < max)
                out[n++] = v;
        } else if (__builtin_popcount(v->isa) > __builtin_popcount(out[j]->isa) ||
                   (v->isa > out[j]->isa &&
                    __builtin_popcount(v->isa) == __builtin_popcount(out[j]->isa))) {
            out[j] = v;
        }
    }
    return n;
}

int mp_cmd_sweep(int argc, char **argv)
{
    static const struct option opts[] = {
        {"quick", no_argument, 0, 'q'},         {"variant", required_argument, 0, 'v'},
        {"model", required_argument, 0, 'M'},   {"gguf", required_argument, 0, 'G'},   {"shape", required_argument, 0, 's'},
        {"n", required_argument, 0, 'n'},       {"threads", required_argument, 0, 't'},
        {"params", required_argument, 0, 'p'},  {"shard", required_argument, 0, 'x'},
        {"reps", required_argument, 0, 'r'},    {"min-time", required_argument, 0, 'T'},
        {"clock-gate", required_argument, 0, 'K'},
        {"warm", no_argument, 0, 'w'},          {"counters", required_argument, 0, 'c'},
        {"counters-backend", required_argument, 0, 'b'},
        {"seed", required_argument, 0, 'S'},    {"db", required_argument, 0, 'd'},
        {"format", required_argument, 0, 'f'},  {"dry-run", no_argument, 0, 'D'},
        {"probe-bw", no_argument, 0, 'P'},     {"rows", no_argument, 0, 'R'},
        {"quiet", no_argument, 0, 'Q'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    char globs[1024] = "", models[2048] = "", shapes_arg[8192] = "", cmdline[4096];
    const char *nlist = NULL, *tlist = NULL, *params = "default", *counters = NULL,
               *backend = "pfm", *db = "results/mpbench.db";
    int quick = 0, shard_i = 1, shard_n = 1, seed = 1, dry = 0, probe_bw = 0, rows = 0, quiet = 0;
    int c, rc;
    mp_format fmt = MP_FMT_TABLE;
    mp_bench_opts bo;
    mp_bench_defaults(&bo);
    int reps_given = 0, time_given = 0;
    mp_err e;
    mp_join_argv(argc - 1, argv + 1, cmdline, sizeof cmdline);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'q': quick = 1; break;
        case 'v':
            if ((rc = mp_append(globs, sizeof globs, optarg, "--variant", &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'G': /* --gguf FILE (issue 19): mp_model_load reads GGUF files */
            if ((rc = mp_gguf_arg(optarg)))
                return rc;
            /* fall through */
        case 'M':
            if ((rc = mp_append(models, sizeof models, optarg, "--model", &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 's':
            if ((rc = mp_append(shapes_arg, sizeof shapes_arg, optarg, "--shape", &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'n': nlist = optarg; break;
        case 't': tlist = optarg; break;
        case 'p':
            if (strcmp(optarg, "all") && strcmp(optarg, "default"))
                return mp_die(2, "--params: '%s' is not all or default", optarg);
            params = optarg;
            break;
        case 'x':
            if ((rc = mp_parse_shard(optarg, &shard_i, &shard_n, &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'r':
            if ((rc = mp_parse_int(optarg, "--reps", 1, 1000000, &bo.min_reps, &e)))
                return mp_die(rc, "%s", e.msg);
            reps_given = 1;
            break;
        case 'T':
            if ((rc = mp_parse_double(optarg, "--min-time", 0, 3600, &bo.min_time, &e)))
                return mp_die(rc, "%s", e.msg);
            time_given = 1;
            break;
        case 'K':
            if ((rc = mp_parse_clock_gate(optarg, &bo.clock_gate, &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'w': bo.warm = 1; break;
        case 'c': counters = optarg; break;
        case 'b': backend = optarg; break;
        case 'S':
            if ((rc = mp_parse_int(optarg, "--seed", 0, 2147483647, &seed, &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'd': db = optarg; break;
        case 'f':
            if (mp_format_parse(optarg, &fmt))
                return mp_die(2, "--format: '%s' is not one of table, csv, json, md", optarg);
            break;
        case 'D': dry = 1; break;
        case 'P': probe_bw = 1; break;
        case 'R': rows = 1; break;
        case 'Q': quiet = 1; break;
        case 'h': sweep_usage(stdout); return 0;
        default:
            sweep_usage(stderr);
            return mp_die(2, "sweep: unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return mp_die(2, "sweep: unexpected argument '%s'", argv[optind]);
    if (strcmp(backend, "pfm") && strcmp(backend, "papi"))
        return mp_die(2, "--counters-backend: '%s' is not pfm or papi", backend);
    if (quick) {
        if (!models[0] && !shapes_arg[0])
            snprintf(models, sizeof models, "bitnet-b1.58-2b-4t");
        if (!nlist)
            nlist = "1,32";
        if (!tlist)
            tlist = "1,2";
        if (!reps_given)
            bo.min_reps = 5;
        if (!time_given)
            bo.min_time = 0.03;
    }
    if (!models[0] && !shapes_arg[0])
        return mp_die(2, "sweep: give --model NAME|all, --shape MxK, or --quick");
    bo.seed = (uint64_t)seed;

    /* variants */
    const mp_variant *sel[MAX_SEL];
    int nsel = 0;
    if (globs[0]) {
        if ((rc = mp_select_variants(globs, sel, MAX_SEL, &nsel, &e)))
            return mp_die(rc, "%s", e.msg);
    } else if (quick) {
        nsel = best_per_method(sel, MAX_SEL);
    } else {
        if ((rc = mp_select_variants("*", sel, MAX_SEL, &nsel, &e)))
            return mp_die(rc, "%s", e.msg);
    }
    static mp_case cases[MAX_CASES];
    int ncase;
    if ((rc = mp_plan_cases(sel, nsel, !strcmp(params, "all"), cases, MAX_CASES, &ncase, &e)))
        return mp_die(rc, "%s", e.msg);

    /* shapes: from models (deduplicated) and --shape */
    static int shapes[MAX_SHAPES][2];
    int ns = 0;
    if (models[0]) {
        char buf[2048];
        snprintf(buf, sizeof buf, "%s", models);
        char **all = NULL;
        int nall = 0;
        if (!strcmp(buf, "all")) {
            nall = mp_model_list(&all);
            buf[0] = 0;
            for (int i = 0; i < nall; i++) {
                if (!rc)
                    rc = mp_append(buf, sizeof buf, all[i], "--model all", &e);
                free(all[i]);
            }
            free(all);
            if (rc)
                return mp_die(rc, "%s", e.msg);
        }
        char *save = NULL;
        for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            mp_model mdl;
            int sh[8][2];
            char names[8][32];
            if ((rc = mp_model_load(tok, &mdl, &e)))
                return mp_die(rc, "%s", e.msg);
            int k = mp_model_shapes(&mdl, sh, names);
            for (int i = 0; i < k; i++) {
                int dup = 0;
                for (int j = 0; j < ns; j++)
                    dup |= shapes[j][0] == sh[i][0] && shapes[j][1] == sh[i][1];
                if (!dup && ns == MAX_SHAPES)
                    return mp_die(2, "--model: more than %d distinct shapes", MAX_SHAPES);
                if (!dup)
                    shapes[ns][0] = sh[i][0], shapes[ns][1] = sh[i][1], ns++;
            }
        }
    }
    if (shapes_arg[0]) {
        int more;
        if ((rc = mp_parse_shape_list(shapes_arg, shapes + ns, MAX_SHAPES - ns, &more, &e)))
            return mp_die(rc, "%s", e.msg);
        ns += more;
    }
    int nv[MAX_LIST], tv[MAX_LIST], nn = 1, nt = 1;
    nv[0] = 1, tv[0] = 1;
    if (nlist && (rc = mp_parse_int_list(nlist, "--n", 1, 65536, nv, MAX_LIST, &nn, &e)))
        return mp_die(rc, "%s", e.msg);
    if (tlist && (rc = mp_parse_int_list(tlist, "--threads", 1, 1024, tv, MAX_LIST, &nt, &e)))
        return mp_die(rc, "%s", e.msg);

    mp_plan plan;
    if ((rc = mp_plan_kernels(&plan, cases, ncase, (const int(*)[2])shapes, ns, nv, nn, tv, nt,
                              shard_i, shard_n, bo.warm, &e)))
        return mp_die(rc, "%s", e.msg);
    if (mp_parse_only_stop("sweep")) {
        mp_plan_free(&plan);
        return 0;
    }
    /* the sweep key: everything that defines the set of results and how they are
     * measured, and the machine's fingerprint, so that machines of different kinds
     * sweeping the same plan keep their results apart in a merged database (issue 21) */
    mp_machine mach;
    mp_machine_probe_info(&mach);
    char cfg[8192], gate[32] = ""; /* gated sweeps keep their own results */
    if (bo.clock_gate > 0)
        snprintf(gate, sizeof gate, "|gate=%.3f", bo.clock_gate);
    size_t used = (size_t)snprintf(cfg, sizeof cfg, "sweep1|warm=%d|reps=%d|min=%.4f|seed=%d|params=%s%s|v=",
                                   bo.warm, bo.min_reps, bo.min_time, seed, params, gate);
    for (int i = 0; i < nsel && used < sizeof cfg; i++)
        used += (size_t)snprintf(cfg + used, sizeof cfg - used, "%s,", sel[i]->name);
    for (int i = 0; i < ns && used < sizeof cfg; i++)
        used += (size_t)snprintf(cfg + used, sizeof cfg - used, "|%dx%d", shapes[i][0], shapes[i][1]);
    if (used < sizeof cfg)
        used += (size_t)snprintf(cfg + used, sizeof cfg - used, "|n=%s|t=%s|c=%s",
                                 nlist ? nlist : "1", tlist ? tlist : "1", counters ? counters : "");
    if (used < sizeof cfg)
        snprintf(cfg + used, sizeof cfg - used, "|fp=%s", mach.fingerprint);
    mp_plan_set_key(&plan, cfg);
    if (dry) {
        /* the plan, nothing measured or stored: this shard's results, then the totals */
        printf("# variant\tparams\tm\tk\tn\tthreads\n");
        for (int p = 0; p < plan.nprob; p++)
            for (int q = 0; q < ncase; q++) {
                char ps[128];
                mp_params_str(cases[q].v, cases[q].param, ps, sizeof ps);
                printf("%s\t%s\t%d\t%d\t%d\t%d\n", cases[q].v->name, ps, plan.probs[p].m,
                       plan.probs[p].k, plan.probs[p].n, plan.probs[p].threads);
            }
        printf("# sweep key %s: %d variants/parameter sets x %d shapes x %d n x %d threads = %d "
               "points, %ld results; shard %d/%d: %d points, %ld results\n",
               plan.key, ncase, ns, nn, nt, plan.all_probs, (long)plan.all_probs * ncase,
               shard_i, shard_n, plan.nprob, (long)plan.nprob * ncase);
        mp_plan_free(&plan);
        return 0;
    }

    if (counters && strcmp(counters, "none")) {
        /* validate the event names before anything is stored */
        mp_counters *probe;
        if ((rc = mp_counters_open(counters, backend, NULL, 0, &probe, &e))) {
            mp_plan_free(&plan);
            return mp_die(rc, "%s", e.msg);
        }
        mp_counters_close(probe);
    }
    mp_machine_warn(&mach);
    mp_store *store;
    if ((rc = mp_store_open(db, &store, &e))) {
        mp_plan_free(&plan);
        return mp_die(rc, "%s", e.msg);
    }
    mp_engine_opts eo = {.bench = bo, .kind = "sweep", .cmdline = cmdline, .counters = counters,
                         .backend = backend, .probe_bw = probe_bw, .quiet = quiet};
    mp_engine_out out;
    double t0 = mp_now();
    if ((rc = mp_engine_run(store, &mach, &plan, &eo, &out, &e))) {
        mp_plan_free(&plan);
        mp_store_close(store);
        return mp_die(rc, "%s", e.msg);
    }
    const char *status = out.interrupted ? "interrupted" : out.failed ? "failed" : "ok";
    if (out.todo == 0)
        fprintf(stderr, "mpbench: sweep %s: all %ld results already stored in %s\n", plan.key,
                out.total, db);
    else
        fprintf(stderr, "mpbench: sweep %s: %d of %ld results measured by this process in "
                        "%.1fs (%s)%s; %ld new rows stored in %s by this process\n",
                plan.key, out.nrows, out.total, mp_now() - t0, status,
                out.total != out.todo ? ", the rest resumed from the store" : "", out.stored, db);
    /* what the user came for: every row (--rows) or the best per method */
    mp_result *all = NULL;
    int nall = 0;
    if ((rc = mp_store_plan_results(store, plan.key, bo.warm ? "warm" : "cold", &all, &nall, &e)))
        mp_die(rc, "%s", e.msg);
    else if (rows)
        mp_results_print(stdout, fmt, all, nall);
    else
        mp_results_summary(stdout, fmt, all, nall);
    free(all);
    int failed = out.failed, interrupted = out.interrupted;
    long stored = out.stored;
    mp_engine_out_free(&out);
    mp_plan_free(&plan);
    mp_store_close(store);
    if (rc)
        return rc;
    if (interrupted)
        return mp_die(130, "interrupted: %ld results stored by this process are kept; re-run the "
                           "same command to resume (stored points are skipped)", stored);
    return failed ? mp_die(1, "some variants gave wrong results (status failed)") : 0;
}
