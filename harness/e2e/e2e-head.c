/* e2e-head.c - the storage formats of the end-to-end runner's embedding and
 * output head (issue 17: `--lm-head f16|q8_0|q4_0`) and their dot products.
 * On BitNet b1.58 2B-4T the 16-bit head (tied to the embedding) is more than
 * half the bytes a decoded token reads, so its precision is a real choice:
 * bitnet.cpp quantizes it for the same reason.
 *
 *   f16   16 bits per weight, stored as bf16 (the same bytes as the shipped F16;
 *         bf16 because widening it is a shift in portable C, see harness/e2e.c)
 *   q8_0  llama.cpp's blocks: 32 weights = one 16-bit scale + 32 int8 (8.5 bits
 *         per weight); scale = absmax / 127, round to nearest
 *   q4_0  32 weights = one 16-bit scale + 16 bytes of 4-bit codes (4.5 bits per
 *         weight); scale = the signed extreme / -8, codes 0..15 for -8..7, the
 *         low nibbles holding weights 0..15 and the high ones 16..31, as ggml's
 *         reference quantizer does
 *
 * The block scales are bf16 here (ggml's are IEEE half) for the same portability
 * reason; the byte counts, which are what a memory-bound token pays, are the
 * same.  Rows are quantized from the bf16 weights the source gives.
 *
 * Where the bytes of a q row go (the same bytes as ggml's blocks, reordered
 * like ggml's repacked q4_0x8 layouts so that the integer dot product needs no
 * horizontal sums; e2e-head-simd.h): the row's blocks are taken 16 at a time
 * (a group); a group stores the 16 bf16 scales, then its quantized bytes in
 * 64-byte slices, slice k holding bytes 4k..4k+3 of each of the 16 blocks in
 * block order (q8_0: 8 slices, q4_0: 4).  Blocks after the last whole group
 * are stored plain (scale, then bytes).  q8_0 bytes are stored as w ^ 0x80
 * (w + 128, unsigned), the operand vpdpbusd multiplies as unsigned.
 *
 * The dot products (mp_e2e_head_rows) are one template per ISA
 * (e2e-head-simd.h) with the same bits in every copy; the activation is
 * prepared once per token (mp_e2e_head_prep) in portable code. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mp_e2e_head.h"

enum { QK = 32, GB = 16 };

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

/* Where block b's scale and payload byte p start in a row of nb blocks. */
static size_t blk_base(mp_e2e_head_fmt f, int nb, int b, size_t *scale)
{
    size_t gbytes = f == MP_E2E_HEAD_Q8_0 ? GB * 34 : GB * 18, tb = gbytes / GB;
    int groups = nb / GB;
    if (b < groups * GB) {
        *scale = (size_t)(b / GB) * gbytes + 2 * (size_t)(b % GB);
        return (size_t)(b / GB) * gbytes + 2 * GB + 4 * (size_t)(b % GB);
    }
    *scale = (size_t)groups * gbytes + (size_t)(b - groups * GB) * tb;
    return *scale + 2;
}

/* Byte p of the block's payload relative to blk_base: 4-byte pieces 64 bytes
 * apart inside a group, consecutive in a plain block. */
static inline size_t blk_byte(int grouped, int p)
{
    return grouped ? (size_t)(p / 4) * 64 + (size_t)(p % 4) : (size_t)p;
}

void mp_e2e_head_from_bf16(mp_e2e_head_fmt f, const uint16_t *src, int cols, uint8_t *dst)
{
    if (f == MP_E2E_HEAD_F16) {
        memcpy(dst, src, sizeof(uint16_t) * (size_t)cols);
        return;
    }
    int nb = cols / QK;
    for (int b = 0; b < nb; b++) {
        float x[QK], amax = 0.0f, ext = 0.0f;
        for (int i = 0; i < QK; i++) {
            x[i] = bf16_f32(src[b * QK + i]);
            if (fabsf(x[i]) > amax)
                amax = fabsf(x[i]), ext = x[i];
        }
        /* the stored (rounded) scale is the one the codes are computed with, so
         * dequantizing gives exactly code * stored scale */
        uint16_t d16 = f32_bf16(f == MP_E2E_HEAD_Q8_0 ? amax / 127.0f : ext / -8.0f);
        float d = bf16_f32(d16), id = d != 0.0f ? 1.0f / d : 0.0f;
        size_t so, base = blk_base(f, nb, b, &so);
        int grouped = b < nb / GB * GB;
        memcpy(dst + so, &d16, 2);
        if (f == MP_E2E_HEAD_Q8_0) {
            for (int i = 0; i < QK; i++) {
                float q = roundf(x[i] * id);
                int8_t c = (int8_t)(q > 127.0f ? 127.0f : q < -127.0f ? -127.0f : q);
                dst[base + blk_byte(grouped, i)] = (uint8_t)c ^ 0x80;
            }
        } else {
            for (int i = 0; i < QK / 2; i++) {
                int lo = (int)roundf(x[i] * id) + 8, hi = (int)roundf(x[i + QK / 2] * id) + 8;
                lo = lo < 0 ? 0 : lo > 15 ? 15 : lo;
                hi = hi < 0 ? 0 : hi > 15 ? 15 : hi;
                dst[base + blk_byte(grouped, i)] = (uint8_t)(lo | hi << 4);
            }
        }
    }
}

/* Widening a row is the same code for every caller and thread (the embedding
 * lookup, a row per token): code * scale, exact in float. */
void mp_e2e_head_row_f32(mp_e2e_head_fmt f, const uint8_t *row, int cols, float *out)
{
    if (f == MP_E2E_HEAD_F16) {
        const uint16_t *src = (const uint16_t *)row;
        for (int i = 0; i < cols; i++)
            out[i] = bf16_f32(src[i]);
        return;
    }
    int nb = cols / QK;
    for (int b = 0; b < nb; b++) {
        size_t so, base = blk_base(f, nb, b, &so);
        int grouped = b < nb / GB * GB;
        uint16_t d16;
        memcpy(&d16, row + so, 2);
        float d = bf16_f32(d16);
        float *o = out + (size_t)b * QK;
        if (f == MP_E2E_HEAD_Q8_0)
            for (int i = 0; i < QK; i++)
                o[i] = (float)(int8_t)(row[base + blk_byte(grouped, i)] ^ 0x80) * d;
        else
            for (int i = 0; i < QK / 2; i++) {
                int v = row[base + blk_byte(grouped, i)];
                o[i] = (float)((v & 15) - 8) * d;
                o[i + QK / 2] = (float)((v >> 4) - 8) * d;
            }
    }
}

/* ---- the prepared activation ---------------------------------------------------------
 * f16: floats; each whole 32-block as its 16 even then its 16 odd elements,
 * the elements after the last whole block plain.  q formats: dx[nbp] floats,
 * corr[nbp] int32, then int8 x (e2e-head-simd.h); the int8 bytes of a group in
 * the rows' slices: q8_0 slice k = bytes 4k..4k+3 of each block; q4_0 slices
 * 2k and 2k+1 = bytes 4k..4k+3 and 16+4k..16+4k+3 of each block (the low and
 * the high nibbles of the weights' slice k). */
static int nbp_of(int nb)
{
    return (nb + GB - 1) / GB * GB;
}

size_t mp_e2e_head_prep_bytes(mp_e2e_head_fmt f, int cols)
{
    size_t b = f == MP_E2E_HEAD_F16 ? sizeof(float) * (size_t)cols
                                    : 8 * (size_t)nbp_of(cols / QK) + (size_t)cols;
    return (b + 63) & ~(size_t)63;
}

void mp_e2e_head_prep(mp_e2e_head_fmt f, const float *x, int cols, void *px)
{
    if (f == MP_E2E_HEAD_F16) {
        float *xp = px;
        int nfull = cols / QK * QK;
        for (int i = 0; i < nfull; i += QK)
            for (int l = 0; l < QK / 2; l++) {
                xp[i + l] = x[i + 2 * l];
                xp[i + QK / 2 + l] = x[i + 2 * l + 1];
            }
        for (int i = nfull; i < cols; i++)
            xp[i] = x[i];
        return;
    }
    int nb = cols / QK, nbp = nbp_of(nb), groups = nb / GB;
    float *dx = px;
    int32_t *corr = (int32_t *)(dx + nbp);
    int8_t *xq = (int8_t *)(corr + nbp);
    memset(px, 0, 8 * (size_t)nbp);
    for (int b = 0; b < nb; b++) {
        const float *xb = x + (size_t)b * QK;
        float amax = 0.0f;
        for (int i = 0; i < QK; i++)
            amax = fabsf(xb[i]) > amax ? fabsf(xb[i]) : amax;
        float d = amax / 127.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
        int8_t q[QK];
        int sum = 0;
        for (int i = 0; i < QK; i++) {
            float v = roundf(xb[i] * id);
            q[i] = (int8_t)(v > 127.0f ? 127.0f : v < -127.0f ? -127.0f : v);
            sum += q[i];
        }
        dx[b] = d;
        corr[b] = (f == MP_E2E_HEAD_Q8_0 ? -128 : -8) * sum;
        if (b >= groups * GB) {
            memcpy(xq + (size_t)b * QK, q, QK);
            continue;
        }
        int8_t *g = xq + (size_t)(b / GB) * GB * QK + 4 * (b % GB);
        for (int k = 0; k < QK / 4; k++) {
            /* q8_0: slice k; q4_0: lows of slice k at 2k, highs at 2k+1 */
            int slice = f == MP_E2E_HEAD_Q8_0 ? k : k < 4 ? 2 * k : 2 * (k - 4) + 1;
            memcpy(g + 64 * slice, q + 4 * k, 4);
        }
    }
}

/* ---- the ISA copies ------------------------------------------------------------------- */
#define MP_HEAD_FN(name) name##__generic
#include "e2e-head-simd.h"
#undef MP_HEAD_FN

#if defined(__x86_64__)
#include "../../kernels/common/mp_isa.h"
#include "../../kernels/mp_kernel.h"
void mp_e2e_head_rows__avx2(mp_e2e_head_fmt, const uint8_t *, int, int, const void *, float *);
void mp_e2e_head_rows__avx512(mp_e2e_head_fmt, const uint8_t *, int, int, const void *,
                              float *);
void mp_e2e_head_rows__avx512vnni(mp_e2e_head_fmt, const uint8_t *, int, int, const void *,
                                  float *);
#endif

static const struct {
    const char *name;
    unsigned isa;
    mp_e2e_head_rows_fn fn;
} copies[] = {
#if defined(__x86_64__)
    {"avx512vnni", MP_ISA_AVX512 | MP_ISA_AVX512VNNI, mp_e2e_head_rows__avx512vnni},
    {"avx512", MP_ISA_AVX512, mp_e2e_head_rows__avx512},
    {"avx2", MP_ISA_AVX2, mp_e2e_head_rows__avx2},
#endif
    {"generic", 0, mp_e2e_head_rows__generic},
};

static unsigned isa_bits(void)
{
#if defined(__x86_64__)
    return mp_isa_detect();
#else
    return 0;
#endif
}

static int chosen = (int)(sizeof copies / sizeof copies[0]) - 1;

void mp_e2e_head_init(void)
{
    unsigned isa = isa_bits();
    for (size_t i = 0; i < sizeof copies / sizeof copies[0]; i++)
        if ((copies[i].isa & isa) == copies[i].isa) {
            chosen = (int)i;
            return;
        }
}

mp_e2e_head_rows_fn mp_e2e_head_rows_isa(const char *name)
{
    unsigned isa = isa_bits();
    for (size_t i = 0; i < sizeof copies / sizeof copies[0]; i++)
        if (!strcmp(copies[i].name, name))
            return (copies[i].isa & isa) == copies[i].isa ? copies[i].fn : NULL;
    return NULL;
}

const char *mp_e2e_head_isa(void)
{
    return copies[chosen].name;
}

void mp_e2e_head_rows(mp_e2e_head_fmt f, const uint8_t *rows, int nrows, int cols,
                      const void *px, float *out)
{
    copies[chosen].fn(f, rows, nrows, cols, px, out);
}
