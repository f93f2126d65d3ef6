/* gguf-read.c - our GGUF reader (issue 19): versions 2 and 3, little-endian,
 * mmap'ed, every count, length, size and offset checked against the file
 * before it is used, so a damaged or hostile file gives a message naming the
 * file, the field and its byte offset, never a crash (the fuzzing issue feeds
 * this parser); the tensor types it knows are gguf-types.c's.
 *
 * Checks beyond the format's own: counts bounded by what the remaining bytes
 * could hold (a tensor info needs at least 24 bytes, a key-value 13), dims
 * positive with a product below 2^62, tensor names <= 63 bytes (ggml's limit),
 * duplicate keys and tensor names, offsets aligned, inside the data section and
 * not overlapping, general.alignment a power of two given as u32. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_gguf.h"

typedef struct rd {
    const uint8_t *p;
    size_t size, pos;
    const char *name;
    mp_err *e;
} rd;

static int bad(rd *r, uint64_t at, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int bad(rd *r, uint64_t at, const char *field, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return mp_fail(r->e, MP_EUSAGE, "%s: %s at byte %llu: %s", r->name, field,
                   (unsigned long long)at, what);
}

static int need(rd *r, uint64_t n, const char *field)
{
    if (n > r->size - r->pos)
        return bad(r, r->pos, field, "needs %llu bytes but the file ends after %llu (truncated)",
                   (unsigned long long)n, (unsigned long long)(r->size - r->pos));
    return MP_OK;
}

static int get(rd *r, void *out, size_t n, const char *field)
{
    int rc = need(r, n, field);
    if (rc)
        return rc;
    memcpy(out, r->p + r->pos, n);
    r->pos += n;
    return MP_OK;
}

/* A string: u64 length then bytes; returns a malloc'd NUL-terminated copy. */
static int get_str(rd *r, char **out, uint64_t maxlen, const char *field)
{
    uint64_t at = r->pos, len;
    int rc = get(r, &len, 8, field);
    if (rc)
        return rc;
    if (len > r->size - r->pos)
        return bad(r, at, field, "string length %llu runs past the end of the file (%llu bytes left)",
                   (unsigned long long)len, (unsigned long long)(r->size - r->pos));
    if (len > maxlen)
        return bad(r, at, field, "string length %llu exceeds %llu", (unsigned long long)len,
                   (unsigned long long)maxlen);
    if (memchr(r->p + r->pos, 0, len))
        return bad(r, at, field, "string contains a NUL byte");
    *out = malloc(len + 1);
    if (!*out)
        return mp_fail(r->e, MP_ERUN, "%s: out of memory", r->name);
    memcpy(*out, r->p + r->pos, len);
    (*out)[len] = 0;
    r->pos += len;
    return MP_OK;
}

static size_t vsize(int t)
{
    static const size_t s[MP_GGUF_NTYPES] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    return t >= 0 && t < MP_GGUF_NTYPES ? s[t] : 0;
}

static const char *vname(int t)
{
    static const char *const n[MP_GGUF_NTYPES] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32",
                                                  "bool", "string", "array", "u64", "i64", "f64"};
    return t >= 0 && t < MP_GGUF_NTYPES ? n[t] : "?";
}

static int get_scalar(rd *r, int type, mp_gguf_kv *kv, const char *field)
{
    uint8_t b[8] = {0};
    uint64_t at = r->pos;
    int rc = get(r, b, vsize(type), field);
    if (rc)
        return rc;
    switch (type) {
    case MP_GGUF_U8: kv->v.u = b[0]; break;
    case MP_GGUF_I8: kv->v.i = (int8_t)b[0]; break;
    case MP_GGUF_U16: { uint16_t x; memcpy(&x, b, 2); kv->v.u = x; break; }
    case MP_GGUF_I16: { int16_t x; memcpy(&x, b, 2); kv->v.i = x; break; }
    case MP_GGUF_U32: { uint32_t x; memcpy(&x, b, 4); kv->v.u = x; break; }
    case MP_GGUF_I32: { int32_t x; memcpy(&x, b, 4); kv->v.i = x; break; }
    case MP_GGUF_F32: { float x; memcpy(&x, b, 4); kv->v.f = x; break; }
    case MP_GGUF_BOOL:
        if (b[0] > 1)
            return bad(r, at, field, "bool value %u is neither 0 nor 1", b[0]);
        kv->v.u = b[0];
        break;
    case MP_GGUF_U64: memcpy(&kv->v.u, b, 8); break;
    case MP_GGUF_I64: memcpy(&kv->v.i, b, 8); break;
    case MP_GGUF_F64: memcpy(&kv->v.f, b, 8); break;
    }
    return MP_OK;
}

typedef struct named {
    const char *s;
    int64_t i;
} named;

static int cmp_name(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->s, y->s);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* Finds a duplicate among n names; returns the index of its second occurrence or -1. */
static int64_t find_dup(char **names, int64_t n, mp_err *e, int *oom)
{
    *oom = 0;
    if (n < 2)
        return -1;
    named *s = malloc(sizeof *s * (size_t)n);
    if (!s) {
        *oom = 1;
        mp_fail(e, MP_ERUN, "out of memory");
        return -1;
    }
    for (int64_t i = 0; i < n; i++)
        s[i] = (named){names[i], i};
    qsort(s, (size_t)n, sizeof *s, cmp_name);
    int64_t dup = -1;
    for (int64_t i = 1; i < n && dup < 0; i++)
        if (!strcmp(s[i].s, s[i - 1].s))
            dup = s[i].i;
    free(s);
    return dup;
}

typedef struct span {
    uint64_t off, end;
    int64_t idx;
} span;

static int cmp_span(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

void mp_gguf_close(mp_gguf *g)
{
    if (!g)
        return;
    for (int64_t i = 0; g->kv && i < g->n_kv; i++) {
        free(g->kv[i].key);
        free(g->kv[i].str);
    }
    for (int64_t i = 0; g->t && i < g->n_tensors; i++)
        free(g->t[i].name);
    free(g->kv);
    free(g->t);
    if (g->mapped && g->base)
        munmap((void *)g->base, g->size);
    free(g);
}

int mp_gguf_parse(const uint8_t *buf, size_t size, const char *name, mp_gguf **out, mp_err *e)
{
    *out = NULL;
    mp_gguf *g = calloc(1, sizeof *g);
    if (!g)
        return mp_fail(e, MP_ERUN, "%s: out of memory", name);
    snprintf(g->path, sizeof g->path, "%s", name);
    g->base = buf;
    g->size = size;
    rd r = {.p = buf, .size = size, .pos = 0, .name = g->path, .e = e};
    int rc;
    char magic[4];
    uint32_t version;
    uint64_t nt, nkv;
    if ((rc = get(&r, magic, 4, "magic")))
        goto fail;
    if (memcmp(magic, "GGUF", 4)) {
        rc = bad(&r, 0, "magic", "'%c%c%c%c' is not \"GGUF\" (not a GGUF file%s)",
                 magic[0] >= 32 && magic[0] < 127 ? magic[0] : '?',
                 magic[1] >= 32 && magic[1] < 127 ? magic[1] : '?',
                 magic[2] >= 32 && magic[2] < 127 ? magic[2] : '?',
                 magic[3] >= 32 && magic[3] < 127 ? magic[3] : '?',
                 !memcmp(magic, "FUGG", 4) ? ", or big-endian" : "");
        goto fail;
    }
    if ((rc = get(&r, &version, 4, "version")))
        goto fail;
    if (version != 2 && version != 3) {
        rc = bad(&r, 4, "version", "version %u is not supported (2 and 3 are)%s", version,
                 (version & 0xffff) == 0 && version ? "; a big-endian file?" : "");
        goto fail;
    }
    g->version = (int)version;
    if ((rc = get(&r, &nt, 8, "tensor count")) || (rc = get(&r, &nkv, 8, "key-value count")))
        goto fail;
    /* a key-value needs at least 8 (key length) + 4 (type) + 1 bytes, a tensor info 24 */
    if (nkv > (size - r.pos) / 13) {
        rc = bad(&r, 16, "key-value count", "%llu pairs cannot fit in the %llu bytes left",
                 (unsigned long long)nkv, (unsigned long long)(size - r.pos));
        goto fail;
    }
    if (nt > (size - r.pos) / 24) {
        rc = bad(&r, 8, "tensor count", "%llu tensors cannot fit in the %llu bytes left",
                 (unsigned long long)nt, (unsigned long long)(size - r.pos));
        goto fail;
    }
    g->kv = calloc(nkv ? nkv : 1, sizeof *g->kv);
    g->t = calloc(nt ? nt : 1, sizeof *g->t);
    if (!g->kv || !g->t) {
        rc = mp_fail(e, MP_ERUN, "%s: out of memory", name);
        goto fail;
    }
    g->alignment = MP_GGUF_DEFAULT_ALIGN;
    char field[160];
    for (uint64_t i = 0; i < nkv; i++) {
        mp_gguf_kv *kv = &g->kv[i];
        kv->at = r.pos;
        kv->n = 1;
        snprintf(field, sizeof field, "key %llu", (unsigned long long)i);
        if ((rc = get_str(&r, &kv->key, 65535, field)))
            goto fail;
        g->n_kv = (int64_t)i + 1;
        snprintf(field, sizeof field, "key '%.100s'", kv->key);
        uint32_t type;
        uint64_t tat = r.pos;
        if ((rc = get(&r, &type, 4, field)))
            goto fail;
        if (type >= MP_GGUF_NTYPES) {
            rc = bad(&r, tat, field, "unknown value type %u", type);
            goto fail;
        }
        kv->type = (int)type;
        if (type == MP_GGUF_STRING) {
            if ((rc = get_str(&r, &kv->str, size, field)))
                goto fail;
        } else if (type == MP_GGUF_ARRAY) {
            uint32_t at;
            uint64_t n, aat = r.pos;
            if ((rc = get(&r, &at, 4, field)) || (rc = get(&r, &n, 8, field)))
                goto fail;
            if (at >= MP_GGUF_NTYPES || at == MP_GGUF_ARRAY) {
                rc = bad(&r, aat, field, "array element type %u is %s", at,
                         at == MP_GGUF_ARRAY ? "an array (nested arrays are not supported)"
                                             : "unknown");
                goto fail;
            }
            kv->arr_type = (int)at;
            kv->n = n;
            kv->data = buf + r.pos;
            size_t es = at == MP_GGUF_STRING ? 8 : vsize((int)at);
            if (n > (size - r.pos) / es) {
                rc = bad(&r, aat + 4, field, "array of %llu %s elements runs past the end of the file",
                         (unsigned long long)n, vname((int)at));
                goto fail;
            }
            if (at == MP_GGUF_STRING) {
                for (uint64_t j = 0; j < n; j++) {
                    uint64_t sat = r.pos, len;
                    if ((rc = get(&r, &len, 8, field)))
                        goto fail;
                    if (len > size - r.pos) {
                        rc = bad(&r, sat, field, "string %llu of the array: length %llu runs past "
                                 "the end of the file", (unsigned long long)j,
                                 (unsigned long long)len);
                        goto fail;
                    }
                    r.pos += len;
                }
            } else {
                if (at == MP_GGUF_BOOL)
                    for (uint64_t j = 0; j < n; j++)
                        if (buf[r.pos + j] > 1) {
                            rc = bad(&r, r.pos + j, field, "bool element %llu is %u",
                                     (unsigned long long)j, buf[r.pos + j]);
                            goto fail;
                        }
                r.pos += n * es;
            }
        } else if ((rc = get_scalar(&r, (int)type, kv, field))) {
            goto fail;
        }
        if (!strcmp(kv->key, "general.alignment")) {
            if (type != MP_GGUF_U32) {
                rc = bad(&r, kv->at, "general.alignment", "type %s, must be u32", vname((int)type));
                goto fail;
            }
            if (kv->v.u == 0 || (kv->v.u & (kv->v.u - 1))) {
                rc = bad(&r, kv->at, "general.alignment", "%llu is not a power of two",
                         (unsigned long long)kv->v.u);
                goto fail;
            }
            g->alignment = kv->v.u;
        }
    }
    int oom;
    char **kn = malloc(sizeof *kn * (nkv > nt ? nkv : nt ? nt : 1));
    if (!kn) {
        rc = mp_fail(e, MP_ERUN, "%s: out of memory", name);
        goto fail;
    }
    for (uint64_t i = 0; i < nkv; i++)
        kn[i] = g->kv[i].key;
    int64_t dup = find_dup(kn, (int64_t)nkv, e, &oom);
    if (oom) {
        free(kn);
        rc = MP_ERUN;
        goto fail;
    }
    if (dup >= 0) {
        free(kn);
        rc = bad(&r, g->kv[dup].at, "key", "duplicate key '%.200s'", g->kv[dup].key);
        goto fail;
    }
    for (uint64_t i = 0; i < nt; i++) {
        mp_gguf_tensor *t = &g->t[i];
        t->at = r.pos;
        snprintf(field, sizeof field, "tensor %llu name", (unsigned long long)i);
        if ((rc = get_str(&r, &t->name, MP_GGUF_MAX_NAME, field)))
            break;
        g->n_tensors = (int64_t)i + 1;
        snprintf(field, sizeof field, "tensor '%s'", t->name);
        uint32_t nd, type;
        uint64_t dat = r.pos;
        if ((rc = get(&r, &nd, 4, field)))
            break;
        if (nd < 1 || nd > MP_GGUF_MAX_DIMS) {
            rc = bad(&r, dat, field, "%u dimensions (1 to %d allowed)", nd, MP_GGUF_MAX_DIMS);
            break;
        }
        t->n_dims = (int)nd;
        for (int d = 0; d < MP_GGUF_MAX_DIMS; d++)
            t->ne[d] = 1;
        for (uint32_t d = 0; d < nd && !rc; d++) {
            uint64_t v, vat = r.pos;
            if ((rc = get(&r, &v, 8, field)))
                break;
            if (v < 1 || v > ((uint64_t)1 << 40))
                rc = bad(&r, vat, field, "dimension %u is %llu (absurd)", d, (unsigned long long)v);
            t->ne[d] = (int64_t)v;
        }
        if (rc)
            break;
        uint64_t tyat = r.pos;
        if ((rc = get(&r, &type, 4, field)))
            break;
        t->type = (int)type;
        if (!mp_gguf_type_name((int)type)) {
            rc = bad(&r, tyat, field, "unknown tensor type %u (not one of ggml's types)", type);
            break;
        }
        char why[160];
        t->bytes = mp_gguf_tensor_bytes((int)type, t->ne, why, sizeof why);
        if (!t->bytes) {
            rc = bad(&r, dat, field, "shape does not fit type %s: %s", mp_gguf_type_name((int)type),
                     why);
            break;
        }
        uint64_t oat = r.pos;
        if ((rc = get(&r, &t->offset, 8, field)))
            break;
        if (t->offset % g->alignment) {
            rc = bad(&r, oat, field, "data offset %llu is not a multiple of the alignment %llu",
                     (unsigned long long)t->offset, (unsigned long long)g->alignment);
            break;
        }
    }
    if (rc) {
        free(kn);
        goto fail;
    }
    for (uint64_t i = 0; i < nt; i++)
        kn[i] = g->t[i].name;
    dup = find_dup(kn, (int64_t)nt, e, &oom);
    free(kn);
    if (oom) {
        rc = MP_ERUN;
        goto fail;
    }
    if (dup >= 0) {
        rc = bad(&r, g->t[dup].at, "tensor name", "duplicate tensor name '%s'", g->t[dup].name);
        goto fail;
    }
    /* the data section starts at the next multiple of the alignment */
    uint64_t ds = (r.pos + g->alignment - 1) / g->alignment * g->alignment;
    if (nt && ds > size) {
        rc = bad(&r, r.pos, "data section", "starts at %llu, past the end of the file (%zu bytes)",
                 (unsigned long long)ds, size);
        goto fail;
    }
    g->data_offset = ds;
    uint64_t dsize = ds <= size ? size - ds : 0;
    span *sp = malloc(sizeof *sp * (nt ? nt : 1));
    if (!sp) {
        rc = mp_fail(e, MP_ERUN, "%s: out of memory", name);
        goto fail;
    }
    for (uint64_t i = 0; i < nt; i++) {
        mp_gguf_tensor *t = &g->t[i];
        if (t->offset > dsize || t->bytes > dsize - t->offset) {
            snprintf(field, sizeof field, "tensor '%s' offset", t->name);
            rc = bad(&r, t->at, field, "data [%llu, %llu) lies outside the data section of %llu "
                     "bytes (file truncated?)", (unsigned long long)t->offset,
                     (unsigned long long)(t->offset + t->bytes), (unsigned long long)dsize);
            free(sp);
            goto fail;
        }
        t->data = buf + ds + t->offset;
        sp[i] = (span){t->offset, t->offset + t->bytes, (int64_t)i};
    }
    qsort(sp, nt, sizeof *sp, cmp_span);
    for (uint64_t i = 1; i < nt; i++)
        if (sp[i].off < sp[i - 1].end) {
            mp_gguf_tensor *t = &g->t[sp[i].idx];
            snprintf(field, sizeof field, "tensor '%s' offset", t->name);
            rc = bad(&r, t->at, field, "data at %llu overlaps tensor '%s' [%llu, %llu)",
                     (unsigned long long)t->offset, g->t[sp[i - 1].idx].name,
                     (unsigned long long)sp[i - 1].off, (unsigned long long)sp[i - 1].end);
            free(sp);
            goto fail;
        }
    free(sp);
    *out = g;
    return MP_OK;
fail:
    g->mapped = 0; /* the caller owns buf */
    mp_gguf_close(g);
    return rc;
}

int mp_gguf_open(const char *path, mp_gguf **out, mp_err *e)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return mp_fail(e, MP_EUSAGE, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        return mp_fail(e, MP_EUSAGE, "%s: not a regular file", path);
    }
    size_t size = (size_t)st.st_size;
    const uint8_t *base = NULL;
    if (size) {
        void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            close(fd);
            return mp_fail(e, MP_ERUN, "%s: mmap: %s", path, strerror(errno));
        }
        base = p;
    }
    close(fd);
    static const uint8_t empty[1];
    int rc = mp_gguf_parse(base ? base : empty, size, path, out, e);
    if (rc) {
        if (base)
            munmap((void *)base, size);
        return rc;
    }
    (*out)->mapped = base != NULL;
    return MP_OK;
}

const mp_gguf_kv *mp_gguf_find(const mp_gguf *g, const char *key)
{
    for (int64_t i = 0; i < g->n_kv; i++)
        if (!strcmp(g->kv[i].key, key))
            return &g->kv[i];
    return NULL;
}

const mp_gguf_tensor *mp_gguf_tensor_find(const mp_gguf *g, const char *name)
{
    for (int64_t i = 0; i < g->n_tensors; i++)
        if (!strcmp(g->t[i].name, name))
            return &g->t[i];
    return NULL;
}

const char *mp_gguf_arr_str(const mp_gguf_kv *kv, uint64_t i, uint64_t *len)
{
    /* validated at parse time: every length fits in the file */
    const uint8_t *p = kv->data;
    for (uint64_t j = 0;; j++) {
        uint64_t l;
        memcpy(&l, p, 8);
        if (j == i) {
            *len = l;
            return (const char *)p + 8;
        }
        p += 8 + l;
    }
}
