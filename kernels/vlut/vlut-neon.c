/* vlut-neon.c - Vec-LUT (seed 001 §3-4) on AArch64 NEON: the shared table path
 * vlut-simd.h instantiated with a 16-lane int16 "vector" made of two 128-bit
 * registers, so N_tile, the packed layout, the scratch and every loop are the
 * AVX2 instantiation's (VL = 16): only the instructions differ.  Seed 001 runs
 * Vec-LUT on Arm boards and an Apple M2; this is that path here.  tcl = 0 (the
 * per-token-table baseline of the ablation) and the GEMV path (N below the
 * `gemv` parameter; default 0 = never on NEON) run the portable code.
 * Prepare is the scalar one (same activations).  Bit for bit equal to the
 * scalar path. */
#include <arm_neon.h>

#include "vlut.h"
#include "../common/mp_numerics.h"

#define VLUT_NEON_INLINE static inline __attribute__((always_inline))

typedef struct v16 {
    int16x8_t lo, hi;
} v16;
typedef struct w16 {
    int32x4_t q[4];
} w16;

VLUT_NEON_INLINE v16 v16_load(const int16_t *p)
{
    return (v16){vld1q_s16(p), vld1q_s16(p + 8)};
}
VLUT_NEON_INLINE void v16_store(int16_t *p, v16 v)
{
    vst1q_s16(p, v.lo);
    vst1q_s16(p + 8, v.hi);
}
VLUT_NEON_INLINE v16 v16_add(v16 a, v16 b)
{
    return (v16){vaddq_s16(a.lo, b.lo), vaddq_s16(a.hi, b.hi)};
}
VLUT_NEON_INLINE v16 v16_sub(v16 a, v16 b)
{
    return (v16){vsubq_s16(a.lo, b.lo), vsubq_s16(a.hi, b.hi)};
}
VLUT_NEON_INLINE v16 v16_zero(void)
{
    return (v16){vdupq_n_s16(0), vdupq_n_s16(0)};
}
VLUT_NEON_INLINE w16 w16_zero(void)
{
    return (w16){{vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)}};
}
VLUT_NEON_INLINE w16 w16_add16(w16 w, v16 v)
{
    w.q[0] = vaddw_s16(w.q[0], vget_low_s16(v.lo));
    w.q[1] = vaddw_high_s16(w.q[1], v.lo);
    w.q[2] = vaddw_s16(w.q[2], vget_low_s16(v.hi));
    w.q[3] = vaddw_high_s16(w.q[3], v.hi);
    return w;
}
VLUT_NEON_INLINE void w16_store(int32_t *p, w16 w)
{
    for (int i = 0; i < 4; i++)
        vst1q_s32(p + 4 * i, w.q[i]);
}
VLUT_NEON_INLINE void v16_acc32(int32_t *p, v16 v)
{
    w16 w;
    for (int i = 0; i < 4; i++)
        w.q[i] = vld1q_s32(p + 4 * i);
    w16_store(p, w16_add16(w, v));
}

#define FN(x) x##__neon
#define V v16
#define VL 16
#define VLOAD(p) v16_load(p)
#define VSTORE(p, v) v16_store((p), (v))
#define VADD(a, b) v16_add((a), (b))
#define VSUB(a, b) v16_sub((a), (b))
#define VZERO() v16_zero()
#define W w16
#define WZERO() w16_zero()
#define WADD16(w, v) w16_add16((w), (v))
#define WSTORE(p, w) w16_store((p), (w))
#define VACC32(p, v) v16_acc32((p), (v))

#include "vlut-simd.h"

/* Contract: as mp_vlut_gemm__scalar (any rows, any N, scratch_size bytes). */
void mp_vlut_gemm__neon(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                        void *scratch)
{
    const int *P = op->param;
    if (!P[MP_VLUT_P_TCL] || n < P[MP_VLUT_P_GEMV]) {
        mp_vlut_gemm__scalar(op, act, n, y, m0, m1, scratch);
        return;
    }
    gemm_tiles__neon(op, act, n, y, m0, m1, scratch);
}
