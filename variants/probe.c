/* probe.c - which of the machine probe's loop tables (kernels/probe/) the
 * engine's probe uses: the widest this CPU runs (after MPBENCH_MAX_ISA), so that
 * harness/ reaches kernel code only through the registry; and the read methods
 * the bandwidth probe tries, whose best is the bandwidth roof. */
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

int mp_registry_probe_reads(mp_probe_read *out, int max)
{
    const mp_probe_ops *widest = mp_registry_probe_ops();
    const mp_probe_ops *plain = widest;
    int n = 0;
#if defined(__x86_64__)
    /* "plain" is 256-bit loads wherever AVX2 runs, what most kernels issue;
     * the 512-bit loop is then its own method, "wide" */
    if (widest == &mp_probe_avx512vnni)
        plain = &mp_probe_avx2;
#endif
    if (n < max)
        out[n++] = (mp_probe_read){"plain", plain->read};
    if (plain != widest && n < max)
        out[n++] = (mp_probe_read){"wide", widest->read};
    if (widest->read_pf && n < max)
        out[n++] = (mp_probe_read){"pf", widest->read_pf};
    if (widest->read_nt && n < max)
        out[n++] = (mp_probe_read){"nt", widest->read_nt};
    return n;
}

mp_probe_read mp_registry_probe_read_pf(void)
{
    const mp_probe_ops *w = mp_registry_probe_ops();
    return w->read_pf ? (mp_probe_read){"pf", w->read_pf} : (mp_probe_read){"plain", w->read};
}
