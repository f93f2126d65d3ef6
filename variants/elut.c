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

#define TL_ROW(NAME, KIND, PNAME, METHOD, BM, ISA, ISABITS, PREP, PREP_FILE, ...)              \
    {.name = NAME, MP_TRAITS(METHOD), .isa = ISABITS,                                    \
     .k_multiple = BM == 16 ? 16 : 8, .m_align = BM, .check = mp_##KIND##_bm##BM##_check, \
     .packed_size = mp_##KIND##_bm##BM##_packed_size, .pack = mp_##KIND##_bm##BM##_pack, \
     .unpack = mp_##KIND##_bm##BM##_unpack, .act_size = mp_##PNAME##_act_size,           \
     .prepare = mp_##PNAME##_prepare##PREP, .compute = mp_tl_gemm__##ISA,               \
     MP_SOURCES("kernels/tl/tl-scalar.c", mp_##KIND##_bm##BM##_pack, PREP_FILE,          \
                mp_##PNAME##_prepare##PREP, "kernels/tl/tl-" #ISA ".c", mp_tl_gemm__##ISA), \
     __VA_ARGS__}

/* One line per path (kernels/tl/tl-ISA.c): the scalar one, and on x86 the AVX2
 * and AVX-512 ones, both with the AVX2 prepare, or on Arm NEON's tbl lookups
 * with the scalar prepare's tables. */
#define TL_SCALAR(NAME, KIND, PNAME, METHOD, BM)                                         \
    TL_ROW(NAME, KIND, PNAME, METHOD, BM, scalar, MP_ISA_SCALAR, , "kernels/tl/tl-scalar.c", \
           .n_params = 0)
#define TL_AVX2(NAME, KIND, PNAME, METHOD, BM)                                           \
    TL_ROW(NAME, KIND, PNAME, METHOD, BM, avx2, MP_ISA_AVX2, __avx2, "kernels/tl/tl-avx2.c", \
           PF_PARAM)
#define TL_AVX512(NAME, KIND, PNAME, METHOD, BM)                                         \
    TL_ROW(NAME, KIND, PNAME, METHOD, BM, avx512, MP_ISA_AVX512 | MP_ISA_AVX2, __avx2,   \
           "kernels/tl/tl-avx2.c", PF_RB_PARAMS)
#define TL_NEON(NAME, KIND, PNAME, METHOD, BM)                                           \
    TL_ROW(NAME, KIND, PNAME, METHOD, BM, neon, MP_ISA_NEON, , "kernels/tl/tl-scalar.c",  \
           .n_params = 0)

const mp_variant mp_catalog_elut[] = {
    TL_SCALAR("tl1_0.scalar.bm16", tl1, tl1_0, TL1_0, 16),
#if MP_CATALOG_X86
    TL_AVX2("tl1_0.avx2.bm16", tl1, tl1_0, TL1_0, 16),
    TL_AVX512("tl1_0.avx512.bm16", tl1, tl1_0, TL1_0, 16),
#elif MP_CATALOG_ARM
    TL_NEON("tl1_0.neon.bm16", tl1, tl1_0, TL1_0, 16),
#endif
    TL_SCALAR("tl1_0.scalar.bm32", tl1, tl1_0, TL1_0, 32),
#if MP_CATALOG_X86
    TL_AVX2("tl1_0.avx2.bm32", tl1, tl1_0, TL1_0, 32),
    TL_AVX512("tl1_0.avx512.bm32", tl1, tl1_0, TL1_0, 32),
#elif MP_CATALOG_ARM
    TL_NEON("tl1_0.neon.bm32", tl1, tl1_0, TL1_0, 32),
#endif
    TL_SCALAR("tl1_1.scalar.bm16", tl1, tl1_1, TL1_1, 16),
#if MP_CATALOG_X86
    TL_AVX2("tl1_1.avx2.bm16", tl1, tl1_1, TL1_1, 16),
    TL_AVX512("tl1_1.avx512.bm16", tl1, tl1_1, TL1_1, 16),
#elif MP_CATALOG_ARM
    TL_NEON("tl1_1.neon.bm16", tl1, tl1_1, TL1_1, 16),
#endif
    TL_SCALAR("tl1_1.scalar.bm32", tl1, tl1_1, TL1_1, 32),
#if MP_CATALOG_X86
    TL_AVX2("tl1_1.avx2.bm32", tl1, tl1_1, TL1_1, 32),
    TL_AVX512("tl1_1.avx512.bm32", tl1, tl1_1, TL1_1, 32),
#elif MP_CATALOG_ARM
    TL_NEON("tl1_1.neon.bm32", tl1, tl1_1, TL1_1, 32),
#endif
    TL_SCALAR("tl2_0.scalar.bm16", tl2, tl2_0, TL2_0, 16),
#if MP_CATALOG_X86
    TL_AVX2("tl2_0.avx2.bm16", tl2, tl2_0, TL2_0, 16),
    TL_AVX512("tl2_0.avx512.bm16", tl2, tl2_0, TL2_0, 16),
#elif MP_CATALOG_ARM
    TL_NEON("tl2_0.neon.bm16", tl2, tl2_0, TL2_0, 16),
#endif
    TL_SCALAR("tl2_0.scalar.bm32", tl2, tl2_0, TL2_0, 32),
#if MP_CATALOG_X86
    TL_AVX2("tl2_0.avx2.bm32", tl2, tl2_0, TL2_0, 32),
    TL_AVX512("tl2_0.avx512.bm32", tl2, tl2_0, TL2_0, 32),
#elif MP_CATALOG_ARM
    TL_NEON("tl2_0.neon.bm32", tl2, tl2_0, TL2_0, 32),
#endif
    TL_SCALAR("tl2_1.scalar.bm16", tl2, tl2_1, TL2_1, 16),
#if MP_CATALOG_X86
    TL_AVX2("tl2_1.avx2.bm16", tl2, tl2_1, TL2_1, 16),
    TL_AVX512("tl2_1.avx512.bm16", tl2, tl2_1, TL2_1, 16),
#elif MP_CATALOG_ARM
    TL_NEON("tl2_1.neon.bm16", tl2, tl2_1, TL2_1, 16),
#endif
    TL_SCALAR("tl2_1.scalar.bm32", tl2, tl2_1, TL2_1, 32),
#if MP_CATALOG_X86
    TL_AVX2("tl2_1.avx2.bm32", tl2, tl2_1, TL2_1, 32),
    TL_AVX512("tl2_1.avx512.bm32", tl2, tl2_1, TL2_1, 32),
#elif MP_CATALOG_ARM
    TL_NEON("tl2_1.neon.bm32", tl2, tl2_1, TL2_1, 32),
#endif
    {0},
};
