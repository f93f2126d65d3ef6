/* vnni-avxvnni.c - VNNI_INT2 / VNNI_INT1 with AVX2 + AVX-VNNI (VEX vpdpbusd on
 * ymm), the ISA seed 003 §III targets on client CPUs.  A 64-byte int2 tile is
 * two ymm (rows 0-7, rows 8-15), each up-converted by the paper's 1 shift + 2 and
 * + 4 vpshufb; an int1 group half is the paper's vpbroadcastd / vpshufb / vpand /
 * vpcmpeqb / vpblendvb sequence, blending the unsigned codes {2, 0} instead of
 * {+1, -1} because vpdpbusd is unsigned x signed.  Layouts and the sign
 * correction: vnni.h. */
#include <immintrin.h>

#include "../common/mp_x86.h"
#include <string.h>

#include "vnni.h"
#include "../common/mp_numerics.h"
#include "vnni-ymm-up.h"

#define DOT(acc, u, a) _mm256_dpbusd_avx_epi32(acc, u, a)

/* ---- GEMV: one 16-row block (two ymm halves), one token --------------------- */

/* Register budget (16 ymm): 4 accumulators (two vpdpbusd each per tile, about
 * the tile's issue time) + 3 up-convert constants + the 4 activation broadcasts
 * shared by both halves + the tile, its nibbles and a code vector.  With 8
 * accumulators the compiler spills. */
static inline __attribute__((always_inline)) void
int2_gemv_block(const consts *c, const uint8_t *w, size_t nt, const int8_t *q, __m256i out[2],
                size_t pf, int pfh)
{
    __m256i acc[4];
    MP_UNROLL for (int i = 0; i < 4; i++)
        acc[i] = _mm256_setzero_si256();
    for (size_t j = 0; j < nt; j++) {
        const uint8_t *p = w + j * 64;
        if (pfh >= 0) {
            mp_x86_prefetch(p + pf, pfh);
            _mm_prefetch((const char *)p + PF_NEAR_BYTES, _MM_HINT_T0);
        }
        const int8_t *qj = q + j * 16;
        MP_UNROLL for (int h = 0; h < 2; h++) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(p + 32 * h));
            __m256i lo = _mm256_and_si256(v, c->m0f);
            __m256i hi = _mm256_and_si256(_mm256_srli_epi32(v, 4), c->m0f);
            acc[2 * h + 0] = DOT(acc[2 * h + 0], _mm256_shuffle_epi8(c->lut01, lo), bcast4(qj));
            acc[2 * h + 1] = DOT(acc[2 * h + 1], _mm256_shuffle_epi8(c->lut23, lo), bcast4(qj + 4));
            acc[2 * h + 0] = DOT(acc[2 * h + 0], _mm256_shuffle_epi8(c->lut01, hi), bcast4(qj + 8));
            acc[2 * h + 1] = DOT(acc[2 * h + 1], _mm256_shuffle_epi8(c->lut23, hi), bcast4(qj + 12));
        }
    }
    MP_UNROLL for (int h = 0; h < 2; h++)
        out[h] = _mm256_add_epi32(acc[2 * h], acc[2 * h + 1]);
}

/* 4 accumulators: the up-convert (5 operations per vpdpbusd) is longer than the
 * vpdpbusd latency, and 4 constants + temporaries must fit beside them. */
static inline __attribute__((always_inline)) void
int1_gemv_block(const consts *c, const uint8_t *w, size_t nt, const int8_t *q, __m256i out[2],
                size_t pf, int pfh)
{
    __m256i acc[4];
    MP_UNROLL for (int i = 0; i < 4; i++)
        acc[i] = _mm256_setzero_si256();
    for (size_t j = 0; j < nt; j++) {
        const uint8_t *p = w + j * 32;
        if (pfh >= 0 && !(j & 1)) {
            mp_x86_prefetch(p + pf, pfh);
            _mm_prefetch((const char *)p + PF_NEAR_BYTES, _MM_HINT_T0);
        }
        const int8_t *qj = q + j * 16;
        MP_UNROLL for (int g = 0; g < 4; g++)
            MP_UNROLL for (int h = 0; h < 2; h++)
                acc[2 * h + (g & 1)] = DOT(acc[2 * h + (g & 1)], int1_up(c, p + 8 * g + 4 * h),
                                           bcast4(qj + 4 * g));
    }
    MP_UNROLL for (int h = 0; h < 2; h++)
        out[h] = _mm256_add_epi32(acc[2 * h], acc[2 * h + 1]);
}


/* ---- GEMM: unpack a bm x bk block once, reuse it for every token -------------
 * Scratch as in vnni-avx512vnni.c: code vector (k step s, 16-row sub-block i) at
 * (s * mr + i) * 64 (two ymm: rows 0-7, 8-15), then the int32 partial sums. */


static inline __attribute__((always_inline)) void ukernel(const int MR, const int NR,
                                                          const uint8_t *wb, int nsteps,
                                                          const int8_t *const *qt, int32_t *cs,
                                                          int bm, int first)
{
    /* MR counts ymm here: 2 per 16-row sub-block */
    __m256i acc[8][6];
    MP_UNROLL for (int i = 0; i < MR; i++)
        MP_UNROLL for (int t = 0; t < NR; t++)
            acc[i][t] = first ? _mm256_setzero_si256()
                              : _mm256_load_si256((const __m256i *)(cs + t * bm + 8 * i));
    for (int s = 0; s < nsteps; s++) {
        __m256i wv[8];
        MP_UNROLL for (int i = 0; i < MR; i++)
            wv[i] = _mm256_load_si256((const __m256i *)(wb + (size_t)s * MR * 32 + 32 * i));
        MP_UNROLL for (int t = 0; t < NR; t++) {
            __m256i a = bcast4(qt[t] + 4 * s);
            MP_UNROLL for (int i = 0; i < MR; i++)
                acc[i][t] = DOT(acc[i][t], wv[i], a);
        }
    }
    MP_UNROLL for (int i = 0; i < MR; i++)
        MP_UNROLL for (int t = 0; t < NR; t++)
            _mm256_store_si256((__m256i *)(cs + t * bm + 8 * i), acc[i][t]);
}

/* this file's compute slots (the catalog rows name them) */
#define MP_VNNI_YMM_INT2 mp_vnni_int2_gemm__avxvnni
#define MP_VNNI_YMM_INT1 mp_vnni_int1_gemm__avxvnni
#include "vnni-ymm-gemm.h"
