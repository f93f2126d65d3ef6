/* test_mad.c - the llama.cpp-compatible MAD formats (F16, Q8_0, Q4_0, TQ1_0,
 * TQ2_0): packed bytes against layouts worked out by hand from ggml's block
 * definitions, unpack, fp16 rounding, TQ1_0 == TQ2_0 integer dots, and the
 * error against the int8 reference within a bound derived per format.  That
 * every ISA path equals its scalar sibling bit for bit on every real-model and
 * odd shape is the generic grid's job (tests/test_variants.c, sibling_tol 0). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "mp_test.h"
#include "../kernels/common/mp_numerics.h"
#include "../kernels/f16/f16.h"
#include "../kernels/tq/tq.h"
#include "../variants/mp_registry.h"

static const mp_variant *find(const char *name)
{
    const mp_variant *v = mp_registry_find(name);
    cr_assert(v, "variant %s is registered", name);
    return v;
}

/* Packs w (m x k) with variant `name`, checks size and the expected bytes,
 * then that unpack gives w back. */
static void check_pack(const char *name, const int8_t *w, float s, int m, int k,
                       const uint8_t *want, size_t want_len)
{
    const mp_variant *v = find(name);
    int param[MP_MAX_PARAMS] = {0};
    size_t bytes = v->packed_size(m, k, param);
    cr_assert_eq(bytes, want_len, "%s: packed_size %zu, want %zu", name, bytes, want_len);
    uint8_t *p = mp_alloc(bytes);
    v->pack(w, s, m, k, param, p);
    for (size_t i = 0; i < bytes; i++)
        cr_assert_eq(p[i], want[i], "%s: byte %zu = 0x%02x, want 0x%02x", name, i, p[i], want[i]);
    int8_t *back = mp_alloc((size_t)m * k);
    v->unpack(p, m, k, param, back);
    for (int i = 0; i < m * k; i++)
        cr_assert_eq(back[i], w[i], "%s: unpack[%d] = %d, want %d", name, i, back[i], w[i]);
    mp_free(back);
    mp_free(p);
}

Test(mad, f16_packs_by_hand)
{
    /* w * 0.5 = {0.5, -0.5, 0}: fp16 0x3800, 0xb800, 0x0000, little endian. */
    int8_t w[3] = {1, -1, 0};
    const uint8_t want[6] = {0x00, 0x38, 0x00, 0xb8, 0x00, 0x00};
    check_pack("f16.scalar", w, 0.5f, 1, 3, want, sizeof want);
}

Test(mad, q8_0_packs_by_hand)
{
    /* One block, s = 0.5, w[0] = +1, w[1] = -1, w[5] = +1.  ggml: d = amax/127 =
     * 0.5/127 = 0.0039370 = 2^-8 * 1.00787 -> fp16 exponent 7, mantissa
     * round(0.00787 * 1024) = 8: 0x1c08 (bytes 08 1c); qs = round(x / d) =
     * +127 (0x7f), -127 (0x81), 0, 0, 0, +127, then zeros. */
    int8_t w[32] = {0};
    w[0] = 1, w[1] = -1, w[5] = 1;
    uint8_t want[34] = {0x08, 0x1c, 0x7f, 0x81, 0, 0, 0, 0x7f};
    check_pack("q8_0.scalar", w, 0.5f, 1, 32, want, sizeof want);
}

Test(mad, q4_0_packs_by_hand)
{
    /* One block, s = 0.5, w[0] = -1, w[1] = +1, w[16] = +1, w[17] = -1.  ggml:
     * max = -0.5 (first of largest magnitude), d = max / -8 = 0.0625 = fp16
     * 0x2c00; nibble = min(15, (int8)(x/d + 8.5)): -0.5 -> 0, 0 -> 8, +0.5 ->
     * 16 -> 15.  qs[j] = nibble(j) | nibble(j + 16) << 4: qs[0] = 0 | 15<<4 =
     * 0xf0, qs[1] = 15 | 0<<4 = 0x0f, the rest 8 | 8<<4 = 0x88.  (The +1
     * weights come back as 7 * 0.0625 = 0.4375: ggml's asymmetry; unpack
     * returns signs, which are exact.) */
    int8_t w[32] = {0};
    w[0] = -1, w[1] = 1, w[16] = 1, w[17] = -1;
    uint8_t want[18] = {0x00, 0x2c, 0xf0, 0x0f};
    memset(want + 4, 0x88, 14);
    check_pack("q4_0.scalar", w, 0.5f, 1, 32, want, sizeof want);
}

/* The same 256 weights for both ternary formats: zero except w[0] = +1,
 * w[32] = -1, w[96] = +1, w[128] = -1, w[255] = +1; s = 0.5 -> d = fp16 0x3800. */
static void tq_example(int8_t w[256])
{
    memset(w, 0, 256);
    w[0] = 1, w[32] = -1, w[96] = 1, w[128] = -1, w[255] = 1;
}

Test(mad, tq2_0_packs_by_hand)
{
    /* Code c = w + 1; byte 32h + m holds weights 128h + m + 32n in bits 2n.
     * All-zero weights: codes 1,1,1,1 = 0b01010101 = 0x55.
     * qs[0]  : w0, w32, w64, w96    = codes 2,0,1,2 -> 2 | 0<<2 | 1<<4 | 2<<6 = 0x92
     * qs[32] : w128, w160, w192, w224 = 0,1,1,1     -> 0 | 4 | 16 | 64       = 0x54
     * qs[63] : w159, w191, w223, w255 = 1,1,1,2     -> 1 | 4 | 16 | 128      = 0x95
     * then d = 0x3800 -> bytes 64, 65 = 00 38.  66 bytes. */
    int8_t w[256];
    tq_example(w);
    uint8_t want[66];
    memset(want, 0x55, 64);
    want[0] = 0x92, want[32] = 0x54, want[63] = 0x95;
    want[64] = 0x00, want[65] = 0x38;
    check_pack("tq2_0.scalar", w, 0.5f, 1, 256, want, sizeof want);
}

Test(mad, tq1_0_packs_by_hand)
{
    /* A byte of trits c0..c4 (c = w + 1, c0 most significant) stores
     * ceil(256 v / 243), v = 81c0 + 27c1 + 9c2 + 3c3 + c4.
     * All codes 1: v = 121 -> ceil(30976/243) = 128 = 0x80.
     * qs[0] : w0, w32, w64, w96, w128 = 2,0,1,2,0: v = 162+9+6 = 177 ->
     *         ceil(45312/243) = 187 = 0xbb.
     * qs[1..31] and qs[32..47] (w160 + m + 16n): all codes 1 -> 0x80.
     * qh[j] : w240+j, w244+j, w248+j, w252+j, then a 0 trit: v = 3(27c0+9c1+3c2+c3);
     *         all ones: v = 120 -> ceil(30720/243) = 127 = 0x7f;
     *         qh[3] (w243, w247, w251, w255 = 1,1,1,2): v = 123 -> ceil(31488/243)
     *         = 130 = 0x82.
     * Then d = 00 38.  54 bytes. */
    int8_t w[256];
    tq_example(w);
    uint8_t want[54];
    memset(want, 0x80, 48);
    want[0] = 0xbb;
    want[48] = want[49] = want[50] = 0x7f;
    want[51] = 0x82;
    want[52] = 0x00, want[53] = 0x38;
    check_pack("tq1_0.scalar", w, 0.5f, 1, 256, want, sizeof want);
}

Test(mad, packed_sizes_give_ggml_bpw)
{
    int param[MP_MAX_PARAMS] = {0};
    const struct {
        const char *name;
        double bpw;
    } want[] = {{"f16.avx2", 16.0}, {"q8_0.avx2", 8.5}, {"q4_0.avx2", 4.5},
                {"tq2_0.avx2", 2.0625}, {"tq1_0.avx2", 1.6875}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const mp_variant *v = find(want[i].name);
        double bpw = 8.0 * (double)v->packed_size(6912, 2560, param) / (6912.0 * 2560);
        cr_assert_eq(bpw, want[i].bpw, "%s: bpw %f, want %f", want[i].name, bpw, want[i].bpw);
    }
}

Test(mad, fp16_conversions_round_trip_and_round_to_even)
{
    for (uint32_t h = 0; h < 65536; h++) {
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff))
            continue; /* NaN payloads */
        float f = mp_fp16_to_f32((uint16_t)h);
        cr_assert_eq(mp_fp16_from_f32(f), h, "round trip of 0x%04x", h);
    }
    cr_assert_eq(mp_fp16_to_f32(0x3c00), 1.0f);
    cr_assert_eq(mp_fp16_to_f32(0x0001), 0x1p-24f, "smallest subnormal");
    cr_assert_eq(mp_fp16_to_f32(0xfbff), -65504.0f, "largest finite, negative");
    cr_assert(isinf(mp_fp16_to_f32(0x7c00)) && isnan(mp_fp16_to_f32(0x7e00)));
    /* 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1.0). */
    cr_assert_eq(mp_fp16_from_f32(1.0f + 0x1p-11f), 0x3c00);
    cr_assert_eq(mp_fp16_from_f32(1.0f + 3 * 0x1p-11f), 0x3c02);
    cr_assert_eq(mp_fp16_from_f32(65520.0f), 0x7c00, "overflow to inf");
    cr_assert_eq(mp_fp16_from_f32(0x1p-25f), 0x0000, "half the smallest subnormal: to even");
    cr_assert_eq(mp_fp16_from_f32(0x1.8p-25f), 0x0001);
}

Test(mad, tq1_0_and_tq2_0_give_the_same_integer_dots)
{
    /* Same ternary weights, same Q8_K activations: both formats must produce
     * the exact int32 dot of each block, equal to the direct sum of w * q. */
    const int m = 5, k = 2560, nb = k / MP_QK_K;
    int8_t *w = mp_alloc((size_t)m * k);
    float *x = mp_alloc(sizeof(float) * k);
    mp_gen_weights(77, w, (size_t)m * k, 0);
    mp_gen_acts(78, x, k);
    /* saturate one block's weights to all +1 and another to all -1: largest sums */
    memset(w, 1, 256);
    memset(w + 256, 0xff, 256);
    mp_block_q8_K *a = mp_alloc(sizeof *a * nb);
    for (int b = 0; b < nb; b++)
        mp_q8k_quant_block(x + b * MP_QK_K, a + b);
    int param[MP_MAX_PARAMS] = {0};
    const mp_variant *v1 = find("tq1_0.scalar"), *v2 = find("tq2_0.scalar");
    uint8_t *p1 = mp_alloc(v1->packed_size(m, k, param)), *p2 = mp_alloc(v2->packed_size(m, k, param));
    v1->pack(w, 0.0123f, m, k, param, p1);
    v2->pack(w, 0.0123f, m, k, param, p2);
    for (int r = 0; r < m; r++) {
        int32_t d1[16], d2[16];
        mp_tq1_0_block_dots(p1 + (size_t)r * nb * MP_TQ1_BYTES, a, nb, d1);
        mp_tq2_0_block_dots(p2 + (size_t)r * nb * MP_TQ2_BYTES, a, nb, d2);
        for (int b = 0; b < nb; b++) {
            int32_t want = 0;
            for (int j = 0; j < MP_QK_K; j++)
                want += (int32_t)w[(size_t)r * k + b * MP_QK_K + j] * a[b].qs[j];
            cr_assert_eq(d1[b], want, "TQ1_0 row %d block %d: %d, want %d", r, b, d1[b], want);
            cr_assert_eq(d2[b], want, "TQ2_0 row %d block %d: %d, want %d", r, b, d2[b], want);
        }
    }
    mp_free(p2);
    mp_free(p1);
    mp_free(a);
    mp_free(x);
    mp_free(w);
}

/* Runs v on seeded data; returns y (n x m), caller frees. */
static float *run(const mp_variant *v, const int8_t *w, float s, int m, int k, const float *x,
                  int n)
{
    int param[MP_MAX_PARAMS] = {0};
    uint8_t *p = mp_alloc(v->packed_size(m, k, param));
    v->pack(w, s, m, k, param, p);
    mp_op op = {.v = v, .m = m, .k = k, .w_scale = s, .w = p};
    void *act = mp_alloc(v->act_size(n, k, param));
    v->prepare(&op, x, n, act, 0, n);
    float *y = mp_alloc(sizeof(float) * (size_t)n * m);
    v->compute(&op, act, n, y, 0, m, NULL);
    mp_free(act);
    mp_free(p);
    return y;
}

Test(mad, tq1_0_and_tq2_0_outputs_are_identical)
{
    /* Same dots and the same scales (both d = fp16(s)): the outputs of every ISA
     * path of one format equal those of the other, bit for bit. */
    const int m = 37, k = 6912, n = 3;
    int8_t *w = mp_alloc((size_t)m * k);
    float *x = mp_alloc(sizeof(float) * (size_t)n * k);
    mp_gen_weights(5, w, (size_t)m * k, 0);
    mp_gen_acts(6, x, (size_t)n * k);
    static const char *const isa[] = {"scalar", "avx2", "avx512"};
    for (int i = 0; i < 3; i++) {
        char n1[32], n2[32];
        snprintf(n1, sizeof n1, "tq1_0.%s", isa[i]);
        snprintf(n2, sizeof n2, "tq2_0.%s", isa[i]);
        const mp_variant *v1 = mp_registry_find(n1), *v2 = mp_registry_find(n2);
        if (!v1 || !v2 || !mp_variant_available(v1) || !mp_variant_available(v2))
            continue;
        float *y1 = run(v1, w, 0.0123f, m, k, x, n), *y2 = run(v2, w, 0.0123f, m, k, x, n);
        cr_assert(memcmp(y1, y2, sizeof(float) * (size_t)n * m) == 0, "%s and %s differ", n1, n2);
        mp_free(y2);
        mp_free(y1);
    }
    mp_free(x);
    mp_free(w);
}

/* Error bound against the int8 reference, first order in the quantization
 * steps, per output (t, r), with x the float activations and s|w_i| the
 * canonical weights:
 *   |y - ref| <= sum_i [ ew |x_i| + (s|w_i| + ew) ex_i + s|w_i| er_t ] + slack
 * er_t = absmax_t / 254: the reference's own rounding (half an int8 step);
 * ex_i: the format's activation rounding, half a block step plus, for Q8_0,
 *   the fp16 rounding of the block scale (127 * d * 2^-11 = amax_b * 2^-11);
 *   Q8_K keeps d in float (1/iscale: relative 2^-23 covered by the slack);
 * ew: the weight error: fp16 rounding of the scale, s * 2^-11 (Q8_0: 127 *
 *   fp16(s/127) deviates by at most that too); Q4_0 adds s/8, ggml's
 *   asymmetric rounding of the sign opposite to the block's max (q4_0.h);
 * slack: float summation, 1e-5 * sum |s w_i x_i| + 1e-30.
 * F16 (MP_FLOAT) is judged against the double product: ew = s * 2^-11 and the
 * 16-lane float sum, (K/16 + 4) * 2^-24 * sum |s w_i x_i|. */
static void check_bound(const char *name, int blk, double ew_rel, int act_fp16)
{
    const mp_variant *v = mp_registry_find(name);
    cr_assert(v);
    if (!mp_variant_available(v))
        cr_skip_test("%s: this CPU lacks its ISA", name);
    const int m = 64, k = 2560, n = 4;
    const float s = 0.0123f;
    int8_t *w = mp_alloc((size_t)m * k);
    float *x = mp_alloc(sizeof(float) * (size_t)n * k);
    mp_gen_weights(11, w, (size_t)m * k, 0);
    mp_gen_acts(12, x, (size_t)n * k);
    float *y = run(v, w, s, m, k, x, n);
    float *ref = mp_alloc(sizeof(float) * (size_t)n * m);
    if (v->exactness == MP_FLOAT)
        mp_float_gemm(w, s, m, k, x, n, ref, 0, m);
    else
        mp_ref_gemm(w, s, m, k, x, n, ref, 0, m);
    double *ex = mp_alloc(sizeof(double) * k);
    double worst = 0;
    for (int t = 0; t < n; t++) {
        const float *xt = x + (size_t)t * k;
        double amax = 0;
        for (int i = 0; i < k; i++)
            amax = fmax(amax, fabs(xt[i]));
        const double er = v->exactness == MP_FLOAT ? 0 : amax / 254;
        for (int b0 = 0; b0 < k; b0 += blk) {
            double bmax = 0;
            for (int i = b0; i < b0 + blk; i++)
                bmax = fmax(bmax, fabs(xt[i]));
            for (int i = b0; i < b0 + blk; i++)
                ex[i] = v->exactness == MP_FLOAT ? 0
                                                 : bmax / 254 + (act_fp16 ? bmax * 0x1p-11 : 0);
        }
        for (int r = 0; r < m; r++) {
            const int8_t *wr = w + (size_t)r * k;
            double bound = 1e-30, mag = 0, ew = ew_rel * s;
            for (int i = 0; i < k; i++) {
                double aw = s * abs(wr[i]);
                bound += ew * fabs(xt[i]) + (aw + ew) * ex[i] + aw * er;
                mag += aw * fabs(xt[i]);
            }
            bound += v->exactness == MP_FLOAT ? (k / 16 + 4) * 0x1p-24 * mag : 1e-5 * mag;
            double err = fabs((double)y[(size_t)t * m + r] - ref[(size_t)t * m + r]);
            cr_assert(err <= bound, "%s token %d row %d: |y - ref| = %g > bound %g", name, t,
                      r, err, bound);
            worst = fmax(worst, err / bound);
        }
    }
    fprintf(stderr, "%s: worst error / bound = %.3f\n", name, worst);
    mp_free(ex);
    mp_free(ref);
    mp_free(y);
    mp_free(x);
    mp_free(w);
}

static void check_bound_all(const char *fmt, int blk, double ew_rel, int act_fp16)
{
    static const char *const isa[] = {"scalar", "avx2", "avx512"};
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s.%s", fmt, isa[i]);
        if (mp_variant_available(find(name)))
            check_bound(name, blk, ew_rel, act_fp16);
    }
}

Test(mad, f16_error_within_bound) { check_bound_all("f16", 16, 0x1p-11, 0); }
Test(mad, q8_0_error_within_bound) { check_bound_all("q8_0", 32, 0x1p-11, 1); }
Test(mad, q4_0_error_within_bound) { check_bound_all("q4_0", 32, 0.125 + 0x1p-11, 1); }
Test(mad, tq2_0_error_within_bound) { check_bound_all("tq2_0", 256, 0x1p-11, 0); }
Test(mad, tq1_0_error_within_bound) { check_bound_all("tq1_0", 256, 0x1p-11, 0); }

Test(mad, q8_k_quantizes_like_ggml)
{
    /* Max magnitude -2 (first): iscale = -127 / -2 = 63.5; q = rne(63.5 x),
     * clamped at 127; d = 1/63.5.  x = 1 -> 63.5 -> 64 (tie to even);
     * x = 3/127 -> 1.5 -> 2; x = -2 -> -127; bsums[0] = 64 + 2 - 127 = -61. */
    float x[256] = {0};
    x[0] = 1.0f, x[1] = 3.0f / 127.0f, x[2] = -2.0f;
    mp_block_q8_K a;
    mp_q8k_quant_block(x, &a);
    cr_assert_eq(a.qs[0], 64);
    cr_assert_eq(a.qs[1], 2);
    cr_assert_eq(a.qs[2], -127);
    cr_assert_eq(a.bsums[0], -61);
    cr_assert_eq(a.d, 1.0f / 63.5f);
}

#include "../kernels/q8_0/q8_0.h"
#include "../kernels/q4_0/q4_0.h"

Test(mad, pack_equals_ggml_float_quantizer)
{
    /* pack takes a shortcut for ternary weights (see each *_pack); it must give
     * the bytes of ggml's float quantizer applied to w * s, for scales of both
     * signs and magnitudes, with all-zero blocks and blocks starting with zeros. */
    const int m = 3, k = 1024;
    int8_t *w = mp_alloc((size_t)m * k);
    mp_gen_weights(21, w, (size_t)m * k, 0);
    memset(w, 0, 256);          /* an all-zero block for every format */
    memset(w + 256 + 32, 0, 7); /* a Q4_0 block whose first nonzero is late */
    const float scales[] = {0.0123f, -0.7f, 3.0e-5f, 1.0f, 123.0f};
    const struct {
        const char *name;
        void (*ref)(const float *, int, uint8_t *);
        size_t row_bytes;
    } fmts[] = {{"q8_0.scalar", mp_q8_0_quant_ref, k / 32 * 34},
                {"q4_0.scalar", mp_q4_0_quant_ref, k / 32 * 18},
                {"tq1_0.scalar", mp_tq1_0_quant_ref, k / 256 * 54},
                {"tq2_0.scalar", mp_tq2_0_quant_ref, k / 256 * 66}};
    float *x = mp_alloc(sizeof(float) * k);
    uint8_t *ref = mp_alloc(fmts[0].row_bytes);
    int param[MP_MAX_PARAMS] = {0};
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++)
        for (size_t si = 0; si < sizeof scales / sizeof scales[0]; si++) {
            const mp_variant *v = find(fmts[f].name);
            uint8_t *p = mp_alloc(v->packed_size(m, k, param));
            v->pack(w, scales[si], m, k, param, p);
            for (int r = 0; r < m; r++) {
                for (int i = 0; i < k; i++)
                    x[i] = (float)w[(size_t)r * k + i] * scales[si];
                fmts[f].ref(x, k, ref);
                const uint8_t *got = p + (size_t)r * fmts[f].row_bytes;
                for (size_t i = 0; i < fmts[f].row_bytes; i++)
                    cr_assert_eq(got[i], ref[i], "%s s=%g row %d byte %zu: 0x%02x, ggml 0x%02x",
                                 fmts[f].name, scales[si], r, i, got[i], ref[i]);
            }
            mp_free(p);
        }
    mp_free(ref);
    mp_free(x);
    mp_free(w);
}
