/* gguf-write.c - our GGUF writer (issue 19): version 3, little-endian, keys in
 * the order given, tensors laid out in order of addition each at the next
 * multiple of the alignment (the layout ggml's gguf_write_to_file produces and
 * its reader requires).  Tensor bytes are produced one tensor at a time by a
 * callback, so a 2B-4T-sized file never needs the whole model in memory.  The
 * file is written under a temporary name and renamed when complete. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_gguf.h"

typedef struct wkv {
    char *key;
    int type, arr_type;
    uint64_t n;
    uint8_t scalar[8];
    char *str;
    void *arr;        /* numeric array bytes, or char*[n] for strings */
} wkv;

typedef struct wtensor {
    char *name;
    int type, n_dims;
    int64_t ne[MP_GGUF_MAX_DIMS];
    size_t bytes;
    mp_gguf_fill_fn fill;
    void *ctx;
} wtensor;

struct mp_gguf_w {
    wkv *kv;
    int nkv, cap_kv;
    wtensor *t;
    int nt, cap_t;
};

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q)
        abort();
    return q;
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s);
    if (!d)
        abort();
    return d;
}

mp_gguf_w *mp_gguf_w_new(void)
{
    mp_gguf_w *w = calloc(1, sizeof *w);
    if (!w)
        abort();
    return w;
}

void mp_gguf_w_free(mp_gguf_w *w)
{
    if (!w)
        return;
    for (int i = 0; i < w->nkv; i++) {
        free(w->kv[i].key);
        free(w->kv[i].str);
        if (w->kv[i].type == MP_GGUF_ARRAY && w->kv[i].arr_type == MP_GGUF_STRING)
            for (uint64_t j = 0; j < w->kv[i].n; j++)
                free(((char **)w->kv[i].arr)[j]);
        free(w->kv[i].arr);
    }
    for (int i = 0; i < w->nt; i++)
        free(w->t[i].name);
    free(w->kv);
    free(w->t);
    free(w);
}

static wkv *add_kv(mp_gguf_w *w, const char *key, int type)
{
    if (w->nkv == w->cap_kv) {
        w->cap_kv = w->cap_kv ? 2 * w->cap_kv : 32;
        w->kv = xrealloc(w->kv, sizeof *w->kv * (size_t)w->cap_kv);
    }
    wkv *kv = &w->kv[w->nkv++];
    memset(kv, 0, sizeof *kv);
    kv->key = xstrdup(key);
    kv->type = type;
    kv->n = 1;
    return kv;
}

void mp_gguf_w_str(mp_gguf_w *w, const char *key, const char *val)
{
    add_kv(w, key, MP_GGUF_STRING)->str = xstrdup(val);
}

void mp_gguf_w_u32(mp_gguf_w *w, const char *key, uint32_t val)
{
    memcpy(add_kv(w, key, MP_GGUF_U32)->scalar, &val, 4);
}

void mp_gguf_w_i32(mp_gguf_w *w, const char *key, int32_t val)
{
    memcpy(add_kv(w, key, MP_GGUF_I32)->scalar, &val, 4);
}

void mp_gguf_w_f32(mp_gguf_w *w, const char *key, float val)
{
    memcpy(add_kv(w, key, MP_GGUF_F32)->scalar, &val, 4);
}

void mp_gguf_w_bool(mp_gguf_w *w, const char *key, int val)
{
    add_kv(w, key, MP_GGUF_BOOL)->scalar[0] = val ? 1 : 0;
}

static size_t elem_size(int t)
{
    static const size_t s[MP_GGUF_NTYPES] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    return t >= 0 && t < MP_GGUF_NTYPES ? s[t] : 0;
}

void mp_gguf_w_arr(mp_gguf_w *w, const char *key, int elem, const void *data, uint64_t n)
{
    wkv *kv = add_kv(w, key, MP_GGUF_ARRAY);
    kv->arr_type = elem;
    kv->n = n;
    size_t b = elem_size(elem) * n;
    kv->arr = xrealloc(NULL, b ? b : 1);
    memcpy(kv->arr, data, b);
}

void mp_gguf_w_arr_str(mp_gguf_w *w, const char *key, const char *const *s, uint64_t n)
{
    wkv *kv = add_kv(w, key, MP_GGUF_ARRAY);
    kv->arr_type = MP_GGUF_STRING;
    kv->n = n;
    char **a = xrealloc(NULL, sizeof *a * (n ? n : 1));
    for (uint64_t i = 0; i < n; i++)
        a[i] = xstrdup(s[i]);
    kv->arr = a;
}

int mp_gguf_w_tensor(mp_gguf_w *w, const char *name, int type, int n_dims, const int64_t *ne,
                     mp_gguf_fill_fn fill, void *ctx, mp_err *e)
{
    if (strlen(name) > MP_GGUF_MAX_NAME) {
        mp_fail(e, MP_EUSAGE, "tensor name '%s' longer than %d bytes", name, MP_GGUF_MAX_NAME);
        return -1;
    }
    if (n_dims < 1 || n_dims > MP_GGUF_MAX_DIMS) {
        mp_fail(e, MP_EUSAGE, "tensor %s: %d dimensions", name, n_dims);
        return -1;
    }
    wtensor t = {.type = type, .n_dims = n_dims, .fill = fill, .ctx = ctx};
    for (int d = 0; d < MP_GGUF_MAX_DIMS; d++)
        t.ne[d] = d < n_dims ? ne[d] : 1;
    char why[160];
    t.bytes = mp_gguf_tensor_bytes(type, t.ne, why, sizeof why);
    if (!t.bytes) {
        mp_fail(e, MP_EUSAGE, "tensor %s: %s", name, why);
        return -1;
    }
    if (w->nt == w->cap_t) {
        w->cap_t = w->cap_t ? 2 * w->cap_t : 64;
        w->t = xrealloc(w->t, sizeof *w->t * (size_t)w->cap_t);
    }
    t.name = xstrdup(name);
    w->t[w->nt] = t;
    return w->nt++;
}

static int put(FILE *f, const void *p, size_t n)
{
    return fwrite(p, 1, n, f) == n ? 0 : -1;
}

static int put_str(FILE *f, const char *s)
{
    uint64_t n = strlen(s);
    return put(f, &n, 8) || put(f, s, n);
}

static int pad(FILE *f, uint64_t *pos, uint64_t align)
{
    static const uint8_t zeros[256];
    while (*pos % align) {
        uint64_t n = align - *pos % align;
        if (n > sizeof zeros)
            n = sizeof zeros;
        if (put(f, zeros, n))
            return -1;
        *pos += n;
    }
    return 0;
}

int mp_gguf_w_write(mp_gguf_w *w, const char *path, uint32_t alignment, mp_err *e)
{
    if (!alignment)
        alignment = MP_GGUF_DEFAULT_ALIGN;
    if (alignment & (alignment - 1))
        return mp_fail(e, MP_EUSAGE, "%s: alignment %u is not a power of two", path, alignment);
    /* readers learn a non-default alignment from general.alignment (u32) */
    int have = 0;
    for (int i = 0; i < w->nkv; i++)
        if (!strcmp(w->kv[i].key, "general.alignment")) {
            uint32_t v;
            memcpy(&v, w->kv[i].scalar, 4);
            if (w->kv[i].type == MP_GGUF_U32 && v != alignment)
                return mp_fail(e, MP_EUSAGE, "%s: general.alignment %u but writing with %u", path,
                               v, alignment);
            have = 1;
        }
    if (!have && alignment != MP_GGUF_DEFAULT_ALIGN)
        mp_gguf_w_u32(w, "general.alignment", alignment);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return mp_fail(e, MP_EUSAGE, "%s: cannot create: %s", path, strerror(errno));
    uint32_t version = 3;
    uint64_t nt = (uint64_t)w->nt, nkv = (uint64_t)w->nkv;
    int err = put(f, "GGUF", 4) || put(f, &version, 4) || put(f, &nt, 8) || put(f, &nkv, 8);
    for (int i = 0; i < w->nkv && !err; i++) {
        const wkv *kv = &w->kv[i];
        uint32_t type = (uint32_t)kv->type;
        err = put_str(f, kv->key) || put(f, &type, 4);
        if (err)
            break;
        if (kv->type == MP_GGUF_STRING) {
            err = put_str(f, kv->str);
        } else if (kv->type == MP_GGUF_ARRAY) {
            uint32_t at = (uint32_t)kv->arr_type;
            err = put(f, &at, 4) || put(f, &kv->n, 8);
            if (kv->arr_type == MP_GGUF_STRING)
                for (uint64_t j = 0; j < kv->n && !err; j++)
                    err = put_str(f, ((char **)kv->arr)[j]);
            else if (!err)
                err = put(f, kv->arr, elem_size(kv->arr_type) * kv->n);
        } else {
            err = put(f, kv->scalar, elem_size(kv->type));
        }
    }
    uint64_t off = 0;
    for (int i = 0; i < w->nt && !err; i++) {
        const wtensor *t = &w->t[i];
        uint32_t nd = (uint32_t)t->n_dims, type = (uint32_t)t->type;
        err = put_str(f, t->name) || put(f, &nd, 4);
        for (int d = 0; d < t->n_dims && !err; d++)
            err = put(f, &t->ne[d], 8);
        err = err || put(f, &type, 4) || put(f, &off, 8);
        off += (t->bytes + alignment - 1) / alignment * alignment;
    }
    long hdr = err ? -1 : ftell(f);
    uint64_t pos = hdr < 0 ? 0 : (uint64_t)hdr;
    err = err || hdr < 0 || pad(f, &pos, alignment);
    int rc = MP_OK;
    size_t cap = 0;
    uint8_t *buf = NULL;
    for (int i = 0; i < w->nt && !err && !rc; i++) {
        const wtensor *t = &w->t[i];
        if (t->bytes > cap) {
            free(buf);
            cap = t->bytes;
            buf = malloc(cap);
            if (!buf) {
                rc = mp_fail(e, MP_ERUN, "%s: out of memory for tensor %s (%zu bytes)", path,
                             t->name, t->bytes);
                break;
            }
        }
        memset(buf, 0, t->bytes);
        if ((rc = t->fill(t->ctx, i, buf, t->bytes, e)))
            break;
        err = put(f, buf, t->bytes);
        pos += t->bytes;
        err = err || pad(f, &pos, alignment);
    }
    free(buf);
    int cerr = fclose(f);
    if (!rc && (err || cerr))
        rc = mp_fail(e, MP_EIO, "%s: write failed: %s", path, strerror(errno));
    if (!rc && rename(tmp, path))
        rc = mp_fail(e, MP_EIO, "%s: rename: %s", path, strerror(errno));
    if (rc)
        unlink(tmp);
    return rc;
}
