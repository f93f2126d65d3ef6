/* e2e-head.c - the storage formats of the end-to-end runner's embedding and
 * output head (issue 17: `--lm-head f16|q8_0|q4_0`).  On BitNet b1.58 2B-4T the
 * 16-bit head (tied to the embedding) is more than half the bytes a decoded
 * token reads, so its precision is a real choice: bitnet.cpp quantizes it for
 * the same reason.
 *
 *   f16   16 bits per weight, stored as bf16 (the same bytes as the shipped F16;
 *         bf16 because widening it is a shift in portable C, see harness/e2e.c)
 *   q8_0  llama.cpp's block layout: 32 weights = one 16-bit scale + 32 int8
 *         (8.5 bits per weight); scale = absmax / 127, round to nearest
 *   q4_0  32 weights = one 16-bit scale + 16 bytes of 4-bit codes (4.5 bits per
 *         weight); scale = the signed extreme / -8, codes 0..15 for -8..7, the
 *         low nibbles holding weights 0..15 and the high ones 16..31, as ggml's
 *         reference quantizer lays them out
 *
 * The block scales are bf16 here (ggml's are IEEE half) for the same portability
 * reason; the byte counts, which are what a memory-bound token pays, are the
 * same.  Rows are quantized from the bf16 weights the source gives.  Widening a
 * row to floats is the same code for every caller, so the logits do not depend
 * on which thread computes a row. */
#include <math.h>
#include <string.h>

#include "mp_e2e_head.h"

enum { QK = 32 };

int mp_e2e_head_parse(const char *s, mp_e2e_head_fmt *f)
{
    static const char *const names[] = {"f16", "q8_0", "q4_0"};
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, names[i])) {
            *f = (mp_e2e_head_fmt)i;
            return 0;
        }
    return -1;
}

const char *mp_e2e_head_name(mp_e2e_head_fmt f)
{
    return f == MP_E2E_HEAD_Q8_0 ? "q8_0" : f == MP_E2E_HEAD_Q4_0 ? "q4_0" : "f16";
}

int mp_e2e_head_cols_ok(mp_e2e_head_fmt f, int cols)
{
    return f == MP_E2E_HEAD_F16 || cols % QK == 0;
}

size_t mp_e2e_head_row_bytes(mp_e2e_head_fmt f, int cols)
{
    size_t blocks = (size_t)cols / QK;
    switch (f) {
    case MP_E2E_HEAD_Q8_0: return blocks * (2 + QK);
    case MP_E2E_HEAD_Q4_0: return blocks * (2 + QK / 2);
    default: return sizeof(uint16_t) * (size_t)cols;
    }
}

static inline float bf16_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint16_t f32_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u += 0x7fffu + ((u >> 16) & 1u); /* finite inputs: round to nearest even */
    return (uint16_t)(u >> 16);
}

void mp_e2e_head_from_bf16(mp_e2e_head_fmt f, const uint16_t *src, int cols, uint8_t *dst)
{
    if (f == MP_E2E_HEAD_F16) {
        memcpy(dst, src, sizeof(uint16_t) * (size_t)cols);
        return;
    }
    size_t bb = f == MP_E2E_HEAD_Q8_0 ? 2 + QK : 2 + QK / 2;
    for (int b = 0; b < cols / QK; b++) {
        float x[QK], amax = 0.0f, ext = 0.0f;
        for (int i = 0; i < QK; i++) {
            x[i] = bf16_f32(src[b * QK + i]);
            if (fabsf(x[i]) > amax)
                amax = fabsf(x[i]), ext = x[i];
        }
        uint8_t *blk = dst + (size_t)b * bb;
        /* the stored (rounded) scale is the one the codes are computed with, so
         * dequantizing gives exactly code * stored scale */
        uint16_t d16 = f32_bf16(f == MP_E2E_HEAD_Q8_0 ? amax / 127.0f : ext / -8.0f);
        float d = bf16_f32(d16), id = d != 0.0f ? 1.0f / d : 0.0f;
        memcpy(blk, &d16, 2);
        if (f == MP_E2E_HEAD_Q8_0) {
            for (int i = 0; i < QK; i++) {
                float q = roundf(x[i] * id);
                blk[2 + i] = (uint8_t)(int8_t)(q > 127.0f ? 127.0f : q < -127.0f ? -127.0f : q);
            }
        } else {
            for (int i = 0; i < QK / 2; i++) {
                int lo = (int)roundf(x[i] * id) + 8, hi = (int)roundf(x[i + QK / 2] * id) + 8;
                lo = lo < 0 ? 0 : lo > 15 ? 15 : lo;
                hi = hi < 0 ? 0 : hi > 15 ? 15 : hi;
                blk[2 + i] = (uint8_t)(lo | hi << 4);
            }
        }
    }
}

/* The row loops: one template per ISA (e2e-head-simd.h), chosen once. */
#define MP_HEAD_FN(name) name##__generic
#include "e2e-head-simd.h"
#undef MP_HEAD_FN

#if defined(__x86_64__)
#include "../kernels/common/mp_isa.h"
#include "../kernels/mp_kernel.h"
void mp_e2e_head_row_f32__avx2(mp_e2e_head_fmt f, const uint8_t *row, int cols, float *out);
void mp_e2e_head_row_f32__avx512(mp_e2e_head_fmt f, const uint8_t *row, int cols, float *out);
float mp_e2e_head_dot__avx2(const float *a, const float *b, int n);
float mp_e2e_head_dot__avx512(const float *a, const float *b, int n);
#endif

static void (*row_fn)(mp_e2e_head_fmt, const uint8_t *, int, float *) =
    mp_e2e_head_row_f32__generic;
static float (*dot_fn)(const float *, const float *, int) = mp_e2e_head_dot__generic;

void mp_e2e_head_init(void)
{
#if defined(__x86_64__)
    unsigned isa = mp_isa_detect();
    if (isa & MP_ISA_AVX512) {
        row_fn = mp_e2e_head_row_f32__avx512;
        dot_fn = mp_e2e_head_dot__avx512;
        return;
    }
    if (isa & MP_ISA_AVX2) {
        row_fn = mp_e2e_head_row_f32__avx2;
        dot_fn = mp_e2e_head_dot__avx2;
        return;
    }
#endif
    row_fn = mp_e2e_head_row_f32__generic;
    dot_fn = mp_e2e_head_dot__generic;
}

void mp_e2e_head_row_f32(mp_e2e_head_fmt f, const uint8_t *row, int cols, float *out)
{
    row_fn(f, row, cols, out);
}

float mp_e2e_head_dot(const float *a, const float *b, int n)
{
    return dot_fn(a, b, n);
}
