/* i8.h - I8: int8 weights times int8 activations, the int8 GEMV/GEMM that seed
 * 003 §IV-B measures its int2 kernels against ("within 10-20% of the int8
 * roofline"): the same dot-product instructions with no up-convert step, 8 bits
 * per weight streamed from memory.
 *
 * Layout: M rows of K int8 weights, each stored offset by 128 (w ^ 0x80, an
 * unsigned byte: VNNI's vpdpbusd multiplies unsigned by signed bytes), every
 * row padded to a multiple of 64 bytes with the code of 0; then a 64-byte
 * trailer whose first 4 bytes are the float tensor scale.  Any K.
 *
 * Activations are the MAD kernels' int8 tokens (mp_numerics.h: per-token absmax
 * scale and the sum of q).  sum((w + 128) * q) - 128 * sum(q) = sum(w * q)
 * exactly in int32 (|acc| <= 255 * 127 * K), so every path is lossless against
 * the reference.  The weights the harness hands over are ternary; the format
 * holds any int8 in [-127, 127]. */
#ifndef MP_I8_H
#define MP_I8_H

#include "../mp_kernel.h"

/* Bytes of one packed row: K rounded up to 64. */
static inline size_t mp_i8_row_bytes(int k)
{
    return ((size_t)k + 63) & ~(size_t)63;
}

size_t mp_i8_packed_size(int m, int k, const int *param);
void mp_i8_pack(const int8_t *w, float w_scale, int m, int k, const int *param, uint8_t *out);
void mp_i8_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w);
size_t mp_i8_act_size(int n, int k, const int *param);
void mp_i8_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1);

void mp_i8_gemm__scalar(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                        void *scratch);
void mp_i8_gemm__avx2(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                      void *scratch);
void mp_i8_gemm__avxvnni(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                         void *scratch);
void mp_i8_gemm__avx512vnni(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                            void *scratch);

#endif
