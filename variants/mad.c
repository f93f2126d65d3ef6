/* mad.c - catalog rows of the multiply-add family: I2_S (seed 004 §2). */
#include "catalog.h"
#include "../kernels/i2s/i2s.h"

/* software prefetch distance in bytes along the packed rows (0 = hardware only);
 * the scalar path ignores it */
#define I2S_PF {"pf", 8192, 5, {0, 2048, 4096, 8192, 16384}, "prefetch distance, bytes"}

#define I2S_ROW(isa_tok, isa_bits, fn)                                              \
    {.name = "i2_s." isa_tok, .method = "I2_S", .family = MP_FAMILY_MAD,            \
     .isa = isa_bits, .exactness = MP_LOSSLESS, .domain = MP_DOMAIN_TERNARY,        \
     .k_multiple = 128, .m_align = 4, .source = "seed 004 §2, seed 000 §2.3",       \
     .n_params = 1, .params = {I2S_PF},                                             \
     .packed_size = mp_i2s_packed_size, .pack = mp_i2s_pack,                        \
     .unpack = mp_i2s_unpack, .act_size = mp_i2s_act_size,                          \
     .prepare = mp_i2s_prepare, .compute = fn}

const mp_variant mp_catalog_mad[] = {
    I2S_ROW("scalar", MP_ISA_SCALAR, mp_i2s_gemm__scalar),
    I2S_ROW("avx2", MP_ISA_AVX2, mp_i2s_gemm__avx2),
    I2S_ROW("avx512", MP_ISA_AVX512, mp_i2s_gemm__avx512),
    {0},
};
