/* tmac-scalar.c - T-MAC int2 packing, table precompute (with mirror
 * consolidation) and the portable path, the oracle of the SIMD paths.  Seed 001
 * §2.2; layout in tmac.h.  No ISA flags. */
#include "tmac.h"

#include <stdio.h>
#include <string.h>

#include "../common/mp_numerics.h"
#include "../common/mp_swar.h"

int mp_tmac_check(int m, int k, const int *param, char *why, size_t len)
{
    (void)param;
    if (m < 1 || k % 8) {
        snprintf(why, len, "K %% 8 != 0: a 64-byte step holds two 4-column groups of 32 rows");
        return 1;
    }
    return 0;
}

size_t mp_tmac_packed_size(int m, int k, const int *param)
{
    (void)param;
    return (size_t)((m + MP_TMAC_BM - 1) / MP_TMAC_BM) * mp_tmac_blk_bytes(k) + 32;
}

/* Row by row within a 32-row block (each row read once, sequentially, 8 weights
 * = one step per 64-bit word) rather than in the stream's lane order, which read
 * 32 rows 4 bytes at a time.  Every byte of the stream is written (no memset):
 * padding rows are code 1, index 0x0f.  tests/test_elut.c keeps the direct
 * definition (one weight at a time, in stream order) as the oracle. */
void mp_tmac_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                  uint8_t *out)
{
    size_t bytes = mp_tmac_packed_size(m, k, param);
    const uint64_t bit4 = 0x1010101010101010ull;
    int nblk = (m + MP_TMAC_BM - 1) / MP_TMAC_BM;
    for (int b = 0; b < nblk; b++) {
        uint8_t *o = out + (size_t)b * mp_tmac_blk_bytes(k);
        int nr = m - b * MP_TMAC_BM < MP_TMAC_BM ? m - b * MP_TMAC_BM : MP_TMAC_BM;
        for (int rr = 0; rr < MP_TMAC_BM; rr++) {
            /* lane blocks 2h (columns 8s..8s+3) and 2h + 1 (8s+4..8s+7) of row rr */
            uint8_t *d = o + (rr / 16) * 32 + rr % 16;
            const int8_t *wr = w + ((size_t)b * MP_TMAC_BM + (size_t)rr) * k;
            if (rr >= nr) {
                for (int s = 0; s < k / 8; s++, d += MP_TMAC_STEP)
                    d[0] = d[16] = 0x0f;
                continue;
            }
            for (int s = 0; s < k / 8; s++, d += MP_TMAC_STEP) {
                /* code c = w + 1 per byte: bit 0 (plane 0) stays at bit 0, bit 1
                 * (plane 1) goes to bit 4, so mp_swar_nibbles gives the byte of
                 * the first 4 columns, and of the word >> 32 that of the last 4 */
                uint64_t c = mp_swar_tern_codes(mp_swar_ld64(wr + 8 * s));
                uint64_t z = (c & MP_SWAR_LSB) | (c << 3 & bit4);
                d[0] = mp_swar_nibbles(z);
                d[16] = mp_swar_nibbles(z >> 32);
            }
        }
    }
    memset(out + bytes - 32, 0, 32);
    memcpy(out + bytes - 32, &w_scale, sizeof w_scale);
}

void mp_tmac_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w)
{
    (void)param;
    for (int row = 0; row < m; row++) {
        const uint8_t *blk = p + (size_t)(row / MP_TMAC_BM) * mp_tmac_blk_bytes(k);
        int h = row % MP_TMAC_BM / 16, i = row % 16;
        for (int gr = 0; gr < k / 4; gr++) {
            uint8_t byte = blk[(size_t)(gr / 2) * MP_TMAC_STEP + (h * 2 + gr % 2) * 16 + i];
            for (int d = 0; d < 4; d++)
                w[(size_t)row * k + gr * 4 + d] =
                    (int8_t)((((byte >> d) & 1) | ((byte >> (4 + d)) & 1) << 1) - 1);
        }
    }
}

size_t mp_tmac_act_size(int n, int k, const int *param)
{
    (void)param;
    return (size_t)n * mp_tmac_act_stride(k);
}

void mp_tmac_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1)
{
    (void)n;
    const int k = op->k;
    for (int t = t0; t < t1; t++) {
        mp_tmac_hdr h;
        uint8_t *tab = mp_tmac_prep_token(x, k, act, t, &h);
        const int8_t *q = (const int8_t *)(tab + (size_t)k / 4 * 16);
        const float rs = 127.0f / (float)h.tmax;
        for (int gr = 0; gr < k / 4; gr++) {
            const int8_t *a = q + 4 * gr;
            uint8_t *o = tab + (size_t)gr * 16;
            /* mirror consolidation: entries 0-7 computed, 15-i = -i */
            for (int i = 0; i < 8; i++) {
                int v = 0;
                for (int d = 0; d < 4; d++)
                    v += (i >> d & 1) ? a[d] : -a[d];
                int av = v < 0 ? -v : v;
                int t8 = (int)((float)av * rs + 0.5f); /* half away from zero */
                t8 = v < 0 ? -t8 : t8;
                o[i] = (uint8_t)(t8 + 128);
                o[15 - i] = (uint8_t)(-t8 + 128);
            }
        }
        memcpy(tab - MP_TMAC_HDR, &h, sizeof h);
    }
}

void mp_tmac_store(const mp_op *op, const void *act, int t, const int32_t *s8, int row0,
                   int nrows, float *y)
{
    const mp_tmac_hdr *h = mp_tmac_act_hdr(act, op->k, t);
    for (int i = 0; i < nrows; i++)
        y[(size_t)t * op->m + row0 + i] = mp_tmac_dequant(s8[i], h, op->w_scale);
}

void mp_tmac_gemm__scalar(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                          void *scratch)
{
    (void)scratch;
    const int k = op->k;
    int32_t sums[MP_TMAC_BM];
    for (int t = 0; t < n; t++) {
        const uint8_t *tab = mp_tmac_tab(act, k, t);
        for (int r0 = m0; r0 < m1; r0 += MP_TMAC_BM) {
            const uint8_t *o = op->w + (size_t)(r0 / MP_TMAC_BM) * mp_tmac_blk_bytes(k);
            memset(sums, 0, sizeof sums);
            for (int s = 0; s < k / 8; s++, o += MP_TMAC_STEP)
                for (int j = 0; j < 4; j++) {
                    const uint8_t *tg = tab + (size_t)(2 * s + (j & 1)) * 16;
                    for (int i = 0; i < 16; i++) {
                        int byte = o[j * 16 + i];
                        /* plane 0, plus plane 1 shifted by one bit */
                        sums[(j >> 1) * 16 + i] += (tg[byte & 15] - 128) + 2 * (tg[byte >> 4] - 128);
                    }
                }
            int nr = m1 - r0 < MP_TMAC_BM ? m1 - r0 : MP_TMAC_BM;
            mp_tmac_store(op, act, t, sums, r0, nr, y);
        }
    }
}
