/* mad.c - catalog rows of the multiply-add family: I2_S (seed 004 §2) and
 * llama.cpp's baselines F16, Q8_0, Q4_0, TQ1_0, TQ2_0 (seed 000 Table 7, seed
 * 001 §5, seed 004 Tables 4-5) with ggml's block layouts byte for byte. */
#include "catalog.h"
#include "../kernels/i2_s/i2s.h"
#include "../kernels/f16/f16.h"
#include "../kernels/q8_0/q8_0.h"
#include "../kernels/q4_0/q4_0.h"
#include "../kernels/tq/tq.h"

/* software prefetch distance in bytes along the packed rows (0 = hardware only);
 * the scalar and Arm paths take it (they always had it) and ignore it */
#define I2S_PF {"pf", 8192, 5, {0, 2048, 4096, 8192, 16384}, "prefetch distance, bytes"}

/* The prefetch of the x86 rows (catalog.h): distance and hint as the kernels
 * had them, 8 KB into L2 (T1, kernels/common/mp_x86.h says why), and no new
 * key for a stored row at the defaults.  I2_S's pf was always in its key. */
#define I2S_X86_PF .n_params = 2, .params = {MP_PF_PARAM(8192, false), MP_PFH_PARAM(MP_PFH_T1)}
#define X86_PF .n_params = 2, .params = {MP_PF_PARAM(8192, true), MP_PFH_PARAM(MP_PFH_T1)}
/* TQ2_0 prefetches its row groups into L1, not L2 as the other x86 kernels do:
 * T1 ran it 3% slower (2026-11-27, Xeon VM, 6 order-swapped alternations,
 * clock-gated, N = 1, 6912x2560 and 2560x6912: T1/T0 1.030-1.034 on AVX2,
 * 1.013-1.030 on AVX-512), where it ran vnni_int2 5-8% faster. */
#define TQ2_X86_PF .n_params = 2, .params = {MP_PF_PARAM(8192, true), MP_PFH_PARAM(MP_PFH_T0)}
#define NO_PF .n_params = 0
#define I2S_PF_ONLY .n_params = 1, .params = {I2S_PF}

#define I2S_ROW(NAME, ISA, isa_bits, ...)                                           \
    {.name = NAME, MP_TRAITS_K(I2_S), .isa = isa_bits, .m_align = 4,                \
     __VA_ARGS__,                                                                   \
     .packed_size = mp_i2s_packed_size, .pack = mp_i2s_pack,                        \
     .unpack = mp_i2s_unpack, .act_size = mp_i2s_act_size,                          \
     .prepare = mp_i2s_prepare, .compute = mp_i2s_gemm__##ISA,                      \
     MP_SOURCES("kernels/i2_s/i2s-scalar.c", mp_i2s_pack, "kernels/i2_s/i2s-scalar.c", \
                mp_i2s_prepare, "kernels/i2_s/i2s-" #ISA ".c", mp_i2s_gemm__##ISA)}

/* Every path of these formats sums in the fixed order documented in its header,
 * so SIMD equals scalar bit for bit: sibling_tol stays 0 for all of them.
 * Where AVX-512 pays (measured here, 1 thread, cold weights, ratios within one
 * run): TQ1_0 (~1.4x over AVX2), Q4_0 (~1.2x), TQ2_0 (~1.1x at N = 1), and
 * Q8_0/F16 at N = 32 (1.25x / 1.5x).  It does not pay for F16 at N = 1 (0.7x
 * of AVX2: one vcvtph2ps zmm per 16 weights per row against two ymm) nor for
 * Q8_0 at N = 1 (1.0x: memory-bound, no vpsignb in AVX-512). */
#define F16_ROW(NAME, ISA, isa_bits, ...)                                           \
    {.name = NAME, MP_TRAITS_K(F16), .isa = isa_bits, .m_align = 4, __VA_ARGS__,    \
     .packed_size = mp_f16_packed_size, .pack = mp_f16_pack,                        \
     .unpack = mp_f16_unpack, .act_size = mp_f16_act_size,                          \
     .prepare = mp_f16_prepare, .compute = mp_f16_gemm__##ISA,                      \
     MP_SOURCES("kernels/f16/f16-scalar.c", mp_f16_pack, "kernels/f16/f16-scalar.c", \
                mp_f16_prepare, "kernels/f16/f16-" #ISA ".c", mp_f16_gemm__##ISA)}

#define Q8_0_ROW(NAME, ISA, isa_bits, ...)                                          \
    {.name = NAME, MP_TRAITS_K(Q8_0), .isa = isa_bits, .m_align = 4, __VA_ARGS__,   \
     .packed_size = mp_q8_0_packed_size, .pack = mp_q8_0_pack,                      \
     .unpack = mp_q8_0_unpack, .act_size = mp_q80act_size,                          \
     .prepare = mp_q80act_prepare, .compute = mp_q8_0_gemm__##ISA,                  \
     MP_SOURCES("kernels/q8_0/q8_0-scalar.c", mp_q8_0_pack, "kernels/q8_0/q8_0-scalar.c", \
                mp_q80act_prepare, "kernels/q8_0/q8_0-" #ISA ".c", mp_q8_0_gemm__##ISA)}

#define Q4_0_ROW(NAME, ISA, isa_bits, ...)                                          \
    {.name = NAME, MP_TRAITS_K(Q4_0), .isa = isa_bits, .m_align = 4, __VA_ARGS__,   \
     .packed_size = mp_q4_0_packed_size, .pack = mp_q4_0_pack,                      \
     .unpack = mp_q4_0_unpack, .act_size = mp_q80act_size,                          \
     .prepare = mp_q80act_prepare, .compute = mp_q4_0_gemm__##ISA,                  \
     MP_SOURCES("kernels/q4_0/q4_0-scalar.c", mp_q4_0_pack, "kernels/q8_0/q8_0-scalar.c", \
                mp_q80act_prepare, "kernels/q4_0/q4_0-" #ISA ".c", mp_q4_0_gemm__##ISA)}

/* TQ1_0 and TQ2_0 share the Q8_K activations and the scalar file; the SIMD
 * files are per format (tq1_0-ISA.c, tq2_0-ISA.c) */
#define TQ_ROW(NAME, fmt, FMT, ISA, isa_bits, cfile, ...)                           \
    {.name = NAME, MP_TRAITS_K(FMT), .isa = isa_bits, .m_align = 4, __VA_ARGS__,    \
     .act_size = mp_q8k_act_size, .prepare = mp_q8k_prepare,                        \
     .compute = mp_##fmt##_gemm__##ISA, .packed_size = mp_##fmt##_packed_size,      \
     .pack = mp_##fmt##_pack, .unpack = mp_##fmt##_unpack,                          \
     MP_SOURCES("kernels/tq/tq-scalar.c", mp_##fmt##_pack, "kernels/tq/tq-scalar.c", \
                mp_q8k_prepare, cfile, mp_##fmt##_gemm__##ISA)}
#define TQ1_ROW(NAME, ISA, isa_bits, ...)                                           \
    TQ_ROW(NAME, tq1_0, TQ1_0, ISA, isa_bits, "kernels/tq/tq1_0-" #ISA ".c", __VA_ARGS__)
#define TQ2_ROW(NAME, ISA, isa_bits, ...)                                           \
    TQ_ROW(NAME, tq2_0, TQ2_0, ISA, isa_bits, "kernels/tq/tq2_0-" #ISA ".c", __VA_ARGS__)

const mp_variant mp_catalog_mad[] = {
    I2S_ROW("i2_s.scalar", scalar, MP_ISA_SCALAR, I2S_PF_ONLY),
#if MP_CATALOG_X86
    I2S_ROW("i2_s.avx2", avx2, MP_ISA_AVX2, I2S_X86_PF),
    I2S_ROW("i2_s.avx512", avx512, MP_ISA_AVX512, I2S_X86_PF),
#endif
#if MP_CATALOG_ARM
    I2S_ROW("i2_s.neon", neon, MP_ISA_NEON, I2S_PF_ONLY),
    I2S_ROW("i2_s.dotprod", dotprod, MP_ISA_NEON | MP_ISA_DOTPROD, I2S_PF_ONLY),
#endif
    F16_ROW("f16.scalar", scalar, MP_ISA_SCALAR, NO_PF),
#if MP_CATALOG_X86
    F16_ROW("f16.avx2", avx2, MP_ISA_AVX2, X86_PF),
    F16_ROW("f16.avx512", avx512, MP_ISA_AVX512, X86_PF),
#endif
    Q8_0_ROW("q8_0.scalar", scalar, MP_ISA_SCALAR, NO_PF),
#if MP_CATALOG_X86
    Q8_0_ROW("q8_0.avx2", avx2, MP_ISA_AVX2, X86_PF),
    Q8_0_ROW("q8_0.avx512", avx512, MP_ISA_AVX512, X86_PF),
#endif
#if MP_CATALOG_ARM
    Q8_0_ROW("q8_0.neon", neon, MP_ISA_NEON, NO_PF),
    Q8_0_ROW("q8_0.dotprod", dotprod, MP_ISA_NEON | MP_ISA_DOTPROD, NO_PF),
#endif
    Q4_0_ROW("q4_0.scalar", scalar, MP_ISA_SCALAR, NO_PF),
#if MP_CATALOG_X86
    Q4_0_ROW("q4_0.avx2", avx2, MP_ISA_AVX2, X86_PF),
    Q4_0_ROW("q4_0.avx512", avx512, MP_ISA_AVX512, X86_PF),
#endif
    TQ_ROW("tq1_0.scalar", tq1_0, TQ1_0, scalar, MP_ISA_SCALAR, "kernels/tq/tq-scalar.c", NO_PF),
#if MP_CATALOG_X86
    TQ1_ROW("tq1_0.avx2", avx2, MP_ISA_AVX2, X86_PF),
    TQ1_ROW("tq1_0.avx512", avx512, MP_ISA_AVX512, X86_PF),
#endif
#if MP_CATALOG_ARM
    TQ1_ROW("tq1_0.neon", neon, MP_ISA_NEON, NO_PF),
    TQ1_ROW("tq1_0.dotprod", dotprod, MP_ISA_NEON | MP_ISA_DOTPROD, NO_PF),
#endif
    TQ_ROW("tq2_0.scalar", tq2_0, TQ2_0, scalar, MP_ISA_SCALAR, "kernels/tq/tq-scalar.c", NO_PF),
#if MP_CATALOG_X86
    TQ2_ROW("tq2_0.avx2", avx2, MP_ISA_AVX2, TQ2_X86_PF),
    TQ2_ROW("tq2_0.avx512", avx512, MP_ISA_AVX512, TQ2_X86_PF),
#endif
#if MP_CATALOG_ARM
    TQ2_ROW("tq2_0.neon", neon, MP_ISA_NEON, NO_PF),
    TQ2_ROW("tq2_0.dotprod", dotprod, MP_ISA_NEON | MP_ISA_DOTPROD, NO_PF),
#endif
    {0},
};
