/* tq1_0-arm.h - TQ1_0 x Q8_K for AArch64, written once for the NEON and dotprod
 * twins (tq1_0-neon.c, tq1_0-dotprod.c), which differ only in mp_arm_dot16.
 *
 * Base-3 unpack as in tq.h: trit n of byte b is ((uint8)(b * 3^n) * 3) >> 8,
 * i.e. a wrapping byte multiply (mul), a widening multiply by 3 (umull/umull2)
 * and a narrowing shift (shrn), 16 trits at a time.  qs[0..31] give weights
 * i + 32n, qs[32..47] weights 160 + i + 16n (n = 0..4); the 4 qh bytes are
 * repeated into one vector with per-lane powers 3^(lane / 4), giving weights
 * 240..255 in order.  The codes (w + 1) are multiplied with the Q8_K
 * activations and the block's bsums subtracted: the exact int32 dot of the
 * scalar path; then, block by block in order, acc = acc + (float)dot * (dw * dx)
 * in single precision.  Bit for bit equal to the scalar path. */
#ifndef MP_TQ1_0_ARM_H
#define MP_TQ1_0_ARM_H

#include <string.h>

#include "../common/mp_arm_dot.h"
#include "tq.h"

#define TQ1_INLINE static inline __attribute__((always_inline))

/* Trit codes of 16 bytes v, each multiplied first by the lane's power p. */
TQ1_INLINE int8x16_t trits(uint8x16_t v, uint8x16_t p)
{
    const uint8x16_t x = vmulq_u8(v, p);
    const uint8x8_t three = vdup_n_u8(3);
    uint8x8_t lo = vshrn_n_u16(vmull_u8(vget_low_u8(x), three), 8);
    uint8x8_t hi = vshrn_n_u16(vmull_high_u8(x, vdupq_n_u8(3)), 8);
    return vreinterpretq_s8_u8(vcombine_u8(lo, hi));
}

/* The exact int32 dot of one TQ1_0 block with one Q8_K block. */
TQ1_INLINE int32_t tq1_block_dot(const uint8_t *blk, const mp_block_q8_K *a)
{
    static const uint8_t pow3[5] = {1, 3, 9, 27, 81};
    static const uint8_t qhp[16] = {1, 1, 1, 1, 3, 3, 3, 3, 9, 9, 9, 9, 27, 27, 27, 27};
    const int8_t *q = a->qs;
    const uint8x16_t v0 = vld1q_u8(blk), v1 = vld1q_u8(blk + 16), v2 = vld1q_u8(blk + 32);
    uint32_t qh;
    memcpy(&qh, blk + 48, 4);
    const uint8x16_t v3 = vreinterpretq_u8_u32(vdupq_n_u32(qh));
    int32x4_t acc = vdupq_n_s32(0);
    for (int n = 0; n < 5; n++) {
        const uint8x16_t p = vdupq_n_u8(pow3[n]);
        acc = mp_arm_dot16(acc, trits(v0, p), vld1q_s8(q + 32 * n));
        acc = mp_arm_dot16(acc, trits(v1, p), vld1q_s8(q + 32 * n + 16));
        acc = mp_arm_dot16(acc, trits(v2, p), vld1q_s8(q + 160 + 16 * n));
    }
    acc = mp_arm_dot16(acc, trits(v3, vld1q_u8(qhp)), vld1q_s8(q + 240));
    int32_t bsum = 0;
    for (int i = 0; i < 16; i++)
        bsum += a->bsums[i];
    return vaddvq_s32(acc) - bsum;
}

/* Contract: K % 256 == 0, rows [m0, m1), all N tokens; no over-reads. */
static void tq1_arm_gemm(const mp_op *op, const void *act, int n, float *y, int m0, int m1)
{
    const int k = op->k, nb = k / MP_QK_K;
    for (int r = m0; r < m1; r++) {
        const uint8_t *wr = op->w + (size_t)r * nb * MP_TQ1_BYTES;
        for (int t = 0; t < n; t++) {
            const mp_block_q8_K *a = mp_q8k_token(act, k, t);
            float acc = 0.0f;
            for (int b = 0; b < nb; b++) {
                const uint8_t *blk = wr + (size_t)b * MP_TQ1_BYTES;
                float p = (float)tq1_block_dot(blk, a + b) *
                          (mp_tq_block_d(blk, MP_TQ1_BYTES) * a[b].d);
                acc = acc + p;
            }
            y[(size_t)t * op->m + r] = acc;
        }
    }
}

#endif
