/* q8_0-scalar.c - Q8_0 packing (ggml's quantize_row_q8_0_ref rules), the Q8_0
 * activation quantizer shared with Q4_0 (llama.cpp's x86 rules), and the
 * portable path: the oracle of the AVX2/AVX-512 paths, in the summation order
 * of q8_0.h.  Portable C, no ISA flags. */
#include "q8_0.h"

#include <math.h>
#include <string.h>

size_t mp_q8_0_packed_size(int m, int k, const int *param)
{
    (void)param;
    return (size_t)m * (size_t)(k / MP_Q80_QK) * MP_Q80_BYTES;
}

static void quant_block_ref(const float *x, mp_block_q8_0 *blk)
{
    float amax = 0.0f;
    for (int j = 0; j < MP_Q80_QK; j++)
        amax = mp_absmax_step(amax, x[j]);
    const float d = amax / 127.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
    blk->d = mp_fp16_from_f32(d);
    for (int j = 0; j < MP_Q80_QK; j++)
        blk->qs[j] = (int8_t)mp_round_away(x[j] * id);
}

/* Packing runs over the whole tensor, so for the canonical ternary weights we
 * use what ggml's rules reduce to (the same bytes; tests compare with
 * mp_q8_0_quant_ref): with a normal scale s, a block with a
 * nonzero weight has amax = |s|, x/d = +-|s| * (127/|s|) within an ulp of 127,
 * so qs = 127 * sign(w s) and d = fp16(|s|/127); an all-zero block is d = 0. */
void mp_q8_0_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                  uint8_t *out)
{
    (void)param;
    const int nb = k / MP_Q80_QK;
    const float as = w_scale < 0 ? -w_scale : w_scale;
    const int fast = as >= 1e-30f && as <= 1e30f, sg = w_scale < 0 ? -1 : 1;
    const uint16_t dh = mp_fp16_from_f32(as / 127.0f);
    for (int r = 0; r < m; r++)
        for (int b = 0; b < nb; b++) {
            const int8_t *wb = w + (size_t)r * k + b * MP_Q80_QK;
            mp_block_q8_0 blk;
            if (fast) {
                int any = 0;
                for (int j = 0; j < MP_Q80_QK; j++) {
                    blk.qs[j] = (int8_t)(127 * sg * wb[j]);
                    any |= wb[j];
                }
                blk.d = any ? dh : 0;
            } else {
                float x[MP_Q80_QK];
                for (int j = 0; j < MP_Q80_QK; j++)
                    x[j] = (float)wb[j] * w_scale;
                quant_block_ref(x, &blk);
            }
            memcpy(out + ((size_t)r * nb + b) * MP_Q80_BYTES, &blk, MP_Q80_BYTES);
        }
}

void mp_q8_0_quant_ref(const float *x, int k, uint8_t *out)
{
    for (int b = 0; b < k / MP_Q80_QK; b++) {
        mp_block_q8_0 blk;
        quant_block_ref(x + b * MP_Q80_QK, &blk);
        memcpy(out + (size_t)b * MP_Q80_BYTES, &blk, MP_Q80_BYTES);
    }
}

/* Signs of the stored values: the ternary weights (the scale is not recovered). */
void mp_q8_0_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w)
{
    (void)param;
    const int nb = k / MP_Q80_QK;
    for (int r = 0; r < m; r++)
        for (int b = 0; b < nb; b++) {
            const uint8_t *blk = p + ((size_t)r * nb + b) * MP_Q80_BYTES;
            for (int j = 0; j < MP_Q80_QK; j++) {
                int8_t q = (int8_t)blk[2 + j];
                w[(size_t)r * k + b * MP_Q80_QK + j] = (int8_t)(q > 0 ? 1 : q < 0 ? -1 : 0);
            }
        }
}

size_t mp_q80act_size(int n, int k, const int *param)
{
    (void)param;
    return (size_t)n * mp_q80act_stride(k);
}

float mp_q80_quant_block(const float *x, int8_t *q)
{
    float amax = 0.0f;
    for (int j = 0; j < MP_Q80_QK; j++)
        amax = mp_absmax_step(amax, x[j]);
    const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
    for (int j = 0; j < MP_Q80_QK; j++)
        q[j] = (int8_t)mp_round_even(x[j] * id); /* |x * id| <= 127 by construction */
    return mp_fp16_to_f32(mp_fp16_from_f32(amax / 127.0f));
}

void mp_q80act_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1)
{
    (void)n;
    const int k = op->k, nb = k / MP_Q80_QK;
    for (int t = t0; t < t1; t++) {
        float *d = (float *)mp_q80act_d(act, k, t);
        int8_t *q = (int8_t *)mp_q80act_q(act, k, t);
        for (int b = 0; b < nb; b++)
            d[b] = mp_q80_quant_block(x + (size_t)t * k + b * MP_Q80_QK, q + b * MP_Q80_QK);
    }
}

/* Y[t][r] = sum_b dw_b dx_b sum_j qw_j qx_j for rows [m0, m1), in the order of
 * q8_0.h.  K % 32 == 0; no over-reads. */
void mp_q8_0_gemm__scalar(const mp_op *op, const void *act, int n, float *y, int m0,
                          int m1, void *scratch)
{
    (void)scratch;
    const int k = op->k, nb = k / MP_Q80_QK;
    for (int r = m0; r < m1; r++) {
        const uint8_t *wr = op->w + (size_t)r * nb * MP_Q80_BYTES;
        for (int t = 0; t < n; t++) {
            const float *dx = mp_q80act_d(act, k, t);
            const int8_t *qx = mp_q80act_q(act, k, t);
            float lane[16] = {0};
            for (int b = 0; b < nb; b++) {
                const uint8_t *blk = wr + (size_t)b * MP_Q80_BYTES;
                uint16_t h;
                memcpy(&h, blk, 2);
                const float db = mp_fp16_to_f32(h) * dx[b];
                for (int l = 0; l < 8; l++) {
                    int32_t s = 0;
                    for (int j = 4 * l; j < 4 * l + 4; j++)
                        s += (int32_t)(int8_t)blk[2 + j] * qx[b * MP_Q80_QK + j];
                    float p = (float)s * db;
                    lane[(b & 1) * 8 + l] = lane[(b & 1) * 8 + l] + p;
                }
            }
            y[(size_t)t * op->m + r] = mp_mad_fold16(lane);
        }
    }
}
