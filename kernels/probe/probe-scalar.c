/* probe-scalar.c - portable probe loops (the fallback; also the shape of what
 * the SIMD files do). */
#include <string.h>

#include "probe.h"

static uint64_t read_scalar(const void *p, size_t n)
{
    const uint64_t *q = p;
    uint64_t a = 0, b = 0, c = 0, d = 0;
    for (size_t i = 0; i < n / 8; i += 4) {
        a ^= q[i];
        b ^= q[i + 1];
        c ^= q[i + 2];
        d ^= q[i + 3];
    }
    return a ^ b ^ c ^ d;
}

/* The same with one prefetch per 64-byte line, MP_PROBE_PF_DIST ahead. */
static uint64_t read_pf_scalar(const void *p, size_t n)
{
    const uint64_t *q = p;
    const char *ahead = (const char *)p + MP_PROBE_PF_DIST;
    uint64_t a = 0, b = 0, c = 0, d = 0;
    for (size_t i = 0; i < n / 8; i += 4) {
        if (i % 8 == 0)
            __builtin_prefetch(ahead + i * 8, 0, 3);
        a ^= q[i];
        b ^= q[i + 1];
        c ^= q[i + 2];
        d ^= q[i + 3];
    }
    return a ^ b ^ c ^ d;
}

static void copy_scalar(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
}

static void triad_scalar(float *a, const float *b, const float *c, float s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}

static double dot_scalar(long iters)
{
    volatile int32_t sink;
    int32_t acc[16] = {0};
    for (long i = 0; i < iters; i++)
        for (int j = 0; j < 16; j++)
            acc[j] += (int8_t)(i + j) * (int8_t)(j - i);
    int32_t s = 0;
    for (int j = 0; j < 16; j++)
        s += acc[j];
    sink = s;
    (void)sink;
    return (double)iters * 16;
}

static double shuffle_scalar(long iters)
{
    volatile uint8_t sink;
    uint8_t t[16], x = 1;
    for (int j = 0; j < 16; j++)
        t[j] = (uint8_t)(j * 7);
    for (long i = 0; i < iters * 16; i++)
        x = t[x & 15];
    sink = x;
    (void)sink;
    return (double)iters * 16;
}

const mp_probe_ops mp_probe_scalar = {.isa = "scalar", .read = read_scalar,
                                      .read_pf = read_pf_scalar, .copy = copy_scalar,
                                      .triad = triad_scalar, .dot = dot_scalar,
                                      .shuffle = shuffle_scalar};
