/* vnni-scalar.c - VNNI_INT2 / VNNI_INT1 (seed 003 §III): packing into the tiled
 * layouts of vnni.h, the per-token activation prepare, parameter checks, the
 * portable compute paths (the oracle of the SIMD paths and the fallback), and
 * the §III-E up-convert throughput probe.  No ISA flags. */
#include "vnni.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../common/mp_isa.h"
#include "../common/mp_numerics.h"
#include "../common/mp_swar.h"

static size_t n_blocks(int m) { return ((size_t)m + 15) / 16; }
static size_t n_tiles(int k) { return ((size_t)k + 15) / 16; }

size_t mp_vnni_int2_packed_size(int m, int k, const int *param)
{
    (void)param;
    return n_blocks(m) * n_tiles(k) * MP_VNNI_INT2_TILE_BYTES + MP_VNNI_TRAILER;
}

size_t mp_vnni_int1_packed_size(int m, int k, const int *param)
{
    (void)param;
    return n_blocks(m) * n_tiles(k) * MP_VNNI_INT1_TILE_BYTES + MP_VNNI_TRAILER;
}

static void put_trailer(uint8_t *t, float w_scale)
{
    memset(t, 0, MP_VNNI_TRAILER);
    memcpy(t, &w_scale, sizeof w_scale);
}

/* Weight (r, c) of the canonical tensor, 0 in the padding. */
static inline int wat(const int8_t *w, int m, int k, size_t r, size_t c)
{
    return r < (size_t)m && c < (size_t)k ? w[r * (size_t)k + c] : 0;
}

/* Row r's 16 weights of tile j (zeros past M and K) into buf. */
static inline const int8_t *tile_row(const int8_t *w, int m, int k, size_t r, size_t j,
                                     int8_t buf[16])
{
    if (r < (size_t)m && (j + 1) * 16 <= (size_t)k)
        return w + r * (size_t)k + j * 16; /* interior: no copy */
    for (int kk = 0; kk < 16; kk++)
        buf[kk] = (int8_t)wat(w, m, k, r, j * 16 + (size_t)kk);
    return buf;
}

/* Row by row, each row read once in order (a tile at a time, 16 rows were read
 * 16 bytes each).  A row's word of a tile: byte i holds k = i, 4 + i, 8 + i,
 * 12 + i in bits 1-0 .. 7-6 (vnni.h), so the codes w + 1 of k 0-3, 4-7, 8-11,
 * 12-15 (one per byte) are or-ed in shifted by 0, 2, 4, 6: 16 weights from two
 * 64-bit words, one 32-bit store. */
void mp_vnni_int2_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                       uint8_t *out)
{
    (void)param;
    const size_t nb = n_blocks(m), nt = n_tiles(k);
    int8_t buf[16];
    for (size_t b = 0; b < nb; b++)
        for (int r = 0; r < 16; r++)
            for (size_t j = 0; j < nt; j++) {
                const int8_t *src = tile_row(w, m, k, b * 16 + (size_t)r, j, buf);
                uint64_t c0 = mp_swar_tern_codes(mp_swar_ld64(src));
                uint64_t c1 = mp_swar_tern_codes(mp_swar_ld64(src + 8));
                mp_swar_st32(out + (b * nt + j) * MP_VNNI_INT2_TILE_BYTES + 4 * r,
                             (uint32_t)(c0 | (c0 >> 32) << 2 | c1 << 4 | (c1 >> 32) << 6));
            }
    put_trailer(out + nb * nt * MP_VNNI_INT2_TILE_BYTES, w_scale);
}

/* Code (w + 1) of row r, column c of an int2 tensor. */
static inline int int2_code(const uint8_t *p, size_t nt, size_t r, size_t c)
{
    const uint8_t *tile = p + ((r / 16) * nt + c / 16) * MP_VNNI_INT2_TILE_BYTES;
    unsigned kk = (unsigned)(c % 16);
    return (tile[4 * (r % 16) + (kk & 3)] >> (2 * (kk >> 2))) & 3;
}

void mp_vnni_int2_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w)
{
    (void)param;
    const size_t nt = n_tiles(k);
    for (size_t r = 0; r < (size_t)m; r++)
        for (size_t c = 0; c < (size_t)k; c++)
            w[r * (size_t)k + c] = (int8_t)(int2_code(p, nt, r, c) - 1);
}

/* Rows in pairs, each row read in order: the byte of group g for rows 2q, 2q + 1
 * is their two nibbles of sign bits (bit 7 of each weight byte), so with the
 * signs of row 2q at bit 0 and those of row 2q + 1 at bit 4 of each byte of a
 * word (8 columns), mp_swar_nibbles gives the byte of the word's first group,
 * and of the word >> 32 that of the second.  Every tile byte is written once
 * (no memset, no read-modify-write). */
void mp_vnni_int1_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                       uint8_t *out)
{
    (void)param;
    const size_t nb = n_blocks(m), nt = n_tiles(k);
    int8_t buf[2][16];
    for (size_t b = 0; b < nb; b++)
        for (int q = 0; q < 8; q++)
            for (size_t j = 0; j < nt; j++) {
                uint8_t *tile = out + (b * nt + j) * MP_VNNI_INT1_TILE_BYTES;
                const int8_t *s0 = tile_row(w, m, k, b * 16 + 2 * (size_t)q, j, buf[0]);
                const int8_t *s1 = tile_row(w, m, k, b * 16 + 2 * (size_t)q + 1, j, buf[1]);
                for (int h = 0; h < 2; h++) { /* columns 8h .. 8h + 7: groups 2h, 2h + 1 */
                    uint64_t z = (mp_swar_ld64(s0 + 8 * h) >> 7 & MP_SWAR_LSB) |
                                 (mp_swar_ld64(s1 + 8 * h) >> 3 & MP_SWAR_LSB << 4);
                    tile[16 * h + q] = mp_swar_nibbles(z);
                    tile[16 * h + 8 + q] = mp_swar_nibbles(z >> 32);
                }
            }
    put_trailer(out + nb * nt * MP_VNNI_INT1_TILE_BYTES, w_scale);
}

/* Code (w + 1: 0 for -1, 2 for +1) of row r, column c of an int1 tensor. */
static inline int int1_code(const uint8_t *p, size_t nt, size_t r, size_t c)
{
    const uint8_t *tile = p + ((r / 16) * nt + c / 16) * MP_VNNI_INT1_TILE_BYTES;
    unsigned i = (unsigned)(4 * (r % 16) + c % 4), g = (unsigned)(c % 16) / 4;
    return (tile[8 * g + i / 8] >> (i % 8)) & 1 ? 0 : 2;
}

void mp_vnni_int1_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w)
{
    (void)param;
    const size_t nt = n_tiles(k);
    for (size_t r = 0; r < (size_t)m; r++)
        for (size_t c = 0; c < (size_t)k; c++)
            w[r * (size_t)k + c] = (int8_t)(int1_code(p, nt, r, c) - 1);
}

size_t mp_vnni_act_size(int n, int k, const int *param)
{
    (void)param;
    return mp_q8act_size(n, k);
}

void mp_vnni_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1)
{
    (void)n;
    mp_q8act_fill(x, op->k, act, t0, t1);
}

size_t mp_vnni_scratch_size(int n, int k, const int *param)
{
    /* unpacked mtile x ktile block, mtile x n int32 partial sums, then the n
     * activations of K rounded up to 16 in k-tile-major order (vnni-gemm.h) */
    size_t wblk = (size_t)param[MP_VNNI_P_MTILE] * (size_t)param[MP_VNNI_P_KTILE];
    return wblk + (size_t)param[MP_VNNI_P_MTILE] * (size_t)n * sizeof(int32_t) +
           (size_t)n * (((size_t)k + 15) / 16 * 16);
}

static int check_regs(const int *param, int max_acc, int vec_per_16, char *why, size_t len)
{
    int bm = param[MP_VNNI_P_MTILE], bn = param[MP_VNNI_P_NTILE], bk = param[MP_VNNI_P_KTILE];
    if (bm % 16 || bm < 16 || bm > MP_VNNI_MTILE_MAX || bk % 16 || bk < 16 ||
        bk > MP_VNNI_KTILE_MAX || bn < 1) {
        snprintf(why, len, "mtile=%d ktile=%d ntile=%d outside the supported blocking", bm, bk,
                 bn);
        return -1;
    }
    if (bm / 16 * vec_per_16 * bn > max_acc) {
        snprintf(why, len, "mtile=%d x ntile=%d needs %d accumulators, more than the %d registers allow",
                 bm, bn, bm / 16 * vec_per_16 * bn, max_acc);
        return -1;
    }
    return 0;
}

int mp_vnni_check_zmm(int m, int k, const int *param, char *why, size_t len)
{
    (void)m, (void)k;
    return check_regs(param, 28, 1, why, len);
}

int mp_vnni_check_ymm(int m, int k, const int *param, char *why, size_t len)
{
    (void)m, (void)k;
    return check_regs(param, 12, 2, why, len);
}

/* The oracle: decodes every weight through the layout accessors, one at a
 * time, and follows the kernels' arithmetic (sum of codes x q, minus qsum). */
static void gemm_scalar(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                        int int1)
{
    const int k = op->k;
    const size_t nt = n_tiles(k);
    for (int t = 0; t < n; t++) {
        const mp_q8hdr *h = mp_q8act_hdr(act, k, t);
        const int8_t *q = mp_q8act_q(act, k, t);
        for (int r = m0; r < m1; r++) {
            int32_t s = 0;
            for (int c = 0; c < k; c++) {
                int code = int1 ? int1_code(op->w, nt, (size_t)r, (size_t)c)
                                : int2_code(op->w, nt, (size_t)r, (size_t)c);
                s += code * q[c];
            }
            y[(size_t)t * op->m + r] = mp_dequant(s - h->qsum, op->w_scale, h->x_scale);
        }
    }
}

static void gemm_entry(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                       void *scratch, int int1)
{
    (void)scratch;
    gemm_scalar(op, act, n, y, m0, m1, int1);
}

MP_VNNI_ENTRY(mp_vnni_int2_gemm__scalar, gemm_entry, 0)
MP_VNNI_ENTRY(mp_vnni_int1_gemm__scalar, gemm_entry, 1)

/* ---- §III-E: B of the roofline model ----------------------------------------- */

int mp_vnni_bytes_per_vector(const mp_variant *v)
{
    if (!v || v->family != MP_FAMILY_VNNI)
        return 0;
    return v->domain == MP_DOMAIN_BINARY ? 4 : 8;
}

