/* tmac-neon.c - T-MAC's bit-wise LUT kernel (seed 001 §2.2, seed 000 §2.3) on
 * AArch64 NEON: the 16-entry int8 tables are looked up with tbl (vqtbl1q_u8),
 * the instruction T-MAC itself uses on Arm.  Layout and tables are tmac.h's
 * (shared with the scalar and x86 paths; prepare is the scalar one).
 *
 * Per 64-byte step, lane block j holds 16 rows' indices of group 2s + (j & 1):
 * plane 0 in the low nibble, plane 1 in the high one, both into the same table.
 * A lookup is biased by +128; xor 0x80 makes it the signed entry.  Each lane
 * block keeps its own int16 accumulators of T[i0] + 2 T[i1] (at most 3 * 128
 * per step), widened into int32 every MP_TMAC_FLUSH = 64 steps: 64 * 384 <
 * 32768.  The integer sums are the scalar path's; the float step is
 * mp_tmac_store.  Bit for bit equal to tmac-scalar.c. */
#include <arm_neon.h>

#include "tmac.h"

typedef struct lane_acc {
    int16x8_t a16[2];
    int32x4_t a32[4];
} lane_acc;

static inline __attribute__((always_inline)) void flush(lane_acc *a)
{
    a->a32[0] = vaddw_s16(a->a32[0], vget_low_s16(a->a16[0]));
    a->a32[1] = vaddw_high_s16(a->a32[1], a->a16[0]);
    a->a32[2] = vaddw_s16(a->a32[2], vget_low_s16(a->a16[1]));
    a->a32[3] = vaddw_high_s16(a->a32[3], a->a16[1]);
    a->a16[0] = a->a16[1] = vdupq_n_s16(0);
}

/* The sums s8 = S0 + 2 S1 of the 32 rows of one block for one token. */
static void block_sums(const uint8_t *o, const uint8_t *tab, int k, int32_t *sums)
{
    const uint8x16_t m0f = vdupq_n_u8(0x0f), bias = vdupq_n_u8(0x80);
    lane_acc a[4];
    for (int j = 0; j < 4; j++) {
        a[j].a16[0] = a[j].a16[1] = vdupq_n_s16(0);
        for (int i = 0; i < 4; i++)
            a[j].a32[i] = vdupq_n_s32(0);
    }
    const int nsteps = k / 8;
    for (int s0 = 0; s0 < nsteps; s0 += MP_TMAC_FLUSH) {
        int s1 = s0 + MP_TMAC_FLUSH < nsteps ? s0 + MP_TMAC_FLUSH : nsteps;
        for (int s = s0; s < s1; s++, o += MP_TMAC_STEP) {
            const uint8x16_t t0 = vld1q_u8(tab + (size_t)(2 * s) * 16);
            const uint8x16_t t1 = vld1q_u8(tab + (size_t)(2 * s + 1) * 16);
            for (int j = 0; j < 4; j++) {
                uint8x16_t v = vld1q_u8(o + 16 * j), t = j & 1 ? t1 : t0;
                int8x16_t x = vreinterpretq_s8_u8(veorq_u8(vqtbl1q_u8(t, vandq_u8(v, m0f)), bias));
                int8x16_t y = vreinterpretq_s8_u8(veorq_u8(vqtbl1q_u8(t, vshrq_n_u8(v, 4)), bias));
                /* plane 0, plus plane 1 shifted by one bit */
                a[j].a16[0] = vaddw_s8(vaddq_s16(a[j].a16[0], vshll_n_s8(vget_low_s8(y), 1)),
                                       vget_low_s8(x));
                a[j].a16[1] = vaddw_s8(vaddq_s16(a[j].a16[1], vshll_n_s8(vget_high_s8(y), 1)),
                                       vget_high_s8(x));
            }
        }
        for (int j = 0; j < 4; j++)
            flush(&a[j]);
    }
    for (int h = 0; h < 2; h++) /* rows 16h..: lane blocks 2h and 2h + 1 */
        for (int i = 0; i < 4; i++)
            vst1q_s32(sums + 16 * h + 4 * i, vaddq_s32(a[2 * h].a32[i], a[2 * h + 1].a32[i]));
}

/* Contract: rows [m0, m1), m0 a multiple of 32, all tokens; K % 8 == 0; no
 * over-read. */
/* block_sums as the x86 paths' block function (no software prefetch here) */
static void block(const uint8_t *o, int nsteps, const uint8_t *tab, size_t pf, int pfh,
                  int32_t *sums)
{
    (void)pf;
    (void)pfh;
    block_sums(o, tab, nsteps * 8, sums);
}

void mp_tmac_gemm__neon(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                        void *scratch)
{
    (void)scratch;
    mp_tmac_gemm_blocks(op, act, n, y, m0, m1, 0, MP_PFH_T1, block);
}
