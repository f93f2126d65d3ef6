/* e2e-attn-simd.h - the attention loops of the end-to-end runner as one
 * template (like harness/e2e-head-simd.h), compiled once per ISA:
 * harness/e2e-attn.c (portable), e2e-attn-avx2.c, e2e-attn-avx512.c.  The
 * including file defines MP_ATTN_FN(name) (its ISA suffix).
 *
 * At prefill these loops are the runner's largest float work (pp128 on BitNet
 * 2B-4T: 16% of a token's time on 4-lane portable loops, issue 17), so they use
 * the widest vectors the CPU has, with one arithmetic for every copy: 16-lane
 * GNU C vectors, which gcc lowers to 4 SSE, 2 AVX or 1 AVX-512 operation with
 * the same lanes, so every copy gives the same bits (-std=c11 implies
 * -ffp-contract=off: a product then a sum, never fused).
 *
 * scores: per key, lane l accumulates q[16b + l] * k[16b + l] over the whole
 *   16-blocks b in order from 0; the 16 lanes are summed as a tree (lane i +=
 *   lane i + w for w = 8, 4, 2, 1); the elements after the last whole block are
 *   summed in index order from 0 and added last; then times scale.  Four keys
 *   at a time share each q load and give four independent add chains; each
 *   key's operations are the same in a group or alone.
 * softmax: sc[j] becomes e^(sc[j] - max) (mp_e2e_exp.h, lane-wise); the max is
 *   exact in any order; the sum: lane l accumulates the whole 16-blocks' element
 *   16b + l in order from 0, the lanes are summed as the scores' tree, then the
 *   elements after the last whole block in index order.  One 4-lane loop with a
 *   serial sum (e2e.c until issue 17's last step) held a third of prefill's
 *   attention time.
 * mix: o[d] starts at 0 and adds p[j] * v_j[d] for j in order: up to 8 vectors
 *   (128 floats) of o stay in registers while j runs, then the next 128. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "mp_e2e_attn.h"
#include "mp_e2e_exp.h"

#ifndef MP_ATTN_TYPES
#define MP_ATTN_TYPES
typedef float mp_av16f __attribute__((vector_size(64)));
enum { MP_AV = 16, MP_AKEYS = 4, MP_AOUT = 8 };

static inline __attribute__((always_inline)) void mp_av_load(mp_av16f *v, const float *p)
{
    memcpy(v, p, sizeof *v);
}

typedef int32_t mp_av16i __attribute__((vector_size(64)));
typedef float mp_av8f __attribute__((vector_size(32)));
typedef float mp_av4f __attribute__((vector_size(16)));

/* the lane tree: halves added as vectors (lane i + lane i + w, w = 8, 4), then
 * (0 + 2) + (1 + 3) */
static inline __attribute__((always_inline)) float mp_av_tree(const mp_av16f *acc)
{
    mp_av8f lo8, hi8;
    mp_av4f lo4, hi4;
    memcpy(&lo8, acc, sizeof lo8);
    memcpy(&hi8, (const char *)acc + sizeof lo8, sizeof hi8);
    lo8 += hi8;
    memcpy(&lo4, &lo8, sizeof lo4);
    memcpy(&hi4, (const char *)&lo8 + sizeof lo4, sizeof hi4);
    lo4 += hi4;
    return (lo4[0] + lo4[2]) + (lo4[1] + lo4[3]);
}

/* the lane tree, then the tail in index order, then the scale */
static inline __attribute__((always_inline)) float
mp_av_finish(const mp_av16f *acc, const float *q, const float *k, int d0, int hd, float scale)
{
    float t = 0.0f, r = mp_av_tree(acc);
    for (int d = d0; d < hd; d++)
        t += q[d] * k[d];
    return (r + t) * scale;
}

MP_E2E_EXP_DEFINE(mp_av_exp, mp_av16f, mp_av16i)
#endif

void MP_ATTN_FN(mp_e2e_attn_scores)(const float *q, const float *k, int hd, int nkeys,
                                    float scale, float *sc)
{
    const int nb = hd / MP_AV, d0 = nb * MP_AV;
    const size_t s = (size_t)hd;
    int j = 0;
    for (; j + MP_AKEYS <= nkeys; j += MP_AKEYS) {
        const float *k0 = k + (size_t)j * s;
        mp_av16f a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, x, y;
        for (int b = 0; b < nb; b++) {
            mp_av_load(&x, q + MP_AV * b);
            mp_av_load(&y, k0 + MP_AV * b);
            a0 += x * y;
            mp_av_load(&y, k0 + s + MP_AV * b);
            a1 += x * y;
            mp_av_load(&y, k0 + 2 * s + MP_AV * b);
            a2 += x * y;
            mp_av_load(&y, k0 + 3 * s + MP_AV * b);
            a3 += x * y;
        }
        sc[j] = mp_av_finish(&a0, q, k0, d0, hd, scale);
        sc[j + 1] = mp_av_finish(&a1, q, k0 + s, d0, hd, scale);
        sc[j + 2] = mp_av_finish(&a2, q, k0 + 2 * s, d0, hd, scale);
        sc[j + 3] = mp_av_finish(&a3, q, k0 + 3 * s, d0, hd, scale);
    }
    for (; j < nkeys; j++) {
        const float *kj = k + (size_t)j * s;
        mp_av16f a = {0}, x, y;
        for (int b = 0; b < nb; b++) {
            mp_av_load(&x, q + MP_AV * b);
            mp_av_load(&y, kj + MP_AV * b);
            a += x * y;
        }
        sc[j] = mp_av_finish(&a, q, kj, d0, hd, scale);
    }
}

void MP_ATTN_FN(mp_e2e_attn_mix)(const float *p, const float *v, int hd, int nkeys, float *o)
{
    int d0 = 0;
    for (; d0 + MP_AV <= hd; d0 += MP_AV * MP_AOUT) {
        int nv = (hd - d0) / MP_AV < MP_AOUT ? (hd - d0) / MP_AV : MP_AOUT;
        mp_av16f acc[MP_AOUT] = {{0}}, y;
        for (int j = 0; j < nkeys; j++) {
            const float *vj = v + (size_t)j * hd + d0;
            if (nv == MP_AOUT) { /* the common case, unrolled: o stays in registers */
#pragma GCC unroll 8
                for (int i = 0; i < MP_AOUT; i++) {
                    mp_av_load(&y, vj + MP_AV * i);
                    acc[i] += p[j] * y;
                }
            } else {
                for (int i = 0; i < nv; i++) {
                    mp_av_load(&y, vj + MP_AV * i);
                    acc[i] += p[j] * y;
                }
            }
        }
        memcpy(o + d0, acc, sizeof(float) * MP_AV * (size_t)nv);
        if (nv < MP_AOUT) {
            d0 += MP_AV * nv;
            break;
        }
    }
    for (int d = d0; d < hd; d++) {
        float t = 0.0f;
        for (int j = 0; j < nkeys; j++)
            t += p[j] * v[(size_t)j * hd + d];
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
