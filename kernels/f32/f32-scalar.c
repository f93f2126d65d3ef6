/* f32-scalar.c - F32 packing and the portable path. Layout: M x K floats, row-major. */
#include "f32.h"

#include "../common/mp_numerics.h"

size_t mp_f32_packed_size(int m, int k, const int *param)
{
    (void)param;
    return (size_t)m * k * sizeof(float);
}

void mp_f32_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                 uint8_t *out)
{
    (void)param;
    float *o = (float *)out;
    for (size_t i = 0; i < (size_t)m * k; i++)
        o[i] = (float)w[i] * w_scale;
}

size_t mp_f32_act_size(int n, int k, const int *param)
{
    (void)n, (void)k, (void)param;
    return sizeof(const float *);
}

void mp_f32_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1)
{
    (void)op, (void)n;
    if (t0 == 0 && t1 > t0)
        *(const float **)act = x;
}

void mp_f32_gemm__scalar(const mp_op *op, const void *act, int n, float *y, int m0,
                         int m1, void *scratch)
{
    (void)scratch;
    const float *x = mp_f32_act_x(act);
    const float *w = (const float *)op->w;
    for (int t = 0; t < n; t++)
        for (int r = m0; r < m1; r++) {
            const float *wr = w + (size_t)r * op->k, *xt = x + (size_t)t * op->k;
            float s = 0.0f;
            for (int i = 0; i < op->k; i++)
                s += wr[i] * xt[i];
            y[(size_t)t * op->m + r] = s;
        }
}
