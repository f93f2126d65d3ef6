/* vnni-avx512vnni.c - VNNI_INT2 / VNNI_INT1 with AVX-512BW + AVX512-VNNI
 * (vpdpbusd on zmm), seed 003 §III-B..D.  One zmm covers a whole 16-row tile
 * group: the int2 up-convert is the paper's 1 shift + 2 and + 4 vpshufb per 64
 * bytes (the lookup tables map the 2-bit fields to the unsigned codes w + 1
 * that vpdpbusd needs, where the paper's vpdpbssd would take w itself) in the
 * GEMM's unpack, while the GEMV skips the shuffles (4 and per 64 bytes, the
 * codes left in place times 4^p, see int2_gemv_block); the
 * int1 one is (seq=0) broadcast + vpshufb + vptestnmb (the paper's and + compare
 * in one instruction, giving the mask of the +1 weights) + a masked move of 2s
 * (the blend), or (seq=1) the 64-bit group loaded straight into a mask register,
 * which AVX-512 allows and AVX2 does not: 2 instructions per 64 weights instead
 * of 4.  Layouts, sign handling and the two compute paths: vnni.h. */
#include <immintrin.h>

#include "../common/mp_x86.h"
#include <math.h>
#include <string.h>

#include "vnni.h"
#include "vnni-prep.h"
#include "../common/mp_numerics.h"


/* Software prefetch along the weight stream at two distances: into L2 (T1, the
 * default of the row's "pfh") PF_BYTES ahead (its "pf"), then into L1 (T0)
 * PF_NEAR_BYTES ahead, so the loads find their lines in L1 (both off at pf =
 * 0).  With the far prefetch alone a load waits on the L2, and this loop's ~12
 * instructions per 64-byte line leave the core too short a window to hide
 * that.  Xeon VM (model 207), the GEMV loop with its
 * 16-row blocks against a read loop over the same bytes, 2 threads, rotating
 * 1 GiB of copies, interleaved (the session note of issue 17): T1 at 8 KB
 * alone 0.83-0.90 of the read, with T0 at 2-4 KB 0.91-0.97; T0 alone
 * 0.70-0.75, none 0.53. */
enum { PF_BYTES = 8192 /* where the row has no "pf" (every row has) */, PF_NEAR_BYTES = 2048 };

static inline __m512i bcast4(const int8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return _mm512_set1_epi32(v);
}

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Constants of both up-converts, built once per call. */
typedef struct consts {
    __m512i m0f, lut01, lut23; /* int2 */
    __m512i perm, bitsel, two; /* int1 */
} consts;

static inline consts make_consts(void)
{
    consts c;
    c.m0f = _mm512_set1_epi8(0x0f);
    /* vpshufb index i (low nibble): lut01 -> bits 0-1 of i, lut23 -> bits 2-3 */
    c.lut01 = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3));
    c.lut23 = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3));
    /* operand byte g takes its bit from byte g / 8 of the broadcast group; every
     * 128-bit lane holds the group's 8 bytes at indices 0-7 (and again at 8-15),
     * so the in-lane vpshufb index is simply g / 8 */
    uint8_t perm[64], sel[64];
    for (int g = 0; g < 64; g++) {
        perm[g] = (uint8_t)(g / 8);
        sel[g] = (uint8_t)(1u << (g % 8));
    }
    c.perm = _mm512_loadu_si512(perm);
    c.bitsel = _mm512_loadu_si512(sel);
    c.two = _mm512_set1_epi8(2);
    return c;
}

/* 64-byte int2 tile -> codes of k 0..3, 4..7, 8..11, 12..15 (VNNI4, 16 rows). */
static inline void int2_up(const consts *c, __m512i v, __m512i u[4])
{
    __m512i lo = _mm512_and_si512(v, c->m0f);
    __m512i hi = _mm512_and_si512(_mm512_srli_epi32(v, 4), c->m0f);
    u[0] = _mm512_shuffle_epi8(c->lut01, lo);
    u[1] = _mm512_shuffle_epi8(c->lut23, lo);
    u[2] = _mm512_shuffle_epi8(c->lut01, hi);
    u[3] = _mm512_shuffle_epi8(c->lut23, hi);
}

/* 8-byte int1 group -> codes {0, 2} (w + 1) of 16 rows x 4 k: broadcast,
 * vpshufb, vptestnmb (the paper's and + compare, giving the mask of the +1
 * weights), then the masked move of 2s as the blend. */
static inline __m512i int1_up(const consts *c, const uint8_t *g)
{
    __mmask64 pos = _mm512_testn_epi8_mask(
        _mm512_shuffle_epi8(_mm512_set1_epi64((long long)load64(g)), c->perm), c->bitsel);
    return _mm512_maskz_mov_epi8(pos, c->two);
}

/* seq=1: the group IS the mask of the -1 weights; one masked move gives the
 * codes 2 [w = -1], and the block's sum is then qsum - acc instead of
 * acc - qsum (sum w q = sum q - 2 sum_{w=-1} q), which saves a mask inversion. */
static inline __m512i int1_up_neg(const consts *c, const uint8_t *g)
{
    return _mm512_maskz_mov_epi8(_cvtu64_mask64(load64(g)), c->two);
}

static inline __m512i int1_up_seq(const consts *c, const uint8_t *g, int seq)
{
    return seq ? int1_up_neg(c, g) : int1_up(c, g);
}

/* ---- GEMV: one 16-row block, one token; the tiles are one contiguous run ---- */

/* GEMV int2 without shuffles: "and" with 0x03 << 2p keeps pair p of every byte
 * in place, i.e. the VNNI4 codes of k = 4p .. 4p + 3 times 4^p (codes <= 2, so
 * operands <= 128 stay unsigned bytes).  Four and + four vpdpbusd per 64-byte
 * tile instead of a shift, two and, four vpshufb and four vpdpbusd: the shuffles
 * competed with vpdpbusd for the same vector pipes and held the GEMV to half the
 * int8 dot-product peak.  Each accumulator then holds 4^p times its exact sum;
 * an arithmetic shift right by 2p gives it back exactly (a multiple of 4^p).
 * Per vpdpbusd a lane grows by at most 4 * 128 * 128 = 2^16, so a chunk of
 * CHUNK_TILES tiles (2^12 per accumulator) stays far inside int32 before it is
 * folded into the block's sum. */
enum { CHUNK_TILES = 8192, STEP = 2 };

/* Steps [j, j1) of a block, the step body of int2_gemv_block: PF = 2 with both
 * prefetches (the far one pf ahead with hint pfh, a constant), 1 with the near
 * one only, 0 with none. */
#define INT2_STEPS(PF)                                                                     \
    for (; j + STEP <= j1; j += STEP) {                                                    \
        const uint8_t *p = w + j * 64;                                                     \
        MP_UNROLL for (int t = 0; PF && t < STEP; t++) {                                   \
            if (PF == 2)                                                                   \
                mp_x86_prefetch(p + pf + 64 * t, pfh);                                     \
            _mm_prefetch((const char *)p + PF_NEAR_BYTES + 64 * t, _MM_HINT_T0);           \
        }                                                                                  \
        const int8_t *qj = q + j * 16;                                                     \
        MP_UNROLL for (int t = 0; t < STEP; t++) {                                         \
            __m512i v = _mm512_loadu_si512(p + 64 * t);                                    \
            acc[4 * t + 0] = mp_x86_dpbusd_bcast(acc[4 * t + 0], _mm512_and_si512(v, m0), qj + 16 * t); \
            acc[4 * t + 1] = mp_x86_dpbusd_bcast(acc[4 * t + 1], _mm512_and_si512(v, m1), qj + 16 * t + 4); \
            acc[4 * t + 2] = mp_x86_dpbusd_bcast(acc[4 * t + 2], _mm512_and_si512(v, m2), qj + 16 * t + 8); \
            acc[4 * t + 3] = mp_x86_dpbusd_bcast(acc[4 * t + 3], _mm512_and_si512(v, m3), qj + 16 * t + 12); \
        }                                                                                  \
    }

static inline __attribute__((always_inline)) __m512i int2_gemv_block(const consts *c, const uint8_t *w, size_t nt,
                                      const int8_t *q, size_t far_tiles, size_t near_tiles,
                                      size_t pf, int pfh)
{
    (void)c;
    const __m512i m0 = _mm512_set1_epi8(0x03), m1 = _mm512_set1_epi8(0x0c),
                  m2 = _mm512_set1_epi8(0x30), m3 = _mm512_set1_epi8((char)0xc0);
    __m512i sum = _mm512_setzero_si512();
    for (size_t j0 = 0; j0 < nt; j0 += CHUNK_TILES) {
        size_t j1 = nt - j0 < CHUNK_TILES ? nt : j0 + CHUNK_TILES;
        /* STEP tiles per step, 4 * STEP independent accumulators (2 measured
         * faster than 4 on Zen 5: 59.5 against 53.8 GB/s in L2) */
        __m512i acc[4 * STEP];
        MP_UNROLL for (int i = 0; i < 4 * STEP; i++)
            acc[i] = _mm512_setzero_si512();
        size_t j = j0;
        {
            /* the steps whose prefetches stay inside the stream: both, then
             * the near one only, then none */
            const size_t j1_all = j1;
            j1 = far_tiles < j1_all ? (far_tiles > j ? far_tiles : j) : j1_all;
            INT2_STEPS(2)
            j1 = near_tiles < j1_all ? (near_tiles > j ? near_tiles : j) : j1_all;
            INT2_STEPS(1)
            j1 = j1_all;
            INT2_STEPS(0)
        }
        for (; j < j1; j++) {
            const int8_t *qj = q + j * 16;
            __m512i v = _mm512_loadu_si512(w + j * 64);
            acc[0] = mp_x86_dpbusd_bcast(acc[0], _mm512_and_si512(v, m0), qj);
            acc[1] = mp_x86_dpbusd_bcast(acc[1], _mm512_and_si512(v, m1), qj + 4);
            acc[2] = mp_x86_dpbusd_bcast(acc[2], _mm512_and_si512(v, m2), qj + 8);
            acc[3] = mp_x86_dpbusd_bcast(acc[3], _mm512_and_si512(v, m3), qj + 12);
        }
        __m512i a[4];
        MP_UNROLL for (int s = 0; s < 4; s++) {
            a[s] = acc[s];
            MP_UNROLL for (int t = 1; t < STEP; t++)
                a[s] = _mm512_add_epi32(a[s], acc[4 * t + s]);
        }
        sum = _mm512_add_epi32(sum, _mm512_add_epi32(
                                        _mm512_add_epi32(a[0], _mm512_srai_epi32(a[1], 2)),
                                        _mm512_add_epi32(_mm512_srai_epi32(a[2], 4),
                                                         _mm512_srai_epi32(a[3], 6))));
    }
    return sum;
}

static inline __attribute__((always_inline)) __m512i int1_gemv_block(const consts *c, const uint8_t *w, size_t nt,
                                      const int8_t *q, int seq, size_t pf, int pfh)
{
    __m512i acc[8];
    MP_UNROLL for (int i = 0; i < 8; i++)
        acc[i] = _mm512_setzero_si512();
    size_t j = 0;
    for (; j + 2 <= nt; j += 2) {
        const uint8_t *p = w + j * 32;
        if (pfh >= 0) {
            mp_x86_prefetch(p + pf, pfh);
            _mm_prefetch((const char *)p + PF_NEAR_BYTES, _MM_HINT_T0);
        }
        const int8_t *qj = q + j * 16;
        MP_UNROLL for (int g = 0; g < 8; g++)
            acc[g] = mp_x86_dpbusd_bcast(acc[g], int1_up_seq(c, p + 8 * g, seq), qj + 4 * g);
    }
    if (j < nt)
        MP_UNROLL for (int g = 0; g < 4; g++)
            acc[g] = mp_x86_dpbusd_bcast(acc[g], int1_up_seq(c, w + j * 32 + 8 * g, seq),
                                         q + j * 16 + 4 * g);
    __m512i a = _mm512_add_epi32(_mm512_add_epi32(acc[0], acc[1]), _mm512_add_epi32(acc[2], acc[3]));
    __m512i b = _mm512_add_epi32(_mm512_add_epi32(acc[4], acc[5]), _mm512_add_epi32(acc[6], acc[7]));
    return _mm512_add_epi32(a, b);
}

/* neg: sums hold sum 2 [w = -1] q (int1_up_neg), so the result is qsum - sum.
 * mp_dequant on all 16 lanes at once: convert, divide, multiply are each
 * correctly rounded per lane, so the bits are the scalar helper's.  One row at
 * a time, the 16 scalar divisions per block held 1.4% of the GEMV's samples
 * (perf, cpu-clock, 4096x4096). */
static inline __attribute__((always_inline)) void store_rows(const mp_op *op, const void *act, int t,
                                                             __m512i sums, float *y, int r, int rows,
                                                             int neg)
{
    const mp_q8hdr *h = mp_q8act_hdr(act, op->k, t);
    const __m512i qs = _mm512_set1_epi32(h->qsum);
    const __m512i acc = neg ? _mm512_sub_epi32(qs, sums) : _mm512_sub_epi32(sums, qs);
    const __m512 v = _mm512_mul_ps(_mm512_div_ps(_mm512_cvtepi32_ps(acc), _mm512_set1_ps(h->x_scale)),
                                   _mm512_set1_ps(op->w_scale));
    _mm512_mask_storeu_ps(y + (size_t)t * op->m + r, (__mmask16)((1u << rows) - 1), v);
}

static void gemv(const mp_op *op, const void *act, int n, float *y, int m0, int m1, int int1)
{
    const consts c = make_consts();
    const int k = op->k, seq = op->param[MP_VNNI_P_SEQ];
    /* the far prefetch's distance and hint (-1: no prefetch), a constant in
     * each copy of the block loops (MP_X86_PFH_DISPATCH) */
    const size_t pf = (size_t)mp_op_param(op, "pf", PF_BYTES);
    const int pfh = pf ? mp_op_param(op, "pfh", MP_PFH_T1) : -1;
    const size_t nt = ((size_t)k + 15) / 16;
    const size_t blk = nt * (int1 ? MP_VNNI_INT1_TILE_BYTES : MP_VNNI_INT2_TILE_BYTES);
    /* the thread's stream ends with its last block: no prefetch reaches past
     * it (there lie the next thread's rows, already read, or the trailer and
     * whatever follows the tensor) */
    const uint8_t *end = op->w + (size_t)((m1 + 15) / 16) * blk;
    for (int r = m0; r < m1; r += 16) {
        const uint8_t *w = op->w + (size_t)(r / 16) * blk;
        int rows = m1 - r < 16 ? m1 - r : 16;
        const size_t far_tiles = pf ? mp_vnni_pf_end((size_t)(end - w), pf) : 0;
        const size_t near_tiles = pf ? mp_vnni_pf_end((size_t)(end - w), PF_NEAR_BYTES) : 0;
        for (int t = 0; t < n; t++) {
            const int8_t *q = mp_q8act_q(act, k, t);
            /* constant seq and hint: neither is tested per group */
            __m512i s;
#define GEMV_BLOCK(H)                                                             \
    do {                                                                          \
        s = !int1 ? int2_gemv_block(&c, w, nt, q, far_tiles, near_tiles, pf, H)   \
            : seq ? int1_gemv_block(&c, w, nt, q, 1, pf, H)                       \
                  : int1_gemv_block(&c, w, nt, q, 0, pf, H);                      \
    } while (0)
            MP_X86_PFH_DISPATCH(pfh, GEMV_BLOCK);
#undef GEMV_BLOCK
            store_rows(op, act, t, s, y, r, rows, int1 && seq);
        }
    }
}

/* ---- GEMM: unpack an mtile x ktile block (bm x bk below) once, reuse it for every token -------------
 * Scratch: wb = the block as VNNI4 code vectors, vector (k step s, 16-row
 * sub-block i) at (s * mr + i) * 64; then cs = int32 partial sums, token t's
 * row i at t * bm + i, carried across the K blocks. */


static inline __attribute__((always_inline)) void ukernel(const int MR, const int NR,
                                                          const uint8_t *wb, int nsteps,
                                                          const int8_t *const *qt, int32_t *cs,
                                                          int bm, int first)
{
    __m512i acc[4][14];
    MP_UNROLL for (int i = 0; i < MR; i++)
        MP_UNROLL for (int t = 0; t < NR; t++)
            acc[i][t] = first ? _mm512_setzero_si512() : _mm512_load_si512(cs + t * bm + 16 * i);
    for (int s = 0; s < nsteps; s++) {
        __m512i wv[4];
        MP_UNROLL for (int i = 0; i < MR; i++)
            wv[i] = _mm512_load_si512(wb + ((size_t)s * MR + i) * 64);
        MP_UNROLL for (int t = 0; t < NR; t++) {
            __m512i a = bcast4(qt[t] + 4 * s);
            MP_UNROLL for (int i = 0; i < MR; i++)
                acc[i][t] = _mm512_dpbusd_epi32(acc[i][t], wv[i], a);
        }
    }
    MP_UNROLL for (int i = 0; i < MR; i++)
        MP_UNROLL for (int t = 0; t < NR; t++)
            _mm512_store_si512(cs + t * bm + 16 * i, acc[i][t]);
}

typedef void (*ukernel_fn)(const uint8_t *, int, const int8_t *const *, int32_t *, int, int);

#define UK(MR, NR)                                                                       \
    static void uk_##MR##_##NR(const uint8_t *wb, int ns, const int8_t *const *qt,      \
                               int32_t *cs, int bm, int first)                           \
    {                                                                                    \
        ukernel(MR, NR, wb, ns, qt, cs, bm, first);                                      \
    }
#define UK_ROW(MR) UK(MR, 1) UK(MR, 2) UK(MR, 3) UK(MR, 4) UK(MR, 5) UK(MR, 6) UK(MR, 7)
UK_ROW(1) UK_ROW(2) UK_ROW(3) UK_ROW(4)
UK(1, 8) UK(1, 9) UK(1, 10) UK(1, 11) UK(1, 12) UK(1, 13) UK(1, 14)
UK(2, 8) UK(2, 9) UK(2, 10) UK(2, 11) UK(2, 12) UK(2, 13) UK(2, 14)
UK(3, 8) UK(3, 9)
#define UKP_ROW(MR) uk_##MR##_1, uk_##MR##_2, uk_##MR##_3, uk_##MR##_4, uk_##MR##_5, uk_##MR##_6, uk_##MR##_7
/* [mr - 1][nr - 1]; NULL where mr x nr exceeds the registers (check_zmm) */
static const ukernel_fn uk_table[4][14] = {
    {UKP_ROW(1), uk_1_8, uk_1_9, uk_1_10, uk_1_11, uk_1_12, uk_1_13, uk_1_14},
    {UKP_ROW(2), uk_2_8, uk_2_9, uk_2_10, uk_2_11, uk_2_12, uk_2_13, uk_2_14},
    {UKP_ROW(3), uk_3_8, uk_3_9},
    {UKP_ROW(4)},
};

static inline __attribute__((always_inline)) void up_tile(const consts *c, const uint8_t *src,
                                                          uint8_t *dst, int mr, int int1)
{
    if (int1) {
        MP_UNROLL for (int g = 0; g < 4; g++)
            _mm512_store_si512(dst + (size_t)g * mr * 64, int1_up(c, src + 8 * g));
    } else {
        __m512i u[4];
        int2_up(c, _mm512_loadu_si512(src), u);
        MP_UNROLL for (int g = 0; g < 4; g++)
            _mm512_store_si512(dst + (size_t)g * mr * 64, u[g]);
    }
}

#include "vnni-gemm.h"

/* GEMV below gemm_n tokens, the unpack-once GEMM from there on */
static void gemm_or_gemv(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                         void *scratch, int int1)
{
    if (n >= op->param[MP_VNNI_P_GEMV])
        gemm(op, act, n, y, m0, m1, scratch, int1);
    else
        gemv(op, act, n, y, m0, m1, int1);
}

MP_VNNI_ENTRY(mp_vnni_int2_gemm__avx512vnni, gemm_or_gemv, 0)
MP_VNNI_ENTRY(mp_vnni_int1_gemm__avx512vnni, gemm_or_gemv, 1)

/* ---- prepare: mp_q8act_fill with AVX-512, bit for bit ----------------------------
 * As mp_vnni_prepare__avx2 (vnni-avx2.c) on 16 lanes: the absmax as the max of
 * |x| with the NaN-skipping operand order, the same float scale and product,
 * the clamp, then vcvtps2dq (to nearest even) and vpmovsdb (the values are
 * already in [-127, 127]) straight to 16 bytes - no packing or lane permute.
 * The GEMV's only serial step: at 2 threads on 640x2560 it was 3-7% of the
 * call (issue 17's session note). */
void mp_vnni_prepare__avx512vnni(const mp_op *op, const float *x, int n, void *act, int t0,
                                 int t1)
{
    (void)n;
    const int k = op->k;
    const size_t stride = mp_q8act_stride(k);
    const __m512 absmask = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff));
    const __m512 hi = _mm512_set1_ps(127.0f), lo = _mm512_set1_ps(-127.0f);
    /* the packs leave 128-bit lane x holding dword p of v[p]'s lane x: dword
     * 4p + x of the output comes from dword 4x + p */
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    for (int t = t0; t < t1; t++) {
        const float *xt = x + (size_t)t * k;
        uint8_t *base = (uint8_t *)act + (size_t)t * stride;
        int8_t *q = (int8_t *)(base + 64);
        mp_q8hdr *h = (mp_q8hdr *)base;
        __m512 m4[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(),
                        _mm512_setzero_ps()};
        int i = 0;
        for (; i + 64 <= k; i += 64)
            MP_UNROLL for (int j = 0; j < 4; j++)
                m4[j] = _mm512_max_ps(_mm512_and_ps(_mm512_loadu_ps(xt + i + 16 * j), absmask), m4[j]);
        __m512 mx = _mm512_max_ps(_mm512_max_ps(m4[0], m4[1]), _mm512_max_ps(m4[2], m4[3]));
        for (; i + 16 <= k; i += 16)
            mx = _mm512_max_ps(_mm512_and_ps(_mm512_loadu_ps(xt + i), absmask), mx);
        float lanes[16];
        _mm512_storeu_ps(lanes, mx);
        const float scale = 127.0f / mp_vnni_prep_absmax(lanes, 16, xt, i, k);
        const __m512 vs = _mm512_set1_ps(scale);
        __m512i sum = _mm512_setzero_si512();
        i = 0;
        for (; i + 64 <= k; i += 64) {
            __m512i v[4];
            MP_UNROLL for (int j = 0; j < 4; j++) {
                __m512 f = _mm512_mul_ps(_mm512_loadu_ps(xt + i + 16 * j), vs);
                v[j] = _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(f, lo), hi));
                sum = _mm512_add_epi32(sum, v[j]);
            }
            __m512i b = _mm512_packs_epi16(_mm512_packs_epi32(v[0], v[1]),
                                           _mm512_packs_epi32(v[2], v[3]));
            _mm512_storeu_si512(q + i, _mm512_permutexvar_epi32(order, b));
        }
        for (; i + 16 <= k; i += 16) {
            __m512 f = _mm512_mul_ps(_mm512_loadu_ps(xt + i), vs);
            __m512i v = _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(f, lo), hi));
            sum = _mm512_add_epi32(sum, v);
            _mm_storeu_si128((__m128i *)(q + i), _mm512_cvtsepi32_epi8(v));
        }
        int32_t s = _mm512_reduce_add_epi32(sum); /* integers: any order */
        mp_vnni_prep_finish(xt, i, k, scale, s, q, h, stride);
    }
}
