/* f32-neon.c - F32 with NEON FMA: the template f32-simd.h over 4-float vectors. */
#include <arm_neon.h>

/* f32-simd.h's FN(mp_f32_gemm) is this file's compute slot, mp_f32_gemm__neon */
#define FN(x) x##__neon
#define V float32x4_t
#define VL 4
#define VZERO() vdupq_n_f32(0.0f)
#define VLOAD(p) vld1q_f32(p)
#define VFMA(a, b, c) vfmaq_f32((c), (a), (b))
#define VSUM(v) vaddvq_f32(v)
#include "f32-simd.h"
