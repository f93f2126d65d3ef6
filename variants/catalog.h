/* catalog.h - the variant catalog: one table per family, each in its own file
 * in variants/, each ending with a zeroed row.  This list of tables is the only
 * place the build learns which variants exist: the registry, the test grid, the
 * sweep and the tuner all iterate it.  Adding a variant = one row in its family's
 * table + its kernel source; adding a family = one line below. */
#ifndef MP_CATALOG_H
#define MP_CATALOG_H

#include "../kernels/mp_kernel.h"

/* Which SIMD rows a build has: the x86 rows on x86-64, the Arm rows on AArch64
 * (the other architecture's kernel files are not compiled: Makefile, ARCH).
 * Scalar rows are in every build. */
#if defined(__x86_64__) || defined(__i386__)
#define MP_CATALOG_X86 1
#else
#define MP_CATALOG_X86 0
#endif
#if defined(__aarch64__)
#define MP_CATALOG_ARM 1
#else
#define MP_CATALOG_ARM 0
#endif

#define MP_CATALOG_FAMILIES(X) \
    X(baseline)                \
    X(mad)                     \
    X(bitlut)                  \
    X(elut)                    \
    X(veclut)                  \
    X(vnni)                    \
    X(i8)                      \
    X(peer)

#define MP_DECLARE_FAMILY(f) extern const mp_variant mp_catalog_##f[];
MP_CATALOG_FAMILIES(MP_DECLARE_FAMILY)
#undef MP_DECLARE_FAMILY

#endif
