/* vlut-avx2.c - Vec-LUT (seed 001 §3-4) with AVX2: one 256-bit vector holds 16
 * int16 token lanes (§4: N_tile a multiple of 16), so the default N_tile = 32 is
 * two vpaddw per 1 -> N lookup.  The table path is the shared template
 * vlut-simd.h.  tcl = 0 (the per-token-table baseline) runs the portable code. */
#include <immintrin.h>

#include "vlut.h"
#include "../common/mp_numerics.h"

#define FN(x) x##__avx2
#define V __m256i
#define VL 16
#define VLOAD(p) _mm256_loadu_si256((const __m256i *)(p))
#define VSTORE(p, v) _mm256_storeu_si256((__m256i *)(p), (v))
#define VADD(a, b) _mm256_add_epi16((a), (b))
#define VSUB(a, b) _mm256_sub_epi16((a), (b))
#define VZERO() _mm256_setzero_si256()

/* int16 -> int32 widening of each half (vlut-simd.h builds W and its
 * operations from these) */
#define V32ADD(a, b) _mm256_add_epi32((a), (b))
#define VWIDEN_LO(v) _mm256_cvtepi16_epi32(_mm256_castsi256_si128((v)))
#define VWIDEN_HI(v) _mm256_cvtepi16_epi32(_mm256_extracti128_si256((v), 1))

#include "vlut-simd.h"
#include "vlut-gemv.h"

/* ---- GEMV path (small N) --------------------------------------------------------
 * As in vlut-avx512.c, but AVX2 has no 16-bit lane permute: the activations each
 * lane needs are laid out once per call in scratch ("patterns": for the tile at
 * feature k0, segment s, digit p, lane i holds a[k0 + ((16 s + i) % cnt) g + p],
 * K * 16 int16 per token, read sequentially), for up to GV2_TOK tokens at a time.
 * Rows go 16 at a time: a tile's bytes for them are 16*cnt contiguous bytes, read
 * as cnt vectors of 16 uint16 lanes, decoded into base-3 digits by multiply-high. */
enum { GV2_ROWS = 16, GV2_TOK = 4 };

static void gv2_patterns(const mp_vlut_geom *gm, const mp_vlut_act *A, int t0, int nn,
                         int k, int16_t *pat)
{
    for (int t = 0; t < nn; t++) {
        const int8_t *q = A->q + (size_t)(t0 + t) * A->kp;
        int16_t *pt = pat + (size_t)t * k * 16;
        for (int ti = 0; ti < gm->ntiles; ti++) {
            int f, cnt, g;
            mp_vlut_tile(gm, ti, &f, &cnt, &g);
            int k0 = mp_vlut_group_k(gm, f);
            int16_t *o = pt + (size_t)k0 * 16;
            for (int sg = 0; sg < cnt; sg++)
                for (int p = 0; p < g; p++, o += 16)
                    for (int i = 0; i < 16; i++)
                        o[i] = q[k0 + ((sg * 16 + i) % cnt) * g + p];
        }
    }
}

static inline __attribute__((always_inline)) void
gv2_tiles_k(const mp_vlut_geom *gm, const uint8_t *w, int m, const int16_t *pat, int k, int n,
            int r0, int t0, int t1, int32_t (*rowsum)[GV2_ROWS], const int g, const int cnt)
{
    const int lim = 32767 / (2 * 127 * g); /* tiles per int16 block */
    const __m256i third = _mm256_set1_epi16(21846), three = _mm256_set1_epi16(3);
    __m256i acc16[GV2_TOK][16];
    int32_t acc32[GV2_TOK][16][16];
    memset(acc32, 0, sizeof(int32_t) * 16 * 16 * (size_t)n);
    for (int t = 0; t < n; t++)
        for (int s = 0; s < cnt; s++)
            acc16[t][s] = _mm256_setzero_si256();
    int inblk = 0;
    for (int ti = t0; ti < t1; ti++) {
        int f, c, gg;
        mp_vlut_tile(gm, ti, &f, &c, &gg);
        const uint8_t *wb = w + (size_t)m * f + (size_t)r0 * cnt;
        const int16_t *pt = pat + (size_t)mp_vlut_group_k(gm, f) * 16;
        if (inblk == lim) {
            for (int t = 0; t < n; t++)
                for (int s = 0; s < cnt; s++) {
                    __m256i v = acc16[t][s];
                    __m256i lo = _mm256_cvtepi16_epi32(_mm256_castsi256_si128(v));
                    __m256i hi = _mm256_cvtepi16_epi32(_mm256_extracti128_si256(v, 1));
                    __m256i *a = (__m256i *)acc32[t][s];
                    _mm256_storeu_si256(a, _mm256_add_epi32(_mm256_loadu_si256(a), lo));
                    _mm256_storeu_si256(a + 1, _mm256_add_epi32(_mm256_loadu_si256(a + 1), hi));
                    acc16[t][s] = _mm256_setzero_si256();
                }
            inblk = 0;
        }
        inblk++;
#pragma GCC unroll 16
        for (int s = 0; s < cnt; s++) {
            __m256i v = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(wb + 16 * s)));
            __m256i d[5];
#pragma GCC unroll 5
            for (int p = g - 1; p > 0; p--) {
                __m256i qv = _mm256_mulhi_epu16(v, third);
                d[p] = _mm256_sub_epi16(v, _mm256_mullo_epi16(qv, three));
                v = qv;
            }
            d[0] = v;
            for (int t = 0; t < n; t++) {
                const int16_t *ps = pt + (size_t)t * k * 16 + (size_t)s * g * 16;
                __m256i sum = acc16[t][s];
#pragma GCC unroll 5
                for (int p = 0; p < g; p++)
                    sum = _mm256_add_epi16(
                        sum, _mm256_mullo_epi16(d[p], _mm256_loadu_si256((const __m256i *)(ps + p * 16))));
                acc16[t][s] = sum;
            }
        }
    }
    for (int t = 0; t < n; t++)
        for (int s = 0; s < cnt; s++) {
            int16_t lanes[16];
            _mm256_storeu_si256((__m256i *)lanes, acc16[t][s]);
            for (int i = 0; i < 16; i++) {
                int b = s * 16 + i;
                rowsum[t][b / cnt] += acc32[t][s][i] + lanes[i];
            }
        }
}

#define GV2_CASE(G, C)                                                               \
    case C:                                                                          \
        if (n == 1)                                                                  \
            gv2_tiles_k(gm, w, m, pat, k, 1, r0, t0, t1, rowsum, G, C);              \
        else                                                                         \
            gv2_tiles_k(gm, w, m, pat, k, n, r0, t0, t1, rowsum, G, C);              \
        return;
#define GV2_CASES(G)                                                                 \
    switch (cnt) {                                                                   \
        GV2_CASE(G, 1) GV2_CASE(G, 2) GV2_CASE(G, 3) GV2_CASE(G, 4) GV2_CASE(G, 5)   \
        GV2_CASE(G, 6) GV2_CASE(G, 7) GV2_CASE(G, 8) GV2_CASE(G, 9) GV2_CASE(G, 10)  \
        GV2_CASE(G, 11) GV2_CASE(G, 12) GV2_CASE(G, 13) GV2_CASE(G, 14)              \
        GV2_CASE(G, 15)                                                              \
    default:                                                                         \
        gv2_tiles_k(gm, w, m, pat, k, n, r0, t0, t1, rowsum, G, 16);                 \
        return;                                                                      \
    }

/* Tiles [t0, t1), all with cnt groups of g, of rows [r0, r0+16) for n tokens. */
static __attribute__((noinline)) void gv2_tiles(const mp_vlut_geom *gm, const uint8_t *w, int m,
                                                const int16_t *pat, int k, int n, int r0,
                                                int t0, int t1, int32_t (*rowsum)[GV2_ROWS],
                                                int g, int cnt)
{
    if (g == 4)
        GV2_CASES(4)
    GV2_CASES(5)
}

/* Contract: rows [m0, m1), any n (tokens in chunks of GV2_TOK); scratch as
 * scratch_size (it reserves K * 16 * GV2_TOK int16 for the patterns). */
static void FN(gemv)(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                     void *scratch)
{
    mp_vlut_geom gm;
    mp_vlut_act A;
    const int m = op->m, k = op->k;
    mp_vlut_op_map(op, act, n, &gm, &A);
    int16_t *pat = (int16_t *)((uintptr_t)((uint8_t *)scratch + 63) & ~(uintptr_t)63);
    int nmt = (gm.nmain + gm.kt - 1) / gm.kt, nfull = gm.nmain / gm.kt;
    int lastcnt = gm.nmain - nfull * gm.kt;
    for (int t0 = 0; t0 < n; t0 += GV2_TOK) {
        int nn = n - t0 < GV2_TOK ? n - t0 : GV2_TOK;
        gv2_patterns(&gm, &A, t0, nn, k, pat);
        for (int r0 = m0; r0 < m1; r0 += GV2_ROWS) {
            int32_t rowsum[GV2_TOK][GV2_ROWS];
            memset(rowsum, 0, sizeof rowsum);
            int r1 = m1 - r0 < GV2_ROWS ? m1 : r0 + GV2_ROWS;
            if (r1 - r0 == GV2_ROWS) {
                gv2_tiles(&gm, op->w, m, pat, k, nn, r0, 0, nfull, rowsum, gm.gm, gm.kt);
                if (lastcnt)
                    gv2_tiles(&gm, op->w, m, pat, k, nn, r0, nfull, nmt, rowsum, gm.gm, lastcnt);
                if (gm.ntail)
                    gv2_tiles(&gm, op->w, m, pat, k, nn, r0, nmt, nmt + 1, rowsum, 4, gm.ntail);
            } else { /* the range's last < 16 rows */
                FN(gv_tail_rows)(&gm, op->w, m, &A, t0, nn, r0, r1, rowsum[0], GV2_ROWS);
            }
            FN(gv_store)(op, &A, y, t0, nn, r0, r1, rowsum[0], GV2_ROWS);
        }
    }
}

/* mp_quant_row with 8 floats per step (bit-identical: same absmax, same float
 * product, nearest-even rounding, same clamp); the K tail is the scalar code. */
void mp_vlut_prepare__avx2(const mp_op *op, const float *x, int n, void *act, int t0, int t1)
{
    mp_vlut_act a;
    const int k = op->k, k8 = k & ~7;
    mp_vlut_act_map(act, n, k, op->param, &a);
    const __m256 sign = _mm256_set1_ps(-0.0f);
    for (int t = t0; t < t1; t++) {
        const float *xr = x + (size_t)t * k;
        int8_t *q = a.q + (size_t)t * a.kp;
        __m256 mx = _mm256_setzero_ps();
        for (int j = 0; j < k8; j += 8)
            mx = _mm256_max_ps(mx, _mm256_andnot_ps(sign, _mm256_loadu_ps(xr + j)));
        float m8[8], absmax = 0.0f;
        _mm256_storeu_ps(m8, mx);
        for (int i = 0; i < 8; i++)
            absmax = m8[i] > absmax ? m8[i] : absmax;
        for (int j = k8; j < k; j++) {
            float v = xr[j] < 0 ? -xr[j] : xr[j];
            absmax = v > absmax ? v : absmax;
        }
        if (!(absmax >= MP_ABSMAX_FLOOR))
            absmax = MP_ABSMAX_FLOOR;
        const float scale = 127.0f / absmax;
        const __m256 vs = _mm256_set1_ps(scale), hi = _mm256_set1_ps(127.0f),
                     lo = _mm256_set1_ps(-127.0f);
        for (int j = 0; j < k8; j += 8) {
            __m256 v = _mm256_mul_ps(_mm256_loadu_ps(xr + j), vs);
            v = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            v = _mm256_max_ps(_mm256_min_ps(v, hi), lo);
            __m256i i32 = _mm256_cvtps_epi32(v);
            __m128i i16 = _mm_packs_epi32(_mm256_castsi256_si128(i32), _mm256_extracti128_si256(i32, 1));
            _mm_storel_epi64((__m128i *)(q + j), _mm_packs_epi16(i16, i16));
        }
        for (int j = k8; j < k; j++) {
            float v = __builtin_nearbyintf(xr[j] * scale);
            v = v > 127.0f ? 127.0f : v < -127.0f ? -127.0f : v;
            q[j] = (int8_t)v;
        }
        a.x_scale[t] = scale;
    }
    mp_vlut_transpose(op, n, act, t0, t1);
}

/* Contract: as mp_vlut_gemm__scalar (any rows, any N, scratch_size bytes). */
void mp_vlut_gemm__avx2(const mp_op *op, const void *act, int n, float *y, int m0,
                        int m1, void *scratch)
{
    FN(gemm_dispatch)(op, act, n, y, m0, m1, scratch);
}
