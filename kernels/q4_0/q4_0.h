/* q4_0.h - Q4_0: llama.cpp's 4-bit block format (ggml's block_q4_0), multiplied
 * with Q8_0 activation blocks (kernels/q8_0/q8_0.h) as llama.cpp does.
 *
 * Layout, byte for byte ggml's: each row is K/32 blocks of 18 bytes, {fp16 d;
 * uint8 qs[16]}; weight j < 16 is the low nibble of qs[j], weight j >= 16 the
 * high nibble of qs[j - 16]; value = (nibble - 8) * d.  Quantization as ggml's
 * quantize_row_q4_0_ref: max = the first element of largest magnitude (with its
 * sign), d = max / -8, nibble = min(15, (int8)(x / d + 8.5)).  On ternary
 * weights w * s this keeps ggml's asymmetry: weights of the sign of `max` are
 * exact (nibble 0 -> -8d = max), those of the other sign saturate at nibble 15
 * and come back as 7/8 of their value.  That is what llama.cpp stores for a
 * ternary model, so the error is reported, not hidden.  K % 32 == 0.  4.5 bpw.
 *
 * Summation order: as Q8_0 (q8_0.h), with (nibble - 8) as the weight.  The SIMD
 * paths form sum(nibble * q) - 8 * sum(q) per int32 lane, the same integer. */
#ifndef MP_Q4_0_H
#define MP_Q4_0_H

#include "../q8_0/q8_0.h"

enum { MP_Q40_QK = 32, MP_Q40_BYTES = 18 };

typedef struct mp_block_q4_0 {
    uint16_t d; /* fp16 */
    uint8_t qs[MP_Q40_QK / 2];
} mp_block_q4_0;
_Static_assert(sizeof(mp_block_q4_0) == MP_Q40_BYTES, "block_q4_0 is 18 bytes");

size_t mp_q4_0_packed_size(int m, int k, const int *param);
void mp_q4_0_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                  uint8_t *out);
/* ggml's quantize_row_q4_0_ref on one row of k floats (pack's oracle). */
void mp_q4_0_quant_ref(const float *x, int k, uint8_t *out);
void mp_q4_0_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w);

MP_DECLARE_COMPUTE(mp_q4_0_gemm); /* mp_q4_0_gemm__<isa>, one per kernel file */

#endif
