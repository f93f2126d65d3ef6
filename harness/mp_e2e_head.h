/* mp_e2e_head.h - storage formats of the end-to-end runner's embedding and
 * output head (harness/e2e-head.c): 16-bit, q8_0 or q4_0 rows. */
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
/* One stored row widened to cols floats. */
void mp_e2e_head_row_f32(mp_e2e_head_fmt f, const uint8_t *row, int cols, float *out);
/* Float dot product in a fixed order (the same bits on every ISA). */
float mp_e2e_head_dot(const float *a, const float *b, int n);
/* Chooses the ISA copies of the two (harness/e2e-head-simd.h) for this CPU;
 * call while no other thread uses them (mp_e2e_create does). */
void mp_e2e_head_init(void);
/* The portable copies, for tests: the ISA copies must give the same bits. */
void mp_e2e_head_row_f32__generic(mp_e2e_head_fmt f, const uint8_t *row, int cols, float *out);
float mp_e2e_head_dot__generic(const float *a, const float *b, int n);

#endif
