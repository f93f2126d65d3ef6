/* mp_e2e_exp.h - e^x for GNU C float vectors of any width, one definition for
 * the runner's 4-lane SiLU (e2e.c) and the attention softmax's 16 lanes
 * (e2e-attn-simd.h): Cephes expf's reduction and polynomial (as in the SSE
 * "exp_ps"), a few ulp on [-88.37, 88.37] (clamped there: exactly 0 below
 * -88.37, about 2^127 above), no libm call; lane-wise IEEE operations in a fixed
 * order (a product then a sum, never fused under -std=c11), so a lane's bits do
 * not depend on the width, the ISA or its neighbours.
 *
 * MP_E2E_EXP_DEFINE(name, VF, VI) defines static inline void name(VF *px),
 * *px = e^*px, for a float vector type VF and the int32 vector type VI of the
 * same lanes (by pointer: a 64-byte vector passed by value draws gcc's -Wpsabi
 * note where the ISA's registers are narrower). */
#ifndef MP_E2E_EXP_H
#define MP_E2E_EXP_H

#define MP_E2E_EXP_DEFINE(name, VF, VI)                                                   \
    static inline __attribute__((always_inline)) void name(VF *px)                        \
    {                                                                                     \
        VF x = *px;                                                                       \
        const VF zero = {0}, hi = zero + 88.3762626647949f, one = zero + 1.0f;            \
        VI m = x > hi;                                                                    \
        x = (VF)(((VI)x & ~m) | ((VI)hi & m));                                            \
        m = x < -hi;                                                                      \
        x = (VF)(((VI)x & ~m) | ((VI)-hi & m));                                           \
        VF fx = x * 1.44269504088896341f + 0.5f;                                          \
        VF t = __builtin_convertvector(__builtin_convertvector(fx, VI), VF);              \
        fx = t - (VF)((VI)one & (t > fx)); /* floor */                                    \
        x = x - fx * 0.693359375f;                                                        \
        x = x - fx * -2.12194440e-4f;                                                     \
        VF z = x * x, y = zero + 1.9875691500e-4f;                                        \
        y = y * x + 1.3981999507e-3f;                                                     \
        y = y * x + 8.3334519073e-3f;                                                     \
        y = y * x + 4.1665795894e-2f;                                                     \
        y = y * x + 1.6666665459e-1f;                                                     \
        y = y * x + 5.0000001201e-1f;                                                     \
        y = y * z + x + 1.0f;                                                             \
        VI n = (__builtin_convertvector(fx, VI) + 127) << 23;                             \
        *px = y * (VF)n;                                                                  \
    }

#endif
