/* f32-simd.h - the F32 path written once for any vector width: included by
 * f32-avx2.c and f32-avx512.c after they define the vector operations below.
 * Four rows share each activation load; per row one FMA chain over whole
 * vectors, then a horizontal sum and a scalar loop over the K tail.  Streaming
 * 4 bytes per weight, this path is the memory-bound yardstick of the float
 * baselines.  It holds no intrinsics: the includer gives the ISA.
 *
 * The includer defines:
 *   V, VL              a vector of VL floats
 *   VZERO() VLOAD(p)   zero, unaligned load
 *   VFMA(a, b, c)      a * b + c, fused
 *   VSUM(v)            horizontal sum to a float
 *   FN(name)           name with the ISA suffix
 * (the sum order differs from the scalar path's: F32 is judged within
 * sibling_tol, variants/baseline.c) */
#include "f32.h"

void FN(mp_f32_gemm)(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                     void *scratch)
{
    (void)scratch;
    const int k = op->k, kv = k - k % VL;
    const float *x = mp_f32_act_x(act);
    const float *w = (const float *)op->w;
    for (int r = m0; r < m1; r += 4) {
        int R = m1 - r < 4 ? m1 - r : 4;
        for (int t = 0; t < n; t++) {
            const float *xt = x + (size_t)t * k;
            V acc[4] = {VZERO(), VZERO(), VZERO(), VZERO()};
            for (int i = 0; i < kv; i += VL) {
                V a = VLOAD(xt + i);
                for (int j = 0; j < R; j++)
                    acc[j] = VFMA(VLOAD(w + (size_t)(r + j) * k + i), a, acc[j]);
            }
            for (int j = 0; j < R; j++) {
                float s = VSUM(acc[j]);
                for (int i = kv; i < k; i++)
                    s += w[(size_t)(r + j) * k + i] * xt[i];
                y[(size_t)t * op->m + r + j] = s;
            }
        }
    }
}
