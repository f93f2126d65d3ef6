/* vnni-ymm-gemm.h - the GEMM driver shared by the two ymm paths, vnni-avx2.c and
 * vnni-avxvnni.c (included by each after its micro-kernels): micro-kernel table,
 * up-convert of a weight block into scratch, the bm x bn blocking,
 * dequantisation, the GEMV loop and the GEMV/GEMM dispatch.  The including
 * file defines make_consts, int2_up, int1_up, int2_gemv_block, int1_gemv_block
 * and ukernel (where the two ISAs differ: vpdpbusd or vpmaddubsw) and
 * MP_VNNI_YMM_INT2, MP_VNNI_YMM_INT1, its entry points' names. */
#if !defined(MP_VNNI_YMM_INT2) || !defined(MP_VNNI_YMM_INT1)
#error "define MP_VNNI_YMM_INT2 and MP_VNNI_YMM_INT1 before including vnni-ymm-gemm.h"
#endif

/* GEMV: each 16-row block's dot products over all k tiles (the includer's
 * int2_gemv_block / int1_gemv_block: two ymm of 8 int32 row sums, prefetching
 * pf bytes ahead with hint pfh, -1: none), then dequantised per token. */
static void gemv(const mp_op *op, const void *act, int n, float *y, int m0, int m1, int int1)
{
    const consts c = make_consts();
    const int k = op->k;
    const size_t pf = (size_t)mp_op_param(op, "pf", PF_BYTES);
    const int pfh = pf ? mp_op_param(op, "pfh", MP_PFH_T1) : -1;
    const size_t nt = ((size_t)k + 15) / 16;
    const size_t blk = nt * (int1 ? MP_VNNI_INT1_TILE_BYTES : MP_VNNI_INT2_TILE_BYTES);
    int32_t s[16];
    for (int r = m0; r < m1; r += 16) {
        const uint8_t *w = op->w + (size_t)(r / 16) * blk;
        int rows = m1 - r < 16 ? m1 - r : 16;
        for (int t = 0; t < n; t++) {
            const int8_t *q = mp_q8act_q(act, k, t);
            __m256i o[2];
#define GEMV_BLOCK(H)                                 \
    do {                                              \
        if (int1)                                     \
            int1_gemv_block(&c, w, nt, q, o, pf, H);  \
        else                                          \
            int2_gemv_block(&c, w, nt, q, o, pf, H);  \
    } while (0)
            MP_X86_PFH_DISPATCH(pfh, GEMV_BLOCK);
#undef GEMV_BLOCK
            _mm256_storeu_si256((__m256i *)s, o[0]);
            _mm256_storeu_si256((__m256i *)(s + 8), o[1]);
            const mp_q8hdr *h = mp_q8act_hdr(act, k, t);
            mp_x86_dequant_row(y + (size_t)t * op->m + r, s, rows, h->qsum, op->w_scale,
                               h->x_scale);
        }
    }
}

typedef void (*ukernel_fn)(const uint8_t *, int, const int8_t *const *, int32_t *, int, int);

#define UK(MR, NR)                                                                       \
    static void uk_##MR##_##NR(const uint8_t *wb, int ns, const int8_t *const *qt,      \
                               int32_t *cs, int bm, int first)                           \
    {                                                                                    \
        ukernel(2 * MR, NR, wb, ns, qt, cs, bm, first);                                  \
    }
UK(1, 1) UK(1, 2) UK(1, 3) UK(1, 4) UK(1, 5) UK(1, 6)
UK(2, 1) UK(2, 2) UK(2, 3)
UK(3, 1) UK(3, 2)
UK(4, 1)
/* [mr - 1][nr - 1]; NULL where 2 mr x nr exceeds 12 accumulators (check_ymm) */
static const ukernel_fn uk_table[4][6] = {
    {uk_1_1, uk_1_2, uk_1_3, uk_1_4, uk_1_5, uk_1_6},
    {uk_2_1, uk_2_2, uk_2_3},
    {uk_3_1, uk_3_2},
    {uk_4_1},
};

/* one 16 x 16 tile, in two 128-bit halves per group */
static inline __attribute__((always_inline)) void up_tile(const consts *c, const uint8_t *src,
                                                          uint8_t *dst, int mr, int int1)
{
    MP_UNROLL for (int h = 0; h < 2; h++) {
        if (int1) {
            MP_UNROLL for (int g = 0; g < 4; g++)
                _mm256_store_si256((__m256i *)(dst + (size_t)g * mr * 64 + 32 * h),
                                   int1_up(c, src + 8 * g + 4 * h));
        } else {
            __m256i u[4];
            int2_up(c, _mm256_loadu_si256((const __m256i *)(src + 32 * h)), u);
            MP_UNROLL for (int g = 0; g < 4; g++)
                _mm256_store_si256((__m256i *)(dst + (size_t)g * mr * 64 + 32 * h), u[g]);
        }
    }
}

#include "vnni-gemm.h"

void MP_VNNI_YMM_INT2(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                             void *scratch)
{
    if (n >= op->param[MP_VNNI_P_GEMV])
        gemm(op, act, n, y, m0, m1, scratch, 0);
    else
        gemv(op, act, n, y, m0, m1, 0);
}

void MP_VNNI_YMM_INT1(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                             void *scratch)
{
    if (n >= op->param[MP_VNNI_P_GEMV])
        gemm(op, act, n, y, m0, m1, scratch, 1);
    else
        gemv(op, act, n, y, m0, m1, 1);
}
