/* tl-x86.h - the TL1/TL2 (_0 and _1) GEMM written once for x86 vector widths:
 * included by tl-avx2.c (256-bit) and tl-avx512.c (512-bit) after they define
 * the vector operations below (seed 000 §3.1-3.2, Fig. 5-6, Appendix E).  It
 * holds no intrinsics of its own but its prefetches; the includer gives the ISA.
 * Layout, tables and the sign trick in tl.h.
 *
 * A 64-byte step of 4-bit indices is TL_NV = 64 / VB vectors (AVX2: two 32-byte
 * halves, each one bm x by compute block of Fig. 6; AVX-512: the whole step).
 * Each vector is split into its low and high nibbles and looked up with vpshufb
 * in its 128-bit lanes.  With bm = 32 the halves of a step are rows 0-15 and
 * 16-31 of the same four groups and share the table registers (VLOAD_TAB32: a
 * 32-byte table in every 32-byte half of a vector); with bm = 16 they are the
 * same rows of groups 0-3 and 4-7 (one full-width table load per vector).  Up to
 * TL_RB_MAX row blocks share each table load (the rb parameter of the AVX-512
 * rows: two weight streams).  Vector h of row block r accumulates into a[r *
 * TL_NV + h], so every int16 word takes two lookups per step, as in the bound:
 *
 * _1: the int16 tables are held as a low-byte and a high-byte table; each index
 * vector is looked up in both and the halves rejoined with vpunpck{l,h}bw (the
 * pack-and-unpack technique, §3.2.1), summed in int16 for MP_TL_FLUSH steps
 * (|entry| <= 381, two lookups per step: 32 * 2 * 382 < 32767), then widened.
 * _0: one biased int8 (unsigned) table; the lookups are summed as 16-bit words:
 * the whole word (low byte + 256 * high byte, mod 2^16) and the high byte alone,
 * from which the low-byte sum is recovered exactly (both < 2^16 for 64 lookups).
 * The TL2 sign is the xor half of eq. 5 (sign bits expanded to bytes by
 * VSIGNS), its add half the per-row count of negative triples stored with the
 * block.  The float scaling divides and multiplies in VB / 4 IEEE lanes in the
 * scalar path's order (STORE_TAIL finishes rows short of a vector).  Bit for bit
 * equal to tl-scalar.c: the same integer sums, the same dequantization.
 *
 * The includer defines:
 *   FN(name)            name with the ISA suffix
 *   VB, TL_RB_MAX       bytes per vector (32 or 64); row blocks per table load
 *   V, VF               integer and float vectors of VB bytes
 *   VZERO() VSET1_8(x) VSET1_32(x)   zero, every byte / dword x
 *   VLOAD(p) VSTORE(p, v)   unaligned
 *   VLOAD_TAB32(p)      the 32 bytes at p into every 32-byte half
 *   VAND VXOR VADD16 VSUB16 VADD32 VSHUF(t, i) VUNPACKLO8 VUNPACKHI8 (a, b)
 *   VSLLI16 VSRLI16 VSLLI32 VSRLI32 VSRAI32 (v, n)
 *   VSIGNS(p)           VB sign bits at p (bit b <-> byte b, little endian) as
 *                       bytes 0 / 0xff
 *   VF_SET1(x) VF_CVT(v) VF_MUL VF_DIV (a, b) VF_STORE(p, v)
 *   STORE_TAIL(op, tl2, ll, act, t, sums, row0, nr, y)   mp_tl_store's contract
 *                       for nr < VB / 4 rows */
#include <immintrin.h>

#include "../common/mp_x86.h"

#include "tl.h"

enum { PF_DEFAULT = 8192, TL_NV = 64 / VB };

#define INLINE static inline __attribute__((always_inline))

typedef struct acc_t {
    V a16[2];  /* _1: int16 sums of unpacklo / unpackhi; _0: word sum, high-byte sum */
    V a32[4];  /* widened; row of dword d in each lane given by row_of() */
} acc_t;

INLINE void acc_zero(acc_t *a)
{
    a->a16[0] = a->a16[1] = VZERO();
    for (int i = 0; i < 4; i++)
        a->a32[i] = VZERO();
}

INLINE void acc_flush(acc_t *a, int ll)
{
    if (ll) {
        a->a32[0] = VADD32(a->a32[0], VSRAI32(VSLLI32(a->a16[0], 16), 16));
        a->a32[1] = VADD32(a->a32[1], VSRAI32(a->a16[0], 16));
        a->a32[2] = VADD32(a->a32[2], VSRAI32(VSLLI32(a->a16[1], 16), 16));
        a->a32[3] = VADD32(a->a32[3], VSRAI32(a->a16[1], 16));
    } else {
        const V lo16 = VSET1_32(0xffff);
        V even = VSUB16(a->a16[0], VSLLI16(a->a16[1], 8));
        a->a32[0] = VADD32(a->a32[0], VAND(even, lo16));
        a->a32[1] = VADD32(a->a32[1], VSRLI32(even, 16));
        a->a32[2] = VADD32(a->a32[2], VAND(a->a16[1], lo16));
        a->a32[3] = VADD32(a->a32[3], VSRLI32(a->a16[1], 16));
    }
    a->a16[0] = a->a16[1] = VZERO();
}

/* Row (within a 16-row lane block) of dword d of accumulator i. */
static inline int row_of(int ll, int i, int d)
{
    if (ll) /* unpacklo: rows 0-7 as words, unpackhi: rows 8-15 */
        return (i >= 2 ? 8 : 0) + 2 * d + (i & 1);
    /* word 2d holds bytes 4d, 4d+1; word 2d+1 bytes 4d+2, 4d+3 */
    static const int off[4] = {0, 2, 1, 3};
    return 4 * d + off[i];
}

/* Looks up one index vector v with tables ta (low nibbles) and tb (high
 * nibbles) into accumulator a; signs: the TL2 sign bits of v, NULL for TL1. */
INLINE void lookup(acc_t *a, V v, const V *ta, const V *tb, int ll, const uint8_t *signs)
{
    const V m0f = VSET1_8(0x0f);
    V il = VAND(v, m0f);
    V ih = VAND(VSRLI16(v, 4), m0f);
    V sa = VZERO(), sb = sa;
    if (signs) {
        sa = VSIGNS(signs);
        sb = VSIGNS(signs + 8);
    }
    if (ll) {
        V al = VSHUF(ta[0], il), ah = VSHUF(ta[1], il);
        V bl = VSHUF(tb[0], ih), bh = VSHUF(tb[1], ih);
        if (signs) {
            al = VXOR(al, sa), ah = VXOR(ah, sa);
            bl = VXOR(bl, sb), bh = VXOR(bh, sb);
        }
        a->a16[0] = VADD16(a->a16[0], VADD16(VUNPACKLO8(al, ah), VUNPACKLO8(bl, bh)));
        a->a16[1] = VADD16(a->a16[1], VADD16(VUNPACKHI8(al, ah), VUNPACKHI8(bl, bh)));
    } else {
        V x = VSHUF(ta[0], il), y = VSHUF(tb[0], ih);
        if (signs)
            x = VXOR(x, sa), y = VXOR(y, sb);
        a->a16[0] = VADD16(a->a16[0], VADD16(x, y));
        a->a16[1] = VADD16(a->a16[1], VADD16(VSRLI16(x, 8), VSRLI16(y, 8)));
    }
}

/* One part (TL2 steps with signs, or TL1 steps) of R row blocks: each table
 * register is loaded once for R * bm rows (and, bm = 32, once for both vectors
 * of a step); wp[r] walks block r's stream. */
INLINE void run_part(acc_t *a, const uint8_t **wp, int R, int nsteps, int sign, int ll,
                     int bm, const uint8_t *tab, size_t pf, int pfh)
{
    const size_t step = sign ? MP_TL2_STEP : MP_TL_STEP;
    const size_t oct = mp_tl_octet(ll);
    for (int s0 = 0; s0 < nsteps; s0 += MP_TL_FLUSH) {
        int s1 = s0 + MP_TL_FLUSH < nsteps ? s0 + MP_TL_FLUSH : nsteps;
        for (int s = s0; s < s1; s++) {
            V ta[2], tb[2]; /* [0] low-byte / int8 table, [1] high-byte table */
            for (int h = 0; h < TL_NV; h++) {
                if (bm == 16 || h == 0)
                    for (int hb = 0; hb < 1 + ll; hb++) {
                        if (bm == 16) {
                            const uint8_t *tp = tab + (size_t)s * oct + h * VB + hb * 128;
                            ta[hb] = VLOAD(tp);
                            tb[hb] = VLOAD(tp + 64);
                        } else {
                            const uint8_t *tp = tab + (size_t)(s >> 1) * oct + (s & 1) * 32 + hb * 128;
                            ta[hb] = VLOAD_TAB32(tp);
                            tb[hb] = VLOAD_TAB32(tp + 64);
                        }
                    }
                for (int r = 0; r < R; r++) {
                    const uint8_t *w = wp[r];
                    if (h == 0 && pf) { /* far (hint pfh), near (1 KB) into L1: mp_x86.h */
                        mp_x86_prefetch(w + pf, pfh);
                        _mm_prefetch((const char *)w + 1024, _MM_HINT_T0);
                        if (sign) {
                            mp_x86_prefetch(w + pf + 64, pfh);
                            _mm_prefetch((const char *)w + 1024 + 64, _MM_HINT_T0);
                        }
                    }
                    lookup(&a[r * TL_NV + h], VLOAD(w + h * VB), ta, tb, ll,
                           sign ? w + 64 + h * (VB / 8) : NULL);
                }
            }
            for (int r = 0; r < R; r++)
                wp[r] += step;
        }
        for (int i = 0; i < R * TL_NV; i++)
            acc_flush(&a[i], ll);
    }
}

/* Sums of R consecutive row blocks starting at blk into sums[r * bm + row]. */
INLINE void run_block(const mp_tl_geom *g, int ll, int R, const uint8_t *blk, const uint8_t *tab3,
                      const uint8_t *tab2, size_t pf, int pfh, int32_t *sums)
{
    const int bm = g->bm;
    acc_t a[TL_RB_MAX * TL_NV];
    const uint8_t *wp[TL_RB_MAX];
    for (int i = 0; i < R * TL_NV; i++)
        acc_zero(&a[i]);
    for (int r = 0; r < R; r++)
        wp[r] = blk + (size_t)r * g->blk_bytes;
    if (g->tl2)
        run_part(a, wp, R, g->s3, 1, ll, bm, tab3, pf, pfh);
    run_part(a, wp, R, g->s1, 0, ll, bm, tab2, pf, pfh);
    for (int r = 0; r < R; r++) {
        int32_t *sr = sums + r * bm;
        for (int j = 0; j < bm; j++)
            sr[j] = ll ? 0 : -128 * (g->g3 + g->g2); /* the _0 bias */
        for (int h = 0; h < TL_NV; h++) {
            int32_t lanes[4][VB / 4];
            for (int i = 0; i < 4; i++)
                VSTORE(lanes[i], a[r * TL_NV + h].a32[i]);
            /* 128-bit lane l of vector h is lane block j = h * VB / 16 + l of the step */
            for (int i = 0; i < 4; i++)
                for (int l = 0; l < VB / 16; l++)
                    for (int d = 0; d < 4; d++)
                        sr[(bm == 32 ? (h * VB / 16 + l) / 2 * 16 : 0) + row_of(ll, i, d)] +=
                            lanes[i][l * 4 + d];
        }
        if (g->tl2)
            for (int j = 0; j < bm; j++) {
                int16_t c;
                __builtin_memcpy(&c, wp[r] + 2 * j, 2);
                sr[j] += c; /* the add half of eq. 5 */
            }
    }
}

/* mp_tl_store with VB / 4-lane IEEE division and multiplication: the same
 * roundings, in the same order, as the scalar mp_dequant / mp_tl_dequant8. */
INLINE void store(const mp_op *op, int tl2, int ll, const void *act, int t, const int32_t *sums,
                  int row0, int nr, float *y)
{
    const mp_tl_hdr *h = mp_tl_act_hdr(act, tl2, ll, op->k, t);
    const VF xs = VF_SET1(h->x_scale), ws = VF_SET1(op->w_scale);
    const VF ts = VF_SET1((float)h->tmax / 127.0f);
    float *yt = y + (size_t)t * op->m + row0;
    int i = 0;
    for (; i + VB / 4 <= nr; i += VB / 4) {
        VF f = VF_CVT(VLOAD(sums + i));
        if (!ll)
            f = VF_MUL(f, ts);
        VF_STORE(yt + i, VF_MUL(VF_DIV(f, xs), ws));
    }
    if (i < nr)
        STORE_TAIL(op, tl2, ll, act, t, sums + i, row0 + i, nr - i, y);
}

INLINE void gemm(const mp_op *op, int tl2, int ll, int bm, const void *act, int n, float *y,
                 int m0, int m1)
{
    mp_tl_geom g = mp_tl_geom_of(tl2, bm, op->m, op->k);
    const size_t pf = (size_t)mp_op_param(op, "pf", PF_DEFAULT);
    const int pfh = mp_op_param(op, "pfh", MP_PFH_T1), rb = mp_op_param(op, "rb", 1);
    int32_t sums[TL_RB_MAX * 32];
    for (int r0 = m0; r0 < m1;) {
        const uint8_t *blk = op->w + (size_t)(r0 / bm) * g.blk_bytes;
        /* two blocks at once while two whole blocks remain in [r0, m1) */
        int two = TL_RB_MAX > 1 && rb == 2 && m1 - r0 >= 2 * bm;
        int nr = two ? 2 * bm : (m1 - r0 < bm ? m1 - r0 : bm);
        for (int t = 0; t < n; t++) {
            const uint8_t *t3 = mp_tl_tab3(act, tl2, ll, op->k, t);
            const uint8_t *t2 = mp_tl_tab2(act, tl2, ll, op->k, t);
            if (two)
                run_block(&g, ll, 2, blk, t3, t2, pf, pfh, sums);
            else
                run_block(&g, ll, 1, blk, t3, t2, pf, pfh, sums);
            store(op, tl2, ll, act, t, sums, r0, nr, y);
        }
        r0 += nr;
    }
}

void FN(mp_tl_gemm)(MP_COMPUTE_ARGS)
{
    mp_tl_kind c = mp_tl_kind_of(op);
    (void)scratch;
    MP_TL_SPECIALIZE(gemm, op, c.tl2, c.lossless, c.bm, act, n, y, m0, m1);
}
