/* testing.c - the catalog table of test-only variants, registered by a
 * constructor when a test build links this file (build/mptest, and
 * build/mpbench-test, the binary `make regress` and the CLI tests run). */
#include "../../kernels/i2_s/i2s.h"
#include "../../variants/mp_registry.h"
#include "mp_test_variants.h"

static const mp_variant testing[] = {
    /* I2_S AVX2 doing $MPBENCH_TEST_SLOWDOWN % extra work (regression gate) */
    {.name = "regress_i2s.avx2", .method = "REGRESS_I2S", .family = MP_FAMILY_BASELINE,
     .isa = MP_ISA_AVX2, .exactness = MP_LOSSLESS, .domain = MP_DOMAIN_TERNARY,
     .k_multiple = 128, .m_align = 4, .source = "test-only canary of make regress",
     .n_params = 1, .params = {{"pf", 8192, 1, {8192}, "prefetch distance, bytes"}},
     .packed_size = mp_i2s_packed_size, .pack = mp_i2s_pack, .unpack = mp_i2s_unpack,
     .act_size = mp_i2s_act_size, .prepare = mp_i2s_prepare, .compute = mp_regress_gemm__avx2},
    /* I2_S scalar with a wrong last row: the engine must report it failed */
    {.name = "wrong_on_purpose.scalar", .method = "WRONG_ON_PURPOSE",
     .family = MP_FAMILY_BASELINE, .isa = MP_ISA_SCALAR, .exactness = MP_LOSSLESS,
     .domain = MP_DOMAIN_TERNARY, .k_multiple = 128, .m_align = 1,
     .source = "test-only: fails on purpose",
     .packed_size = mp_i2s_packed_size, .pack = mp_i2s_pack, .unpack = mp_i2s_unpack,
     .act_size = mp_i2s_act_size, .prepare = mp_i2s_prepare, .compute = mp_wrong_gemm__scalar},
    {0},
};

__attribute__((constructor)) static void register_testing(void)
{
    mp_registry_add_testing(testing);
}
