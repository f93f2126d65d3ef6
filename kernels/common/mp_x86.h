/* mp_x86.h - the few x86 vector helpers the kernels share (included by
 * *-avx2.c, *-avx512.c and *-avx512vnni.c files only, which give the ISA):
 * float horizontal sums in the fixed order the scalar paths mirror, fp16 scale
 * loads, the software prefetch of a weight stream with a run-time hint
 * (mp_x86_prefetch) and of one unit of a row group (mp_rows4.h), and a
 * vpdpbusd with a broadcast memory operand (VNNI). */
#ifndef MP_X86_H
#define MP_X86_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "../mp_kernel.h"
#include "mp_numerics.h"

/* small fixed loops over registers must be unrolled, or -O2 keeps the
 * accumulator arrays in memory */
#define MP_UNROLL _Pragma("GCC unroll 32")

/* The hint of a weight-stream prefetch is the run-time parameter pfh
 * (MP_PFH_*, mp_kernel.h), its distance pf, both in every x86 SIMD row's
 * parameter table so the tuner explores them.  The default is T1 (into L2), not
 * T0 (L1): a weight byte is read once per call, so L1 gains nothing from holding
 * it early, and each T0 prefetch holds one of the core's few L1 miss buffers
 * until its line arrives from DRAM.  Xeon VM (model 207), vnni_int2.avx512vnni
 * GEMV, cold, clock-gated, two alternations, 6912x2560 / 2560x6912: T0 at 8 KB
 * 78-80% of the same-run read on 1 and 2 threads, T1 or T2 at 8-16 KB 85-88%,
 * none 36-54%.  TQ2_0 defaults to T0, which measured faster for it
 * (variants/mad.c).  The far prefetch into L2 may be followed by a near one into
 * L1 (always T0, on while pf is), a couple of KB ahead, where a loop's
 * instruction window is too short to hide the L2's latency: the VNNI GEMVs
 * (PF_NEAR_BYTES, vnni-avx512vnni.c: 85-90% of the read -> 90-94%) and the
 * end-to-end F16 head (harness/e2e-head-simd.h). */

/* A prefetch of p with hint pfh (MP_PFH_*; anything else is NTA).  _mm_prefetch
 * takes its hint as an immediate, so a run-time one is a branch to one of four
 * instructions: loop-invariant and predicted, and folded away where pfh is a
 * constant.  always_inline, as mp_x86_prefetch_unit (which says why). */
static inline __attribute__((always_inline)) void mp_x86_prefetch(const void *p, int pfh)
{
    const char *c = (const char *)p;
    switch (pfh) {
    case MP_PFH_T0:
        _mm_prefetch(c, _MM_HINT_T0);
        break;
    case MP_PFH_T1:
        _mm_prefetch(c, _MM_HINT_T1);
        break;
    case MP_PFH_T2:
        _mm_prefetch(c, _MM_HINT_T2);
        break;
    default:
        _mm_prefetch(c, _MM_HINT_NTA);
        break;
    }
}

/* CALL(h) with h the constant equal to the run-time hint pfh (MP_PFH_*), or -1
 * for any other value (no prefetch): the loop a kernel inlines into CALL sees
 * its hint as a constant, so each mp_x86_prefetch in it is one instruction, as
 * with the compile-time hint before pfh existed.  For the loops that count
 * instructions per byte (the VNNI GEMVs, vnni-avx512vnni.c's notes); the others
 * pay the helper's predicted branch. */
#define MP_X86_PFH_DISPATCH(pfh, CALL)   \
    do {                                 \
        switch (pfh) {                   \
        case MP_PFH_T0:                  \
            CALL(MP_PFH_T0);             \
            break;                       \
        case MP_PFH_T1:                  \
            CALL(MP_PFH_T1);             \
            break;                       \
        case MP_PFH_T2:                  \
            CALL(MP_PFH_T2);             \
            break;                       \
        case MP_PFH_NTA:                 \
            CALL(MP_PFH_NTA);            \
            break;                       \
        default:                         \
            CALL(-1);                    \
            break;                       \
        }                                \
    } while (0)

/* lanes 0-3 + 4-7, then (0+2, 1+3), then the two: the order of mp_mad_fold16's
 * last steps */
static inline float mp_x86_sum8(__m256 s8)
{
    __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
    __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
    return _mm_cvtss_f32(_mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1)));
}

/* 16 float lanes held as lanes 0-7 in a and 8-15 in b, folded */
static inline float mp_x86_fold2x8(__m256 a, __m256 b)
{
    return mp_x86_sum8(_mm256_add_ps(a, b));
}

/* mp_dequant (mp_numerics.h) of rows int32 sums, each less off, into y: eight
 * lanes at a time, the tail by the helper itself.  Convert, divide and multiply
 * are each correctly rounded per lane, so the bits are the scalar helper's.  A
 * scalar vdivss per output held half of the VNNI AVX2 GEMM's own samples (5% of
 * the call; perf, cpu-clock, 2560x2560, N = 128). */
static inline void mp_x86_dequant_row(float *y, const int32_t *acc, int rows, int32_t off,
                                      float w_scale, float x_scale)
{
    const __m256i o = _mm256_set1_epi32(off);
    const __m256 xs = _mm256_set1_ps(x_scale), ws = _mm256_set1_ps(w_scale);
    int i = 0;
    for (; i + 8 <= rows; i += 8) {
        __m256i a = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(acc + i)), o);
        _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_div_ps(_mm256_cvtepi32_ps(a), xs), ws));
    }
    for (; i < rows; i++)
        y[i] = mp_dequant(acc[i] - off, w_scale, x_scale);
}

static inline int32_t mp_x86_hsum_epi32(__m256i v)
{
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return _mm_cvtsi128_si32(s);
}

/* the four int32 sums of a, b, c, d (8 lanes each), as one vector */
static inline __m128i mp_x86_hsum4_epi32(__m256i a, __m256i b, __m256i c, __m256i d)
{
    __m256i ab = _mm256_hadd_epi32(a, b), cd = _mm256_hadd_epi32(c, d);
    __m256i s = _mm256_hadd_epi32(ab, cd);
    return _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
}

#ifdef __AVX512F__
/* 16 int32 lanes folded to 8: lane l + lane l+8 */
static inline __m256i mp_x86_fold_epi32(__m512i v)
{
    return _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
}

static inline __m128i mp_x86_hsum4_epi32x16(__m512i a, __m512i b, __m512i c, __m512i d)
{
    return mp_x86_hsum4_epi32(mp_x86_fold_epi32(a), mp_x86_fold_epi32(b), mp_x86_fold_epi32(c),
                              mp_x86_fold_epi32(d));
}

#ifdef __AVX512VNNI__
/* acc += u (unsigned bytes) . the 4 signed bytes at q broadcast to every lane:
 * one vpdpbusd with the broadcast as its memory operand, accumulating in place.
 * Through the intrinsics (_mm512_set1_epi32 of the 4 bytes), GCC 12 emits a
 * separate vpbroadcastd for each and, around a loop's accumulator array, a
 * vmovdqa32 copy of each accumulator per step: 40 instructions per 128 weight
 * bytes of the VNNI GEMV where 24 do.  A streaming loop keeps fewer bytes in
 * flight the more instructions it spends on each, so the spare ones cost
 * bandwidth, not only issue slots (Xeon VM, 2560x2560 and 6912x2560 at 2
 * threads, a flat GEMV loop inside mpbench: 80-88% of the same-run read
 * through the intrinsics, 86-89% written this way; the session note of issue
 * 17).  AT&T syntax, as GCC and Clang emit by default. */
static inline __attribute__((always_inline)) __m512i mp_x86_dpbusd_bcast(__m512i acc, __m512i u,
                                                                         const int8_t *q)
{
    __asm__("vpdpbusd %2%{1to16%}, %1, %0" : "+v"(acc) : "v"(u), "m"(*(const int32_t *)q));
    return acc;
}
#endif

/* 16 float lanes in one register, folded as mp_x86_fold2x8 */
static inline float mp_x86_fold16(__m512 a)
{
    return mp_x86_fold2x8(_mm512_castps512_ps256(a),
                          _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1)));
}
#endif

/* the fp16 at p (unaligned) as a float */
static inline float mp_x86_half_at(const uint8_t *p)
{
    uint16_t h;
    memcpy(&h, p, 2);
    return _cvtsh_ss(h);
}

/* the fp16 at byte `off` of each of the four rows, as 4 floats */
static inline __m128 mp_x86_half4_at(const uint8_t *const *wr, size_t off)
{
    uint16_t h[4];
    for (int i = 0; i < 4; i++)
        memcpy(&h[i], wr[i] + off, 2);
    return _mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)h));
}

/* unit u of a prefetch stream of `step` bytes per unit, with hint `prefetch`
 * (MP_PFH_*), or none when it is negative (mp_rows4.h's contract).
 * always_inline, and it must stay so: GCC 12 counts __builtin_prefetch as free of
 * side effects, so a wrapper left out of line by the early inliner is judged a
 * const function and its (void) call deleted as dead code (cddce1): TQ1_0 on
 * AVX2/AVX-512 and F16 on AVX-512 had lost every prefetch that way. */
static inline __attribute__((always_inline)) void
mp_x86_prefetch_unit(const uint8_t *pf, size_t u, size_t step, int prefetch)
{
    const char *p = (const char *)pf + u * step;
    /* one test of the hint per unit, not per line: each case's loop is the one
     * the compile-time hint had (unrolled over a constant step) */
#define MP_X86_UNIT_LINES(H)                    \
    for (size_t o = 0; o < step; o += 64)       \
        mp_x86_prefetch(p + o, H)
    if (prefetch >= 0)
        MP_X86_PFH_DISPATCH(prefetch, MP_X86_UNIT_LINES);
#undef MP_X86_UNIT_LINES
}

#endif
