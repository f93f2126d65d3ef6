/* tl2-avx2.c - the catalog's tl2_*.avx2.bm* entry points: TL2_0 / TL2_1: g = 3, mirror
 * consolidation, 4-bit index + sign bit, the K remainder by TL1 (seed 000 §3.2, eq. 5);
 * AVX2 (vpshufb lookups).  TL1 and TL2 share the element-wise LUT engine: the
 * inner loop is mp_tl_gemm__avx2 in ../elut/tl-avx2.c (the
 * template ../elut/tl-x86.h); tables, packed layout
 * and the block-fitting split are documented in ../elut/tl.h. */
#include "../elut/tl.h"

MP_TL_ENTRY(mp_tl2_0_gemm_bm16__avx2, avx2, 1, 0, 16)
MP_TL_ENTRY(mp_tl2_0_gemm_bm32__avx2, avx2, 1, 0, 32)
MP_TL_ENTRY(mp_tl2_1_gemm_bm16__avx2, avx2, 1, 1, 16)
MP_TL_ENTRY(mp_tl2_1_gemm_bm32__avx2, avx2, 1, 1, 32)
