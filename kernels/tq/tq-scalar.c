/* tq-scalar.c - TQ1_0 / TQ2_0 packing (ggml's quantize_row_tq{1,2}_0_ref
 * rules), the Q8_K activation quantizer (quantize_row_q8_K_ref rules), and the
 * portable paths, the oracles of the AVX2/AVX-512 paths.  Layouts in tq.h.
 * Portable C, no ISA flags. */
#include "tq.h"

#include <math.h>
#include <string.h>

/* ---- packing ------------------------------------------------------------ */

/* ggml's block quantization common to both formats, on floats: d = amax,
 * codes lround(x/d) + 1. */
static float codes_ref(const float *x, uint8_t code[MP_QK_K])
{
    float amax = 0.0f;
    for (int j = 0; j < MP_QK_K; j++)
        amax = mp_absmax_step(amax, x[j]);
    const float id = amax != 0.0f ? 1.0f / amax : 0.0f;
    for (int j = 0; j < MP_QK_K; j++)
        code[j] = (uint8_t)(mp_round_away(x[j] * id) + 1);
    return amax;
}

/* The same for ternary weights w times a scale s; packing runs over the whole
 * tensor, so we use what the rules reduce to (same bytes; tests compare with
 * mp_tq*_0_quant_ref): for a normal s, amax = |s| if the block has a nonzero
 * weight, x/d = w s/|s| within an ulp of +-1, so code = sign(s) w + 1 and
 * d = |s|; an all-zero block has d = 0, codes 1.  Returns d. */
static float tq_codes(const int8_t *w, float w_scale, uint8_t code[MP_QK_K])
{
    const float as = w_scale < 0 ? -w_scale : w_scale;
    if (!(as >= 1e-30f && as <= 1e30f)) {
        float x[MP_QK_K];
        for (int j = 0; j < MP_QK_K; j++)
            x[j] = (float)w[j] * w_scale;
        return codes_ref(x, code);
    }
    uint8_t any = 0;
    if (w_scale < 0)
        for (int j = 0; j < MP_QK_K; j++)
            code[j] = (uint8_t)(1 - w[j]);
    else
        for (int j = 0; j < MP_QK_K; j++)
            code[j] = (uint8_t)(1 + w[j]);
    for (int j = 0; j < MP_QK_K; j++)
        any |= (uint8_t)w[j];
    return any ? as : 0.0f;
}

/* ceil(256 * v / 243): v in base 3 as a fraction of 1, rounded up so that the
 * multiply-by-3^n extraction of tq.h recovers every trit. */
static uint8_t tq1_byte(unsigned v)
{
    return (uint8_t)((v * 256 + 242) / 243);
}

size_t mp_tq1_0_packed_size(int m, int k, const int *param)
{
    (void)param;
    return (size_t)m * (size_t)(k / MP_QK_K) * MP_TQ1_BYTES;
}

size_t mp_tq2_0_packed_size(int m, int k, const int *param)
{
    (void)param;
    return (size_t)m * (size_t)(k / MP_QK_K) * MP_TQ2_BYTES;
}

static void tq1_block(float d, const uint8_t *c, uint8_t *out)
{
    mp_block_tq1_0 blk;
    blk.d = mp_fp16_from_f32(d);
    for (int i = 0; i < 32; i++)
        blk.qs[i] = tq1_byte(81u * c[i] + 27u * c[i + 32] + 9u * c[i + 64] + 3u * c[i + 96] +
                             c[i + 128]);
    for (int i = 0; i < 16; i++) {
        const uint8_t *g = c + 160 + i;
        blk.qs[32 + i] = tq1_byte(81u * g[0] + 27u * g[16] + 9u * g[32] + 3u * g[48] + g[64]);
    }
    for (int i = 0; i < 4; i++) {
        const uint8_t *g = c + 240 + i;
        blk.qh[i] = tq1_byte(3u * (27u * g[0] + 9u * g[4] + 3u * g[8] + g[12]));
    }
    memcpy(out, &blk, MP_TQ1_BYTES);
}

static void tq2_block(float d, const uint8_t *c, uint8_t *out)
{
    mp_block_tq2_0 blk;
    blk.d = mp_fp16_from_f32(d);
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < 32; i++) {
            const uint8_t *g = c + 128 * h + i;
            blk.qs[32 * h + i] = (uint8_t)(g[0] | g[32] << 2 | g[64] << 4 | g[96] << 6);
        }
    memcpy(out, &blk, MP_TQ2_BYTES);
}

/* Both packs: each 256-weight block's codes and scale into one packed block. */
static void pack_blocks(const int8_t *w, float w_scale, int m, int k, uint8_t *out,
                        size_t block_bytes, void (*block)(float, const uint8_t *, uint8_t *))
{
    const size_t nblk = (size_t)m * (k / MP_QK_K);
    for (size_t i = 0; i < nblk; i++) {
        uint8_t c[MP_QK_K];
        float d = tq_codes(w + i * MP_QK_K, w_scale, c);
        block(d, c, out + i * block_bytes);
    }
}

void mp_tq1_0_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                   uint8_t *out)
{
    (void)param;
    pack_blocks(w, w_scale, m, k, out, MP_TQ1_BYTES, tq1_block);
}

void mp_tq2_0_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                   uint8_t *out)
{
    (void)param;
    pack_blocks(w, w_scale, m, k, out, MP_TQ2_BYTES, tq2_block);
}

void mp_tq1_0_quant_ref(const float *x, int k, uint8_t *out)
{
    for (int b = 0; b < k / MP_QK_K; b++) {
        uint8_t c[MP_QK_K];
        float d = codes_ref(x + b * MP_QK_K, c);
        tq1_block(d, c, out + (size_t)b * MP_TQ1_BYTES);
    }
}

void mp_tq2_0_quant_ref(const float *x, int k, uint8_t *out)
{
    for (int b = 0; b < k / MP_QK_K; b++) {
        uint8_t c[MP_QK_K];
        float d = codes_ref(x + b * MP_QK_K, c);
        tq2_block(d, c, out + (size_t)b * MP_TQ2_BYTES);
    }
}

/* The 256 ternary weights of one TQ1_0 block. */
static void tq1_decode(const uint8_t *blk, int8_t w[MP_QK_K])
{
    static const uint8_t pow3[5] = {1, 3, 9, 27, 81};
    for (int n = 0; n < 5; n++) {
        for (int i = 0; i < 32; i++)
            w[i + 32 * n] = (int8_t)((((uint8_t)(blk[i] * pow3[n])) * 3 >> 8) - 1);
        for (int i = 0; i < 16; i++)
            w[160 + i + 16 * n] = (int8_t)((((uint8_t)(blk[32 + i] * pow3[n])) * 3 >> 8) - 1);
    }
    for (int n = 0; n < 4; n++)
        for (int i = 0; i < 4; i++)
            w[240 + i + 4 * n] = (int8_t)((((uint8_t)(blk[48 + i] * pow3[n])) * 3 >> 8) - 1);
}

static void tq2_decode(const uint8_t *blk, int8_t w[MP_QK_K])
{
    for (int h = 0; h < 2; h++)
        for (int n = 0; n < 4; n++)
            for (int i = 0; i < 32; i++)
                w[128 * h + 32 * n + i] = (int8_t)(((blk[32 * h + i] >> (2 * n)) & 3) - 1);
}

void mp_tq1_0_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w)
{
    (void)param;
    const size_t nblk = (size_t)m * (k / MP_QK_K);
    for (size_t i = 0; i < nblk; i++)
        tq1_decode(p + i * MP_TQ1_BYTES, w + i * MP_QK_K);
}

void mp_tq2_0_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w)
{
    (void)param;
    const size_t nblk = (size_t)m * (k / MP_QK_K);
    for (size_t i = 0; i < nblk; i++)
        tq2_decode(p + i * MP_TQ2_BYTES, w + i * MP_QK_K);
}

/* ---- Q8_K activations ---------------------------------------------------- */

void mp_q8k_quant_block(const float *x, mp_block_q8_K *y)
{
    float amax = 0.0f, max = 0.0f;
    for (int j = 0; j < MP_QK_K; j++)
        if (fabsf(x[j]) > amax) {
            amax = fabsf(x[j]);
            max = x[j];
        }
    if (amax == 0.0f) {
        memset(y, 0, sizeof *y);
        return;
    }
    const float iscale = -127.0f / max;
    for (int j = 0; j < MP_QK_K; j++) {
        int v = mp_round_even(iscale * x[j]); /* ggml's nearest_int */
        y->qs[j] = (int8_t)(v < 127 ? v : 127);
    }
    for (int g = 0; g < 16; g++) {
        int s = 0;
        for (int j = 0; j < 16; j++)
            s += y->qs[16 * g + j];
        y->bsums[g] = (int16_t)s;
    }
    y->d = 1.0f / iscale;
}

size_t mp_q8k_act_size(int n, int k, const int *param)
{
    (void)param;
    return (size_t)n * mp_q8k_stride(k);
}

void mp_q8k_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1)
{
    (void)n;
    const int k = op->k;
    for (int t = t0; t < t1; t++) {
        mp_block_q8_K *a = (mp_block_q8_K *)mp_q8k_token(act, k, t);
        for (int b = 0; b < k / MP_QK_K; b++)
            mp_q8k_quant_block(x + (size_t)t * k + b * MP_QK_K, a + b);
    }
}

/* ---- products ------------------------------------------------------------ */

static int32_t dot256(const int8_t *w, const int8_t *q)
{
    int32_t s = 0;
    for (int j = 0; j < MP_QK_K; j++)
        s += (int32_t)w[j] * q[j];
    return s;
}

void mp_tq1_0_block_dots(const uint8_t *row, const mp_block_q8_K *a, int nblk, int32_t *out)
{
    for (int b = 0; b < nblk; b++) {
        int8_t w[MP_QK_K];
        tq1_decode(row + (size_t)b * MP_TQ1_BYTES, w);
        out[b] = dot256(w, a[b].qs);
    }
}

void mp_tq2_0_block_dots(const uint8_t *row, const mp_block_q8_K *a, int nblk, int32_t *out)
{
    for (int b = 0; b < nblk; b++) {
        int8_t w[MP_QK_K];
        tq2_decode(row + (size_t)b * MP_TQ2_BYTES, w);
        out[b] = dot256(w, a[b].qs);
    }
}

/* Y[t][r] = sum_b (float)dot_b * (dw_b * dx_b), blocks in order.  K % 256 == 0;
 * no over-reads. */
static void tq_gemm(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                    int bytes, int one)
{
    const int k = op->k, nb = k / MP_QK_K;
    for (int r = m0; r < m1; r++) {
        const uint8_t *wr = op->w + (size_t)r * nb * bytes;
        for (int t = 0; t < n; t++) {
            const mp_block_q8_K *a = mp_q8k_token(act, k, t);
            float acc = 0.0f;
            for (int b = 0; b < nb; b++) {
                int32_t dot;
                if (one)
                    mp_tq1_0_block_dots(wr + (size_t)b * bytes, a + b, 1, &dot);
                else
                    mp_tq2_0_block_dots(wr + (size_t)b * bytes, a + b, 1, &dot);
                float p = (float)dot * (mp_tq_block_d(wr + (size_t)b * bytes, bytes) * a[b].d);
                acc = acc + p;
            }
            y[(size_t)t * op->m + r] = acc;
        }
    }
}

void mp_tq1_0_gemm__scalar(const mp_op *op, const void *act, int n, float *y, int m0,
                           int m1, void *scratch)
{
    (void)scratch;
    tq_gemm(op, act, n, y, m0, m1, MP_TQ1_BYTES, 1);
}

void mp_tq2_0_gemm__scalar(const mp_op *op, const void *act, int n, float *y, int m0,
                           int m1, void *scratch)
{
    (void)scratch;
    tq_gemm(op, act, n, y, m0, m1, MP_TQ2_BYTES, 0);
}
