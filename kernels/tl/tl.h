/* tl.h - the element-wise LUT engine behind TL1_0, TL1_1, TL2_0 and TL2_1
 * (seed 000 §3.1-3.2 and Appendix E, seed 004 §2 Tables 2-3).
 *
 * Index packing (seed 000 Tables 5-6):
 *   TL1, a weight pair (w0, w1): 4-bit index 3(w0+1) + (w1+1), 0..8, into a table
 *     of the 9 sums w0*a0 + w1*a1.
 *   TL2, a weight triple: v = 9w0 + 3w1 + w2 in [-13, 13]; 4-bit index |v| and a
 *     separate 1-bit sign (v < 0): element-wise mirror consolidation, 14 table
 *     entries instead of 27 (signed-unsigned weight splitting).
 * Block-fitting weight splitting: the first ThreeK = floor(K / 192) * 192 columns
 * of a TL2 tensor are triples, the remaining TwoK = K - ThreeK columns pairs (TL1);
 * a TL1 tensor has ThreeK = 0.  No padding along K.
 *
 * Packed layout (one contiguous stream, in the order the kernels consume it):
 *   rows are cut into blocks of bm (16 or 32) rows, the last padded with zero
 *   rows; per block: the TL2 steps, the TL1 steps, then (TL2 only) one int16 per
 *   row: the number of negative triples of that row (used by the SIMD paths, see
 *   below).  After all blocks a 32-byte trailer holds the float tensor scale.
 *   A step is 64 bytes of indices = four 16-byte lane blocks; a lane block holds
 *   16 consecutive rows (byte i = row 16h + i) of one group pair p: group 2p in
 *   the low nibble, group 2p+1 in the high nibble.  Lane block j of a step is
 *     bm = 16: (h 0, pair j)              -> a step covers 8 groups,
 *     bm = 32: (h j/2, pair j%2)          -> a step covers 4 groups,
 *   so bm rows share every table register (a 32-byte compute block is bm x by
 *   weights with by = 192/bm for TL2; the 64-byte step is bm x 256/bm weights for
 *   TL1).  A TL2 step is followed by 16 sign bytes: a little-endian 64-bit mask
 *   for the low-nibble lookups (bit b <-> index byte b of the step) and one for
 *   the high-nibble lookups.  TL2 step = 80 bytes, TL1 step = 64 bytes.
 *   Constraints: K % 16 (bm 16) or K % 8 (bm 32): the TL1 part is consumed in
 *   whole steps; K < 98304 so a row's negative-triple count fits int16.
 *
 * Tables (prepare, per token): a 64-byte header {float x_scale; int32 tmax}, then
 * the TL2 tables and the TL1 tables, each in "octets" of 8 groups:
 *   _1 (int16, lossless, pack-and-unpack): [low bytes of groups 0,2,4,6]
 *      [low bytes of 1,3,5,7][high bytes of 0,2,4,6][high bytes of 1,3,5,7],
 *      16 bytes each: 256 bytes per octet;
 *   _0 (int8, lossy): entries quantized with one scale per token, 127 / tmax,
 *      tmax = the largest |entry| of the token; stored biased by +128 (unsigned)
 *      [groups 0,2,4,6][groups 1,3,5,7]: 128 bytes per octet.
 *   then K bytes of int8 activations used while building the tables.
 * With this order every table register of a step is one plain 64-byte load
 * (AVX-512, bm 16), one 32-byte load broadcast to both halves (AVX-512, bm 32),
 * or one 32-byte load (AVX2).
 *
 * Sign (eq. 5): x = sign xor (sign + x), sign in {0, -1}.  The scalar path applies
 * it to every looked-up entry.  The SIMD paths apply the xor to the looked-up
 * bytes (before the _1 halves are rejoined: xor of both halves = xor of the int16)
 * and the add once per row: sum(sign xor x) + (number of negative triples), the
 * count stored with the row block.  _0 tables are biased by +128 so the lookups are
 * unsigned bytes; the bias, -128 per lookup, is removed at the end.
 */
#ifndef MP_TL_H
#define MP_TL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../mp_kernel.h"
#include "../common/mp_numerics.h"

enum {
    MP_TL_BK3 = 192,      /* ThreeK = floor(K / BK3) * BK3 */
    MP_TL_STEP = 64,      /* index bytes per step */
    MP_TL2_STEP = 80,     /* + 16 sign bytes */
    MP_TL_HDR = 64,       /* per-token table header */
    MP_TL_FLUSH = 32,     /* steps summed in int16 before widening */
};

/* Geometry of one (kind, bm, M, K). */
typedef struct mp_tl_geom {
    int tl2, bm, m, k;
    int three_k, g3, g2;  /* TL2 triples and TL1 pairs per row */
    int gps;              /* groups per step: 8 (bm 16) or 4 (bm 32) */
    int s3, s1;           /* TL2 and TL1 steps per row block */
    int nblk;             /* row blocks */
    size_t blk_bytes;     /* bytes per row block */
} mp_tl_geom;

static inline mp_tl_geom mp_tl_geom_of(int tl2, int bm, int m, int k)
{
    mp_tl_geom g;
    g.tl2 = tl2, g.bm = bm, g.m = m, g.k = k;
    g.three_k = tl2 ? k / MP_TL_BK3 * MP_TL_BK3 : 0;
    g.g3 = g.three_k / 3;
    g.g2 = (k - g.three_k) / 2;
    g.gps = bm == 16 ? 8 : 4;
    g.s3 = g.g3 / g.gps;
    g.s1 = g.g2 / g.gps;
    g.nblk = (m + bm - 1) / bm;
    g.blk_bytes = (size_t)g.s3 * MP_TL2_STEP + (size_t)g.s1 * MP_TL_STEP +
                  (tl2 ? 2 * (size_t)bm : 0);
    return g;
}

/* Bytes per table octet (8 groups). */
static inline size_t mp_tl_octet(int lossless)
{
    return lossless ? 256 : 128;
}

/* Per-token activation stride: header, TL2 and TL1 table octets, int8 copy. */
static inline size_t mp_tl_act_stride(int tl2, int lossless, int k)
{
    mp_tl_geom g = mp_tl_geom_of(tl2, 16, 1, k);
    size_t oct = (size_t)(g.g3 + 7) / 8 + (size_t)(g.g2 + 7) / 8;
    return MP_TL_HDR + oct * mp_tl_octet(lossless) + ((size_t)k + 63) / 64 * 64;
}

/* The TL2 tables of token t, then the TL1 tables right after them. */
static inline const uint8_t *mp_tl_tab3(const void *act, int tl2, int lossless, int k, int t)
{
    return (const uint8_t *)act + (size_t)t * mp_tl_act_stride(tl2, lossless, k) + MP_TL_HDR;
}
static inline const uint8_t *mp_tl_tab2(const void *act, int tl2, int lossless, int k, int t)
{
    mp_tl_geom g = mp_tl_geom_of(tl2, 16, 1, k);
    return mp_tl_tab3(act, tl2, lossless, k, t) +
           (size_t)(g.g3 + 7) / 8 * mp_tl_octet(lossless);
}

typedef struct mp_tl_hdr {
    float x_scale;
    int32_t tmax; /* _0: table scale is 127 / tmax */
} mp_tl_hdr;

static inline const mp_tl_hdr *mp_tl_act_hdr(const void *act, int tl2, int lossless, int k,
                                             int t)
{
    return (const mp_tl_hdr *)((const uint8_t *)act +
                               (size_t)t * mp_tl_act_stride(tl2, lossless, k));
}

/* The start of prepare for token t, shared by the scalar and AVX2 builders:
 * quantizes the token into the int8 copy at the end of its activation block
 * (*q), zeroes its tables (*tab3, *tab2; partial octets keep zero tables:
 * deterministic, never summed) and returns its header, tmax being the largest
 * |entry| of its tables for _0 (1 for _1, unused). */
static inline mp_tl_hdr mp_tl_token_start(const mp_tl_geom *g, int lossless, const float *x,
                                          void *act, int t, uint8_t **tab3, uint8_t **tab2,
                                          int8_t **q)
{
    uint8_t *base = (uint8_t *)act + (size_t)t * mp_tl_act_stride(g->tl2, lossless, g->k);
    size_t oct = mp_tl_octet(lossless);
    *tab3 = base + MP_TL_HDR;
    *tab2 = *tab3 + (size_t)(g->g3 + 7) / 8 * oct;
    *q = (int8_t *)(*tab2 + (size_t)(g->g2 + 7) / 8 * oct);
    mp_tl_hdr h = {mp_quant_row(x + (size_t)t * g->k, g->k, *q), 1};
    memset(*tab3, 0, (size_t)((uint8_t *)*q - *tab3));
    if (!lossless) {
        for (int gr = 0; gr < g->g3; gr++) {
            const int8_t *a = *q + 3 * gr;
            int s = abs(a[0]) + abs(a[1]) + abs(a[2]);
            h.tmax = s > h.tmax ? s : h.tmax;
        }
        for (int gr = 0; gr < g->g2; gr++) {
            const int8_t *a = *q + g->three_k + 2 * gr;
            int s = abs(a[0]) + abs(a[1]);
            h.tmax = s > h.tmax ? s : h.tmax;
        }
    }
    return h;
}

/* _0 output: the int8-table sum s8 is acc * 127 / tmax; every path uses this. */
static inline float mp_tl_dequant8(int32_t s8, int32_t tmax, float w_scale, float x_scale)
{
    return (float)s8 * ((float)tmax / 127.0f) / x_scale * w_scale;
}

/* ---- generic entry points (kind, bm, exactness as arguments) ------------------ */
int mp_tl_check(int tl2, int bm, int m, int k, char *why, size_t len);
size_t mp_tl_packed_size(int tl2, int bm, int m, int k);
void mp_tl_pack(int tl2, int bm, const int8_t *w, float w_scale, int m, int k, uint8_t *out);
void mp_tl_unpack(int tl2, int bm, const uint8_t *p, int m, int k, int8_t *w);
void mp_tl_prepare(int tl2, int lossless, const float *x, int k, void *act, int t0, int t1);
/* Finishes one row block: int32 sums per row (rows [r0, r1) of the block) -> y. */
void mp_tl_store(const mp_op *op, int tl2, int lossless, const void *act, int t,
                 const int32_t *sums, int row0, int nrows, float *y);

/* The compute slot of one path, what its catalog rows name: output rows [m0, m1)
 * (m0 a multiple of bm) for all tokens.  Defined as mp_tl_gemm__<isa> in
 * tl-<isa>.c (tl-x86.h for the x86 paths) and declared here for every ISA
 * token, so a new path is its kernel file and its catalog line, nothing else.
 * The row's constants come from the row itself (mp_tl_kind_of below).
 * Over-read: none beyond the packed tensor and the activation buffer. */
MP_DECLARE_COMPUTE(mp_tl_gemm);

/* The constants a TL catalog row fixes, read off the row: its method is
 * "TL<1|2>_<0|1>" (variants/mp_formats.h: TL2 = triples, _1 = lossless int16
 * tables) and its row block bm is its m_align (variants/elut.c sets both). */
typedef struct mp_tl_kind {
    int tl2, lossless, bm;
} mp_tl_kind;
static inline mp_tl_kind mp_tl_kind_of(const mp_op *op)
{
    const char *m = op->v->method;
    mp_tl_kind c = {m[2] == '2', m[4] == '1', op->v->m_align};
    return c;
}

/* An engine body BODY(op, tl2, ll, bm, ...) (static inline) called with (tl2, ll,
 * bm) as constants: each path compiles one specialized body per (kind,
 * exactness, bm). */
#define MP_TL_BM_(BODY, op, T, L, bm, ...)                                              \
    ((bm) == 16 ? BODY(op, T, L, 16, __VA_ARGS__) : BODY(op, T, L, 32, __VA_ARGS__))
#define MP_TL_LL_(BODY, op, T, ll, bm, ...)                                             \
    ((ll) ? MP_TL_BM_(BODY, op, T, 1, bm, __VA_ARGS__) : MP_TL_BM_(BODY, op, T, 0, bm, __VA_ARGS__))
#define MP_TL_SPECIALIZE(BODY, op, tl2, ll, bm, ...)                                    \
    ((tl2) ? MP_TL_LL_(BODY, op, 1, ll, bm, __VA_ARGS__) : MP_TL_LL_(BODY, op, 0, ll, bm, __VA_ARGS__))

/* ---- per-format slots (variants/elut.c): NAME = tl1_0, tl1_1, tl2_0, tl2_1 ----
 * Each name spelled out where it is defined (grep finds it): the layout and
 * activation slots in tl-scalar.c, the AVX2 prepare in tl-avx2.c. */
#define MP_TL_DECLARE_LAYOUT(KIND, BM)                                                  \
    int mp_##KIND##_bm##BM##_check(int m, int k, const int *param, char *why, size_t len); \
    size_t mp_##KIND##_bm##BM##_packed_size(int m, int k, const int *param);           \
    void mp_##KIND##_bm##BM##_pack(const int8_t *w, float w_scale, int m, int k,       \
                                   const int *param, uint8_t *out);                    \
    void mp_##KIND##_bm##BM##_unpack(const uint8_t *p, int m, int k, const int *param, \
                                     int8_t *w);
#define MP_TL_PREPARE_ARGS                                                              \
    const mp_op *op, const float *x, int n, void *act, int t0, int t1
#define MP_TL_DECLARE_ACT(NAME)                                                          \
    size_t mp_##NAME##_act_size(int n, int k, const int *param);                       \
    void mp_##NAME##_prepare(MP_TL_PREPARE_ARGS);                                       \
    void mp_##NAME##_prepare__avx2(MP_TL_PREPARE_ARGS);

MP_TL_DECLARE_LAYOUT(tl1, 16)
MP_TL_DECLARE_LAYOUT(tl1, 32)
MP_TL_DECLARE_LAYOUT(tl2, 16)
MP_TL_DECLARE_LAYOUT(tl2, 32)
MP_TL_DECLARE_ACT(tl1_0)
MP_TL_DECLARE_ACT(tl1_1)
MP_TL_DECLARE_ACT(tl2_0)
MP_TL_DECLARE_ACT(tl2_1)
/* The same tables as mp_tl_prepare built with AVX2 (tl-avx2.c), for the AVX2 and
 * AVX-512 rows. */
void mp_tl_prepare__avx2(int tl2, int lossless, const float *x, int k, void *act, int t0, int t1);

/* One catalog prepare slot FN over IMPL (mp_tl_prepare or mp_tl_prepare__avx2). */
#define MP_TL_PREPARE_ENTRY(FN, IMPL, TL2, LL)                                             \
    void FN(MP_TL_PREPARE_ARGS)                                                           \
    {                                                                                     \
        (void)n;                                                                          \
        IMPL(TL2, LL, x, op->k, act, t0, t1);                                             \
    }

#endif
