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
 * the scalar path ignores it */
#define I2S_PF {"pf", 8192, 5, {0, 2048, 4096, 8192, 16384}, "prefetch distance, bytes"}

#define I2S_ROW(isa_tok, isa_bits, fn)                                              \
    {.name = "i2_s." isa_tok, MP_TRAITS_K(I2_S), .isa = isa_bits, .m_align = 4,     \
     .n_params = 1, .params = {I2S_PF},                                             \
     .packed_size = mp_i2s_packed_size, .pack = mp_i2s_pack,                        \
     .unpack = mp_i2s_unpack, .act_size = mp_i2s_act_size,                          \
     .prepare = mp_i2s_prepare, .compute = fn}

/* Every path of these formats sums in the fixed order documented in its header,
 * so SIMD equals scalar bit for bit: sibling_tol stays 0 for all of them.
 * Where AVX-512 pays (measured here, 1 thread, cold weights, ratios within one
 * run): TQ1_0 (~1.4x over AVX2), Q4_0 (~1.2x), TQ2_0 (~1.1x at N = 1), and
 * Q8_0/F16 at N = 32 (1.25x / 1.5x).  It does not pay for F16 at N = 1 (0.7x
 * of AVX2: one vcvtph2ps zmm per 16 weights per row against two ymm) nor for
 * Q8_0 at N = 1 (1.0x: memory-bound, no vpsignb in AVX-512). */
#define F16_ROW(isa_tok, isa_bits, fn)                                              \
    {.name = "f16." isa_tok, MP_TRAITS_K(F16), .isa = isa_bits, .m_align = 4,       \
     .packed_size = mp_f16_packed_size, .pack = mp_f16_pack,                        \
     .unpack = mp_f16_unpack, .act_size = mp_f16_act_size,                          \
     .prepare = mp_f16_prepare, .compute = fn}

#define Q8_0_ROW(isa_tok, isa_bits, fn)                                             \
    {.name = "q8_0." isa_tok, MP_TRAITS_K(Q8_0), .isa = isa_bits, .m_align = 4,     \
     .packed_size = mp_q8_0_packed_size, .pack = mp_q8_0_pack,                      \
     .unpack = mp_q8_0_unpack, .act_size = mp_q80act_size,                          \
     .prepare = mp_q80act_prepare, .compute = fn}

#define Q4_0_ROW(isa_tok, isa_bits, fn)                                             \
    {.name = "q4_0." isa_tok, MP_TRAITS_K(Q4_0), .isa = isa_bits, .m_align = 4,     \
     .packed_size = mp_q4_0_packed_size, .pack = mp_q4_0_pack,                      \
     .unpack = mp_q4_0_unpack, .act_size = mp_q80act_size,                          \
     .prepare = mp_q80act_prepare, .compute = fn}

#define TQ_ROW(fmt, FMT, isa_tok, isa_bits, fn)                                     \
    {.name = fmt "." isa_tok, MP_TRAITS_K(FMT), .isa = isa_bits, .m_align = 4,      \
     .act_size = mp_q8k_act_size, .prepare = mp_q8k_prepare, .compute = fn
#define TQ1_ROW(isa_tok, isa_bits, fn)                                              \
    TQ_ROW("tq1_0", TQ1_0, isa_tok, isa_bits, fn),                                \
        .packed_size = mp_tq1_0_packed_size, .pack = mp_tq1_0_pack,                 \
        .unpack = mp_tq1_0_unpack}
#define TQ2_ROW(isa_tok, isa_bits, fn)                                              \
    TQ_ROW("tq2_0", TQ2_0, isa_tok, isa_bits, fn),                                \
        .packed_size = mp_tq2_0_packed_size, .pack = mp_tq2_0_pack,                 \
        .unpack = mp_tq2_0_unpack}

const mp_variant mp_catalog_mad[] = {
    I2S_ROW("scalar", MP_ISA_SCALAR, mp_i2s_gemm__scalar),
#if MP_CATALOG_X86
    I2S_ROW("avx2", MP_ISA_AVX2, mp_i2s_gemm__avx2),
    I2S_ROW("avx512", MP_ISA_AVX512, mp_i2s_gemm__avx512),
#endif
#if MP_CATALOG_ARM
    I2S_ROW("neon", MP_ISA_NEON, mp_i2s_gemm__neon),
    I2S_ROW("dotprod", MP_ISA_NEON | MP_ISA_DOTPROD, mp_i2s_gemm__dotprod),
#endif
    F16_ROW("scalar", MP_ISA_SCALAR, mp_f16_gemm__scalar),
#if MP_CATALOG_X86
    F16_ROW("avx2", MP_ISA_AVX2, mp_f16_gemm__avx2),
    F16_ROW("avx512", MP_ISA_AVX512, mp_f16_gemm__avx512),
#endif
    Q8_0_ROW("scalar", MP_ISA_SCALAR, mp_q8_0_gemm__scalar),
#if MP_CATALOG_X86
    Q8_0_ROW("avx2", MP_ISA_AVX2, mp_q8_0_gemm__avx2),
    Q8_0_ROW("avx512", MP_ISA_AVX512, mp_q8_0_gemm__avx512),
#endif
#if MP_CATALOG_ARM
    Q8_0_ROW("neon", MP_ISA_NEON, mp_q8_0_gemm__neon),
    Q8_0_ROW("dotprod", MP_ISA_NEON | MP_ISA_DOTPROD, mp_q8_0_gemm__dotprod),
#endif
    Q4_0_ROW("scalar", MP_ISA_SCALAR, mp_q4_0_gemm__scalar),
#if MP_CATALOG_X86
    Q4_0_ROW("avx2", MP_ISA_AVX2, mp_q4_0_gemm__avx2),
    Q4_0_ROW("avx512", MP_ISA_AVX512, mp_q4_0_gemm__avx512),
#endif
    TQ1_ROW("scalar", MP_ISA_SCALAR, mp_tq1_0_gemm__scalar),
#if MP_CATALOG_X86
    TQ1_ROW("avx2", MP_ISA_AVX2, mp_tq1_0_gemm__avx2),
    TQ1_ROW("avx512", MP_ISA_AVX512, mp_tq1_0_gemm__avx512),
#endif
#if MP_CATALOG_ARM
    TQ1_ROW("neon", MP_ISA_NEON, mp_tq1_0_gemm__neon),
    TQ1_ROW("dotprod", MP_ISA_NEON | MP_ISA_DOTPROD, mp_tq1_0_gemm__dotprod),
#endif
    TQ2_ROW("scalar", MP_ISA_SCALAR, mp_tq2_0_gemm__scalar),
#if MP_CATALOG_X86
    TQ2_ROW("avx2", MP_ISA_AVX2, mp_tq2_0_gemm__avx2),
    TQ2_ROW("avx512", MP_ISA_AVX512, mp_tq2_0_gemm__avx512),
#endif
#if MP_CATALOG_ARM
    TQ2_ROW("neon", MP_ISA_NEON, mp_tq2_0_gemm__neon),
    TQ2_ROW("dotprod", MP_ISA_NEON | MP_ISA_DOTPROD, mp_tq2_0_gemm__dotprod),
#endif
    {0},
};
