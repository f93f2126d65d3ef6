/* mp_x86.h - the few x86 vector helpers the kernels share (included by
 * *-avx2.c, *-avx512.c and *-avx512vnni.c files only, which give the ISA):
 * float horizontal sums in the fixed order the scalar paths mirror, fp16 scale
 * loads, the software prefetch of one unit of a row group (mp_rows4.h), the
 * cache level every x86 kernel prefetches its weight stream into (MP_PF_HINT),
 * and a vpdpbusd with a broadcast memory operand (VNNI). */
#ifndef MP_X86_H
#define MP_X86_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

/* Weight streams are prefetched into L2 (T1), not L1 (T0).  A weight byte is
 * read once per call, so L1 gains nothing from holding it early, and each T0
 * prefetch holds one of the core's few L1 miss buffers until its line arrives
 * from DRAM.  Xeon VM (model 207), vnni_int2.avx512vnni GEMV, cold, clock-gated,
 * two alternations, 6912x2560 / 2560x6912: T0 at 8 KB 78-80% of the same-run
 * read on 1 and 2 threads, T1 or T2 at 8-16 KB 85-88%, none 36-54%.
 * A kernel file may define MP_PF_HINT before including this header where the
 * other level measured faster for it (tq2_0: T0, see tq2_0-avx2.c).  The far
 * prefetch into L2 may be followed by a near one into L1, a couple of KB ahead,
 * where a loop's instruction window is too short to hide the L2's latency:
 * the VNNI GEMVs (PF_NEAR_BYTES, vnni-avx512vnni.c: 85-90% of the read ->
 * 90-94%) and the end-to-end F16 head (harness/e2e-head-simd.h). */
#ifndef MP_PF_HINT
#define MP_PF_HINT _MM_HINT_T1
#endif

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

/* unit u of a prefetch stream of `step` bytes per unit, when prefetch is on.
 * always_inline, and it must stay so: GCC 12 counts __builtin_prefetch as free of
 * side effects, so a wrapper left out of line by the early inliner is judged a
 * const function and its (void) call deleted as dead code (cddce1): TQ1_0 on
 * AVX2/AVX-512 and F16 on AVX-512 had lost every prefetch that way. */
static inline __attribute__((always_inline)) void
mp_x86_prefetch_unit(const uint8_t *pf, size_t u, size_t step, int prefetch)
{
    if (!prefetch)
        return;
    const char *p = (const char *)pf + u * step;
    for (size_t o = 0; o < step; o += 64)
        _mm_prefetch(p + o, MP_PF_HINT);
}

#endif
