/* q8_0-avx2.c - Q8_0 x Q8_0 with AVX2 (llama.cpp's 8-bit baseline, our own
 * kernel; layout and summation order in q8_0.h).
 *
 * Four rows share each activation load.  Per block: the sign trick turns the
 * signed x signed product into vpmaddubsw's unsigned x signed (|w| * sign(w)q;
 * pairs <= 2*127*127 = 32258, no saturation), vpmaddwd gives the 8 exact int32
 * lanes, which are scaled by dw*dx in float and added to the even- or
 * odd-block accumulator: lane for lane the scalar path's operations, without a
 * horizontal sum per block (llama.cpp's own trick). */
#include <immintrin.h>

#include "q8_0.h"

#define ROWS4_Q8_0 1
#include "q8_0-rows4-x86.h"

/* Contract: K % 32 == 0, rows [m0, m1), all N tokens; no over-reads (the
 * prefetches may point past the rows: harmless). */
void mp_q8_0_gemm__avx2(const mp_op *op, const void *act, int n, float *y, int m0,
                        int m1, void *scratch)
{
    (void)scratch;
    rows4_gemm(op, act, n, y, m0, m1);
}
