/* probe-avx2.c - probe loops with 256-bit vectors: reads plain, prefetched and
 * non-temporal (the bandwidth roof is the best of them).  The dot-product peak uses
 * vpmaddubsw + vpmaddwd (AVX2 has no int8 dot-product instruction: 32 MACs per
 * pair), the shuffle peak vpshufb on ymm.  The loops are the template
 * probe-simd.h; this file says which instructions they use. */
#include <immintrin.h>

#define V __m256i
#define VF __m256
#define VB 32
#define VZERO() _mm256_setzero_si256()
#define VXOR(a, b) _mm256_xor_si256((a), (b))
#define VLOAD(p) _mm256_load_si256((p))
#define VSTREAM(p) _mm256_stream_load_si256((p))
#define VSTORE(p, v) _mm256_store_si256((p), (v))
#define VSTOREU(p, v) _mm256_storeu_si256((__m256i *)(p), (v))
#define VFSET1(s) _mm256_set1_ps((s))
#define VFLOAD(p) _mm256_load_ps((p))
#define VFSTORE(p, v) _mm256_store_ps((p), (v))
#define VFMADD(a, b, c) _mm256_fmadd_ps((a), (b), (c))
#define VSET1_8(x) _mm256_set1_epi8((x))
#define VSHUF(v, idx) _mm256_shuffle_epi8((v), (idx))
#define VSET1_32(x) _mm256_set1_epi32((x))
#define VADD32(a, b) _mm256_add_epi32((a), (b))
/* AVX2 has no int8 dot-product instruction: vpmaddubsw + vpmaddwd by ones */
#define VDOT(acc, x, y)                                                                    \
    _mm256_add_epi32((acc), _mm256_madd_epi16(_mm256_maddubs_epi16((x), (y)),              \
                                              _mm256_set1_epi16(1)))

#include "probe-simd.h"

const mp_probe_ops mp_probe_avx2 = {.isa = "avx2", .read = read_v, .read_pf = read_pf_v,
                                   .read_nt = read_nt_v, .copy = copy_v, .triad = triad_v,
                                   .dot = dot_v, .shuffle = shuffle_v};
