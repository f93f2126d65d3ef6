/* e2e-head-avx2.c - the head's dot products (harness/e2e-head-simd.h) built with
 * the AVX2 flags (maddubs for the integer steps); the same bits as the
 * portable copy. */
#define MP_HEAD_FN(name) name##__avx2
#include "e2e-head-simd.h"
