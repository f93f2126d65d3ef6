/* q8_0-avx512.c - Q8_0 x Q8_0 with AVX-512BW (layout and summation order in
 * q8_0.h).  Two blocks per register: the even block's 8 int32 lanes land in
 * float lanes 0-7 and the odd block's in 8-15, exactly the scalar path's
 * 16-lane accumulator.  AVX-512 has no vpsignb: |w| by vpabsb and sign(w)q by a
 * masked subtract from zero.  Pairs <= 2*127*127, no saturation. */
#include <immintrin.h>

#include "q8_0.h"

#define ROWS4_Q8_0 1
#include "q8_0-rows4-x86.h"

/* Contract: K % 32 == 0, rows [m0, m1), all N tokens; no over-reads. */
void mp_q8_0_gemm__avx512(const mp_op *op, const void *act, int n, float *y, int m0,
                          int m1, void *scratch)
{
    (void)scratch;
    rows4_gemm(op, act, n, y, m0, m1);
}
