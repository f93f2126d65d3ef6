/* catalog.h - the variant catalog: one table per family, each in its own file
 * in variants/, each ending with a zeroed row.  This list of tables is the only
 * place the build learns which variants exist: the registry, the test grid, the
 * sweep and the tuner all iterate it.  Adding a variant = one row in its family's
 * table + its kernel source; adding a family = one line in MP_FAMILIES
 * (kernels/mp_kernel.h) + its table.  What a row shares with every other row of
 * its weight format (method, family, numerics, domain, block) comes from the
 * format's traits row (mp_formats.h) through MP_TRAITS(ID). */
#ifndef MP_CATALOG_H
#define MP_CATALOG_H

#include "../kernels/mp_kernel.h"
#include "mp_formats.h"

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

/* Parameter names mean one thing in every family (README.md, "Parameters",
 * says what each means).  Spellings renamed for that, per family: still taken
 * on input (--params, tuned configs) for one release, with a one-line notice on
 * stderr (mp_params_parse); stored rows were rewritten by schema migration 8
 * (harness/mp_store_schema.h).  Remove a line one release after its rename.
 * VNNI's bm (GEMM rows per unpacked block) became mtile: bm is TL's packed row
 * block, a fixed part of its variant names (tl2_1.avx512.bm16); bn, bk and
 * gemm_n meant what Vec-LUT already called ntile, ktile and gemv. */
#define MP_PARAM_RENAMES(X)   \
    X(VNNI, "bm", "mtile")    \
    X(VNNI, "bn", "ntile")    \
    X(VNNI, "bk", "ktile")    \
    X(VNNI, "gemm_n", "gemv")

/* The tables: one per family of mp_kernel.h's MP_FAMILIES list, in its order,
 * then tables of rows that belong to a family but live in their own file (I8:
 * family vnni, variants/i8.c).  The registry concatenates them in this order. */
#define MP_CATALOG_EXTRA(X) X(VNNI, i8, "I8: int8 weights, the dot products without up-convert")
#define MP_CATALOG_TABLES(X) MP_FAMILIES(X) MP_CATALOG_EXTRA(X)

#define MP_DECLARE_TABLE(E, f, doc) extern const mp_variant mp_catalog_##f[];
MP_CATALOG_TABLES(MP_DECLARE_TABLE)
#undef MP_DECLARE_TABLE

#endif
