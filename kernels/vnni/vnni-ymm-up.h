/* vnni-ymm-up.h - the up-convert of seed 003 §III on ymm, shared by the two ymm
 * paths (vnni-avx2.c: vpmaddubsw, vnni-avxvnni.c: vpdpbusd), which include it
 * before their micro-kernels: a 64-byte int2 tile is two ymm (rows 0-7, 8-15),
 * each turned into codes by 1 shift + 2 and + 4 vpshufb; an int1 group half by
 * vpbroadcastd / vpshufb / vpand / vpcmpeqb / vpblendvb, blending the unsigned
 * codes {2, 0} (the dot products are unsigned x signed).  Layouts: vnni.h. */
#ifndef MP_VNNI_YMM_UP_H
#define MP_VNNI_YMM_UP_H

#include <immintrin.h>
#include <string.h>


/* software prefetch distances along the weight stream: the far one where the
 * row has no "pf" (every x86 row has; its hint is "pfh") and the near one into
 * L1 (T0, on while pf is), as vnni-avx512vnni.c explains */
enum { PF_BYTES = 8192, PF_NEAR_BYTES = 2048 };

static inline __m256i bcast4(const int8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

typedef struct consts {
    __m256i m0f, lut01, lut23; /* int2 */
    __m256i perm, bitsel, two; /* int1 */
} consts;

static inline consts make_consts(void)
{
    consts c;
    c.m0f = _mm256_set1_epi8(0x0f);
    c.lut01 = _mm256_setr_epi8(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3,
                               0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3);
    c.lut23 = _mm256_setr_epi8(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
                               0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
    /* operand byte i takes bit i of the broadcast dword: byte i / 8, bit i % 8 */
    c.perm = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                              2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    c.bitsel = _mm256_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128,
                                1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128);
    c.two = _mm256_set1_epi8(2);
    return c;
}

/* 32-byte half tile (8 rows x 16 k) -> codes of k 0..3, 4..7, 8..11, 12..15. */
static inline void int2_up(const consts *c, __m256i v, __m256i u[4])
{
    __m256i lo = _mm256_and_si256(v, c->m0f);
    __m256i hi = _mm256_and_si256(_mm256_srli_epi32(v, 4), c->m0f);
    u[0] = _mm256_shuffle_epi8(c->lut01, lo);
    u[1] = _mm256_shuffle_epi8(c->lut23, lo);
    u[2] = _mm256_shuffle_epi8(c->lut01, hi);
    u[3] = _mm256_shuffle_epi8(c->lut23, hi);
}

/* 4-byte int1 group half (8 rows x 4 k) -> codes {0, 2}. */
static inline __m256i int1_up(const consts *c, const uint8_t *g)
{
    int32_t d;
    memcpy(&d, g, 4);
    __m256i s = _mm256_shuffle_epi8(_mm256_set1_epi32(d), c->perm);
    __m256i neg = _mm256_cmpeq_epi8(_mm256_and_si256(s, c->bitsel), c->bitsel);
    return _mm256_blendv_epi8(c->two, _mm256_setzero_si256(), neg);
}

#endif
