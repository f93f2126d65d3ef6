/* numerics.c - the scalar reference arithmetic of DESIGN.md "Numerics", plus
 * the seeded input generators and the aligned allocator all kernels share. */
#include "mp_numerics.h"
#include "mp_isa.h"
#include "../mp_kernel.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

float mp_quant_row(const float *x, int k, int8_t *q)
{
    float absmax = 0.0f;
    for (int i = 0; i < k; i++) {
        float a = fabsf(x[i]);
        if (a > absmax)
            absmax = a;
    }
    if (!(absmax >= MP_ABSMAX_FLOOR))
        absmax = MP_ABSMAX_FLOOR;
    float scale = 127.0f / absmax;
    for (int i = 0; i < k; i++) {
        float v = nearbyintf(x[i] * scale); /* ties to even, like torch.round */
        if (v > 127.0f)
            v = 127.0f;
        if (v < -127.0f)
            v = -127.0f;
        q[i] = (int8_t)v;
    }
    return scale;
}

void mp_ref_gemm_q(const int8_t *w, float w_scale, int m, int k, const int8_t *q,
                   const float *xs, int n, float *y, int32_t *acc, int m0, int m1)
{
    for (int t = 0; t < n; t++) {
        const int8_t *qt = q + (size_t)t * k;
        for (int r = m0; r < m1; r++) {
            const int8_t *wr = w + (size_t)r * k;
            int32_t s = 0;
            for (int i = 0; i < k; i++)
                s += (int32_t)wr[i] * qt[i];
            if (acc)
                acc[(size_t)t * m + r] = s;
            y[(size_t)t * m + r] = mp_dequant(s, w_scale, xs[t]);
        }
    }
}

void mp_ref_gemm(const int8_t *w, float w_scale, int m, int k, const float *x, int n,
                 float *y, int m0, int m1)
{
    int8_t *q = mp_alloc((size_t)n * k);
    float *xs = mp_alloc(sizeof(float) * (size_t)n);
    for (int t = 0; t < n; t++)
        xs[t] = mp_quant_row(x + (size_t)t * k, k, q + (size_t)t * k);
    mp_ref_gemm_q(w, w_scale, m, k, q, xs, n, y, NULL, m0, m1);
    mp_free(q);
    mp_free(xs);
}

void mp_float_gemm(const int8_t *w, float w_scale, int m, int k, const float *x, int n,
                   float *y, int m0, int m1)
{
    for (int t = 0; t < n; t++) {
        const float *xt = x + (size_t)t * k;
        for (int r = m0; r < m1; r++) {
            const int8_t *wr = w + (size_t)r * k;
            double s = 0.0;
            for (int i = 0; i < k; i++)
                s += (double)wr[i] * xt[i];
            y[(size_t)t * m + r] = (float)(s * w_scale);
        }
    }
}

size_t mp_q8act_size(int n, int k)
{
    return (size_t)n * mp_q8act_stride(k);
}

void mp_q8act_fill(const float *x, int k, void *act, int t0, int t1)
{
    size_t stride = mp_q8act_stride(k);
    for (int t = t0; t < t1; t++) {
        uint8_t *base = (uint8_t *)act + (size_t)t * stride;
        int8_t *q = (int8_t *)(base + 64);
        mp_q8hdr *h = (mp_q8hdr *)base;
        h->x_scale = mp_quant_row(x + (size_t)t * k, k, q);
        int32_t s = 0;
        for (int i = 0; i < k; i++)
            s += q[i];
        h->qsum = s;
        /* zero the padding so kernels may read whole vectors past K */
        memset(q + k, 0, stride - 64 - (size_t)k);
    }
}

/* Each 64-bit draw gives 21 values of 3 bits.  Ternary: 0..5 map to v % 3 - 1
 * and 6, 7 are rejected; binary: the low bit gives +-1.  tests/test_ref.c
 * checks both loops below against that definition.
 *
 * The full-word loop takes a word's first 20 draws four at a time: a table
 * indexed by 12 bits holds their accepted values (packed little-endian in the
 * low 32 bits) and how many there are (bits 32-34).  It writes all four bytes
 * and advances by the count, so a rejected draw's slot is overwritten by the
 * next; the 21st draw goes alone.  Five lookups a word instead of 21 steps made
 * setup of a 2B-parameter model's weights about 3x faster (issue 17).  A word
 * advances i by at most 21 and writes no further than that (the 5th store
 * starts at most 16 past the word's start), so the loop runs while 21 bytes
 * remain; the last words take the checked loop, which writes nothing at or
 * past `count`. */
static uint64_t draw4[2][4096];
static pthread_once_t draw4_once = PTHREAD_ONCE_INIT;

static const int8_t draw_tern[8] = {-1, 0, 1, -1, 0, 1, 0, 0};
static const int8_t draw_bin[8] = {-1, 1, -1, 1, -1, 1, -1, 1};
static const unsigned draw_reject[2] = {0xc0, 0}; /* bit v set: v is rejected */

static void draw4_fill(void)
{
    for (int binary = 0; binary < 2; binary++)
        for (unsigned c = 0; c < 4096; c++) {
            const int8_t *map = binary ? draw_bin : draw_tern;
            uint64_t vals = 0, n = 0;
            for (int j = 0; j < 4; j++) {
                unsigned v = (c >> (3 * j)) & 7;
                if (!((draw_reject[binary] >> v) & 1))
                    vals |= (uint64_t)(uint8_t)map[v] << (8 * n++);
            }
            draw4[binary][c] = vals | n << 32;
        }
}

void mp_gen_weights(uint64_t seed, int8_t *w, size_t count, int binary)
{
    pthread_once(&draw4_once, draw4_fill);
    binary = binary != 0;
    const int8_t *map = binary ? draw_bin : draw_tern;
    const unsigned reject = draw_reject[binary];
    const uint64_t *tab = draw4[binary];
    mp_rng r = {seed * 0x2545f4914f6cdd1dull + 1};
    size_t i = 0;
    while (count - i >= 21) {
        uint64_t bits = mp_rng_next(&r);
        for (int q = 0; q < 5; q++, bits >>= 12) {
            uint64_t e = tab[bits & 0xfff];
            uint32_t vals = (uint32_t)e;
            memcpy(w + i, &vals, 4);
            i += (size_t)(e >> 32);
        }
        unsigned v = (unsigned)(bits & 7);
        w[i] = map[v];
        i += 1 - ((reject >> v) & 1);
    }
    while (i < count) {
        uint64_t bits = mp_rng_next(&r);
        for (int j = 0; j < 21 && i < count; j++, bits >>= 3) {
            unsigned v = (unsigned)(bits & 7);
            if (!((reject >> v) & 1))
                w[i++] = map[v];
        }
    }
}

/* (float)u / 65535.0f for every 16-bit u: the same quotients as dividing, read
 * from a table (four divisions per value held the synthetic embedding of an
 * end-to-end run, 328 M values, to ~1.7 s of thread time; issue 17) */
static float unit16[65536];
static pthread_once_t unit16_once = PTHREAD_ONCE_INIT;

static void unit16_fill(void)
{
    for (unsigned u = 0; u < 65536; u++)
        unit16[u] = (float)u / 65535.0f;
}

void mp_gen_acts_portable(uint64_t seed, float *x, size_t count)
{
    pthread_once(&unit16_once, unit16_fill);
    mp_rng r = {seed * 0x9e3779b97f4a7c15ull + 7};
    for (size_t i = 0; i < count; i++) {
        /* sum of 4 uniforms: bell-shaped, cheap, deterministic */
        uint64_t b = mp_rng_next(&r);
        float s = 0.0f;
        for (int j = 0; j < 4; j++)
            s += unit16[(b >> (16 * j)) & 0xffff];
        float v = (s - 2.0f) * 1.7f;
        if ((b & 0x3ff) == 0)
            v *= 8.0f; /* rare outliers, as in real activations */
        x[i] = v;
    }
}

static void (*gen_acts_fn)(uint64_t, float *, size_t);
static pthread_once_t gen_acts_once = PTHREAD_ONCE_INIT;

static void gen_acts_pick(void)
{
    gen_acts_fn = mp_gen_acts_portable;
#if defined(__x86_64__)
    if (mp_isa_detect() & MP_ISA_AVX512)
        gen_acts_fn = mp_gen_acts__avx512;
#endif
}

void mp_gen_acts(uint64_t seed, float *x, size_t count)
{
    pthread_once(&gen_acts_once, gen_acts_pick);
    gen_acts_fn(seed, x, count);
}

void *mp_alloc(size_t bytes)
{
    size_t sz = (bytes + 63) & ~(size_t)63;
    if (sz == 0)
        sz = 64;
    void *p = aligned_alloc(64, sz);
    if (!p)
        MP_ABORT("out of memory allocating %zu bytes", bytes);
    return p;
}

void mp_free(void *p)
{
    free(p);
}
