/* q4_0-avx2.c - Q4_0 x Q8_0 with AVX2 (llama.cpp's 4-bit baseline, our own
 * kernel; layout in q4_0.h, summation order in q8_0.h).
 *
 * Nibbles are expanded to 32 unsigned bytes (low nibbles = weights 0-15, high =
 * 16-31) and multiplied with vpmaddubsw (pairs <= 2*15*127, no saturation); the
 * -8 offset is removed per int32 lane with 8 * sum(q), computed once per block
 * and shared by the four rows.  Each lane is the exact sum(w * q) of its four
 * weights, scaled and accumulated in float as the scalar path does. */
#include <immintrin.h>

#include "q4_0.h"

#define ROWS4_Q4_0 1
#include "../q8_0/q8_0-rows4-x86.h"

/* Contract: K % 32 == 0, rows [m0, m1), all N tokens; no over-reads. */
void mp_q4_0_gemm__avx2(const mp_op *op, const void *act, int n, float *y, int m0,
                        int m1, void *scratch)
{
    (void)scratch;
    rows4_gemm(op, act, n, y, m0, m1);
}
