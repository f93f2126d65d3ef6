/* naive2-scalar.c - seed 002's naive 2-bit packing and scalar matmul (layout in
 * naive2.h).  Deliberately written the way the blog writes it: one weight decoded
 * per step with a branch-free table of the three codes. */
#include "naive2.h"

#include <string.h>

#include "../common/mp_numerics.h"

static size_t row_bytes(int k)
{
    return ((size_t)k + 3) / 4;
}

size_t mp_naive2_packed_size(int m, int k, const int *param)
{
    (void)param;
    return (size_t)m * row_bytes(k) + 32;
}

void mp_naive2_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                    uint8_t *out)
{
    (void)param;
    size_t rb = row_bytes(k);
    memset(out, 0, mp_naive2_packed_size(m, k, param));
    for (int r = 0; r < m; r++)
        for (int i = 0; i < k; i++) {
            int v = w[(size_t)r * k + i];
            unsigned code = v == 1 ? 1u : v == -1 ? 2u : 0u;
            out[(size_t)r * rb + i / 4] |= (uint8_t)(code << (2 * (i % 4)));
        }
    memcpy(out + (size_t)m * rb, &w_scale, sizeof w_scale);
}

void mp_naive2_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w)
{
    (void)param;
    static const int8_t val[4] = {0, 1, -1, 0};
    size_t rb = row_bytes(k);
    for (int r = 0; r < m; r++)
        for (int i = 0; i < k; i++)
            w[(size_t)r * k + i] = val[(p[(size_t)r * rb + i / 4] >> (2 * (i % 4))) & 3];
}

void mp_naive2_gemm__scalar(const mp_op *op, const void *act, int n, float *y, int m0,
                            int m1, void *scratch)
{
    (void)scratch;
    static const int8_t val[4] = {0, 1, -1, 0};
    const int k = op->k;
    const size_t rb = row_bytes(k);
    for (int t = 0; t < n; t++) {
        const mp_q8hdr *h = mp_q8act_hdr(act, k, t);
        const int8_t *q = mp_q8act_q(act, k, t);
        for (int r = m0; r < m1; r++) {
            const uint8_t *pr = op->w + (size_t)r * rb;
            int32_t s = 0;
            for (int i = 0; i < k; i++)
                s += val[(pr[i / 4] >> (2 * (i % 4))) & 3] * q[i];
            y[(size_t)t * op->m + r] = mp_dequant(s, op->w_scale, h->x_scale);
        }
    }
}
