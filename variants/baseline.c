/* baseline.c - catalog rows of the baselines: F32 (float weights x float
 * activations, DESIGN.md "Numerics") and NAIVE2, seed 002's scalar 2-bit kernel. */
#include "catalog.h"
#include "../kernels/f32/f32.h"
#include "../kernels/naive2/naive2.h"
#include "../kernels/i2_s/i2s.h"
#include "../kernels/common/mp_numerics.h"

#define F32_ROW(NAME, ISA, isa_bits)                                                \
    {.name = NAME, MP_TRAITS_K(F32), .isa = isa_bits, .m_align = 4,                 \
     .sibling_tol = 1e-5, /* float sums in another order: K*eps*sum|wx| worst case, observed < 1e-6 */ \
     .packed_size = mp_f32_packed_size, .pack = mp_f32_pack,                        \
     .act_size = mp_f32_act_size, .prepare = mp_f32_prepare, .compute = mp_f32_gemm__##ISA, \
     MP_SOURCES("kernels/f32/f32-scalar.c", mp_f32_pack, "kernels/f32/f32-scalar.c",    \
                mp_f32_prepare, "kernels/f32/f32-" #ISA ".c", mp_f32_gemm__##ISA)}

static size_t q8_act_size(int n, int k, const int *param)
{
    (void)param;
    return mp_q8act_size(n, k);
}

static void q8_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1)
{
    (void)n;
    mp_q8act_fill(x, op->k, act, t0, t1);
}

const mp_variant mp_catalog_baseline[] = {
    F32_ROW("f32.scalar", scalar, MP_ISA_SCALAR),
#if MP_CATALOG_X86
    F32_ROW("f32.avx2", avx2, MP_ISA_AVX2),
    F32_ROW("f32.avx512", avx512, MP_ISA_AVX512),
#endif
#if MP_CATALOG_ARM
    F32_ROW("f32.neon", neon, MP_ISA_NEON),
#endif
    {.name = "naive2.scalar", MP_TRAITS_K(NAIVE2), .isa = MP_ISA_SCALAR, .m_align = 1,
     .packed_size = mp_naive2_packed_size, .pack = mp_naive2_pack,
     .unpack = mp_naive2_unpack, .act_size = q8_act_size, .prepare = q8_prepare,
     .compute = mp_naive2_gemm__scalar,
     MP_SOURCES("kernels/naive2/naive2-scalar.c", mp_naive2_pack, "variants/baseline.c",
                q8_prepare, "kernels/naive2/naive2-scalar.c", mp_naive2_gemm__scalar)},
    {0},
};
