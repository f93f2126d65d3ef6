/* e2e-head-simd.h - the head's hot loops as one template (like
 * kernels/vlut/vlut-simd.h): widening a stored row to floats and the float dot
 * product, written on GNU C vector types of 16 lanes and compiled once per ISA
 * (harness/e2e-head.c portable, e2e-head-avx2.c, e2e-head-avx512.c), chosen at
 * run time by mp_e2e_head_init.
 *
 * The arithmetic is the same in every copy: lane-wise IEEE operations in a
 * fixed order (four 16-lane accumulators over K in steps of 64, 16-lane steps,
 * then the lanes and the scalar tail summed in index order) and no contraction
 * into FMA (-std=c11 implies -ffp-contract=off), so every ISA gives the same
 * bits and the thread split (whole rows per thread) never matters.
 *
 * The including file defines MP_HEAD_FN(name) to append its ISA suffix. */
#include <string.h>

#include "mp_e2e_head.h"

typedef float mp_hv16f __attribute__((vector_size(64)));
typedef uint16_t mp_hv16u16 __attribute__((vector_size(32)));
typedef uint32_t mp_hv16u32 __attribute__((vector_size(64)));
typedef int32_t mp_hv16i32 __attribute__((vector_size(64)));
typedef int8_t mp_hv16i8 __attribute__((vector_size(16)));
typedef uint8_t mp_hv16u8 __attribute__((vector_size(16)));
typedef uint16_t mp_hv8u16 __attribute__((vector_size(16)));

static inline float MP_HEAD_FN(bf16_f32)(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

void MP_HEAD_FN(mp_e2e_head_row_f32)(mp_e2e_head_fmt f, const uint8_t *row, int cols,
                                     float *out)
{
    if (f == MP_E2E_HEAD_F16) {
        const uint16_t *src = (const uint16_t *)row;
        int i = 0;
        for (; i + 16 <= cols; i += 16) {
            mp_hv16u16 h;
            memcpy(&h, src + i, sizeof h);
            mp_hv16u32 u = __builtin_convertvector(h, mp_hv16u32) << 16;
            memcpy(out + i, &u, sizeof u);
        }
        for (; i < cols; i++)
            out[i] = MP_HEAD_FN(bf16_f32)(src[i]);
        return;
    }
    size_t bb = f == MP_E2E_HEAD_Q8_0 ? 34 : 18;
    for (int b = 0; b < cols / 32; b++) {
        const uint8_t *blk = row + (size_t)b * bb;
        uint16_t d16;
        memcpy(&d16, blk, 2);
        float d = MP_HEAD_FN(bf16_f32)(d16);
        float *o = out + (size_t)b * 32;
        /* bytes -> int32 -> float (gcc 12 scalarizes a direct byte-to-float
         * conversion); the values are small integers, so the result equals
         * float(code) * d exactly either way */
        if (f == MP_E2E_HEAD_Q8_0) {
            for (int h = 0; h < 2; h++) {
                mp_hv16i8 q;
                memcpy(&q, blk + 2 + 16 * h, sizeof q);
                mp_hv16f y = __builtin_convertvector(__builtin_convertvector(q, mp_hv16i32),
                                                     mp_hv16f) * d;
                memcpy(o + 16 * h, &y, sizeof y);
            }
        } else {
            mp_hv16u8 q, hi;
            mp_hv8u16 w;
            memcpy(&q, blk + 2, sizeof q);
            memcpy(&w, &q, sizeof w);
            w = (w >> 4) & 0x0f0f; /* x86 has no byte-lane shift: 16-bit lanes */
            memcpy(&hi, &w, sizeof hi);
            mp_hv16u8 lo = q & 15;
            mp_hv16i32 il = __builtin_convertvector(lo, mp_hv16i32) - 8;
            mp_hv16i32 ih = __builtin_convertvector(hi, mp_hv16i32) - 8;
            mp_hv16f yl = __builtin_convertvector(il, mp_hv16f) * d;
            mp_hv16f yh = __builtin_convertvector(ih, mp_hv16f) * d;
            memcpy(o, &yl, sizeof yl);
            memcpy(o + 16, &yh, sizeof yh);
        }
    }
}

float MP_HEAD_FN(mp_e2e_head_dot)(const float *a, const float *b, int n)
{
    /* four named accumulators: an array of them was kept in memory by gcc */
    mp_hv16f s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, x, y;
    int i = 0;
    for (; i + 64 <= n; i += 64) {
        memcpy(&x, a + i, sizeof x), memcpy(&y, b + i, sizeof y), s0 += x * y;
        memcpy(&x, a + i + 16, sizeof x), memcpy(&y, b + i + 16, sizeof y), s1 += x * y;
        memcpy(&x, a + i + 32, sizeof x), memcpy(&y, b + i + 32, sizeof y), s2 += x * y;
        memcpy(&x, a + i + 48, sizeof x), memcpy(&y, b + i + 48, sizeof y), s3 += x * y;
    }
    for (; i + 16 <= n; i += 16)
        memcpy(&x, a + i, sizeof x), memcpy(&y, b + i, sizeof y), s0 += x * y;
    mp_hv16f s = (s0 + s1) + (s2 + s3);
    float r = 0.0f;
    for (int l = 0; l < 16; l++)
        r += s[l];
    for (; i < n; i++)
        r += a[i] * b[i];
    return r;
}
