/* models.c - real model architectures from models/shapes/NAME.txt ("key value"
 * lines, '#' comments) and the GEMM shapes derived from them (M = out features,
 * K = in features, as in ../shared/models-reference.md). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_core.h"

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *mp_models_dir(void)
{
    static char dir[PATH_MAX];
    const char *env = getenv("MPBENCH_MODELS");
    if (env && *env)
        return env;
    if (is_dir("models/shapes"))
        return "models/shapes";
    char exe[PATH_MAX - 32];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            /* the binary sits at the repository root, or one folder below it (build/) */
            snprintf(dir, sizeof dir, "%s/models/shapes", exe);
            if (is_dir(dir))
                return dir;
            snprintf(dir, sizeof dir, "%s/../models/shapes", exe);
            if (is_dir(dir))
                return dir;
        }
    }
    return "models/shapes";
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = 0;
    return s;
}

typedef struct keydef {
    const char *key;
    int required;
    int is_int; /* 1 int, 0 double, 2 string */
    size_t off;
} keydef;

#define KI(k, req) {#k, req, 1, offsetof(mp_model, k)}
#define KD(k, req) {#k, req, 0, offsetof(mp_model, k)}

static const keydef keys[] = {
    KI(hidden, 1), KI(intermediate, 1), KI(layers, 1), KI(heads, 1), KI(kv_heads, 1),
    KI(vocab, 1), KI(head_dim, 0), KI(max_pos, 0), KD(rope_theta, 0), KD(norm_eps, 0),
    KI(tied, 0), KI(sub_norm, 0),
};

int mp_model_load_text(const char *name, mp_model *m, mp_err *e)
{
    char path[PATH_MAX];
    if (!name || !*name)
        return mp_fail(e, MP_EUSAGE, "--model: missing model name");
    if (strchr(name, '/'))
        snprintf(path, sizeof path, "%s", name);
    else
        snprintf(path, sizeof path, "%s/%s.txt", mp_models_dir(), name);
    FILE *f = fopen(path, "r");
    if (!f)
        return mp_fail(e, MP_EUSAGE,
                       "unknown model '%s': cannot open %s (%s); see 'mpbench list models'",
                       name, path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) { /* fopen takes folders */
        fclose(f);
        return mp_fail(e, MP_EUSAGE, "--model %s: %s is a directory, not a model file", name,
                       path);
    }
    memset(m, 0, sizeof *m);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t blen = strlen(base);
    if (blen > 4 && !strcmp(base + blen - 4, ".txt"))
        blen -= 4;
    snprintf(m->name, sizeof m->name, "%.*s", (int)blen, base);
    m->max_pos = 2048;
    m->rope_theta = 10000.0;
    m->norm_eps = 1e-5;
    strcpy(m->ffn_act, "silu");
    int seen[sizeof keys / sizeof keys[0]] = {0};
    char line[1024];
    int lineno = 0, rc = MP_OK;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            rc = mp_fail(e, MP_EUSAGE, "%s:%d: line longer than %zu bytes", path, lineno,
                         sizeof line - 2);
            break;
        }
        char *s = trim(line);
        if (!*s || *s == '#')
            continue;
        char *sp = s;
        while (*sp && !isspace((unsigned char)*sp))
            sp++;
        char *val = *sp ? trim(sp + 1) : sp;
        *sp = 0;
        if (!*val) {
            rc = mp_fail(e, MP_EUSAGE, "%s:%d: key '%s' has no value", path, lineno, s);
            break;
        }
        if (!strcmp(s, "source")) {
            snprintf(m->source, sizeof m->source, "%s", val);
            continue;
        }
        if (!strcmp(s, "name"))
            continue;
        if (!strcmp(s, "ffn_act")) {
            if (strcmp(val, "silu") && strcmp(val, "relu2")) {
                rc = mp_fail(e, MP_EUSAGE, "%s:%d: ffn_act '%s' must be silu or relu2",
                             path, lineno, val);
                break;
            }
            snprintf(m->ffn_act, sizeof m->ffn_act, "%s", val);
            continue;
        }
        size_t i;
        for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
            if (!strcmp(keys[i].key, s))
                break;
        if (i == sizeof keys / sizeof keys[0]) {
            rc = mp_fail(e, MP_EUSAGE, "%s:%d: unknown key '%s'", path, lineno, s);
            break;
        }
        if (keys[i].is_int) { /* decimal digits only: no 0x80, no 1e2 (mp_parse_long) */
            int boolean = !strcmp(s, "tied") || !strcmp(s, "sub_norm");
            long v;
            if (mp_parse_long(val, boolean ? 0 : 1, boolean ? 1 : 100000000, &v)) {
                rc = mp_fail(e, MP_EUSAGE, "%s:%d: %s: '%s' must be %s", path, lineno, s,
                             val, boolean ? "0 or 1" : "a positive integer (decimal, at most 100000000)");
                break;
            }
            *(int *)((char *)m + keys[i].off) = (int)v;
        } else {
            char *end;
            errno = 0;
            double d = strtod(val, &end);
            if (*end || errno || !isfinite(d)) {
                rc = mp_fail(e, MP_EUSAGE, "%s:%d: %s: '%s' is not a number", path, lineno, s,
                             val);
                break;
            }
            if (d <= 0) {
                rc = mp_fail(e, MP_EUSAGE, "%s:%d: %s: '%s' must be positive", path,
                             lineno, s, val);
                break;
            }
            *(double *)((char *)m + keys[i].off) = d;
        }
        seen[i] = 1;
    }
    fclose(f);
    if (rc)
        return rc;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (keys[i].required && !seen[i])
            return mp_fail(e, MP_EUSAGE, "%s: missing required key '%s'", path, keys[i].key);
    if (!m->source[0])
        return mp_fail(e, MP_EUSAGE, "%s: missing 'source' (every model file names it)", path);
    if (!m->head_dim) {
        if (m->hidden % m->heads)
            return mp_fail(e, MP_EUSAGE, "%s: hidden %d not divisible by heads %d; give head_dim",
                           path, m->hidden, m->heads);
        m->head_dim = m->hidden / m->heads;
    }
    if (m->heads % m->kv_heads)
        return mp_fail(e, MP_EUSAGE, "%s: heads %d not a multiple of kv_heads %d", path,
                       m->heads, m->kv_heads);
    /* every product the decoder and the shapes form must fit an int, and every
     * weight matrix the kernels' 32-bit index (issue 20: 10^5 heads x 10^5
     * head_dim wrapped into a negative shape) */
    const double hd = m->head_dim, dims[] = {(double)m->heads * hd, (double)m->kv_heads * hd};
    for (int i = 0; i < 2; i++)
        if (dims[i] > 1e8)
            return mp_fail(e, MP_EUSAGE, "%s: %s x head_dim = %.0f, more than the limit of "
                           "100000000", path, i ? "kv_heads" : "heads", dims[i]);
    const double mats[][2] = {{dims[0], m->hidden}, {m->intermediate, m->hidden},
                              {m->vocab, m->hidden}};
    for (int i = 0; i < 3; i++)
        if (mats[i][0] * mats[i][1] > (double)INT_MAX)
            return mp_fail(e, MP_EUSAGE, "%s: a %.0fx%.0f weight matrix, more than the limit "
                           "of %d weights", path, mats[i][0], mats[i][1], INT_MAX);
    return MP_OK;
}

int mp_model_linears(const mp_model *m, mp_linear *out)
{
    int qd = m->heads * m->head_dim, kvd = m->kv_heads * m->head_dim;
    mp_linear l[8] = {
        {"q", qd, m->hidden, 1},          {"k", kvd, m->hidden, 1},
        {"v", kvd, m->hidden, 1},         {"o", m->hidden, qd, 1},
        {"gate", m->intermediate, m->hidden, 1}, {"up", m->intermediate, m->hidden, 1},
        {"down", m->hidden, m->intermediate, 1}, {"head", m->vocab, m->hidden, 0},
    };
    memcpy(out, l, sizeof l);
    return 8;
}

int mp_model_shapes(const mp_model *m, int shapes[][2], char names[][32])
{
    mp_linear l[8];
    int nl = mp_model_linears(m, l), ns = 0;
    for (int i = 0; i < nl; i++) {
        if (!l[i].ternary)
            continue;
        int j;
        for (j = 0; j < ns; j++)
            if (shapes[j][0] == l[i].m && shapes[j][1] == l[i].k)
                break;
        if (j == ns) {
            shapes[ns][0] = l[i].m;
            shapes[ns][1] = l[i].k;
            snprintf(names[ns], 32, "%s", l[i].layer);
            ns++;
        } else {
            size_t len = strlen(names[j]);
            snprintf(names[j] + len, 32 - len, ",%s", l[i].layer);
        }
    }
    return ns;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int mp_models_dir_check(mp_err *e)
{
    const char *dir = mp_models_dir();
    struct stat st;
    if (stat(dir, &st) != 0)
        return mp_fail(e, MP_EIO, "models folder %s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return mp_fail(e, MP_EIO, "models folder %s (MPBENCH_MODELS): not a folder", dir);
    return MP_OK;
}

int mp_model_list(char ***names)
{
    DIR *d = opendir(mp_models_dir());
    int n = 0, cap = 0;
    char **list = NULL;
    if (d) {
        struct dirent *de;
        while ((de = readdir(d))) {
            size_t len = strlen(de->d_name);
            if (len < 5 || strcmp(de->d_name + len - 4, ".txt"))
                continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 32;
                list = realloc(list, sizeof *list * (size_t)cap);
                if (!list)
                    abort();
            }
            list[n] = strndup(de->d_name, len - 4);
            n++;
        }
        closedir(d);
    }
    if (n)
        qsort(list, (size_t)n, sizeof *list, cmp_str);
    *names = list;
    return n;
}
