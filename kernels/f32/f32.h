/* f32.h - F32: the float baseline (DESIGN.md "Numerics"): weights dequantized
 * to float (w * scale) once at pack time, multiplied with float activations and
 * accumulated in float.  Its error is judged against a double-precision product.
 * The activation buffer just records where X is: there is no per-call work. */
#ifndef MP_F32_H
#define MP_F32_H

#include "../mp_kernel.h"

size_t mp_f32_packed_size(int m, int k, const int *param);
void mp_f32_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                 uint8_t *out);
size_t mp_f32_act_size(int n, int k, const int *param);
void mp_f32_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1);

/* one per ISA file: f32-scalar.c, f32-avx2.c, f32-avx512.c (f32-simd.h) */
MP_DECLARE_COMPUTE(mp_f32_gemm);

static inline const float *mp_f32_act_x(const void *act)
{
    return *(const float *const *)act;
}

#endif
