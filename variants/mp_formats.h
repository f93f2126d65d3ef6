/* mp_formats.h - one traits row per weight format, as ggml's type traits: what
 * every catalog row of a format shares (method, family, numerics, weight domain,
 * block, bytes per block, K multiple, paper source), written once.
 *
 * A catalog row takes them with MP_TRAITS(ID) (or MP_TRAITS_K(ID), which adds the
 * format's K multiple: TL rows set their own, it depends on their fixed bm) and
 * adds only what is its own: ISA, tiles, parameter grid, function slots.  The
 * registry reads the table back for `mpbench list formats` and the tests derive
 * their edge shapes from it and from each row (tests/test_edges.c).
 *
 * block / block_bytes: the packing unit along K and what it takes, before
 * per-tensor trailers and row padding (bpw = 8 * block_bytes / block nominal;
 * reports print the measured bpw of the packed size). */
#ifndef MP_FORMATS_H
#define MP_FORMATS_H

#include "../kernels/mp_kernel.h"

/* ID, method, family, numerics, domain, block, block_bytes, K multiple, source */
#define MP_WF_ARGS_F32 F32, "F32", BASELINE, MP_FLOAT, TERNARY, 1, 4, 1, \
    "DESIGN.md Numerics (float baseline)"
#define MP_WF_ARGS_NAIVE2 NAIVE2, "NAIVE2", BASELINE, MP_LOSSLESS, TERNARY, 4, 1, 1, \
    "seed 002 (pure-C kernel)"
#define MP_WF_ARGS_I2_S I2_S, "I2_S", MAD, MP_LOSSLESS, TERNARY, 128, 32, 128, \
    "seed 004 §2, seed 000 §2.3"
#define MP_WF_ARGS_F16 F16, "F16", MAD, MP_FLOAT, TERNARY, 1, 2, 1, \
    "llama.cpp F16; seed 000 Table 7"
#define MP_WF_ARGS_Q8_0 Q8_0, "Q8_0", MAD, MP_LOSSY, TERNARY, 32, 34, 32, \
    "llama.cpp Q8_0; seed 004 Tables 4-5"
#define MP_WF_ARGS_Q4_0 Q4_0, "Q4_0", MAD, MP_LOSSY, TERNARY, 32, 18, 32, \
    "llama.cpp Q4_0; seed 000 §2.3, 004 §2"
#define MP_WF_ARGS_TQ1_0 TQ1_0, "TQ1_0", MAD, MP_LOSSY, TERNARY, 256, 54, 256, \
    "llama.cpp TQ1_0; seed 000 §2.3, Table 7; seed 004 Tables 4-5"
#define MP_WF_ARGS_TQ2_0 TQ2_0, "TQ2_0", MAD, MP_LOSSY, TERNARY, 256, 66, 256, \
    "llama.cpp TQ2_0; seed 000 §2.3, Table 7; seed 004 Tables 4-5"
#define MP_WF_ARGS_TMAC_INT2 TMAC_INT2, "TMAC_INT2", BITLUT, MP_LOSSY, TERNARY, 4, 1, 8, \
    "seed 001 §2.2, seed 000 §2.3"
#define MP_WF_ARGS_TL1_0 TL1_0, "TL1_0", ELUT, MP_LOSSY, TERNARY, 4, 1, 8, \
    "seed 000 §3, App. E; seed 004 §2"
#define MP_WF_ARGS_TL1_1 TL1_1, "TL1_1", ELUT, MP_LOSSLESS, TERNARY, 4, 1, 8, \
    "seed 000 §3, App. E; seed 004 §2"
#define MP_WF_ARGS_TL2_0 TL2_0, "TL2_0", ELUT, MP_LOSSY, TERNARY, 24, 5, 8, \
    "seed 000 §3, App. E; seed 004 §2"
#define MP_WF_ARGS_TL2_1 TL2_1, "TL2_1", ELUT, MP_LOSSLESS, TERNARY, 24, 5, 8, \
    "seed 000 §3, App. E; seed 004 §2"
#define MP_WF_ARGS_VLUT_I2 VLUT_I2, "VLUT_I2", VECLUT, MP_LOSSLESS, TERNARY, 4, 1, 4, \
    "seed 001 §3-4"
#define MP_WF_ARGS_VLUT_I1 VLUT_I1, "VLUT_I1", VECLUT, MP_LOSSLESS, TERNARY, 5, 1, 1, \
    "seed 001 §3-4, footnote 4"
#define MP_WF_ARGS_VNNI_INT2 VNNI_INT2, "VNNI_INT2", VNNI, MP_LOSSLESS, TERNARY, 4, 1, 1, \
    "seed 003 §III"
#define MP_WF_ARGS_I8 I8, "I8", VNNI, MP_LOSSLESS, TERNARY, 1, 1, 1, \
    "seed 003 §IV-B (int8 baseline)"
#define MP_WF_ARGS_VNNI_INT1 VNNI_INT1, "VNNI_INT1", VNNI, MP_LOSSLESS, BINARY, 8, 1, 1, \
    "seed 003 §III"

/* The formats, in the order `list formats` prints them. */
#define MP_WFORMATS(X)                                                                   \
    X(F32) X(NAIVE2) X(I2_S) X(F16) X(Q8_0) X(Q4_0) X(TQ1_0) X(TQ2_0) X(TMAC_INT2)      \
    X(TL1_0) X(TL1_1) X(TL2_0) X(TL2_1) X(VLUT_I2) X(VLUT_I1) X(VNNI_INT2) X(VNNI_INT1) X(I8)

typedef enum mp_wformat {
    MP_WF_NONE, /* rows outside the table: peers, test-only variants */
#define MP_WF_ENUM_(ID) MP_WF_##ID,
    MP_WFORMATS(MP_WF_ENUM_)
#undef MP_WF_ENUM_
    MP_WF_COUNT
} mp_wformat;

typedef struct mp_wformat_traits {
    const char *method;
    mp_family family;
    mp_exactness exactness;
    mp_domain domain;
    int block;       /* weights per packing unit along K */
    int block_bytes; /* bytes per unit */
    int k_multiple;  /* K multiple of the format (a row with tiles may ask more) */
    const char *source;
} mp_wformat_traits;

/* The traits row of format f (MP_WF_*), or NULL for MP_WF_NONE / out of range. */
const mp_wformat_traits *mp_wformat_get(int f);

/* Designated initializers of a catalog row taken from its format's traits. */
#define MP_TRAITS(ID) MP_TRAITS_(MP_WF_ARGS_##ID)
#define MP_TRAITS_K(ID) MP_TRAITS_K_(MP_WF_ARGS_##ID)
#define MP_TRAITS_(...) MP_TRAITS_FIELDS_(__VA_ARGS__)
#define MP_TRAITS_K_(...) MP_TRAITS_FIELDS_K_(__VA_ARGS__)
#define MP_TRAITS_FIELDS_(ID, METHOD, FAM, EX, DOM, BLOCK, BYTES, KMUL, SRC)                \
    .wformat = MP_WF_##ID, .method = METHOD, .family = MP_FAMILY_##FAM, .exactness = EX,   \
    .domain = MP_DOMAIN_##DOM, .source = SRC
#define MP_TRAITS_FIELDS_K_(ID, METHOD, FAM, EX, DOM, BLOCK, BYTES, KMUL, SRC)              \
    MP_TRAITS_FIELDS_(ID, METHOD, FAM, EX, DOM, BLOCK, BYTES, KMUL, SRC), .k_multiple = KMUL

#endif
