/* tl-avx512.c - TL1/TL2 (_0 and _1) with AVX-512BW: one 64-byte step of 4-bit
 * indices is split into its low and high nibbles and looked up with vpshufb in
 * four 128-bit lanes at once (seed 000 §3.1, Fig. 5; Appendix E).  Layout in tl.h.
 *
 * _1: the int16 tables are held as a low-byte and a high-byte table; each index
 * vector is looked up in both and the halves rejoined with vpunpck{l,h}bw (the
 * pack-and-unpack technique, §3.2.1), summed in int16 for MP_TL_FLUSH steps
 * (|entry| <= 381, two lookups per step: 32 * 2 * 382 < 32767), then widened.
 * _0: one biased int8 (unsigned) table; the lookups are summed as 16-bit words:
 * the whole word (low byte + 256 * high byte, mod 2^16) and the high byte alone,
 * from which the low-byte sum is recovered exactly (both < 2^16 for 64 lookups).
 * The TL2 sign is the xor half of eq. 5, its add half is the per-row count of
 * negative triples stored with the block (tl.h).  Bit for bit equal to
 * tl-scalar.c: the same integer sums, the same dequantization. */
#include <immintrin.h>

#include "tl.h"
#include "../common/mp_numerics.h"

enum { PF_DEFAULT = 8192 };

#define INLINE static inline __attribute__((always_inline))

typedef struct acc_t {
    __m512i a16[2];  /* _1: int16 sums of unpacklo / unpackhi; _0: word sum, high-byte sum */
    __m512i a32[4];  /* widened; row of dword d in each lane given by row_of() */
} acc_t;

INLINE void acc_zero(acc_t *a)
{
    a->a16[0] = a->a16[1] = _mm512_setzero_si512();
    for (int i = 0; i < 4; i++)
        a->a32[i] = _mm512_setzero_si512();
}

INLINE void acc_flush(acc_t *a, int ll)
{
    if (ll) {
        a->a32[0] = _mm512_add_epi32(a->a32[0], _mm512_srai_epi32(_mm512_slli_epi32(a->a16[0], 16), 16));
        a->a32[1] = _mm512_add_epi32(a->a32[1], _mm512_srai_epi32(a->a16[0], 16));
        a->a32[2] = _mm512_add_epi32(a->a32[2], _mm512_srai_epi32(_mm512_slli_epi32(a->a16[1], 16), 16));
        a->a32[3] = _mm512_add_epi32(a->a32[3], _mm512_srai_epi32(a->a16[1], 16));
    } else {
        const __m512i lo16 = _mm512_set1_epi32(0xffff);
        __m512i even = _mm512_sub_epi16(a->a16[0], _mm512_slli_epi16(a->a16[1], 8));
        a->a32[0] = _mm512_add_epi32(a->a32[0], _mm512_and_si512(even, lo16));
        a->a32[1] = _mm512_add_epi32(a->a32[1], _mm512_srli_epi32(even, 16));
        a->a32[2] = _mm512_add_epi32(a->a32[2], _mm512_and_si512(a->a16[1], lo16));
        a->a32[3] = _mm512_add_epi32(a->a32[3], _mm512_srli_epi32(a->a16[1], 16));
    }
    a->a16[0] = a->a16[1] = _mm512_setzero_si512();
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

/* One part (TL2 steps with signs, or TL1 steps) of R row blocks (R = 1 or 2, the
 * runtime parameter rb): each table register is loaded once for R * bm rows; wp[r]
 * walks block r's stream. */
INLINE void run_part(acc_t *a, const uint8_t **wp, int R, int nsteps, int sign, int ll,
                     int bm, const uint8_t *tab, size_t pf)
{
    const __m512i m0f = _mm512_set1_epi8(0x0f);
    const size_t step = sign ? MP_TL2_STEP : MP_TL_STEP;
    const size_t oct = mp_tl_octet(ll);
    for (int s0 = 0; s0 < nsteps; s0 += MP_TL_FLUSH) {
        int s1 = s0 + MP_TL_FLUSH < nsteps ? s0 + MP_TL_FLUSH : nsteps;
        for (int s = s0; s < s1; s++) {
            __m512i ta[2], tb[2]; /* [0] low-byte / int8 table, [1] high-byte table */
            for (int hb = 0; hb < 1 + ll; hb++) {
                if (bm == 16) {
                    const uint8_t *tp = tab + (size_t)s * oct + hb * 128;
                    ta[hb] = _mm512_loadu_si512((const void *)tp);
                    tb[hb] = _mm512_loadu_si512((const void *)(tp + 64));
                } else {
                    const uint8_t *tp = tab + (size_t)(s >> 1) * oct + (s & 1) * 32 + hb * 128;
                    ta[hb] = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)tp));
                    tb[hb] = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(tp + 64)));
                }
            }
            for (int r = 0; r < R; r++) {
                const uint8_t *w = wp[r];
                wp[r] += step;
                if (pf) {
                    _mm_prefetch((const char *)w + pf, _MM_HINT_T0);
                    if (sign)
                        _mm_prefetch((const char *)w + pf + 64, _MM_HINT_T0);
                }
                __m512i v = _mm512_loadu_si512((const void *)w);
                __m512i il = _mm512_and_si512(v, m0f);
                __m512i ih = _mm512_and_si512(_mm512_srli_epi16(v, 4), m0f);
                __m512i sa = _mm512_setzero_si512(), sb = sa;
                if (sign) {
                    uint64_t ka, kb;
                    __builtin_memcpy(&ka, w + 64, 8);
                    __builtin_memcpy(&kb, w + 72, 8);
                    sa = _mm512_movm_epi8(_cvtu64_mask64(ka));
                    sb = _mm512_movm_epi8(_cvtu64_mask64(kb));
                }
                if (ll) {
                    __m512i al = _mm512_shuffle_epi8(ta[0], il), ah = _mm512_shuffle_epi8(ta[1], il);
                    __m512i bl = _mm512_shuffle_epi8(tb[0], ih), bh = _mm512_shuffle_epi8(tb[1], ih);
                    if (sign) {
                        al = _mm512_xor_si512(al, sa), ah = _mm512_xor_si512(ah, sa);
                        bl = _mm512_xor_si512(bl, sb), bh = _mm512_xor_si512(bh, sb);
                    }
                    a[r].a16[0] = _mm512_add_epi16(a[r].a16[0], _mm512_add_epi16(_mm512_unpacklo_epi8(al, ah),
                                                                                 _mm512_unpacklo_epi8(bl, bh)));
                    a[r].a16[1] = _mm512_add_epi16(a[r].a16[1], _mm512_add_epi16(_mm512_unpackhi_epi8(al, ah),
                                                                                 _mm512_unpackhi_epi8(bl, bh)));
                } else {
                    __m512i x = _mm512_shuffle_epi8(ta[0], il), y = _mm512_shuffle_epi8(tb[0], ih);
                    if (sign)
                        x = _mm512_xor_si512(x, sa), y = _mm512_xor_si512(y, sb);
                    a[r].a16[0] = _mm512_add_epi16(a[r].a16[0], _mm512_add_epi16(x, y));
                    a[r].a16[1] = _mm512_add_epi16(a[r].a16[1], _mm512_add_epi16(_mm512_srli_epi16(x, 8),
                                                                                 _mm512_srli_epi16(y, 8)));
                }
            }
        }
        for (int r = 0; r < R; r++)
            acc_flush(&a[r], ll);
    }
}

/* Sums of R consecutive row blocks starting at blk into sums[r * bm + row]. */
INLINE void run_block(const mp_tl_geom *g, int ll, int R, const uint8_t *blk, const uint8_t *tab3,
                      const uint8_t *tab2, size_t pf, int32_t *sums)
{
    const int bm = g->bm;
    acc_t a[2];
    const uint8_t *wp[2];
    for (int r = 0; r < R; r++) {
        acc_zero(&a[r]);
        wp[r] = blk + (size_t)r * g->blk_bytes;
    }
    if (g->tl2)
        run_part(a, wp, R, g->s3, 1, ll, bm, tab3, pf);
    run_part(a, wp, R, g->s1, 0, ll, bm, tab2, pf);
    for (int r = 0; r < R; r++) {
        int32_t lanes[4][16], *sr = sums + r * bm;
        for (int i = 0; i < 4; i++)
            _mm512_storeu_si512((void *)lanes[i], a[r].a32[i]);
        for (int j = 0; j < bm; j++)
            sr[j] = ll ? 0 : -128 * (g->g3 + g->g2); /* the _0 bias */
        for (int i = 0; i < 4; i++)
            for (int l = 0; l < 4; l++)
                for (int d = 0; d < 4; d++)
                    sr[(bm == 32 ? (l >> 1) * 16 : 0) + row_of(ll, i, d)] += lanes[i][l * 4 + d];
        if (g->tl2)
            for (int j = 0; j < bm; j++) {
                int16_t c;
                __builtin_memcpy(&c, wp[r] + 2 * j, 2);
                sr[j] += c; /* the add half of eq. 5 */
            }
    }
}

/* mp_tl_store with 16-lane IEEE division and multiplication: the same roundings,
 * in the same order, as the scalar mp_dequant / mp_tl_dequant8. */
INLINE void store(const mp_op *op, int tl2, int ll, const void *act, int t, const int32_t *sums,
                  int row0, int nr, float *y)
{
    const mp_tl_hdr *h = mp_tl_act_hdr(act, tl2, ll, op->k, t);
    const __m512 xs = _mm512_set1_ps(h->x_scale), ws = _mm512_set1_ps(op->w_scale);
    const __m512 ts = _mm512_set1_ps((float)h->tmax / 127.0f);
    float *yt = y + (size_t)t * op->m + row0;
    for (int i = 0; i < nr; i += 16) {
        __mmask16 k = nr - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (nr - i)) - 1);
        __m512 f = _mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32(k, sums + i));
        if (!ll)
            f = _mm512_mul_ps(f, ts);
        _mm512_mask_storeu_ps(yt + i, k, _mm512_mul_ps(_mm512_div_ps(f, xs), ws));
    }
}

INLINE void gemm(const mp_op *op, int tl2, int ll, int bm, const void *act, int n, float *y,
                 int m0, int m1)
{
    mp_tl_geom g = mp_tl_geom_of(tl2, bm, op->m, op->k);
    size_t pf = op->v->n_params > 0 ? (size_t)op->param[0] : PF_DEFAULT;
    int rb = op->v->n_params > 1 ? op->param[1] : 1;
    int32_t sums[64];
    for (int r0 = m0; r0 < m1;) {
        const uint8_t *blk = op->w + (size_t)(r0 / bm) * g.blk_bytes;
        /* two blocks at once while two whole blocks remain in [r0, m1) */
        int two = rb == 2 && m1 - r0 >= 2 * bm;
        int nr = two ? 2 * bm : (m1 - r0 < bm ? m1 - r0 : bm);
        for (int t = 0; t < n; t++) {
            const uint8_t *t3 = mp_tl_tab3(act, tl2, ll, op->k, t);
            const uint8_t *t2 = mp_tl_tab2(act, tl2, ll, op->k, t);
            if (two)
                run_block(&g, ll, 2, blk, t3, t2, pf, sums);
            else
                run_block(&g, ll, 1, blk, t3, t2, pf, sums);
            store(op, tl2, ll, act, t, sums, r0, nr, y);
        }
        r0 += nr;
    }
}

void mp_tl_gemm__avx512(const mp_op *op, int tl2, int lossless, int bm, const void *act,
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
