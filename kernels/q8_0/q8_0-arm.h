/* q8_0-arm.h - Q8_0 x Q8_0 activations for AArch64, written once for the NEON
 * and dotprod twins (q8_0-neon.c, q8_0-dotprod.c).
 *
 * q8_0.h's summation contract: per block, int32 lane l is the exact sum of the
 * products 4l..4l+3; that is sdot's own lane grouping, so the dotprod twin is
 * one sdot per 16 bytes.  The Armv8.0 twin forms the same lane sums with
 * smull/smull2 (|product| <= 128 * 128 fits int16), saddlp (pairs) and addp
 * (pairs of pairs).  Then, in the contract's order, each lane is converted to
 * float, multiplied by dw * dx and added to float lane (b % 2) * 8 + l; the 16
 * lanes are folded by mp_mad_fold16.  Separate multiply and add (the build does
 * not contract them into fma: -std=c11).  Bit for bit equal to the scalar path. */
#ifndef MP_Q8_0_ARM_H
#define MP_Q8_0_ARM_H

#include <arm_neon.h>
#include <string.h>

#include "q8_0.h"

/* Lane l of the result = sum of c[4l..4l+3] * a[4l..4l+3], exactly. */
static inline __attribute__((always_inline)) int32x4_t q8_lane_dot(int8x16_t c, int8x16_t a)
{
#if defined(__ARM_FEATURE_DOTPROD)
    return vdotq_s32(vdupq_n_s32(0), c, a);
#else
    int32x4_t lo = vpaddlq_s16(vmull_s8(vget_low_s8(c), vget_low_s8(a)));
    int32x4_t hi = vpaddlq_s16(vmull_high_s8(c, a));
    return vpaddq_s32(lo, hi);
#endif
}

/* Contract: K % 32 == 0, rows [m0, m1), all N tokens; no over-reads. */
static void q8_0_arm_gemm(const mp_op *op, const void *act, int n, float *y, int m0, int m1)
{
    const int k = op->k, nb = k / MP_Q80_QK;
    for (int r = m0; r < m1; r++) {
        const uint8_t *wr = op->w + (size_t)r * nb * MP_Q80_BYTES;
        for (int t = 0; t < n; t++) {
            const float *dx = mp_q80act_d(act, k, t);
            const int8_t *qx = mp_q80act_q(act, k, t);
            float32x4_t lane[4] = {vdupq_n_f32(0.0f), vdupq_n_f32(0.0f), vdupq_n_f32(0.0f),
                                   vdupq_n_f32(0.0f)};
            for (int b = 0; b < nb; b++) {
                const uint8_t *blk = wr + (size_t)b * MP_Q80_BYTES;
                uint16_t h;
                memcpy(&h, blk, 2);
                const float32x4_t db = vdupq_n_f32(mp_fp16_to_f32(h) * dx[b]);
                const int8_t *qb = qx + b * MP_Q80_QK;
                int32x4_t s0 = q8_lane_dot(vld1q_s8((const int8_t *)blk + 2), vld1q_s8(qb));
                int32x4_t s1 = q8_lane_dot(vld1q_s8((const int8_t *)blk + 18), vld1q_s8(qb + 16));
                const int f = (b & 1) * 2;
                lane[f] = vaddq_f32(lane[f], vmulq_f32(vcvtq_f32_s32(s0), db));
                lane[f + 1] = vaddq_f32(lane[f + 1], vmulq_f32(vcvtq_f32_s32(s1), db));
            }
            float l16[16];
            for (int i = 0; i < 4; i++)
                vst1q_f32(l16 + 4 * i, lane[i]);
            y[(size_t)t * op->m + r] = mp_mad_fold16(l16);
        }
    }
}

#endif
