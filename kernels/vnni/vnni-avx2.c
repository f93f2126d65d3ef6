/* vnni-avx2.c - VNNI_INT2 / VNNI_INT1 on AVX2 without VNNI: the fallback of
 * seed 003 §III's kernels for CPUs that lack vpdpbusd.  Layouts, up-converts
 * and blocking are those of vnni-avxvnni.c; the int8 dot product is vpmaddubsw
 * (unsigned codes x signed q -> int16 pairs, at most 2 x 2 x 127 = 508, never
 * saturating) summed in int16 and widened with vpmaddwd.  GEMV: the int2 codes
 * masked in place (no vpshufb), summed in int16 over 8 tiles; GEMM: the
 * int16 accumulators take at most 64 k steps (64 x 508 < 32767), so bk <= 256. */
#include <immintrin.h>

#include "../common/mp_x86.h"
#include <math.h>
#include <string.h>

#include "vnni.h"
#include "vnni-prep.h"
#include "../common/mp_numerics.h"
#include "vnni-ymm-up.h"

/* int32 lanes of acc += the row's dot products (one widening per call) */
static inline __m256i widen_add(__m256i acc, __m256i p16)
{
    return _mm256_add_epi32(acc, _mm256_madd_epi16(p16, _mm256_set1_epi16(1)));
}

/* ---- GEMV: one 16-row block (two ymm halves), one token --------------------- */

/* *acc += vpmaddubsw(w, a) (u8 w, s8 a, 16-bit pair sums), in place: written
 * with the intrinsics, GCC 12 put each sum in a new register and copied it
 * back, 8 register moves per step of uk_2_2 beside 16 vector operations, and
 * the front end, not the two multiply pipes, bounded the loop */
static inline __attribute__((always_inline)) void madd_acc(__m256i *acc, __m256i w, __m256i a)
{
    __m256i t;
    __asm__("vpmaddubsw %[a], %[w], %[t]\n\tvpaddw %[t], %[acc], %[acc]"
            : [acc] "+x"(*acc), [t] "=&x"(t)
            : [w] "x"(w), [a] "x"(a));
}

/* No vpshufb: the codes are masked in place.  Bits 0-1 and 4-5 (after one
 * 16-bit shift by 4) give codes 0..2, bits 2-3 and 6-7 give 4 x the code
 * (0, 4, 8), so each half keeps two int16 sums, S1 of the first and S4 of the
 * second kind, and the int32 accumulator takes 4 x S1 + S4 = 4 x the dot
 * product every 8 tiles, shifted back (exactly) at the end.  Bounds: a tile
 * adds at most 2 x 2 x 2 x 127 = 1016 to |S1| and 2 x 2 x 8 x 127 = 4064 to
 * |S4|, so 8 tiles fit int16 (32512); vpmaddubsw's pairs stay at or under
 * 2 x 8 x 127 = 2032, never saturating.  Per half and tile: 1 shift, 4 and,
 * 4 vpmaddubsw, 4 adds (it was 1 shift, 2 and, 4 vpshufb, 4 vpmaddubsw, 3 adds
 * and a vpmaddwd + add each tile; the shuffle and multiply ports bound it). */
static inline __attribute__((always_inline)) void
int2_gemv_block(const consts *c, const uint8_t *w, size_t nt, const int8_t *q, __m256i out[2],
                size_t pf, int pfh)
{
    (void)c;
    const __m256i m03 = _mm256_set1_epi8(0x03), m0c = _mm256_set1_epi8(0x0c);
    const __m256i one = _mm256_set1_epi16(1), four = _mm256_set1_epi16(4);
    __m256i acc[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
    for (size_t j0 = 0; j0 < nt; j0 += 8) {
        const size_t j1 = j0 + 8 < nt ? j0 + 8 : nt;
        __m256i s1[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
        __m256i s4[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
        for (size_t j = j0; j < j1; j++) {
            const uint8_t *p = w + j * 64;
            if (pfh >= 0) {
                mp_x86_prefetch(p + pf, pfh);
                _mm_prefetch((const char *)p + PF_NEAR_BYTES, _MM_HINT_T0);
            }
            const int8_t *qj = q + j * 16;
            const __m256i a0 = bcast4(qj), a1 = bcast4(qj + 4), a2 = bcast4(qj + 8),
                          a3 = bcast4(qj + 12);
            MP_UNROLL for (int h = 0; h < 2; h++) {
                __m256i v = _mm256_loadu_si256((const __m256i *)(p + 32 * h));
                __m256i hi = _mm256_srli_epi16(v, 4); /* bits 4-7 of each byte to 0-3 */
                madd_acc(&s1[h], _mm256_and_si256(v, m03), a0);
                madd_acc(&s4[h], _mm256_and_si256(v, m0c), a1);
                madd_acc(&s1[h], _mm256_and_si256(hi, m03), a2);
                madd_acc(&s4[h], _mm256_and_si256(hi, m0c), a3);
            }
        }
        MP_UNROLL for (int h = 0; h < 2; h++)
            acc[h] = _mm256_add_epi32(acc[h], _mm256_add_epi32(_mm256_madd_epi16(s1[h], four),
                                                               _mm256_madd_epi16(s4[h], one)));
    }
    out[0] = _mm256_srai_epi32(acc[0], 2);
    out[1] = _mm256_srai_epi32(acc[1], 2);
}

static inline __attribute__((always_inline)) void
int1_gemv_block(const consts *c, const uint8_t *w, size_t nt, const int8_t *q, __m256i out[2],
                size_t pf, int pfh)
{
    __m256i acc[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
    for (size_t j = 0; j < nt; j++) {
        const uint8_t *p = w + j * 32;
        if (pfh >= 0 && !(j & 1)) {
            mp_x86_prefetch(p + pf, pfh);
            _mm_prefetch((const char *)p + PF_NEAR_BYTES, _MM_HINT_T0);
        }
        const int8_t *qj = q + j * 16;
        MP_UNROLL for (int h = 0; h < 2; h++) {
            __m256i p16 = _mm256_setzero_si256();
            MP_UNROLL for (int g = 0; g < 4; g++)
                p16 = _mm256_add_epi16(p16, _mm256_maddubs_epi16(int1_up(c, p + 8 * g + 4 * h),
                                                                 bcast4(qj + 4 * g)));
            acc[h] = widen_add(acc[h], p16);
        }
    }
    out[0] = acc[0];
    out[1] = acc[1];
}


/* ---- GEMM: unpack a bm x bk block once, reuse it for every token -------------
 * Scratch as in vnni-avx512vnni.c: code vector (k step s, 16-row sub-block i) at
 * (s * mr + i) * 64 (two ymm: rows 0-7, 8-15), then the int32 partial sums. */



static inline __attribute__((always_inline)) void ukernel(const int MR, const int NR,
                                                          const uint8_t *wb, int nsteps,
                                                          const int8_t *const *qt, int32_t *cs,
                                                          int bm, int first)
{
    /* MR counts ymm here: 2 per 16-row sub-block; acc holds int16 pair sums */
    __m256i acc[8][6];
    MP_UNROLL for (int i = 0; i < MR; i++)
        MP_UNROLL for (int t = 0; t < NR; t++)
            acc[i][t] = _mm256_setzero_si256();
#pragma GCC unroll 1
    for (int s = 0; s < nsteps; s++) {
        __m256i a[6];
        MP_UNROLL for (int t = 0; t < NR; t++)
            a[t] = bcast4(qt[t] + 4 * s);
        MP_UNROLL for (int i = 0; i < MR; i++) {
            __m256i w = _mm256_load_si256((const __m256i *)(wb + (size_t)s * MR * 32 + 32 * i));
            MP_UNROLL for (int t = 0; t < NR; t++)
                madd_acc(&acc[i][t], w, a[t]);
        }
    }
    MP_UNROLL for (int i = 0; i < MR; i++)
        MP_UNROLL for (int t = 0; t < NR; t++)
        {
            __m256i *c = (__m256i *)(cs + t * bm + 8 * i);
            _mm256_store_si256(c, widen_add(first ? _mm256_setzero_si256() : _mm256_load_si256(c),
                                            acc[i][t]));
        }
}

/* this file's compute slots (the catalog rows name them) */
#define MP_VNNI_YMM_INT2 mp_vnni_int2_gemm__avx2
#define MP_VNNI_YMM_INT1 mp_vnni_int1_gemm__avx2
#include "vnni-ymm-gemm.h"

/* ---- prepare: mp_q8act_fill with AVX2, bit for bit ------------------------------
 * The activation quantization is timed with the kernel and at N = 128 the
 * portable one (a libm nearbyintf per element) costs ~12% of the GEMM.  Same
 * arithmetic: absmax as the max of |x| (max is exact in any order; vmaxps
 * returns its second operand when the first is NaN, which skips NaNs like the
 * reference's `>`), the same float scale and product, vroundps to nearest even
 * (nearbyintf's default mode), the same clamp; the tail is the reference code. */
void mp_vnni_prepare__avx2(const mp_op *op, const float *x, int n, void *act, int t0, int t1)
{
    (void)n;
    const int k = op->k;
    const size_t stride = mp_q8act_stride(k);
    const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256 hi = _mm256_set1_ps(127.0f), lo = _mm256_set1_ps(-127.0f);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (int t = t0; t < t1; t++) {
        const float *xt = x + (size_t)t * k;
        uint8_t *base = (uint8_t *)act + (size_t)t * stride;
        int8_t *q = (int8_t *)(base + 64);
        mp_q8hdr *h = (mp_q8hdr *)base;
        /* four running maxima: one chained vmaxps (latency 4) held K = 4096 to
         * 0.7 us, half the prepare; max is exact, so any order gives the bits */
        __m256 m4[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(),
                        _mm256_setzero_ps()};
        int i = 0;
        for (; i + 32 <= k; i += 32)
            MP_UNROLL for (int j = 0; j < 4; j++)
                m4[j] = _mm256_max_ps(_mm256_and_ps(_mm256_loadu_ps(xt + i + 8 * j), absmask), m4[j]);
        __m256 mx = _mm256_max_ps(_mm256_max_ps(m4[0], m4[1]), _mm256_max_ps(m4[2], m4[3]));
        for (; i + 8 <= k; i += 8)
            mx = _mm256_max_ps(_mm256_and_ps(_mm256_loadu_ps(xt + i), absmask), mx);
        float lanes[8];
        _mm256_storeu_ps(lanes, mx);
        const float scale = 127.0f / mp_vnni_prep_absmax(lanes, 8, xt, i, k);
        const __m256 vs = _mm256_set1_ps(scale);
        __m256i sum = _mm256_setzero_si256();
        i = 0;
        for (; i + 32 <= k; i += 32) {
            __m256i v[4];
            MP_UNROLL for (int j = 0; j < 4; j++) {
                /* clamp, then vcvtps2dq rounds to nearest even (the MXCSR
                 * default, nearbyintf's mode): the bounds are integers, so this
                 * equals rounding first, one instruction fewer */
                __m256 f = _mm256_mul_ps(_mm256_loadu_ps(xt + i + 8 * j), vs);
                v[j] = _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(f, lo), hi));
                sum = _mm256_add_epi32(sum, v[j]);
            }
            __m256i b = _mm256_packs_epi16(_mm256_packs_epi32(v[0], v[1]),
                                           _mm256_packs_epi32(v[2], v[3]));
            _mm256_storeu_si256((__m256i *)(q + i), _mm256_permutevar8x32_epi32(b, order));
        }
        int32_t s32[8];
        _mm256_storeu_si256((__m256i *)s32, sum);
        int32_t s = 0;
        for (int j = 0; j < 8; j++)
            s += s32[j];
        mp_vnni_prep_finish(xt, i, k, scale, s, q, h, stride);
    }
}
