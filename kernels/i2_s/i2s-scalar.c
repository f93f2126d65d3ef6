/* i2s-scalar.c - I2_S packing and the portable path (the oracle for the SIMD
 * paths).  Layout in i2s.h. */
#include "i2s.h"

#include <string.h>

#include "../common/mp_numerics.h"

size_t mp_i2s_packed_size(int m, int k, const int *param)
{
    (void)param;
    return (size_t)m * (size_t)k / 4 + 32;
}

void mp_i2s_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                 uint8_t *out)
{
    (void)param;
    size_t row_bytes = (size_t)k / 4;
    for (int r = 0; r < m; r++) {
        const int8_t *wr = w + (size_t)r * k;
        uint8_t *o = out + (size_t)r * row_bytes;
        for (int b = 0; b < k / 128; b++) {
            for (int j = 0; j < 32; j++) {
                const int8_t *g = wr + b * 128 + j;
                o[b * 32 + j] = (uint8_t)(((g[0] + 1) << 6) | ((g[32] + 1) << 4) |
                                          ((g[64] + 1) << 2) | (g[96] + 1));
            }
        }
    }
    uint8_t *trailer = out + (size_t)m * row_bytes;
    memset(trailer, 0, 32);
    memcpy(trailer, &w_scale, sizeof w_scale);
}

void mp_i2s_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w)
{
    (void)param;
    size_t row_bytes = (size_t)k / 4;
    for (int r = 0; r < m; r++) {
        const uint8_t *pr = p + (size_t)r * row_bytes;
        int8_t *wr = w + (size_t)r * k;
        for (int b = 0; b < k / 128; b++)
            for (int j = 0; j < 32; j++) {
                uint8_t v = pr[b * 32 + j];
                for (int s = 0; s < 4; s++)
                    wr[b * 128 + s * 32 + j] = (int8_t)(((v >> (6 - 2 * s)) & 3) - 1);
            }
    }
}

size_t mp_i2s_act_size(int n, int k, const int *param)
{
    (void)param;
    return mp_q8act_size(n, k);
}

void mp_i2s_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1)
{
    (void)n;
    mp_q8act_fill(x, op->k, act, t0, t1);
}

void mp_i2s_gemm__scalar(const mp_op *op, const void *act, int n, float *y, int m0,
                         int m1, void *scratch)
{
    (void)scratch;
    const int k = op->k;
    const size_t row_bytes = (size_t)k / 4;
    for (int t = 0; t < n; t++) {
        const mp_q8hdr *h = mp_q8act_hdr(act, k, t);
        const int8_t *q = mp_q8act_q(act, k, t);
        for (int r = m0; r < m1; r++) {
            const uint8_t *pr = op->w + (size_t)r * row_bytes;
            int32_t s = 0;
            for (int b = 0; b < k / 128; b++) {
                const int8_t *qb = q + b * 128;
                for (int j = 0; j < 32; j++) {
                    unsigned v = pr[b * 32 + j];
                    s += (int32_t)(v >> 6) * qb[j] + (int32_t)((v >> 4) & 3) * qb[32 + j] +
                         (int32_t)((v >> 2) & 3) * qb[64 + j] + (int32_t)(v & 3) * qb[96 + j];
                }
            }
            y[(size_t)t * op->m + r] = mp_dequant(s - h->qsum, op->w_scale, h->x_scale);
        }
    }
}
