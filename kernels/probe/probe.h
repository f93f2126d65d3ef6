/* probe.h - the machine probe's inner loops: what rooflines need (DESIGN.md
 * "Measurement"): read-only, copy and triad streams, and the int8 dot-product and
 * byte-shuffle peaks of one core.  Each ISA file provides the same functions; the
 * caller picks the widest the CPU has. */
#ifndef MP_PROBE_H
#define MP_PROBE_H

#include <stddef.h>
#include <stdint.h>

typedef struct mp_probe_ops {
    const char *isa;
    /* Reads n bytes (multiple of 256, 64-byte aligned); returns a value that
     * depends on every byte so the loads cannot be removed. */
    uint64_t (*read)(const void *p, size_t n);
    /* dst = src, n bytes (multiple of 256, aligned). */
    void (*copy)(void *dst, const void *src, size_t n);
    /* a = b + s * c over n floats (multiple of 64, aligned). */
    void (*triad)(float *a, const float *b, const float *c, float s, size_t n);
    /* Runs iters rounds of 12 independent int8 dot-product instructions; returns
     * the multiply-adds done (each counts 2 ops). */
    double (*dot)(long iters);
    /* Runs iters rounds of 12 independent byte shuffles; returns bytes shuffled. */
    double (*shuffle)(long iters);
} mp_probe_ops;

extern const mp_probe_ops mp_probe_scalar;
extern const mp_probe_ops mp_probe_avx2;
extern const mp_probe_ops mp_probe_avx512vnni;

#endif
