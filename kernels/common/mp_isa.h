/* mp_isa.h - run-time ISA detection.  MPBENCH_MAX_ISA=scalar|avx2|avx512|
 * avxvnni|avx512vnni caps what is reported (so AVX2 paths are testable on an
 * AVX-512 machine); MPBENCH_VERBOSE=1 prints what was detected and why. */
#ifndef MP_ISA_H
#define MP_ISA_H

/* mp_isa_bits of this CPU, after the MPBENCH_MAX_ISA cap. */
unsigned mp_isa_detect(void);
/* mp_isa_bits the hardware has, ignoring the cap. */
unsigned mp_isa_hardware(void);
/* "avx2", "avx512+avx512vnni", ... for a mask; returns buf. */
const char *mp_isa_str(unsigned bits, char *buf, unsigned len);

#endif
