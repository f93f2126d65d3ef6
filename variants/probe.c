/* probe.c - which of the machine probe's loop tables (kernels/probe/) the
 * engine's probe uses: the widest this CPU runs (after MPBENCH_MAX_ISA), so that
 * harness/ reaches kernel code only through the registry. */
#include "mp_registry.h"
#include "../kernels/common/mp_isa.h"
#include "../kernels/probe/probe.h"

const mp_probe_ops *mp_registry_probe_ops(void)
{
    unsigned isa = mp_isa_detect();
#if defined(__x86_64__) /* no x86 probe loops in an AArch64 build (no NEON ones yet) */
    if (isa & MP_ISA_AVX512VNNI)
        return &mp_probe_avx512vnni;
    if (isa & MP_ISA_AVX2)
        return &mp_probe_avx2;
#else
    (void)isa;
#endif
    return &mp_probe_scalar;
}
