/* e2e-head-avx512vnni.c - the head's dot products (harness/e2e-head-simd.h)
 * built with the AVX-512 VNNI flags: vpdpbusd for the q8_0/q4_0 integer steps,
 * four f16 rows at once.  The same bits as the portable copy. */
#define MP_HEAD_FN(name) name##__avx512vnni
#define MP_HEAD_ROWS 4
#include "e2e-head-simd.h"
