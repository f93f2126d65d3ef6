/* e2e-head-simd.h - the output head's dot products as one template (like
 * kernels/vlut/vlut-simd.h), compiled once per ISA: harness/e2e-head.c
 * (portable), e2e-head-avx2.c, e2e-head-avx512.c, e2e-head-avx512vnni.c; chosen
 * at run time by mp_e2e_head_init.  The including file defines
 * MP_HEAD_FN(name) (its ISA suffix) and may define MP_HEAD_ROWS (f16 rows
 * dotted at once: 4 where 32 vector registers hold their accumulators).
 *
 * The head is read once per decoded token and is the largest tensor of a small
 * model (657 MB of bf16 on BitNet 2B-4T, issue 17), so its loop must keep up
 * with memory: no row is widened into a buffer, and the work per weight byte is
 * a few vector operations.
 *
 * f16 (bf16 rows).  Weights are widened in place: a 32-bit lane holding two
 * bf16 gives the even element as (lane << 16) and the odd one as (lane &
 * 0xffff0000), two operations per 32 weights instead of a 16-to-32-bit
 * extension per 16; the activation was split into even and odd halves per
 * 32-element block by mp_e2e_head_prep.  Arithmetic (every copy): per row four
 * 16-lane float accumulators a0..a3 over steps of 64 elements (a0 even and a1
 * odd elements of the first 32, a2/a3 of the second), then a 32-element step
 * into a0/a1 if one is left, each lane a += w * x as one fused multiply-add
 * (one rounding: FMA instructions in the AVX2 and AVX-512 copies, fmaf in the
 * portable one, which is one instruction on Arm), then (a0 + a1) + (a2 + a3),
 * its lanes summed in index order, then the elements after the last whole
 * 32-block in index order, a product then a sum (-std=c11 implies
 * -ffp-contract=off, so nothing else is fused).  Fused, because a separate
 * product and sum are twice the vector instructions per weight, and on 2
 * threads that, not memory, held the head to 0.85-0.92 of a read of the same
 * bytes; fused, 0.95-0.995 (Xeon VM model 207, 32768 x 4096; the session note
 * of issue 17).  Not vdpbf16ps (AVX512_BF16): it would round x to bf16 (8
 * mantissa bits) and sums pairs with its own rounding, flushing denormals, so
 * no portable copy could give its bits; and the float loop already runs at
 * ~4x the per-thread share of DRAM bandwidth from L2 (2026-11-23: 117-135
 * GB/s on one Zen 5 thread, vs ~30 GB/s of DRAM per thread at 2 threads).
 *
 * q8_0, q4_0 (integer dot, as llama.cpp's q8_0 x q8_0).  x is int8 per 32-block
 * with a float scale dx; the block's integer sum isum = sum w*x is exact
 * (|isum| <= 32*127*127 < 2^24, so also exact as a float), then per block
 * partial = (float)isum * (dw * dx) and partials summed over 16 float lanes,
 * block b in lane b % 16 in block order, the lanes in index order at the end.
 * Only the integer part differs between ISAs, and integers are exact, so every
 * copy gives the same bits.  The rows keep 16 blocks interleaved (the format
 * comment in e2e-head.c) so that a 64-byte load holds four weights of each of
 * 16 blocks: one vpdpbusd per load accumulates 16 block sums in 16 lanes with
 * no horizontal reduction, and the 16 partials are one float multiply and add.
 * The AVX2 copy keeps each 16-lane vector as two 8-lane halves (gcc moves
 * 64-byte vectors through memory on 32-byte registers): the same lanes, the
 * same operations. */
#include <math.h>
#include <string.h>

#include "mp_e2e_head.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#ifndef MP_HEAD_ROWS
#define MP_HEAD_ROWS 1
#endif

/* The helpers take 64-byte vectors by pointer: passed by value, gcc notes
 * (-Wpsabi) that their calling convention differs without AVX-512. */

#ifndef MP_HEAD_TYPES
#define MP_HEAD_TYPES
typedef float mp_hv16f __attribute__((vector_size(64)));
typedef uint16_t mp_hv16u16 __attribute__((vector_size(32)));
typedef uint32_t mp_hv16u32 __attribute__((vector_size(64)));
typedef int32_t mp_hv16i32 __attribute__((vector_size(64)));

/* the layout constants of e2e-head.c's format comment */
enum {
    MP_HQK = 32,                    /* weights per block */
    MP_HGB = 16,                    /* blocks per interleaved group */
    MP_HQ8_GROUP = MP_HGB * 34,     /* 16 bf16 scales, then 8 x 64 interleaved bytes */
    MP_HQ4_GROUP = MP_HGB * 18,     /* 16 bf16 scales, then 4 x 64 interleaved bytes */
    MP_HXG = MP_HGB * MP_HQK        /* int8 activation bytes per group */
};

/* The prepared activation of a q format: dx[nbp] floats, corr[nbp] int32
 * (the offset correction: -128 or -8 times the block's sum of x), then the
 * int8 x; nbp = blocks rounded up to 16. */
static inline int mp_head_nbp(int nb)
{
    return (nb + MP_HGB - 1) / MP_HGB * MP_HGB;
}

static inline float mp_head_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* A tail block (after the whole groups): plain layout, scalar integer sum.
 * q8_0 as sum(u * x) - 128 * sum(x) with u = w + 128 as stored: GCC 12 turns
 * sum((int8_t)(u ^ 0x80) * x) (and sum((u - 128) * x)) into a vpdpbusd that
 * takes u ^ 0x80 as unsigned - a wrong result under -mavx512vnni/-mavxvnni
 * (tests/test_e2e_limit.c caught it); the unsigned form is what it compiles
 * right. */
static inline int mp_head_tail_isum(mp_e2e_head_fmt f, const uint8_t *q, const int8_t *x)
{
    int s = 0, t = 0;
    if (f == MP_E2E_HEAD_Q8_0) {
        for (int i = 0; i < MP_HQK; i++)
            s += q[i] * x[i], t += x[i];
        s -= 128 * t;
    } else
        for (int i = 0; i < MP_HQK / 2; i++)
            s += ((q[i] & 15) - 8) * x[i] + ((q[i] >> 4) - 8) * x[i + MP_HQK / 2];
    return s;
}

/* Block b of a row after its last whole group (its bytes at tp: the scale, then
 * the codes): its term of the row's dot product with xq scaled by dx[b]. */
static inline float mp_head_tail_term(mp_e2e_head_fmt f, const uint8_t *tp, const int8_t *xq,
                                      const float *dx, int b)
{
    uint16_t d16;
    memcpy(&d16, tp, 2);
    int isum = mp_head_tail_isum(f, tp + 2, xq + (size_t)b * MP_HQK);
    return (float)isum * (mp_head_bf16(d16) * dx[b]);
}
#endif

/* ---- the integer step: acc + 16 lanes of 4-byte dot products ----------------------
 * dot_u8s8: lane l += sum_j u[4l+j] * s[4l+j], u unsigned and small enough for
 * maddubs (q4 codes, <= 15).  dot_q8: the q8 weights are stored as w ^ 0x80
 * (unsigned w + 128); where vpdpbusd takes them as unsigned, the accumulator
 * starts at the prepared correction -128 * sum(x) (Q8_CORR 1); elsewhere the
 * sign trick gives sum w * x directly (Q8_CORR 0). */
#if defined(__AVX512VNNI__)
#define Q8_CORR 1
static inline void MP_HEAD_FN(dot_u8s8)(mp_hv16i32 *acc, const uint8_t *u, const int8_t *s)
{
    *acc = (mp_hv16i32)_mm512_dpbusd_epi32((__m512i)*acc, _mm512_loadu_si512(u),
                                           _mm512_loadu_si512(s));
}
static inline void MP_HEAD_FN(dot_q8)(mp_hv16i32 *acc, const uint8_t *u, const int8_t *s)
{
    MP_HEAD_FN(dot_u8s8)(acc, u, s);
}
static inline void MP_HEAD_FN(nib_dot)(mp_hv16i32 *acc, const uint8_t *q, const int8_t *xlo,
                                             const int8_t *xhi)
{
    __m512i v = _mm512_loadu_si512(q), m = _mm512_set1_epi8(15);
    __m512i lo = _mm512_and_si512(v, m), hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), m);
    __m512i a = _mm512_dpbusd_epi32((__m512i)*acc, lo, _mm512_loadu_si512(xlo));
    *acc = (mp_hv16i32)_mm512_dpbusd_epi32(a, hi, _mm512_loadu_si512(xhi));
}
#elif defined(__AVX512BW__)
#define Q8_CORR 0
static inline __m512i MP_HEAD_FN(madd8)(__m512i u, __m512i s)
{
    return _mm512_madd_epi16(_mm512_maddubs_epi16(u, s), _mm512_set1_epi16(1));
}
static inline void MP_HEAD_FN(dot_q8)(mp_hv16i32 *acc, const uint8_t *u, const int8_t *s)
{
    /* |w| * (x with w's sign): no sign instruction in AVX-512, a masked negate */
    __m512i w = _mm512_xor_si512(_mm512_loadu_si512(u), _mm512_set1_epi8((char)0x80));
    __m512i x = _mm512_loadu_si512(s);
    x = _mm512_mask_sub_epi8(x, _mm512_movepi8_mask(w), _mm512_setzero_si512(), x);
    *acc += (mp_hv16i32)MP_HEAD_FN(madd8)(_mm512_abs_epi8(w), x);
}
static inline void MP_HEAD_FN(nib_dot)(mp_hv16i32 *acc, const uint8_t *q, const int8_t *xlo,
                                             const int8_t *xhi)
{
    __m512i v = _mm512_loadu_si512(q), m = _mm512_set1_epi8(15);
    __m512i lo = _mm512_and_si512(v, m), hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), m);
    *acc += (mp_hv16i32)_mm512_add_epi32(
                     MP_HEAD_FN(madd8)(lo, _mm512_loadu_si512(xlo)),
                     MP_HEAD_FN(madd8)(hi, _mm512_loadu_si512(xhi)));
}
#elif defined(__AVX2__)
#define Q8_CORR 0
static inline __m256i MP_HEAD_FN(ld)(const void *p)
{
    return _mm256_loadu_si256((const __m256i *)p);
}
static inline __m256i MP_HEAD_FN(madd8)(__m256i u, __m256i s)
{
    return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1));
}
static inline void MP_HEAD_FN(join)(mp_hv16i32 *acc, __m256i lo, __m256i hi)
{
    mp_hv16i32 r;
    memcpy(&r, &lo, 32);
    memcpy((char *)&r + 32, &hi, 32);
    *acc += r;
}
static inline void MP_HEAD_FN(dot_u8s8)(mp_hv16i32 *acc, const uint8_t *u, const int8_t *s)
{
    MP_HEAD_FN(join)(acc, MP_HEAD_FN(madd8)(MP_HEAD_FN(ld)(u), MP_HEAD_FN(ld)(s)),
                     MP_HEAD_FN(madd8)(MP_HEAD_FN(ld)(u + 32), MP_HEAD_FN(ld)(s + 32)));
}
static inline __m256i MP_HEAD_FN(sdot)(__m256i wu, __m256i x)
{
    __m256i w = _mm256_xor_si256(wu, _mm256_set1_epi8((char)0x80));
    return MP_HEAD_FN(madd8)(_mm256_abs_epi8(w), _mm256_sign_epi8(x, w));
}
static inline void MP_HEAD_FN(dot_q8)(mp_hv16i32 *acc, const uint8_t *u, const int8_t *s)
{
    MP_HEAD_FN(join)(acc, MP_HEAD_FN(sdot)(MP_HEAD_FN(ld)(u), MP_HEAD_FN(ld)(s)),
                     MP_HEAD_FN(sdot)(MP_HEAD_FN(ld)(u + 32), MP_HEAD_FN(ld)(s + 32)));
}
static inline void MP_HEAD_FN(nib_dot)(mp_hv16i32 *acc, const uint8_t *q, const int8_t *xlo,
                                             const int8_t *xhi)
{
    __m256i m = _mm256_set1_epi8(15), r[2];
    for (int h = 0; h < 2; h++) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(q + 32 * h));
        __m256i lo = _mm256_and_si256(v, m), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), m);
        r[h] = _mm256_add_epi32(
            MP_HEAD_FN(madd8)(lo, _mm256_loadu_si256((const __m256i *)(xlo + 32 * h))),
            MP_HEAD_FN(madd8)(hi, _mm256_loadu_si256((const __m256i *)(xhi + 32 * h))));
    }
    MP_HEAD_FN(join)(acc, r[0], r[1]);
}
#else
#define Q8_CORR 1
static inline void MP_HEAD_FN(dot_u8s8)(mp_hv16i32 *acc, const uint8_t *u, const int8_t *s)
{
    for (int l = 0; l < 16; l++)
        for (int j = 0; j < 4; j++)
            (*acc)[l] += u[4 * l + j] * s[4 * l + j];
}
static inline void MP_HEAD_FN(dot_q8)(mp_hv16i32 *acc, const uint8_t *u, const int8_t *s)
{
    MP_HEAD_FN(dot_u8s8)(acc, u, s);
}
static inline void MP_HEAD_FN(nib_dot)(mp_hv16i32 *acc, const uint8_t *q, const int8_t *xlo,
                                             const int8_t *xhi)
{
    for (int l = 0; l < 16; l++)
        for (int j = 0; j < 4; j++) {
            int v = q[4 * l + j];
            (*acc)[l] += (v & 15) * xlo[4 * l + j] + (v >> 4) * xhi[4 * l + j];
        }
}
#endif

/* ---- f16 rows ------------------------------------------------------------------------ */
/* *acc = w * x + *acc per lane, one rounding (the format comment above) */
static inline void MP_HEAD_FN(fma16)(mp_hv16f *acc, const mp_hv16f *w, const mp_hv16f *x)
{
#if defined(__AVX512F__)
    *acc = (mp_hv16f)_mm512_fmadd_ps((__m512)*w, (__m512)*x, (__m512)*acc);
#else
    for (int l = 0; l < 16; l++)
        (*acc)[l] = fmaf((*w)[l], (*x)[l], (*acc)[l]);
#endif
}

/* the even and the odd bf16 of each 32-bit lane, as floats */
#define MP_HEVEN(v) ((mp_hv16f)((v) << 16))
#define MP_HODD(v) ((mp_hv16f)((v) & 0xffff0000u))

static inline float MP_HEAD_FN(f16_finish)(const mp_hv16f *a0, const mp_hv16f *a1,
                                           const mp_hv16f *a2, const mp_hv16f *a3,
                                           const uint16_t *w, const float *xp, int i, int cols)
{
    mp_hv16f s = (*a0 + *a1) + (*a2 + *a3);
    float r = 0.0f;
    for (int l = 0; l < 16; l++)
        r += s[l];
    for (; i < cols; i++) /* after the last whole block, x is stored plain */
        r += xp[i] * mp_head_bf16(w[i]);
    return r;
}

#define MP_F16_LOADX32(i)                                                                 \
    mp_hv16f xe0, xo0;                                                                    \
    memcpy(&xe0, xp + (i), 64), memcpy(&xo0, xp + (i) + 16, 64)
#define MP_F16_LOADX(i)                                                                   \
    MP_F16_LOADX32(i);                                                                    \
    mp_hv16f xe1, xo1;                                                                    \
    memcpy(&xe1, xp + (i) + 32, 64), memcpy(&xo1, xp + (i) + 48, 64)
/* Row R's 32 f16 pairs at i: even lanes into a##R##A with xe, odd into a##R##B with xo. */
#define MP_F16_HALF(R, i, A, B, xe, xo)                                                   \
    do {                                                                                  \
        mp_hv16u32 v_;                                                                    \
        memcpy(&v_, w##R + (i), 64);                                                      \
        mp_hv16f e_ = MP_HEVEN(v_), o_ = MP_HODD(v_);                                     \
        MP_HEAD_FN(fma16)(&a##R##A, &e_, &xe);                                            \
        MP_HEAD_FN(fma16)(&a##R##B, &o_, &xo);                                            \
    } while (0)
#define MP_F16_STEP64(R, i)                                                               \
    do {                                                                                  \
        MP_F16_HALF(R, i, 0, 1, xe0, xo0);                                                \
        MP_F16_HALF(R, (i) + 32, 2, 3, xe1, xo1);                                         \
    } while (0)
#define MP_F16_STEP32(R, i) MP_F16_HALF(R, i, 0, 1, xe0, xo0)
#define MP_F16_ACC(R) mp_hv16f a##R##0 = {0}, a##R##1 = {0}, a##R##2 = {0}, a##R##3 = {0}

#if defined(__AVX2__) && !defined(__AVX512F__)
/* AVX2: gcc moves 64-byte vectors through memory when the registers are 32
 * bytes wide, so each 16-lane accumulator is kept as its two 8-lane halves
 * (lanes 0-7 and 8-15): the same operations on the same lanes, the same bits. */
typedef float mp_hv8f __attribute__((vector_size(32)));
typedef uint32_t mp_hv8u32 __attribute__((vector_size(32)));
#define MP_H8_FMA(w, x, a) ((mp_hv8f)_mm256_fmadd_ps((__m256)(w), (__m256)(x), (__m256)(a)))
#define MP_H8_STEP(al, ah, bl, bh, off)                                                   \
    do {                                                                                  \
        mp_hv8u32 v_;                                                                     \
        mp_hv8f x_;                                                                       \
        memcpy(&v_, w0 + i + (off), 32);                                                  \
        memcpy(&x_, xp + i + (off), 32), al = MP_H8_FMA((mp_hv8f)(v_ << 16), x_, al);     \
        memcpy(&x_, xp + i + (off) + 16, 32);                                             \
        bl = MP_H8_FMA((mp_hv8f)(v_ & 0xffff0000u), x_, bl);                              \
        memcpy(&v_, w0 + i + (off) + 16, 32);                                             \
        memcpy(&x_, xp + i + (off) + 8, 32), ah = MP_H8_FMA((mp_hv8f)(v_ << 16), x_, ah); \
        memcpy(&x_, xp + i + (off) + 24, 32);                                             \
        bh = MP_H8_FMA((mp_hv8f)(v_ & 0xffff0000u), x_, bh);                              \
    } while (0)

static float MP_HEAD_FN(f16_row)(const uint16_t *w0, int cols, const float *xp)
{
    mp_hv8f a0l = {0}, a0h = {0}, a1l = {0}, a1h = {0}, a2l = {0}, a2h = {0}, a3l = {0},
            a3h = {0};
    int nfull = cols / 32 * 32, i = 0;
    for (; i + 64 <= nfull; i += 64) {
        MP_H8_STEP(a0l, a0h, a1l, a1h, 0);
        MP_H8_STEP(a2l, a2h, a3l, a3h, 32);
    }
    if (i < nfull) {
        MP_H8_STEP(a0l, a0h, a1l, a1h, 0);
        i += 32;
    }
    mp_hv8f sl = (a0l + a1l) + (a2l + a3l), sh = (a0h + a1h) + (a2h + a3h);
    float r = 0.0f;
    for (int l = 0; l < 8; l++)
        r += sl[l];
    for (int l = 0; l < 8; l++)
        r += sh[l];
    for (; i < cols; i++)
        r += xp[i] * mp_head_bf16(w0[i]);
    return r;
}
#undef MP_H8_STEP
#undef MP_H8_FMA
#else
static float MP_HEAD_FN(f16_row)(const uint16_t *w0, int cols, const float *xp)
{
    MP_F16_ACC(0);
    int nfull = cols / 32 * 32, i = 0;
    for (; i + 64 <= nfull; i += 64) {
        MP_F16_LOADX(i);
        MP_F16_STEP64(0, i);
    }
    if (i < nfull) {
        MP_F16_LOADX32(i);
        MP_F16_STEP32(0, i);
        i += 32;
    }
    return MP_HEAD_FN(f16_finish)(&a00, &a01, &a02, &a03, w0, xp, i, cols);
}
#endif

#if MP_HEAD_ROWS == 4
/* Four rows at once share the activation loads: 16 accumulators + 4 x vectors. */
static void MP_HEAD_FN(f16_rows4)(const uint16_t *w0, size_t stride, int cols, const float *xp,
                                  float *out)
{
    const uint16_t *w1 = w0 + stride, *w2 = w1 + stride, *w3 = w2 + stride;
    MP_F16_ACC(0);
    MP_F16_ACC(1);
    MP_F16_ACC(2);
    MP_F16_ACC(3);
    int nfull = cols / 32 * 32, i = 0;
    /* the four rows are one contiguous run and the next four follow it: fetch
     * the same columns of those (4 rows = 20 KB ahead on a 2560-wide head), since
     * from DRAM one thread read the head at 21 GB/s of its 35 without it; into
     * L2 (locality 2: prefetcht1), as the kernels' weight streams by default (pfh,
     * kernels/common/mp_x86.h); and each row's own columns 1 KB ahead (4 KB
     * over the four) into L1 (locality 3: prefetcht0), as the VNNI GEMV does
     * (PF_NEAR_BYTES in kernels/vnni/vnni-avx512vnni.c): a load then finds its
     * line in L1.  Past a row's end that is the next row's start, read next.
     * Xeon VM (model 207), against a read of the same bytes, interleaved (the
     * session note of issue 17): this head on 1 thread 0.905 -> 0.960 of the
     * read; a synthetic copy of the walk, 16384 rows of 2560, 0.88 -> 0.97 on 1
     * and 2 threads. */
    const char *ahead = (const char *)(w0 + 4 * stride), *near = (const char *)w0 + 1024;
    for (; i + 64 <= nfull; i += 64) {
        for (int r = 0; r < 4; r++) {
            __builtin_prefetch(ahead + (size_t)r * stride * 2 + (size_t)i * 2, 0, 2);
            __builtin_prefetch(ahead + (size_t)r * stride * 2 + (size_t)i * 2 + 64, 0, 2);
            __builtin_prefetch(near + (size_t)r * stride * 2 + (size_t)i * 2, 0, 3);
            __builtin_prefetch(near + (size_t)r * stride * 2 + (size_t)i * 2 + 64, 0, 3);
        }
        MP_F16_LOADX(i);
        MP_F16_STEP64(0, i);
        MP_F16_STEP64(1, i);
        MP_F16_STEP64(2, i);
        MP_F16_STEP64(3, i);
    }
    if (i < nfull) {
        MP_F16_LOADX32(i);
        MP_F16_STEP32(0, i);
        MP_F16_STEP32(1, i);
        MP_F16_STEP32(2, i);
        MP_F16_STEP32(3, i);
        i += 32;
    }
    out[0] = MP_HEAD_FN(f16_finish)(&a00, &a01, &a02, &a03, w0, xp, i, cols);
    out[1] = MP_HEAD_FN(f16_finish)(&a10, &a11, &a12, &a13, w1, xp, i, cols);
    out[2] = MP_HEAD_FN(f16_finish)(&a20, &a21, &a22, &a23, w2, xp, i, cols);
    out[3] = MP_HEAD_FN(f16_finish)(&a30, &a31, &a32, &a33, w3, xp, i, cols);
}
#endif

/* ---- q rows --------------------------------------------------------------------------- */
/* The q rows stream as the f16 rows do (f16_rows4): each group's lines 8 KB
 * ahead into L2 (prefetcht1, the kernels' default weight stream) and 1 KB
 * ahead into L1 (prefetcht0); a group is 544 (q8_0) or 288 (q4_0) bytes, the
 * next row's groups follow its last.  Without it the Q8_0 head of 2B-4T read
 * at 12.9 GB/s on one thread of the AMD EPYC AVX2 VM where the f16 head reads
 * 15.0 (e2e --profile, lm_head). */
enum { MP_HQ_PF_FAR = 8192, MP_HQ_PF_NEAR = 1024 };
static inline __attribute__((always_inline)) void mp_head_q_prefetch(const uint8_t *gp,
                                                                     size_t gbytes)
{
    for (size_t o = 0; o < gbytes; o += 64) {
        __builtin_prefetch(gp + MP_HQ_PF_FAR + o, 0, 2);
        __builtin_prefetch(gp + MP_HQ_PF_NEAR + o, 0, 3);
    }
}

#if defined(__AVX2__) && !defined(__AVX512F__)
/* AVX2: the 16 lanes as two 8-lane halves (blocks 0-7 and 8-15 of a group),
 * for the reason given above f16_row; the same operations per lane. */
static inline mp_hv8f MP_HEAD_FN(part)(__m256i isum, const uint8_t *d16, const float *dx)
{
    mp_hv8f dw = (mp_hv8f)_mm256_slli_epi32(
        _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)d16)), 16);
    mp_hv8f dxv;
    memcpy(&dxv, dx, sizeof dxv);
    return (mp_hv8f)_mm256_cvtepi32_ps(isum) * (dw * dxv);
}

static float MP_HEAD_FN(q_row)(mp_e2e_head_fmt f, const uint8_t *row, int nb, const float *dx,
                               const int32_t *corr, const int8_t *xq)
{
    int groups = nb / MP_HGB, q8 = f == MP_E2E_HEAD_Q8_0;
    size_t gbytes = q8 ? MP_HQ8_GROUP : MP_HQ4_GROUP;
    mp_hv8f accl = {0}, acch = {0};
    for (int g = 0; g < groups; g++) {
        const uint8_t *gp = row + (size_t)g * gbytes, *q = gp + 2 * MP_HGB;
        const int8_t *xg = xq + (size_t)g * MP_HXG;
        mp_head_q_prefetch(gp, gbytes);
        __m256i al, ah, z = _mm256_setzero_si256();
        if (q8) {
            __m256i bl = z, bh = z;
            al = ah = z;
            for (int k = 0; k < 8; k += 2) {
                al = _mm256_add_epi32(al, MP_HEAD_FN(sdot)(MP_HEAD_FN(ld)(q + 64 * k),
                                                           MP_HEAD_FN(ld)(xg + 64 * k)));
                ah = _mm256_add_epi32(ah, MP_HEAD_FN(sdot)(MP_HEAD_FN(ld)(q + 64 * k + 32),
                                                           MP_HEAD_FN(ld)(xg + 64 * k + 32)));
                bl = _mm256_add_epi32(bl, MP_HEAD_FN(sdot)(MP_HEAD_FN(ld)(q + 64 * k + 64),
                                                           MP_HEAD_FN(ld)(xg + 64 * k + 64)));
                bh = _mm256_add_epi32(bh, MP_HEAD_FN(sdot)(MP_HEAD_FN(ld)(q + 64 * k + 96),
                                                           MP_HEAD_FN(ld)(xg + 64 * k + 96)));
            }
            al = _mm256_add_epi32(al, bl);
            ah = _mm256_add_epi32(ah, bh);
        } else {
            __m256i m = _mm256_set1_epi8(15);
            al = MP_HEAD_FN(ld)(corr + g * MP_HGB);
            ah = MP_HEAD_FN(ld)(corr + g * MP_HGB + 8);
            for (int k = 0; k < 4; k++)
                for (int h = 0; h < 2; h++) {
                    __m256i v = MP_HEAD_FN(ld)(q + 64 * k + 32 * h);
                    __m256i lo = _mm256_and_si256(v, m);
                    __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), m);
                    __m256i d = _mm256_add_epi32(
                        MP_HEAD_FN(madd8)(lo, MP_HEAD_FN(ld)(xg + 128 * k + 32 * h)),
                        MP_HEAD_FN(madd8)(hi, MP_HEAD_FN(ld)(xg + 128 * k + 64 + 32 * h)));
                    if (h)
                        ah = _mm256_add_epi32(ah, d);
                    else
                        al = _mm256_add_epi32(al, d);
                }
        }
        accl += MP_HEAD_FN(part)(al, gp, dx + g * MP_HGB);
        acch += MP_HEAD_FN(part)(ah, gp + 16, dx + g * MP_HGB + 8);
    }
    size_t tb = q8 ? 34 : 18;
    const uint8_t *tp = row + (size_t)groups * gbytes;
    for (int b = groups * MP_HGB; b < nb; b++, tp += tb) {
        float p = mp_head_tail_term(f, tp, xq, dx, b);
        if (b % MP_HGB < 8)
            accl[b % MP_HGB] += p;
        else
            acch[b % MP_HGB - 8] += p;
    }
    float r = 0.0f;
    for (int l = 0; l < 8; l++)
        r += accl[l];
    for (int l = 0; l < 8; l++)
        r += acch[l];
    return r;
}
#else
static float MP_HEAD_FN(q_row)(mp_e2e_head_fmt f, const uint8_t *row, int nb, const float *dx,
                               const int32_t *corr, const int8_t *xq)
{
    int groups = nb / MP_HGB, q8 = f == MP_E2E_HEAD_Q8_0;
    size_t gbytes = q8 ? MP_HQ8_GROUP : MP_HQ4_GROUP;
    mp_hv16f acc = {0};
    for (int g = 0; g < groups; g++) {
        const uint8_t *gp = row + (size_t)g * gbytes, *q = gp + 2 * MP_HGB;
        const int8_t *xg = xq + (size_t)g * MP_HXG;
        mp_head_q_prefetch(gp, gbytes);
        mp_hv16i32 a = {0}, b = {0};
        if (q8) {
#if Q8_CORR
            memcpy(&a, corr + g * MP_HGB, 64);
#endif
            MP_HEAD_FN(dot_q8)(&a, q, xg);
            MP_HEAD_FN(dot_q8)(&b, q + 64, xg + 64);
            MP_HEAD_FN(dot_q8)(&a, q + 128, xg + 128);
            MP_HEAD_FN(dot_q8)(&b, q + 192, xg + 192);
            MP_HEAD_FN(dot_q8)(&a, q + 256, xg + 256);
            MP_HEAD_FN(dot_q8)(&b, q + 320, xg + 320);
            MP_HEAD_FN(dot_q8)(&a, q + 384, xg + 384);
            MP_HEAD_FN(dot_q8)(&b, q + 448, xg + 448);
        } else {
            memcpy(&a, corr + g * MP_HGB, 64);
            MP_HEAD_FN(nib_dot)(&a, q, xg, xg + 64);
            MP_HEAD_FN(nib_dot)(&b, q + 64, xg + 128, xg + 192);
            MP_HEAD_FN(nib_dot)(&a, q + 128, xg + 256, xg + 320);
            MP_HEAD_FN(nib_dot)(&b, q + 192, xg + 384, xg + 448);
        }
        mp_hv16u16 d16;
        mp_hv16f dxv;
        memcpy(&d16, gp, sizeof d16);
        memcpy(&dxv, dx + g * MP_HGB, sizeof dxv);
        mp_hv16f dw = (mp_hv16f)(__builtin_convertvector(d16, mp_hv16u32) << 16);
        acc += __builtin_convertvector(a + b, mp_hv16f) * (dw * dxv);
    }
    size_t tb = q8 ? 34 : 18;
    const uint8_t *tp = row + (size_t)groups * gbytes;
    for (int b = groups * MP_HGB; b < nb; b++, tp += tb) {
        acc[b % MP_HGB] += mp_head_tail_term(f, tp, xq, dx, b);
    }
    float r = 0.0f;
    for (int l = 0; l < 16; l++)
        r += acc[l];
    return r;
}
#endif

void MP_HEAD_FN(mp_e2e_head_rows)(mp_e2e_head_fmt f, const uint8_t *rows, int nrows, int cols,
                                  const void *px, float *out)
{
    size_t rb = mp_e2e_head_row_bytes(f, cols);
    if (f == MP_E2E_HEAD_F16) {
        const float *xp = px;
        int r = 0;
#if MP_HEAD_ROWS == 4
        for (; r + 4 <= nrows; r += 4)
            MP_HEAD_FN(f16_rows4)((const uint16_t *)(rows + (size_t)r * rb), (size_t)cols, cols,
                                  xp, out + r);
#endif
        for (; r < nrows; r++)
            out[r] = MP_HEAD_FN(f16_row)((const uint16_t *)(rows + (size_t)r * rb), cols, xp);
        return;
    }
    int nb = cols / MP_HQK, nbp = mp_head_nbp(nb);
    const float *dx = px;
    const int32_t *corr = (const int32_t *)(dx + nbp);
    const int8_t *xq = (const int8_t *)(corr + nbp);
    for (int r = 0; r < nrows; r++)
        out[r] = MP_HEAD_FN(q_row)(f, rows + (size_t)r * rb, nb, dx, corr, xq);
}

#undef Q8_CORR
#undef MP_F16_LOADX
#undef MP_F16_LOADX32
#undef MP_F16_STEP64
#undef MP_F16_STEP32
#undef MP_F16_ACC
#undef MP_HEVEN
#undef MP_HODD
