/* tq.h - TQ1_0 and TQ2_0: llama.cpp's ternary formats (compilade's, PR #8151),
 * the MAD baselines of seed 000 Table 7 and seed 004 Tables 4-5, with
 * activations in Q8_K blocks as llama.cpp multiplies them.
 *
 * Both layouts are ggml's byte for byte, blocks of 256 weights, block b of row r
 * at (r * K/256 + b) * bytes:
 *   TQ2_0, 66 bytes (2.0625 bpw): {uint8 qs[64]; fp16 d}.  Byte 32*h + m holds
 *     the codes (w + 1) of weights 128*h + 32*n + m, n = 0..3, in bits 2n+1..2n.
 *   TQ1_0, 54 bytes (1.6875 bpw): {uint8 qs[48]; uint8 qh[4]; fp16 d}.  A byte
 *     holding trits c0..c4 (c = w + 1, c0 most significant) stores
 *     ceil(256 * (81 c0 + 27 c1 + 9 c2 + 3 c3 + c4) / 243); trit n comes back as
 *     ((uint8)(byte * 3^n) * 3) >> 8.  qs[m], m < 32: weights m + 32n (n = 0..4);
 *     qs[32 + m], m < 16: weights 160 + m + 16n; qh[j]: weights 240 + j + 4n
 *     (n = 0..3, the fifth trit is 0).
 *   d = fp16(amax of the block's w * s): s itself unless the block is all zero.
 * Q8_K activations, ggml's block_q8_K (292 bytes): {float d; int8 qs[256];
 * int16 bsums[16]}, quantize_row_q8_K_ref rules: iscale = -127 / (the first
 * element of largest magnitude), q = min(127, round-half-even(iscale * x)),
 * d = 1 / iscale, bsums = sums of 16 consecutive q.
 *
 * Arithmetic (all ISA paths): per block, the exact int32 dot of the ternary
 * weights with q (SIMD: sum of (w + 1) * q minus the bsums); then, block by
 * block in order, acc = acc + (float)dot * (dw * dx).  Both formats give the
 * same dots and scales for the same weights, hence the same outputs. */
#ifndef MP_TQ_H
#define MP_TQ_H

#include <stddef.h>
#include <stdint.h>

#include "../mp_kernel.h"
#include "../f16/f16.h"

enum {
    MP_QK_K = 256,
    MP_TQ1_BYTES = 54,
    MP_TQ2_BYTES = 66,
    MP_Q8K_BYTES = 292,
};

typedef struct mp_block_tq1_0 {
    uint8_t qs[48];
    uint8_t qh[4];
    uint16_t d;
} mp_block_tq1_0;
typedef struct mp_block_tq2_0 {
    uint8_t qs[64];
    uint16_t d;
} mp_block_tq2_0;
typedef struct mp_block_q8_K {
    float d;
    int8_t qs[MP_QK_K];
    int16_t bsums[16];
} mp_block_q8_K;
_Static_assert(sizeof(mp_block_tq1_0) == MP_TQ1_BYTES, "block_tq1_0 is 54 bytes");
_Static_assert(sizeof(mp_block_tq2_0) == MP_TQ2_BYTES, "block_tq2_0 is 66 bytes");
_Static_assert(sizeof(mp_block_q8_K) == MP_Q8K_BYTES, "block_q8_K is 292 bytes");

/* Q8_K activations: token t's K/256 blocks start at t * mp_q8k_stride(k). */
static inline size_t mp_q8k_stride(int k)
{
    return ((size_t)(k / MP_QK_K) * MP_Q8K_BYTES + 63) & ~(size_t)63;
}
static inline const mp_block_q8_K *mp_q8k_token(const void *act, int k, int t)
{
    return (const mp_block_q8_K *)((const uint8_t *)act + (size_t)t * mp_q8k_stride(k));
}
void mp_q8k_quant_block(const float *x, mp_block_q8_K *out);
size_t mp_q8k_act_size(int n, int k, const int *param);
void mp_q8k_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1);

/* The exact int32 dots of nblk consecutive weight blocks of one row with nblk
 * Q8_K blocks (the integer part of the product; scalar). */
void mp_tq1_0_block_dots(const uint8_t *row, const mp_block_q8_K *a, int nblk, int32_t *out);
void mp_tq2_0_block_dots(const uint8_t *row, const mp_block_q8_K *a, int nblk, int32_t *out);

/* ggml's quantize_row_tq{1,2}_0_ref on one row of k floats (pack's oracle). */
void mp_tq1_0_quant_ref(const float *x, int k, uint8_t *out);
void mp_tq2_0_quant_ref(const float *x, int k, uint8_t *out);

size_t mp_tq1_0_packed_size(int m, int k, const int *param);
void mp_tq1_0_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                   uint8_t *out);
void mp_tq1_0_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w);
size_t mp_tq2_0_packed_size(int m, int k, const int *param);
void mp_tq2_0_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                   uint8_t *out);
void mp_tq2_0_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w);

MP_DECLARE_COMPUTE(mp_tq1_0_gemm); /* mp_tq1_0_gemm__<isa>, one per kernel file */
MP_DECLARE_COMPUTE(mp_tq2_0_gemm); /* mp_tq2_0_gemm__<isa>, one per kernel file */

/* fp16 block scale of a packed block (d is the last 2 bytes of both formats). */
static inline float mp_tq_block_d(const uint8_t *blk, int bytes)
{
    uint16_t h;
    memcpy(&h, blk + bytes - 2, 2);
    return mp_fp16_to_f32(h);
}

#endif
