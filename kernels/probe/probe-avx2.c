/* probe-avx2.c - probe loops with 256-bit vectors: reads plain, prefetched and
 * non-temporal (the bandwidth roof is the best of them).  The dot-product peak uses
 * vpmaddubsw + vpmaddwd (AVX2 has no int8 dot-product instruction: 32 MACs per
 * pair), the shuffle peak vpshufb on ymm. */
#include <immintrin.h>

#include "probe.h"

/* mode 0: plain loads; 1: prefetcht0 MP_PROBE_PF_DIST ahead; 2: non-temporal
 * loads (vmovntdqa) with prefetchnta ahead.  Inlined with a constant mode. */
static inline __attribute__((always_inline)) uint64_t read_loop(const void *p, size_t n,
                                                                int mode)
{
    const __m256i *q = p;
    const char *ahead = (const char *)p + MP_PROBE_PF_DIST;
    __m256i a = _mm256_setzero_si256(), b = a, c = a, d = a;
    for (size_t i = 0; i < n / 32; i += 4) {
        if (mode == 1) {
            _mm_prefetch(ahead + i * 32, _MM_HINT_T0);
            _mm_prefetch(ahead + i * 32 + 64, _MM_HINT_T0);
        } else if (mode == 2) {
            _mm_prefetch(ahead + i * 32, _MM_HINT_NTA);
            _mm_prefetch(ahead + i * 32 + 64, _MM_HINT_NTA);
        }
        if (mode == 2) {
            a = _mm256_xor_si256(a, _mm256_stream_load_si256(q + i));
            b = _mm256_xor_si256(b, _mm256_stream_load_si256(q + i + 1));
            c = _mm256_xor_si256(c, _mm256_stream_load_si256(q + i + 2));
            d = _mm256_xor_si256(d, _mm256_stream_load_si256(q + i + 3));
        } else {
            a = _mm256_xor_si256(a, _mm256_load_si256(q + i));
            b = _mm256_xor_si256(b, _mm256_load_si256(q + i + 1));
            c = _mm256_xor_si256(c, _mm256_load_si256(q + i + 2));
            d = _mm256_xor_si256(d, _mm256_load_si256(q + i + 3));
        }
    }
    a = _mm256_xor_si256(_mm256_xor_si256(a, b), _mm256_xor_si256(c, d));
    uint64_t out[32 / 8];
    _mm256_storeu_si256((__m256i *)out, a);
    uint64_t r = 0;
    for (int i = 0; i < 32 / 8; i++)
        r ^= out[i];
    return r;
}

MP_PROBE_READ_METHODS

static void copy_v(void *dst, const void *src, size_t n)
{
    const __m256i *s = src;
    __m256i *d = dst;
    for (size_t i = 0; i < n / 32; i += 2) {
        _mm256_store_si256(d + i, _mm256_load_si256(s + i));
        _mm256_store_si256(d + i + 1, _mm256_load_si256(s + i + 1));
    }
}

static void triad_v(float *a, const float *b, const float *c, float s, size_t n)
{
    __m256 vs = _mm256_set1_ps(s);
    for (size_t i = 0; i < n; i += 32 / 4)
        _mm256_store_ps(a + i, _mm256_fmadd_ps(vs, _mm256_load_ps(c + i), _mm256_load_ps(b + i)));
}

/* 12 named accumulators: an array would live in memory at -O2 */
#define MP_ACC12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

static double dot_v(long iters)
{
    __m256i x = _mm256_set1_epi8(3), y = _mm256_set1_epi8(-5);
    const __m256i one = _mm256_set1_epi16(1);
#define DECL(j) __m256i a##j = _mm256_set1_epi32(j);
    MP_ACC12(DECL)
#undef DECL
    for (long i = 0; i < iters; i++) {
#define STEP(j) a##j = _mm256_add_epi32(a##j, _mm256_madd_epi16(_mm256_maddubs_epi16(x, y), one));
        MP_ACC12(STEP)
#undef STEP
        __asm__ volatile("" : "+x"(x), "+x"(y));
    }
    __m256i s = _mm256_setzero_si256();
#define SUM(j) s = _mm256_add_epi32(s, a##j);
    MP_ACC12(SUM)
#undef SUM
    volatile int sink = _mm256_extract_epi32(s, 0);
    (void)sink;
    return (double)iters * 12 * 32;
}

static double shuffle_v(long iters)
{
    __m256i idx = _mm256_set1_epi8(0x0f);
#define DECL(j) __m256i t##j = _mm256_set1_epi8((char)j);
    MP_ACC12(DECL)
#undef DECL
    for (long i = 0; i < iters; i++) {
#define STEP(j) t##j = _mm256_shuffle_epi8(t##j, idx);
        MP_ACC12(STEP)
#undef STEP
    }
    __m256i s = _mm256_setzero_si256();
#define SUM(j) s = _mm256_xor_si256(s, t##j);
    MP_ACC12(SUM)
#undef SUM
    uint8_t out[32];
    _mm256_storeu_si256((__m256i *)out, s);
    volatile uint8_t sink = out[0];
    (void)sink;
    return (double)iters * 12 * 32;
}

const mp_probe_ops mp_probe_avx2 = {.isa = "avx2", .read = read_v, .read_pf = read_pf_v,
                                   .read_nt = read_nt_v, .copy = copy_v, .triad = triad_v,
                                   .dot = dot_v, .shuffle = shuffle_v};
