/* cli-list.c - `mpbench list models|shapes|variants|formats|machine`. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_cli.h"
#include "mp_counters.h"
#include "mp_gguf.h"
#include "mp_harness.h"
#include "mp_probe_store.h"
#include "../kernels/common/mp_isa.h"
#include "../variants/mp_formats.h"
#include "../variants/mp_registry.h"

static int list_models(void)
{
    char **names;
    int n = mp_model_list(&names);
    if (!n)
        return mp_die(1, "no model files in %s", mp_models_dir());
    printf("%-22s %6s %6s %6s %5s %4s %7s  %s\n", "model", "hidden", "inter", "layers",
           "heads", "kv", "vocab", "ffn");
    int rc = 0;
    for (int i = 0; i < n; i++) {
        mp_model m;
        mp_err e;
        if (mp_model_load(names[i], &m, &e)) {
            fprintf(stderr, "mpbench: %s\n", e.msg);
            rc = 2;
        } else {
            printf("%-22s %6d %6d %6d %5d %4d %7d  %s%s\n", m.name, m.hidden, m.intermediate,
                   m.layers, m.heads, m.kv_heads, m.vocab, m.ffn_act,
                   m.sub_norm ? "+subnorm" : "");
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

static int list_shapes(int argc, char **argv)
{
    const char *model = NULL;
    int rc;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--model") && i + 1 < argc)
            model = argv[++i];
        else if (!strcmp(argv[i], "--gguf") && i + 1 < argc) { /* issue 19 */
            if ((rc = mp_gguf_arg(argv[++i])))
                return rc;
            model = argv[i];
        } else
            return mp_die(2, "list shapes: unexpected argument '%s' (usage: mpbench list "
                             "shapes --model NAME | --gguf FILE)", argv[i]);
    }
    if (!model)
        return mp_die(2, "list shapes: --model NAME is required");
    mp_model m;
    mp_err e;
    rc = mp_model_load(model, &m, &e);
    if (rc)
        return mp_die(rc, "%s", e.msg);
    mp_linear l[8];
    int nl = mp_model_linears(&m, l);
    printf("# %s (%d layers); source: %s\n", m.name, m.layers, m.source);
    printf("%-6s %7s %7s  %s\n", "layer", "M", "K", "precision");
    for (int i = 0; i < nl; i++)
        printf("%-6s %7d %7d  %s\n", l[i].layer, l[i].m, l[i].k,
               l[i].ternary ? "ternary" : "higher (kept in float by the papers)");
    int shapes[8][2];
    char names[8][32];
    int ns = mp_model_shapes(&m, shapes, names);
    printf("\ndistinct ternary shapes (M x K):\n");
    for (int i = 0; i < ns; i++)
        printf("  %dx%d  (%s)\n", shapes[i][0], shapes[i][1], names[i]);
    return 0;
}

static int list_variants(void)
{
    printf("%-28s %-10s %-9s %-11s %-9s %6s  %s\n", "variant", "method", "family", "numerics",
           "available", "K%", "parameters");
    for (int i = 0; i < mp_registry_count(); i++) {
        const mp_variant *v = mp_registry_get(i);
        char ps[256] = "";
        size_t used = 0;
        for (int j = 0; j < v->n_params; j++) {
            used += (size_t)snprintf(ps + used, sizeof ps - used, "%s%s={", j ? " " : "",
                                     v->params[j].name);
            for (int q = 0; q < v->params[j].n_values; q++)
                used += (size_t)snprintf(ps + used, sizeof ps - used, "%s%d", q ? "," : "",
                                         v->params[j].values[q]);
            used += (size_t)snprintf(ps + used, sizeof ps - used, "}");
        }
        static const char *const ex[] = {"lossless", "lossy", "float"};
        char why[512];
        int off = mp_variant_unavailable_reason(v, why, sizeof why);
        printf("%-28s %-10s %-9s %-11s %-9s %6d  %s%s%s\n", v->name, v->method,
               mp_family_name(v->family), ex[v->exactness], off ? "no" : "yes",
               v->k_multiple, ps, off ? (ps[0] ? "  unavailable: " : "unavailable: ") : "",
               off ? why : "");
    }
    printf("\nfamilies:\n"); /* generated from MP_FAMILIES (kernels/mp_kernel.h) */
    for (int f = 0; f < MP_FAMILY_COUNT; f++)
        printf("  %-9s %s\n", mp_family_name((mp_family)f), mp_family_doc((mp_family)f));
    char peer[1024]; /* issue 15: which llama.cpp build the llamacpp.* peers run */
    printf("\n%s\n", mp_registry_peers_describe(peer, sizeof peer));
    return 0;
}

/* `list variants --source [GLOB]`: where the pack, prepare and compute of each
 * variant whose name matches GLOB (fnmatch; all without one) are defined, as
 * the catalog row records them ("file:function", MP_SOURCES in variants/catalog.h). */
static int list_variant_sources(const char *glob)
{
    int hits = 0;
    for (int i = 0; i < mp_registry_count(); i++) {
        const mp_variant *v = mp_registry_get(i);
        if (glob && fnmatch(glob, v->name, 0))
            continue;
        printf("%s\n  pack     %s\n  prepare  %s\n  compute  %s\n", v->name,
               v->pack_src ? v->pack_src : "?", v->prepare_src ? v->prepare_src : "?",
               v->compute_src ? v->compute_src : "?");
        hits++;
    }
    return hits ? 0 : mp_die(2, "list variants --source: no variant matches '%s'", glob);
}

/* The traits table (variants/mp_formats.h): one row per weight format. */
static int list_formats(void)
{
    static const char *const ex[] = {"lossless", "lossy", "float"};
    printf("%-10s %-9s %-9s %-8s %6s %6s %5s %4s  %s\n", "format", "family", "numerics",
           "domain", "block", "bytes", "bpw", "K%", "source");
    for (int f = 1; mp_wformat_get(f); f++) {
        const mp_wformat_traits *t = mp_wformat_get(f);
        printf("%-10s %-9s %-9s %-8s %6d %6d %5.2f %4d  %s\n", t->method,
               mp_family_name(t->family), ex[t->exactness],
               t->domain == MP_DOMAIN_BINARY ? "binary" : "ternary", t->block, t->block_bytes,
               8.0 * t->block_bytes / t->block, t->k_multiple, t->source);
    }
    return 0;
}

static int list_machine(int argc, char **argv)
{
    const char *db = "results/mpbench.db";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--db") && i + 1 < argc)
            db = argv[++i];
        else
            return mp_die(2, "list machine: unexpected argument '%s' (usage: mpbench list "
                             "machine [--db PATH])", argv[i]);
    }
    if (mp_parse_only_stop("list machine")) /* probes counters, opens the store */
        return 0;
    mp_machine m;
    mp_machine_probe_info(&m);
    char isa[96];
    printf("cpu          %s\n", m.cpu_model);
    printf("fingerprint  %s\n", m.fingerprint);
    printf("cores / PUs  %d / %d\n", m.cores, m.pus);
    printf("memory       %d GiB\n", m.mem_gib);
    printf("isa flags    %s\n", m.isa_flags);
    printf("kernels use  %s\n", mp_isa_str(mp_isa_detect(), isa, sizeof isa));
    printf("caches       L1d %ld KiB, L2 %ld KiB, L3 %ld KiB%s%s\n", m.l1d_kib, m.l2_kib,
           m.l3_kib, m.caches_note[0] ? "  (" : "", m.caches_note);
    if (m.caches_note[0])
        printf(")\n");
    printf("hypervisor   %s\n", m.hypervisor);
    printf("governor     %s\n", m.governor);
    printf("load avg     %.2f\n", m.load_avg);
    printf("kernel       %s\n", m.kernel);
    printf("compiler     %s\n", m.compiler);
    printf("git commit   %s\n", m.git_commit);
    printf("counters:\n");
    mp_counters_describe(stdout);
    /* the newest probe of this machine, if the database has one (read only) */
    if (access(db, R_OK) == 0) {
        mp_store *s;
        mp_err e;
        if (mp_store_open(db, &s, &e) == MP_OK) {
            enum { MAXP = 8192 }; /* a probe of many threads has many ceilings */
            mp_probe_row *r = calloc(MAXP, sizeof *r);
            int n = r ? mp_probe_latest(s, m.fingerprint, r, MAXP) : 0;
            if (n) {
                printf("probe (newest in %s):\n", db);
                mp_probe_print(stdout, MP_FMT_TABLE, r, n);
            } else {
                printf("probe: none stored in %s for this machine (run 'mpbench probe')\n", db);
            }
            free(r);
            mp_store_close(s);
        }
    }
    return 0;
}

int mp_cmd_list(int argc, char **argv)
{
    if (argc < 2)
        return mp_die(2, "usage: mpbench list models|shapes --model NAME|gguf FILE|variants|formats|machine");
    if (!strcmp(argv[1], "gguf"))
        return mp_cmd_list_gguf(argc - 1, argv + 1);
    if (!strcmp(argv[1], "models"))
        return argc == 2 ? list_models() : mp_die(2, "list models takes no arguments");
    if (!strcmp(argv[1], "shapes"))
        return list_shapes(argc - 1, argv + 1);
    if (!strcmp(argv[1], "formats"))
        return argc == 2 ? list_formats() : mp_die(2, "list formats takes no arguments");
    if (!strcmp(argv[1], "variants")) {
        if (argc == 2)
            return list_variants();
        if (!strcmp(argv[2], "--source") && argc <= 4)
            return list_variant_sources(argc == 4 ? argv[3] : NULL);
        return mp_die(2, "list variants: unexpected argument '%s' (usage: mpbench list "
                         "variants [--source [GLOB]])", argv[2]);
    }
    if (!strcmp(argv[1], "machine"))
        return list_machine(argc - 1, argv + 1);
    return mp_die(2, "list: unknown kind '%s' (models, shapes, variants, formats, machine)", argv[1]);
}
