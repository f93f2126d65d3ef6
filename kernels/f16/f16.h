/* f16.h - F16: llama.cpp's half-precision baseline (seed 000 Table 7, seed 004
 * Tables 4-5).  Weights w * scale are rounded once, at pack time, to IEEE fp16
 * (round to nearest even, as ggml's FP32_TO_FP16); activations stay float.
 * Layout: M x K fp16 row-major, nothing else (16 bpw).  Any K.
 *
 * Summation order is part of the contract so that every ISA path equals the
 * scalar one bit for bit (sibling_tol 0): each output is summed in 16 float
 * lanes, element i of the first K - K % 16 going to lane i % 16 with a separate
 * multiply then add (no FMA); the lanes are folded by mp_mad_fold16(); the
 * K % 16 tail elements are then added one by one in order.
 *
 * This header also holds the 16-lane fold that the other MAD formats (Q8_0,
 * Q4_0, TQ1_0, TQ2_0) share; the fp16 conversions are in common/mp_fp16.h. */
#ifndef MP_F16_H
#define MP_F16_H

#include <stdint.h>
#include <string.h>

#include "../mp_kernel.h"
#include "../common/mp_fp16.h"

/* The fixed fold of 16 float lanes every MAD path uses: lane i + lane i+8,
 * then i + i+4, i + i+2, i + i+1 (the order a 512 -> 256 -> 128 -> 64 -> 32
 * bit reduction gives). */
static inline float mp_mad_fold16(const float a[16])
{
    float s8[8], s4[4], s2[2];
    for (int i = 0; i < 8; i++)
        s8[i] = a[i] + a[i + 8];
    for (int i = 0; i < 4; i++)
        s4[i] = s8[i] + s8[i + 4];
    for (int i = 0; i < 2; i++)
        s2[i] = s4[i] + s4[i + 2];
    return s2[0] + s2[1];
}

/* Rounding helpers for the quantizers, inline because without SSE4.1 the libm
 * calls (roundf, nearbyintf) dominate packing and activation quantization.
 * Both are exact for |x| < 2^22, which is all the quantizers feed them. */
/* roundf: half away from zero (ggml's quantize_row_q8_0_ref, lroundf). */
static inline int mp_round_away(float x)
{
    int i = (int)x; /* truncates */
    float frac = x - (float)i;
    return i + (frac >= 0.5f) - (frac <= -0.5f);
}
/* round half to even, ggml's nearest_int (and vroundps/nearbyintf). */
static inline int mp_round_even(float x)
{
    float v = x + 12582912.0f; /* 1.5 * 2^23: the float spacing becomes 1 */
    return (int)(v - 12582912.0f);
}
static inline float mp_absmax_step(float amax, float v)
{
    float a = __builtin_fabsf(v); /* clears the sign of -0 too; inlined */
    return amax > a ? amax : a;   /* ggml's MAX(amax, fabsf(v)) */
}

size_t mp_f16_packed_size(int m, int k, const int *param);
void mp_f16_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                 uint8_t *out);
void mp_f16_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w);
size_t mp_f16_act_size(int n, int k, const int *param);
void mp_f16_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1);

MP_DECLARE_COMPUTE(mp_f16_gemm); /* mp_f16_gemm__<isa>, one per kernel file */

static inline const float *mp_f16_act_x(const void *act)
{
    return *(const float *const *)act;
}

#endif
