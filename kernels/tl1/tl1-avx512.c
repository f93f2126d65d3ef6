/* tl1-avx512.c - the catalog's tl1_*.avx512.bm* entry points: TL1_0 / TL1_1: g = 2, 9-entry tables,
 * 4-bit index (seed 000 §3.1);
 * AVX-512BW (vpshufb lookups on zmm).  TL1 and TL2 share the element-wise LUT engine: the
 * inner loop is mp_tl_gemm__avx512 in ../elut/tl-avx512.c (the
 * template ../elut/tl-x86.h); tables, packed layout
 * and the block-fitting split are documented in ../elut/tl.h. */
#include "../elut/tl.h"

MP_TL_ENTRY(mp_tl1_0_gemm_bm16__avx512, avx512, 0, 0, 16)
MP_TL_ENTRY(mp_tl1_0_gemm_bm32__avx512, avx512, 0, 0, 32)
MP_TL_ENTRY(mp_tl1_1_gemm_bm16__avx512, avx512, 0, 1, 16)
MP_TL_ENTRY(mp_tl1_1_gemm_bm32__avx512, avx512, 0, 1, 32)
