/* registry.c - flattens the family tables of catalog.h into one registry and
 * answers the questions the harness asks of a variant (availability, shape
 * check, parameters).  The harness never looks inside a kernel. */
#include "mp_registry.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/common/mp_isa.h"
#include "../kernels/common/mp_parse.h"
#include "catalog.h"

static const mp_variant *const *all;
static int n_all, n_catalog;
/* Tables registered by test builds (tests/variants/): the canary of the
 * regression gate and variants that fail on purpose.  Never in the product. */
static const mp_variant *extra_tables[4];
static int n_extra;

void mp_registry_add_testing(const mp_variant *table)
{
    if (all || n_extra == (int)(sizeof extra_tables / sizeof extra_tables[0]))
        abort(); /* must come before the first lookup (a constructor) */
    extra_tables[n_extra++] = table;
}

static void build(void)
{
    if (all)
        return;
    static const mp_variant *const tables[] = {
#define MP_TABLE(E, f, doc) mp_catalog_##f,
        MP_CATALOG_TABLES(MP_TABLE)
#undef MP_TABLE
    };
    int n = 0;
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (const mp_variant *v = tables[t]; v->name; v++)
            n++;
    for (int t = 0; t < n_extra; t++)
        for (const mp_variant *v = extra_tables[t]; v->name; v++)
            n++;
    const mp_variant **list = malloc(sizeof *list * (size_t)(n ? n : 1));
    if (!list)
        abort();
    n = 0;
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (const mp_variant *v = tables[t]; v->name; v++)
            list[n++] = v;
    n_catalog = n;
    for (int t = 0; t < n_extra; t++)
        for (const mp_variant *v = extra_tables[t]; v->name; v++)
            list[n++] = v;
    n_all = n;
    all = list;
}

int mp_registry_count(void)
{
    build();
    return n_all;
}

int mp_registry_catalog_count(void)
{
    build();
    return n_catalog;
}

const mp_variant *mp_registry_get(int i)
{
    build();
    return i >= 0 && i < n_all ? all[i] : NULL;
}

const mp_variant *mp_registry_find(const char *name)
{
    build();
    for (int i = 0; i < n_all; i++)
        if (!strcmp(all[i]->name, name))
            return all[i];
    return NULL;
}

int mp_variant_available(const mp_variant *v)
{
    char why[256];
    return mp_variant_unavailable_reason(v, why, sizeof why) == 0;
}

int mp_variant_unavailable_reason(const mp_variant *v, char *why, size_t len)
{
    static int have = -1;
    if (have < 0)
        have = (int)mp_isa_detect();
    if (v->isa & ~(unsigned)have) {
        char isa[64];
        snprintf(why, len, "cpu lacks %s", mp_variant_isa_token(v, isa, sizeof isa));
        return -1;
    }
    if (v->available && v->available(why, len))
        return -1;
    return 0;
}

const char *mp_variant_isa_token(const mp_variant *v, char *buf, size_t len)
{
    if (v->family == MP_FAMILY_PEER) { /* "llamacpp.tq2_0": ggml picks its own ISA */
        snprintf(buf, len, "ggml");
        return buf;
    }
    const char *dot = strchr(v->name, '.');
    const char *start = dot ? dot + 1 : v->name;
    const char *end = strchr(start, '.');
    size_t n = end ? (size_t)(end - start) : strlen(start);
    if (n >= len)
        n = len - 1;
    memcpy(buf, start, n);
    buf[n] = 0;
    return buf;
}

const mp_variant *mp_variant_scalar_sibling(const mp_variant *v)
{
    const char *dot = strchr(v->name, '.');
    if (!dot)
        return NULL;
    const char *rest = strchr(dot + 1, '.');
    char name[128];
    snprintf(name, sizeof name, "%.*sscalar%s", (int)(dot - v->name + 1), v->name,
             rest ? rest : "");
    const mp_variant *s = mp_registry_find(name);
    return s == v ? NULL : s;
}

static const char *const family_names[] = {
#define MP_NAME_(E, f, doc) [MP_FAMILY_##E] = #f,
    MP_FAMILIES(MP_NAME_)
#undef MP_NAME_
};
static const char *const family_docs[] = {
#define MP_DOC_(E, f, doc) [MP_FAMILY_##E] = doc,
    MP_FAMILIES(MP_DOC_)
#undef MP_DOC_
};

const char *mp_family_name(mp_family f)
{
    return (unsigned)f < MP_FAMILY_COUNT ? family_names[f] : "?";
}

const char *mp_family_doc(mp_family f)
{
    return (unsigned)f < MP_FAMILY_COUNT ? family_docs[f] : "?";
}

int mp_variant_check(const mp_variant *v, int m, int k, const int *param, char *why,
                     size_t len)
{
    if (m < 1 || k < 1) {
        snprintf(why, len, "M and K must be positive");
        return -1;
    }
    if (v->k_multiple > 1 && k % v->k_multiple) {
        snprintf(why, len, "K=%d not a multiple of %d", k, v->k_multiple);
        return -1;
    }
    if (v->check)
        return v->check(m, k, param, why, len);
    return 0;
}

/* The software prefetch's defaults per CPU (issue 41): (vendor, family) ->
 * (pf, pfh) for the rows that have both (the x86 SIMD rows that stream
 * weights, catalog.h), chosen by measurement, each with its reason.  A
 * placeholder holds the catalog's own defaults, what the kernels did before pf
 * and pfh were parameters (8 KB ahead into L2; TQ2_0 into L1; I8 none), until
 * it is measured on such a CPU and its reason (machine, shapes, the ratio
 * against the catalog's default, where the rows are) replaces "placeholder".
 * method NULL: every method without a line of its own for that CPU.
 *
 * Measured: AMD family 25 (EPYC, AVX2 only, 2 vCPUs; fingerprints
 * amd-epyc-2c-3c15c010, model 1, 2026-11-29, and amd-epyc-2c-18f58245, model
 * 17 with AVX-512 hidden by the host, 2026-11-30), `mpbench run --variant V --model
 * bitnet-b1.58-2b-4t --n 1 --threads 1|2 --clock-gate 90 --params 'pf=0;...'`
 * with 9-17 settings of one variant interleaved in one run, rows in
 * results/prefetch/FINGERPRINT.db; the ratios are geometric means over
 * the four shapes against the catalog's default. */
static const struct pf_default {
    const char *vendor; /* CPUID leaf 0 (mp_cpu_vendor_family) */
    int family;         /* CPUID display family */
    const char *method; /* as the rows name it, or NULL */
    int pf, pfh;
    const char *reason;
} pf_defaults[] = {
#define PF_PLACEHOLDERS(VENDOR, FAMILY, WHAT)                                              \
    {VENDOR, FAMILY, NULL, 8192, MP_PFH_T1, "placeholder, not measured (" WHAT ")"},      \
    {VENDOR, FAMILY, "TQ2_0", 8192, MP_PFH_T0, "placeholder, not measured (" WHAT ")"},   \
    {VENDOR, FAMILY, "I8", 0, MP_PFH_T1, "placeholder, not measured (" WHAT ")"},
    PF_PLACEHOLDERS("GenuineIntel", 6, "Intel Core and Xeon")
    PF_PLACEHOLDERS("AuthenticAMD", 23, "AMD Zen 1-2")
    {"AuthenticAMD", 25, NULL, 8192, MP_PFH_T1,
     "measured on AMD family 25 model 1, Zen 3 (amd-epyc-2c-3c15c010): 8 KB T1 within 2% of the best "
     "of the grid for vnni_int2, i2_s, tl2_0.bm16, tmac_int2 at 1 and 2 threads; none 0.46-0.83x. "
     "Model 17, Zen 4 (amd-epyc-2c-18f58245): the best of the grid for vnni_int2 (none 1.012x at "
     "1 thread, 0.994x at 2) and tl2_0.bm16 (1.002x, 1.000x); i2_s 4 KB NTA 1.036x, 1.041x, and NTA "
     "2-4 KB the gated tune's winner at 8 of 16 keys (3.1-5.3%): in Zen 4's tuned config, not in "
     "this family line (Zen 3's i2_s kept 8 KB T1)"},
    {"AuthenticAMD", 25, "TQ2_0", 8192, MP_PFH_T0,
     "measured on AMD family 25 (amd-epyc-2c-3c15c010): the best setting (4 KB T1) 1.014x at "
     "1 thread, 1.031x at 2, under the tuner's 3% margin at 1 thread; kept"},
    {"AuthenticAMD", 25, "I8", 8192, MP_PFH_T1,
     "measured on AMD family 25 (amd-epyc-2c-3c15c010): 8 KB T1 1.23x the catalog's none at "
     "1 thread, 1.30x at 2 (worst shape 1.01x and 1.25x)"},
    PF_PLACEHOLDERS("AuthenticAMD", 26, "AMD Zen 5")
#undef PF_PLACEHOLDERS
};

int mp_variant_pf_default(const mp_variant *v, const char *vendor, int family, int *pf,
                          int *pfh, const char **reason)
{
    if (mp_variant_param_index(v, "pf") < 0 || mp_variant_param_index(v, "pfh") < 0)
        return -1;
    const struct pf_default *hit = NULL;
    for (size_t i = 0; i < sizeof pf_defaults / sizeof pf_defaults[0]; i++) {
        const struct pf_default *d = &pf_defaults[i];
        if (strcmp(d->vendor, vendor) || d->family != family)
            continue;
        if (d->method && !strcmp(d->method, v->method))
            hit = d; /* the method's own line wins */
        else if (!d->method && !hit)
            hit = d;
    }
    if (!hit)
        return -1;
    *pf = hit->pf;
    *pfh = hit->pfh;
    if (reason)
        *reason = hit->reason;
    return 0;
}

static char cpu_vendor[16];
static int cpu_family = -1;
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;
static void cpu_identify(void)
{
    if (mp_cpu_vendor_family(cpu_vendor, sizeof cpu_vendor, &cpu_family))
        cpu_family = -1;
}

static void catalog_defaults(const mp_variant *v, int *param)
{
    memset(param, 0, sizeof(int) * MP_MAX_PARAMS);
    for (int i = 0; i < v->n_params; i++)
        param[i] = v->params[i].def;
}

int mp_variant_default_somewhere(const mp_variant *v, const int *param)
{
    int def[MP_MAX_PARAMS];
    catalog_defaults(v, def);
    if (!memcmp(def, param, sizeof def))
        return 1;
    const int ipf = mp_variant_param_index(v, "pf"), ipfh = mp_variant_param_index(v, "pfh");
    for (size_t i = 0; ipf >= 0 && ipfh >= 0 && i < sizeof pf_defaults / sizeof pf_defaults[0]; i++) {
        int pf, pfh;
        if (mp_variant_pf_default(v, pf_defaults[i].vendor, pf_defaults[i].family, &pf, &pfh,
                                  NULL))
            continue;
        def[ipf] = pf, def[ipfh] = pfh;
        if (!memcmp(def, param, sizeof def))
            return 1;
    }
    return 0;
}

void mp_variant_defaults(const mp_variant *v, int *param)
{
    catalog_defaults(v, param);
    int pf, pfh;
    pthread_once(&cpu_once, cpu_identify);
    if (cpu_family >= 0 && !mp_variant_pf_default(v, cpu_vendor, cpu_family, &pf, &pfh, NULL)) {
        param[mp_variant_param_index(v, "pf")] = pf;
        param[mp_variant_param_index(v, "pfh")] = pfh;
    }
}

int mp_variant_param_index(const mp_variant *v, const char *name)
{
    for (int i = 0; i < v->n_params; i++)
        if (!strcmp(v->params[i].name, name))
            return i;
    return -1;
}

const char *mp_params_str(const mp_variant *v, const int *param, char *buf, size_t len)
{
    buf[0] = 0;
    size_t used = 0;
    for (int i = 0; i < v->n_params && used < len; i++) {
        if (v->params[i].omit_default && param[i] == v->params[i].def)
            continue; /* a parameter the row gained later: old keys stay valid */
        used += (size_t)snprintf(buf + used, len - used, "%s%s=%d", used ? "," : "",
                                 v->params[i].name, param[i]);
    }
    return buf;
}

/* Index of the parameter that an old spelling (MP_PARAM_RENAMES) of v's family
 * now names, or -1; says so on stderr once per spelling and process. */
static int renamed_index(const mp_variant *v, const char *name)
{
    static const struct {
        mp_family family;
        const char *old, *now;
    } renames[] = {
#define MP_RENAME_ROW(F, OLD, NOW) {MP_FAMILY_##F, OLD, NOW},
        MP_PARAM_RENAMES(MP_RENAME_ROW)
#undef MP_RENAME_ROW
    };
    static unsigned long said; /* bit i: renames[i] reported */
    for (size_t i = 0; i < sizeof renames / sizeof renames[0]; i++) {
        if (renames[i].family != v->family || strcmp(renames[i].old, name))
            continue;
        int idx = mp_variant_param_index(v, renames[i].now);
        if (idx >= 0 && !(said & 1ul << i)) {
            said |= 1ul << i;
            fprintf(stderr, "mpbench: parameter '%s' of %s is now spelled '%s' ('%s' is "
                            "accepted until the next release)\n",
                    renames[i].old, v->name, renames[i].now, renames[i].old);
        }
        return idx;
    }
    return -1;
}

int mp_params_parse(const mp_variant *v, const char *s, int *param, char *why, size_t len)
{
    /* over the catalog's defaults, not this CPU's: a stored "name=value,..."
     * leaves out a parameter only at its catalog default (mp_params_str), and
     * means the same on every machine that reads it */
    catalog_defaults(v, param);
    if (!s || !*s)
        return 0;
    char tmp[512];
    if (strlen(s) >= sizeof tmp) {
        snprintf(why, len, "parameters '%.40s...': longer than %zu characters", s,
                 sizeof tmp - 1);
        return -1;
    }
    strcpy(tmp, s);
    size_t l = strlen(tmp);
    if (tmp[0] == ',' || tmp[l - 1] == ',' || strstr(tmp, ",,")) { /* strtok would skip it */
        snprintf(why, len, "parameters '%s': an empty item", s);
        return -1;
    }
    char *save = NULL;
    for (char *tok = strtok_r(tmp, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            snprintf(why, len, "parameter '%s' is not name=value", tok);
            return -1;
        }
        *eq = 0;
        int idx = mp_variant_param_index(v, tok);
        if (idx < 0)
            idx = renamed_index(v, tok);
        if (idx < 0) {
            snprintf(why, len, "variant %s has no parameter '%s'", v->name, tok);
            return -1;
        }
        long val;
        if (mp_parse_long(eq + 1, INT_MIN, INT_MAX, &val)) {
            snprintf(why, len, "parameter %s: '%s' is not an integer in [%d, %d]", tok, eq + 1,
                     INT_MIN, INT_MAX);
            return -1;
        }
        int ok = 0;
        for (int j = 0; j < v->params[idx].n_values; j++)
            ok |= v->params[idx].values[j] == val;
        if (!ok) {
            snprintf(why, len, "parameter %s=%ld is outside the space of %s", tok, val,
                     v->name);
            return -1;
        }
        param[idx] = (int)val;
    }
    return 0;
}
