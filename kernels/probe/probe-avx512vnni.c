/* probe-avx512vnni.c - probe loops with 512-bit vectors: reads plain (the
 * bandwidth probe's "wide" method), prefetched and non-temporal.  The dot-product peak uses
 * vpdpbusd on zmm (64 MACs per instruction), the shuffle peak vpshufb on zmm. */
#include <immintrin.h>

#include "probe.h"

/* mode 0: plain loads; 1: prefetcht0 MP_PROBE_PF_DIST ahead; 2: non-temporal
 * loads (vmovntdqa) with prefetchnta ahead.  Inlined with a constant mode.
 * 256 bytes (4 lines) per iteration, one prefetch per line. */
static inline __attribute__((always_inline)) uint64_t read_loop(const void *p, size_t n,
                                                                int mode)
{
    const __m512i *q = p;
    const char *ahead = (const char *)p + MP_PROBE_PF_DIST;
    __m512i a = _mm512_setzero_si512(), b = a, c = a, d = a;
    for (size_t i = 0; i < n / 64; i += 4) {
        if (mode == 1)
            for (int l = 0; l < 4; l++)
                _mm_prefetch(ahead + (i + (size_t)l) * 64, _MM_HINT_T0);
        else if (mode == 2)
            for (int l = 0; l < 4; l++)
                _mm_prefetch(ahead + (i + (size_t)l) * 64, _MM_HINT_NTA);
        if (mode == 2) {
            a = _mm512_xor_si512(a, _mm512_stream_load_si512((void *)(q + i)));
            b = _mm512_xor_si512(b, _mm512_stream_load_si512((void *)(q + i + 1)));
            c = _mm512_xor_si512(c, _mm512_stream_load_si512((void *)(q + i + 2)));
            d = _mm512_xor_si512(d, _mm512_stream_load_si512((void *)(q + i + 3)));
        } else {
            a = _mm512_xor_si512(a, _mm512_load_si512(q + i));
            b = _mm512_xor_si512(b, _mm512_load_si512(q + i + 1));
            c = _mm512_xor_si512(c, _mm512_load_si512(q + i + 2));
            d = _mm512_xor_si512(d, _mm512_load_si512(q + i + 3));
        }
    }
    a = _mm512_xor_si512(_mm512_xor_si512(a, b), _mm512_xor_si512(c, d));
    uint64_t out[64 / 8];
    _mm512_storeu_si512((__m512i *)out, a);
    uint64_t r = 0;
    for (int i = 0; i < 64 / 8; i++)
        r ^= out[i];
    return r;
}

MP_PROBE_READ_METHODS

static void copy_v(void *dst, const void *src, size_t n)
{
    const __m512i *s = src;
    __m512i *d = dst;
    for (size_t i = 0; i < n / 64; i += 2) {
        _mm512_store_si512(d + i, _mm512_load_si512(s + i));
        _mm512_store_si512(d + i + 1, _mm512_load_si512(s + i + 1));
    }
}

static void triad_v(float *a, const float *b, const float *c, float s, size_t n)
{
    __m512 vs = _mm512_set1_ps(s);
    for (size_t i = 0; i < n; i += 64 / 4)
        _mm512_store_ps(a + i, _mm512_fmadd_ps(vs, _mm512_load_ps(c + i), _mm512_load_ps(b + i)));
}

/* 12 named accumulators: an array would live in memory at -O2 */
#define MP_ACC12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

static double dot_v(long iters)
{
    __m512i x = _mm512_set1_epi8(3), y = _mm512_set1_epi8(-5);
#define DECL(j) __m512i a##j = _mm512_set1_epi32(j);
    MP_ACC12(DECL)
#undef DECL
    for (long i = 0; i < iters; i++) {
#define STEP(j) a##j = _mm512_dpbusd_epi32(a##j, x, y);
        MP_ACC12(STEP)
#undef STEP
        __asm__ volatile("" : "+x"(x), "+x"(y));
    }
    __m512i s = _mm512_setzero_si512();
#define SUM(j) s = _mm512_add_epi32(s, a##j);
    MP_ACC12(SUM)
#undef SUM
    /* the accumulators wrap by design: fold them as unsigned bits, not C ints */
    uint32_t lanes[16], fold = 0;
    _mm512_storeu_si512((void *)lanes, s);
    for (int i = 0; i < 16; i++)
        fold ^= lanes[i];
    volatile uint32_t sink = fold;
    (void)sink;
    return (double)iters * 12 * 64;
}

static double shuffle_v(long iters)
{
    __m512i idx = _mm512_set1_epi8(0x0f);
#define DECL(j) __m512i t##j = _mm512_set1_epi8((char)j);
    MP_ACC12(DECL)
#undef DECL
    for (long i = 0; i < iters; i++) {
#define STEP(j) t##j = _mm512_shuffle_epi8(t##j, idx);
        MP_ACC12(STEP)
#undef STEP
    }
    __m512i s = _mm512_setzero_si512();
#define SUM(j) s = _mm512_xor_si512(s, t##j);
    MP_ACC12(SUM)
#undef SUM
    uint8_t out[64];
    _mm512_storeu_si512((__m512i *)out, s);
    volatile uint8_t sink = out[0];
    (void)sink;
    return (double)iters * 12 * 64;
}

const mp_probe_ops mp_probe_avx512vnni = {.isa = "avx512vnni", .read = read_v,
                                         .read_pf = read_pf_v, .read_nt = read_nt_v,
                                         .copy = copy_v, .triad = triad_v, .dot = dot_v,
                                         .shuffle = shuffle_v};
