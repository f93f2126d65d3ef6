/* tl-avx2.c - TL1/TL2 (_0 and _1) with AVX2: the same scheme as tl-avx512.c on
 * 256-bit registers, one 32-byte half of a step at a time (two 128-bit vpshufb
 * lanes; a half step is one bm x by compute block of seed 000 Fig. 6).  With
 * bm = 32 the two halves are rows 0-15 and 16-31 of the same four groups and
 * share the table registers; with bm = 16 they are the same rows of groups 0-3
 * and 4-7.  Sign bits are expanded to bytes with broadcast/shuffle/and/cmpeq.
 * Accumulation, flush bounds and the eq. 5 split as in tl-avx512.c.  Bit for bit
 * equal to tl-scalar.c.  Layout in tl.h. */
#include <immintrin.h>

#include "tl.h"
#include "../common/mp_numerics.h"

#include <string.h>

enum { PF_DEFAULT = 8192 };

#define INLINE static inline __attribute__((always_inline))

typedef struct acc_t {
    __m256i a16[2];  /* _1: int16 sums of unpacklo / unpackhi; _0: word sum, high-byte sum */
    __m256i a32[4];  /* widened; row of dword d in each lane given by row_of() */
} acc_t;

INLINE void acc_zero(acc_t *a)
{
    a->a16[0] = a->a16[1] = _mm256_setzero_si256();
    for (int i = 0; i < 4; i++)
        a->a32[i] = _mm256_setzero_si256();
}

INLINE void acc_flush(acc_t *a, int ll)
{
    if (ll) {
        a->a32[0] = _mm256_add_epi32(a->a32[0], _mm256_srai_epi32(_mm256_slli_epi32(a->a16[0], 16), 16));
        a->a32[1] = _mm256_add_epi32(a->a32[1], _mm256_srai_epi32(a->a16[0], 16));
        a->a32[2] = _mm256_add_epi32(a->a32[2], _mm256_srai_epi32(_mm256_slli_epi32(a->a16[1], 16), 16));
        a->a32[3] = _mm256_add_epi32(a->a32[3], _mm256_srai_epi32(a->a16[1], 16));
    } else {
        const __m256i lo16 = _mm256_set1_epi32(0xffff);
        __m256i even = _mm256_sub_epi16(a->a16[0], _mm256_slli_epi16(a->a16[1], 8));
        a->a32[0] = _mm256_add_epi32(a->a32[0], _mm256_and_si256(even, lo16));
        a->a32[1] = _mm256_add_epi32(a->a32[1], _mm256_srli_epi32(even, 16));
        a->a32[2] = _mm256_add_epi32(a->a32[2], _mm256_and_si256(a->a16[1], lo16));
        a->a32[3] = _mm256_add_epi32(a->a32[3], _mm256_srli_epi32(a->a16[1], 16));
    }
    a->a16[0] = a->a16[1] = _mm256_setzero_si256();
}

/* Row (within a 16-row half) of dword d of accumulator i. */
static inline int row_of(int ll, int i, int d)
{
    if (ll) /* unpacklo: rows 0-7 as words, unpackhi: rows 8-15 */
        return (i >= 2 ? 8 : 0) + 2 * d + (i & 1);
    /* word 2d holds bytes 4d, 4d+1; word 2d+1 bytes 4d+2, 4d+3 */
    static const int off[4] = {0, 2, 1, 3};
    return 4 * d + off[i];
}

/* 32 sign bits -> 32 bytes of 0 / -1 (byte b <- bit b). */
INLINE __m256i expand_signs(const uint8_t *p)
{
    const __m256i sel = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                         2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bits = _mm256_set1_epi64x((long long)0x8040201008040201ull);
    int32_t w;
    __builtin_memcpy(&w, p, 4);
    __m256i b = _mm256_shuffle_epi8(_mm256_set1_epi32(w), sel);
    return _mm256_cmpeq_epi8(_mm256_and_si256(b, bits), bits);
}

/* Looks up one 32-byte half step v with tables ta/tb into accumulator a. */
INLINE void half_step(acc_t *a, __m256i v, const __m256i *ta, const __m256i *tb, int ll,
                      const uint8_t *signs)
{
    const __m256i m0f = _mm256_set1_epi8(0x0f);
    __m256i il = _mm256_and_si256(v, m0f);
    __m256i ih = _mm256_and_si256(_mm256_srli_epi16(v, 4), m0f);
    __m256i sa = _mm256_setzero_si256(), sb = sa;
    if (signs) {
        sa = expand_signs(signs);
        sb = expand_signs(signs + 8);
    }
    if (ll) {
        __m256i al = _mm256_shuffle_epi8(ta[0], il), ah = _mm256_shuffle_epi8(ta[1], il);
        __m256i bl = _mm256_shuffle_epi8(tb[0], ih), bh = _mm256_shuffle_epi8(tb[1], ih);
        if (signs) {
            al = _mm256_xor_si256(al, sa), ah = _mm256_xor_si256(ah, sa);
            bl = _mm256_xor_si256(bl, sb), bh = _mm256_xor_si256(bh, sb);
        }
        a->a16[0] = _mm256_add_epi16(a->a16[0], _mm256_add_epi16(_mm256_unpacklo_epi8(al, ah),
                                                                 _mm256_unpacklo_epi8(bl, bh)));
        a->a16[1] = _mm256_add_epi16(a->a16[1], _mm256_add_epi16(_mm256_unpackhi_epi8(al, ah),
                                                                 _mm256_unpackhi_epi8(bl, bh)));
    } else {
        __m256i x = _mm256_shuffle_epi8(ta[0], il), y = _mm256_shuffle_epi8(tb[0], ih);
        if (signs)
            x = _mm256_xor_si256(x, sa), y = _mm256_xor_si256(y, sb);
        a->a16[0] = _mm256_add_epi16(a->a16[0], _mm256_add_epi16(x, y));
        a->a16[1] = _mm256_add_epi16(a->a16[1], _mm256_add_epi16(_mm256_srli_epi16(x, 8),
                                                                 _mm256_srli_epi16(y, 8)));
    }
}

/* One part (TL2 steps with signs, or TL1 steps) of one row block; half step h
 * goes to a[h] (rows 16h.. when bm = 32; the same rows when bm = 16, kept apart
 * so each int16 word takes two lookups per step, as in the flush bound). */
INLINE const uint8_t *run_part(acc_t *a, const uint8_t *wp, int nsteps, int sign, int ll,
                               int bm, const uint8_t *tab, size_t pf)
{
    const size_t step = sign ? MP_TL2_STEP : MP_TL_STEP;
    const size_t oct = mp_tl_octet(ll);
    for (int s0 = 0; s0 < nsteps; s0 += MP_TL_FLUSH) {
        int s1 = s0 + MP_TL_FLUSH < nsteps ? s0 + MP_TL_FLUSH : nsteps;
        for (int s = s0; s < s1; s++, wp += step) {
            if (pf) {
                _mm_prefetch((const char *)wp + pf, _MM_HINT_T0);
                if (sign)
                    _mm_prefetch((const char *)wp + pf + 64, _MM_HINT_T0);
            }
            __m256i ta[2], tb[2]; /* [0] low-byte / int8 table, [1] high-byte table */
            for (int hs = 0; hs < 2; hs++) {
                if (bm == 16 || hs == 0)
                    for (int hb = 0; hb < 1 + ll; hb++) {
                        const uint8_t *tp = bm == 16
                                                ? tab + (size_t)s * oct + hs * 32 + hb * 128
                                                : tab + (size_t)(s >> 1) * oct + (s & 1) * 32 + hb * 128;
                        ta[hb] = _mm256_loadu_si256((const __m256i *)tp);
                        tb[hb] = _mm256_loadu_si256((const __m256i *)(tp + 64));
                    }
                __m256i v = _mm256_loadu_si256((const __m256i *)(wp + hs * 32));
                half_step(&a[hs], v, ta, tb, ll, sign ? wp + 64 + 4 * hs : NULL);
            }
        }
        acc_flush(&a[0], ll);
        acc_flush(&a[1], ll);
    }
    return wp;
}

INLINE void run_block(const mp_tl_geom *g, int ll, const uint8_t *blk, const uint8_t *tab3,
                      const uint8_t *tab2, size_t pf, int32_t *sums)
{
    const int bm = g->bm;
    acc_t a[2];
    acc_zero(&a[0]);
    acc_zero(&a[1]);
    const uint8_t *wp = blk;
    if (g->tl2)
        wp = run_part(a, wp, g->s3, 1, ll, bm, tab3, pf);
    wp = run_part(a, wp, g->s1, 0, ll, bm, tab2, pf);
    for (int r = 0; r < bm; r++)
        sums[r] = ll ? 0 : -128 * (g->g3 + g->g2); /* the _0 bias */
    for (int h = 0; h < 2; h++) {
        int32_t lanes[4][8];
        for (int i = 0; i < 4; i++)
            _mm256_storeu_si256((__m256i *)lanes[i], a[h].a32[i]);
        for (int i = 0; i < 4; i++)
            for (int l = 0; l < 2; l++)
                for (int d = 0; d < 4; d++)
                    sums[(bm == 32 ? h * 16 : 0) + row_of(ll, i, d)] += lanes[i][l * 4 + d];
    }
    if (g->tl2)
        for (int r = 0; r < bm; r++) {
            int16_t c;
            __builtin_memcpy(&c, wp + 2 * r, 2);
            sums[r] += c; /* the add half of eq. 5 */
        }
}

/* mp_tl_store with 8-lane IEEE division and multiplication: the same roundings,
 * in the same order, as the scalar mp_dequant / mp_tl_dequant8. */
INLINE void store(const mp_op *op, int tl2, int ll, const void *act, int t, const int32_t *sums,
                  int row0, int nr, float *y)
{
    const mp_tl_hdr *h = mp_tl_act_hdr(act, tl2, ll, op->k, t);
    const __m256 xs = _mm256_set1_ps(h->x_scale), ws = _mm256_set1_ps(op->w_scale);
    const __m256 ts = _mm256_set1_ps((float)h->tmax / 127.0f);
    float *yt = y + (size_t)t * op->m + row0;
    int i = 0;
    for (; i + 8 <= nr; i += 8) {
        __m256 f = _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)(sums + i)));
        if (!ll)
            f = _mm256_mul_ps(f, ts);
        _mm256_storeu_ps(yt + i, _mm256_mul_ps(_mm256_div_ps(f, xs), ws));
    }
    if (i < nr)
        mp_tl_store(op, tl2, ll, act, t, sums + i, row0 + i, nr - i, y);
}

INLINE void gemm(const mp_op *op, int tl2, int ll, int bm, const void *act, int n, float *y,
                 int m0, int m1)
{
    mp_tl_geom g = mp_tl_geom_of(tl2, bm, op->m, op->k);
    size_t pf = op->v->n_params > 0 ? (size_t)op->param[0] : PF_DEFAULT;
    int32_t sums[32];
    for (int r0 = m0; r0 < m1; r0 += bm) {
        const uint8_t *blk = op->w + (size_t)(r0 / bm) * g.blk_bytes;
        int nr = m1 - r0 < bm ? m1 - r0 : bm;
        for (int t = 0; t < n; t++) {
            run_block(&g, ll, blk, mp_tl_tab3(act, tl2, ll, op->k, t),
                      mp_tl_tab2(act, tl2, ll, op->k, t), pf, sums);
            store(op, tl2, ll, act, t, sums, r0, nr, y);
        }
    }
}

void mp_tl_gemm__avx2(const mp_op *op, int tl2, int lossless, int bm, const void *act,
                        int n, float *y, int m0, int m1)
{
    /* one specialized body per (kind, exactness, bm) */
    if (tl2) {
        if (lossless)
            bm == 16 ? gemm(op, 1, 1, 16, act, n, y, m0, m1) : gemm(op, 1, 1, 32, act, n, y, m0, m1);
        else
            bm == 16 ? gemm(op, 1, 0, 16, act, n, y, m0, m1) : gemm(op, 1, 0, 32, act, n, y, m0, m1);
    } else {
        if (lossless)
            bm == 16 ? gemm(op, 0, 1, 16, act, n, y, m0, m1) : gemm(op, 0, 1, 32, act, n, y, m0, m1);
        else
            bm == 16 ? gemm(op, 0, 0, 16, act, n, y, m0, m1) : gemm(op, 0, 0, 32, act, n, y, m0, m1);
    }
}


/* ---- table precompute (prepare) ------------------------------------------------
 * The same tables as mp_tl_prepare (tl-scalar.c), one group's 16 entries per
 * 256-bit register: e = d0 * a0 + d1 * a1 (+ d2 * a2) with the constant digit
 * vectors of Tables 5-6 applied by vpsignw (digits are -1, 0, 1: exact).  _1
 * splits the int16 entries into their low and high byte tables; _0 rounds
 * |e| * (127 / tmax) + 0.5 in float as the scalar path does (same IEEE operations,
 * same results).  Used by the AVX2 and AVX-512 variants. */
INLINE void put16(uint8_t *tab, int ll, int gr, __m256i e, __m256 rs)
{
    int pos = gr % 8;
    uint8_t *o = tab + (size_t)(gr / 8) * mp_tl_octet(ll) + (pos & 1) * 64 + (pos >> 1) * 16;
    if (ll) {
        /* per lane: 8 low bytes then 8 high bytes; then gather the 64-bit pieces */
        const __m256i split = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,
                                               0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
        __m256i b = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(e, split), 0xd8);
        _mm_storeu_si128((__m128i *)o, _mm256_castsi256_si128(b));
        _mm_storeu_si128((__m128i *)(o + 128), _mm256_extracti128_si256(b, 1));
    } else {
        __m256i a = _mm256_abs_epi16(e);
        __m256i lo = _mm256_cvtepi16_epi32(_mm256_castsi256_si128(a));
        __m256i hi = _mm256_cvtepi16_epi32(_mm256_extracti128_si256(a, 1));
        const __m256 half = _mm256_set1_ps(0.5f);
        lo = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(lo), rs), half));
        hi = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(hi), rs), half));
        __m256i t = _mm256_permute4x64_epi64(_mm256_packs_epi32(lo, hi), 0xd8);
        t = _mm256_add_epi16(_mm256_sign_epi16(t, e), _mm256_set1_epi16(128));
        __m128i u = _mm_packus_epi16(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
        _mm_storeu_si128((__m128i *)o, u);
    }
}

void mp_tl_prepare__avx2(int tl2, int ll, const float *x, int k, void *act, int t0, int t1)
{
    mp_tl_geom g = mp_tl_geom_of(tl2, 16, 1, k);
    size_t stride = mp_tl_act_stride(tl2, ll, k);
    size_t oct = mp_tl_octet(ll);
    /* digits of index i (Table 6 for TL2: i = 9 d0 + 3 d1 + d2; Table 5 for TL1:
     * i = 3 (d0 + 1) + (d1 + 1)); unused indices are 0 */
    const __m256i t2d0 = _mm256_setr_epi16(0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0);
    const __m256i t2d1 = _mm256_setr_epi16(0, 0, 1, 1, 1, -1, -1, -1, 0, 0, 0, 1, 1, 1, 0, 0);
    const __m256i t2d2 = _mm256_setr_epi16(0, 1, -1, 0, 1, -1, 0, 1, -1, 0, 1, -1, 0, 1, 0, 0);
    const __m256i t1d0 = _mm256_setr_epi16(-1, -1, -1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0);
    const __m256i t1d1 = _mm256_setr_epi16(-1, 0, 1, -1, 0, 1, -1, 0, 1, 0, 0, 0, 0, 0, 0, 0);
    for (int t = t0; t < t1; t++) {
        uint8_t *base = (uint8_t *)act + (size_t)t * stride;
        uint8_t *tab3 = base + MP_TL_HDR;
        uint8_t *tab2 = tab3 + (size_t)(g.g3 + 7) / 8 * oct;
        int8_t *q = (int8_t *)(tab2 + (size_t)(g.g2 + 7) / 8 * oct);
        mp_tl_hdr h = {mp_quant_row(x + (size_t)t * k, k, q), 1};
        memset(tab3, 0, (size_t)((uint8_t *)q - tab3));
        if (!ll) {
            for (int gr = 0; gr < g.g3; gr++) {
                const int8_t *a = q + 3 * gr;
                int s = abs(a[0]) + abs(a[1]) + abs(a[2]);
                h.tmax = s > h.tmax ? s : h.tmax;
            }
            for (int gr = 0; gr < g.g2; gr++) {
                const int8_t *a = q + g.three_k + 2 * gr;
                int s = abs(a[0]) + abs(a[1]);
                h.tmax = s > h.tmax ? s : h.tmax;
            }
        }
        const __m256 rs = _mm256_set1_ps(127.0f / (float)h.tmax);
        for (int gr = 0; gr < g.g3; gr++) {
            const int8_t *a = q + 3 * gr;
            __m256i e = _mm256_add_epi16(_mm256_sign_epi16(_mm256_set1_epi16(a[0]), t2d0),
                                         _mm256_sign_epi16(_mm256_set1_epi16(a[1]), t2d1));
            e = _mm256_add_epi16(e, _mm256_sign_epi16(_mm256_set1_epi16(a[2]), t2d2));
            put16(tab3, ll, gr, e, rs);
        }
        for (int gr = 0; gr < g.g2; gr++) {
            const int8_t *a = q + g.three_k + 2 * gr;
            __m256i e = _mm256_add_epi16(_mm256_sign_epi16(_mm256_set1_epi16(a[0]), t1d0),
                                         _mm256_sign_epi16(_mm256_set1_epi16(a[1]), t1d1));
            put16(tab2, ll, gr, e, rs);
        }
        memcpy(base, &h, sizeof h);
    }
}

#define PREP(NAME, TL2, LL)                                                                  \
    void mp_##NAME##_prepare__avx2(const mp_op *op, const float *x, int n, void *act, int t0, \
                                   int t1)                                                   \
    {                                                                                        \
        (void)n;                                                                             \
        mp_tl_prepare__avx2(TL2, LL, x, op->k, act, t0, t1);                                 \
    }
PREP(tl1_0, 0, 0)
PREP(tl1_1, 0, 1)
PREP(tl2_0, 1, 0)
PREP(tl2_1, 1, 1)
