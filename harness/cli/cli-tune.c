/* cli-tune.c - `mpbench tune`: the best parameters of a variant per (machine,
 * shape, n, threads), and proof that they are.
 *
 * A strategy (tuner/mp_search.h) explores the variant's parameter space through
 * the engine's cost function (engine/tune.c), which stores every evaluation as
 * it is measured; each decision is stored as it is made, so a killed tune run
 * again with the same arguments resumes where it stopped.  The best point found
 * replaces the default only if it is really faster: the two are re-measured
 * interleaved with >= 9 repetitions each, a one-sided Mann-Whitney U test must
 * give p < alpha and the median gain must reach the margin; then an A-B-A round
 * (default, winner, default, repeated) must confirm the gain.  Otherwise the
 * answer is "no significant winner, keep default".  Winners go to the tuned table
 * and to results/tuned/FINGERPRINT.conf, which `mpbench e2e --tuned` reads; the
 * command ends by printing this tune's report table. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_cli.h"
#include "../gguf/mp_gguf.h"
#include "../core/mp_core.h"
#include "../report/mp_output.h"
#include "../store/mp_store_tune.h"
#include "../engine/mp_tune_sweep.h"
#include "../engine/mp_engine.h"
#include "../../tuner/mp_search.h"
#include "../../tuner/mp_stats.h"
#include "../../tuner/mp_tuned.h"
#include "../../variants/mp_registry.h"

enum { MAX_SEL = 256, MAX_LIST = 16 };

/* The report table: every decision in the store (plan_key NULL) or a plan's,
 * one table per machine (a merged database holds several; issue 21). */
static int print_report(mp_store *s, const char *plan_key, mp_format fmt, const char *db)
{
    mp_tuned_row *rows;
    int nrows;
    mp_err e;
    int rc = mp_store_tuned_list(s, plan_key, &rows, &nrows, &e);
    if (rc)
        return mp_die(rc, "tune --report: %s", e.msg);
    int md = fmt == MP_FMT_MD, csv = fmt == MP_FMT_CSV;
    if (csv)
        puts("machine,variant,m,k,n,threads,strategy,best_params,best_us,default_us,gain_pct,"
             "p_value,exhaustive_params,exhaustive_us,gap_pct,evaluations,seconds,decision");
    const char *group = NULL;
    for (int i = 0; i < nrows; i++) {
        const mp_tuned_row *r = &rows[i];
        if (!group || strcmp(group, r->machine)) {
            group = r->machine;
            if (md)
                printf("%s**machine `%s`** (%s)\n\n"
                       "| variant | shape | n | thr | strategy | best found | best µs | default µs "
                       "| gain | exhaustive best | gap | evals | s | decision |\n"
                       "|---|---|--:|--:|---|---|--:|--:|--:|---|--:|--:|--:|---|\n",
                       i ? "\n" : "", r->machine, r->cpu_model);
            else if (!csv)
                printf("%smachine %s (%s)\n"
                       "%-22s %-11s %4s %3s %-10s %-24s %9s %9s %6s %-24s %6s %5s %6s  %s\n",
                       i ? "\n" : "", r->machine, r->cpu_model, "variant", "shape", "n", "thr",
                       "strategy", "best found", "best_us", "dflt_us", "gain", "exhaustive best",
                       "gap", "evals", "secs", "decision");
        }
        char gap[32] = "-", exs[160] = "-", shape[32];
        int have_ex = r->have_exhaustive;
        if (have_ex && r->exhaustive_us > 0) {
            snprintf(gap, sizeof gap, "%.1f%%", 100.0 * (r->best_us / r->exhaustive_us - 1.0));
            snprintf(exs, sizeof exs, "%s (%.1f)",
                     r->exhaustive_params[0] ? r->exhaustive_params : "-", r->exhaustive_us);
        }
        snprintf(shape, sizeof shape, "%dx%d", r->m, r->k);
        if (csv)
            printf("%s,%s,%d,%d,%d,%d,%s,\"%s\",%.3f,%.3f,%.2f,%.3g,\"%s\",%s,%s,%d,%.1f,\"%s\"\n",
                   r->machine, r->variant, r->m, r->k, r->n, r->threads, r->strategy,
                   r->best_params, r->best_us, r->default_us, r->gain_pct, r->p_value,
                   have_ex ? r->exhaustive_params : "", have_ex ? exs : "", gap, r->evaluations,
                   r->seconds, r->decision);
        else if (md)
            printf("| %s | %s | %d | %d | %s | %s | %.1f | %.1f | %.1f%% | %s | %s | %d | %.0f | %s |\n",
                   r->variant, shape, r->n, r->threads, r->strategy, r->best_params, r->best_us,
                   r->default_us, r->gain_pct, exs, gap, r->evaluations, r->seconds, r->decision);
        else
            printf("%-22s %-11s %4d %3d %-10s %-24s %9.1f %9.1f %5.1f%% %-24s %6s %5d %6.0f  %s\n",
                   r->variant, shape, r->n, r->threads, r->strategy, r->best_params, r->best_us,
                   r->default_us, r->gain_pct, exs, gap, r->evaluations, r->seconds, r->decision);
    }
    free(rows);
    if (!nrows)
        fprintf(stderr, "mpbench: no tuned results in %s (run 'mpbench tune' first)\n", db);
    return 0;
}

static int report(const char *db, mp_format fmt)
{
    mp_store *s;
    mp_err e;
    int rc = mp_store_open(db, &s, &e);
    if (rc)
        return mp_die(rc, "%s", e.msg);
    rc = print_report(s, NULL, fmt, db);
    mp_store_close(s);
    return rc;
}

static void tune_usage(FILE *f)
{
    fputs("usage: mpbench tune --variant GLOB (--model NAME | --gguf FILE | --shape MxK[xN]) [--n LIST]\n"
          "                    [--threads LIST] --strategy exhaustive|random|halving|model\n"
          "                    [--budget N] [--margin PCT] [--alpha P] [--reps R] [--warm]\n"
          "                    [--seed S] [--db PATH] [--out FILE] [--force] [--quiet]\n"
          "                    [--format table|csv|md]\n"
          "       mpbench tune --report [--db PATH] [--format table|csv|md]\n"
          "       mpbench tune --from-sweep [--db PATH] [--out DIR] [--margin PCT] [--alpha P]\n"
          "  --from-sweep: DIR/FINGERPRINT.conf (default results/tuned) for every machine in\n"
          "  the database, from the parameter grids its sweeps stored (--params all): the\n"
          "  same test on the stored repetitions, without the A-B-A round.\n"
          "  A winner replaces the default only if it is faster by --margin percent\n"
          "  (default 3) with a one-sided Mann-Whitney U test p < --alpha (default 0.01)\n"
          "  over >= 9 interleaved repetitions each, confirmed by an A-B-A round.\n"
          "  Every evaluation and decision is stored as it is made; the same command\n"
          "  run again resumes.  It ends by printing the report table of this tune.\n",
          f);
}

int mp_cmd_tune(int argc, char **argv)
{
    static const struct option opts[] = {
        {"variant", required_argument, 0, 'v'},  {"model", required_argument, 0, 'M'},   {"gguf", required_argument, 0, 'G'},
        {"shape", required_argument, 0, 's'},    {"n", required_argument, 0, 'n'},
        {"threads", required_argument, 0, 't'},  {"strategy", required_argument, 0, 'S'},
        {"budget", required_argument, 0, 'b'},   {"margin", required_argument, 0, 'g'},
        {"alpha", required_argument, 0, 'a'},    {"reps", required_argument, 0, 'r'},
        {"warm", no_argument, 0, 'w'},           {"seed", required_argument, 0, 'x'},
        {"db", required_argument, 0, 'd'},       {"out", required_argument, 0, 'o'},
        {"force", no_argument, 0, 'F'},          {"report", no_argument, 0, 'R'},
        {"format", required_argument, 0, 'f'},   {"quiet", no_argument, 0, 'Q'},
        {"from-sweep", no_argument, 0, 'W'},     {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *globs = NULL, *model = NULL, *shape = NULL, *nlist = NULL, *tlist = NULL,
               *strategy = NULL, *db = "results/mpbench.db", *outp = NULL;
    int budget = 0, reps = 9, seed = 1, force = 0, want_report = 0, quiet = 0, from_sweep = 0;
    int c, rc;
    double margin = 3.0, alpha = 0.01;
    mp_format fmt = MP_FMT_TABLE;
    mp_bench_opts bo;
    mp_bench_defaults(&bo);
    mp_err e;
    char cmdline[2048];
    mp_join_argv(argc - 1, argv + 1, cmdline, sizeof cmdline);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'v': globs = optarg; break;
        case 'M': model = optarg; break;
        case 'G': /* --gguf FILE (issue 19): mp_model_load reads GGUF files */
            if ((rc = mp_gguf_arg(optarg)))
                return rc;
            model = optarg;
            break;
        case 's': shape = optarg; break;
        case 'n': nlist = optarg; break;
        case 't': tlist = optarg; break;
        case 'S': strategy = optarg; break;
        case 'b':
            if ((rc = mp_parse_int(optarg, "--budget", 1, 100000, &budget, &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'g':
            if ((rc = mp_parse_double(optarg, "--margin (a percentage)", 0, 90, &margin, &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'a':
            if (mp_parse_double(optarg, "--alpha", 0, 1, &alpha, &e) || alpha <= 0 || alpha >= 1)
                return mp_die(2, "--alpha: '%s' is not a number in (0, 1)", optarg);
            break;
        case 'r':
            if ((rc = mp_parse_int(optarg, "--reps", 9, 100000, &reps, &e)))
                return mp_die(rc, "%s (the rank test needs >= 9 repetitions)", e.msg);
            break;
        case 'w': bo.warm = 1; break;
        case 'x':
            if ((rc = mp_parse_int(optarg, "--seed", 0, 2147483647, &seed, &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'd': db = optarg; break;
        case 'o': outp = optarg; break;
        case 'F': force = 1; break;
        case 'R': want_report = 1; break;
        case 'W': from_sweep = 1; break;
        case 'f':
            if (mp_format_parse(optarg, &fmt) || fmt == MP_FMT_JSON)
                return mp_die(2, "--format: '%s' is not one of table, csv, md", optarg);
            break;
        case 'Q': quiet = 1; break;
        case 'h': tune_usage(stdout); return 0;
        default:
            tune_usage(stderr);
            return mp_die(2, "tune: unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return mp_die(2, "tune: unexpected argument '%s'", argv[optind]);
    if ((want_report || from_sweep) && mp_parse_only_stop("tune"))
        return 0; /* both open the store read-write */
    if (want_report)
        return report(db, fmt);
    if (from_sweep)
        return mp_tune_from_sweep(db, outp ? outp : "results/tuned", margin, alpha);
    mp_strategy st;
    if (!strategy || mp_strategy_parse(strategy, &st))
        return mp_die(2, "--strategy: '%s' is not exhaustive, random, halving or model",
                      strategy ? strategy : "");
    if (!globs)
        return mp_die(2, "tune: --variant is required");
    if (!!model == !!shape)
        return mp_die(2, "tune: give exactly one of --model NAME or --shape MxK[xN]");
    const mp_variant *sel[MAX_SEL];
    int nsel;
    if ((rc = mp_select_variants(globs, sel, MAX_SEL, &nsel, &e)))
        return mp_die(rc, "%s", e.msg);
    int shapes[16][2], ns = 0, nv[MAX_LIST] = {1}, tv[MAX_LIST] = {1}, nn = 1, nt = 1;
    if (shape) {
        int sn;
        if ((rc = mp_parse_shape(shape, &shapes[0][0], &shapes[0][1], &sn, &e)))
            return mp_die(rc, "%s", e.msg);
        ns = 1;
        if (sn)
            nv[0] = sn;
    } else {
        mp_model mdl;
        char names[16][32];
        if ((rc = mp_model_load(model, &mdl, &e)))
            return mp_die(rc, "%s", e.msg);
        ns = mp_model_shapes(&mdl, shapes, names);
    }
    if (nlist && (rc = mp_parse_int_list(nlist, "--n", 1, 65536, nv, MAX_LIST, &nn, &e)))
        return mp_die(rc, "%s", e.msg);
    if (tlist && (rc = mp_parse_int_list(tlist, "--threads", 1, 1024, tv, MAX_LIST, &nt, &e)))
        return mp_die(rc, "%s", e.msg);
    bo.seed = (uint64_t)seed;
    if (mp_parse_only_stop("tune"))
        return 0;

    mp_machine mach;
    mp_machine_probe_info(&mach);
    bo.llc_bytes = mp_machine_llc_bytes(&mach);
    char conf[1024];
    if (outp)
        snprintf(conf, sizeof conf, "%s", outp);
    else {
        mkdir("results", 0755);
        mkdir("results/tuned", 0755);
        snprintf(conf, sizeof conf, "results/tuned/%s.conf", mach.fingerprint);
    }
    mp_tuned tuned = {{0}, 0, NULL};
    if (access(conf, F_OK) == 0) {
        if ((rc = mp_tuned_load(conf, mach.fingerprint, force, &tuned, e.msg, sizeof e.msg)))
            return mp_die(rc, "%s", e.msg);
    }
    snprintf(tuned.fingerprint, sizeof tuned.fingerprint, "%s", mach.fingerprint);
    /* the plan key: everything that decides what is measured and how */
    char cfg[4096];
    int used = snprintf(cfg, sizeof cfg, "tune1|%s|%s|b=%d|g=%.3f|a=%.4g|r=%d|w=%d|s=%d|t=%s|n=%s",
                        globs, mp_strategy_name(st), budget, margin, alpha, reps, bo.warm, seed,
                        tlist ? tlist : "1", nlist ? nlist : "-");
    for (int i = 0; i < ns && used > 0 && (size_t)used < sizeof cfg; i++)
        used += snprintf(cfg + used, sizeof cfg - (size_t)used, "|%dx%d", shapes[i][0], shapes[i][1]);
    /* the machine too: machines of different kinds keep their rows apart when merged */
    if (used > 0 && (size_t)used < sizeof cfg)
        snprintf(cfg + used, sizeof cfg - (size_t)used, "|fp=%s", mach.fingerprint);
    mp_plan keyed = {0};
    mp_plan_set_key(&keyed, cfg);
    const char *plan_key = keyed.key;

    mp_store *store;
    int64_t machine_id, run_id;
    if ((rc = mp_store_open(db, &store, &e)) ||
        (rc = mp_store_machine(store, &mach, &machine_id, &e)) ||
        (rc = mp_store_run_begin(store, machine_id, "tune", &mach, cmdline, "", &run_id, &e)) ||
        (rc = mp_store_set_config_key(store, run_id, plan_key, &e))) {
        mp_tuned_free(&tuned);
        mp_store_close(store);
        return mp_die(rc, "%s", e.msg);
    }
    long problems = (long)nt * nsel * ns * nn;
    mp_progress pg;
    mp_progress_begin(&pg, problems, quiet);
    mp_engine_catch_signals();
    int tuned_any = 0, resumed = 0;
    for (int ti = 0; ti < nt && !rc && !mp_engine_interrupted(); ti++) {
        char binding[512];
        mp_pool *pool = mp_pool_create(tv[ti], binding, sizeof binding);
        for (int vi = 0; vi < nsel && !rc && !mp_engine_interrupted(); vi++) {
            const mp_variant *v = sel[vi];
            if (!v->n_params) {
                fprintf(stderr, "mpbench: %s has no tunable parameters: skipped\n", v->name);
                mp_progress_step(&pg, (long)ns * nn);
                continue;
            }
            if (!mp_variant_available(v)) {
                fprintf(stderr, "mpbench: %s: this CPU lacks its ISA: skipped\n", v->name);
                mp_progress_step(&pg, (long)ns * nn);
                continue;
            }
            mp_space sp;
            mp_space_of(v, &sp);
            for (int si = 0; si < ns && !rc && !mp_engine_interrupted(); si++)
                for (int ni = 0; ni < nn && !rc && !mp_engine_interrupted(); ni++) {
                    int m = shapes[si][0], k = shapes[si][1], n = nv[ni];
                    int defp[MP_MAX_PARAMS], start[MP_MAX_PARAMS], di[MP_MAX_PARAMS];
                    char why[256];
                    mp_variant_defaults(v, defp);
                    mp_progress_show(&pg, "%s %dx%d n=%d t=%d", v->name, m, k, n, tv[ti]);
                    if (mp_variant_check(v, m, k, defp, why, sizeof why)) {
                        fprintf(stderr, "mpbench: %s cannot take %dx%d: %s\n", v->name, m, k, why);
                        mp_progress_step(&pg, 1);
                        continue;
                    }
                    mp_tuned_row row;
                    int had = mp_store_tuned_get(store, plan_key, v->name, m, k, n, tv[ti], &row, &e);
                    if (had < 0) {
                        rc = mp_die(-had, "%s", e.msg);
                        break;
                    }
                    int chosen[MP_MAX_PARAMS];
                    if (had) {
                        /* decided by an earlier, interrupted run of this same tune */
                        resumed++;
                        if (mp_params_parse(v, row.chosen_params, chosen, why, sizeof why))
                            memcpy(chosen, defp, sizeof chosen);
                    } else {
                        mp_space_index(&sp, defp, di);
                        memcpy(start, di, sizeof start);
                        if (st == MP_MODEL && v->suggest) {
                            int sug[MP_MAX_PARAMS];
                            memcpy(sug, defp, sizeof sug);
                            v->suggest(m, k, n, mach.l1d_kib * 1024, mach.l2_kib * 1024, sug);
                            if (mp_space_index(&sp, sug, start))
                                memcpy(start, di, sizeof start);
                        }
                        mp_tune_problem t = {.pool = pool, .v = v, .sp = &sp, .m = m, .k = k,
                                             .n = n, .base = bo, .store = store,
                                             .run_id = run_id, .key = plan_key};
                        double t0 = mp_now();
                        mp_search_result sr;
                        if (!pg.on && !quiet)
                            fprintf(stderr, "mpbench: tune %s %dx%d n=%d t=%d: %s over %ld points...\n",
                                    v->name, m, k, n, tv[ti], mp_strategy_name(st),
                                    mp_space_size(&sp));
                        mp_search(&sp, st, budget, start, (uint64_t)seed, mp_tune_cost, &t, &sr);
                        if (mp_engine_interrupted()) {
                            mp_tune_problem_free(&t);
                            break; /* the evaluations so far are stored: a re-run resumes */
                        }
                        int bestp[MP_MAX_PARAMS];
                        mp_space_values(&sp, sr.best, bestp);
                        mp_tune_decision d;
                        if (!memcmp(sr.best, di, sizeof(int) * (size_t)sp.n) ||
                            !isfinite(sr.best_cost)) {
                            memset(&d, 0, sizeof d);
                            d.best_us = d.default_us = sr.best_cost;
                            d.p_value = 1;
                            snprintf(d.text, sizeof d.text, "default is the best found");
                        } else {
                            mp_tune_decide(&t, defp, bestp, reps, margin, alpha, &d);
                        }
                        memcpy(chosen, d.winner ? bestp : defp, sizeof chosen);
                        memset(&row, 0, sizeof row);
                        snprintf(row.variant, sizeof row.variant, "%s", v->name);
                        row.m = m, row.k = k, row.n = n, row.threads = tv[ti];
                        snprintf(row.strategy, sizeof row.strategy, "%s", mp_strategy_name(st));
                        mp_params_str(v, bestp, row.best_params, sizeof row.best_params);
                        mp_params_str(v, defp, row.default_params, sizeof row.default_params);
                        mp_params_str(v, chosen, row.chosen_params, sizeof row.chosen_params);
                        row.best_us = d.best_us, row.default_us = d.default_us;
                        row.gain_pct = d.gain_pct, row.p_value = d.p_value;
                        row.aba_confirmed = d.aba_confirmed;
                        snprintf(row.decision, sizeof row.decision, "%s", d.text);
                        row.evaluations = sr.evaluations;
                        row.seconds = mp_now() - t0;
                        mp_tune_problem_free(&t);
                        if ((rc = mp_store_tuned_put(store, run_id, plan_key, &row, &e))) {
                            mp_die(rc, "%s", e.msg);
                            break;
                        }
                    }
                    mp_progress_step(&pg, 1);
                    /* upsert into the tuned config */
                    int slot = -1;
                    for (int i = 0; i < tuned.count; i++)
                        if (tuned.e[i].v == v && tuned.e[i].m == m && tuned.e[i].k == k &&
                            tuned.e[i].n == n && tuned.e[i].threads == tv[ti])
                            slot = i;
                    if (slot < 0) {
                        tuned.e = realloc(tuned.e, sizeof *tuned.e * (size_t)(tuned.count + 1));
                        slot = tuned.count++;
                    }
                    tuned.e[slot] = (mp_tuned_entry){v, m, k, n, tv[ti], {0}};
                    memcpy(tuned.e[slot].param, chosen, sizeof tuned.e[slot].param);
                    tuned_any = 1;
                }
        }
        mp_pool_destroy(pool);
    }
    mp_progress_end(&pg);
    int interrupted = mp_engine_interrupted();
    mp_store_run_end(store, run_id, rc ? "error" : interrupted ? "interrupted" : "ok", &e);
    if (resumed)
        fprintf(stderr, "mpbench: tune %s: %d decisions taken from an earlier run of this tune\n",
                plan_key, resumed);
    if (!rc && !interrupted)
        rc = print_report(store, plan_key, fmt, db);
    mp_store_close(store);
    if (tuned_any && !rc && !interrupted) {
        if ((rc = mp_tuned_save(conf, &tuned, e.msg, sizeof e.msg)))
            mp_die(rc, "%s", e.msg);
        else
            fprintf(stderr, "mpbench: tuned parameters written to %s\n", conf);
    }
    mp_tuned_free(&tuned);
    if (!rc && interrupted)
        return mp_die(130, "interrupted: re-run the same command to resume (evaluations and "
                           "decisions so far are stored)");
    return rc;
}
