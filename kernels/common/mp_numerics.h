/* mp_numerics.h - the reference arithmetic every integer kernel shares.
 *
 * DESIGN.md "Numerics": activations are quantized per token with absmax to int8
 * (scale = 127/absmax, round to nearest even, clamp to [-127, 127]); products are
 * accumulated exactly in int32; outputs are dequantized by the one helper
 * mp_dequant().  A lossless kernel reaches bit-identical outputs by producing the
 * same int32 sum and calling the same helper.
 */
#ifndef MP_NUMERICS_H
#define MP_NUMERICS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Internal invariant violated: print where and abort (STYLE.md practice 9). */
#define MP_ABORT(...)                                                       \
    do {                                                                    \
        fprintf(stderr, "mpbench: internal error at %s:%d: ", __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                                       \
        fputc('\n', stderr);                                                \
        abort();                                                            \
    } while (0)

/* absmax below this is treated as this (BitNet's clamp(min=1e-5)). */
#define MP_ABSMAX_FLOOR 1e-5f

/* Quantizes one token of k floats to int8; returns the scale x_scale = 127/absmax
 * so that q ~= x * x_scale. */
float mp_quant_row(const float *x, int k, int8_t *q);

/* The one dequantization helper: y = acc / x_scale * w_scale. */
static inline float mp_dequant(int32_t acc, float w_scale, float x_scale)
{
    return (float)acc / x_scale * w_scale;
}

/* Reference int8 x ternary product: Y[n][m] for rows [m0, m1).  q holds the N
 * quantized tokens (N x K int8) and xs their scales.  acc, if not NULL, receives
 * the int32 sums (N x M layout, only rows [m0, m1) written). */
void mp_ref_gemm_q(const int8_t *w, float w_scale, int m, int k, const int8_t *q,
                   const float *xs, int n, float *y, int32_t *acc, int m0, int m1);

/* Reference from float activations: quantizes X then calls mp_ref_gemm_q. */
void mp_ref_gemm(const int8_t *w, float w_scale, int m, int k, const float *x, int n,
                 float *y, int m0, int m1);

/* Float product in double precision, the oracle for the float baselines:
 * Y = X (W * w_scale)^T for rows [m0, m1). */
void mp_float_gemm(const int8_t *w, float w_scale, int m, int k, const float *x, int n,
                   float *y, int m0, int m1);

/* ---- int8 activations shared by the MAD kernels -------------------------------
 * Layout per token: a 64-byte header {float x_scale; int32 sum of q} followed by K
 * int8 padded to a multiple of 64.  Token t starts at t * mp_q8act_stride(k). */
typedef struct mp_q8hdr {
    float x_scale;
    int32_t qsum;
} mp_q8hdr;

/* inline: kernels take it per token inside their loops (an out-of-line call
 * held 0.2% of a 2B-4T pp128 run's samples, perf cpu-clock) */
static inline size_t mp_q8act_stride(int k)
{
    return 64 + (((size_t)k + 63) & ~(size_t)63);
}
size_t mp_q8act_size(int n, int k);
/* Quantizes tokens [t0, t1) into the layout above. */
void mp_q8act_fill(const float *x, int k, void *act, int t0, int t1);

static inline const mp_q8hdr *mp_q8act_hdr(const void *act, int k, int t)
{
    return (const mp_q8hdr *)((const uint8_t *)act + (size_t)t * mp_q8act_stride(k));
}
static inline const int8_t *mp_q8act_q(const void *act, int k, int t)
{
    return (const int8_t *)((const uint8_t *)act + (size_t)t * mp_q8act_stride(k) + 64);
}

/* ---- deterministic inputs (every random input comes from a seed) ------------- */
typedef struct mp_rng {
    uint64_t s;
} mp_rng;

static inline uint64_t mp_rng_next(mp_rng *r)
{
    /* splitmix64: tiny, seedable from any value, good enough for test data */
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Ternary weights uniform over {-1,0,1} (binary: {-1,1}). */
void mp_gen_weights(uint64_t seed, int8_t *w, size_t count, int binary);
/* Activations: roughly Gaussian with a few outliers, like real hidden states.
 * mp_gen_acts takes the fastest copy this CPU runs (after MPBENCH_MAX_ISA);
 * every copy gives the same bits. */
void mp_gen_acts(uint64_t seed, float *x, size_t count);
void mp_gen_acts_portable(uint64_t seed, float *x, size_t count);
#if defined(__x86_64__)
void mp_gen_acts__avx512(uint64_t seed, float *x, size_t count); /* gen-avx512.c */
#endif

/* 64-byte aligned allocation, size rounded up; abort on failure. */
void *mp_alloc(size_t bytes);
void mp_free(void *p);

#endif
