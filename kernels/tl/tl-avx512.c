/* tl-avx512.c - TL1/TL2 (_0 and _1) with AVX-512BW: the template tl-x86.h over
 * 512-bit vectors, one whole 64-byte step of 4-bit indices per vector (four
 * 128-bit vpshufb lanes at once; seed 000 §3.1, Fig. 5; Appendix E).  What only
 * AVX-512 has: a bm = 32 table is one 32-byte load broadcast to both halves, the
 * 64 sign bits of a step are loaded straight into a mask register (vpmovm2b),
 * the rows short of a vector are finished with masked loads and stores, and up
 * to two row blocks share each table load (the rb parameter).  Layout in tl.h;
 * the tables come from the AVX2 prepare (tl-avx2.c). */
#include <immintrin.h>

#include "tl.h"

#define FN(x) x##__avx512
#define VB 64
#define TL_RB_MAX 2
#define V __m512i
#define VF __m512
#define VZERO() _mm512_setzero_si512()
#define VSET1_8(x) _mm512_set1_epi8(x)
#define VSET1_32(x) _mm512_set1_epi32(x)
#define VLOAD(p) _mm512_loadu_si512((const void *)(p))
#define VSTORE(p, v) _mm512_storeu_si512((void *)(p), (v))
#define VLOAD_TAB32(p) _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(p)))
#define VAND(a, b) _mm512_and_si512((a), (b))
#define VXOR(a, b) _mm512_xor_si512((a), (b))
#define VADD16(a, b) _mm512_add_epi16((a), (b))
#define VSUB16(a, b) _mm512_sub_epi16((a), (b))
#define VADD32(a, b) _mm512_add_epi32((a), (b))
#define VSHUF(t, i) _mm512_shuffle_epi8((t), (i))
#define VUNPACKLO8(a, b) _mm512_unpacklo_epi8((a), (b))
#define VUNPACKHI8(a, b) _mm512_unpackhi_epi8((a), (b))
#define VSLLI16(v, n) _mm512_slli_epi16((v), (n))
#define VSRLI16(v, n) _mm512_srli_epi16((v), (n))
#define VSLLI32(v, n) _mm512_slli_epi32((v), (n))
#define VSRLI32(v, n) _mm512_srli_epi32((v), (n))
#define VSRAI32(v, n) _mm512_srai_epi32((v), (n))
#define VF_SET1(x) _mm512_set1_ps(x)
#define VF_CVT(v) _mm512_cvtepi32_ps(v)
#define VF_MUL(a, b) _mm512_mul_ps((a), (b))
#define VF_DIV(a, b) _mm512_div_ps((a), (b))
#define VF_STORE(p, v) _mm512_storeu_ps((p), (v))
#define VSIGNS(p) signs64(p)
#define STORE_TAIL store_tail

/* 64 sign bits at p -> 64 bytes of 0 / -1 (byte b <- bit b). */
static inline __attribute__((always_inline)) __m512i signs64(const uint8_t *p)
{
    uint64_t k;
    __builtin_memcpy(&k, p, 8);
    return _mm512_movm_epi8(_cvtu64_mask64(k));
}

/* The last nr < 16 rows: the vector arithmetic of store() under a mask. */
static inline __attribute__((always_inline)) void store_tail(const mp_op *op, int tl2, int ll,
                                                             const void *act, int t,
                                                             const int32_t *sums, int row0,
                                                             int nr, float *y)
{
    const mp_tl_hdr *h = mp_tl_act_hdr(act, tl2, ll, op->k, t);
    __mmask16 k = (__mmask16)((1u << nr) - 1);
    __m512 f = _mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32(k, sums));
    if (!ll)
        f = _mm512_mul_ps(f, _mm512_set1_ps((float)h->tmax / 127.0f));
    f = _mm512_mul_ps(_mm512_div_ps(f, _mm512_set1_ps(h->x_scale)), _mm512_set1_ps(op->w_scale));
    _mm512_mask_storeu_ps(y + (size_t)t * op->m + row0, k, f);
}

/* This file's compute slot, which its catalog rows name: mp_tl_gemm__avx512
 * (FN(mp_tl_gemm) at the end of tl-x86.h). */
#include "tl-x86.h"
