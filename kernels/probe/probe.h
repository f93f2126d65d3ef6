/* probe.h - the machine probe's inner loops: what rooflines need (DESIGN.md
 * "Measurement"): read-only, copy and triad streams, and the int8 dot-product and
 * byte-shuffle peaks of one core.  Each ISA file provides the same functions; the
 * registry (variants/probe.c) picks the widest the CPU has for the engine. */
#ifndef MP_PROBE_H
#define MP_PROBE_H

#include "../mp_kernel.h" /* mp_probe_ops */


extern const mp_probe_ops mp_probe_scalar;
extern const mp_probe_ops mp_probe_avx2;
extern const mp_probe_ops mp_probe_avx512vnni;

#endif
