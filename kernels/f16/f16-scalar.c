/* f16-scalar.c - F16 packing and the portable path, the oracle of the AVX2 and
 * AVX-512 paths: it sums in the 16-lane order of f16.h so that they match it bit
 * for bit.  Portable C, no ISA flags. */
#include "f16.h"

size_t mp_f16_packed_size(int m, int k, const int *param)
{
    (void)param;
    return (size_t)m * (size_t)k * 2;
}

void mp_f16_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                 uint8_t *out)
{
    (void)param;
    /* w is ternary: only three products exist, round each once */
    const uint16_t half[3] = {mp_fp16_from_f32(-1.0f * w_scale), mp_fp16_from_f32(0.0f * w_scale),
                              mp_fp16_from_f32(w_scale)};
    for (size_t i = 0; i < (size_t)m * k; i++)
        memcpy(out + 2 * i, &half[w[i] + 1], 2);
}

/* The weights back as signs of the stored halves (the scale is not recovered). */
void mp_f16_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w)
{
    (void)param;
    for (size_t i = 0; i < (size_t)m * k; i++) {
        uint16_t h;
        memcpy(&h, p + 2 * i, 2);
        float f = mp_fp16_to_f32(h);
        w[i] = (int8_t)(f > 0 ? 1 : f < 0 ? -1 : 0);
    }
}

size_t mp_f16_act_size(int n, int k, const int *param)
{
    (void)n, (void)k, (void)param;
    return sizeof(const float *);
}

/* Float activations are used as they are: the buffer records where X is. */
void mp_f16_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1)
{
    (void)op, (void)n;
    if (t0 == 0 && t1 > t0)
        *(const float **)act = x;
}

/* Y[t][r] = sum_i half(W[r][i]) * X[t][i] in the lane order of f16.h.  Any K,
 * any row range; no over-reads. */
void mp_f16_gemm__scalar(const mp_op *op, const void *act, int n, float *y, int m0,
                         int m1, void *scratch)
{
    (void)scratch;
    const int k = op->k, kv = k - k % 16;
    const float *x = mp_f16_act_x(act);
    for (int r = m0; r < m1; r++) {
        const uint8_t *wr = op->w + (size_t)r * k * 2;
        for (int t = 0; t < n; t++) {
            const float *xt = x + (size_t)t * k;
            float lane[16] = {0};
            for (int i = 0; i < kv; i += 16)
                for (int l = 0; l < 16; l++) {
                    uint16_t h;
                    memcpy(&h, wr + 2 * (size_t)(i + l), 2);
                    float p = mp_fp16_to_f32(h) * xt[i + l];
                    lane[l] = lane[l] + p;
                }
            float s = mp_mad_fold16(lane);
            for (int i = kv; i < k; i++) {
                uint16_t h;
                memcpy(&h, wr + 2 * (size_t)i, 2);
                float p = mp_fp16_to_f32(h) * xt[i];
                s = s + p;
            }
            y[(size_t)t * op->m + r] = s;
        }
    }
}
