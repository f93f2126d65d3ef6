/* vnni-i8mm.c - VNNI_INT2 / VNNI_INT1 (seed 003 §III) with the Armv8.6 int8
 * matrix multiply: vnni-arm.h's smmla path for token pairs (2 rows x 8 k times
 * 8 k x 2 tokens per instruction), sdot for a lone last token.  Bit for bit
 * equal to the scalar path. */
#include "vnni-arm.h"

MP_VNNI_ENTRY(mp_vnni_int2_gemm__i8mm, vnni_arm_entry, 0)
MP_VNNI_ENTRY(mp_vnni_int1_gemm__i8mm, vnni_arm_entry, 1)
