/* cli-list.c - `mpbench list models|shapes|variants|formats|machine|gguf`: each
 * kind parses its own options from its table (cli/mp_options.h) and answers
 * --help, as `list` itself does.  `list variants --source [GLOB]`: where each
 * variant's pack, prepare and compute are defined. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_cli.h"
#include "../engine/mp_counters.h"
#include "../gguf/mp_gguf.h"
#include "../core/mp_core.h"
#include "../report/mp_output.h"
#include "../store/mp_probe_store.h"
#include "../../kernels/common/mp_isa.h"
#include "../../variants/mp_formats.h"
#include "../../variants/mp_registry.h"
#include "mp_options.h"

static int list_models(void)
{
    char **names;
    mp_err e;
    int rc = mp_models_dir_check(&e);
    if (rc)
        return mp_die(rc, "%s", e.msg);
    int n = mp_model_list(&names);
    if (!n)
        return mp_die(1, "no model files in %s", mp_models_dir());
    printf("%-22s %6s %6s %6s %5s %4s %7s  %s\n", "model", "hidden", "inter", "layers",
           "heads", "kv", "vocab", "ffn");
    for (int i = 0; i < n; i++) {
        mp_model m;
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

typedef struct list_opts {
    int source; /* list variants --source */
    const char *model, *db;
} list_opts;

static const mp_opt shapes_table[] = {
    MP_OPT_S("model", list_opts, model, "NAME", "the model (see mpbench list models)"),
    MP_OPT_FN_("gguf", list_opts, model, mp_opt_gguf, "FILE", "a GGUF model file"),
    MP_OPT_END};
static const mp_opt machine_table[] = {
    MP_OPT_S("db", list_opts, db, "PATH", "database with this machine's probe (default "
             "results/mpbench.db)"),
    MP_OPT_END};
static const mp_opt no_table[] = {MP_OPT_END};
static const mp_opt variants_table[] = {
    MP_OPT_F("source", 0, list_opts, source,
             "where each variant's pack, prepare and compute are defined (file:function); "
             "an optional GLOB after it picks the variants"),
    MP_OPT_END};

static int list_shapes(const list_opts *o)
{
    const char *model = o->model;
    int rc;
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

static int list_machine(const list_opts *o)
{
    const char *db = o->db;
    if (mp_parse_only_stop("list machine")) /* probes counters, opens the store */
        return 0;
    mp_machine m;
    mp_machine_probe_info(&m);
    char isa[96];
    printf("cpu          %s%s%s%s\n", m.cpu_model, m.cpu_id[0] ? " (" : "", m.cpu_id,
           m.cpu_id[0] ? ")" : "");
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
    if (access(db, F_OK) == 0) { /* given and there: it must be a database */
        mp_store *s;
        mp_err e;
        int rc = mp_store_open(db, &s, &e);
        if (rc == MP_OK) {
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
        } else { /* a database there that cannot be read: 3, like the other readers */
            return mp_die(rc, "%s", e.msg);
        }
    }
    return 0;
}

static const struct {
    const char *kind, *synopsis, *help;
    const mp_opt *table;
} kinds[] = {
    {"models", "", "the model files of models/shapes/", no_table},
    {"shapes", "--model NAME | --gguf FILE", "a model's layers and distinct ternary shapes",
     shapes_table},
    {"variants", "[--source [GLOB]]",
     "every variant, its method, family, numerics, availability, parameters", variants_table},
    {"formats", "", "the weight formats' traits", no_table},
    {"machine", "[--db PATH]", "this machine: CPU, caches, counters, newest probe",
     machine_table},
    {"gguf", "FILE [--tensors] [--llama P[,G]] [--llama-variant V]",
     "a GGUF file's keys and tensors, ggml's verdict, llama.cpp's tokens", NULL},
};

static void list_usage(FILE *f)
{
    fputs("usage: mpbench list KIND [options]   (mpbench list KIND --help for its options)\n\n"
          "kinds:\n", f);
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        fprintf(f, "  %-9s %s\n", kinds[i].kind, kinds[i].help);
}

int mp_cmd_list(int argc, char **argv)
{
    if (argc < 2) {
        list_usage(stderr);
        return mp_die(2, "usage: mpbench list models|shapes --model NAME|gguf FILE|variants|"
                         "formats|machine");
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        list_usage(stdout);
        return 0;
    }
    size_t k;
    for (k = 0; k < sizeof kinds / sizeof *kinds; k++)
        if (!strcmp(argv[1], kinds[k].kind))
            break;
    if (k == sizeof kinds / sizeof *kinds)
        return mp_die(2, "list: unknown kind '%s' (models, shapes, variants, formats, machine, "
                         "gguf)", argv[1]);
    if (!kinds[k].table)
        return mp_cmd_list_gguf(argc - 1, argv + 1);
    char name[32];
    snprintf(name, sizeof name, "list %s", kinds[k].kind);
    char about[160];
    snprintf(about, sizeof about, "Prints %s.\n", kinds[k].help);
    mp_cmd_spec spec = {.name = name, .synopsis = kinds[k].synopsis, .about = about,
                        .opts = kinds[k].table, .max_pos = k == 2};
    list_opts o = {.db = "results/mpbench.db"};
    mp_opts_out po;
    int rc;
    if ((rc = mp_opts_parse(&spec, argc - 1, argv + 1, &o, &po)) || po.help)
        return rc;
    switch (k) {
    case 0: return list_models();
    case 1: return list_shapes(&o);
    case 2:
        if (po.npos && !o.source)
            return mp_die(2, "list variants: unexpected argument '%s' (usage: mpbench list "
                             "variants [--source [GLOB]])", po.pos[0]);
        return o.source ? list_variant_sources(po.npos ? po.pos[0] : NULL) : list_variants();
    case 3: return list_formats();
    default: return list_machine(&o);
    }
}
