/* vlut-simd.h - the Vec-LUT table path (seed 001 §3.2-3.4, §4) written once for
 * any vector width: included by vlut-avx2.c and vlut-avx512.c, which define the
 * vector type and operations below before including it.  This file itself holds
 * no intrinsics; it gets its ISA from the file that includes it.
 *
 * The includer defines:
 *   V, VL                 vector of VL int16 lanes
 *   VLOAD(p) VSTORE(p,v)  aligned-or-not load/store of VL int16
 *   VADD(a,b) VSUB(a,b)   int16 lane add / subtract (no saturation)
 *   VZERO()
 *   VACC32(p, v)          p[0..VL) += sign-extended lanes of v (int32 memory)
 *   W                     vector of VL int32 lanes (a struct)
 *   WZERO() WADD16(w, v)  w += sign-extended v
 *   WSTORE(p, w)          p[0..VL) = w
 * or, for x86 (a W of two vectors of VL/2 int32 each, written here once), only
 *   VWIDEN_LO(v) VWIDEN_HI(v)  the low / high VL/2 lanes of v sign-extended
 *   V32ADD(a, b)               int32 lane add
 *   FN(name)              name with the ISA suffix
 * Only tcl = 1 is specialised here (tcl = 0 is the per-token scalar LUT baseline
 * of the ablation and runs the portable code).
 */
#include <string.h>

#include "vlut.h"
#include "../common/mp_numerics.h"

#define VLUT_INLINE static inline __attribute__((always_inline))

#ifdef VWIDEN_LO
typedef struct FN(w) {
    V lo, hi;
} FN(w);
#define W FN(w)

static inline W FN(wzero)(void)
{
    return (W){VZERO(), VZERO()};
}

static inline W FN(wadd16)(W w, V v)
{
    w.lo = V32ADD(w.lo, VWIDEN_LO(v));
    w.hi = V32ADD(w.hi, VWIDEN_HI(v));
    return w;
}

static inline void FN(wstore)(int32_t *p, W w)
{
    VSTORE(p, w.lo);
    VSTORE(p + VL / 2, w.hi);
}

static inline void FN(vacc32)(int32_t *p, V v)
{
    V lo = VWIDEN_LO(v), hi = VWIDEN_HI(v);
    VSTORE(p, V32ADD(VLOAD(p), lo));
    VSTORE(p + VL / 2, V32ADD(VLOAD(p + VL / 2), hi));
}

#define WZERO() FN(wzero)()
#define WADD16(w, v) FN(wadd16)((w), (v))
#define WSTORE(p, w) FN(wstore)((p), (w))
#define VACC32(p, v) FN(vacc32)((p), (v))
#endif

static const int FN(pow3)[6] = {1, 3, 9, 27, 81, 243};

static size_t FN(align64)(size_t x)
{
    return (x + 63) & ~(size_t)63;
}

/* Sub-tables of cnt groups of g from the token-contiguous activation tile a16
 * (feature rows of NV*VL int16) starting at feature k0; sub-table stride `sub`
 * int16.  topo=1: level p+1 from level p in place, highest index first (each
 * entry one add or sub from a previous entry, Fig. 7); topo=0: every entry summed
 * from its trits (Alg. 1 lines 8-19). */
VLUT_INLINE void FN(build_nv)(int16_t *T, size_t sub, const int16_t *a16, int k0, int cnt,
                              int g, int topo, const int NV)
{
    const int nt = NV * VL;
    for (int j = 0; j < cnt; j++) {
        int16_t *Tj = T + (size_t)j * sub;
        const int16_t *a = a16 + (size_t)(k0 + j * g) * nt;
        if (topo) {
            for (int v = 0; v < NV; v++) {
                V a0 = VLOAD(a + v * VL);
                VSTORE(Tj + v * VL, VSUB(VZERO(), a0));
                VSTORE(Tj + nt + v * VL, VZERO());
                VSTORE(Tj + 2 * nt + v * VL, a0);
            }
            for (int p = 1; p < g; p++) {
                V ap[8];
                for (int v = 0; v < NV; v++)
                    ap[v] = VLOAD(a + (size_t)p * nt + v * VL);
                for (int i = FN(pow3)[p] - 1; i >= 0; i--) {
                    int16_t *src = Tj + (size_t)i * nt, *dst = Tj + (size_t)(3 * i) * nt;
                    for (int v = 0; v < NV; v++) {
                        V e = VLOAD(src + v * VL);
                        VSTORE(dst + v * VL, VSUB(e, ap[v]));
                        VSTORE(dst + nt + v * VL, e);
                        VSTORE(dst + 2 * nt + v * VL, VADD(e, ap[v]));
                    }
                }
            }
        } else {
            int dig[5] = {0, 0, 0, 0, 0}; /* base-3 digits of i, most significant first */
            for (int i = 0; i < FN(pow3)[g]; i++) {
                for (int v = 0; v < NV; v++) {
                    V s = VZERO();
                    for (int p = 0; p < g; p++) {
                        if (dig[p] == 2)
                            s = VADD(s, VLOAD(a + (size_t)p * nt + v * VL));
                        else if (dig[p] == 0)
                            s = VSUB(s, VLOAD(a + (size_t)p * nt + v * VL));
                    }
                    VSTORE(Tj + (size_t)i * nt + v * VL, s);
                }
                for (int p = g - 1; p >= 0 && ++dig[p] == 3; p--)
                    dig[p] = 0;
            }
        }
    }
}

/* Lookups of nr rows (cnt bytes each, consecutive) into int32 accumulators
 * acc[nr][NV*VL]: int16 sums over the tile's cnt <= B groups (§3.4: cnt*127*g <=
 * 32767), widened once per row and tile.  The byte is the row of the sub-table.
 * cnt, NV and the sub-table stride are constants in each copy, so the lookups
 * unroll into one vpaddw with an immediate offset per group. */
enum { ACC_FIRST, ACC_ADD, ACC_FLUSH, ACC_SINGLE }; /* place of a tile in its block */

VLUT_INLINE void FN(rows_hier)(const int16_t *T, const int S, const uint8_t *w, const int cnt,
                               int nr, int32_t *acc, int16_t *a16, int mode, const int NV)
{
    const int nt = NV * VL;
    const size_t sub = (size_t)S * nt;
    for (int r = 0; r < nr; r++, w += cnt, acc += nt, a16 += nt) {
        V s[8];
        const int16_t *row = T + (size_t)w[0] * nt;
        for (int v = 0; v < NV; v++)
            s[v] = VLOAD(row + v * VL);
#pragma GCC unroll 16
        for (int j = 1; j < cnt; j++) {
            row = T + (size_t)j * sub + (size_t)w[j] * nt;
            for (int v = 0; v < NV; v++)
                s[v] = VADD(s[v], VLOAD(row + v * VL));
        }
        /* int16 block sums persist across the tiles of a block in a16 */
        if (mode == ACC_FIRST)
            for (int v = 0; v < NV; v++)
                VSTORE(a16 + v * VL, s[v]);
        else if (mode == ACC_ADD)
            for (int v = 0; v < NV; v++)
                VSTORE(a16 + v * VL, VADD(s[v], VLOAD(a16 + v * VL)));
        else if (mode == ACC_FLUSH)
            for (int v = 0; v < NV; v++)
                VACC32(acc + v * VL, VADD(s[v], VLOAD(a16 + v * VL)));
        else
            for (int v = 0; v < NV; v++)
                VACC32(acc + v * VL, s[v]);
    }
}

/* hier=0: every lookup widened to int32 (the ablation's baseline accumulation). */
VLUT_INLINE void FN(rows_flat)(const int16_t *T, size_t sub, const uint8_t *w, int cnt, int nr,
                               int32_t *acc, const int NV)
{
    const int nt = NV * VL;
    for (int r = 0; r < nr; r++, w += cnt, acc += nt) {
        W s[8];
        for (int v = 0; v < NV; v++)
            s[v] = WZERO();
        for (int j = 0; j < cnt; j++) {
            const int16_t *row = T + (size_t)j * sub + (size_t)w[j] * nt;
            for (int v = 0; v < NV; v++)
                s[v] = WADD16(s[v], VLOAD(row + v * VL));
        }
        for (int v = 0; v < NV; v++) {
            int32_t tmp[VL];
            WSTORE(tmp, s[v]);
            for (int t = 0; t < VL; t++)
                acc[v * VL + t] += tmp[t];
        }
    }
}

typedef mp_vlut_job FN(job);

static void FN(store)(const FN(job) * c, const int32_t *acc, int tok0, float *y, int r0,
                      int r1)
{
    int tn = c->n - tok0 < c->nt ? c->n - tok0 : c->nt;
    const float ws = c->op->w_scale;
    /* the output transposition of §3.3, fused into the final dequantization */
    for (int t = 0; t < tn; t++) {
        const float xs = c->A.x_scale[tok0 + t];
        float *yt = y + (size_t)(tok0 + t) * c->op->m;
        const int32_t *a = acc + t;
        for (int r = r0; r < r1; r++, a += c->nt)
            yt[r] = mp_dequant(*a, ws, xs);
    }
}

#define VLUT_ROWS_CASE(Sc, NVc, C)                                                   \
    case C:                                                                          \
        FN(rows_hier)(T, Sc, w, C, nr, acc, a16, mode, NVc);                         \
        return;
#define VLUT_ROWS_CASES(Sc, NVc)                                                     \
    switch (cnt) {                                                                   \
        VLUT_ROWS_CASE(Sc, NVc, 1) VLUT_ROWS_CASE(Sc, NVc, 2) VLUT_ROWS_CASE(Sc, NVc, 3) \
        VLUT_ROWS_CASE(Sc, NVc, 4) VLUT_ROWS_CASE(Sc, NVc, 5) VLUT_ROWS_CASE(Sc, NVc, 6) \
        VLUT_ROWS_CASE(Sc, NVc, 7) VLUT_ROWS_CASE(Sc, NVc, 8) VLUT_ROWS_CASE(Sc, NVc, 9) \
        VLUT_ROWS_CASE(Sc, NVc, 10) VLUT_ROWS_CASE(Sc, NVc, 11)                      \
        VLUT_ROWS_CASE(Sc, NVc, 12) VLUT_ROWS_CASE(Sc, NVc, 13)                      \
        VLUT_ROWS_CASE(Sc, NVc, 14) VLUT_ROWS_CASE(Sc, NVc, 15)                      \
        VLUT_ROWS_CASE(Sc, NVc, 16)                                                  \
    default:                                                                         \
        FN(rows_hier)(T, Sc, w, cnt, nr, acc, a16, mode, NVc);                       \
        return;                                                                      \
    }

/* NV = 8 exists only for 16-lane vectors (N_tile = 128 with AVX2) */
#if VL == 16
#define VLUT_ROWS_NV(Sc)                                                             \
    switch (NV) {                                                                    \
    case 1: VLUT_ROWS_CASES(Sc, 1)                                                   \
    case 2: VLUT_ROWS_CASES(Sc, 2)                                                   \
    case 4: VLUT_ROWS_CASES(Sc, 4)                                                   \
    default: VLUT_ROWS_CASES(Sc, 8)                                                  \
    }
#else
#define VLUT_ROWS_NV(Sc)                                                             \
    switch (NV) {                                                                    \
    case 1: VLUT_ROWS_CASES(Sc, 1)                                                   \
    case 2: VLUT_ROWS_CASES(Sc, 2)                                                   \
    default: VLUT_ROWS_CASES(Sc, 4)                                                  \
    }
#endif

/* One out-of-line copy per (S, NV, cnt): the hot loop gets all registers. */
static __attribute__((noinline)) void FN(rows)(const int16_t *T, int S, int hier,
                                               const uint8_t *w, int cnt, int nr,
                                               int32_t *acc, int16_t *a16, int mode, int NV)
{
    if (!hier) {
        size_t sub = (size_t)S * NV * VL;
        switch (NV) {
        case 1: FN(rows_flat)(T, sub, w, cnt, nr, acc, 1); return;
        case 2: FN(rows_flat)(T, sub, w, cnt, nr, acc, 2); return;
        case 4: FN(rows_flat)(T, sub, w, cnt, nr, acc, 4); return;
        default: FN(rows_flat)(T, sub, w, cnt, nr, acc, 8); return;
        }
    }
    if (S == 81)
        VLUT_ROWS_NV(81)
    else
        VLUT_ROWS_NV(243)
}

/* The table path for one N_tile width (NV vectors).  stream=1: per row block,
 * per N tile, per K tile: build the tile's sub-tables (in L1 by the §4 rule) and
 * consume them at once for every row of the block.  stream=0: the whole table of
 * the N tile first (Alg. 1), then each row over all of K, int16 blocks of at most
 * B groups widened into int32 registers. */
VLUT_INLINE void FN(gemm_nv)(const FN(job) * c, float *y, int m0, int m1, void *scratch,
                             int stream, const int NV)
{
    const mp_op *op = c->op;
    const int m = op->m, nt = NV * VL, n = c->n;
    const size_t sub = (size_t)c->S * nt;
    int16_t *T = scratch;
    size_t tgroups = (size_t)mp_vlut_table_groups(&c->gm, stream);
    int32_t *acc = (int32_t *)((uint8_t *)scratch + FN(align64)(tgroups * sub * 2));
    int16_t *a16acc = (int16_t *)(acc + (size_t)MP_VLUT_MB * nt);
    const int B = c->gm.gm == 4 ? MP_VLUT_B4 : MP_VLUT_B5;
    if (stream) {
        for (int b0 = m0; b0 < m1; b0 += MP_VLUT_MB) {
            int b1 = b0 + MP_VLUT_MB < m1 ? b0 + MP_VLUT_MB : m1;
            for (int tok0 = 0; tok0 < n; tok0 += nt) {
                const int16_t *a16 = c->A.t16 + (size_t)(tok0 / nt) * op->k * nt;
                memset(acc, 0, sizeof(int32_t) * (size_t)(b1 - b0) * nt);
                int ingrp = 0;
                for (int ti = 0; ti < c->gm.ntiles; ti++) {
                    int f, cnt, g;
                    mp_vlut_tile(&c->gm, ti, &f, &cnt, &g);
                    FN(build_nv)(T, sub, a16, mp_vlut_group_k(&c->gm, f), cnt, g, c->topo, NV);
                    /* §3.4: a block of tiles holds at most B groups in int16 */
                    int nxt = 0, cf, cc, cg;
                    if (ti + 1 < c->gm.ntiles)
                        mp_vlut_tile(&c->gm, ti + 1, &cf, &cc, &cg), nxt = cc;
                    int close = !nxt || ingrp + cnt + nxt > B;
                    int mode = ingrp ? (close ? ACC_FLUSH : ACC_ADD)
                                     : (close ? ACC_SINGLE : ACC_FIRST);
                    ingrp = close ? 0 : ingrp + cnt;
                    FN(rows)(T, c->S, c->hier, op->w + (size_t)m * f + (size_t)b0 * cnt,
                             cnt, b1 - b0, acc, a16acc, mode, NV);
                }
                FN(store)(c, acc, tok0, y, b0, b1);
            }
        }
        return;
    }
    for (int tok0 = 0; tok0 < n; tok0 += nt) {
        const int16_t *a16 = c->A.t16 + (size_t)(tok0 / nt) * op->k * nt;
        for (int ti = 0; ti < c->gm.ntiles; ti++) {
            int f, cnt, g;
            mp_vlut_tile(&c->gm, ti, &f, &cnt, &g);
            FN(build_nv)(T + (size_t)f * sub, sub, a16, mp_vlut_group_k(&c->gm, f), cnt, g,
                         c->topo, NV);
        }
        for (int r = m0; r < m1; r++) {
            W s32[8];
            V s16[8];
            for (int v = 0; v < NV; v++)
                s32[v] = WZERO(), s16[v] = VZERO();
            int inblk = 0;
            for (int ti = 0; ti < c->gm.ntiles; ti++) {
                int f, cnt, g;
                mp_vlut_tile(&c->gm, ti, &f, &cnt, &g);
                const uint8_t *w = op->w + (size_t)m * f + (size_t)r * cnt;
                const int16_t *Tf = T + (size_t)f * sub;
                for (int j = 0; j < cnt; j++) {
                    const int16_t *row = Tf + (size_t)j * sub + (size_t)w[j] * nt;
                    if (c->hier) {
                        if (inblk == B) { /* §3.4: widen before the int16 bound */
                            for (int v = 0; v < NV; v++)
                                s32[v] = WADD16(s32[v], s16[v]), s16[v] = VZERO();
                            inblk = 0;
                        }
                        for (int v = 0; v < NV; v++)
                            s16[v] = VADD(s16[v], VLOAD(row + v * VL));
                        inblk++;
                    } else {
                        for (int v = 0; v < NV; v++)
                            s32[v] = WADD16(s32[v], VLOAD(row + v * VL));
                    }
                }
            }
            for (int v = 0; v < NV; v++) {
                s32[v] = WADD16(s32[v], s16[v]);
                WSTORE(acc + v * VL, s32[v]);
            }
            FN(store)(c, acc, tok0, y, r, r + 1);
        }
    }
}

/* The table path for N_tile a multiple of VL: N_tile / VL vectors per token
 * tile, each count its own instantiation of gemm_nv (128 tokens at most, the
 * largest ntile of the catalog: NV <= 128 / VL). */
static void FN(gemm_tiles)(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                           void *scratch)
{
    FN(job) c;
    mp_vlut_job_init(&c, op, act, n);
    const int stream = op->param[MP_VLUT_P_STREAM];
    const int nv = mp_vlut_ntile_eff(n, op->param) / VL;
    if (nv == 1)
        FN(gemm_nv)(&c, y, m0, m1, scratch, stream, 1);
    else if (nv == 2)
        FN(gemm_nv)(&c, y, m0, m1, scratch, stream, 2);
    else if (nv == 4 || 128 / VL <= 4)
        FN(gemm_nv)(&c, y, m0, m1, scratch, stream, 4);
    else
        FN(gemm_nv)(&c, y, m0, m1, scratch, stream, 8);
}
