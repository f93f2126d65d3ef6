/* q4_0-scalar.c - Q4_0 packing (ggml's quantize_row_q4_0_ref rules) and the
 * portable path, the oracle of the AVX2/AVX-512 paths (order of q8_0.h).
 * Portable C, no ISA flags. */
#include "q4_0.h"

#include <math.h>
#include <string.h>

size_t mp_q4_0_packed_size(int m, int k, const int *param)
{
    (void)param;
    return (size_t)m * (size_t)(k / MP_Q40_QK) * MP_Q40_BYTES;
}

static void quant_block_ref(const float *x, mp_block_q4_0 *blk)
{
    float amax = 0.0f, max = 0.0f;
    for (int j = 0; j < MP_Q40_QK; j++) {
        float a = fabsf(x[j]);
        if (amax < a) { /* strict: the first of largest magnitude */
            amax = a;
            max = x[j];
        }
    }
    const float d = max / -8.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
    blk->d = mp_fp16_from_f32(d);
    for (int j = 0; j < MP_Q40_QK / 2; j++) {
        int lo = (int8_t)(x[j] * id + 8.5f), hi = (int8_t)(x[j + 16] * id + 8.5f);
        lo = lo < 15 ? lo : 15;
        hi = hi < 15 ? hi : 15;
        blk->qs[j] = (uint8_t)(lo | hi << 4);
    }
}

void mp_q4_0_quant_ref(const float *x, int k, uint8_t *out)
{
    for (int b = 0; b < k / MP_Q40_QK; b++) {
        mp_block_q4_0 blk;
        quant_block_ref(x + b * MP_Q40_QK, &blk);
        memcpy(out + (size_t)b * MP_Q40_BYTES, &blk, MP_Q40_BYTES);
    }
}

/* Packing runs over the whole tensor, so for the canonical ternary weights we
 * use what ggml's rules reduce to (the same bytes; tests compare with
 * mp_q4_0_quant_ref): with a normal scale, max = the block's first nonzero
 * w s, d = fp16(max / -8), and x/d + 8.5 is within ulps of 0.5 (same sign as
 * max: nibble 0), 8.5 (zero: nibble 8) or 16.5 (opposite sign: 16, clamped to
 * 15).  An all-zero block is d = -0 (ggml: 0 / -8), nibbles 8. */
void mp_q4_0_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                  uint8_t *out)
{
    (void)param;
    const int nb = k / MP_Q40_QK;
    const float as = w_scale < 0 ? -w_scale : w_scale;
    const int fast = as >= 1e-30f && as <= 1e30f;
    const uint16_t dpos = mp_fp16_from_f32(w_scale / -8.0f), dneg = mp_fp16_from_f32(-w_scale / -8.0f);
    for (int r = 0; r < m; r++)
        for (int b = 0; b < nb; b++) {
            const int8_t *wb = w + (size_t)r * k + b * MP_Q40_QK;
            mp_block_q4_0 blk;
            if (fast) {
                int first = 0;
                for (int j = 0; j < MP_Q40_QK && !first; j++)
                    first = wb[j];
                /* nibble of weight v: 0 if v == first, 15 if v == -first, else 8 */
                uint8_t nib[3];
                nib[first + 1] = 0;
                nib[1] = 8;
                nib[-first + 1] = first ? 15 : 8;
                blk.d = first == 0 ? 0x8000 /* 0 / -8 = -0 */ : first > 0 ? dpos : dneg;
                for (int j = 0; j < MP_Q40_QK / 2; j++)
                    blk.qs[j] = (uint8_t)(nib[wb[j] + 1] | nib[wb[j + 16] + 1] << 4);
            } else {
                float x[MP_Q40_QK];
                for (int j = 0; j < MP_Q40_QK; j++)
                    x[j] = (float)wb[j] * w_scale;
                quant_block_ref(x, &blk);
            }
            memcpy(out + ((size_t)r * nb + b) * MP_Q40_BYTES, &blk, MP_Q40_BYTES);
        }
}

/* Signs of the stored values (nibble - 8) * d: the ternary weights. */
void mp_q4_0_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w)
{
    (void)param;
    const int nb = k / MP_Q40_QK;
    for (int r = 0; r < m; r++)
        for (int b = 0; b < nb; b++) {
            const uint8_t *blk = p + ((size_t)r * nb + b) * MP_Q40_BYTES;
            uint16_t h;
            memcpy(&h, blk, 2);
            const float d = mp_fp16_to_f32(h);
            for (int j = 0; j < MP_Q40_QK; j++) {
                int nib = j < 16 ? blk[2 + j] & 15 : blk[2 + j - 16] >> 4;
                float v = (float)(nib - 8) * d;
                w[(size_t)r * k + b * MP_Q40_QK + j] = (int8_t)(v > 0 ? 1 : v < 0 ? -1 : 0);
            }
        }
}

/* Y[t][r] = sum_b dw_b dx_b sum_j (nib_j - 8) qx_j for rows [m0, m1), in the
 * order of q8_0.h.  K % 32 == 0; no over-reads. */
void mp_q4_0_gemm__scalar(const mp_op *op, const void *act, int n, float *y, int m0,
                          int m1, void *scratch)
{
    (void)scratch;
    const int k = op->k, nb = k / MP_Q40_QK;
    for (int r = m0; r < m1; r++) {
        const uint8_t *wr = op->w + (size_t)r * nb * MP_Q40_BYTES;
        for (int t = 0; t < n; t++) {
            const float *dx = mp_q80act_d(act, k, t);
            const int8_t *qx = mp_q80act_q(act, k, t);
            float lane[16] = {0};
            for (int b = 0; b < nb; b++) {
                const uint8_t *blk = wr + (size_t)b * MP_Q40_BYTES;
                uint16_t h;
                memcpy(&h, blk, 2);
                const float db = mp_fp16_to_f32(h) * dx[b];
                for (int l = 0; l < 8; l++) {
                    int32_t s = 0;
                    for (int j = 4 * l; j < 4 * l + 4; j++) {
                        int nib = j < 16 ? blk[2 + j] & 15 : blk[2 + j - 16] >> 4;
                        s += (nib - 8) * qx[b * MP_Q40_QK + j];
                    }
                    float p = (float)s * db;
                    lane[(b & 1) * 8 + l] = lane[(b & 1) * 8 + l] + p;
                }
            }
            y[(size_t)t * op->m + r] = mp_mad_fold16(lane);
        }
    }
}
