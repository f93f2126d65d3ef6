/* probe-simd.h - the probe loops that differ between ISA files only in vector
 * width: the read stream (plain, prefetched, non-temporal), copy, triad and the
 * byte-shuffle peak.  A template in the manner of kernels/vlut/vlut-simd.h:
 * included by probe-avx2.c and probe-avx512vnni.c after they define
 *   V, VF          the integer and float vector types
 *   VB             bytes per vector
 *   VZERO(), VXOR(a, b), VLOAD(p), VSTREAM(p), VSTORE(p, v), VSTOREU(p, v)
 *   VFSET1(s), VFLOAD(p), VFSTORE(p, v), VFMADD(a, b, c) (a * b + c)
 *   VSET1_8(x), VSHUF(v, idx)   byte broadcast and in-lane byte shuffle
 *   VSET1_32(x), VADD32(a, b)
 *   VDOT(acc, x, y)  acc + the int8 dot products of x (u8) and y (s8) per 32-bit
 *                    lane: VB MACs, whatever instructions the ISA needs for them */
#ifndef VB
#error "probe-simd.h is a template: define V, VB and the vector macros first"
#endif

#include "probe.h"

/* mode 0: plain loads; 1: prefetcht0 MP_PROBE_PF_DIST ahead; 2: non-temporal
 * loads (vmovntdqa) with prefetchnta ahead.  Inlined with a constant mode.
 * 4 vectors per iteration, one prefetch per 64-byte line. */
static inline __attribute__((always_inline)) uint64_t read_loop(const void *p, size_t n,
                                                                int mode)
{
    const V *q = p;
    const char *ahead = (const char *)p + MP_PROBE_PF_DIST;
    V a = VZERO(), b = a, c = a, d = a;
    for (size_t i = 0; i < n / VB; i += 4) {
        if (mode == 1)
            for (int l = 0; l < 4 * VB / 64; l++)
                _mm_prefetch(ahead + i * VB + (size_t)l * 64, _MM_HINT_T0);
        else if (mode == 2)
            for (int l = 0; l < 4 * VB / 64; l++)
                _mm_prefetch(ahead + i * VB + (size_t)l * 64, _MM_HINT_NTA);
        if (mode == 2) {
            a = VXOR(a, VSTREAM(q + i));
            b = VXOR(b, VSTREAM(q + i + 1));
            c = VXOR(c, VSTREAM(q + i + 2));
            d = VXOR(d, VSTREAM(q + i + 3));
        } else {
            a = VXOR(a, VLOAD(q + i));
            b = VXOR(b, VLOAD(q + i + 1));
            c = VXOR(c, VLOAD(q + i + 2));
            d = VXOR(d, VLOAD(q + i + 3));
        }
    }
    a = VXOR(VXOR(a, b), VXOR(c, d));
    uint64_t out[VB / 8];
    VSTOREU(out, a);
    uint64_t r = 0;
    for (int i = 0; i < VB / 8; i++)
        r ^= out[i];
    return r;
}

MP_PROBE_READ_METHODS

static void copy_v(void *dst, const void *src, size_t n)
{
    const V *s = src;
    V *d = dst;
    for (size_t i = 0; i < n / VB; i += 2) {
        VSTORE(d + i, VLOAD(s + i));
        VSTORE(d + i + 1, VLOAD(s + i + 1));
    }
}

static void triad_v(float *a, const float *b, const float *c, float s, size_t n)
{
    VF vs = VFSET1(s);
    for (size_t i = 0; i < n; i += VB / 4)
        VFSTORE(a + i, VFMADD(vs, VFLOAD(c + i), VFLOAD(b + i)));
}

/* 12 named accumulators: an array would live in memory at -O2 */
#define MP_ACC12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
/* the dot peak's accumulators: 12 unless the ISA file says fewer (16 registers
 * hold 8 of them beside x, y and VDOT's constants and temporaries) */
#ifndef MP_DOT_ACC
#define MP_DOT_ACC(X) MP_ACC12(X)
#define MP_DOT_NACC 12
#endif

static double dot_v(long iters)
{
    V x = VSET1_8(3), y = VSET1_8(-5);
#define DECL(j) V a##j = VSET1_32(j);
    MP_DOT_ACC(DECL)
#undef DECL
    /* x is "changed" (no instruction) after every product: VDOT's products do
     * not read the accumulator on AVX2, and with one x and y the compiler
     * computed them once for all 12 (the AVX2 peak measured vpaddd) */
    for (long i = 0; i < iters; i++) {
#define STEP(j) a##j = VDOT(a##j, x, y); __asm__ volatile("" : "+x"(x));
        MP_DOT_ACC(STEP)
#undef STEP
        __asm__ volatile("" : "+x"(x), "+x"(y));
    }
    V s = VZERO();
#define SUM(j) s = VADD32(s, a##j);
    MP_DOT_ACC(SUM)
#undef SUM
    /* the accumulators wrap by design: keep lane 0's bits, not a C int */
    uint32_t lanes[VB / 4];
    VSTOREU(lanes, s);
    volatile uint32_t sink = lanes[0];
    (void)sink;
    return (double)iters * MP_DOT_NACC * VB;
}

static double shuffle_v(long iters)
{
    V idx = VSET1_8(0x0f);
#define DECL(j) V t##j = VSET1_8((char)j);
    MP_ACC12(DECL)
#undef DECL
    for (long i = 0; i < iters; i++) {
#define STEP(j) t##j = VSHUF(t##j, idx);
        MP_ACC12(STEP)
#undef STEP
    }
    V s = VZERO();
#define SUM(j) s = VXOR(s, t##j);
    MP_ACC12(SUM)
#undef SUM
    uint8_t out[VB];
    VSTOREU(out, s);
    volatile uint8_t sink = out[0];
    (void)sink;
    return (double)iters * 12 * VB;
}
