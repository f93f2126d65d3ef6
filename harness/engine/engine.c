/* engine.c - runs a kernel plan: for each problem of the shard, the cases not
 * yet stored are measured together (engine/measure.c), then stored in one
 * transaction before the next problem starts, so an interruption (Ctrl-C,
 * kill -9, power loss) loses at most the problem in flight and a restarted
 * resumable plan measures only what is missing.  One pool (and one counter
 * set) per thread count, created when its first problem needs it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_engine.h"
#include "mp_counters.h"
#include "../store/mp_probe_store.h"
#include "../../variants/mp_registry.h"

typedef struct key_set {
    char **keys;
    int n;
} key_set;

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_done(const key_set *d, const char *key)
{
    return d->n && bsearch(&key, d->keys, (size_t)d->n, sizeof *d->keys, cmp_key) != NULL;
}

static void case_key(char *buf, size_t len, const mp_case *c, const mp_problem *p)
{
    char ps[128];
    mp_params_str(c->v, c->param, ps, sizeof ps);
    mp_point_key(buf, len, c->v->name, ps, p->m, p->k, p->n, p->threads);
}

/* The counters of one pool: validated up front by the command; events the
 * machine refuses are said once per run on stderr and stored with the run. */
static int open_counters(const mp_engine_opts *o, mp_pool *pool, int threads, mp_store *store,
                         int64_t run_id, int *said, mp_counters **cs, mp_err *e)
{
    *cs = NULL;
    if (o->counters && !strcmp(o->counters, "none"))
        return MP_OK;
    int rc = mp_counters_open(o->counters, o->backend ? o->backend : "pfm", mp_pool_tids(pool),
                              threads, cs, e);
    if (rc || *said)
        return rc;
    *said = 1;
    for (int i = 0; i < mp_counters_n(*cs); i++)
        if (mp_counters_unavailable(*cs, i) && !o->quiet)
            fprintf(stderr, "mpbench: counter %s unavailable: %s\n", mp_counters_name(*cs, i),
                    mp_counters_unavailable(*cs, i));
    if (store && (rc = mp_store_run_counters(store, run_id, *cs, e))) {
        mp_counters_close(*cs); /* not handed to the caller: its own to free */
        *cs = NULL;
    }
    return rc;
}

/* whether the plan measures case q on problem pr */
static int plan_applies(const mp_plan *plan, int q, const mp_problem *pr)
{
    return !plan->applies || plan->applies(&plan->cases[q], pr, plan->applies_ctx);
}

int mp_engine_run(mp_store *store, const mp_machine *mach, const mp_plan *plan,
                  const mp_engine_opts *o, mp_engine_out *out, mp_err *e)
{
    memset(out, 0, sizeof *out);
    const char *cache = plan->warm ? "warm" : "cold";
    key_set done = {0};
    int rc = MP_OK;
    if (store && plan->key[0] &&
        (rc = mp_store_done_keys(store, plan->key, cache, &done.keys, &done.n, e)))
        return rc;
    if (done.n)
        qsort(done.keys, (size_t)done.n, sizeof *done.keys, cmp_key);
    char k[512];
    for (int p = 0; p < plan->nprob; p++)
        for (int q = 0; q < plan->ncase; q++) {
            if (!plan_applies(plan, q, &plan->probs[p]))
                continue;
            case_key(k, sizeof k, &plan->cases[q], &plan->probs[p]);
            out->total++;
            out->todo += !is_done(&done, k);
        }
    if (out->todo == 0)
        goto done;
    if (out->total != out->todo)
        fprintf(stderr, "mpbench: %s %s: resuming, %ld of %ld results already stored\n", o->kind,
                plan->key, out->total - out->todo, out->total);
    int64_t machine_id = 0;
    if (store && ((rc = mp_store_machine(store, mach, &machine_id, e)) ||
                  (rc = mp_store_run_begin(store, machine_id, o->kind, mach, o->cmdline, "",
                                           &out->run_id, e)) ||
                  (plan->key[0] && (rc = mp_store_set_config_key(store, out->run_id, plan->key, e)))))
        goto done;

    const long stored0 = mp_store_inserted(store);
    mp_bench_opts bo = o->bench;
    bo.warm = plan->warm;
    bo.llc_bytes = mp_machine_llc_bytes(mach);
    mp_progress pg;
    mp_progress_begin(&pg, out->todo, o->quiet);
    mp_engine_catch_signals();
    mp_case *pending = malloc(sizeof *pending * (size_t)(plan->ncase ? plan->ncase : 1));
    mp_result *res = calloc((size_t)(plan->ncase ? plan->ncase : 1), sizeof *res);
    char bindings[2048] = "";
    int said = 0;
    mp_pool *pool = NULL;
    int pool_threads = 0;
    for (int p = 0; p < plan->nprob && !rc && !mp_engine_interrupted(); p++) {
        const mp_problem *pr = &plan->probs[p];
        int np = 0;
        for (int q = 0; q < plan->ncase; q++) {
            if (!plan_applies(plan, q, pr))
                continue;
            case_key(k, sizeof k, &plan->cases[q], pr);
            if (!is_done(&done, k))
                pending[np++] = plan->cases[q];
        }
        if (!np)
            continue;
        if (!pool || pool_threads != pr->threads) {
            mp_pool_destroy(pool);
            char binding[512];
            pool = mp_pool_create(pr->threads, binding, sizeof binding);
            pool_threads = pr->threads;
            size_t bl = strlen(bindings);
            snprintf(bindings + bl, sizeof bindings - bl, "%st=%d[%s]", bl ? " " : "",
                     pr->threads, binding);
            mp_counters *cs;
            if ((rc = open_counters(o, pool, pr->threads, store, out->run_id, &said, &cs, e)))
                break;
            if (cs)
                out->cs[out->ncs++ % 64] = cs;
            bo.counters = cs;
            if (o->probe_bw && store) {
                /* this run's own bandwidth, so `compare` can cancel machine drift
                 * (the best of the probe's read methods, as the probe's own) */
                mp_probe_row row = {.kind = "read_DRAM", .threads = pr->threads,
                                    .bytes = 256ll << 20,
                                    .value = mp_probe_dram_read(pool, 256u << 20, 5),
                                    .unit = "GB/s"};
                if ((rc = mp_probe_store(store, out->run_id, &row, 1, e)))
                    break;
            }
        }
        mp_progress_show(&pg, "%dx%d n=%d t=%d (%d variants)", pr->m, pr->k, pr->n,
                         pr->threads, np);
        if ((rc = mp_bench_point(pool, pending, np, pr->m, pr->k, pr->n, &bo, res, e)))
            break;
        if (mp_engine_interrupted()) {
            /* its timing was cut short: abandoned, measured again on resume */
            for (int i = 0; i < np; i++)
                mp_result_free(&res[i]);
            out->abandoned = 1;
            break;
        }
        if (o->annotate)
            mp_model_annotate(res, np, pool, store, mach);
        for (int i = 0; i < np && store; i++)
            if (res[i].read_gbps > 0) {
                /* the point's same-run read stream, kept with the run (the report
                 * joins it to the point's rows by threads and M*K/4 bytes) */
                mp_probe_row row = {.kind = "read_inrun", .threads = pr->threads,
                                    .bytes = res[i].read_bytes, .value = res[i].read_gbps,
                                    .unit = "GB/s"};
                if ((rc = mp_probe_store(store, out->run_id, &row, 1, e)))
                    break;
                break;
            }
        if (!rc && store)
            rc = mp_store_results(store, out->run_id, plan->key[0] ? plan->key : NULL, res, np, e);
        if (rc) { /* measured but not kept: this point's timings go with the error */
            for (int i = 0; i < np; i++)
                mp_result_free(&res[i]);
            break;
        }
        mp_progress_step(&pg, np);
        out->rows = realloc(out->rows, sizeof *out->rows * (size_t)(out->nrows + np));
        for (int i = 0; i < np; i++) {
            if (res[i].status == MP_ST_FAILED) {
                char line[512];
                mp_point_rerun(line, sizeof line, &res[i], bo.seed);
                mp_progress_end(&pg);
                fprintf(stderr, "mpbench: FAILED %s%s%s%s %dx%d n=%d t=%d: %s\n  rerun: %s\n",
                        res[i].v->name, res[i].params[0] ? " [" : "", res[i].params,
                        res[i].params[0] ? "]" : "", res[i].m, res[i].k, res[i].n,
                        res[i].threads, res[i].reason, line);
                out->failed = 1;
            }
            mp_result_free(&res[i]);
            out->rows[out->nrows++] = res[i];
        }
    }
    mp_progress_end(&pg);
    mp_pool_destroy(pool);
    out->interrupted = mp_engine_interrupted();
    out->stored = mp_store_inserted(store) - stored0;
    free(pending);
    free(res);
    if (store && out->run_id) {
        mp_err e2;
        const char *status = rc ? "error" : out->interrupted ? "interrupted"
                                      : out->failed          ? "failed"
                                                             : "ok";
        mp_store_run_binding(store, out->run_id, bindings, &e2);
        mp_store_run_end(store, out->run_id, status, &e2);
    }
    if (rc) /* an error leaves the caller nothing to free */
        mp_engine_out_free(out);
done:
    for (int i = 0; i < done.n; i++)
        free(done.keys[i]);
    free(done.keys);
    return rc;
}

void mp_engine_out_free(mp_engine_out *out)
{
    free(out->rows);
    for (int i = 0; i < out->ncs && i < 64; i++)
        mp_counters_close(out->cs[i]);
    memset(out, 0, sizeof *out);
}
