/* mptw.c - the trained model's raw weights (models/trained/NAME.mptw, issue 42;
 * format: scripts/train/FORMAT.md) as an mp_model and a weight source
 * (mp_e2e_source), so our GGUF writer can write the trained model from its
 * exact values: the ternary codes and each tensor's float32 scale as trained
 * (no re-quantization), the bf16 embedding and the f32 norms as they are.
 * Only ternary files (kind ternary, t2 linears) are sources: the float twin
 * has no ternary weights to hand out. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../e2e/mp_e2e.h"
#include "gguf-tensors.h"
#include "mp_gguf.h"

typedef struct mptw_tensor {
    char name[64], type[8];
    int rows, cols;
    size_t off, bytes;
    float scale;
} mptw_tensor;

typedef struct mptw {
    char path[512];
    uint8_t *data; /* the whole file */
    size_t size, data_off;
    mptw_tensor *t;
    int nt;
    mp_model m;
} mptw;

static const mptw_tensor *find(const mptw *f, const char *name)
{
    for (int i = 0; i < f->nt; i++)
        if (!strcmp(f->t[i].name, name))
            return &f->t[i];
    return NULL;
}

/* The tensor name of type and size rows x cols, or an error naming it. */
static int get(const mptw *f, const char *name, const char *type, int rows, int cols,
               const mptw_tensor **out, mp_err *e)
{
    const mptw_tensor *t = find(f, name);
    if (!t)
        return mp_fail(e, MP_EUSAGE, "%s: tensor %s missing", f->path, name);
    if (strcmp(t->type, type) || t->rows != rows || t->cols != cols)
        return mp_fail(e, MP_EUSAGE, "%s: tensor %s is %s %d x %d, the model needs %s %d x %d",
                       f->path, name, t->type, t->rows, t->cols, type, rows, cols);
    *out = t;
    return MP_OK;
}

static int src_matrix(const mp_e2e_source *s, int which, uint16_t *out, int rows, int cols,
                      mp_err *e)
{
    const mptw *f = s->ctx;
    const mptw_tensor *t;
    if (which)
        return mp_fail(e, MP_EUSAGE, "%s: the head is tied to the embedding", f->path);
    int rc = get(f, "token_embd.weight", "bf16", rows, cols, &t, e);
    if (!rc)
        memcpy(out, f->data + f->data_off + t->off, sizeof *out * (size_t)rows * cols);
    return rc;
}

static int src_norm(const mp_e2e_source *s, int which, int layer, float *out, int n, mp_err *e)
{
    const mptw *f = s->ctx;
    const mptw_tensor *t;
    char nm[128];
    tname(nm, sizeof nm, which == 4 ? -1 : layer, norm_tensor[which], "weight");
    int rc = get(f, nm, "f32", 1, n, &t, e);
    if (!rc)
        memcpy(out, f->data + f->data_off + t->off, sizeof *out * (size_t)n);
    return rc;
}

static int src_ternary(const mp_e2e_source *s, int layer, int lin, int binary, int8_t *w, int m,
                       int k, float *scale, mp_err *e)
{
    const mptw *f = s->ctx;
    const mptw_tensor *t;
    char nm[128];
    tname(nm, sizeof nm, layer, lin_tensor[lin], "weight");
    if (binary)
        return mp_fail(e, MP_EUSAGE, "%s: tensor %s is ternary; a variant that takes only +-1 "
                       "weights (int1) cannot run it", f->path, nm);
    int rc = get(f, nm, "t2", m, k, &t, e);
    if (rc)
        return rc;
    const uint8_t *p = f->data + f->data_off + t->off;
    for (size_t j = 0; j < (size_t)m * k; j++) {
        int code = p[j / 4] >> (2 * (j % 4)) & 3;
        if (code == 3)
            return mp_fail(e, MP_EUSAGE, "%s: tensor %s weight %zu has code 3 (not ternary)",
                           f->path, nm, j);
        w[j] = (int8_t)(code - 1);
    }
    *scale = t->scale;
    return MP_OK;
}

static int parse_header(mptw *f, mp_err *e)
{
    char *text = (char *)f->data, *end = memchr(text, 0, f->size);
    size_t lim = end ? (size_t)(end - text) : f->size;
    char *h = strndup(text, lim < 65536 ? lim : 65536);
    if (!h)
        return mp_fail(e, MP_ERUN, "out of memory");
    mp_model *m = &f->m;
    memset(m, 0, sizeof *m);
    int rc = MP_OK, ln = 0, done = 0, kind_ternary = 0, arch_ok = 0;
    char *save = NULL;
    for (char *line = strtok_r(h, "\n", &save); line && !rc && !done;
         line = strtok_r(NULL, "\n", &save)) {
        ln++;
        char key[64], val[512];
        if (ln == 1) {
            if (strcmp(line, "MPTW 1"))
                rc = mp_fail(e, MP_EUSAGE, "%s: not an .mptw file (first line is not 'MPTW 1')",
                             f->path);
            continue;
        }
        if (!strcmp(line, "end")) {
            done = 1;
            f->data_off = (size_t)(line - h) + 4;
            f->data_off = (f->data_off + 63) / 64 * 64;
            continue;
        }
        if (!strncmp(line, "tensor ", 7)) {
            mptw_tensor t = {0};
            char sc[64] = "";
            int got = sscanf(line, "tensor %63s %7s %d %d %zu %zu %63s", t.name, t.type, &t.rows,
                             &t.cols, &t.off, &t.bytes, sc);
            if (got < 6 || t.rows <= 0 || t.cols <= 0 || (!strcmp(t.type, "t2") && got < 7)) {
                rc = mp_fail(e, MP_EUSAGE, "%s: line %d: bad tensor line '%.100s'", f->path, ln,
                             line);
                break;
            }
            if (got == 7) {
                char *sce;
                errno = 0;
                t.scale = strtof(sc, &sce);
                if (*sce || errno || !(t.scale > 0))
                    rc = mp_fail(e, MP_EUSAGE, "%s: line %d: scale '%s' is not a positive float",
                                 f->path, ln, sc);
            }
            size_t need = !strcmp(t.type, "t2") ? ((size_t)t.rows * t.cols + 3) / 4
                          : (size_t)t.rows * t.cols * (!strcmp(t.type, "f32") ? 4 : 2);
            if (!rc && (strcmp(t.type, "t2") && strcmp(t.type, "f32") && strcmp(t.type, "bf16")))
                rc = mp_fail(e, MP_EUSAGE, "%s: tensor %s: unknown type %s", f->path, t.name,
                             t.type);
            else if (!rc && t.bytes != need)
                rc = mp_fail(e, MP_EUSAGE, "%s: tensor %s: %zu bytes, %s %d x %d needs %zu",
                             f->path, t.name, t.bytes, t.type, t.rows, t.cols, need);
            mptw_tensor *nt = rc ? NULL : realloc(f->t, sizeof *nt * (size_t)(f->nt + 1));
            if (nt) {
                f->t = nt;
                f->t[f->nt++] = t;
            }
            continue;
        }
        if (sscanf(line, "%63s %511[^\n]", key, val) != 2) {
            rc = mp_fail(e, MP_EUSAGE, "%s: line %d: expected 'KEY VALUE'", f->path, ln);
            break;
        }
        int *iv = !strcmp(key, "vocab") ? &m->vocab : !strcmp(key, "hidden") ? &m->hidden
                  : !strcmp(key, "layers") ? &m->layers : !strcmp(key, "heads") ? &m->heads
                  : !strcmp(key, "kv_heads") ? &m->kv_heads : !strcmp(key, "head_dim") ? &m->head_dim
                  : !strcmp(key, "intermediate") ? &m->intermediate
                  : !strcmp(key, "context") ? &m->max_pos : !strcmp(key, "tied") ? &m->tied : NULL;
        if (iv)
            *iv = atoi(val);
        else if (!strcmp(key, "rope_theta"))
            m->rope_theta = strtod(val, NULL);
        else if (!strcmp(key, "norm_eps"))
            m->norm_eps = strtod(val, NULL);
        else if (!strcmp(key, "ffn_act"))
            snprintf(m->ffn_act, sizeof m->ffn_act, "%.15s", val);
        else if (!strcmp(key, "kind"))
            kind_ternary = !strcmp(val, "ternary");
        else if (!strcmp(key, "arch"))
            arch_ok = !strcmp(val, "bitnet");
    }
    free(h);
    if (rc)
        return rc;
    if (!done)
        return mp_fail(e, MP_EUSAGE, "%s: header has no 'end' line", f->path);
    if (!arch_ok || !kind_ternary)
        return mp_fail(e, MP_EUSAGE, "%s: not a ternary bitnet model (arch bitnet, kind ternary "
                       "expected)", f->path);
    if (m->vocab <= 0 || m->hidden <= 0 || m->layers <= 0 || m->heads <= 0 || m->kv_heads <= 0 ||
        m->head_dim <= 0 || m->intermediate <= 0 || m->max_pos <= 0 || m->heads % m->kv_heads ||
        !(m->rope_theta > 0) || !(m->norm_eps > 0) || !m->tied ||
        (strcmp(m->ffn_act, "silu") && strcmp(m->ffn_act, "relu2")))
        return mp_fail(e, MP_EUSAGE, "%s: the model keys are incomplete or out of range (see "
                       "scripts/train/FORMAT.md)", f->path);
    for (int i = 0; i < f->nt; i++)
        if (f->t[i].off > f->size - f->data_off || f->t[i].bytes > f->size - f->data_off - f->t[i].off)
            return mp_fail(e, MP_EUSAGE, "%s: tensor %s lies past the end of the file", f->path,
                           f->t[i].name);
    m->sub_norm = 1;
    return MP_OK;
}

int mp_mptw_open(const char *path, mp_model *m, mp_e2e_source *src, mp_err *e)
{
    mptw *f = calloc(1, sizeof *f);
    if (!f)
        return mp_fail(e, MP_ERUN, "out of memory");
    snprintf(f->path, sizeof f->path, "%s", path);
    FILE *fp = fopen(path, "rb");
    int rc = MP_OK;
    if (!fp)
        rc = mp_fail(e, MP_EUSAGE, "%s: %s", path, strerror(errno));
    else if (fseek(fp, 0, SEEK_END) || (f->size = (size_t)ftell(fp)) < 8 || fseek(fp, 0, SEEK_SET))
        rc = mp_fail(e, MP_EUSAGE, "%s: not an .mptw file (too short)", path);
    else if (!(f->data = malloc(f->size + 1)))
        rc = mp_fail(e, MP_ERUN, "out of memory");
    else if (fread(f->data, 1, f->size, fp) != f->size)
        rc = mp_fail(e, MP_EUSAGE, "%s: short read", path);
    if (fp)
        fclose(fp);
    if (!rc) {
        f->data[f->size] = 0;
        rc = parse_header(f, e);
    }
    if (!rc) {
        const char *b = strrchr(path, '/');
        b = b ? b + 1 : path;
        snprintf(f->m.name, sizeof f->m.name, "%.*s", (int)strcspn(b, "."), b);
        snprintf(f->m.source, sizeof f->m.source, "%.400s (trained, scripts/train/)", path);
        *m = f->m;
        memset(src, 0, sizeof *src);
        src->ctx = f;
        src->name = f->path;
        src->ternary_only = 1;
        src->matrix = src_matrix;
        src->norm = src_norm;
        src->ternary = src_ternary;
        return MP_OK;
    }
    free(f->data);
    free(f->t);
    free(f);
    return rc;
}

void mp_mptw_close(mp_e2e_source *src)
{
    mptw *f = src ? src->ctx : NULL;
    if (f) {
        free(f->data);
        free(f->t);
        free(f);
        src->ctx = NULL;
    }
}
