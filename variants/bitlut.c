/* bitlut.c - catalog rows of the bit-wise LUT family: T-MAC's int2 kernel on
 * ternary weights (seed 001 §2.2, seed 000 §2.3), scalar, AVX2 and AVX-512.  The
 * SIMD paths expose the software prefetch's distance and hint (catalog.h) and build their tables with
 * the AVX2 prepare (same bytes as the scalar one; the AVX-512 row needs AVX2 too).  Kernels in kernels/tmac/. */
#include "catalog.h"
#include "../kernels/tmac/tmac.h"

#define TMAC_ROW(NAME, ISA, ISABITS, PREP, PREP_FILE, ...)                               \
    {.name = NAME, MP_TRAITS_K(TMAC_INT2), .isa = ISABITS,                              \
     .m_align = MP_TMAC_BM,                                                             \
     .check = mp_tmac_check, .packed_size = mp_tmac_packed_size, .pack = mp_tmac_pack,  \
     .unpack = mp_tmac_unpack, .act_size = mp_tmac_act_size,                            \
     .prepare = PREP, .compute = mp_tmac_gemm__##ISA, __VA_ARGS__,                       \
     MP_SOURCES("kernels/tmac/tmac-scalar.c", mp_tmac_pack, PREP_FILE, PREP,               \
                "kernels/tmac/tmac-" #ISA ".c", mp_tmac_gemm__##ISA)}

/* pf was always in these rows' keys, pfh (T1) is new: kernels/common/mp_x86.h */
#define PF_PARAM .n_params = 2, .params = {MP_PF_PARAM(8192, false), MP_PFH_PARAM(MP_PFH_T1)}

const mp_variant mp_catalog_bitlut[] = {
    TMAC_ROW("tmac_int2.scalar", scalar, MP_ISA_SCALAR, mp_tmac_prepare, "kernels/tmac/tmac-scalar.c", .n_params = 0),
#if MP_CATALOG_X86
    TMAC_ROW("tmac_int2.avx2", avx2, MP_ISA_AVX2, mp_tmac_prepare__avx2, "kernels/tmac/tmac-avx2.c", PF_PARAM),
    TMAC_ROW("tmac_int2.avx512", avx512, MP_ISA_AVX512 | MP_ISA_AVX2, mp_tmac_prepare__avx2, "kernels/tmac/tmac-avx2.c",
             PF_PARAM),
#endif
#if MP_CATALOG_ARM /* tbl lookups (tmac-neon.c), the scalar prepare's tables */
    TMAC_ROW("tmac_int2.neon", neon, MP_ISA_NEON, mp_tmac_prepare, "kernels/tmac/tmac-scalar.c", .n_params = 0),
#endif
    {0},
};
