/* tq2_0-arm.h - TQ2_0 x Q8_K for AArch64, written once for its NEON and dotprod
 * twins (tq2_0-neon.c, tq2_0-dotprod.c), which differ only in mp_arm_dot16.
 *
 * Four rows at a time share each activation load (as tq2_0-avx2.c).  Byte
 * 32h + m of a block holds the codes (w + 1) of weights 128h + 32n + m in bits
 * 2n+1..2n (tq.h): shift/and gives four code planes per 32 bytes, each lining up
 * with 32 consecutive Q8_K activations.  Per block the exact int32 sum of
 * code * q minus the block's bsums is the scalar path's dot; then, block by
 * block in order, acc = acc + (float)dot * (dw * dx) in single precision (four
 * rows as one float32x4, the same IEEE operations lane by lane; the build does
 * not contract them into fma: -std=c11).  Bit for bit equal to the scalar path. */
#ifndef MP_TQ2_0_ARM_H
#define MP_TQ2_0_ARM_H

#include <string.h>

#include "../common/mp_arm_dot.h"
#include "tq.h"

/* out[i] for the 4 row pointers wr[] (duplicates allowed) and one token. */
static inline __attribute__((always_inline)) void tq2_arm_rows4(const uint8_t *const *wr,
                                                                const mp_block_q8_K *a,
                                                                int nb, float *out)
{
    const uint8x16_t m3 = vdupq_n_u8(3);
    float32x4_t acc = vdupq_n_f32(0.0f);
    for (int b = 0; b < nb; b++) {
        const int8_t *q = a[b].qs;
        int32_t bsum = 0;
        for (int i = 0; i < 16; i++)
            bsum += a[b].bsums[i];
        int32x4_t s[4];
        const size_t off = (size_t)b * MP_TQ2_BYTES;
        for (int i = 0; i < 4; i++) {
            int32x4_t d = vdupq_n_s32(0);
            for (int c = 0; c < 4; c++) { /* 16-byte chunk c: h = c / 2, m = 16 (c % 2) .. */
                uint8x16_t v = vld1q_u8(wr[i] + off + 16 * c);
                const int8_t *qc = q + 128 * (c / 2) + 16 * (c % 2);
                d = mp_arm_dot16(d, vreinterpretq_s8_u8(vandq_u8(v, m3)), vld1q_s8(qc));
                d = mp_arm_dot16(d, vreinterpretq_s8_u8(vandq_u8(vshrq_n_u8(v, 2), m3)),
                                 vld1q_s8(qc + 32));
                d = mp_arm_dot16(d, vreinterpretq_s8_u8(vandq_u8(vshrq_n_u8(v, 4), m3)),
                                 vld1q_s8(qc + 64));
                d = mp_arm_dot16(d, vreinterpretq_s8_u8(vshrq_n_u8(v, 6)), vld1q_s8(qc + 96));
            }
            s[i] = d;
        }
        int32_t dots[4];
        float dw[4];
        for (int i = 0; i < 4; i++) {
            dots[i] = vaddvq_s32(s[i]) - bsum;
            dw[i] = mp_tq_block_d(wr[i] + off, MP_TQ2_BYTES);
        }
        float32x4_t dot = vcvtq_f32_s32(vld1q_s32(dots));
        float32x4_t db = vmulq_f32(vld1q_f32(dw), vdupq_n_f32(a[b].d));
        acc = vaddq_f32(acc, vmulq_f32(dot, db));
    }
    vst1q_f32(out, acc);
}

/* Contract: K % 256 == 0, rows [m0, m1), all N tokens; no over-reads. */
static void tq2_arm_gemm(const mp_op *op, const void *act, int n, float *y, int m0, int m1)
{
    const int k = op->k, nb = k / MP_QK_K;
    const size_t row_bytes = (size_t)nb * MP_TQ2_BYTES;
    for (int r = m0; r < m1; r += 4) {
        const int R = m1 - r < 4 ? m1 - r : 4;
        const uint8_t *wr[4];
        for (int i = 0; i < 4; i++) /* tail group: repeat the last row */
            wr[i] = op->w + (size_t)(r + (i < R ? i : R - 1)) * row_bytes;
        float o[4];
        for (int t = 0; t < n; t++) {
            tq2_arm_rows4(wr, mp_q8k_token(act, k, t), nb, o);
            for (int i = 0; i < R; i++)
                y[(size_t)t * op->m + r + i] = o[i];
        }
    }
}

#endif
