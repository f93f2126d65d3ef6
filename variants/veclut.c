/* veclut.c - catalog rows of the vector-LUT family: Vec-LUT's VLUT_I2 (g = 4,
 * 2.0 bpw) and VLUT_I1 (g = 5 with the mixed 4/5 packing, 1.6 bpw), seed 001 §3-4.
 * Every technique of the paper is a runtime switch so Fig. 11's ablation is one
 * command line (see kernels/vlut/vlut.h for what each parameter does). */
#include "catalog.h"
#include "../kernels/vlut/vlut.h"

/* Defaults: N_tile = 32 (§4: a multiple of the int16 SIMD width, the paper's
 * best); K_tile = mp_vlut_rule_ktile(g, 32, 48 KiB) = 36 (g = 4), 15 (g = 5);
 * gemv = the break-even N measured on this machine at 6912x2560 (CPU time, warm
 * cache), GEMV path against the table path with its 16-token tile: AVX-512 GEMV
 * wins below N = 4 (I2) and N = 6 (I1), AVX2 GEMV below N = 3.  The scalar rows
 * copy the AVX-512 values (they are oracles, not measured for speed). */
#define VLUT_COMMON_PARAMS(gv_def, kt_def, kt_n, ...)                                        \
    .n_params = MP_VLUT_NPARAMS,                                                    \
    .params = {                                                                     \
        {"ktile", kt_def, kt_n, {__VA_ARGS__}, "K_tile in weights (multiple of g)"}, \
        {"ntile", 32, 4, {16, 32, 64, 128}, "N_tile in tokens"},                    \
        {"stream", 1, 2, {0, 1}, "streamed precompute-lookup per K tile (0: whole table first)"}, \
        {"topo", 1, 2, {0, 1}, "topological precompute (0: each entry from its trits)"}, \
        {"hier", 1, 2, {0, 1}, "int16 intra-block / int32 inter-block accumulation (0: int32 per lookup)"}, \
        {"tcl", 1, 2, {0, 1}, "token-contiguous tables, 1->N lookup (0: per-token tables)"}, \
        {"gemv", gv_def, 9, {0, 1, 2, 3, 4, 5, 6, 8, 16}, "N below which the GEMV path runs (0: never)"}, \
    }

/* The tuner's analytic start (seed 001 §4) for this machine's L1d: N_tile 32,
 * or 16 when N is that small; K_tile the paper's rule, rounded down to a value in
 * the space (params 0 = ktile, 1 = ntile). */
static void suggest(int g, long l1d, int n, int *param)
{
    int nt = n <= 16 ? 16 : 32;
    int kt = mp_vlut_rule_ktile(g, nt, l1d);
    kt -= kt % g;
    if (kt < g)
        kt = g;
    int kmax = g == 4 ? 64 : 60; /* the largest ktile of the space */
    if (kt > kmax)
        kt = kmax;
    param[0] = kt;
    param[1] = nt;
}

static void suggest_i2(int m, int k, int n, long l1d, long l2, int *param)
{
    (void)m, (void)k, (void)l2;
    suggest(4, l1d, n, param);
}

static void suggest_i1(int m, int k, int n, long l1d, long l2, int *param)
{
    (void)m, (void)k, (void)l2;
    suggest(5, l1d, n, param);
}

#define I2_ROW(NAME, ISA, isa_bits, prep, prep_file, gv_def)                                     \
    {MP_SOURCES("kernels/vlut/vlut-scalar.c", mp_vlut_i2_pack, prep_file, prep,                   \
                "kernels/vlut/vlut-" #ISA ".c", mp_vlut_gemm__##ISA),                               \
     .name = NAME, MP_TRAITS_K(VLUT_I2), .isa = isa_bits, .m_align = 1, \
     .check = mp_vlut_i2_check, .packed_size = mp_vlut_i2_packed_size,              \
     .pack = mp_vlut_i2_pack, .unpack = mp_vlut_i2_unpack,                          \
     .act_size = mp_vlut_act_size, .prepare = prep,                      \
     .scratch_size = mp_vlut_i2_scratch_size, .compute = mp_vlut_gemm__##ISA, .suggest = suggest_i2, \
     VLUT_COMMON_PARAMS(gv_def, 36, 16, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60, 64)}

#define I1_ROW(NAME, ISA, isa_bits, prep, prep_file, gv_def)                                     \
    {MP_SOURCES("kernels/vlut/vlut-scalar.c", mp_vlut_i1_pack, prep_file, prep,                   \
                "kernels/vlut/vlut-" #ISA ".c", mp_vlut_gemm__##ISA),                               \
     .name = NAME, MP_TRAITS_K(VLUT_I1), .isa = isa_bits, .m_align = 1, \
     .check = mp_vlut_i1_check, .packed_size = mp_vlut_i1_packed_size,              \
     .pack = mp_vlut_i1_pack, .unpack = mp_vlut_i1_unpack,                          \
     .act_size = mp_vlut_act_size, .prepare = prep,                      \
     .scratch_size = mp_vlut_i1_scratch_size, .compute = mp_vlut_gemm__##ISA, .suggest = suggest_i1, \
     VLUT_COMMON_PARAMS(gv_def, 15, 12, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60)}

const mp_variant mp_catalog_veclut[] = {
    I2_ROW("vlut_i2.scalar", scalar, MP_ISA_SCALAR, mp_vlut_prepare, "kernels/vlut/vlut-scalar.c", 4),
#if MP_CATALOG_X86
    I2_ROW("vlut_i2.avx2", avx2, MP_ISA_AVX2, mp_vlut_prepare__avx2, "kernels/vlut/vlut-avx2.c", 3),
    I2_ROW("vlut_i2.avx512", avx512, MP_ISA_AVX512, mp_vlut_prepare__avx512, "kernels/vlut/vlut-avx512.c", 4),
#endif
#if MP_CATALOG_ARM /* the table path at every N by default (no NEON GEMV path yet) */
    I2_ROW("vlut_i2.neon", neon, MP_ISA_NEON, mp_vlut_prepare, "kernels/vlut/vlut-scalar.c", 0),
#endif
    I1_ROW("vlut_i1.scalar", scalar, MP_ISA_SCALAR, mp_vlut_prepare, "kernels/vlut/vlut-scalar.c", 6),
#if MP_CATALOG_X86
    I1_ROW("vlut_i1.avx2", avx2, MP_ISA_AVX2, mp_vlut_prepare__avx2, "kernels/vlut/vlut-avx2.c", 3),
    I1_ROW("vlut_i1.avx512", avx512, MP_ISA_AVX512, mp_vlut_prepare__avx512, "kernels/vlut/vlut-avx512.c", 6),
#endif
#if MP_CATALOG_ARM
    I1_ROW("vlut_i1.neon", neon, MP_ISA_NEON, mp_vlut_prepare, "kernels/vlut/vlut-scalar.c", 0),
#endif
    {0},
};
