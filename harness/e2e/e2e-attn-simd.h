/* e2e-attn-simd.h - the attention loops of the end-to-end runner as one
 * template (like harness/e2e-head-simd.h), compiled once per ISA:
 * harness/e2e-attn.c (portable), e2e-attn-avx2.c, e2e-attn-avx512.c.  The
 * including file defines MP_ATTN_FN(name) (its ISA suffix).
 *
 * At prefill these loops are the runner's largest float work (pp128 on BitNet
 * 2B-4T: 16% of a token's time on 4-lane portable loops, issue 17), so they use
 * the widest vectors the CPU has, with one arithmetic for every copy: 16-lane
 * GNU C vectors, which gcc lowers to 4 SSE, 2 AVX or 1 AVX-512 operation with
 * the same lanes, so every copy gives the same bits.  Every product is
 * accumulated by a fused multiply-add, one rounding (fma(a, b, c) below): the
 * x86 copies use the FMA instructions (AVX2 builds with -mfma, and the ISA
 * check asks for FMA), the portable copy fmaf per lane, which is correctly
 * rounded too, so the bits are the same (-std=c11 implies -ffp-contract=off,
 * so nothing else is fused).  One operation per product instead of two, and
 * every accumulator in a register (see mp_av_tree and the mix): scores + mix
 * of 600 queries over 64 keys of 128 floats 0.40 -> 0.20 ms on one thread;
 * BitNet 2B-4T pp128 attention 0.70-0.76 -> 0.49-0.55 ms per token on 1
 * thread, 0.40-0.44 -> 0.29-0.31 on 2 (issue 17's session note).
 *
 * scores: per key, lane l accumulates acc = fma(q[16b + l], k[16b + l], acc)
 *   over the whole 16-blocks b in order from 0; the 16 lanes are summed as a
 *   tree (lane i += lane i + w for w = 8, 4, 2, 1); the elements after the last
 *   whole block are accumulated the same way in index order from 0 into a sum
 *   from 0, added last; then times scale.  MP_ATTN_KEYS keys at a time share
 *   each q load and give independent chains; each key's operations are the
 *   same in a group or alone.  AVX-512 takes 16 keys and sums their lanes
 *   together (mp_av_tree16): the scores of 600 queries over 64 keys 0.17-0.18
 *   -> 0.12 ms on one thread, 2B-4T pp128 attention 0.65-0.68 -> 0.51-0.61 ms
 *   per token on 1 thread, 0.30-0.35 -> 0.27-0.28 on 2 (ungated, busy host).
 * softmax: sc[j] becomes e^(sc[j] - max) (mp_e2e_exp.h, lane-wise); the max is
 *   exact in any order; the sum: lane l accumulates the whole 16-blocks' element
 *   16b + l in order from 0, the lanes are summed as the scores' tree, then the
 *   elements after the last whole block in index order.  One 4-lane loop with a
 *   serial sum (e2e.c until issue 17's last step) held a third of prefill's
 *   attention time.
 * mix: o[d] starts at 0 and becomes fma(p[j], v_j[d], o[d]) for j in order: up
 *   to 8 vectors (128 floats) of o stay in registers while j runs, then the
 *   next 128. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "mp_e2e_attn.h"
#include "mp_e2e_exp.h"

#if defined(__FMA__)
#include <immintrin.h>
#endif

#ifndef MP_ATTN_TYPES
#define MP_ATTN_TYPES
typedef float mp_av16f __attribute__((vector_size(64)));
enum { MP_AV = 16 };
#if defined(__AVX512F__)
#define MP_AOUT 8 /* vectors per mix slice: 8 zmm accumulators */
#else
#define MP_AOUT 4 /* 4 vectors = 8 ymm accumulators of 16 registers */
#endif

static inline __attribute__((always_inline)) void mp_av_load(mp_av16f *v, const float *p)
{
    memcpy(v, p, sizeof *v);
}

typedef int32_t mp_av16i __attribute__((vector_size(64)));

#if defined(__AVX512F__)
/* *acc = fma(*x, *y, *acc) lane by lane, one rounding each (by pointer: see
 * e2e-head-simd.h on -Wpsabi) */
static inline __attribute__((always_inline)) void mp_av_fma(mp_av16f *acc, const mp_av16f *x,
                                                            const mp_av16f *y)
{
    *acc = (mp_av16f)_mm512_fmadd_ps((__m512)*x, (__m512)*y, (__m512)*acc);
}
#endif

/* the lane tree: lane i + lane i + 8, then lane i + lane i + 4, then
 * (0 + 2) + (1 + 3); on whole vectors through shuffles, with no partial access
 * to *acc, so an accumulator whose tree this is can stay in a register (read
 * as halves through memcpy, gcc kept the scores' accumulators on the stack: a
 * store and a reload around every vector multiply-add) */
static inline __attribute__((always_inline)) float mp_av_tree(const mp_av16f *acc)
{
    mp_av16f v = *acc; /* __builtin_shufflevector: GCC 12 and Clang both have it */
    v += __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15);
    v += __builtin_shufflevector(v, v, 4, 5, 6, 7, 4, 5, 6, 7, 4, 5, 6, 7, 4, 5, 6, 7);
    return (v[0] + v[2]) + (v[1] + v[3]);
}

/* The scores' and the mix's accumulators (mp_ava): one 16-lane vector where
 * it is one register (AVX-512), else two 8-lane halves, lanes 0-7 and 8-15.
 * GCC 12 keeps a 64-byte vector that has no register of its size in memory:
 * the AVX2 copy stored and reloaded every accumulator around each multiply-add
 * (2B-4T pp128, 1 thread: attention 0.44 ms per layer and token, 0.74 GFMA/s,
 * a quarter of prefill).  The halves do each lane's same operations: the same
 * fma, and the tree's first step (lane i + lane i + 8) is lo + hi. */
#if defined(__AVX512F__)
typedef mp_av16f mp_ava;
static inline __attribute__((always_inline)) void mp_ava_load(mp_ava *v, const float *p)
{
    mp_av_load(v, p);
}
static inline __attribute__((always_inline)) void mp_ava_store(float *p, const mp_ava *v)
{
    memcpy(p, v, sizeof *v);
}
static inline __attribute__((always_inline)) void mp_ava_splat(mp_ava *v, float s)
{
    *v = s - (mp_av16f){0}; /* s in every lane (s - 0 is s, -0 included) */
}
static inline __attribute__((always_inline)) void mp_ava_fma(mp_ava *acc, const mp_ava *x,
                                                             const mp_ava *y)
{
    mp_av_fma(acc, x, y);
}
static inline __attribute__((always_inline)) float mp_ava_tree(const mp_ava *acc)
{
    return mp_av_tree(acc);
}
#else
typedef float mp_av8f __attribute__((vector_size(32)));
typedef struct {
    mp_av8f lo, hi;
} mp_ava;
static inline __attribute__((always_inline)) void mp_ava_load(mp_ava *v, const float *p)
{
    memcpy(&v->lo, p, sizeof v->lo);
    memcpy(&v->hi, p + 8, sizeof v->hi);
}
static inline __attribute__((always_inline)) void mp_ava_store(float *p, const mp_ava *v)
{
    memcpy(p, &v->lo, sizeof v->lo);
    memcpy(p + 8, &v->hi, sizeof v->hi);
}
static inline __attribute__((always_inline)) void mp_ava_splat(mp_ava *v, float s)
{
    v->lo = v->hi = s - (mp_av8f){0};
}
/* *acc = fma(*x, *y, *acc) lane by lane, one rounding each: the FMA
 * instruction, or fmaf (correctly rounded too) in the portable copy */
static inline __attribute__((always_inline)) void mp_av8_fma(mp_av8f *acc, const mp_av8f *x,
                                                             const mp_av8f *y)
{
#if defined(__FMA__)
    *acc = (mp_av8f)_mm256_fmadd_ps((__m256)*x, (__m256)*y, (__m256)*acc);
#else
    for (int l = 0; l < 8; l++)
        (*acc)[l] = fmaf((*x)[l], (*y)[l], (*acc)[l]);
#endif
}
static inline __attribute__((always_inline)) void mp_ava_fma(mp_ava *acc, const mp_ava *x,
                                                             const mp_ava *y)
{
    mp_av8_fma(&acc->lo, &x->lo, &y->lo);
    mp_av8_fma(&acc->hi, &x->hi, &y->hi);
}
/* mp_av_tree's additions: lane i + lane i + 8, lane i + lane i + 4, then
 * (0 + 2) + (1 + 3) */
static inline __attribute__((always_inline)) float mp_ava_tree(const mp_ava *acc)
{
    mp_av8f v = acc->lo + acc->hi;
    v += __builtin_shufflevector(v, v, 4, 5, 6, 7, 4, 5, 6, 7);
    return (v[0] + v[2]) + (v[1] + v[3]);
}
#endif

/* the lane tree, then the tail in index order, then the scale */
static inline __attribute__((always_inline)) float
mp_av_finish(const mp_ava *acc, const float *q, const float *k, int d0, int hd, float scale)
{
    float t = 0.0f, r = mp_ava_tree(acc);
    for (int d = d0; d < hd; d++)
        t = fmaf(q[d], k[d], t);
    return (r + t) * scale;
}

MP_E2E_EXP_DEFINE(mp_av_exp, mp_av16f, mp_av16i)
#endif

/* the lane trees of 16 accumulators at once, key i's result in lane i: the
 * same additions as mp_av_tree on each (float + is commutative, and each sum
 * pairs the same two partial sums), but on whole vectors, 45 operations for 16
 * keys instead of ~10 per key.  Each step adds the low and the high partial
 * sums of two vectors' keys, packed side by side:
 *   1: lanes l and l + 8 of keys a, b -> 8 lanes each;
 *   2: lanes l and l + 4 of each 8 -> 4 lanes each of keys a..d;
 *   3: lanes 0 + 2 and 1 + 3 of each 4 -> 2 lanes each of keys a..h;
 *   4: the two lanes of each key -> 1 lane each of keys 0..15. */
/* whole loops over accumulators: unrolled, so each stays in a register */
#define MP_AV_UNROLL _Pragma("GCC unroll 16")
#define MP_AV_HALVES(a, b, lo, hi) (__builtin_shufflevector(a, b, lo) + __builtin_shufflevector(a, b, hi))
#define MP_AV_S1_LO 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23
#define MP_AV_S1_HI 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31
#define MP_AV_S2_LO 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27
#define MP_AV_S2_HI 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31
#define MP_AV_S3_LO 0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29
#define MP_AV_S3_HI 2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31
#define MP_AV_S4_LO 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
#define MP_AV_S4_HI 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31
static inline __attribute__((always_inline)) void mp_av_tree16(const mp_av16f a[16], mp_av16f *r)
{
    mp_av16f p[8], q[4], u[2];
    MP_AV_UNROLL for (int i = 0; i < 8; i++)
        p[i] = MP_AV_HALVES(a[2 * i], a[2 * i + 1], MP_AV_S1_LO, MP_AV_S1_HI);
    MP_AV_UNROLL for (int i = 0; i < 4; i++)
        q[i] = MP_AV_HALVES(p[2 * i], p[2 * i + 1], MP_AV_S2_LO, MP_AV_S2_HI);
    MP_AV_UNROLL for (int i = 0; i < 2; i++)
        u[i] = MP_AV_HALVES(q[2 * i], q[2 * i + 1], MP_AV_S3_LO, MP_AV_S3_HI);
    *r = MP_AV_HALVES(u[0], u[1], MP_AV_S4_LO, MP_AV_S4_HI);
}

/* MP_ATTN_KEYS keys share each q load (4, 8 or 16): their multiply-add chains
 * are independent, so 8 keep AVX-512's two FMA units busy where 4 wait on the
 * latency, and 16 (AVX-512's 32 registers) also sum their lanes together
 * (mp_av_tree16); the 16-register ISAs keep 4 (8 would spill). */
#ifndef MP_ATTN_KEYS
#define MP_ATTN_KEYS 4
#endif

/* one key of a group: its block b into its accumulator a<i>, then its score */
#define MP_AV_KEY(i)                                                                          \
    mp_ava_load(&y, k0 + (i) * s + MP_AV * b);                                                 \
    mp_ava_fma(&a##i, &x, &y);
#define MP_AV_SCORE(i) sc[j + (i)] = mp_av_finish(&a##i, q, k0 + (i) * s, d0, hd, scale);

void MP_ATTN_FN(mp_e2e_attn_scores)(const float *q, const float *k, int hd, int nkeys,
                                    float scale, float *sc)
{
    const int nb = hd / MP_AV, d0 = nb * MP_AV;
    const size_t s = (size_t)hd;
    int j = 0;
#if MP_ATTN_KEYS == 16
    for (; j + 16 <= nkeys; j += 16) {
        const float *k0 = k + (size_t)j * s;
        mp_av16f a[16] = {{0}}, x, y, r, t = {0};
        for (int b = 0; b < nb; b++) {
            mp_av_load(&x, q + MP_AV * b);
            MP_AV_UNROLL for (int i = 0; i < 16; i++) {
                mp_av_load(&y, k0 + i * s + MP_AV * b);
                mp_av_fma(&a[i], &x, &y);
            }
        }
        mp_av_tree16(a, &r);
        for (int i = 0; i < 16 && d0 < hd; i++) /* each key's tail, in order from 0 */
            for (int d = d0; d < hd; d++)
                t[i] = fmaf(q[d], k0[i * s + d], t[i]);
        r = (r + t) * scale;
        memcpy(sc + j, &r, sizeof r);
    }
#endif
#if MP_ATTN_KEYS >= 8
    for (; j + 8 <= nkeys; j += 8) {
        const float *k0 = k + (size_t)j * s;
        mp_ava a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, a4 = {0}, a5 = {0}, a6 = {0}, a7 = {0}, x,
               y;
        for (int b = 0; b < nb; b++) {
            mp_ava_load(&x, q + MP_AV * b);
            MP_AV_KEY(0) MP_AV_KEY(1) MP_AV_KEY(2) MP_AV_KEY(3)
            MP_AV_KEY(4) MP_AV_KEY(5) MP_AV_KEY(6) MP_AV_KEY(7)
        }
        MP_AV_SCORE(0) MP_AV_SCORE(1) MP_AV_SCORE(2) MP_AV_SCORE(3)
        MP_AV_SCORE(4) MP_AV_SCORE(5) MP_AV_SCORE(6) MP_AV_SCORE(7)
    }
#endif
    for (; j + 4 <= nkeys; j += 4) {
        const float *k0 = k + (size_t)j * s;
        mp_ava a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, x, y;
        for (int b = 0; b < nb; b++) {
            mp_ava_load(&x, q + MP_AV * b);
            MP_AV_KEY(0) MP_AV_KEY(1) MP_AV_KEY(2) MP_AV_KEY(3)
        }
        MP_AV_SCORE(0) MP_AV_SCORE(1) MP_AV_SCORE(2) MP_AV_SCORE(3)
    }
    for (; j < nkeys; j++) {
        const float *k0 = k + (size_t)j * s;
        mp_ava a0 = {0}, x, y;
        for (int b = 0; b < nb; b++) {
            mp_ava_load(&x, q + MP_AV * b);
            MP_AV_KEY(0)
        }
        MP_AV_SCORE(0)
    }
}
#undef MP_AV_KEY
#undef MP_AV_SCORE

void MP_ATTN_FN(mp_e2e_attn_mix)(const float *p, const float *v, int hd, int nkeys, float *o)
{
    int d0 = 0;
    /* whole slices of MP_AOUT vectors (128 floats on AVX-512, 64 where a
     * vector is two registers): named accumulators stay in registers (an
     * array indexed in a loop lived on the stack, a reload and a store around
     * every multiply-add).  The slice width changes no lane's operations. */
    for (; d0 + MP_AV * MP_AOUT <= hd; d0 += MP_AV * MP_AOUT) {
        mp_ava a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, y, pj;
#if MP_AOUT == 8
        mp_ava a4 = {0}, a5 = {0}, a6 = {0}, a7 = {0};
#endif
        for (int j = 0; j < nkeys; j++) {
            const float *vj = v + (size_t)j * hd + d0;
            mp_ava_splat(&pj, p[j]);
#define MP_AV_MIX1(i, acc)                                                                    \
    mp_ava_load(&y, vj + MP_AV * (i));                                                         \
    mp_ava_fma(&acc, &pj, &y);
            MP_AV_MIX1(0, a0) MP_AV_MIX1(1, a1) MP_AV_MIX1(2, a2) MP_AV_MIX1(3, a3)
#if MP_AOUT == 8
            MP_AV_MIX1(4, a4) MP_AV_MIX1(5, a5) MP_AV_MIX1(6, a6) MP_AV_MIX1(7, a7)
#endif
#undef MP_AV_MIX1
        }
#define MP_AV_OUT(i, acc) mp_ava_store(o + d0 + (i) * MP_AV, &acc);
        MP_AV_OUT(0, a0) MP_AV_OUT(1, a1) MP_AV_OUT(2, a2) MP_AV_OUT(3, a3)
#if MP_AOUT == 8
        MP_AV_OUT(4, a4) MP_AV_OUT(5, a5) MP_AV_OUT(6, a6) MP_AV_OUT(7, a7)
#endif
#undef MP_AV_OUT
    }
    /* fewer than MP_AOUT whole vectors left */
    int nv = (hd - d0) / MP_AV;
    if (nv) {
        mp_ava acc[MP_AOUT], y, pj;
        for (int i = 0; i < MP_AOUT; i++)
            mp_ava_splat(&acc[i], 0.0f);
        for (int j = 0; j < nkeys; j++) {
            const float *vj = v + (size_t)j * hd + d0;
            mp_ava_splat(&pj, p[j]);
            for (int i = 0; i < nv; i++) {
                mp_ava_load(&y, vj + MP_AV * i);
                mp_ava_fma(&acc[i], &pj, &y);
            }
        }
        for (int i = 0; i < nv; i++)
            mp_ava_store(o + d0 + MP_AV * i, &acc[i]);
        d0 += MP_AV * nv;
    }
    for (int d = d0; d < hd; d++) {
        float t = 0.0f;
        for (int j = 0; j < nkeys; j++)
            t = fmaf(p[j], v[(size_t)j * hd + d], t);
        o[d] = t;
    }
}

float MP_ATTN_FN(mp_e2e_attn_softmax)(float *sc, int n)
{
    const int d0 = n / MP_AV * MP_AV;
    float mx = -INFINITY;
    if (d0) {
        mp_av16f m, y;
        mp_av_load(&m, sc);
        for (int j = MP_AV; j < d0; j += MP_AV) {
            mp_av_load(&y, sc + j);
            mp_av16i gt = y > m;
            m = (mp_av16f)(((mp_av16i)y & gt) | ((mp_av16i)m & ~gt));
        }
        for (int l = 0; l < MP_AV; l++)
            mx = m[l] > mx ? m[l] : mx;
    }
    for (int j = d0; j < n; j++)
        mx = sc[j] > mx ? sc[j] : mx;
    mp_av16f acc = {0}, e;
    for (int j = 0; j < d0; j += MP_AV) {
        mp_av_load(&e, sc + j);
        e -= mx;
        mp_av_exp(&e);
        memcpy(sc + j, &e, sizeof e);
        acc += e;
    }
    float sum = mp_av_tree(&acc);
    if (d0 < n) { /* the tail through one zero-padded vector, summed in order */
        mp_av16f t = {0};
        memcpy(&t, sc + d0, sizeof(float) * (size_t)(n - d0));
        t -= mx;
        mp_av_exp(&t);
        for (int j = d0; j < n; j++)
            sc[j] = t[j - d0], sum += t[j - d0];
    }
    return sum;
}
