/* vlut-scalar.c - Vec-LUT (seed 001 §3-4) packing, activation preparation, the
 * §4 tile-size rules, and the portable kernels: the oracle for the SIMD paths and
 * the implementation of every parameter combination (layouts in vlut.h).
 * Portable C, no ISA flags. */
#include "vlut.h"

#include <stdio.h>
#include <string.h>

#include "../common/mp_numerics.h"
#include "../common/mp_swar.h"

static const int pow3[6] = {1, 3, 9, 27, 81, 243};

int mp_vlut_rule_ntile(int simd_lanes_i16, int want)
{
    if (simd_lanes_i16 < 1)
        simd_lanes_i16 = 1;
    if (want < simd_lanes_i16)
        want = simd_lanes_i16;
    return (want + simd_lanes_i16 - 1) / simd_lanes_i16 * simd_lanes_i16;
}

int mp_vlut_rule_ktile(int g, int ntile, long l1d_bytes)
{
    if (g < 1 || g > 5 || ntile < 1)
        return g < 1 ? 1 : g;
    long per_group = (long)pow3[g] * ntile * 2; /* one int16 sub-table */
    long groups = l1d_bytes / per_group;
    return (int)(groups < 1 ? g : groups * g);
}

int mp_vlut_geom_init(mp_vlut_geom *gm, int g_main, int k, int ktile)
{
    memset(gm, 0, sizeof *gm);
    if (k < 1 || ktile < g_main || ktile % g_main)
        return -1;
    gm->gm = g_main;
    if (g_main == 4) {
        if (k % 4)
            return -1;
        gm->nmain = k / 4;
    } else {
        /* footnote 4: K = 5b + 4a; the fewest groups of 4 give the lowest bpw */
        int a = (5 - k % 5) % 5;
        if (4 * a > k)
            return -1;
        gm->ntail = a;
        gm->nmain = (k - 4 * a) / 5;
    }
    gm->groups = gm->nmain + gm->ntail;
    gm->kt = ktile / g_main;
    gm->ntiles = (gm->nmain + gm->kt - 1) / gm->kt + (gm->ntail > 0);
    return 0;
}

int mp_vlut_gmain(const mp_op *op)
{
    return op->v->method[6] == '1' ? 5 : 4;
}

void mp_vlut_op_map(const mp_op *op, const void *act, int n, mp_vlut_geom *gm, mp_vlut_act *a)
{
    if (mp_vlut_geom_init(gm, mp_vlut_gmain(op), op->k, op->param[MP_VLUT_P_KTILE]))
        MP_ABORT("vlut: bad K=%d for %s", op->k, op->v->name);
    mp_vlut_act_map(act, n, op->k, op->param, a);
}

void mp_vlut_job_init(mp_vlut_job *c, const mp_op *op, const void *act, int n)
{
    const int *P = op->param;
    c->op = op;
    c->n = n;
    c->nt = mp_vlut_ntile_eff(n, P);
    c->topo = P[MP_VLUT_P_TOPO];
    c->hier = P[MP_VLUT_P_HIER];
    c->tcl = P[MP_VLUT_P_TCL];
    mp_vlut_op_map(op, act, n, &c->gm, &c->A);
    c->S = pow3[c->gm.gm];
}

/* ---- shape and parameter checks ----------------------------------------------- */

static int check(int g, int k, const int *param, char *why, size_t len)
{
    mp_vlut_geom gm;
    int kt = param[MP_VLUT_P_KTILE], nt = param[MP_VLUT_P_NTILE];
    if (kt < g || kt % g || kt > MP_VLUT_KTILE_MAX) {
        snprintf(why, len, "ktile=%d must be a multiple of g=%d in [%d, %d]", kt, g, g,
                 MP_VLUT_KTILE_MAX);
        return -1;
    }
    if (nt < 16 || nt % 16 || nt > 128) {
        snprintf(why, len, "ntile=%d must be a multiple of 16 in [16, 128]", nt);
        return -1;
    }
    if (mp_vlut_geom_init(&gm, g, k, kt)) {
        snprintf(why, len, "K=%d cannot be split into groups of %s", k,
                 g == 4 ? "4" : "4 and 5 (K = 4a + 5b)");
        return -1;
    }
    return 0;
}

int mp_vlut_i2_check(int m, int k, const int *param, char *why, size_t len)
{
    (void)m;
    return check(4, k, param, why, len);
}

int mp_vlut_i1_check(int m, int k, const int *param, char *why, size_t len)
{
    (void)m;
    return check(5, k, param, why, len);
}

/* ---- packing ------------------------------------------------------------------ */

static size_t packed_size(int g, int m, int k, const int *param)
{
    mp_vlut_geom gm;
    if (mp_vlut_geom_init(&gm, g, k, param[MP_VLUT_P_KTILE]))
        return 64;
    return (size_t)m * gm.groups + 64;
}

size_t mp_vlut_i2_packed_size(int m, int k, const int *param)
{
    return packed_size(4, m, k, param);
}

size_t mp_vlut_i1_packed_size(int m, int k, const int *param)
{
    return packed_size(5, m, k, param);
}

/* The index of a group (first weight most significant) from its codes c = w + 1,
 * one per byte of a 64-bit word, by one multiply: with 3^j at byte j of the
 * multiplier, byte n of the product is the sum of c_i 3^(n-i), so times idx4
 * (1, 3, 9, 27) byte 3 is the index of bytes 0-3 and byte 7 that of bytes 4-7,
 * and times idx5 (1 .. 81) byte 4 is the index of bytes 0-4.  The bytes below
 * them stay under 256 (codes <= 3: no carry into them); the bytes of the word
 * past a group only reach the bytes above it. */
static const uint64_t idx4 = 0x1B090301u, idx5 = 0x511B090301ull;

/* The cnt groups of 4 weights at src -> dst[0..cnt), two per word. */
static inline void pack_groups4(const int8_t *src, int cnt, uint8_t *dst)
{
    int j = 0;
    for (; j + 2 <= cnt; j += 2, src += 8) {
        uint64_t p = mp_swar_tern_codes(mp_swar_ld64(src)) * idx4;
        dst[j] = (uint8_t)(p >> 24);
        dst[j + 1] = (uint8_t)(p >> 56);
    }
    if (j < cnt)
        dst[j] = (uint8_t)(mp_swar_tern_codes(mp_swar_ld32(src)) * idx4 >> 24);
}

/* The cnt groups of 5 weights at src -> dst[0..cnt); a group's word reads 3
 * bytes past it, so one whose word would end past end (the tensor's end) is read
 * as 4 + 1 bytes. */
static inline void pack_groups5(const int8_t *src, int cnt, uint8_t *dst, const int8_t *end)
{
    for (int j = 0; j < cnt; j++, src += 5) {
        uint64_t x = end - src >= 8 ? mp_swar_ld64(src)
                                    : mp_swar_ld32(src) | (uint64_t)(uint8_t)src[4] << 32;
        dst[j] = (uint8_t)(mp_swar_tern_codes(x) * idx5 >> 32);
    }
}

/* Rows in blocks of ROWS, tile by tile within a block: each tile's bytes of the
 * block are one contiguous run of ROWS cnt bytes, and the block's rows are read
 * as ROWS sequential streams.  Tile by tile over all rows read the whole tensor
 * once per K tile, a few bytes per row; row by row over all tiles wrote a few
 * bytes per row into every tile, each M K_tile / g bytes from the next (a page
 * or more: the TLB missed on every tile; 6912x2560 I2 best of 20, 5.9-9.3 ms against
 * 3.2-3.5 ms with ROWS = 16).  tests/test_vlut.c keeps the direct definition
 * (tile by tile, one weight at a time) as the oracle. */
enum { ROWS = 16 };
static void pack(int g, const int8_t *w, float w_scale, int m, int k, const int *param,
                 uint8_t *out)
{
    mp_vlut_geom gm;
    if (mp_vlut_geom_init(&gm, g, k, param[MP_VLUT_P_KTILE]))
        MP_ABORT("vlut pack: K=%d not packable with g=%d", k, g);
    const int8_t *end = w + (size_t)m * k;
    for (int r0 = 0; r0 < m; r0 += ROWS) {
        int r1 = m - r0 < ROWS ? m : r0 + ROWS;
        for (int f = 0; f < gm.nmain; f += gm.kt) {
            int cnt = gm.nmain - f < gm.kt ? gm.nmain - f : gm.kt;
            for (int r = r0; r < r1; r++) {
                const int8_t *wr = w + (size_t)r * k;
                uint8_t *o = out + (size_t)m * f + (size_t)r * cnt;
                if (g == 4)
                    pack_groups4(wr + 4 * (size_t)f, cnt, o);
                else
                    pack_groups5(wr + 5 * (size_t)f, cnt, o, end);
            }
        }
        if (gm.ntail) /* I1: the groups of 4 after the groups of 5, one tile */
            for (int r = r0; r < r1; r++)
                pack_groups4(w + (size_t)r * k + 5 * (size_t)gm.nmain, gm.ntail,
                             out + (size_t)m * gm.nmain + (size_t)r * gm.ntail);
    }
    uint8_t *trailer = out + (size_t)m * gm.groups;
    memset(trailer, 0, 64);
    memcpy(trailer, &w_scale, sizeof w_scale);
}

void mp_vlut_i2_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                     uint8_t *out)
{
    pack(4, w, w_scale, m, k, param, out);
}

void mp_vlut_i1_pack(const int8_t *w, float w_scale, int m, int k, const int *param,
                     uint8_t *out)
{
    pack(5, w, w_scale, m, k, param, out);
}

static void unpack(int g, const uint8_t *p, int m, int k, const int *param, int8_t *w)
{
    mp_vlut_geom gm;
    if (mp_vlut_geom_init(&gm, g, k, param[MP_VLUT_P_KTILE]))
        MP_ABORT("vlut unpack: K=%d not packable with g=%d", k, g);
    for (int ti = 0; ti < gm.ntiles; ti++) {
        int f, cnt, gg;
        mp_vlut_tile(&gm, ti, &f, &cnt, &gg);
        const uint8_t *o = p + (size_t)m * f;
        for (int r = 0; r < m; r++)
            for (int j = 0; j < cnt; j++) {
                int8_t *wr = w + (size_t)r * k + mp_vlut_group_k(&gm, f + j);
                int idx = o[(size_t)r * cnt + j];
                for (int q = gg - 1; q >= 0; q--, idx /= 3)
                    wr[q] = (int8_t)(idx % 3 - 1);
            }
    }
}

void mp_vlut_i2_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w)
{
    unpack(4, p, m, k, param, w);
}

void mp_vlut_i1_unpack(const uint8_t *p, int m, int k, const int *param, int8_t *w)
{
    unpack(5, p, m, k, param, w);
}

/* ---- activations -------------------------------------------------------------- */

static size_t align64(size_t x)
{
    return (x + 63) & ~(size_t)63;
}

void mp_vlut_act_map(const void *act, int n, int k, const int *param, mp_vlut_act *a)
{
    uint8_t *b = (uint8_t *)act;
    int nt = mp_vlut_ntile_eff(n, param);
    a->kp = (int)align64((size_t)k + 64); /* GEMV reads one tile past K: zeros */
    a->x_scale = (float *)b;
    b += align64(sizeof(float) * (size_t)n);
    a->qsum = (int32_t *)b;
    b += align64(sizeof(int32_t) * (size_t)n);
    a->q = (int8_t *)b;
    b += align64((size_t)n * a->kp);
    a->t16 = (int16_t *)b;
    (void)nt;
}

size_t mp_vlut_act_size(int n, int k, const int *param)
{
    int nt = mp_vlut_ntile_eff(n, param);
    size_t ntn = (size_t)(n + nt - 1) / nt;
    size_t kp = align64((size_t)k + 64);
    return align64(sizeof(float) * (size_t)n) + align64(sizeof(int32_t) * (size_t)n) +
           align64((size_t)n * kp) + ntn * (size_t)k * nt * 2 + 64;
}

/* Writes tokens [t0, t1) of the already quantized int8 rows token-contiguous
 * (the transposition of §3.3, done once per call so every table build reads
 * N_tile contiguous int16 per feature) and their int8 sums.  The thread that owns
 * the last token zeroes the padding lanes. */
void mp_vlut_transpose(const mp_op *op, int n, void *act, int t0, int t1)
{
    mp_vlut_act a;
    const int k = op->k, nt = mp_vlut_ntile_eff(n, op->param);
    mp_vlut_act_map(act, n, k, op->param, &a);
    for (int t = t0; t < t1; t++) {
        int8_t *q = a.q + (size_t)t * a.kp;
        memset(q + k, 0, (size_t)(a.kp - k));
        int32_t s = 0;
        for (int j = 0; j < k; j++)
            s += q[j];
        a.qsum[t] = s;
    }
    /* blocks of 64 features so the int8 rows stay in cache */
    for (int j0 = 0; j0 < k; j0 += 64) {
        int j1 = j0 + 64 < k ? j0 + 64 : k;
        for (int t = t0; t < t1; t++) {
            const int8_t *q = a.q + (size_t)t * a.kp;
            int16_t *d = a.t16 + (size_t)(t / nt) * k * nt + t % nt;
            for (int j = j0; j < j1; j++)
                d[(size_t)j * nt] = q[j];
        }
    }
    if (t1 == n && n % nt) {
        int16_t *d = a.t16 + (size_t)(n / nt) * k * nt;
        for (int j = 0; j < k; j++)
            for (int t = n % nt; t < nt; t++)
                d[(size_t)j * nt + t] = 0;
    }
}

/* Contract: quantizes tokens [t0, t1) with the reference mp_quant_row, then
 * mp_vlut_transpose. */
void mp_vlut_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1)
{
    mp_vlut_act a;
    const int k = op->k;
    mp_vlut_act_map(act, n, k, op->param, &a);
    for (int t = t0; t < t1; t++)
        a.x_scale[t] = mp_quant_row(x + (size_t)t * k, k, a.q + (size_t)t * a.kp);
    mp_vlut_transpose(op, n, act, t0, t1);
}

/* ---- scratch ------------------------------------------------------------------ */

static size_t scratch_size(int g, int n, int k, const int *param)
{
    mp_vlut_geom gm;
    int nt = mp_vlut_ntile_eff(n, param);
    if (mp_vlut_geom_init(&gm, g, k, param[MP_VLUT_P_KTILE]))
        return 64;
    size_t groups = (size_t)mp_vlut_table_groups(&gm, param[MP_VLUT_P_STREAM]);
    size_t table = groups * pow3[g] * nt * 2;
    size_t acc = (size_t)MP_VLUT_MB * nt * (4 + 2); /* int32 sums, int16 block sums */
    /* + GEMV working set: AVX-512 selectors (3 x 5184 bytes), AVX2 patterns */
    size_t gv = (size_t)k * 16 * 4 * 2;
    return align64(table) + align64(acc) + align64(gv > 3 * 5200 ? gv : 3 * 5200) + 64;
}

size_t mp_vlut_i2_scratch_size(int n, int k, const int *param)
{
    return scratch_size(4, n, k, param);
}

size_t mp_vlut_i1_scratch_size(int n, int k, const int *param)
{
    return scratch_size(5, n, k, param);
}

/* ---- portable kernels --------------------------------------------------------- */

/* Builds the sub-tables of `cnt` groups of g starting at K element k0 (tcl=1:
 * rows of nt int16 from the token-contiguous tile a16; row stride S*nt per group).
 * topo=1: level by level, each entry = a previous one +- one activation row, in
 * place from the highest index down (3^g + ... row operations, §4 Fig. 7);
 * topo=0: each entry summed from its g trits (Alg. 1, 2*3^(g-1)*g operations). */
static void build_tcl(int16_t *T, int S, int nt, const int16_t *a16, int k0, int cnt, int g,
                      int topo)
{
    for (int j = 0; j < cnt; j++) {
        int16_t *Tj = T + (size_t)j * S * nt;
        const int16_t *a = a16 + (size_t)(k0 + j * g) * nt;
        if (topo) {
            for (int t = 0; t < nt; t++) { /* level 1: -a0, 0, +a0 */
                Tj[t] = (int16_t)-a[t];
                Tj[nt + t] = 0;
                Tj[2 * nt + t] = a[t];
            }
            for (int p = 1; p < g; p++) {
                const int16_t *ap = a + (size_t)p * nt;
                for (int i = pow3[p] - 1; i >= 0; i--)
                    for (int t = 0; t < nt; t++) {
                        int16_t v = Tj[(size_t)i * nt + t];
                        Tj[(size_t)(3 * i) * nt + t] = (int16_t)(v - ap[t]);
                        Tj[(size_t)(3 * i + 1) * nt + t] = v;
                        Tj[(size_t)(3 * i + 2) * nt + t] = (int16_t)(v + ap[t]);
                    }
            }
        } else {
            for (int i = 0; i < pow3[g]; i++) {
                int16_t *row = Tj + (size_t)i * nt;
                memset(row, 0, sizeof(int16_t) * nt);
                for (int p = 0, d = pow3[g - 1]; p < g; p++, d /= 3) {
                    int trit = i / d % 3 - 1;
                    const int16_t *ap = a + (size_t)p * nt;
                    if (trit > 0)
                        for (int t = 0; t < nt; t++)
                            row[t] = (int16_t)(row[t] + ap[t]);
                    else if (trit < 0)
                        for (int t = 0; t < nt; t++)
                            row[t] = (int16_t)(row[t] - ap[t]);
                }
            }
        }
    }
}

/* tcl=0: per-token tables T[j][t][S] from the feature-contiguous int8 rows. */
static void build_tok(int16_t *T, int S, int nt, const mp_vlut_act *A, int tok0, int n,
                      int k0, int cnt, int g, int topo)
{
    for (int j = 0; j < cnt; j++)
        for (int t = 0; t < nt; t++) {
            int16_t *Tt = T + ((size_t)j * nt + t) * S;
            int8_t zero[5] = {0};
            const int8_t *a = tok0 + t < n ? A->q + (size_t)(tok0 + t) * A->kp + k0 + j * g
                                           : zero;
            if (topo) {
                Tt[0] = (int16_t)-a[0], Tt[1] = 0, Tt[2] = a[0];
                for (int p = 1; p < g; p++)
                    for (int i = pow3[p] - 1; i >= 0; i--) {
                        int16_t v = Tt[i];
                        Tt[3 * i] = (int16_t)(v - a[p]);
                        Tt[3 * i + 1] = v;
                        Tt[3 * i + 2] = (int16_t)(v + a[p]);
                    }
            } else {
                for (int i = 0; i < pow3[g]; i++) {
                    int s = 0;
                    for (int p = 0, d = pow3[g - 1]; p < g; p++, d /= 3) {
                        int trit = i / d % 3 - 1;
                        if (trit > 0)
                            s += a[p];
                        else if (trit < 0)
                            s -= a[p];
                    }
                    Tt[i] = (int16_t)s;
                }
            }
        }
}

typedef mp_vlut_job ctx;

static void build(const ctx *c, int16_t *T, int tok0, int f, int cnt, int g)
{
    int k0 = mp_vlut_group_k(&c->gm, f);
    if (c->tcl)
        build_tcl(T, c->S, c->nt, c->A.t16 + (size_t)(tok0 / c->nt) * c->op->k * c->nt, k0,
                  cnt, g, c->topo);
    else
        build_tok(T, c->S, c->nt, &c->A, tok0, c->n, k0, cnt, g, c->topo);
}

/* Adds the lookups of one row's `cnt` bytes wb into acc[nt] (int32).  hier=1:
 * int16 sums of at most B entries, widened once per block. */
static void lookup_row(const ctx *c, const int16_t *T, const uint8_t *wb, int cnt, int32_t *acc)
{
    const int nt = c->nt, S = c->S;
    const int B = c->gm.gm == 4 ? MP_VLUT_B4 : MP_VLUT_B5;
    int16_t s16[128];
    for (int j0 = 0; j0 < cnt; j0 += B) {
        int j1 = j0 + B < cnt ? j0 + B : cnt;
        if (c->hier)
            memset(s16, 0, sizeof(int16_t) * nt);
        for (int j = j0; j < j1; j++) {
            const int16_t *Tj = T + (size_t)j * S * nt;
            if (c->tcl) {
                const int16_t *row = Tj + (size_t)wb[j] * nt;
                if (c->hier)
                    for (int t = 0; t < nt; t++)
                        s16[t] = (int16_t)(s16[t] + row[t]);
                else
                    for (int t = 0; t < nt; t++)
                        acc[t] += row[t];
            } else {
                for (int t = 0; t < nt; t++) {
                    int16_t v = Tj[(size_t)t * S + wb[j]];
                    if (c->hier)
                        s16[t] = (int16_t)(s16[t] + v);
                    else
                        acc[t] += v;
                }
            }
        }
        if (c->hier)
            for (int t = 0; t < nt; t++)
                acc[t] += s16[t];
    }
}

static void store_rows(const ctx *c, const int32_t *acc, int tok0, float *y, int r0, int r1)
{
    int tn = c->n - tok0 < c->nt ? c->n - tok0 : c->nt;
    for (int t = 0; t < tn; t++) {
        float xs = c->A.x_scale[tok0 + t], ws = c->op->w_scale;
        float *yt = y + (size_t)(tok0 + t) * c->op->m;
        for (int r = r0; r < r1; r++)
            yt[r] = mp_dequant(acc[(size_t)(r - r0) * c->nt + t], ws, xs);
    }
}

/* Contract: any m0 <= m1 <= M, any N >= 1; scratch of scratch_size bytes.  Rows
 * are processed in blocks of MP_VLUT_MB with int32 accumulators in scratch. */
void mp_vlut_gemm__scalar(const mp_op *op, const void *act, int n, float *y, int m0,
                          int m1, void *scratch)
{
    if (n < op->param[MP_VLUT_P_GEMV]) {
        mp_vlut_gemv__scalar(op, act, n, y, m0, m1, scratch);
        return;
    }
    ctx c;
    mp_vlut_job_init(&c, op, act, n);
    const int m = op->m, nt = c.nt;
    const size_t sub = (size_t)c.S * nt; /* int16 per sub-table */
    int16_t *T = scratch;
    size_t tgroups = (size_t)mp_vlut_table_groups(&c.gm, op->param[MP_VLUT_P_STREAM]);
    int32_t *acc = (int32_t *)((uint8_t *)scratch + align64(tgroups * sub * 2));
    if (op->param[MP_VLUT_P_STREAM]) {
        /* §3.4: per row block, per N tile, per K tile: build the tile's tables,
         * then consume them for every row of the block while they are in cache */
        for (int b0 = m0; b0 < m1; b0 += MP_VLUT_MB) {
            int b1 = b0 + MP_VLUT_MB < m1 ? b0 + MP_VLUT_MB : m1;
            for (int tok0 = 0; tok0 < n; tok0 += nt) {
                memset(acc, 0, sizeof(int32_t) * (size_t)(b1 - b0) * nt);
                for (int ti = 0; ti < c.gm.ntiles; ti++) {
                    int f, cnt, g;
                    mp_vlut_tile(&c.gm, ti, &f, &cnt, &g);
                    build(&c, T, tok0, f, cnt, g);
                    const uint8_t *wt = op->w + (size_t)m * f;
                    for (int r = b0; r < b1; r++)
                        lookup_row(&c, T, wt + (size_t)r * cnt, cnt,
                                   acc + (size_t)(r - b0) * nt);
                }
                store_rows(&c, acc, tok0, y, b0, b1);
            }
        }
    } else {
        /* Alg. 1 as written: the whole table of the N tile first, then the rows */
        for (int tok0 = 0; tok0 < n; tok0 += nt) {
            for (int ti = 0; ti < c.gm.ntiles; ti++) {
                int f, cnt, g;
                mp_vlut_tile(&c.gm, ti, &f, &cnt, &g);
                build(&c, T + (size_t)f * sub, tok0, f, cnt, g);
            }
            for (int r = m0; r < m1; r++) {
                memset(acc, 0, sizeof(int32_t) * nt);
                for (int ti = 0; ti < c.gm.ntiles; ti++) {
                    int f, cnt, g;
                    mp_vlut_tile(&c.gm, ti, &f, &cnt, &g);
                    lookup_row(&c, T + (size_t)f * sub, op->w + (size_t)m * f + (size_t)r * cnt,
                               cnt, acc);
                }
                store_rows(&c, acc, tok0, y, r, r + 1);
            }
        }
    }
}

/* GEMV path for small N on the same packed weights: each byte is decoded into its
 * trits and multiplied with the int8 activations (no table: below the break-even
 * N a table's 3^g entries cost more than they save). */
void mp_vlut_gemv__scalar(const mp_op *op, const void *act, int n, float *y, int m0,
                          int m1, void *scratch)
{
    (void)scratch;
    ctx c;
    mp_vlut_job_init(&c, op, act, n);
    const int m = op->m;
    for (int t = 0; t < n; t++) {
        const int8_t *q = c.A.q + (size_t)t * c.A.kp;
        for (int r = m0; r < m1; r++) {
            int32_t s = 0;
            for (int ti = 0; ti < c.gm.ntiles; ti++) {
                int f, cnt, g;
                mp_vlut_tile(&c.gm, ti, &f, &cnt, &g);
                const uint8_t *wb = op->w + (size_t)m * f + (size_t)r * cnt;
                const int8_t *qa = q + mp_vlut_group_k(&c.gm, f);
                for (int j = 0; j < cnt; j++, qa += g) {
                    int idx = wb[j];
                    for (int p = g - 1; p >= 0; p--, idx /= 3)
                        s += (idx % 3 - 1) * qa[p];
                }
            }
            y[(size_t)t * m + r] = mp_dequant(s, op->w_scale, c.A.x_scale[t]);
        }
    }
}
