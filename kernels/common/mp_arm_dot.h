/* mp_arm_dot.h - the int8 dot-product step the AArch64 MAD paths share, one
 * source for two ISAs: compiled into a *-dotprod.c file (-march=...+dotprod,
 * __ARM_FEATURE_DOTPROD defined) it is one sdot; in a *-neon.c file (Armv8.0) it
 * is the widening multiply smull/smlal2 and a pairwise add-accumulate sadalp.
 * Both add the exact int32 sums of the same products, four at a time, so a
 * kernel written on this step is the same integer arithmetic on both levels:
 * the NEON and dotprod twins of a kernel differ only in this instruction. */
#ifndef MP_ARM_DOT_H
#define MP_ARM_DOT_H

#include <arm_neon.h>

/* acc[i] += sum_{j<4} c[4i+j] * a[4i+j] (dotprod), or the same 16 products
 * summed in pairs (NEON); either way sum(acc) grows by sum(c * a) exactly.
 * Contract: |c| <= 3 (2-bit codes or ternary weights), so the NEON int16 lane
 * c[j]*a[j] + c[j+8]*a[j+8] stays within 2 * 3 * 128 = 768. */
static inline __attribute__((always_inline)) int32x4_t mp_arm_dot16(int32x4_t acc, int8x16_t c,
                                                                    int8x16_t a)
{
#if defined(__ARM_FEATURE_DOTPROD)
    return vdotq_s32(acc, c, a);
#else
    int16x8_t p = vmull_s8(vget_low_s8(c), vget_low_s8(a));
    p = vmlal_high_s8(p, c, a);
    return vpadalq_s16(acc, p);
#endif
}

#endif
