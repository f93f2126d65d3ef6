/* elut.c - catalog rows of the element-wise LUT family: TL1_0, TL1_1, TL2_0, TL2_1
 * (seed 000 §3 and Appendix E, seed 004 §2), each for bm in {16, 32} (fixed: it
 * changes the packed layout) on scalar, AVX2 and AVX-512 (x86-64) or NEON (AArch64).  The x86 paths expose
 * the software prefetch's distance and hint as runtime parameters (catalog.h).  The AVX2 and AVX-512
 * rows build their tables with the AVX2 prepare (same bytes as the scalar one),
 * so the AVX-512 rows also need AVX2.  Kernels in kernels/tl/: the
 * compute of path ISA is mp_tl_gemm__ISA in tl-ISA.c, which reads the method and
 * bm off the row (tl.h). */
#include "catalog.h"
#include "../kernels/tl/tl.h"

/* pf was always in these rows' keys, pfh (T1) is new: kernels/common/mp_x86.h */
#define PF_PARAM .n_params = 2, .params = {MP_PF_PARAM(8192, false), MP_PFH_PARAM(MP_PFH_T1)}

#define PF_RB_PARAMS                                                                 \
    .n_params = 3,                                                                   \
    .params = {MP_PF_PARAM(8192, false), MP_PFH_PARAM(MP_PFH_T1),                    \
               {.name = "rb", .def = 1, .n_values = 2, .values = {1, 2},             \
                .doc = "row blocks sharing each table load (2: two weight streams)"}}

#define TL_ROW(NAME, KIND, PNAME, METHOD, BM, ISA, ISABITS, PREP, PREP_FILE, ...)              \
    {.name = NAME, MP_TRAITS(METHOD), .isa = ISABITS,                                    \
     .k_multiple = BM == 16 ? 16 : 8, .m_align = BM, .check = mp_##KIND##_bm##BM##_check, \
     .packed_size = mp_##KIND##_bm##BM##_packed_size, .pack = mp_##KIND##_bm##BM##_pack, \
     .unpack = mp_##KIND##_bm##BM##_unpack, .act_size = mp_##PNAME##_act_size,           \
     .prepare = mp_##PNAME##_prepare##PREP, .compute = mp_tl_gemm__##ISA,               \
     MP_SOURCES("kernels/tl/tl-scalar.c", mp_##KIND##_bm##BM##_pack, PREP_FILE,          \
                mp_##PNAME##_prepare##PREP, "kernels/tl/tl-" #ISA ".c", mp_tl_gemm__##ISA), \
     __VA_ARGS__}

/* One row per path (kernels/tl/tl-ISA.c), each named in full: the scalar one,
 * and on x86 the AVX2 and AVX-512 ones, both with the AVX2 prepare, or on Arm
 * NEON's tbl lookups with the scalar prepare's tables. */
#if MP_CATALOG_X86
#define TL_SIMD_ROWS(AVX2, AVX512, NEON, KIND, PNAME, METHOD, BM)                           \
    TL_ROW(AVX2, KIND, PNAME, METHOD, BM, avx2, MP_ISA_AVX2, __avx2, "kernels/tl/tl-avx2.c", \
           PF_PARAM),                                                                       \
    TL_ROW(AVX512, KIND, PNAME, METHOD, BM, avx512, MP_ISA_AVX512 | MP_ISA_AVX2, __avx2,     \
           "kernels/tl/tl-avx2.c", PF_RB_PARAMS),
#elif MP_CATALOG_ARM
#define TL_SIMD_ROWS(AVX2, AVX512, NEON, KIND, PNAME, METHOD, BM)                           \
    TL_ROW(NEON, KIND, PNAME, METHOD, BM, neon, MP_ISA_NEON, , "kernels/tl/tl-scalar.c",     \
           .n_params = 0),
#else
#define TL_SIMD_ROWS(AVX2, AVX512, NEON, KIND, PNAME, METHOD, BM)
#endif
#define TL_ROWS(SCALAR, AVX2, AVX512, NEON, KIND, PNAME, METHOD, BM)                        \
    TL_ROW(SCALAR, KIND, PNAME, METHOD, BM, scalar, MP_ISA_SCALAR, , "kernels/tl/tl-scalar.c", \
           .n_params = 0),                                                                  \
    TL_SIMD_ROWS(AVX2, AVX512, NEON, KIND, PNAME, METHOD, BM)

/* names: scalar, avx2, avx512, neon */
const mp_variant mp_catalog_elut[] = {
    TL_ROWS("tl1_0.scalar.bm16", "tl1_0.avx2.bm16", "tl1_0.avx512.bm16", "tl1_0.neon.bm16", tl1, tl1_0, TL1_0, 16)
    TL_ROWS("tl1_0.scalar.bm32", "tl1_0.avx2.bm32", "tl1_0.avx512.bm32", "tl1_0.neon.bm32", tl1, tl1_0, TL1_0, 32)
    TL_ROWS("tl1_1.scalar.bm16", "tl1_1.avx2.bm16", "tl1_1.avx512.bm16", "tl1_1.neon.bm16", tl1, tl1_1, TL1_1, 16)
    TL_ROWS("tl1_1.scalar.bm32", "tl1_1.avx2.bm32", "tl1_1.avx512.bm32", "tl1_1.neon.bm32", tl1, tl1_1, TL1_1, 32)
    TL_ROWS("tl2_0.scalar.bm16", "tl2_0.avx2.bm16", "tl2_0.avx512.bm16", "tl2_0.neon.bm16", tl2, tl2_0, TL2_0, 16)
    TL_ROWS("tl2_0.scalar.bm32", "tl2_0.avx2.bm32", "tl2_0.avx512.bm32", "tl2_0.neon.bm32", tl2, tl2_0, TL2_0, 32)
    TL_ROWS("tl2_1.scalar.bm16", "tl2_1.avx2.bm16", "tl2_1.avx512.bm16", "tl2_1.neon.bm16", tl2, tl2_1, TL2_1, 16)
    TL_ROWS("tl2_1.scalar.bm32", "tl2_1.avx2.bm32", "tl2_1.avx512.bm32", "tl2_1.neon.bm32", tl2, tl2_1, TL2_1, 32)
    {0},
};
