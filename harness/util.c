/* util.c - small parsers shared by the commands; each names its input in errors. */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mp_harness.h"
#include "../variants/mp_registry.h"

int mp_fail(mp_err *e, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return code;
}

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

static int parse_long(const char *s, long *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

int mp_parse_int(const char *s, const char *what, int lo, int hi, int *out, mp_err *e)
{
    long v;
    if (parse_long(s, &v) || v < lo || v > hi)
        return mp_fail(e, MP_EUSAGE, "%s: '%s' is not an integer in [%d, %d]", what,
                       s ? s : "", lo, hi);
    *out = (int)v;
    return MP_OK;
}

int mp_parse_int_list(const char *s, const char *what, int lo, int hi, int *out, int max,
                      int *count, mp_err *e)
{
    char buf[512];
    if (!s || strlen(s) >= sizeof buf)
        return mp_fail(e, MP_EUSAGE, "%s: missing or too long", what);
    strcpy(buf, s);
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n == max)
            return mp_fail(e, MP_EUSAGE, "%s: more than %d values", what, max);
        int rc = mp_parse_int(t, what, lo, hi, &out[n], e);
        if (rc)
            return rc;
        n++;
    }
    if (!n)
        return mp_fail(e, MP_EUSAGE, "%s: empty list", what);
    *count = n;
    return MP_OK;
}

int mp_parse_shape(const char *s, int *m, int *k, int *n, mp_err *e)
{
    long v[3];
    int cnt = 0;
    const char *p = s ? s : "";
    while (*p && cnt < 3) {
        char *end;
        errno = 0;
        long x = strtol(p, &end, 10);
        if (end == p || errno || x < 1 || x > INT_MAX / 2)
            break;
        v[cnt++] = x;
        p = end;
        if (*p == 'x' || *p == 'X')
            p++;
        else
            break;
    }
    int want_n = n != NULL;
    if (*p || cnt < 2 || (cnt == 3 && !want_n) || p[-1] == 'x' || p[-1] == 'X')
        return mp_fail(e, MP_EUSAGE,
                       "--shape '%s': expected MxK%s with positive integers (e.g. 6912x2560)",
                       s ? s : "", want_n ? "[xN]" : "");
    *m = (int)v[0];
    *k = (int)v[1];
    if (n)
        *n = cnt == 3 ? (int)v[2] : 0;
    return MP_OK;
}

int mp_select_variants(const char *globs, const mp_variant **out, int max, int *count,
                       mp_err *e)
{
    char buf[1024];
    if (!globs || !*globs || strlen(globs) >= sizeof buf)
        return mp_fail(e, MP_EUSAGE, "--variant: missing or too long");
    strcpy(buf, globs);
    int nv = mp_registry_count(), n = 0;
    char *save = NULL;
    for (char *g = strtok_r(buf, ",", &save); g; g = strtok_r(NULL, ",", &save)) {
        int matched = 0;
        for (int i = 0; i < nv; i++) {
            const mp_variant *v = mp_registry_get(i);
            if (fnmatch(g, v->name, 0) != 0)
                continue;
            matched = 1;
            int dup = 0;
            for (int j = 0; j < n; j++)
                dup |= out[j] == v;
            if (dup)
                continue;
            if (n == max)
                return mp_fail(e, MP_EUSAGE, "--variant: more than %d variants", max);
            out[n++] = v;
        }
        if (!matched)
            return mp_fail(e, MP_EUSAGE,
                           "--variant: '%s' matches no variant (see 'mpbench list variants')",
                           g);
    }
    /* registry order, so output does not depend on how the globs were written */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            int a = -1, b = -1;
            for (int r = 0; r < nv; r++) {
                if (mp_registry_get(r) == out[j - 1])
                    a = r;
                if (mp_registry_get(r) == out[j])
                    b = r;
            }
            if (a < b)
                break;
            const mp_variant *t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    *count = n;
    return MP_OK;
}

double mp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
