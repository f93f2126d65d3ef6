/* mp_isa.h - run-time ISA detection.  MPBENCH_MAX_ISA=scalar|avx2|avx512|
 * avxvnni|avx512vnni (x86-64) or neon|dotprod|i8mm (AArch64) caps what is reported (so AVX2 paths are testable on an
 * AVX-512 machine); MPBENCH_VERBOSE=1 prints what was detected and why. */
#ifndef MP_ISA_H
#define MP_ISA_H

/* mp_isa_bits of this CPU, after the MPBENCH_MAX_ISA cap. */
unsigned mp_isa_detect(void);
/* mp_isa_bits the hardware has, ignoring the cap. */
unsigned mp_isa_hardware(void);
/* The CPU's vendor (CPUID leaf 0: "GenuineIntel", "AuthenticAMD", ...) into
 * vendor and its family (leaf 1: the base family, plus the extended family
 * when the base is 15, as Intel and AMD number them: 6, 23 Zen 1-2, 25 Zen 3-4,
 * 26 Zen 5) into *family; 0, or -1 where there is no CPUID (AArch64). */
int mp_cpu_vendor_family(char *vendor, unsigned len, int *family);

/* "avx2", "avx512+avx512vnni", ... for a mask; returns buf. */
const char *mp_isa_str(unsigned bits, char *buf, unsigned len);

/* 1 when this process runs on an emulated CPU (timings from it mean nothing),
 * with the reason in why: MPBENCH_EMULATED=1 (told; =0 overrides detection),
 * a /proc/cpuinfo of another architecture than the binary's (user-mode
 * emulation: qemu-aarch64 on an x86 host), or QEMU's TCG hypervisor signature
 * (x86 full-system emulation).  0 otherwise.  (emulated.c) */
int mp_cpu_emulated(char *why, unsigned len);

#endif
