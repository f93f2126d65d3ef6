/* mp_e2e_codes.h - ternary weights as 2-bit codes (harness/e2e-codes.c): the
 * form in which a run's shared weights are kept (e2e-share.c).  Weight i of a
 * tensor is code w + 1 (0, 1, 2) in bits 2(i % 4) .. 2(i % 4) + 1 of byte i / 4. */
#ifndef MP_E2E_CODES_H
#define MP_E2E_CODES_H

#include <stddef.h>
#include <stdint.h>

/* w: n weights in {-1, 0, 1}; c: (n + 3) / 4 bytes, every one written (the
 * last byte's unused codes 0). */
void mp_e2e_codes_pack(const int8_t *w, size_t n, uint8_t *c);
/* Writes exactly n weights. */
void mp_e2e_codes_unpack(const uint8_t *c, size_t n, int8_t *w);

/* The copies behind them (the fastest this CPU runs is taken, after
 * MPBENCH_MAX_ISA); all give the same bytes.  For tests. */
void mp_e2e_codes_pack_portable(const int8_t *w, size_t n, uint8_t *c);
void mp_e2e_codes_unpack_portable(const uint8_t *c, size_t n, int8_t *w);
#if defined(__x86_64__)
void mp_e2e_codes_pack__avx512(const int8_t *w, size_t n, uint8_t *c);
void mp_e2e_codes_unpack__avx512(const uint8_t *c, size_t n, int8_t *w);
#endif

#endif
