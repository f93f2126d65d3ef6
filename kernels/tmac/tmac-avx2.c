/* tmac-avx2.c - T-MAC int2 with AVX2 (seed 001 §2.2): the scheme of
 * tmac-avx512.c on 256-bit registers; the two 32-byte halves of a step are rows
 * 0-15 and 16-31 of the same two groups and share one table register.  Bit for
 * bit equal to tmac-scalar.c.  Layout in tmac.h. */
#include <immintrin.h>

#include "../common/mp_x86.h"

#include "tmac.h"
#include "../common/mp_numerics.h"

#include <string.h>

enum { PF_DEFAULT = 8192 };

typedef struct acc_t {
    __m256i w0, h0, w1, h1; /* per plane: word sum, high-byte sum */
    __m256i a32[4];
} acc_t;

static inline __attribute__((always_inline)) void look(acc_t *a, __m256i t, __m256i v)
{
    const __m256i m0f = _mm256_set1_epi8(0x0f);
    __m256i x = _mm256_shuffle_epi8(t, _mm256_and_si256(v, m0f));
    __m256i y = _mm256_shuffle_epi8(t, _mm256_and_si256(_mm256_srli_epi16(v, 4), m0f));
    a->w0 = _mm256_add_epi16(a->w0, x);
    a->h0 = _mm256_add_epi16(a->h0, _mm256_srli_epi16(x, 8));
    a->w1 = _mm256_add_epi16(a->w1, y);
    a->h1 = _mm256_add_epi16(a->h1, _mm256_srli_epi16(y, 8));
}

static inline __attribute__((always_inline)) void flush(acc_t *a)
{
    const __m256i lo16 = _mm256_set1_epi32(0xffff);
    __m256i e0 = _mm256_sub_epi16(a->w0, _mm256_slli_epi16(a->h0, 8));
    __m256i e1 = _mm256_sub_epi16(a->w1, _mm256_slli_epi16(a->h1, 8));
    a->a32[0] = _mm256_add_epi32(a->a32[0], _mm256_add_epi32(_mm256_and_si256(e0, lo16),
                                                             _mm256_slli_epi32(_mm256_and_si256(e1, lo16), 1)));
    a->a32[1] = _mm256_add_epi32(a->a32[1], _mm256_add_epi32(_mm256_srli_epi32(e0, 16),
                                                             _mm256_slli_epi32(_mm256_srli_epi32(e1, 16), 1)));
    a->a32[2] = _mm256_add_epi32(a->a32[2], _mm256_add_epi32(_mm256_and_si256(a->h0, lo16),
                                                             _mm256_slli_epi32(_mm256_and_si256(a->h1, lo16), 1)));
    a->a32[3] = _mm256_add_epi32(a->a32[3], _mm256_add_epi32(_mm256_srli_epi32(a->h0, 16),
                                                             _mm256_slli_epi32(_mm256_srli_epi32(a->h1, 16), 1)));
    a->w0 = a->h0 = a->w1 = a->h1 = _mm256_setzero_si256();
}

static void block(const uint8_t *wp, int nsteps, const uint8_t *tab, size_t pf, int pfh,
                  int32_t *sums)
{
    acc_t a[2];
    for (int h = 0; h < 2; h++) {
        a[h].w0 = a[h].h0 = a[h].w1 = a[h].h1 = _mm256_setzero_si256();
        for (int i = 0; i < 4; i++)
            a[h].a32[i] = _mm256_setzero_si256();
    }
    for (int s0 = 0; s0 < nsteps; s0 += MP_TMAC_FLUSH) {
        int s1 = s0 + MP_TMAC_FLUSH < nsteps ? s0 + MP_TMAC_FLUSH : nsteps;
        for (int s = s0; s < s1; s++, wp += MP_TMAC_STEP) {
            if (pf)
                mp_x86_prefetch(wp + pf, pfh);
            __m256i t = _mm256_loadu_si256((const __m256i *)(tab + (size_t)s * 32));
            look(&a[0], t, _mm256_loadu_si256((const __m256i *)wp));
            look(&a[1], t, _mm256_loadu_si256((const __m256i *)(wp + 32)));
        }
        flush(&a[0]);
        flush(&a[1]);
    }
    static const int off[4] = {0, 2, 1, 3}; /* byte of dword d: 4d + off[i] */
    for (int r = 0; r < MP_TMAC_BM; r++)
        sums[r] = -128 * 3 * 2 * nsteps; /* bias: 2 groups per step, planes 1 + 2 */
    for (int h = 0; h < 2; h++) {
        int32_t lanes[4][8];
        for (int i = 0; i < 4; i++)
            _mm256_storeu_si256((__m256i *)lanes[i], a[h].a32[i]);
        for (int i = 0; i < 4; i++)
            for (int l = 0; l < 2; l++)
                for (int d = 0; d < 4; d++)
                    sums[h * 16 + 4 * d + off[i]] += lanes[i][l * 4 + d];
    }
}

void mp_tmac_gemm__avx2(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                        void *scratch)
{
    (void)scratch;
    mp_tmac_gemm_blocks(op, act, n, y, m0, m1, (size_t)mp_op_param(op, "pf", PF_DEFAULT),
                        mp_op_param(op, "pfh", MP_PFH_T1), block);
}

/* The tables of mp_tmac_prepare (tmac-scalar.c) with AVX2, used by the AVX2 and
 * AVX-512 rows.  Mirror consolidation: entries 0-7 (top bit clear) are computed,
 * sum_d s_d(i) a_d with the sign patterns applied by vpsignw, and entries 15-i
 * are their negation, reversed; rounding |e| * (127 / tmax) + 0.5 in float as the
 * scalar path does (same IEEE operations, same bytes). */
void mp_tmac_prepare__avx2(const mp_op *op, const float *x, int n, void *act, int t0, int t1)
{
    (void)n;
    const int k = op->k;
    const __m128i sg[4] = {_mm_setr_epi16(-1, 1, -1, 1, -1, 1, -1, 1),
                           _mm_setr_epi16(-1, -1, 1, 1, -1, -1, 1, 1),
                           _mm_setr_epi16(-1, -1, -1, -1, 1, 1, 1, 1),
                           _mm_set1_epi16(-1)};
    const __m128i rev = _mm_setr_epi8(14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1);
    const __m256 half = _mm256_set1_ps(0.5f);
    for (int t = t0; t < t1; t++) {
        mp_tmac_hdr h;
        uint8_t *tab = mp_tmac_prep_token(x, k, act, t, &h);
        const int8_t *q = (const int8_t *)(tab + (size_t)k / 4 * 16);
        const __m256 rs = _mm256_set1_ps(127.0f / (float)h.tmax);
        for (int gr = 0; gr < k / 4; gr++) {
            const int8_t *a = q + 4 * gr;
            __m128i e = _mm_sign_epi16(_mm_set1_epi16(a[0]), sg[0]);
            e = _mm_add_epi16(e, _mm_sign_epi16(_mm_set1_epi16(a[1]), sg[1]));
            e = _mm_add_epi16(e, _mm_sign_epi16(_mm_set1_epi16(a[2]), sg[2]));
            e = _mm_add_epi16(e, _mm_sign_epi16(_mm_set1_epi16(a[3]), sg[3]));
            __m256 f = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm_abs_epi16(e)));
            __m256i r = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(f, rs), half));
            __m128i t8 = _mm_sign_epi16(_mm_packs_epi32(_mm256_castsi256_si128(r),
                                                        _mm256_extracti128_si256(r, 1)), e);
            __m128i m8 = _mm_sub_epi16(_mm_setzero_si128(), _mm_shuffle_epi8(t8, rev));
            const __m128i bias = _mm_set1_epi16(128);
            _mm_storeu_si128((__m128i *)(tab + (size_t)gr * 16),
                             _mm_packus_epi16(_mm_add_epi16(t8, bias), _mm_add_epi16(m8, bias)));
        }
        memcpy(tab - MP_TMAC_HDR, &h, sizeof h);
    }
}
