/* mp_e2e_head.h - storage formats and dot products of the end-to-end runner's
 * embedding and output head (harness/e2e-head.c): 16-bit, q8_0 or q4_0 rows. */
#ifndef MP_E2E_HEAD_H
#define MP_E2E_HEAD_H

#include <stddef.h>
#include <stdint.h>

typedef enum mp_e2e_head_fmt {
    MP_E2E_HEAD_F16,  /* the default: as the real models ship */
    MP_E2E_HEAD_Q8_0,
    MP_E2E_HEAD_Q4_0
} mp_e2e_head_fmt;

/* "f16", "q8_0", "q4_0" -> format; -1 for anything else. */
int mp_e2e_head_parse(const char *s, mp_e2e_head_fmt *f);
const char *mp_e2e_head_name(mp_e2e_head_fmt f);
/* Whether rows of cols weights fit the format (the q formats need cols % 32). */
int mp_e2e_head_cols_ok(mp_e2e_head_fmt f, int cols);
/* Bytes of one row of cols weights. */
size_t mp_e2e_head_row_bytes(mp_e2e_head_fmt f, int cols);
/* One row: bf16 weights -> the format (dst holds mp_e2e_head_row_bytes). */
void mp_e2e_head_from_bf16(mp_e2e_head_fmt f, const uint16_t *src, int cols, uint8_t *dst);
/* One stored row widened to cols floats (the embedding lookup). */
void mp_e2e_head_row_f32(mp_e2e_head_fmt f, const uint8_t *row, int cols, float *out);

/* Bytes of one token's prepared activation (a multiple of 64). */
size_t mp_e2e_head_prep_bytes(mp_e2e_head_fmt f, int cols);
/* One token's final hidden state x -> its prepared form px (64-byte aligned,
 * mp_e2e_head_prep_bytes): the floats reordered for f16 rows; for the q
 * formats x quantized to int8 per 32-block as llama.cpp's q8_0 does it
 * (d = absmax / 127, round(x / d)), in the rows' order, with the block scales
 * and the sums the integer dot products need.  Portable code: the same bytes on
 * every machine. */
void mp_e2e_head_prep(mp_e2e_head_fmt f, const float *x, int cols, void *px);
/* out[r] = stored row r . x for nrows consecutive rows of cols weights, x
 * prepared by mp_e2e_head_prep.  The arithmetic is fixed (e2e-head-simd.h):
 * every ISA copy gives the same bits, whatever rows a call is given. */
void mp_e2e_head_rows(mp_e2e_head_fmt f, const uint8_t *rows, int nrows, int cols,
                      const void *px, float *out);

/* Chooses the ISA copy of mp_e2e_head_rows (harness/e2e-head-simd.h) for this
 * CPU; call while no other thread uses it (mp_e2e_create does). */
void mp_e2e_head_init(void);
/* The copies, for tests: each must give the portable copy's bits. */
typedef void (*mp_e2e_head_rows_fn)(mp_e2e_head_fmt, const uint8_t *, int, int, const void *,
                                    float *);
void mp_e2e_head_rows__generic(mp_e2e_head_fmt f, const uint8_t *rows, int nrows, int cols,
                               const void *px, float *out);
/* The copy for ISA name ("generic", "avx2", "avx512", "avx512vnni") when this
 * build has it and the CPU runs it (after MPBENCH_MAX_ISA); NULL otherwise. */
mp_e2e_head_rows_fn mp_e2e_head_rows_isa(const char *name);
/* The chosen copy's name. */
const char *mp_e2e_head_isa(void);

#endif
