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

/* The three read entry points of an ISA file over its one loop,
 * read_loop(p, n, how): 0 plain, 1 software-prefetched, 2 non-temporal. */
#define MP_PROBE_READ_METHODS                                                              \
    static uint64_t read_v(const void *p, size_t n) { return read_loop(p, n, 0); }          \
    static uint64_t read_pf_v(const void *p, size_t n) { return read_loop(p, n, 1); }       \
    static uint64_t read_nt_v(const void *p, size_t n) { return read_loop(p, n, 2); }

#endif
