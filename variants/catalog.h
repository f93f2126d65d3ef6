/* catalog.h - the variant catalog: one table per family, each in its own file
 * in variants/, each ending with a zeroed row.  This list of tables is the only
 * place the build learns which variants exist: the registry, the test grid, the
 * sweep and the tuner all iterate it.  Adding a variant = one row in its family's
 * table + its kernel source; adding a family = one line in MP_FAMILIES
 * (kernels/mp_kernel.h) + its table.  What a row shares with every other row of
 * its weight format (method, family, numerics, domain, block) comes from the
 * format's traits row (mp_formats.h) through MP_TRAITS(ID).
 *
 * Name -> code.  Every row spells its name in full, as a string literal, so
 * `grep -rn '"tl2_1.avx512.bm16"' variants/` finds it, and records where its
 * pack, prepare and compute are defined (MP_SOURCES; `mpbench list variants
 * --source GLOB` prints them).  A name is FAMILY.ISA[.fixed parameters]; its
 * kernels are in kernels/D/, where D is FAMILY itself or the part of FAMILY
 * before a digit or '_' that starts its width or kind (the longest such folder):
 * i2_s, q4_0, q8_0, f16, f32, i8, naive2 are folders of their own; tq1_0, tq2_0
 * -> tq/; tl1_0 ... tl2_1 -> tl/; tmac_int2 -> tmac/; vlut_i2, vlut_i1 -> vlut/;
 * vnni_int2, vnni_int1 -> vnni/; llamacpp -> llamacpp/.  The compute of path ISA
 * is in that folder's file ending in -ISA.c (the build gives it ISA's flags),
 * except the peers', thin adapters in variants/peer.c over kernels/llamacpp/.
 * tests/test_catalog_source.c checks all of this. */
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

/* The software prefetch of the weight stream, on every x86 SIMD row that
 * streams weights (I2_S, TL*, T-MAC, VNNI_*, I8 and the row-group formats F16,
 * Q8_0, Q4_0, TQ1_0, TQ2_0): pf, how far ahead, in bytes (0: none), and pfh, its
 * hint (MP_PFH_*, kernels/mp_kernel.h), run-time parameters the tuner explores
 * like any tile.  D is what the kernel did before they were parameters, so
 * defaults keep its behaviour; mp_variant_defaults may set others per CPU
 * (registry.c, pf_defaults).  OMIT: the row's pf was added with pfh (not
 * before), so it too stays out of the params string at its default
 * (mp_param_def.omit_default).  Scalar and Arm rows have neither (or only the
 * pf I2_S always had, which they ignore). */
#define MP_PF_PARAM(D, OMIT)                                                         \
    {.name = "pf", .def = D, .n_values = 5, .values = {0, 2048, 4096, 8192, 16384},  \
     .doc = "software prefetch distance along the packed weights, bytes (0 = off)",  \
     .omit_default = OMIT}
#define MP_PFH_PARAM(D)                                                              \
    {.name = "pfh", .def = D, .n_values = 4, .values = {0, 1, 2, 3},                 \
     .doc = "hint of the weight prefetch: 0 = T0, 1 = T1, 2 = T2, 3 = NTA",           \
     .omit_default = true}

/* The tables: one per family of mp_kernel.h's MP_FAMILIES list, in its order,
 * then tables of rows that belong to a family but live in their own file (I8:
 * family vnni, variants/i8.c).  The registry concatenates them in this order. */
#define MP_CATALOG_EXTRA(X) X(VNNI, i8, "I8: int8 weights, the dot products without up-convert")
#define MP_CATALOG_TABLES(X) MP_FAMILIES(X) MP_CATALOG_EXTRA(X)

/* "file:function" of one slot; the function as the row names it, macros
 * expanded (a row's PREP_AVX2 is its function's name). */
#define MP_STR_(x) #x
#define MP_STR(x) MP_STR_(x)
#define MP_SRC(file, fn) file ":" MP_STR(fn)
#define MP_SOURCES(pack_file, pack, prepare_file, prepare, compute_file, compute)        \
    .pack_src = MP_SRC(pack_file, pack), .prepare_src = MP_SRC(prepare_file, prepare), \
    .compute_src = MP_SRC(compute_file, compute)

#define MP_DECLARE_TABLE(E, f, doc) extern const mp_variant mp_catalog_##f[];
MP_CATALOG_TABLES(MP_DECLARE_TABLE)
#undef MP_DECLARE_TABLE

#endif
