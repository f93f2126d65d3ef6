/* tuned.c - reading and writing tuned configs (format in mp_tuned.h). */
#include "mp_tuned.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../kernels/common/mp_parse.h"
#include "../variants/mp_registry.h"

/* Writes the message and returns code. */
static int fail(char *why, size_t len, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *why, size_t len, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return code;
}

int mp_tuned_load(const char *path, const char *fingerprint, int force, mp_tuned *out,
                  char *why, size_t len)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (!f)
        return fail(why, len, MP_TUNED_EINPUT, "tuned config %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) { /* fopen takes folders */
        fclose(f);
        return fail(why, len, MP_TUNED_EINPUT, "tuned config %s: is a directory, not a file",
                    path);
    }
    char line[1024];
    int lineno = 0, cap = 0, rc = MP_TUNED_OK;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            rc = fail(why, len, MP_TUNED_EINPUT, "%s:%d: line longer than %d characters", path,
                      lineno, (int)sizeof line - 2);
            break;
        }
        line[strcspn(line, "\r\n")] = 0;
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        if (!*s || *s == '#')
            continue;
        if (!out->fingerprint[0]) {
            char fp[64], extra[8];
            if (sscanf(s, "fingerprint %63s %7s", fp, extra) != 1) {
                rc = fail(why, len, MP_TUNED_EINPUT,
                             "%s:%d: expected 'fingerprint MACHINE' as the first line, got '%s'",
                             path, lineno, s);
                break;
            }
            snprintf(out->fingerprint, sizeof out->fingerprint, "%s", fp);
            if (fingerprint && strcmp(fp, fingerprint)) {
                if (!force) {
                    rc = fail(why, len, MP_TUNED_EINPUT,
                                 "%s: tuned on machine %s, this is %s (fingerprint mismatch); "
                                 "tune here or pass --force to use it anyway",
                                 path, fp, fingerprint);
                    break;
                }
                fprintf(stderr, "mpbench: warning: %s was tuned on %s, this is %s (forced)\n",
                        path, fp, fingerprint);
            }
            continue;
        }
        /* five fields; every integer checked (sscanf's %d wrapped 4294967552 to 256) */
        char *fld[6], *save = NULL;
        int nf = 0;
        for (char *tok = strtok_r(s, " \t", &save); tok && nf < 6;
             tok = strtok_r(NULL, " \t", &save))
            fld[nf++] = tok;
        if (nf != 5) {
            rc = fail(why, len, MP_TUNED_EINPUT,
                      "%s:%d: malformed line: %d fields, want 5 (VARIANT MxK n=N threads=T "
                      "PARAMS|-)", path, lineno, nf);
            break;
        }
        const char *vname = fld[0], *params = fld[4];
        char *x = strchr(fld[1], 'x');
        long m, k, n, t;
        if (x)
            *x = 0;
        if (!x || mp_parse_long(fld[1], 1, INT_MAX / 2, &m) ||
            mp_parse_long(x + 1, 1, INT_MAX / 2, &k) || (double)m * (double)k > INT_MAX) {
            if (x)
                *x = 'x';
            rc = fail(why, len, MP_TUNED_EINPUT,
                      "%s:%d: field MxK: '%s' is not MxK with integers in [1, %d] and M*K <= %d",
                      path, lineno, fld[1], INT_MAX / 2, INT_MAX);
            break;
        }
        if (strncmp(fld[2], "n=", 2) || mp_parse_long(fld[2] + 2, 1, 65536, &n)) {
            rc = fail(why, len, MP_TUNED_EINPUT,
                      "%s:%d: field n: '%s' is not n=N with N an integer in [1, 65536]", path,
                      lineno, fld[2]);
            break;
        }
        if (strncmp(fld[3], "threads=", 8) || mp_parse_long(fld[3] + 8, 1, 1024, &t)) {
            rc = fail(why, len, MP_TUNED_EINPUT,
                      "%s:%d: field threads: '%s' is not threads=T with T an integer in "
                      "[1, 1024]", path, lineno, fld[3]);
            break;
        }
        const mp_variant *v = mp_registry_find(vname);
        if (!v) {
            rc = fail(why, len, MP_TUNED_EINPUT, "%s:%d: unknown variant '%s'", path, lineno, vname);
            break;
        }
        if (out->count == cap) {
            cap = cap ? 2 * cap : 16;
            out->e = realloc(out->e, sizeof *out->e * (size_t)cap);
        }
        mp_tuned_entry *te = &out->e[out->count];
        te->v = v, te->m = (int)m, te->k = (int)k, te->n = (int)n, te->threads = (int)t;
        char bad[256];
        if (mp_params_parse(v, strcmp(params, "-") ? params : "", te->param, bad, sizeof bad)) {
            rc = fail(why, len, MP_TUNED_EINPUT, "%s:%d: %s (field PARAMS)", path, lineno, bad);
            break;
        }
        if (mp_variant_check(v, te->m, te->k, te->param, bad, sizeof bad)) {
            rc = fail(why, len, MP_TUNED_EINPUT, "%s:%d: %s cannot take %ldx%ld: %s", path, lineno,
                      vname, m, k, bad);
            break;
        }
        out->count++;
    }
    fclose(f);
    if (!rc && !out->fingerprint[0])
        rc = fail(why, len, MP_TUNED_EINPUT, "tuned config %s: empty (no fingerprint line)", path);
    if (rc)
        mp_tuned_free(out);
    return rc;
}

const mp_tuned_entry *mp_tuned_find(const mp_tuned *t, const mp_variant *v, int m, int k,
                                    int n, int threads)
{
    const mp_tuned_entry *best = NULL;
    long best_d = 0;
    for (int i = 0; i < t->count; i++) {
        const mp_tuned_entry *x = &t->e[i];
        if (x->v != v || x->m != m || x->k != k)
            continue;
        long d = labs((long)x->n - n) * 64 + labs((long)x->threads - threads);
        if (!best || d < best_d)
            best = x, best_d = d;
    }
    return best;
}

int mp_tuned_save(const char *path, const mp_tuned *t, char *why, size_t len)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return fail(why, len, MP_TUNED_EIO, "tuned config %s: %s", path, strerror(errno));
    fprintf(f, "# mpbench tuned parameters: VARIANT MxK n=N threads=T PARAMS\n"
               "# written by 'mpbench tune'; read by 'mpbench e2e --tuned'\n");
    fprintf(f, "fingerprint %s\n", t->fingerprint);
    for (int i = 0; i < t->count; i++) {
        const mp_tuned_entry *x = &t->e[i];
        char ps[256];
        mp_params_str(x->v, x->param, ps, sizeof ps);
        fprintf(f, "%s %dx%d n=%d threads=%d %s\n", x->v->name, x->m, x->k, x->n, x->threads,
                ps[0] ? ps : "-");
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        unlink(tmp);
        return fail(why, len, MP_TUNED_EIO, "tuned config %s: write failed: %s", path, strerror(errno));
    }
    return MP_TUNED_OK;
}

void mp_tuned_free(mp_tuned *t)
{
    free(t->e);
    t->e = NULL;
    t->count = 0;
}
