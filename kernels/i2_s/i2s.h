/* i2s.h - I2_S: bitnet.cpp's 2-bit MAD format (seed 004 §2, seed 000 §2.3).
 *
 * Layout (ours, modelled on bitnet.cpp's x86 I2_S): each row is K/128 blocks of
 * 32 bytes; byte j of a block holds the codes (w + 1) of weights j, 32+j, 64+j and
 * 96+j of the block in bits 7-6, 5-4, 3-2 and 1-0.  After the M rows comes a
 * 32-byte trailer whose first 4 bytes are the float tensor scale.  K % 128 == 0.
 * The kernel computes sum(code * q) - sum(q) = sum(w * q) exactly: lossless.
 */
#ifndef MP_I2S_H
#define MP_I2S_H

#include "../mp_kernel.h"

size_t mp_i2s_packed_size(int m, int k, const int *param);
void mp_i2s_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                 uint8_t *out);
void mp_i2s_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w);
size_t mp_i2s_act_size(int n, int k, const int *param);
void mp_i2s_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1);

MP_DECLARE_COMPUTE(mp_i2s_gemm); /* mp_i2s_gemm__<isa>, one per kernel file */

#endif
