/* i8-scalar.c - I8 packing and the portable path (the oracle of the SIMD
 * twins in i8-simd.h).  Layout in i8.h. */
#include "i8.h"

#include <string.h>

#include "../common/mp_numerics.h"

size_t mp_i8_packed_size(int m, int k, const int *param)
{
    (void)param;
    return (size_t)m * mp_i8_row_bytes(k) + 64;
}

void mp_i8_pack(const int8_t *w, float w_scale, int m, int k, const int *param, uint8_t *out)
{
    (void)param;
    const size_t rb = mp_i8_row_bytes(k);
    for (int r = 0; r < m; r++) {
        uint8_t *o = out + (size_t)r * rb;
        for (int j = 0; j < k; j++)
            o[j] = (uint8_t)(w[(size_t)r * k + j] ^ 0x80);
        memset(o + k, 0x80, rb - (size_t)k); /* the code of weight 0 */
    }
    uint8_t *trailer = out + (size_t)m * rb;
    memset(trailer, 0, 64);
    memcpy(trailer, &w_scale, sizeof w_scale);
}

void mp_i8_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w)
{
    (void)param;
    const size_t rb = mp_i8_row_bytes(k);
    for (int r = 0; r < m; r++)
        for (int j = 0; j < k; j++)
            w[(size_t)r * k + j] = (int8_t)(p[(size_t)r * rb + j] ^ 0x80);
}

size_t mp_i8_act_size(int n, int k, const int *param)
{
    (void)param;
    return mp_q8act_size(n, k);
}

void mp_i8_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1)
{
    (void)n;
    mp_q8act_fill(x, op->k, act, t0, t1);
}

void mp_i8_gemm__scalar(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                        void *scratch)
{
    (void)scratch;
    const int k = op->k;
    const size_t rb = mp_i8_row_bytes(k);
    for (int r = m0; r < m1; r++) {
        const uint8_t *wr = op->w + (size_t)r * rb;
        for (int t = 0; t < n; t++) {
            const mp_q8hdr *h = mp_q8act_hdr(act, k, t);
            const int8_t *q = mp_q8act_q(act, k, t);
            int32_t s = 0;
            for (int j = 0; j < k; j++)
                s += (int32_t)wr[j] * q[j];
            y[(size_t)t * op->m + r] = mp_dequant(s - 128 * h->qsum, op->w_scale, h->x_scale);
        }
    }
}
