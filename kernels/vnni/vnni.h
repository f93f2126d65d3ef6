/* vnni.h - VNNI_INT2 and VNNI_INT1: the "up-convert and compute" kernels of
 * seed 003 §III (Pushing the Envelope of LLM Inference on AI-PC), with the
 * roofline hook of §III-E.
 *
 * Both formats store 16-row x 16-k tiles; the tiles of one 16-row block follow
 * each other along K, and the blocks follow each other along M, so a thread that
 * owns rows [m0, m1) reads ONE contiguous byte stream (the hardware prefetcher
 * and a software prefetch along it keep a GEMV at the memory roofline).  M is
 * padded to a multiple of 16 and K to a multiple of 16 (padding weights are 0
 * for int2, +1 for int1; the activation padding of mp_q8act is 0, so padding
 * never changes a sum).  After the tiles comes a 64-byte trailer whose first 4
 * bytes are the float tensor scale (it counts in bpw, like I2_S's).
 *
 * VNNI_INT2 tile (64 bytes; seed 003 §III-B "VNNI4-interleaved"): 32-bit word r
 * (r = 0..15) holds row r's 16 weights of the tile as 2-bit codes c = w + 1.  The
 * field at bits 8b + 2p .. 8b + 2p + 1 of the word (byte b, pair p) holds k = 4p + b:
 * the four pairs p = 0..3 of one byte are the k that share k mod 4 = b.  So
 * "and 0x0f" + byte shuffle with lut01 (index bits 0-1) gives the VNNI4 int8
 * vector of k 0..3 (every 32-bit lane = one row's 4 consecutive k, the operand
 * layout of vpdpbusd), lut23 (index bits 2-3) gives k 4..7, and the same two
 * shuffles on the word shifted right by 4 give k 8..11 and 12..15: 1 shift +
 * 2 and + 4 shuffles per 128 weights, as in the paper.  Bytes 0-31 of a tile are
 * rows 0-7 (one ymm for the AVX2/AVX-VNNI paths), bytes 32-63 rows 8-15.
 *
 * VNNI_INT1 tile (32 bytes; seed 003 §III-D, conventional VNNI4 bit layout):
 * four 8-byte groups g = 0..3 (k = 4g .. 4g + 3); bit i of group g (byte i / 8,
 * bit i % 8, i = 0..63) is row i / 4, k = 4g + i % 4, set when the weight is -1
 * (the paper's encoding: 0 -> +1, 1 -> -1).  Bit i is the operand byte i of a
 * 64-byte VNNI4 vector, so the up-convert is broadcast / byte shuffle (byte i <-
 * byte i / 8) / and with 1 << (i % 8) / compare / blend; on AVX-512 the and +
 * compare is one vptestnmb, and the group can also be loaded straight into a
 * mask register (param seq=1).  Rows 0-7 of a group are its first 4 bytes (one
 * ymm dword broadcast), rows 8-15 the last 4.
 *
 * Sign: this CPU lacks vpdpbssd (signed x signed), so the kernels feed unsigned
 * codes u = w + 1 (int2: {0,1,2}; int1: {0,2}) and signed int8 activations q to
 * vpdpbusd and subtract the token's sum of q (mp_q8hdr.qsum, computed once per
 * token in prepare): sum(u q) - sum(q) = sum(w q) exactly.  |u q| <= 254, so
 * neither vpdpbusd (no saturation) nor the AVX2 maddubs fallback (int16 pairs
 * <= 508, four summed <= 2032) can overflow: lossless.
 *
 * Compute paths: N < gemv runs the GEMV (each tile unpacked in registers, used
 * once per token); N >= gemv runs the GEMM that unpacks each mtile x ktile
 * block once into per-thread scratch (L1) and reuses it for all N tokens with a
 * (mtile/16 vectors) x ntile register block of accumulators.
 */
#ifndef MP_VNNI_H
#define MP_VNNI_H

#include "../mp_kernel.h"

/* Runtime parameters (indices into mp_op.param), the same for every variant of
 * the family; none of them changes the packed layout.  Names as in README.md's
 * "Parameters" (mtile, ntile, ktile, gemv: the loop tiles and the GEMV/GEMM
 * switch, spelled as Vec-LUT spells them). */
enum {
    MP_VNNI_P_MTILE = 0, /* GEMM rows per unpacked block: 16, 32, 48 or 64 */
    MP_VNNI_P_NTILE = 1, /* GEMM tokens per register block */
    MP_VNNI_P_KTILE = 2, /* GEMM K per unpacked block (multiple of 16) */
    MP_VNNI_P_GEMV = 3,  /* N below which the GEMV runs (the GEMM from there on) */
    MP_VNNI_P_SEQ = 4,   /* int1 AVX-512 up-convert: 0 paper sequence, 1 mask load */
};

enum {
    MP_VNNI_TILE_ROWS = 16,
    MP_VNNI_TILE_K = 16,
    MP_VNNI_INT2_TILE_BYTES = 64,
    MP_VNNI_INT1_TILE_BYTES = 32,
    MP_VNNI_TRAILER = 64,
    MP_VNNI_MTILE_MAX = 64,
    MP_VNNI_KTILE_MAX = 512,
};

/* shared by all paths (vnni-scalar.c) */
size_t mp_vnni_int2_packed_size(int m, int k, const int *param);
size_t mp_vnni_int1_packed_size(int m, int k, const int *param);
void mp_vnni_int2_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                       uint8_t *out);
void mp_vnni_int1_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                       uint8_t *out);
void mp_vnni_int2_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w);
void mp_vnni_int1_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w);
size_t mp_vnni_act_size(int n, int k, const int *param);
void mp_vnni_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1);
/* The same bytes as mp_vnni_prepare (mp_q8act_fill), vectorized: AVX2
 * (vnni-avx2.c, the avx2 and avxvnni rows) and AVX-512 (vnni-avx512vnni.c). */
void mp_vnni_prepare__avx2(const mp_op *op, const float *x, int n, void *act, int t0, int t1);
void mp_vnni_prepare__avx512vnni(const mp_op *op, const float *x, int n, void *act, int t0,
                                 int t1);
size_t mp_vnni_scratch_size(int n, int k, const int *param);
/* Parameter checks: the register block (mtile/16) x ntile must fit the ISA's
 * vector registers (zmm: 28 accumulators, ymm: 12, 16 / 32-byte halves). */
int mp_vnni_check_zmm(int m, int k, const int *param, char *why, size_t len);
int mp_vnni_check_ymm(int m, int k, const int *param, char *why, size_t len);

/* compute slots: contract of mp_variant.compute; m0 multiple of 16 (m_align);
 * reads whole tiles (the padding is part of the packed tensor) and activations up
 * to K rounded up to 16 (inside mp_q8act's zeroed padding). */
MP_DECLARE_COMPUTE(mp_vnni_int2_gemm); /* __<isa>: one per kernel file vnni-<isa>.c */
MP_DECLARE_COMPUTE(mp_vnni_int1_gemm);

/* An entry point FN over a path's implementation IMPL(op, act, n, y, m0, m1,
 * scratch, int1); FN is spelled out where it is defined, so grep finds it. */
#define MP_VNNI_ENTRY(FN, IMPL, INT1)                                                     \
    void FN(const mp_op *op, const void *act, int n, float *y, int m0, int m1,          \
            void *scratch)                                                             \
    {                                                                                  \
        IMPL(op, act, n, y, m0, m1, scratch, INT1);                                    \
    }

/* The GEMVs prefetch `ahead` bytes along a thread's stream of 64-byte tiles.
 * Of a stream with `left` bytes from a block's start: the bound e such that a
 * loop step over tiles [j, j + step) prefetches inside the stream exactly when
 * j + step <= e (its last prefetch is at byte 64 (j + step) + ahead - 1).  Past
 * the end lie the next thread's rows, which that thread has read already, or
 * the tensor's trailer and whatever memory follows: the last thread's 8 KB of
 * prefetches there were DRAM traffic its own last loads waited behind
 * (Xeon VM, 2 threads, share of the same run's read, means of 6 alternations
 * in each of two runs: 640x2560 0.913 / 0.915 without the bound, 0.921 / 0.947
 * with it; 1024x4096 0.926 / 0.914 and 0.932 / 0.925; issue 17's note). */
static inline size_t mp_vnni_pf_end(size_t left, size_t ahead)
{
    return left >= ahead ? (left - ahead) / 64 : 0;
}

/* ---- roofline of seed 003 §III-E ------------------------------------------------
 * eq. 3: effective bandwidth per core = min(BW_core, B / C), with B the bytes of
 * packed weights read per output 256-bit vector of int32 (8 rows x 4 k): 8 for
 * int2, 4 for int1, and C the cycles of the up-convert-and-compute sequence per
 * such vector.  B / C (bytes per cycle) times the clock is measured directly by the harness (harness/engine/ceiling.c), in bytes per
 * second, so no clock frequency is needed: the model is min(BW_core, that). */

/* B of eq. 1-3 for a VNNI variant: 8 (int2), 4 (int1), 0 for other families. */
int mp_vnni_bytes_per_vector(const mp_variant *v);

/* eq. 3 itself: min(bw_core, upconvert) (both in bytes per second). */
static inline double mp_vnni_model_bw(double bw_core, double upconvert)
{
    return bw_core < upconvert ? bw_core : upconvert;
}

#endif
