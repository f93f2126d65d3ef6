/* naive2.h - NAIVE2: the pure-C ternary kernel of seed 002 ("BitNet 1.58bit
 * Inference in Pure C"): codes 00 = 0, 01 = +1, 10 = -1, four weights per byte,
 * weight i of a byte in bits 2i+1..2i, ceil(K/4) bytes per row, unpacked one weight
 * at a time.  It is the floor every other kernel is measured against.  A 32-byte
 * trailer holds the float tensor scale.  Any K. Lossless. */
#ifndef MP_NAIVE2_H
#define MP_NAIVE2_H

#include "../mp_kernel.h"

size_t mp_naive2_packed_size(int m, int k, const int *param);
void mp_naive2_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                    uint8_t *out);
void mp_naive2_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w);
MP_DECLARE_COMPUTE(mp_naive2_gemm); /* mp_naive2_gemm__<isa>, one per kernel file */

#endif
