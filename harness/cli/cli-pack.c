/* cli-pack.c - `mpbench pack`: the packed bytes of any variant for given ternary
 * weights, so our layouts can be compared byte for byte with another tool's.
 * Input: a raw int8 file, row-major M x K, values in {-1, 0, 1} (or ±1 for
 * int1 variants), or --seed S to generate them.  The output is written to a
 * temporary file and renamed, so a failed run leaves nothing behind. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_cli.h"
#include "../gguf/mp_gguf.h"
#include "../core/mp_core.h"
#include "../../kernels/common/mp_numerics.h"
#include "../../variants/mp_registry.h"

static void pack_usage(FILE *f)
{
    fputs("usage: mpbench pack --variant NAME --shape MxK (--weights FILE | --seed S)\n"
          "                    --out FILE [--scale X] [--params name=value,...]\n"
          "       mpbench pack --gguf-out FILE --model NAME [--variant tq2_0|tq1_0|i2_s] [--seed S]\n"
          "  Writes the variant's packed bytes (scales included) for M x K ternary\n"
          "  weights given as raw int8, row-major.\n",
          f);
}

int mp_cmd_pack(int argc, char **argv)
{
    static const struct option opts[] = {
        {"variant", required_argument, 0, 'v'}, {"shape", required_argument, 0, 's'},
        {"weights", required_argument, 0, 'w'}, {"seed", required_argument, 0, 'S'},
        {"out", required_argument, 0, 'o'},     {"scale", required_argument, 0, 'c'},
        {"params", required_argument, 0, 'p'},  {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    for (int i = 1; i < argc; i++) /* issue 19: a whole model as a GGUF file */
        if (!strncmp(argv[i], "--gguf-out", 10))
            return mp_cmd_pack_gguf(argc, argv);
    const char *vname = NULL, *shape = NULL, *wpath = NULL, *out = NULL, *params = NULL;
    int seed = -1, c, rc;
    float scale = 1.0f;
    mp_err e;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'v': vname = optarg; break;
        case 's': shape = optarg; break;
        case 'w': wpath = optarg; break;
        case 'S':
            if ((rc = mp_parse_int(optarg, "--seed", 0, 2147483647, &seed, &e)))
                return mp_die(rc, "%s", e.msg);
            break;
        case 'o': out = optarg; break;
        case 'c': {
            /* a float scale: finite, positive, within float's range */
            double d;
            if (mp_parse_double(optarg, "--scale", 0, 3.0e38, &d, &e) || !(d > 0))
                return mp_die(2, "--scale: '%s' is not a finite positive number (at most 3e38)",
                              optarg);
            scale = (float)d;
            break;
        }
        case 'p': params = optarg; break;
        case 'h': pack_usage(stdout); return 0;
        default:
            pack_usage(stderr);
            return mp_die(2, "pack: unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return mp_die(2, "pack: unexpected argument '%s'", argv[optind]);
    if (!vname || !shape || !out)
        return mp_die(2, "pack: --variant, --shape and --out are required");
    if (!!wpath == (seed >= 0))
        return mp_die(2, "pack: give exactly one of --weights FILE or --seed S");
    if (wpath && mp_same_file(wpath, out))
        return mp_die(2, "pack: --out %s is the --weights file itself; write elsewhere", out);
    const mp_variant *v = mp_registry_find(vname);
    if (!v)
        return mp_die(2, "--variant: unknown variant '%s' (see 'mpbench list variants')", vname);
    int m, k, param[MP_MAX_PARAMS];
    if ((rc = mp_parse_shape(shape, &m, &k, NULL, &e)))
        return mp_die(rc, "%s", e.msg);
    char why[256];
    if (mp_params_parse(v, params, param, why, sizeof why))
        return mp_die(2, "--params: %s", why);
    if (mp_variant_check(v, m, k, param, why, sizeof why))
        return mp_die(2, "%s cannot take %dx%d: %s", v->name, m, k, why);
    if (mp_parse_only_stop("pack"))
        return 0;
    size_t count = (size_t)m * k;
    int8_t *w = malloc(count);
    if (!w)
        return mp_die(1, "out of memory for %zu weights", count);
    int binary = v->domain == MP_DOMAIN_BINARY;
    if (wpath) {
        FILE *f = fopen(wpath, "rb");
        if (!f) {
            free(w);
            return mp_die(2, "--weights %s: %s", wpath, strerror(errno));
        }
        struct stat st;
        if (fstat(fileno(f), &st) || (size_t)st.st_size != count) {
            fclose(f);
            free(w);
            return mp_die(2, "--weights %s: %lld bytes, but %dx%d int8 weights need %zu", wpath,
                          (long long)st.st_size, m, k, count);
        }
        size_t got = fread(w, 1, count, f);
        fclose(f);
        if (got != count) {
            free(w);
            return mp_die(2, "--weights %s: short read", wpath);
        }
        for (size_t i = 0; i < count; i++) {
            int ok = binary ? (w[i] == 1 || w[i] == -1) : (w[i] >= -1 && w[i] <= 1);
            if (!ok) {
                int bad = w[i];
                free(w);
                return mp_die(2, "--weights %s: byte %zu (row %zu, column %zu) is %d, not in %s",
                              wpath, i, i / (size_t)k, i % (size_t)k, bad,
                              binary ? "{-1, 1}" : "{-1, 0, 1}");
            }
        }
    } else {
        mp_gen_weights((uint64_t)seed, w, count, binary);
    }
    size_t bytes = v->packed_size(m, k, param);
    uint8_t *p = calloc(1, bytes ? bytes : 1);
    if (!p) {
        free(w);
        return mp_die(1, "out of memory for %zu packed bytes", bytes);
    }
    v->pack(w, scale, m, k, param, p);
    free(w);
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", out, (int)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        free(p);
        return mp_die(MP_EIO, "--out %s: %s", out, strerror(errno));
    }
    int ok = fwrite(p, 1, bytes, f) == bytes;
    ok &= fclose(f) == 0;
    free(p);
    if (!ok || rename(tmp, out) != 0) {
        unlink(tmp);
        return mp_die(MP_EIO, "--out %s: write failed: %s", out, strerror(errno));
    }
    fprintf(stderr, "%s: %dx%d -> %zu bytes (%.4f bpw) in %s\n", v->name, m, k, bytes,
            8.0 * (double)bytes / ((double)m * k), out);
    return 0;
}
