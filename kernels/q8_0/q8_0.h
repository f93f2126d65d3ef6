/* q8_0.h - Q8_0: llama.cpp's 8-bit block format (ggml's block_q8_0), and the
 * Q8_0 activation blocks that both Q8_0 and Q4_0 weights are multiplied with
 * (seed 000 §2.3, seed 004 Tables 4-5 baselines).
 *
 * Weight layout, byte for byte ggml's: each row is K/32 blocks of 34 bytes,
 * {fp16 d; int8 qs[32]}, weight j of the block = qs[j] * d.  Quantization as
 * ggml's quantize_row_q8_0_ref: d = amax/127, qs = roundf(x / d).  For ternary
 * weights w * s every nonzero weight becomes qs = +-127, d = fp16(s/127).
 * K % 32 == 0.  8.5 bpw.
 *
 * Activations, as llama.cpp's x86 quantize_row_q8_0: per 32 floats, d =
 * fp16(amax/127) and q = round-half-even(x * 127/amax).  We keep the same
 * numbers in a kernel-friendly layout: per token, the K/32 block scales already
 * widened to float (mp_q80act_d), then the K int8 contiguous (mp_q80act_q).
 *
 * Summation order (the contract all ISA paths follow, see f16.h): per block b,
 * the 32 products are summed exactly in 8 int32 lanes (lane l = elements
 * 4l..4l+3); each lane is converted to float, multiplied by db = dw_b * dx_b and
 * added to float lane (b % 2) * 8 + l; the 16 lanes are folded by
 * mp_mad_fold16().  This is llama.cpp's own scheme (float lanes, no per-block
 * horizontal sum) with a fixed order, so SIMD equals scalar bit for bit. */
#ifndef MP_Q8_0_H
#define MP_Q8_0_H

#include <stddef.h>
#include <stdint.h>

#include "../mp_kernel.h"
#include "../f16/f16.h"

enum { MP_Q80_QK = 32, MP_Q80_BYTES = 34 };

typedef struct mp_block_q8_0 {
    uint16_t d; /* fp16 */
    int8_t qs[MP_Q80_QK];
} mp_block_q8_0;
_Static_assert(sizeof(mp_block_q8_0) == MP_Q80_BYTES, "block_q8_0 is 34 bytes");

/* ---- Q8_0 activations (shared with Q4_0) ---- */
static inline size_t mp_q80act_dbytes(int k)
{
    return ((size_t)(k / MP_Q80_QK) * sizeof(float) + 63) & ~(size_t)63;
}
static inline size_t mp_q80act_stride(int k)
{
    return mp_q80act_dbytes(k) + (((size_t)k + 63) & ~(size_t)63);
}
static inline const float *mp_q80act_d(const void *act, int k, int t)
{
    return (const float *)((const uint8_t *)act + (size_t)t * mp_q80act_stride(k));
}
static inline const int8_t *mp_q80act_q(const void *act, int k, int t)
{
    return (const int8_t *)((const uint8_t *)act + (size_t)t * mp_q80act_stride(k) +
                            mp_q80act_dbytes(k));
}
size_t mp_q80act_size(int n, int k, const int *param);
/* Quantizes tokens [t0, t1) of X into the layout above (llama.cpp x86 rounding). */
void mp_q80act_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1);
/* Quantizes one block of 32 floats: returns d (fp16-rounded, widened) and q. */
float mp_q80_quant_block(const float *x, int8_t *q);

size_t mp_q8_0_packed_size(int m, int k, const int *param);
void mp_q8_0_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                  uint8_t *out);
/* ggml's quantize_row_q8_0_ref on one row of k floats (pack's oracle). */
void mp_q8_0_quant_ref(const float *x, int k, uint8_t *out);
void mp_q8_0_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w);

MP_DECLARE_COMPUTE(mp_q8_0_gemm); /* mp_q8_0_gemm__<isa>, one per kernel file */

#endif
