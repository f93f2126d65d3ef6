/* probe-avx2.c - probe loops with 256-bit vectors: reads plain, prefetched and
 * non-temporal (the bandwidth roof is the best of them).  The dot-product peak uses
 * vpmaddubsw + vpaddw (AVX2 has no int8 dot-product instruction: 32 MACs per
 * vpmaddubsw), the shuffle peak vpshufb on ymm.  The loops are the template
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
/* AVX2 has no int8 dot-product instruction: its fastest int8 MACs are
 * vpmaddubsw's 32 per instruction, summed in 16-bit lanes (the accumulators wrap
 * by design).  That is what the kernels that accumulate int16 pairs between
 * widenings run (vnni_int2.avx2's micro-kernel), so it is the roof; with a
 * vpmaddwd widening after every product it was 195 GOPS on the AMD EPYC AVX2
 * VM against 320 for this (mpbench probe --quick, one core). */
#define VDOT(acc, x, y) _mm256_add_epi16((acc), _mm256_maddubs_epi16((x), (y)))

#define MP_DOT_ACC(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define MP_DOT_NACC 8
#include "probe-simd.h"

const mp_probe_ops mp_probe_avx2 = {.isa = "avx2", .read = read_v, .read_pf = read_pf_v,
                                   .read_nt = read_nt_v, .copy = copy_v, .triad = triad_v,
                                   .dot = dot_v, .shuffle = shuffle_v};
