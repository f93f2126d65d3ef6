/* vlut.h - Vec-LUT: vector table lookup for ternary mpGEMM (seed 001 §3-4).
 *
 * Two methods share this code: VLUT_I2 (groups of g = 4 trits, one byte per group,
 * index in [0, 81), 2.0 bpw) and VLUT_I1 (g = 5, index in [0, 243), 1.6 bpw, with
 * the mixed 4/5 packing of footnote 4 for K not divisible by 5).
 *
 * Index of a group (Fig. 5): the base-3 value of the trit codes (w + 1), the first
 * weight of the group being the most significant digit.  So index 23 (g = 4) is
 * digits 0,2,1,2 = weights -1,+1,0,+1.  The byte is the table row: no conversion.
 *
 * Groups.  I2: G = K/4 groups of 4.  I1: K = 5b + 4a with a in [0, 5) the smallest
 * such count; the b groups of 5 cover elements [0, 5b), then a groups of 4.
 *
 * Packed weights (tile-contiguous, §3.3).  The groups of g_main are cut into K
 * tiles of kt = K_tile/g groups (the last may be shorter); the a groups of 4 of I1
 * form one last tile.  Tile after tile (the K -> M loop order), each tile stores
 * M rows of its groups' bytes: tile with first group f and gt groups puts row r at
 * byte M*f + r*gt.  Then a 64-byte trailer holds the float tensor scale.
 *
 * Activations (act, built by prepare): per token {x_scale, qsum}; the int8 rows
 * (N x K, feature-contiguous, the tcl=0 and GEMV input); the token-contiguous
 * int16 copy (§3.3): per N tile of N_tile tokens, K rows of N_tile int16 (tokens
 * past N are 0).
 *
 * Tables (built in compute, in the per-thread scratch): per group a sub-table of
 * 3^g rows; with tcl=1 a row is N_tile int16 (1 -> N lookup), with tcl=0 each
 * token has its own 3^g int16 (scalar LUT).  Entries are signed sums of at most g
 * int8 values, |entry| <= 127 g, so int16 sums of up to B = floor(32767/(127 g))
 * entries (64 for g = 4, 51 for g = 5) cannot overflow (§3.4).
 *
 * Runtime parameters (indices into op->param), every technique switchable so
 * Fig. 11 is one command line:
 *   ktile   K_tile in weights, a multiple of g (default: the §4 L1 rule)
 *   ntile   N_tile in tokens, a multiple of 16 (int16 lanes of a 256-bit vector);
 *           for N <= 16 one 16-token tile is used (mp_vlut_ntile_eff)
 *   stream  1: streamed precompute-lookup per K tile; 0: whole table first
 *   topo    1: topological precompute (3^g ops); 0: each entry from scratch
 *   hier    1: int16 intra-block sums widened once per block; 0: every lookup
 *           widened to int32
 *   tcl     1: token-contiguous tables (1 -> N lookup); 0: per-token tables
 *   gemv    N below which compute switches to the GEMV path on the same packed
 *           weights (0 = never): each byte is decoded to its trits (multiply-high
 *           by 1/3) and multiplied with the activations; no table.  Measured
 *           break-even against the 16-token table path at 6912x2560 (CPU time):
 *           AVX-512 N = 4 (I2) and 6 (I1), AVX2 N = 3.  At N = 1 the GEMV costs
 *           about 3x I2_S (0.40 ms against 0.14 ms, AVX-512), the table path 10x.
 *
 * Accumulation (hier = 1, stream = 1): each row's lookups of one K tile are summed
 * in int16 registers; the sums of consecutive K tiles are added in an int16 array
 * (scratch) as long as the block holds at most B groups, then widened once into
 * the int32 array.  Rows go in blocks of MP_VLUT_MB so both arrays stay in L2.
 */
#ifndef MP_VLUT_H
#define MP_VLUT_H

#include "../mp_kernel.h"

enum {
    MP_VLUT_P_KTILE,
    MP_VLUT_P_NTILE,
    MP_VLUT_P_STREAM,
    MP_VLUT_P_TOPO,
    MP_VLUT_P_HIER,
    MP_VLUT_P_TCL,
    MP_VLUT_P_GEMV,
    MP_VLUT_NPARAMS,
};

enum {
    MP_VLUT_MB = 1024,     /* rows per block of int32 accumulators in scratch */
    MP_VLUT_KTILE_MAX = 64, /* GEMV keeps a tile's activations in two registers */
    MP_VLUT_B4 = 32767 / (127 * 4), /* §3.4 int16 block bound, g = 4: 64 groups */
    MP_VLUT_B5 = 32767 / (127 * 5), /* g = 5: 51 groups */
    MP_VLUT_L1D = 48 * 1024, /* this machine's L1d, for the default K_tile */
};

/* The §4 rules.  N_tile: the smallest multiple of the int16 SIMD width (lanes)
 * that is >= want.  K_tile: the largest multiple of g with
 * 3^g * ntile * (K_tile/g) * 2 bytes <= l1d_bytes (at least g). */
int mp_vlut_rule_ntile(int simd_lanes_i16, int want);
int mp_vlut_rule_ktile(int g, int ntile, long l1d_bytes);

/* The N tile actually used for n tokens: ntile, or for n <= 16 a single tile of
 * 16 (a padded 32-token tile would spend half its lookups on zeros). */
static inline int mp_vlut_ntile_eff(int n, const int *param)
{
    int nt = param[MP_VLUT_P_NTILE];
    return n <= 16 && nt > 16 ? 16 : nt;
}

/* Group geometry of a K for one method (g_main = 4 for I2, 5 for I1). */
typedef struct mp_vlut_geom {
    int gm;      /* g of the main groups */
    int nmain;   /* groups of gm */
    int ntail;   /* groups of 4 after them (I1 mixed packing), 0..4 */
    int groups;  /* nmain + ntail: bytes per row */
    int kt;      /* groups per K tile */
    int ntiles;  /* K tiles, the tail tile included */
} mp_vlut_geom;

/* 0 when K can be packed with g_main (writes geom), -1 otherwise. */
int mp_vlut_geom_init(mp_vlut_geom *gm, int g_main, int k, int ktile);
/* Tile i: first group, group count, g. */
static inline void mp_vlut_tile(const mp_vlut_geom *gm, int i, int *first, int *cnt, int *g)
{
    if (i * gm->kt < gm->nmain) {
        *first = i * gm->kt;
        *cnt = gm->nmain - *first < gm->kt ? gm->nmain - *first : gm->kt;
        *g = gm->gm;
    } else {
        *first = gm->nmain;
        *cnt = gm->ntail;
        *g = 4;
    }
}
/* Sub-tables the scratch holds: one K tile (the I1 tail tile of up to 4 groups
 * may be longer than a short K tile) or, stream = 0, all groups. */
static inline int mp_vlut_table_groups(const mp_vlut_geom *gm, int stream)
{
    if (!stream)
        return gm->groups;
    return gm->kt > gm->ntail ? gm->kt : gm->ntail;
}
/* First K element of group j. */
static inline int mp_vlut_group_k(const mp_vlut_geom *gm, int j)
{
    return j < gm->nmain ? j * gm->gm : gm->nmain * gm->gm + (j - gm->nmain) * 4;
}

/* Activation layout accessors (see the top comment). */
typedef struct mp_vlut_act {
    float *x_scale;   /* n */
    int32_t *qsum;    /* n */
    int8_t *q;        /* n x kp */
    int16_t *t16;     /* ceil(n/ntile) tiles of k x ntile */
    int kp;
} mp_vlut_act;
void mp_vlut_act_map(const void *act, int n, int k, const int *param, mp_vlut_act *a);

/* Variant slots, one set per method (2 = I2, 1 = I1). */
int mp_vlut_i2_check(int m, int k, const int *param, char *why, size_t len);
int mp_vlut_i1_check(int m, int k, const int *param, char *why, size_t len);
size_t mp_vlut_i2_packed_size(int m, int k, const int *param);
size_t mp_vlut_i1_packed_size(int m, int k, const int *param);
void mp_vlut_i2_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                     uint8_t *out);
void mp_vlut_i1_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                     uint8_t *out);
void mp_vlut_i2_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w);
void mp_vlut_i1_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w);
size_t mp_vlut_act_size(int n, int k, const int *param);
void mp_vlut_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1);
/* The same with SIMD quantization (bit-identical to mp_quant_row). */
void mp_vlut_prepare__avx2(const mp_op *op, const float *x, int n, void *act, int t0, int t1);
void mp_vlut_prepare__avx512(const mp_op *op, const float *x, int n, void *act, int t0,
                             int t1);
/* The layout part of prepare, after the int8 rows are written. */
void mp_vlut_transpose(const mp_op *op, int n, void *act, int t0, int t1);
size_t mp_vlut_i2_scratch_size(int n, int k, const int *param);
size_t mp_vlut_i1_scratch_size(int n, int k, const int *param);

/* The g of a variant's main groups, from its method name. */
int mp_vlut_gmain(const mp_op *op);

/* The K geometry of op and the map of its activations act for n tokens, as
 * every compute call starts; aborts on a K the packing would have rejected. */
void mp_vlut_op_map(const mp_op *op, const void *act, int n, mp_vlut_geom *gm, mp_vlut_act *a);

/* One compute call of the table path: the op, its K geometry, the map of its
 * activations, N, the effective N_tile, S = 3^g_main and the parameters read. */
typedef struct mp_vlut_job {
    const mp_op *op;
    mp_vlut_geom gm;
    mp_vlut_act A;
    int n, nt, S, topo, hier, tcl;
} mp_vlut_job;

/* Fills c for op over act with n tokens (once per call, outside the hot loops). */
void mp_vlut_job_init(mp_vlut_job *c, const mp_op *op, const void *act, int n);

/* Portable kernels (every parameter combination); the SIMD paths call the parts
 * they do not specialise. */
MP_DECLARE_COMPUTE(mp_vlut_gemm); /* mp_vlut_gemm__<isa>, one per kernel file */
MP_DECLARE_COMPUTE(mp_vlut_gemv); /* mp_vlut_gemv__<isa>, one per kernel file */

#endif
