/* vlut-avx512.c - Vec-LUT (seed 001 §3-4) with AVX-512BW: one 512-bit vector
 * holds 32 int16 token lanes, so the default N_tile = 32 makes each 1 -> N lookup
 * one load + one vpaddw of a table row.  The table path is the shared template
 * vlut-simd.h; the GEMV path for small N (decode the base-3 byte into trits with
 * multiply-high, multiply with the activations permuted by vpermt2w) is here.
 * tcl = 0 (the per-token-table baseline) runs the portable code. */
#include <immintrin.h>

#include "vlut.h"
#include "../common/mp_numerics.h"

#define FN(x) x##__avx512
#define V __m512i
#define VL 32
#define VLOAD(p) _mm512_loadu_si512((const void *)(p))
#define VSTORE(p, v) _mm512_storeu_si512((void *)(p), (v))
#define VADD(a, b) _mm512_add_epi16((a), (b))
#define VSUB(a, b) _mm512_sub_epi16((a), (b))
#define VZERO() _mm512_setzero_si512()

/* int16 -> int32 widening of each half (vlut-simd.h builds W and its
 * operations from these) */
#define V32ADD(a, b) _mm512_add_epi32((a), (b))
#define VWIDEN_LO(v) _mm512_cvtepi16_epi32(_mm512_castsi512_si256((v)))
#define VWIDEN_HI(v) _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64((v), 1))

#include "vlut-simd.h"
#include "vlut-gemv.h"

/* ---- GEMV path (small N) --------------------------------------------------------
 * Rows are taken 32 at a time; a K tile's bytes for them are 32*cnt contiguous
 * bytes (the tile-contiguous layout), read as cnt vectors of 32 uint16 lanes.
 * Lane b holds the group (row b / cnt, group b % cnt).  Its base-3 digits come
 * from multiply-high by ceil(2^16/3) (exact for values < 243) and a multiply by 3;
 * digit p (the code w+1 of the group's weight p) is multiplied with activation
 * k0 + (b % cnt)*g + p, which vpermt2w picks from the tile's <= 64 activations.
 * sum(code * a) - sum(a) = sum(w * a) with sum(a) = qsum per token.  Lane sums stay
 * in int16 for at most 32767 / (2*127*g) tiles (25 for g = 5), then go to int32.
 * The lane -> row map depends on cnt, so full tiles, the shorter last tile and
 * the I1 tail tile are summed separately, each reduced to rows at its end. */
enum { GV_ROWS = 32, GV_MAXTOK = 16 };

typedef struct gv_kind {
    int cnt, g;
    __m512i idx[16][5]; /* vpermt2w selectors [segment][digit] */
} gv_kind;

static void gv_kind_init(gv_kind *kd, int cnt, int g)
{
    kd->cnt = cnt;
    kd->g = g;
    for (int s = 0; s < cnt; s++)
        for (int p = 0; p < g; p++) {
            uint16_t sel[32];
            for (int i = 0; i < 32; i++)
                sel[i] = (uint16_t)(((s * 32 + i) % cnt) * g + p);
            kd->idx[s][p] = _mm512_loadu_si512((const void *)sel);
        }
}

/* Adds the groups of tiles [t0, t1) (all of kind kd) of rows [r0, r0+32) for
 * tokens [0, n) into rowsum[t][32]. */
static inline __attribute__((always_inline)) void
gv_tiles_k(const mp_vlut_geom *gm, const gv_kind *kd, const uint8_t *w, int m,
           const mp_vlut_act *A, int n, int r0, int t0, int t1, int32_t (*rowsum)[GV_ROWS],
           const int g, const int cnt)
{
    const int lim = 32767 / (2 * 127 * g); /* tiles per int16 block */
    const __m512i third = _mm512_set1_epi16(21846), three = _mm512_set1_epi16(3);
    __m512i acc16[GV_MAXTOK][16];
    int32_t acc32[GV_MAXTOK][16][32];
    memset(acc32, 0, sizeof(int32_t) * 16 * 32 * (size_t)n);
    for (int t = 0; t < n; t++)
        for (int s = 0; s < cnt; s++)
            acc16[t][s] = _mm512_setzero_si512();
    int inblk = 0;
    for (int ti = t0; ti < t1; ti++) {
        int f, c, gg;
        mp_vlut_tile(gm, ti, &f, &c, &gg);
        const uint8_t *wb = w + (size_t)m * f + (size_t)r0 * cnt;
        const int k0 = mp_vlut_group_k(gm, f);
        if (inblk == lim) {
            for (int t = 0; t < n; t++)
                for (int s = 0; s < cnt; s++) {
                    __m512i v = acc16[t][s];
                    __m512i lo = _mm512_cvtepi16_epi32(_mm512_castsi512_si256(v));
                    __m512i hi = _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(v, 1));
                    _mm512_storeu_si512(acc32[t][s], _mm512_add_epi32(_mm512_loadu_si512(acc32[t][s]), lo));
                    _mm512_storeu_si512(acc32[t][s] + 16,
                                        _mm512_add_epi32(_mm512_loadu_si512(acc32[t][s] + 16), hi));
                    acc16[t][s] = _mm512_setzero_si512();
                }
            inblk = 0;
        }
        inblk++;
        __m512i alo[GV_MAXTOK], ahi[GV_MAXTOK];
        for (int t = 0; t < n; t++) {
            const int8_t *q = A->q + (size_t)t * A->kp + k0;
            alo[t] = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)q));
            ahi[t] = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(q + 32)));
        }
#pragma GCC unroll 16
        for (int s = 0; s < cnt; s++) {
            __m512i v = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(wb + 32 * s)));
            __m512i d[5];
#pragma GCC unroll 5
            for (int p = g - 1; p > 0; p--) {
                __m512i qv = _mm512_mulhi_epu16(v, third);
                d[p] = _mm512_sub_epi16(v, _mm512_mullo_epi16(qv, three));
                v = qv;
            }
            d[0] = v;
            for (int t = 0; t < n; t++) {
                __m512i sum = acc16[t][s];
#pragma GCC unroll 5
                for (int p = 0; p < g; p++) {
                    __m512i a = _mm512_permutex2var_epi16(alo[t], kd->idx[s][p], ahi[t]);
                    sum = _mm512_add_epi16(sum, _mm512_mullo_epi16(d[p], a));
                }
                acc16[t][s] = sum;
            }
        }
    }
    for (int t = 0; t < n; t++)
        for (int s = 0; s < cnt; s++) {
            int16_t lanes[32];
            _mm512_storeu_si512(lanes, acc16[t][s]);
            for (int i = 0; i < 32; i++) {
                int b = s * 32 + i;
                rowsum[t][b / cnt] += acc32[t][s][i] + lanes[i];
            }
        }
}

#define GV_CASE(G, C)                                                                \
    case C:                                                                          \
        if (n == 1) /* one token: the lane sums live in registers */                \
            gv_tiles_k(gm, kd, w, m, A, 1, r0, t0, t1, rowsum, G, C);                \
        else                                                                         \
            gv_tiles_k(gm, kd, w, m, A, n, r0, t0, t1, rowsum, G, C);                \
        return;
#define GV_CASES(G)                                                                  \
    switch (kd->cnt) {                                                               \
        GV_CASE(G, 1) GV_CASE(G, 2) GV_CASE(G, 3) GV_CASE(G, 4) GV_CASE(G, 5)        \
        GV_CASE(G, 6) GV_CASE(G, 7) GV_CASE(G, 8) GV_CASE(G, 9) GV_CASE(G, 10)       \
        GV_CASE(G, 11) GV_CASE(G, 12) GV_CASE(G, 13) GV_CASE(G, 14) GV_CASE(G, 15)   \
    default:                                                                         \
        gv_tiles_k(gm, kd, w, m, A, n, r0, t0, t1, rowsum, G, 16);                   \
        return;                                                                      \
    }

/* g and cnt are constants in each copy so the digit and segment loops unroll. */
static __attribute__((noinline)) void gv_tiles(const mp_vlut_geom *gm, const gv_kind *kd,
                                               const uint8_t *w, int m, const mp_vlut_act *A,
                                               int n, int r0, int t0, int t1,
                                               int32_t (*rowsum)[GV_ROWS])
{
    if (kd->g == 4)
        GV_CASES(4)
    GV_CASES(5)
}

/* Contract: rows [m0, m1), 1 <= n <= 16 tokens; scratch as scratch_size. */
static void FN(gemv)(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                     void *scratch)
{
    mp_vlut_geom gm;
    mp_vlut_act A;
    const int m = op->m;
    mp_vlut_op_map(op, act, n, &gm, &A);
    /* tile kinds: full main tiles, the shorter last main tile, the I1 tail tile */
    int nmt = (gm.nmain + gm.kt - 1) / gm.kt, nfull = gm.nmain / gm.kt;
    int lastcnt = gm.nmain - nfull * gm.kt;
    gv_kind *kd = (gv_kind *)((uintptr_t)((uint8_t *)scratch + 63) & ~(uintptr_t)63);
    gv_kind_init(&kd[0], gm.kt, gm.gm);
    if (lastcnt)
        gv_kind_init(&kd[1], lastcnt, gm.gm);
    if (gm.ntail)
        gv_kind_init(&kd[2], gm.ntail, 4);
    for (int t0 = 0; t0 < n; t0 += GV_MAXTOK) {
        int nn = n - t0 < GV_MAXTOK ? n - t0 : GV_MAXTOK;
        mp_vlut_act At = A;
        At.q = A.q + (size_t)t0 * A.kp;
        for (int r0 = m0; r0 < m1; r0 += GV_ROWS) {
            int32_t rowsum[GV_MAXTOK][GV_ROWS];
            memset(rowsum, 0, sizeof rowsum);
            int r1 = m1 - r0 < GV_ROWS ? m1 : r0 + GV_ROWS;
            if (r1 - r0 == GV_ROWS) {
                gv_tiles(&gm, &kd[0], op->w, m, &At, nn, r0, 0, nfull, rowsum);
                if (lastcnt)
                    gv_tiles(&gm, &kd[1], op->w, m, &At, nn, r0, nfull, nmt, rowsum);
                if (gm.ntail)
                    gv_tiles(&gm, &kd[2], op->w, m, &At, nn, r0, nmt, nmt + 1, rowsum);
            } else {
                FN(gv_tail_rows)(&gm, op->w, m, &A, t0, nn, r0, r1, rowsum[0], GV_ROWS);
            }
            FN(gv_store)(op, &A, y, t0, nn, r0, r1, rowsum[0], GV_ROWS);
        }
    }
}

/* mp_quant_row with 16 floats per step: the same absmax (max is exact in any
 * order), the same float product x * scale, rounding to nearest even like
 * nearbyintf, the same clamp: bit-identical int8. */
void mp_vlut_prepare__avx512(const mp_op *op, const float *x, int n, void *act, int t0, int t1)
{
    mp_vlut_act a;
    const int k = op->k;
    mp_vlut_act_map(act, n, k, op->param, &a);
    for (int t = t0; t < t1; t++) {
        const float *xr = x + (size_t)t * k;
        int8_t *q = a.q + (size_t)t * a.kp;
        __m512 mx = _mm512_setzero_ps();
        for (int j = 0; j < k; j += 16) {
            __mmask16 mk = k - j >= 16 ? 0xffff : (__mmask16)((1u << (k - j)) - 1);
            mx = _mm512_max_ps(mx, _mm512_abs_ps(_mm512_maskz_loadu_ps(mk, xr + j)));
        }
        float absmax = _mm512_reduce_max_ps(mx);
        if (!(absmax >= MP_ABSMAX_FLOOR))
            absmax = MP_ABSMAX_FLOOR;
        const float scale = 127.0f / absmax;
        const __m512 vs = _mm512_set1_ps(scale), hi = _mm512_set1_ps(127.0f),
                     lo = _mm512_set1_ps(-127.0f);
        for (int j = 0; j < k; j += 16) {
            __mmask16 mk = k - j >= 16 ? 0xffff : (__mmask16)((1u << (k - j)) - 1);
            __m512 v = _mm512_mul_ps(_mm512_maskz_loadu_ps(mk, xr + j), vs);
            v = _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            v = _mm512_max_ps(_mm512_min_ps(v, hi), lo);
            _mm_mask_storeu_epi8(q + j, mk, _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(v)));
        }
        a.x_scale[t] = scale;
    }
    mp_vlut_transpose(op, n, act, t0, t1);
}

/* Contract: as mp_vlut_gemm__scalar (any rows, any N, scratch_size bytes). */
void mp_vlut_gemm__avx512(const mp_op *op, const void *act, int n, float *y, int m0,
                          int m1, void *scratch)
{
    FN(gemm_dispatch)(op, act, n, y, m0, m1, scratch);
}
