/* mp_fp16.h - portable IEEE half <-> float conversions, exact to the bit: the
 * MAD formats' scales and F16 weights (kernels/f16/f16.h) and the GGUF files
 * the harness writes and reads share them. */
#ifndef MP_FP16_H
#define MP_FP16_H

#include <stdint.h>
#include <string.h>

/* fp16 bits -> float, exact (what F16C's vcvtph2ps computes).  Branch-free so
 * the scalar paths vectorize: the exponent/mantissa bits moved into float
 * position and scaled by 2^112 give every finite half exactly (subnormals
 * included); inf and NaN get their all-ones exponent back. */
static inline float mp_fp16_to_f32(uint16_t h)
{
    uint32_t mag = (uint32_t)(h & 0x7fff) << 13, sign = (uint32_t)(h & 0x8000) << 16;
    float f, scale = 0x1p112f;
    memcpy(&f, &mag, sizeof f);
    f *= scale;
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    if ((h & 0x7c00) == 0x7c00)
        bits = 0x7f800000u | mag;
    bits |= sign;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* float -> fp16 bits, round to nearest even (what vcvtps2ph with imm 0 does). */
static inline uint16_t mp_fp16_from_f32(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000, ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) /* inf, nan (quiet) */
        return (uint16_t)(sign | 0x7c00 | (ax > 0x7f800000u ? 0x200 : 0));
    if (ax >= 0x477ff000u) /* rounds to >= 65520: overflow to inf */
        return (uint16_t)(sign | 0x7c00);
    if (ax < 0x38800000u) { /* below 2^-14: subnormal half (or zero) */
        if (ax < 0x33000000u)
            return (uint16_t)sign;
        uint32_t m = (ax & 0x7fffff) | 0x800000;
        int shift = 126 - (int)(ax >> 23); /* 14..24 */
        uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (q & 1)))
            q++;
        return (uint16_t)(sign | q);
    }
    uint32_t q = ((ax >> 13) - (112u << 10)), rem = ax & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (q & 1)))
        q++;
    return (uint16_t)(sign | q);
}

#endif
