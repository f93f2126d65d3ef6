/* options.c - the one option parser of the mpbench commands (issue 38): argv
 * read against a command's table of mp_opt rows (mp_options.h), each value
 * validated where it is read with a message that names the option and the
 * value, and --help printed from the same rows.  Replaces a getopt_long loop
 * and a hand-written usage string per command, which had drifted apart (`run
 * --shape` refused the list `sweep --shape` took; `tune --variant A --variant
 * B` kept only B; `list --help` was an unknown kind). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mp_options.h"
#include "../gguf/mp_gguf.h"
#include "../report/mp_output.h"

static void *at(void *dst, size_t off)
{
    return (char *)dst + off;
}

/* "'x' is not a or b" / "'x' is not one of a, b, c", as the commands said it. */
static int choice_fail(const mp_opt *o, const char *v, mp_err *e)
{
    char list[256] = "";
    int n = 1;
    for (const char *p = o->choices; *p; p++)
        n += *p == '|';
    size_t used = 0;
    int i = 0;
    for (const char *p = o->choices; *p && used < sizeof list - 8; i++) {
        const char *bar = strchr(p, '|');
        size_t l = bar ? (size_t)(bar - p) : strlen(p);
        const char *sep = !i ? "" : n == 2 ? " or " : ", ";
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%.*s", sep, (int)l, p);
        p += l + (bar ? 1 : 0);
    }
    return mp_fail(e, MP_EUSAGE, "--%s: '%s' is not %s%s", o->name, v, n > 2 ? "one of " : "",
                   list);
}

/* One value of option o into dst. */
static int take(const mp_opt *o, const char *v, void *dst, mp_err *e)
{
    char what[80];
    snprintf(what, sizeof what, "--%s", o->name);
    void *t = at(dst, o->off);
    switch (o->kind) {
    case MP_OPT_FLAG:
        *(int *)t = 1;
        return MP_OK;
    case MP_OPT_INT:
        return mp_parse_int(v, what, (int)o->lo, (int)o->hi, (int *)t, e);
    case MP_OPT_DOUBLE:
        return mp_parse_double(v, what, o->lo, o->hi, (double *)t, e);
    case MP_OPT_STR:
        *(const char **)t = v;
        return MP_OK;
    case MP_OPT_CHOICE:
        if (!mp_list_has(o->choices, '|', v))
            return choice_fail(o, v, e);
        *(const char **)t = v;
        return MP_OK;
    case MP_OPT_FORMAT: /* the formats the command offers, all mp_format_parse knows */
        if (!mp_list_has(o->choices, '|', v) || mp_format_parse(v, (mp_format *)t))
            return choice_fail(o, v, e);
        return MP_OK;
    case MP_OPT_STRS:
        if (!*v)
            return mp_fail(e, MP_EUSAGE, "%s: empty value", what);
        return mp_append((char *)t, (size_t)o->max, v, what, e);
    case MP_OPT_INTS: {
        int *cnt = at(dst, o->count_off), more, rc;
        if (*cnt >= o->max)
            return mp_fail(e, MP_EUSAGE, "%s: more than %d values", what, o->max);
        if ((rc = mp_parse_int_list(v, what, (int)o->lo, (int)o->hi, (int *)t + *cnt,
                                    o->max - *cnt, &more, e)))
            return rc;
        *cnt += more;
        return MP_OK;
    }
    case MP_OPT_SHAPES: {
        int *cnt = at(dst, o->count_off), more, rc;
        if (*cnt >= o->max)
            return mp_fail(e, MP_EUSAGE, "%s: more than %d shapes", what, o->max);
        if ((rc = mp_parse_shape_list(v, (int(*)[2])t + *cnt, o->max - *cnt, &more, e)))
            return rc;
        *cnt += more;
        return MP_OK;
    }
    case MP_OPT_FN:
        return o->fn(v, t, e);
    }
    return mp_fail(e, MP_EUSAGE, "%s: unknown option kind", what);
}

/* The group of spec->once that holds option name, into grp ('|'-joined); 0 if none. */
static int once_group(const mp_cmd_spec *spec, const char *name, char *grp, size_t len)
{
    for (const char *p = spec->once; p && *p;) {
        size_t l = strcspn(p, " ");
        snprintf(grp, len, "%.*s", (int)l, p);
        if (mp_list_has(grp, '|', name))
            return 1;
        p += l + (p[l] == ' ');
    }
    return 0;
}

/* An option of a spec->once group given when one of its group already was:
 * MP_EUSAGE naming both (the earlier value read back from its target, a
 * string), else 0. */
static int refuse_twice(const mp_cmd_spec *spec, const mp_opts_out *out, const mp_opt *o,
                        const char *val, const void *dst, mp_err *e)
{
    char grp[128];
    if (!once_group(spec, o->name, grp, sizeof grp))
        return 0;
    for (int j = 0; spec->opts[j].name && j < MP_OPTS_MAX; j++) {
        const mp_opt *p = &spec->opts[j];
        if (!out->seen[j] || !mp_list_has(grp, '|', p->name))
            continue;
        const char *was = (p->kind == MP_OPT_STR || p->kind == MP_OPT_FN) && dst
                              ? *(const char *const *)((const char *)dst + p->off) : NULL;
        return mp_fail(e, MP_EUSAGE, "--%s %s and --%s %s: %s takes one (give one of them)",
                       p->name, was ? was : "(given)", o->name, val ? val : "", spec->name);
    }
    return 0;
}

static const mp_opt *find_long(const mp_opt *t, const char *name, size_t len, int *idx)
{
    for (int i = 0; t[i].name; i++)
        if (strlen(t[i].name) == len && !strncmp(t[i].name, name, len))
            return *idx = i, &t[i];
    return NULL;
}

static const mp_opt *find_short(const mp_opt *t, char c, int *idx)
{
    for (int i = 0; t[i].name; i++)
        if (c && t[i].short_name == c)
            return *idx = i, &t[i];
    return NULL;
}

int mp_opts_parse(const mp_cmd_spec *spec, int argc, char **argv, void *dst, mp_opts_out *out)
{
    memset(out, 0, sizeof *out);
    int only_pos = 0;
    mp_err e;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        const mp_opt *o = NULL;
        int idx = -1;
        if (only_pos || a[0] != '-' || !a[1]) {
            if (out->npos >= spec->max_pos || out->npos >= MP_OPTS_MAX_POS)
                return mp_die(MP_EUSAGE, "%s: unexpected argument '%s' (see mpbench %s --help)",
                              spec->name, a, spec->name);
            out->pos[out->npos++] = a;
            continue;
        }
        if (!strcmp(a, "--")) {
            only_pos = 1;
            continue;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            mp_opts_usage(spec, stdout);
            out->help = 1;
            return 0;
        }
        if (a[1] == '-') {
            const char *eq = strchr(a + 2, '=');
            o = find_long(spec->opts, a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2), &idx);
            if (o && eq)
                val = eq + 1;
            if (o && eq && o->kind == MP_OPT_FLAG)
                return mp_die(MP_EUSAGE, "%s: option '--%s' takes no value (got '%s')",
                              spec->name, o->name, a);
        } else if (!a[2]) {
            o = find_short(spec->opts, a[1], &idx);
        }
        if (!o) {
            fprintf(stderr, "mpbench: %s: unknown or incomplete option '%s' (see mpbench %s "
                            "--help)\n", spec->name, a, spec->name);
            return MP_EUSAGE;
        }
        if (o->kind != MP_OPT_FLAG && !val) {
            if (i + 1 >= argc)
                return mp_die(MP_EUSAGE, "%s: unknown or incomplete option '%s': it needs "
                                         "a value (%s)", spec->name, a, o->arg ? o->arg : "VALUE");
            val = argv[++i];
        }
        int rc = refuse_twice(spec, out, o, val, dst, &e);
        if (!rc)
            rc = take(o, val, dst, &e);
        if (rc)
            return mp_die(rc, "%s", e.msg);
        if (idx < MP_OPTS_MAX)
            out->seen[idx]++;
    }
    return 0;
}

int mp_opts_seen(const mp_cmd_spec *spec, const mp_opts_out *out, const char *name)
{
    for (int i = 0; spec->opts[i].name && i < MP_OPTS_MAX; i++)
        if (!strcmp(spec->opts[i].name, name))
            return out->seen[i];
    return 0;
}

void mp_opts_usage(const mp_cmd_spec *spec, FILE *f)
{
    fprintf(f, "usage: mpbench %s %s\n", spec->name, spec->synopsis ? spec->synopsis : "[options]");
    if (spec->opts[0].name)
        fputs("options:\n", f);
    for (const mp_opt *o = spec->opts; o->name; o++) {
        char lhs[96];
        int l = snprintf(lhs, sizeof lhs, "  %s%c%s--%s", o->short_name ? "-" : "",
                         o->short_name ? o->short_name : ' ', o->short_name ? ", " : "  ",
                         o->name);
        if (o->kind != MP_OPT_FLAG && l > 0 && (size_t)l < sizeof lhs)
            snprintf(lhs + l, sizeof lhs - (size_t)l, " %s", o->arg ? o->arg : "VALUE");
        int list = o->kind == MP_OPT_INTS || o->kind == MP_OPT_STRS || o->kind == MP_OPT_SHAPES;
        char range[64] = "";
        if (o->kind == MP_OPT_INT || o->kind == MP_OPT_INTS)
            snprintf(range, sizeof range, " [%.0f..%.0f]", o->lo, o->hi);
        else if (o->kind == MP_OPT_DOUBLE)
            snprintf(range, sizeof range, " [%g..%g]", o->lo, o->hi);
        if (strlen(lhs) > 30)
            fprintf(f, "%s\n%32s%s%s%s\n", lhs, "", o->help, range,
                    list ? "; a list A,B or repeated" : "");
        else
            fprintf(f, "%-30s  %s%s%s\n", lhs, o->help, range,
                    list ? "; a list A,B or repeated" : "");
    }
    fputs("  -h, --help                    this text\n", f);
    if (spec->about)
        fprintf(f, "\n%s", spec->about);
}

int mp_opt_clock_gate(const char *arg, void *target, mp_err *e)
{
    return mp_parse_clock_gate(arg, (double *)target, e);
}

int mp_opt_shard(const char *arg, void *target, mp_err *e)
{
    int *t = target;
    return mp_parse_shard(arg, &t[0], &t[1], e);
}

int mp_opt_gguf(const char *arg, void *target, mp_err *e)
{
    mp_model m;
    mp_err why;
    int rc = mp_gguf_model_load(arg, &m, &why);
    if (rc)
        return mp_fail(e, rc, "--gguf %.1000s", why.msg);
    *(const char **)target = arg;
    return MP_OK;
}
