/* fuzz-args.c - the command-line value parsers (harness/util.c, the variant
 * registry's globs and parameters).  The first byte picks the parser, the rest
 * is the argument string.  Besides "no crash", each accepted value is checked
 * against the promise its parser makes. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mp_fuzz.h"
#include "../../harness/core/mp_core.h"
#include "../../variants/mp_registry.h"

#define CHECK(c)                                                                            \
    do {                                                                                    \
        if (!(c))                                                                           \
            abort();                                                                        \
    } while (0)

int mp_fuzz_args(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char *s = malloc(size);
    memcpy(s, data + 1, size - 1);
    s[size - 1] = 0;
    mp_err e;
    switch (data[0] % 8) {
    case 0: {
        int m = 0, k = 0, n = 0;
        if (mp_parse_shape(s, &m, &k, &n, &e) == MP_OK)
            CHECK(m >= 1 && k >= 1 && n >= 0 && n <= 65536 && (double)m * k <= INT_MAX);
        break;
    }
    case 1: {
        static int shapes[256][2];
        int ns = 0;
        if (mp_parse_shape_list(s, shapes, 256, &ns, &e) == MP_OK) {
            CHECK(ns >= 1 && ns <= 256);
            for (int i = 0; i < ns; i++)
                CHECK(shapes[i][0] >= 1 && shapes[i][1] >= 1);
        }
        break;
    }
    case 2: {
        int v[32], n = 0;
        if (mp_parse_int_list(s, "--n", 1, 65536, v, 32, &n, &e) == MP_OK) {
            CHECK(n >= 1 && n <= 32);
            for (int i = 0; i < n; i++)
                CHECK(v[i] >= 1 && v[i] <= 65536);
        }
        break;
    }
    case 3: {
        int i = 0, n = 0;
        if (mp_parse_shard(s, &i, &n, &e) == MP_OK)
            CHECK(i >= 1 && i <= n && n <= 1000000);
        break;
    }
    case 4: {
        double d = 0;
        if (mp_parse_double(s, "--min-time", 0, 3600, &d, &e) == MP_OK)
            CHECK(isfinite(d) && d >= 0 && d <= 3600);
        break;
    }
    case 5: {
        char buf[64] = "";
        size_t l = strlen(s);
        int rc = mp_append(buf, sizeof buf, s, "--shape", &e);
        CHECK(rc == MP_OK ? strlen(buf) == l : l >= sizeof buf - 1);
        break;
    }
    case 6: {
        const mp_variant *sel[512];
        int n = 0;
        if (mp_select_variants(s, sel, 512, &n, &e) == MP_OK)
            CHECK(n >= 1 && n <= mp_registry_count());
        break;
    }
    default: {
        /* --params for a variant picked by the first char of the string */
        int nv = mp_registry_count();
        const mp_variant *v = mp_registry_get((unsigned char)s[0] % nv);
        int param[MP_MAX_PARAMS];
        char why[256];
        if (mp_params_parse(v, s[0] ? s + 1 : s, param, why, sizeof why) == 0) {
            char back[128];
            mp_params_str(v, param, back, sizeof back);
        }
        break;
    }
    }
    free(s);
    return 0;
}
