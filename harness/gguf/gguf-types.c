/* gguf-types.c - the ggml tensor types mpbench reads (issue 19): F32, F16,
 * BF16, Q4_0, Q8_0, TQ1_0, TQ2_0 and bitnet.cpp's I2_S, each with its name and
 * block (elements, bytes), the bytes of a tensor of a shape (checked against
 * the block), and a row dequantized to floats (ggml's block layouts; for I2_S
 * the per-tensor scale of its trailer). */
#include <stdio.h>
#include <string.h>

#include "mp_gguf.h"

typedef struct type_info {
    int type;
    const char *name;
    int blck, bytes; /* I2_S: 4 weights per byte, plus a 32-byte trailer per tensor */
    int runs;        /* 0: ggml's type, listed and sized, but mpbench reads none of it */
} type_info;

/* IEEE binary16 to float, exactly (subnormals, infinities and NaN included). */
static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0x1f)
        bits = sign | 0x7f800000u | (man << 13);
    else if (exp)
        bits = sign | ((exp + 112) << 23) | (man << 13);
    else if (!man)
        bits = sign;
    else { /* subnormal: normalise */
        int e = -1;
        do {
            e++;
            man <<= 1;
        } while (!(man & 0x400u));
        bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ffu) << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* The f16 stored at p (a block's scale d), unaligned. */
static float half_at(const uint8_t *p)
{
    uint16_t h;
    memcpy(&h, p, 2);
    return half_to_float(h);
}

/* Every ggml type (ggml.h's enum ggml_type, block sizes of ggml-common.h), so
 * that `list gguf` lists a file whatever its types (issue 40: most published
 * files hold K-quants); only the rows with runs = 1 are read. */
static const type_info types[] = {
    {MP_GGML_F32, "f32", 1, 4, 1},        {MP_GGML_F16, "f16", 1, 2, 1},
    {MP_GGML_Q4_0, "q4_0", 32, 18, 1},    {MP_GGML_Q8_0, "q8_0", 32, 34, 1},
    {MP_GGML_BF16, "bf16", 1, 2, 1},      {MP_GGML_TQ1_0, "tq1_0", 256, 54, 1},
    {MP_GGML_TQ2_0, "tq2_0", 256, 66, 1}, {MP_GGML_I2_S, "i2_s", 4, 1, 1},
    {3, "q4_1", 32, 20, 0},     {6, "q5_0", 32, 22, 0},     {7, "q5_1", 32, 24, 0},
    {9, "q8_1", 32, 36, 0},     {10, "q2_K", 256, 84, 0},   {11, "q3_K", 256, 110, 0},
    {12, "q4_K", 256, 144, 0},  {13, "q5_K", 256, 176, 0},  {14, "q6_K", 256, 210, 0},
    {15, "q8_K", 256, 292, 0},  {16, "iq2_xxs", 256, 66, 0}, {17, "iq2_xs", 256, 74, 0},
    {18, "iq3_xxs", 256, 98, 0}, {19, "iq1_s", 256, 50, 0}, {20, "iq4_nl", 32, 18, 0},
    {21, "iq3_s", 256, 110, 0}, {22, "iq2_s", 256, 82, 0},  {23, "iq4_xs", 256, 136, 0},
    {24, "i8", 1, 1, 0},        {25, "i16", 1, 2, 0},       {26, "i32", 1, 4, 0},
    {27, "i64", 1, 8, 0},       {28, "f64", 1, 8, 0},       {29, "iq1_m", 256, 56, 0},
    {39, "mxfp4", 32, 17, 0},
};

static const type_info *tinfo(int type)
{
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (types[i].type == type)
            return &types[i];
    return NULL;
}

const char *mp_gguf_type_name(int type)
{
    const type_info *ti = tinfo(type);
    return ti ? ti->name : NULL;
}

int mp_gguf_type_runs(int type)
{
    const type_info *ti = tinfo(type);
    return ti && ti->runs;
}

int mp_gguf_check_types(const mp_gguf *g, mp_err *e)
{
    for (int64_t i = 0; i < g->n_tensors; i++)
        if (!mp_gguf_type_runs(g->t[i].type))
            return mp_fail(e, MP_EUSAGE, "%s: tensor '%s' is of type %s (ggml type %d), which "
                           "mpbench does not read (it reads f32, f16, bf16, q4_0, q8_0, tq1_0, "
                           "tq2_0, i2_s)", g->path, g->t[i].name,
                           mp_gguf_type_name(g->t[i].type), g->t[i].type);
    return MP_OK;
}

int mp_gguf_type_block(int type, int *bytes)
{
    const type_info *ti = tinfo(type);
    *bytes = ti ? ti->bytes : 0;
    return ti ? ti->blck : 0;
}

size_t mp_gguf_tensor_bytes(int type, const int64_t ne[MP_GGUF_MAX_DIMS], char *why, size_t wlen)
{
    const type_info *ti = tinfo(type);
    if (!ti) {
        snprintf(why, wlen, "unknown ggml type %d", type);
        return 0;
    }
    uint64_t n = 1;
    for (int d = 0; d < MP_GGUF_MAX_DIMS; d++) {
        if (ne[d] < 1 || (uint64_t)ne[d] > ((uint64_t)1 << 62) / n) {
            snprintf(why, wlen, "dimension %d (%lld) absurd", d, (long long)ne[d]);
            return 0;
        }
        n *= (uint64_t)ne[d];
    }
    if (ne[0] % ti->blck) {
        snprintf(why, wlen, "row length %lld is not a multiple of %s's block of %d",
                 (long long)ne[0], ti->name, ti->blck);
        return 0;
    }
    if (type == MP_GGML_I2_S && ne[0] % 128) {
        snprintf(why, wlen, "row length %lld is not a multiple of 128 (I2_S blocks)",
                 (long long)ne[0]);
        return 0;
    }
    uint64_t bytes = n / (uint64_t)ti->blck * (uint64_t)ti->bytes;
    if (type == MP_GGML_I2_S)
        bytes += 32;
    if (bytes > SIZE_MAX / 2) {
        snprintf(why, wlen, "%llu bytes is absurd", (unsigned long long)bytes);
        return 0;
    }
    return (size_t)bytes;
}

static float bf16f(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

void mp_gguf_row_f32(const mp_gguf_tensor *t, int64_t r, float *out)
{
    int64_t k = t->ne[0];
    const type_info *ti = tinfo(t->type);
    const uint8_t *row = t->data + (size_t)r * (size_t)(k / ti->blck) * (size_t)ti->bytes;
    switch (t->type) {
    case MP_GGML_F32:
        memcpy(out, row, sizeof(float) * (size_t)k);
        break;
    case MP_GGML_F16:
    case MP_GGML_BF16:
        for (int64_t i = 0; i < k; i++) {
            uint16_t h;
            memcpy(&h, row + 2 * i, 2);
            out[i] = t->type == MP_GGML_F16 ? half_to_float(h) : bf16f(h);
        }
        break;
    case MP_GGML_Q8_0:
        for (int64_t b = 0; b < k / 32; b++) {
            const uint8_t *blk = row + 34 * b;
            float d = half_at(blk);
            for (int i = 0; i < 32; i++)
                out[32 * b + i] = d * (float)(int8_t)blk[2 + i];
        }
        break;
    case MP_GGML_Q4_0:
        for (int64_t b = 0; b < k / 32; b++) {
            const uint8_t *blk = row + 18 * b;
            float d = half_at(blk);
            for (int i = 0; i < 16; i++) {
                out[32 * b + i] = d * (float)((blk[2 + i] & 15) - 8);
                out[32 * b + 16 + i] = d * (float)((blk[2 + i] >> 4) - 8);
            }
        }
        break;
    case MP_GGML_TQ2_0:
        for (int64_t b = 0; b < k / 256; b++) {
            const uint8_t *blk = row + 66 * b;
            float d = half_at(blk + 64);
            for (int half = 0; half < 2; half++)
                for (int n = 0; n < 4; n++)
                    for (int m = 0; m < 32; m++)
                        out[256 * b + 128 * half + 32 * n + m] =
                            d * (float)(((blk[32 * half + m] >> (2 * n)) & 3) - 1);
        }
        break;
    case MP_GGML_TQ1_0: {
        static const uint8_t pow3[5] = {1, 3, 9, 27, 81};
        for (int64_t b = 0; b < k / 256; b++) {
            const uint8_t *blk = row + 54 * b;
            float d = half_at(blk + 52);
            float *o = out + 256 * b;
            for (int n = 0; n < 5; n++)
                for (int m = 0; m < 32; m++)
                    o[m + 32 * n] = d * (float)((((uint8_t)(blk[m] * pow3[n])) * 3 >> 8) - 1);
            for (int n = 0; n < 5; n++)
                for (int m = 0; m < 16; m++)
                    o[160 + m + 16 * n] =
                        d * (float)((((uint8_t)(blk[32 + m] * pow3[n])) * 3 >> 8) - 1);
            for (int n = 0; n < 4; n++)
                for (int j = 0; j < 4; j++)
                    o[240 + j + 4 * n] =
                        d * (float)((((uint8_t)(blk[48 + j] * pow3[n])) * 3 >> 8) - 1);
        }
        break;
    }
    case MP_GGML_I2_S: {
        size_t total = (size_t)(t->bytes - 32);
        float s;
        memcpy(&s, t->data + total, sizeof s);
        row = t->data + (size_t)r * (size_t)(k / 4);
        for (int64_t b = 0; b < k / 128; b++)
            for (int j = 0; j < 32; j++)
                for (int q = 0; q < 4; q++)
                    out[128 * b + 32 * q + j] =
                        s * (float)(((row[32 * b + j] >> (6 - 2 * q)) & 3) - 1);
        break;
    }
    }
}
