/* vnni.c - catalog rows of the vnni family: VNNI_INT2 and VNNI_INT1, seed 003
 * §III (up-convert and compute with int8 dot products).  The packed layouts are
 * fixed (vnni.h), so every blocking factor is a runtime parameter the tuner may
 * explore: mtile x ntile is the GEMM register block (limited by the ISA's
 * registers, see the check functions), ktile the K extent of one unpacked
 * block, gemv the token count below which the GEMV runs instead of the
 * unpack-once GEMM (names as README.md's "Parameters"; the old spellings bm,
 * bn, bk, gemm_n: catalog.h, MP_PARAM_RENAMES).  The scalar oracles take no
 * parameters (they have no blocking). */
#include "catalog.h"
#include "../kernels/vnni/vnni.h"

#define VNNI_MTILE(D)                                                               \
    {.name = "mtile", .def = D, .n_values = 4, .values = {16, 32, 48, 64},          \
     .doc = "GEMM rows per unpacked block (16 per vector of accumulators)"}
#define VNNI_NTILE(D)                                                               \
    {.name = "ntile", .def = D, .n_values = 10, .values = {1, 2, 3, 4, 5, 6, 7, 8, 12, 14}, \
     .doc = "GEMM tokens per register block"}
#define VNNI_KTILE(D, n, ...)                                                       \
    {.name = "ktile", .def = D, .n_values = n, .values = {__VA_ARGS__},              \
     .doc = "GEMM K per unpacked block (the mtile x ktile codes stay in L1)"}
#define VNNI_GEMV(D)                                                                \
    {.name = "gemv", .def = D, .n_values = 5, .values = {2, 3, 4, 8, 16},            \
     .doc = "N below which the GEMV path runs (the unpack-once GEMM from there on)"}
#define VNNI_SEQ(D)                                                                 \
    {.name = "seq", .def = D, .n_values = 2, .values = {0, 1},                       \
     .doc = "int1 up-convert: 0 = seed 003's broadcast/shuffle/test/blend, 1 = the "   \
            "64-bit group loaded as a mask register"}

/* zmm: up to 28 accumulators; ymm: 12; avx2 keeps ktile <= 256 for its int16 sums.
 * AVX2's default block, 48 rows x 2 tokens (12 accumulators, one weight vector,
 * two broadcasts, one product: 16 ymm), measured on the AMD EPYC AVX2-only VM
 * (family 25), 2B-4T shapes, N = 128, 1 thread, gated: 240-254 GOPS against
 * 227-247 for 32 x 2, 202-222 for 48-64 x 1, 159-163 for 16 x 5 and 148-160 for
 * the old 16 x 6 (whose 12 accumulators beside six broadcasts spilled).
 * The GEMV's far prefetch (catalog.h): 8 KB into L2 (T1) as the kernels had it
 * (kernels/common/mp_x86.h), last in each list so a stored row keeps its key. */
#define VNNI_PF MP_PF_PARAM(8192, true), MP_PFH_PARAM(MP_PFH_T1)
#define ZMM_PARAMS VNNI_MTILE(64), VNNI_NTILE(6), VNNI_KTILE(256, 4, 64, 128, 256, 512), VNNI_GEMV(4)
#define YMM_PARAMS VNNI_MTILE(16), VNNI_NTILE(6), VNNI_KTILE(256, 4, 64, 128, 256, 512), VNNI_GEMV(4)
#define AVX2_PARAMS VNNI_MTILE(48), VNNI_NTILE(2), VNNI_KTILE(256, 3, 64, 128, 256), VNNI_GEMV(4)

/* PREP: a prepare and its file (PREP_SCALAR, PREP_AVX2, PREP_AVX512 below) */
#define VNNI_FIRST_(a, b) a
#define VNNI_FIRST(...) VNNI_FIRST_(__VA_ARGS__)
#define VNNI_SECOND_(a, b) b
#define VNNI_SECOND(...) VNNI_SECOND_(__VA_ARGS__)
#define VNNI_ROW(NAME, fmt, FMT, isa_tok, isa_bits, PREP, chk, np, ...)                     \
    {MP_SOURCES("kernels/vnni/vnni-scalar.c", mp_vnni_##fmt##_pack, VNNI_SECOND(PREP),       \
                VNNI_FIRST(PREP),                                                          \
                "kernels/vnni/vnni-" #isa_tok ".c", mp_vnni_##fmt##_gemm__##isa_tok),       \
     .name = NAME, MP_TRAITS_K(FMT), .isa = isa_bits,                  \
     .m_align = 16, .check = chk, .n_params = np,                                           \
     .params = {__VA_ARGS__}, .packed_size = mp_vnni_##fmt##_packed_size,                  \
     .pack = mp_vnni_##fmt##_pack, .unpack = mp_vnni_##fmt##_unpack,                        \
     .act_size = mp_vnni_act_size, .prepare = VNNI_FIRST(PREP),                                         \
     .scratch_size = mp_vnni_scratch_size, .compute = mp_vnni_##fmt##_gemm__##isa_tok}

#define PREP_AVX2 mp_vnni_prepare__avx2, "kernels/vnni/vnni-avx2.c"
#define PREP_AVX512 mp_vnni_prepare__avx512vnni, "kernels/vnni/vnni-avx512vnni.c"
#define PREP_SCALAR mp_vnni_prepare, "kernels/vnni/vnni-scalar.c"
#define AVX512VNNI_BITS (MP_ISA_AVX2 | MP_ISA_AVX512 | MP_ISA_AVX512VNNI)
#define AVXVNNI_BITS (MP_ISA_AVX2 | MP_ISA_AVXVNNI)
#define DOTPROD_BITS (MP_ISA_NEON | MP_ISA_DOTPROD)
#define I8MM_BITS (MP_ISA_NEON | MP_ISA_DOTPROD | MP_ISA_I8MM)

const mp_variant mp_catalog_vnni[] = {
    VNNI_ROW("vnni_int2.scalar", int2, VNNI_INT2, scalar, MP_ISA_SCALAR, PREP_SCALAR, NULL, 0, {0}),
#if MP_CATALOG_X86
    VNNI_ROW("vnni_int2.avx2", int2, VNNI_INT2, avx2, MP_ISA_AVX2, PREP_AVX2, mp_vnni_check_ymm, 6, AVX2_PARAMS, VNNI_PF),
    VNNI_ROW("vnni_int2.avxvnni", int2, VNNI_INT2, avxvnni, AVXVNNI_BITS, PREP_AVX2, mp_vnni_check_ymm, 6, YMM_PARAMS, VNNI_PF),
    VNNI_ROW("vnni_int2.avx512vnni", int2, VNNI_INT2, avx512vnni, AVX512VNNI_BITS, PREP_AVX512, mp_vnni_check_zmm, 6,
             ZMM_PARAMS, VNNI_PF),
#endif
#if MP_CATALOG_ARM /* sdot / smmla (vnni-arm.h); no tunables yet, scalar prepare */
    VNNI_ROW("vnni_int2.dotprod", int2, VNNI_INT2, dotprod, DOTPROD_BITS, PREP_SCALAR, NULL, 0, {0}),
    VNNI_ROW("vnni_int2.i8mm", int2, VNNI_INT2, i8mm, I8MM_BITS, PREP_SCALAR, NULL, 0, {0}),
#endif
    VNNI_ROW("vnni_int1.scalar", int1, VNNI_INT1, scalar, MP_ISA_SCALAR, PREP_SCALAR, NULL, 0, {0}),
#if MP_CATALOG_X86
    VNNI_ROW("vnni_int1.avx2", int1, VNNI_INT1, avx2, MP_ISA_AVX2, PREP_AVX2, mp_vnni_check_ymm, 6, AVX2_PARAMS, VNNI_PF),
    VNNI_ROW("vnni_int1.avxvnni", int1, VNNI_INT1, avxvnni, AVXVNNI_BITS, PREP_AVX2, mp_vnni_check_ymm, 6, YMM_PARAMS, VNNI_PF),
    VNNI_ROW("vnni_int1.avx512vnni", int1, VNNI_INT1, avx512vnni, AVX512VNNI_BITS, PREP_AVX512, mp_vnni_check_zmm, 7,
             ZMM_PARAMS, VNNI_SEQ(1), VNNI_PF),
#endif
#if MP_CATALOG_ARM
    VNNI_ROW("vnni_int1.dotprod", int1, VNNI_INT1, dotprod, DOTPROD_BITS, PREP_SCALAR, NULL, 0, {0}),
    VNNI_ROW("vnni_int1.i8mm", int1, VNNI_INT1, i8mm, I8MM_BITS, PREP_SCALAR, NULL, 0, {0}),
#endif
    {0},
};
