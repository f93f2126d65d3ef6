/* vnni-arm.h - the up-convert-and-compute kernels of seed 003 §III (VNNI_INT2,
 * VNNI_INT1) on AArch64, written once for the dotprod and i8mm twins
 * (vnni-dotprod.c, vnni-i8mm.c), which include it under their own flags.  The
 * packed tiles are vnni.h's, shared with x86: one pack serves all.
 *
 * Why the x86 layout maps directly: a VNNI4 operand (one row's 4 consecutive k
 * per 32-bit lane) is also sdot's.  16 bytes of an int2 tile are rows 4g..4g+3
 * (one 32-bit word each) and byte i of a word holds k = i, 4+i, 8+i, 12+i in its
 * bit pairs, so (v & 3), (v >> 2 & 3), (v >> 4 & 3), (v >> 6) are the VNNI4
 * vectors of k 0-3, 4-7, 8-11, 12-15: 1 and + 3 shift-and per 64 weights, no
 * shuffle (x86 needs the lut shuffles because vpdpbusd's lanes are 32-bit too
 * but its unpack starts from nibbles).  int1: bits 16g..16g+15 of a k group are
 * bytes 0-15 of the VNNI4 vector of rows 4g..4g+3: dup / and / compare (cmtst)
 * expands them to 0 / -1 bytes, or-ing 1 gives the weight itself (+1 or -1).
 *
 * sdot multiplies signed by signed, so no code offset is needed for int1; int2
 * keeps the codes u = w + 1 in {0, 1, 2} (the shift/and gives them) and subtracts
 * the token's sum of q, as on x86: the same exact int32 sums either way.
 *
 * dotprod: vdotq_laneq_s32 takes the 4 activations of one k group from a lane
 * of the 16-byte activation register, so per tile and 4 rows: 4 sdot, and the
 * unpacked tile is reused by MP_VNNI_ARM_TB tokens.
 * i8mm: smmla multiplies a 2x8 int8 block (two rows, 8 consecutive k) by an 8x2
 * one (two tokens) into a 2x2 int32 block; zipping the 32-bit lanes of the VNNI4
 * vectors of k 0-3 and 4-7 gives exactly the 2x8 row blocks.  Token pairs go
 * through smmla; a lone last token (and N = 1) through the sdot path.
 * Output: mp_dequant of the exact sum, as the scalar path: bit for bit equal. */
#ifndef MP_VNNI_ARM_H
#define MP_VNNI_ARM_H

#include <arm_neon.h>
#include <string.h>

#include "vnni.h"
#include "../common/mp_numerics.h"

#define VA_INLINE static inline __attribute__((always_inline))

enum { MP_VNNI_ARM_TB = 2 }; /* tokens sharing one unpacked tile (sdot path) */

/* The VNNI4 vectors w[g][c] (rows 4g..4g+3, k 4c..4c+3) of one 16 x 16 tile:
 * int2 as codes (w + 1), int1 as the weights (+-1). */
VA_INLINE void unpack_tile(const uint8_t *tile, int one, int8x16_t w[4][4])
{
    if (!one) {
        const uint8x16_t m3 = vdupq_n_u8(3);
        for (int g = 0; g < 4; g++) {
            uint8x16_t v = vld1q_u8(tile + 16 * g);
            w[g][0] = vreinterpretq_s8_u8(vandq_u8(v, m3));
            w[g][1] = vreinterpretq_s8_u8(vandq_u8(vshrq_n_u8(v, 2), m3));
            w[g][2] = vreinterpretq_s8_u8(vandq_u8(vshrq_n_u8(v, 4), m3));
            w[g][3] = vreinterpretq_s8_u8(vshrq_n_u8(v, 6));
        }
        return;
    }
    static const uint8_t bitw[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    const uint8x16_t bw = vld1q_u8(bitw), one8 = vdupq_n_u8(1);
    for (int c = 0; c < 4; c++)     /* k group c: bytes 8c .. 8c + 7 */
        for (int g = 0; g < 4; g++) { /* rows 4g..4g+3: bits 16g.. = bytes 8c + 2g, +1 */
            const uint8_t *b = tile + 8 * c + 2 * g;
            uint8x16_t neg = vtstq_u8(vcombine_u8(vdup_n_u8(b[0]), vdup_n_u8(b[1])), bw);
            w[g][c] = vreinterpretq_s8_u8(vorrq_u8(neg, one8));
        }
}

/* The exact int32 sums of the 16 rows of block blk with tokens q[0..nt) over all
 * K tiles (sdot path): out[t][r]. */
VA_INLINE void block_sdot(const uint8_t *blk, size_t tile_bytes, int ntiles, int one,
                          const int8_t *const *q, const int nt, int32_t out[][16])
{
    int32x4_t acc[MP_VNNI_ARM_TB][4];
    for (int t = 0; t < nt; t++)
        for (int g = 0; g < 4; g++)
            acc[t][g] = vdupq_n_s32(0);
    for (int j = 0; j < ntiles; j++) {
        int8x16_t w[4][4];
        unpack_tile(blk + (size_t)j * tile_bytes, one, w);
        for (int t = 0; t < nt; t++) {
            int8x16_t a = vld1q_s8(q[t] + 16 * j);
            for (int g = 0; g < 4; g++) {
                acc[t][g] = vdotq_laneq_s32(acc[t][g], w[g][0], a, 0);
                acc[t][g] = vdotq_laneq_s32(acc[t][g], w[g][1], a, 1);
                acc[t][g] = vdotq_laneq_s32(acc[t][g], w[g][2], a, 2);
                acc[t][g] = vdotq_laneq_s32(acc[t][g], w[g][3], a, 3);
            }
        }
    }
    for (int t = 0; t < nt; t++)
        for (int g = 0; g < 4; g++)
            vst1q_s32(out[t] + 4 * g, acc[t][g]);
}

#if defined(__ARM_FEATURE_MATMUL_INT8)
/* The same sums for two tokens qa, qb with smmla: out[0][r], out[1][r]. */
VA_INLINE void block_smmla(const uint8_t *blk, size_t tile_bytes, int ntiles, int one,
                           const int8_t *qa, const int8_t *qb, int32_t out[][16])
{
    int32x4_t acc[8]; /* acc[2g + h]: rows 4g + 2h, +1 x tokens a, b */
    for (int i = 0; i < 8; i++)
        acc[i] = vdupq_n_s32(0);
    for (int j = 0; j < ntiles; j++) {
        int8x16_t w[4][4];
        unpack_tile(blk + (size_t)j * tile_bytes, one, w);
        /* B operands: [token a k 0-7 | token b k 0-7] and k 8-15 */
        int8x16_t b0 = vcombine_s8(vld1_s8(qa + 16 * j), vld1_s8(qb + 16 * j));
        int8x16_t b1 = vcombine_s8(vld1_s8(qa + 16 * j + 8), vld1_s8(qb + 16 * j + 8));
        for (int g = 0; g < 4; g++) {
            int32x4_t l0 = vreinterpretq_s32_s8(w[g][0]), l1 = vreinterpretq_s32_s8(w[g][1]);
            int32x4_t l2 = vreinterpretq_s32_s8(w[g][2]), l3 = vreinterpretq_s32_s8(w[g][3]);
            /* zip of 32-bit lanes: [row 4g k0-3, row 4g k4-7, row 4g+1 k0-3, k4-7] */
            acc[2 * g] = vmmlaq_s32(acc[2 * g], vreinterpretq_s8_s32(vzip1q_s32(l0, l1)), b0);
            acc[2 * g] = vmmlaq_s32(acc[2 * g], vreinterpretq_s8_s32(vzip1q_s32(l2, l3)), b1);
            acc[2 * g + 1] =
                vmmlaq_s32(acc[2 * g + 1], vreinterpretq_s8_s32(vzip2q_s32(l0, l1)), b0);
            acc[2 * g + 1] =
                vmmlaq_s32(acc[2 * g + 1], vreinterpretq_s8_s32(vzip2q_s32(l2, l3)), b1);
        }
    }
    for (int i = 0; i < 8; i++) { /* [r ta, r tb, r+1 ta, r+1 tb] */
        int32_t v[4];
        vst1q_s32(v, acc[i]);
        out[0][2 * i] = v[0], out[1][2 * i] = v[1];
        out[0][2 * i + 1] = v[2], out[1][2 * i + 1] = v[3];
    }
}
#endif

/* Contract: as the scalar path (vnni.h): m0 % 16 == 0, rows [m0, m1), all N
 * tokens; reads whole tiles and activations up to K rounded up to 16 (inside
 * mp_q8act's zero padding).  No scratch. */
VA_INLINE void vnni_arm_gemm(const mp_op *op, const void *act, int n, float *y, int m0,
                             int m1, int one)
{
    const int k = op->k, ntiles = (k + 15) / 16;
    const size_t tile_bytes = one ? MP_VNNI_INT1_TILE_BYTES : MP_VNNI_INT2_TILE_BYTES;
    const size_t blk_bytes = (size_t)ntiles * tile_bytes;
    for (int r0 = m0; r0 < m1; r0 += 16) {
        const uint8_t *blk = op->w + (size_t)(r0 / 16) * blk_bytes;
        const int nr = m1 - r0 < 16 ? m1 - r0 : 16;
        for (int t0 = 0; t0 < n; t0 += MP_VNNI_ARM_TB) {
            int nt = n - t0 < MP_VNNI_ARM_TB ? n - t0 : MP_VNNI_ARM_TB;
            const int8_t *q[MP_VNNI_ARM_TB];
            for (int t = 0; t < nt; t++)
                q[t] = mp_q8act_q(act, k, t0 + t);
            int32_t s[MP_VNNI_ARM_TB][16];
#if defined(__ARM_FEATURE_MATMUL_INT8)
            if (nt == 2)
                block_smmla(blk, tile_bytes, ntiles, one, q[0], q[1], s);
            else
                block_sdot(blk, tile_bytes, ntiles, one, q, 1, s);
#else
            if (nt == 2)
                block_sdot(blk, tile_bytes, ntiles, one, q, 2, s);
            else
                block_sdot(blk, tile_bytes, ntiles, one, q, 1, s);
#endif
            for (int t = 0; t < nt; t++) {
                const mp_q8hdr *h = mp_q8act_hdr(act, k, t0 + t);
                const int32_t off = one ? 0 : h->qsum; /* int2 codes: sum(u q) - sum(q) */
                float *yt = y + (size_t)(t0 + t) * op->m + r0;
                for (int r = 0; r < nr; r++)
                    yt[r] = mp_dequant(s[t][r] - off, op->w_scale, h->x_scale);
            }
        }
    }
}

/* the entry points' shape (MP_VNNI_ENTRY) */
static void vnni_arm_entry(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                           void *scratch, int int1)
{
    (void)scratch;
    vnni_arm_gemm(op, act, n, y, m0, m1, int1);
}

#endif
