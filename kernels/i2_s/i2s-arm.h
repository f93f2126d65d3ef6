/* i2s-arm.h - the I2_S kernel for AArch64, written once for its NEON and
 * dotprod twins (i2s-neon.c, i2s-dotprod.c), which include it under their own
 * ISA flags and differ only in mp_arm_dot16 (sdot or smull/smlal2/sadalp).
 *
 * Four rows at a time share each activation load (as i2s-avx2.c).  Byte j of a
 * row's 32-byte block holds the codes (w + 1) of weights j, 32+j, 64+j, 96+j in
 * bits 7-6, 5-4, 3-2, 1-0 (i2s.h): shift/and gives four code planes, each
 * lining up with 32 consecutive activations.  The int32 sum of code * q minus
 * the token's sum of q is sum(w * q) exactly; the float step is mp_dequant, as
 * in the scalar path: bit for bit equal.  The `pf` parameter is a software
 * prefetch distance along the row group (0 = none). */
#ifndef MP_I2S_ARM_H
#define MP_I2S_ARM_H

#include "../common/mp_arm_dot.h"
#include "i2s-rows.h"

static inline __attribute__((always_inline)) void i2s_arm_rows(const uint8_t *w0,
                                                               size_t row_bytes, int R,
                                                               const int8_t *q, int nblk,
                                                               int32_t *out, size_t pf,
                                                               int pfh)
{
    (void)pfh; /* __builtin_prefetch's default locality, as before pfh existed */
    const size_t span = (size_t)R * row_bytes;
    const size_t ahead = pf ? span * ((pf + span - 1) / span) : 0;
    const uint8x16_t m3 = vdupq_n_u8(3);
    int32x4_t acc[4] = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)};
    for (int b = 0; b < nblk; b++) {
        const int8_t *qb = q + b * 128;
        if (pf) {
            const uint8_t *at = w0 + ahead + (size_t)b * 128;
            __builtin_prefetch(at);
            __builtin_prefetch(at + 64);
        }
        int8x16_t a[8]; /* a[2s + h]: activations 32s + 16h .. +15 */
        for (int i = 0; i < 8; i++)
            a[i] = vld1q_s8(qb + 16 * i);
        for (int r = 0; r < R; r++)
            for (int h = 0; h < 2; h++) {
                uint8x16_t v = vld1q_u8(w0 + r * row_bytes + b * 32 + 16 * h);
                acc[r] = mp_arm_dot16(acc[r], vreinterpretq_s8_u8(vshrq_n_u8(v, 6)), a[h]);
                acc[r] = mp_arm_dot16(acc[r], vreinterpretq_s8_u8(vandq_u8(vshrq_n_u8(v, 4), m3)),
                                      a[2 + h]);
                acc[r] = mp_arm_dot16(acc[r], vreinterpretq_s8_u8(vandq_u8(vshrq_n_u8(v, 2), m3)),
                                      a[4 + h]);
                acc[r] = mp_arm_dot16(acc[r], vreinterpretq_s8_u8(vandq_u8(v, m3)), a[6 + h]);
            }
    }
    for (int r = 0; r < R; r++)
        out[r] = vaddvq_s32(acc[r]);
}

static void i2s_arm_gemm(const mp_op *op, const void *act, int n, float *y, int m0, int m1)
{
    mp_i2s_gemm_rows(op, act, n, y, m0, m1,
                     op->v->n_params > 0 ? (size_t)op->param[0] : 0, MP_PFH_T0, i2s_arm_rows);
}

#endif
