/* check.c - the shared oracle of mp_test.h. */
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "mp_test.h"
#include "../harness/core/mp_core.h"
#include "../harness/gguf/mp_gguf.h"
#include "../kernels/common/mp_numerics.h"
#include "../variants/mp_registry.h"

enum { GUARD = 256, RANGE_ROWS = 32 };

/* bumped whenever the cached weights change: the packed-tensor cache keys on it */
static unsigned long weights_gen;

typedef struct out_buf {
    float *y;
} out_buf;

/* Runs v on the given row ranges; returns packed bytes, or 0 if guard bytes were hit. */
static size_t run_variant(const mp_variant *v, const int *param, const int8_t *w,
                          float w_scale, int m, int k, const float *x, int n, float *y,
                          const int *r0, const int *r1, int nr, char *why, size_t len)
{
    size_t bytes = v->packed_size(m, k, param);
    /* Packing a real-model tensor costs more than checking it: keep the last two
     * packed tensors (a variant and its sibling) for the next N of the same shape. */
    static struct {
        const mp_variant *v;
        unsigned long gen;
        int m, k;
        int param[MP_MAX_PARAMS];
        uint8_t *p;
    } cache[2];
    static int next;
    uint8_t *p = NULL;
    for (int c = 0; c < 2; c++)
        if (cache[c].p && cache[c].v == v && cache[c].gen == weights_gen && cache[c].m == m &&
            cache[c].k == k && !memcmp(cache[c].param, param, sizeof cache[c].param))
            p = cache[c].p;
    if (!p) {
        p = mp_alloc(bytes + GUARD);
        memset(p, 0xA5, bytes + GUARD);
        v->pack(w, w_scale, m, k, param, p);
        for (int i = 0; i < GUARD; i++)
            if (p[bytes + i] != 0xA5) {
                snprintf(why, len, "%s: pack wrote past packed_size (%zu bytes) at +%d",
                         v->name, bytes, i);
                mp_free(p);
                return 0;
            }
        mp_free(cache[next].p);
        cache[next].v = v, cache[next].gen = weights_gen, cache[next].m = m, cache[next].k = k;
        memcpy(cache[next].param, param, sizeof cache[next].param);
        cache[next].p = p;
        next ^= 1;
    }
    mp_op op = {.v = v, .m = m, .k = k, .w_scale = w_scale, .w = p};
    memcpy(op.param, param, sizeof op.param);
    size_t asz = v->act_size(n, k, param);
    uint8_t *act = mp_alloc(asz + GUARD);
    memset(act + asz, 0x5A, GUARD);
    /* prepare in two token ranges, as two threads would */
    int half = n / 2;
    if (half > 0)
        v->prepare(&op, x, n, act, 0, half);
    v->prepare(&op, x, n, act, half, n);
    size_t ssz = v->scratch_size ? v->scratch_size(n, k, param) : 0;
    uint8_t *scr = mp_alloc(ssz + GUARD);
    memset(scr + ssz, 0x5A, GUARD);
    for (int i = 0; i < nr; i++)
        v->compute(&op, act, n, y, r0[i], r1[i], ssz ? scr : NULL);
    for (int i = 0; i < GUARD; i++)
        if (act[asz + i] != 0x5A || scr[ssz + i] != 0x5A) {
            snprintf(why, len, "%s: %s buffer overrun at +%d", v->name,
                     act[asz + i] != 0x5A ? "activation" : "scratch", i);
            bytes = 0;
            break;
        }
    mp_free(scr);
    mp_free(act);
    return bytes;
}

void mp_check_variant(const mp_variant *v, const int *param_in, int m, int k, int n,
                      uint64_t seed, mp_check *c)
{
    memset(c, 0, sizeof *c);
    int param[MP_MAX_PARAMS];
    if (param_in)
        memcpy(param, param_in, sizeof param);
    else
        mp_variant_defaults(v, param);
    if (mp_variant_check(v, m, k, param, c->why, sizeof c->why)) {
        c->skipped = 1;
        return;
    }
    /* row ranges: aligned blocks at the start, middle and end (the tail) */
    int align = v->m_align > 0 ? v->m_align : 1;
    int blk = ((RANGE_ROWS + align - 1) / align) * align;
    int r0[3], r1[3], nr = 0;
    if ((double)m * k * n <= 32e6 || m <= 3 * blk) {
        r0[0] = 0, r1[0] = m, nr = 1;
    } else {
        int mid = (m / 2 / align) * align;
        int last = ((m - blk) / align) * align; /* the last range ends at m: the tail */
        r0[nr] = 0, r1[nr++] = blk;
        r0[nr] = mid, r1[nr++] = mid + blk;
        r0[nr] = last, r1[nr++] = m;
    }
    int binary = v->domain == MP_DOMAIN_BINARY;
    /* Page faults are slow on this VM: keep freed memory in the heap instead of
     * returning it to the kernel, and reuse the weights of the previous call. */
    static int tuned;
    if (!tuned) {
        mallopt(M_MMAP_THRESHOLD, 1 << 30);
        mallopt(M_TRIM_THRESHOLD, 1 << 30);
        tuned = 1;
    }
    static int8_t *w;
    static int wm, wk, wbin;
    static uint64_t wseed;
    if (!w || wm != m || wk != k || wbin != binary || wseed != seed) {
        mp_free(w);
        w = mp_alloc((size_t)m * k);
        mp_gen_weights(seed, w, (size_t)m * k, binary);
        wm = m, wk = k, wbin = binary, wseed = seed;
        weights_gen++;
    }
    float *x = mp_alloc(sizeof(float) * (size_t)n * k);
    mp_gen_acts(seed + 1, x, (size_t)n * k);
    const float w_scale = 0.0123f;
    float *y = mp_alloc(sizeof(float) * (size_t)n * m);
    float *ref = mp_alloc(sizeof(float) * (size_t)n * m);
    float *sib = NULL;
    for (size_t i = 0; i < (size_t)n * m; i++)
        y[i] = ref[i] = NAN;
    char rerun[256];
    snprintf(rerun, sizeof rerun, "./mpbench run --variant %s --shape %dx%dx%d --seed %llu --no-db",
             v->name, m, k, n, (unsigned long long)seed);
    if (!run_variant(v, param, w, w_scale, m, k, x, n, y, r0, r1, nr, c->why, sizeof c->why))
        goto done;
    for (int i = 0; i < nr; i++) {
        if (v->exactness == MP_FLOAT)
            mp_float_gemm(w, w_scale, m, k, x, n, ref, r0[i], r1[i]);
        else
            mp_ref_gemm(w, w_scale, m, k, x, n, ref, r0[i], r1[i]);
    }
    const mp_variant *s = mp_variant_scalar_sibling(v);
    if (s && v->exactness != MP_LOSSLESS) {
        sib = mp_alloc(sizeof(float) * (size_t)n * m);
        for (size_t i = 0; i < (size_t)n * m; i++)
            sib[i] = NAN;
        if (!run_variant(s, param, w, w_scale, m, k, x, n, sib, r0, r1, nr, c->why,
                         sizeof c->why))
            goto done;
    }
    double emax = 0, rmax = 0, esum = 0, rsum = 0, smax = 0;
    for (int t = 0; t < n; t++)
        for (int i = 0; i < nr; i++)
            for (int r = r0[i]; r < r1[i]; r++) {
                size_t at = (size_t)t * m + r;
                double d = fabs((double)y[at] - ref[at]);
                emax = d > emax ? d : emax;
                rmax = fabs(ref[at]) > rmax ? fabs(ref[at]) : rmax;
                esum += d;
                rsum += fabs(ref[at]);
                if (sib) {
                    double ds = fabs((double)y[at] - sib[at]);
                    smax = ds > smax ? ds : smax;
                }
            }
    c->max_rel_err = rmax > 0 ? emax / rmax : emax;
    c->mean_rel_err = rsum > 0 ? esum / rsum : esum;
    for (int t = 0; t < n; t++)
        for (int i = 0; i < nr; i++)
            for (int r = r0[i]; r < r1[i]; r++) {
                size_t at = (size_t)t * m + r;
                int bad = isnan(y[at]);
                const char *what = "reference";
                float expect = ref[at];
                if (!bad && v->exactness == MP_LOSSLESS)
                    bad = memcmp(&y[at], &ref[at], sizeof(float)) != 0;
                if (!bad && sib) {
                    what = "scalar path";
                    expect = sib[at];
                    bad = v->sibling_tol == 0
                              ? memcmp(&y[at], &sib[at], sizeof(float)) != 0
                              : fabs((double)y[at] - sib[at]) > v->sibling_tol * rmax;
                }
                if (bad) {
                    snprintf(c->why, sizeof c->why,
                             "%s M=%d K=%d N=%d seed=%llu: y[token %d][row %d] = %.9g, %s "
                             "gives %.9g; rerun: %s",
                             v->name, m, k, n, (unsigned long long)seed, t, r, y[at], what,
                             expect, rerun);
                    goto done;
                }
            }
    c->ok = 1;
done:
    mp_free(sib);
    mp_free(ref);
    mp_free(y);
    mp_free(x);
}

static const char *const fill_name[MP_FILL_COUNT] = {"ternary", "binary", "all -1", "all +1"};

static void fill_weights(int fill, uint64_t seed, int8_t *w, size_t n)
{
    if (fill == MP_FILL_TERNARY || fill == MP_FILL_BINARY)
        mp_gen_weights(seed, w, n, fill == MP_FILL_BINARY);
    else
        memset(w, fill == MP_FILL_MINUS ? -1 : 1, n);
}

/* The first index in [0, n) where a and b differ, or n. */
static size_t first_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t i = 0;
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

int mp_test_pack_identity(const mp_variant *v, const int *param, mp_pack_fn *oracle,
                          const mp_pack_case *cases, int ncases, char *why, size_t len)
{
    static const uint8_t poison[2] = {0xA5, 0x5A};
    const float w_scale = 0.375f; /* lands in the trailer */
    int packed = 0, bad = 0;
    char ps[256] = "", name[320]; /* the variant and, if it has any, its parameters */
    if (v->n_params)
        mp_params_str(v, param, ps, sizeof ps);
    snprintf(name, sizeof name, *ps ? "%s [%s]" : "%s%s", v->name, ps);
    for (int c = 0; c < ncases && !bad; c++) {
        int m = cases[c].m, k = cases[c].k;
        size_t bytes = v->packed_size(m, k, param), count = (size_t)m * k;
        int8_t *w = mp_alloc(count);
        uint8_t *want = mp_alloc(bytes), *got = mp_alloc(bytes + GUARD);
        for (int f = 0; f < MP_FILL_COUNT && !bad; f++) {
            if (!(cases[c].fills >> f & 1))
                continue;
            uint64_t seed = 1000 + (uint64_t)m * 31 + (uint64_t)k;
            fill_weights(f, seed, w, count);
            oracle(w, w_scale, m, k, param, want);
            for (int pz = 0; pz < 2 && !bad; pz++) {
                memset(got, poison[pz], bytes + GUARD);
                v->pack(w, w_scale, m, k, param, got);
                size_t i = first_diff(want, got, bytes);
                size_t g = 0;
                while (g < GUARD && got[bytes + g] == poison[pz])
                    g++;
                if (i < bytes)
                    snprintf(why, len,
                             "%s M=%d K=%d %s weights (seed %llu): first differing byte "
                             "%zu of %zu: packed 0x%02x, definition 0x%02x (buffer poisoned "
                             "0x%02x)",
                             name, m, k, fill_name[f], (unsigned long long)seed, i, bytes,
                             got[i], want[i], poison[pz]);
                else if (g < GUARD)
                    snprintf(why, len,
                             "%s M=%d K=%d %s weights (seed %llu): wrote guard byte %zu past "
                             "the %zu packed bytes",
                             name, m, k, fill_name[f], (unsigned long long)seed, g, bytes);
                bad = i < bytes || g < GUARD;
            }
            packed++;
        }
        mp_free(got);
        mp_free(want);
        mp_free(w);
    }
    if (!bad)
        fprintf(stderr, "%s: packed bytes identical to the definition on %d tensors (%d shapes)\n",
                name, packed, ncases);
    return bad;
}

int mp_test_pack_cases(mp_pack_case *c, int max, int real, const int *ks, int nk)
{
    static const mp_pack_case shapes[] = {
        {2560, 2560, 1 << MP_FILL_TERNARY},  {640, 2560, MP_FILL_ALL},
        {6912, 2560, 1 << MP_FILL_TERNARY},  {2560, 6912, MP_FILL_ALL},
        {4096, 4096, 1 << MP_FILL_TERNARY},  {1024, 4096, MP_FILL_ALL},
        {14336, 4096, 1 << MP_FILL_TERNARY}, {4096, 14336, 1 << MP_FILL_TERNARY},
        {33, 14336, MP_FILL_ALL}};
    static const int ms[] = {1, 15, 17, 33, 100};
    int n = 0;
    for (size_t i = 0; real && i < sizeof shapes / sizeof shapes[0] && n < max; i++)
        c[n++] = shapes[i];
    for (int i = 0; i < nk; i++)
        for (size_t j = 0; j < sizeof ms / sizeof ms[0] && n < max; j++)
            c[n++] = (mp_pack_case){ms[j], ks[i], MP_FILL_ALL};
    return n;
}

int mp_test_odd_shapes(int (*out)[2], int max)
{
    static const int odd_m[] = {1, 7, 33, 100};
    static const int odd_k[] = {32, 64, 96, 128, 160, 192, 256, 320, 384, 576, 1600, 2048};
    int n = 0;
    for (size_t i = 0; i < sizeof odd_m / sizeof odd_m[0]; i++)
        for (size_t j = 0; j < sizeof odd_k / sizeof odd_k[0] && n < max; j++) {
            out[n][0] = odd_m[i];
            out[n][1] = odd_k[j];
            n++;
        }
    return n;
}

int mp_test_real_shapes(int (*out)[2], int max)
{
    static const char *const models[] = {
        "bitnet-b1.58-large", "bitnet-b1.58-3b", "bitnet-b1.58-2b-4t",
        "llama3-8b-1.58",     "falcon3-1b-1.58", "falcon3-3b-1.58",
        "falcon3-7b-1.58",    "falcon3-10b-1.58", "mobilellm-1.5b"};
    int n = 0;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        mp_model mdl;
        mp_err e;
        if (mp_model_load(models[i], &mdl, &e)) {
            fprintf(stderr, "%s\n", e.msg);
            abort();
        }
        int sh[8][2];
        char names[8][32];
        int ns = mp_model_shapes(&mdl, sh, names);
        for (int j = 0; j < ns; j++) {
            int dup = 0;
            for (int q = 0; q < n; q++)
                dup |= out[q][0] == sh[j][0] && out[q][1] == sh[j][1];
            if (!dup && n < max) {
                out[n][0] = sh[j][0];
                out[n][1] = sh[j][1];
                n++;
            }
        }
    }
    return n;
}

void mp_test_op_make(mp_test_op *t, const mp_variant *v, const int *param, const int8_t *w,
                     float w_scale, int m, int k, const float *x, int n)
{
    uint8_t *p = mp_alloc(v->packed_size(m, k, param));
    v->pack(w, w_scale, m, k, param, p);
    t->op = (mp_op){.v = v, .m = m, .k = k, .w_scale = w_scale, .w = p};
    memcpy(t->op.param, param, sizeof t->op.param);
    t->act = mp_alloc(v->act_size(n, k, param));
    v->prepare(&t->op, x, n, t->act, 0, n);
    size_t ssz = v->scratch_size ? v->scratch_size(n, k, param) : 0;
    t->scratch = ssz ? mp_alloc(ssz) : NULL;
}

void mp_test_op_free(mp_test_op *t)
{
    mp_free(t->scratch);
    mp_free(t->act);
    mp_free((void *)t->op.w);
}

int mp_test_cli(char *buf, size_t len, const char *args)
{
    const char *bin = getenv("MPBENCH_BIN");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", bin && *bin ? bin : "./mpbench", args);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t used = 0;
    buf[0] = 0;
    char chunk[1024];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, p)) > 0) {
        if (used + got >= len)
            got = len - 1 - used;
        memcpy(buf + used, chunk, got);
        used += got;
        buf[used] = 0;
    }
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
