/* probe-avx512vnni.c - probe loops with 512-bit vectors: reads plain (the
 * bandwidth probe's "wide" method), prefetched and non-temporal.  The dot-product peak uses
 * vpdpbusd on zmm (64 MACs per instruction), the shuffle peak vpshufb on zmm.
 * The loops are the template probe-simd.h; this file says which instructions. */
#include <immintrin.h>

#define V __m512i
#define VF __m512
#define VB 64
#define VZERO() _mm512_setzero_si512()
#define VXOR(a, b) _mm512_xor_si512((a), (b))
#define VLOAD(p) _mm512_load_si512((p))
#define VSTREAM(p) _mm512_stream_load_si512((void *)(p))
#define VSTORE(p, v) _mm512_store_si512((p), (v))
#define VSTOREU(p, v) _mm512_storeu_si512((void *)(p), (v))
#define VFSET1(s) _mm512_set1_ps((s))
#define VFLOAD(p) _mm512_load_ps((p))
#define VFSTORE(p, v) _mm512_store_ps((p), (v))
#define VFMADD(a, b, c) _mm512_fmadd_ps((a), (b), (c))
#define VSET1_8(x) _mm512_set1_epi8((x))
#define VSHUF(v, idx) _mm512_shuffle_epi8((v), (idx))
#define VSET1_32(x) _mm512_set1_epi32((x))
#define VADD32(a, b) _mm512_add_epi32((a), (b))
#define VDOT(acc, x, y) _mm512_dpbusd_epi32((acc), (x), (y))

#include "probe-simd.h"

const mp_probe_ops mp_probe_avx512vnni = {.isa = "avx512vnni", .read = read_v,
                                         .read_pf = read_pf_v, .read_nt = read_nt_v,
                                         .copy = copy_v, .triad = triad_v, .dot = dot_v,
                                         .shuffle = shuffle_v};
