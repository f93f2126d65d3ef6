/* vnni-dotprod.c - VNNI_INT2 / VNNI_INT1 (seed 003 §III) with the Armv8.2 dot
 * product: vnni-arm.h's sdot path (by-lane sdot on the VNNI4 vectors unpacked
 * from the shared tiles).  Bit for bit equal to the scalar path. */
#include "vnni-arm.h"

MP_VNNI_ENTRY(mp_vnni_int2_gemm__dotprod, vnni_arm_entry, 0)
MP_VNNI_ENTRY(mp_vnni_int1_gemm__dotprod, vnni_arm_entry, 1)
