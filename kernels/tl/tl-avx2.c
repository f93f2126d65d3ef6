/* tl-avx2.c - TL1/TL2 (_0 and _1) with AVX2: the template tl-x86.h over 256-bit
 * vectors, one 32-byte half of a step at a time (two 128-bit vpshufb lanes; a
 * half step is one bm x by compute block of seed 000 Fig. 6).  What only AVX2
 * does its own way: sign bits are expanded to bytes with broadcast / shuffle /
 * and / cmpeq, and the rows short of a vector go through the scalar
 * mp_tl_store.  Also the table precompute (prepare) of the AVX2 and AVX-512
 * rows.  Bit for bit equal to tl-scalar.c.  Layout in tl.h. */
#include <immintrin.h>
#include <string.h>

#include "tl.h"
#include "../common/mp_numerics.h"

#define FN(x) x##__avx2
#define VB 32
#define TL_RB_MAX 1
#define V __m256i
#define VF __m256
#define VZERO() _mm256_setzero_si256()
#define VSET1_8(x) _mm256_set1_epi8(x)
#define VSET1_32(x) _mm256_set1_epi32(x)
#define VLOAD(p) _mm256_loadu_si256((const __m256i *)(p))
#define VSTORE(p, v) _mm256_storeu_si256((__m256i *)(p), (v))
#define VLOAD_TAB32(p) VLOAD(p)
#define VAND(a, b) _mm256_and_si256((a), (b))
#define VXOR(a, b) _mm256_xor_si256((a), (b))
#define VADD16(a, b) _mm256_add_epi16((a), (b))
#define VSUB16(a, b) _mm256_sub_epi16((a), (b))
#define VADD32(a, b) _mm256_add_epi32((a), (b))
#define VSHUF(t, i) _mm256_shuffle_epi8((t), (i))
#define VUNPACKLO8(a, b) _mm256_unpacklo_epi8((a), (b))
#define VUNPACKHI8(a, b) _mm256_unpackhi_epi8((a), (b))
#define VSLLI16(v, n) _mm256_slli_epi16((v), (n))
#define VSRLI16(v, n) _mm256_srli_epi16((v), (n))
#define VSLLI32(v, n) _mm256_slli_epi32((v), (n))
#define VSRLI32(v, n) _mm256_srli_epi32((v), (n))
#define VSRAI32(v, n) _mm256_srai_epi32((v), (n))
#define VF_SET1(x) _mm256_set1_ps(x)
#define VF_CVT(v) _mm256_cvtepi32_ps(v)
#define VF_MUL(a, b) _mm256_mul_ps((a), (b))
#define VF_DIV(a, b) _mm256_div_ps((a), (b))
#define VF_STORE(p, v) _mm256_storeu_ps((p), (v))
#define VSIGNS(p) signs32(p)
#define STORE_TAIL mp_tl_store

/* 32 sign bits at p -> 32 bytes of 0 / -1 (byte b <- bit b). */
static inline __attribute__((always_inline)) __m256i signs32(const uint8_t *p)
{
    const __m256i sel = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                         2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bits = _mm256_set1_epi64x((long long)0x8040201008040201ull);
    int32_t w;
    __builtin_memcpy(&w, p, 4);
    __m256i b = _mm256_shuffle_epi8(_mm256_set1_epi32(w), sel);
    return _mm256_cmpeq_epi8(_mm256_and_si256(b, bits), bits);
}

/* This file's compute slot, which its catalog rows name: mp_tl_gemm__avx2
 * (FN(mp_tl_gemm) at the end of tl-x86.h). */
#include "tl-x86.h"

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
    /* digits of index i (Table 6 for TL2: i = 9 d0 + 3 d1 + d2; Table 5 for TL1:
     * i = 3 (d0 + 1) + (d1 + 1)); unused indices are 0 */
    const __m256i t2d0 = _mm256_setr_epi16(0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0);
    const __m256i t2d1 = _mm256_setr_epi16(0, 0, 1, 1, 1, -1, -1, -1, 0, 0, 0, 1, 1, 1, 0, 0);
    const __m256i t2d2 = _mm256_setr_epi16(0, 1, -1, 0, 1, -1, 0, 1, -1, 0, 1, -1, 0, 1, 0, 0);
    const __m256i t1d0 = _mm256_setr_epi16(-1, -1, -1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0);
    const __m256i t1d1 = _mm256_setr_epi16(-1, 0, 1, -1, 0, 1, -1, 0, 1, 0, 0, 0, 0, 0, 0, 0);
    for (int t = t0; t < t1; t++) {
        uint8_t *tab3, *tab2;
        int8_t *q;
        mp_tl_hdr h = mp_tl_token_start(&g, ll, x, act, t, &tab3, &tab2, &q);
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
        memcpy(tab3 - MP_TL_HDR, &h, sizeof h); /* the header heads the block */
    }
}

MP_TL_PREPARE_ENTRY(mp_tl1_0_prepare__avx2, mp_tl_prepare__avx2, 0, 0)
MP_TL_PREPARE_ENTRY(mp_tl1_1_prepare__avx2, mp_tl_prepare__avx2, 0, 1)
MP_TL_PREPARE_ENTRY(mp_tl2_0_prepare__avx2, mp_tl_prepare__avx2, 1, 0)
MP_TL_PREPARE_ENTRY(mp_tl2_1_prepare__avx2, mp_tl_prepare__avx2, 1, 1)
