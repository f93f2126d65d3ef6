/* isa.c - run-time ISA detection with an environment cap (mp_isa.h): CPUID on
 * x86-64, getauxval(AT_HWCAP/AT_HWCAP2) on AArch64 (the kernel's view of the
 * CPU's features, which is also what qemu-aarch64 reports for its -cpu model). */
#include "mp_isa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mp_kernel.h"
#include "mp_parse.h"

#if defined(__aarch64__)
#include <sys/auxv.h>

/* Linux arm64 uapi hwcap bits (asm/hwcap.h), spelled out so older headers do. */
enum {
    HWCAP_ASIMD_BIT = 1u << 1,     /* AT_HWCAP: Advanced SIMD */
    HWCAP_ASIMDDP_BIT = 1u << 20,  /* AT_HWCAP: sdot/udot */
    HWCAP2_I8MM_BIT = 1u << 13,    /* AT_HWCAP2: smmla/ummla/usmmla */
};

unsigned mp_isa_hardware(void)
{
    unsigned long hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);
    unsigned b = 0;
    if (hw & HWCAP_ASIMD_BIT)
        b |= MP_ISA_NEON;
    if ((b & MP_ISA_NEON) && (hw & HWCAP_ASIMDDP_BIT))
        b |= MP_ISA_DOTPROD;
    if ((b & MP_ISA_NEON) && (hw2 & HWCAP2_I8MM_BIT))
        b |= MP_ISA_I8MM;
    return b;
}
#elif defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

int mp_cpu_vendor_family(char *vendor, unsigned len, int *family)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d))
        return -1;
    char v[13];
    memcpy(v, &b, 4);
    memcpy(v + 4, &d, 4);
    memcpy(v + 8, &c, 4);
    v[12] = 0;
    snprintf(vendor, len, "%s", v);
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return -1;
    const int base = (int)(a >> 8 & 0xf), ext = (int)(a >> 20 & 0xff);
    *family = base == 15 ? base + ext : base;
    return 0;
}

#if defined(__clang__)
/* clang (the fuzz build, `make fuzz`) does not know these two feature names in
 * __builtin_cpu_supports: ask CPUID (leaf 1 ECX bit 29; leaf 7.1 EAX bit 4) */
static int cpu_f16c(void)
{
    unsigned a, b, c, d;
    return __get_cpuid(1, &a, &b, &c, &d) && (c >> 29 & 1);
}
static int cpu_avxvnni(void)
{
    unsigned a, b, c, d;
    return __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a >> 4 & 1);
}
#else
static int cpu_f16c(void) { return __builtin_cpu_supports("f16c"); }
static int cpu_avxvnni(void) { return __builtin_cpu_supports("avxvnni"); }
#endif
unsigned mp_isa_hardware(void)
{
    __builtin_cpu_init();
    unsigned b = 0;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
        cpu_f16c())
        b |= MP_ISA_AVX2;
    if ((b & MP_ISA_AVX2) && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq"))
        b |= MP_ISA_AVX512;
    if ((b & MP_ISA_AVX2) && cpu_avxvnni())
        b |= MP_ISA_AVXVNNI;
    if ((b & MP_ISA_AVX512) && __builtin_cpu_supports("avx512vnni"))
        b |= MP_ISA_AVX512VNNI;
    return b;
}
#else
unsigned mp_isa_hardware(void)
{
    return 0; /* scalar paths only */
}
#endif
#if !defined(__x86_64__) && !defined(__i386__)
int mp_cpu_vendor_family(char *vendor, unsigned len, int *family)
{
    (void)vendor, (void)len, (void)family;
    return -1;
}
#endif

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
        else if (!strcmp(cap, "neon"))
            allow = MP_ISA_NEON;
        else if (!strcmp(cap, "dotprod"))
            allow = MP_ISA_NEON | MP_ISA_DOTPROD;
        else if (!strcmp(cap, "i8mm"))
            allow = MP_ISA_NEON | MP_ISA_DOTPROD | MP_ISA_I8MM;
        else {
            fprintf(stderr, "mpbench: MPBENCH_MAX_ISA='%s' is not one of scalar, avx2, "
                            "avxvnni, avx512, avx512vnni, neon, dotprod, i8mm; ignoring it\n",
                    cap);
            allow = ~0u;
        }
        b &= allow;
    }
    if (mp_env_long("MPBENCH_VERBOSE", 0) == 1) {
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
                 {MP_ISA_AVX512VNNI, "avx512vnni"},
                 {MP_ISA_NEON, "neon"},
                 {MP_ISA_DOTPROD, "dotprod"},
                 {MP_ISA_I8MM, "i8mm"}};
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
