/* cli-pack.c - `mpbench pack`: the packed bytes of any variant for given ternary
 * weights, so our layouts can be compared byte for byte with another tool's.
 * Input: a raw int8 file, row-major M x K, values in {-1, 0, 1} (or ±1 for
 * int1 variants), or --seed S to generate them.  The output is written to a
 * temporary file and renamed, so a failed run leaves nothing behind. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_paths.h"
#include "mp_cli.h"
#include "../gguf/mp_gguf.h"
#include "../core/mp_core.h"
#include "../../kernels/common/mp_numerics.h"
#include "../../variants/mp_registry.h"
#include "mp_options.h"

typedef struct pack_opts {
    const char *vname, *shape, *wpath, *out, *params;
    int seed;
    float scale;
} pack_opts;

/* a float scale: finite, positive, within float's range */
static int scale_arg(const char *arg, void *target, mp_err *e)
{
    double d;
    if (mp_parse_double(arg, "--scale", 0, 3.0e38, &d, e) || !(d > 0))
        return mp_fail(e, MP_EUSAGE, "--scale: '%s' is not a finite positive number (at most 3e38)",
                       arg);
    *(float *)target = (float)d;
    return MP_OK;
}

static const mp_opt pack_table[] = {
    MP_OPT_S("variant", pack_opts, vname, "NAME", "the variant whose layout is written"),
    MP_OPT_S("shape", pack_opts, shape, "MxK", "the weights' shape"),
    MP_OPT_S("weights", pack_opts, wpath, "FILE", "raw int8 weights, row-major, in {-1, 0, 1} (int1: +-1)"),
    MP_OPT_SEED(pack_opts, seed, "seeded weights instead of --weights"),
    MP_OPT_S("out", pack_opts, out, "FILE", "the packed bytes (written whole or not at all)"),
    MP_OPT_FN_("scale", pack_opts, scale, scale_arg, "X", "the tensor's scale (default 1)"),
    MP_OPT_S("params", pack_opts, params, "name=value,...", "the variant's parameters"),
    /* for --help only: mp_cmd_pack hands any --gguf-out line to mp_cmd_pack_gguf */
    {.name = "gguf-out", .kind = MP_OPT_STR, .arg = "FILE",
     .help = "a whole model as a GGUF file (mpbench pack --gguf-out --help)"},
    MP_OPT_END};

static const mp_cmd_spec pack_spec = MP_CMD_SPEC("pack", pack_table,
    .once = "variant shape",
    .synopsis = "--variant NAME --shape MxK (--weights FILE | --seed S) --out FILE\n"
                "                    [--scale X] [--params name=value,...]\n"
                "       mpbench pack --gguf-out FILE --model NAME [--variant tq2_0|tq1_0|i2_s] [--seed S]",
    .about = "Writes the variant's packed bytes (scales included) for M x K ternary\n"
             "weights given as raw int8, row-major.\n");

/* The weights: read from --weights (size and values checked) or seeded. */
static int pack_weights(const pack_opts *o, const mp_variant *v, int m, int k, int8_t **out)
{
    size_t count = (size_t)m * k;
    int8_t *w = malloc(count);
    if (!w)
        return mp_die(1, "out of memory for %zu weights", count);
    int binary = v->domain == MP_DOMAIN_BINARY, rc = 0;
    if (!o->wpath) {
        mp_gen_weights((uint64_t)o->seed, w, count, binary);
        *out = w;
        return 0;
    }
    FILE *f = fopen(o->wpath, "rb");
    struct stat st;
    if (!f)
        rc = mp_die(2, "--weights %s: %s", o->wpath, strerror(errno));
    else if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode))
        rc = mp_die(2, "--weights %s: is a directory, not a weights file", o->wpath);
    else if (fstat(fileno(f), &st) || (size_t)st.st_size != count)
        rc = mp_die(2, "--weights %s: %lld bytes, but %dx%d int8 weights need %zu", o->wpath,
                    (long long)st.st_size, m, k, count);
    else if (fread(w, 1, count, f) != count)
        rc = mp_die(2, "--weights %s: short read", o->wpath);
    if (f)
        fclose(f);
    for (size_t i = 0; i < count && !rc; i++) {
        int ok = binary ? (w[i] == 1 || w[i] == -1) : (w[i] >= -1 && w[i] <= 1);
        if (!ok)
            rc = mp_die(2, "--weights %s: byte %zu (row %zu, column %zu) is %d, not in %s",
                        o->wpath, i, i / (size_t)k, i % (size_t)k, w[i],
                        binary ? "{-1, 1}" : "{-1, 0, 1}");
    }
    if (rc)
        free(w);
    else
        *out = w;
    return rc;
}

/* The bytes to a temporary file renamed over --out: nothing half-written. */
static int pack_write(const char *out, const uint8_t *p, size_t bytes)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", out, (int)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return mp_die(MP_EIO, "--out %s: %s", out, strerror(errno));
    int ok = fwrite(p, 1, bytes, f) == bytes;
    ok &= fclose(f) == 0;
    if (!ok || rename(tmp, out) != 0) {
        unlink(tmp);
        return mp_die(MP_EIO, "--out %s: write failed: %s", out, strerror(errno));
    }
    return 0;
}

int mp_cmd_pack(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) /* issue 19: a whole model as a GGUF file */
        if (!strncmp(argv[i], "--gguf-out", 10))
            return mp_cmd_pack_gguf(argc, argv);
    pack_opts o = {.seed = -1, .scale = 1.0f};
    mp_opts_out po;
    mp_err e;
    int rc;
    if ((rc = mp_opts_parse(&pack_spec, argc, argv, &o, &po)) || po.help)
        return rc;
    if (!o.vname || !o.shape || !o.out)
        return mp_die(2, "pack: --variant, --shape and --out are required");
    if (!!o.wpath == (o.seed >= 0))
        return mp_die(2, "pack: give exactly one of --weights FILE or --seed S");
    const mp_path paths[] = {{"--weights", o.wpath, MP_PATH_IN, NULL},
                             {"--out", o.out, MP_PATH_FILE, NULL}};
    if ((rc = mp_paths_check("pack", paths, 2)))
        return rc;
    const mp_variant *v = mp_registry_find(o.vname);
    if (!v)
        return mp_die(2, "--variant: unknown variant '%s' (see 'mpbench list variants')", o.vname);
    int m, k, param[MP_MAX_PARAMS];
    if ((rc = mp_parse_shape(o.shape, &m, &k, NULL, &e)))
        return mp_die(rc, "%s", e.msg);
    char why[256];
    if (mp_params_parse(v, o.params, param, why, sizeof why))
        return mp_die(2, "--params: %s", why);
    if (mp_variant_check(v, m, k, param, why, sizeof why))
        return mp_die(2, "%s cannot take %dx%d: %s", v->name, m, k, why);
    if (mp_parse_only_stop("pack"))
        return 0;
    int8_t *w = NULL;
    if ((rc = pack_weights(&o, v, m, k, &w)))
        return rc;
    size_t bytes = v->packed_size(m, k, param);
    uint8_t *p = calloc(1, bytes ? bytes : 1);
    if (!p) {
        free(w);
        return mp_die(1, "out of memory for %zu packed bytes", bytes);
    }
    v->pack(w, o.scale, m, k, param, p);
    free(w);
    rc = pack_write(o.out, p, bytes);
    free(p);
    if (!rc)
        fprintf(stderr, "%s: %dx%d -> %zu bytes (%.4f bpw) in %s\n", v->name, m, k, bytes,
                8.0 * (double)bytes / ((double)m * k), o.out);
    return rc;
}
