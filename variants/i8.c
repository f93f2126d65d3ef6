/* i8.c - catalog rows of the I8 variants: int8 weights times int8 activations
 * with the dot-product instructions seed 003 §III feeds from its up-converted
 * int2/int1 weights, measured directly (§IV-B's int8 roofline comparison,
 * issue 16).  Lossless: the reference's int32 sums exactly (kernels/i8/i8.h).
 * Family vnni: the same instructions as VNNI_INT2/INT1, without the up-convert. */
#include "catalog.h"
#include "../kernels/i8/i8.h"

/* The x86 rows' software prefetch (catalog.h): none by default, as before it
 * was a parameter (pf = 0; kernels/i8/i8-simd.h), T1 when asked for. */
#define I8_X86_PF .n_params = 2, .params = {MP_PF_PARAM(0, true), MP_PFH_PARAM(MP_PFH_T1)}

#define I8_ROW(NAME, isa_tok, isa_bits, ...)                                          \
    {.name = NAME, MP_TRAITS_K(I8), .isa = isa_bits, .m_align = 1, __VA_ARGS__,        \
     .packed_size = mp_i8_packed_size, .pack = mp_i8_pack, .unpack = mp_i8_unpack,      \
     .act_size = mp_i8_act_size, .prepare = mp_i8_prepare,                              \
     .compute = mp_i8_gemm__##isa_tok,                                                 \
     MP_SOURCES("kernels/i8/i8-scalar.c", mp_i8_pack, "kernels/i8/i8-scalar.c",         \
                mp_i8_prepare, "kernels/i8/i8-" #isa_tok ".c", mp_i8_gemm__##isa_tok)}

const mp_variant mp_catalog_i8[] = {
    I8_ROW("i8.scalar", scalar, MP_ISA_SCALAR, .n_params = 0),
#if MP_CATALOG_X86
    I8_ROW("i8.avx2", avx2, MP_ISA_AVX2, I8_X86_PF),
    I8_ROW("i8.avxvnni", avxvnni, MP_ISA_AVX2 | MP_ISA_AVXVNNI, I8_X86_PF),
    I8_ROW("i8.avx512vnni", avx512vnni, MP_ISA_AVX2 | MP_ISA_AVX512 | MP_ISA_AVX512VNNI, I8_X86_PF),
#endif
    {0},
};
