/* elut.c - catalog rows of the element-wise LUT family: TL1_0, TL1_1, TL2_0, TL2_1
 * (seed 000 §3 and Appendix E, seed 004 §2), each for bm in {16, 32} (fixed: it
 * changes the packed layout) on scalar, AVX2 and AVX-512 (x86-64) or NEON (AArch64).  The SIMD paths expose
 * the software prefetch distance as a runtime parameter.  The AVX2 and AVX-512
 * rows build their tables with the AVX2 prepare (same bytes as the scalar one),
 * so the AVX-512 rows also need AVX2.  Kernels in kernels/tl/: the
 * compute of path ISA is mp_tl_gemm__ISA in tl-ISA.c, which reads the method and
 * bm off the row (tl.h). */
#include "catalog.h"
#include "../kernels/tl/tl.h"

#define PF_PARAM                                                                     \
    .n_params = 1,                                                                   \
    .params = {{.name = "pf", .def = 8192, .n_values = 5,                            \
                .values = {0, 2048, 4096, 8192, 16384},                              \
                .doc = "software prefetch distance along the packed stream, bytes (0 = off)"}}

#define PF_RB_PARAMS                                                                 \
    .n_params = 2,                                                                   \
    .params = {{.name = "pf", .def = 8192, .n_values = 5,                            \
                .values = {0, 2048, 4096, 8192, 16384},                              \
                .doc = "software prefetch distance along the packed stream, bytes (0 = off)"}, \
               {.name = "rb", .def = 1, .n_values = 2, .values = {1, 2},             \
                .doc = "row blocks sharing each table load (2: two weight streams)"}}

#define TL_ROW(KIND, NAME, METHOD, BM, ISA, ISABITS, PREP, ...)                          \
    {.name = #NAME "." #ISA ".bm" #BM, MP_TRAITS(METHOD), .isa = ISABITS,                \
     .k_multiple = BM == 16 ? 16 : 8, .m_align = BM, .check = mp_##KIND##_bm##BM##_check, \
     .packed_size = mp_##KIND##_bm##BM##_packed_size, .pack = mp_##KIND##_bm##BM##_pack, \
     .unpack = mp_##KIND##_bm##BM##_unpack, .act_size = mp_##NAME##_act_size,            \
     .prepare = mp_##NAME##_prepare##PREP, .compute = mp_tl_gemm__##ISA,                \
     __VA_ARGS__}

#if MP_CATALOG_X86
/* one line per path (kernels/tl/tl-ISA.c) */
#define TL_SIMD_ROWS(KIND, NAME, METHOD, BM)                                                   \
    TL_ROW(KIND, NAME, METHOD, BM, avx2, MP_ISA_AVX2, __avx2, PF_PARAM),                       \
    TL_ROW(KIND, NAME, METHOD, BM, avx512, MP_ISA_AVX512 | MP_ISA_AVX2, __avx2, PF_RB_PARAMS), \
    /* end of the x86 paths */
#elif MP_CATALOG_ARM /* tbl lookups (tl-neon.c), the scalar prepare's tables */
#define TL_SIMD_ROWS(KIND, NAME, METHOD, BM)                                                   \
    TL_ROW(KIND, NAME, METHOD, BM, neon, MP_ISA_NEON, , .n_params = 0),                        \
    /* end of the Arm paths */
#else
#define TL_SIMD_ROWS(KIND, NAME, METHOD, BM)
#endif

#define TL_ROWS(KIND, NAME, METHOD, BM)                                        \
    TL_ROW(KIND, NAME, METHOD, BM, scalar, MP_ISA_SCALAR, , .n_params = 0),          \
    TL_SIMD_ROWS(KIND, NAME, METHOD, BM)

const mp_variant mp_catalog_elut[] = {
    TL_ROWS(tl1, tl1_0, TL1_0, 16)
    TL_ROWS(tl1, tl1_0, TL1_0, 32)
    TL_ROWS(tl1, tl1_1, TL1_1, 16)
    TL_ROWS(tl1, tl1_1, TL1_1, 32)
    TL_ROWS(tl2, tl2_0, TL2_0, 16)
    TL_ROWS(tl2, tl2_0, TL2_0, 32)
    TL_ROWS(tl2, tl2_1, TL2_1, 16)
    TL_ROWS(tl2, tl2_1, TL2_1, 32)
    {0},
};
