/* emulated.c - is this CPU emulated?  (mp_isa.h)
 *
 * The AArch64 paths are cross-built and tested under qemu-aarch64 on an x86
 * host: correct results there mean something, timings do not (TCG translates
 * every instruction; sdot may cost more than four multiply-adds).  The harness
 * asks this before it stores a timing and refuses when the answer is yes.
 *
 * What can be detected without privileges:
 *   - user-mode emulation (qemu-aarch64, qemu-x86_64 on another host): the
 *     process sees the host kernel's /proc/cpuinfo, which describes a CPU of
 *     another architecture than the one this binary was built for;
 *   - x86 full-system emulation: QEMU's TCG accelerator answers the hypervisor
 *     CPUID leaf with "TCGTCGTCGTCG" (KVM answers "KVMKVMKVM": virtualized, not
 *     emulated, timings are real).
 * AArch64 full-system emulation shows the guest kernel's view of the emulated
 * CPU and cannot be told apart here: MPBENCH_EMULATED=1 says so. */
#include "mp_isa.h"
#include "mp_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* Which architecture /proc/cpuinfo describes: 'a' arm, 'x' x86, 0 unknown. */
static int cpuinfo_arch(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return 0;
    char line[512];
    int arch = 0;
    while (!arch && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "CPU implementer", 15) || !strncmp(line, "CPU architecture", 16))
            arch = 'a';
        else if (!strncmp(line, "vendor_id", 9) || !strncmp(line, "cpu family", 10))
            arch = 'x';
    }
    fclose(f);
    return arch;
}

int mp_cpu_emulated(char *why, unsigned len)
{
    long told = mp_env_long("MPBENCH_EMULATED", -1);
    if (told == 1) {
        snprintf(why, len, "MPBENCH_EMULATED=1");
        return 1;
    }
    if (told == 0)
        return 0;
    int arch = cpuinfo_arch();
#if defined(__aarch64__) || defined(__arm__)
    if (arch == 'x') {
        snprintf(why, len, "an Arm binary on an x86 host (/proc/cpuinfo is x86): "
                           "user-mode emulation such as qemu-aarch64");
        return 1;
    }
#elif defined(__x86_64__) || defined(__i386__)
    if (arch == 'a') {
        snprintf(why, len, "an x86 binary on an Arm host (/proc/cpuinfo is Arm): "
                           "user-mode emulation");
        return 1;
    }
    unsigned a, b, c, d;
    __cpuid(1, a, b, c, d);
    if (c & (1u << 31)) { /* hypervisor present: ask who */
        __cpuid(0x40000000, a, b, c, d);
        char sig[13];
        memcpy(sig, &b, 4);
        memcpy(sig + 4, &c, 4);
        memcpy(sig + 8, &d, 4);
        sig[12] = 0;
        if (!strcmp(sig, "TCGTCGTCGTCG")) {
            snprintf(why, len, "QEMU TCG (full-system emulation, hypervisor signature %s)", sig);
            return 1;
        }
    }
#else
    (void)arch;
#endif
    if (why && len)
        why[0] = 0;
    return 0;
}
