/* util.c - small parsers shared by the commands; each names its input in errors. */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mp_core.h"
#include "../../variants/mp_registry.h"

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

int mp_parse_only;
const char *mp_parse_only_stopped;

int mp_parse_only_stop(const char *where)
{
    if (!mp_parse_only)
        return 0;
    mp_parse_only_stopped = where;
    return 1;
}

void mp_join_argv(int argc, char **argv, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "mpbench");
    for (int i = 0; i < argc && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, " %s", argv[i]);
    if (used >= len && len > 4)
        memcpy(buf + len - 4, "...", 4); /* a record of the command, said to be cut */
}

int mp_append(char *buf, size_t len, const char *item, const char *what, mp_err *e)
{
    size_t l = strlen(buf), il = strlen(item);
    if (l + (l ? 1 : 0) + il + 1 > len)
        return mp_fail(e, MP_EUSAGE, "%s: the list is longer than %zu bytes", what, len - 1);
    if (l)
        buf[l++] = ',';
    memcpy(buf + l, item, il + 1);
    return MP_OK;
}

int mp_list_has(const char *list, char sep, const char *word)
{
    size_t wl = strlen(word);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, sep);
        size_t l = end ? (size_t)(end - p) : strlen(p);
        if (l == wl && !strncmp(p, word, l))
            return 1;
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

int mp_parse_double(const char *s, const char *what, double lo, double hi, double *out,
                    mp_err *e)
{
    char *end;
    errno = 0;
    double v = s && *s ? strtod(s, &end) : NAN;
    if (!s || !*s || *end || errno || !isfinite(v) || v < lo || v > hi)
        return mp_fail(e, MP_EUSAGE, "%s: '%s' is not a finite number in [%g, %g]", what,
                       s ? s : "", lo, hi);
    *out = v;
    return MP_OK;
}

int mp_parse_clock_gate(const char *s, double *fraction, mp_err *e)
{
    double pct;
    int rc = mp_parse_double(s, "--clock-gate", 50, 100, &pct, e);
    if (!rc)
        *fraction = pct / 100.0;
    return rc;
}

int mp_parse_shard(const char *s, int *i, int *n, mp_err *e)
{
    const char *slash = s ? strchr(s, '/') : NULL;
    long a = 0, b = 0;
    int ok = slash && slash > s && slash[1];
    for (const char *p = s; ok && *p; p++) {
        if (p == slash)
            continue;
        if (*p < '0' || *p > '9') {
            ok = 0;
            break;
        }
        long *t = p < slash ? &a : &b;
        if (*t > 100000000)
            ok = 0; /* overflow refused, not wrapped */
        else
            *t = *t * 10 + (*p - '0');
    }
    if (!ok || b < 1 || b > 1000000 || a < 1 || a > b)
        return mp_fail(e, MP_EUSAGE, "--shard: '%s' is not I/N with 1 <= I <= N <= 1000000",
                       s ? s : "");
    *i = (int)a;
    *n = (int)b;
    return MP_OK;
}

int mp_parse_shape_list(const char *s, int (*out)[2], int max, int *count, mp_err *e)
{
    if (!s || !*s)
        return mp_fail(e, MP_EUSAGE, "--shape: empty list");
    char *buf = strdup(s);
    int n = 0, rc = MP_OK;
    char *p = buf;
    for (;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = 0;
        int m, k;
        if (!*p)
            rc = mp_fail(e, MP_EUSAGE, "--shape: empty item in the list '%.80s%s'", s,
                         strlen(s) > 80 ? "..." : "");
        else if (n == max)
            rc = mp_fail(e, MP_EUSAGE, "--shape: more than %d shapes", max);
        else if (!(rc = mp_parse_shape(p, &m, &k, NULL, e)))
            out[n][0] = m, out[n][1] = k, n++;
        if (rc || !comma)
            break;
        p = comma + 1;
    }
    free(buf);
    if (!rc)
        *count = n;
    return rc;
}

int mp_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

size_t mp_mem_limit(void)
{
    long mb = mp_env_long("MPBENCH_MEM_LIMIT_MB", 0); /* checked at start */
    if (mb > 0)
        return (size_t)mb << 20;
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || psz <= 0)
        return (size_t)4 << 30;
    return (size_t)pages / 4 * 3 * (size_t)psz;
}

int mp_parse_int(const char *s, const char *what, int lo, int hi, int *out, mp_err *e)
{
    long v;
    if (mp_parse_long(s, lo, hi, &v))
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
    if (!*buf)
        return mp_fail(e, MP_EUSAGE, "%s: empty list", what);
    int n = 0;
    /* every item, empty ones too ('1,,2', '1,' and ',' are refused, not skipped) */
    for (char *t = buf, *c; t; t = c ? c + 1 : NULL) {
        if ((c = strchr(t, ',')))
            *c = 0;
        if (!*t)
            return mp_fail(e, MP_EUSAGE, "%s: '%s' has an empty item", what, s);
        if (n == max)
            return mp_fail(e, MP_EUSAGE, "%s: more than %d values", what, max);
        int rc = mp_parse_int(t, what, lo, hi, &out[n], e);
        if (rc)
            return rc;
        n++;
    }
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
    /* kernels index weights with M*K in 32 bits */
    if ((double)v[0] * (double)v[1] > (double)INT_MAX)
        return mp_fail(e, MP_EUSAGE, "--shape '%s': M x K = %.0f weights, more than the limit "
                       "of %d", s, (double)v[0] * (double)v[1], INT_MAX);
    if (cnt == 3 && v[2] > 65536)
        return mp_fail(e, MP_EUSAGE, "--shape '%s': N = %ld, more than the limit of 65536", s,
                       v[2]);
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
    if (!n) /* found by fuzz-args: "--variant ," selected nothing and succeeded */
        return mp_fail(e, MP_EUSAGE, "--variant '%s': no pattern in the list", globs);
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
