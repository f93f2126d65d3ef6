/* q4_0-avx512.c - Q4_0 x Q8_0 with AVX-512BW (layout in q4_0.h, summation
 * order in q8_0.h).  Two blocks per register: the two 16-byte nibble arrays are
 * spread to [qs_b, qs_b, qs_b+1, qs_b+1], the upper copy of each shifted down a
 * nibble, giving the 64 weights in order; even-block lanes land in float lanes
 * 0-7 and odd-block lanes in 8-15, as in the scalar 16-lane accumulator. */
#include <immintrin.h>

#include "q4_0.h"

#define ROWS4_Q4_0 1
#include "../q8_0/q8_0-rows4-x86.h"

/* Contract: K % 32 == 0, rows [m0, m1), all N tokens; no over-reads. */
void mp_q4_0_gemm__avx512(const mp_op *op, const void *act, int n, float *y, int m0,
                          int m1, void *scratch)
{
    (void)scratch;
    rows4_gemm(op, act, n, y, m0, m1);
}
