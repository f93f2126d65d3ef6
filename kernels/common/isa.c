/* isa.c - CPUID-based feature detection with an environment cap (mp_isa.h). */
#include "mp_isa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mp_kernel.h"

unsigned mp_isa_hardware(void)
{
    __builtin_cpu_init();
    unsigned b = 0;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
        __builtin_cpu_supports("f16c"))
        b |= MP_ISA_AVX2;
    if ((b & MP_ISA_AVX2) && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq"))
        b |= MP_ISA_AVX512;
    if ((b & MP_ISA_AVX2) && __builtin_cpu_supports("avxvnni"))
        b |= MP_ISA_AVXVNNI;
    if ((b & MP_ISA_AVX512) && __builtin_cpu_supports("avx512vnni"))
        b |= MP_ISA_AVX512VNNI;
    return b;
}

unsigned mp_isa_detect(void)
{
    unsigned hw = mp_isa_hardware(), b = hw;
    const char *cap = getenv("MPBENCH_MAX_ISA");
    if (cap && *cap) {
        unsigned allow = 0;
        if (!strcmp(cap, "scalar"))
            allow = 0;
        else if (!strcmp(cap, "avx2"))
            allow = MP_ISA_AVX2;
        else if (!strcmp(cap, "avxvnni"))
            allow = MP_ISA_AVX2 | MP_ISA_AVXVNNI;
        else if (!strcmp(cap, "avx512"))
            allow = MP_ISA_AVX2 | MP_ISA_AVX512;
        else if (!strcmp(cap, "avx512vnni"))
            allow = MP_ISA_AVX2 | MP_ISA_AVX512 | MP_ISA_AVXVNNI | MP_ISA_AVX512VNNI;
        else {
            fprintf(stderr, "mpbench: MPBENCH_MAX_ISA='%s' is not one of scalar, avx2, "
                            "avxvnni, avx512, avx512vnni; ignoring it\n", cap);
            allow = ~0u;
        }
        b &= allow;
    }
    const char *verbose = getenv("MPBENCH_VERBOSE");
    if (verbose && *verbose == '1') {
        char h[96], e[96];
        fprintf(stderr, "mpbench: hardware ISA %s; enabled %s%s%s\n",
                mp_isa_str(hw, h, sizeof h), mp_isa_str(b, e, sizeof e),
                cap && *cap ? " (capped by MPBENCH_MAX_ISA=" : "",
                cap && *cap ? cap : "");
        if (cap && *cap)
            fputs(")\n", stderr);
    }
    return b;
}

const char *mp_isa_str(unsigned bits, char *buf, unsigned len)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {{MP_ISA_AVX2, "avx2"},
                 {MP_ISA_AVX512, "avx512"},
                 {MP_ISA_AVXVNNI, "avxvnni"},
                 {MP_ISA_AVX512VNNI, "avx512vnni"}};
    buf[0] = 0;
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        if (bits & names[i].bit) {
            if (buf[0])
                strncat(buf, "+", len - strlen(buf) - 1);
            strncat(buf, names[i].name, len - strlen(buf) - 1);
        }
    if (!buf[0])
        snprintf(buf, len, "scalar");
    return buf;
}
