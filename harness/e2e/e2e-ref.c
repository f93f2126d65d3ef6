/* e2e-ref.c - the reference arithmetic of DESIGN.md "Numerics" as a
 * pseudo-variant, so the reference decoder is the same code as a variant's
 * with other ops (e2e.c). */
#include "e2e-private.h"

/* ---- the reference arithmetic as a pseudo-variant ------------------------------
 * packed = the int8 weights; act = {float xs[n] padded to 64 bytes; int8 q[n][k]}. */
static size_t ref_packed_size(int m, int k, const int *param)
{
    (void)param;
    return (size_t)m * k;
}

static void ref_pack(const int8_t *w, float w_scale, int m, int k, const int *param, uint8_t *out)
{
    (void)w_scale, (void)param;
    memcpy(out, w, (size_t)m * k);
}

static size_t ref_xs_bytes(int n)
{
    return ((size_t)n * sizeof(float) + 63) & ~(size_t)63;
}

static size_t ref_act_size(int n, int k, const int *param)
{
    (void)param;
    return ref_xs_bytes(n) + (size_t)n * k;
}

static void ref_prepare(const mp_op *op, const float *x, int n, void *act, int t0, int t1)
{
    float *xs = act;
    int8_t *q = (int8_t *)act + ref_xs_bytes(n);
    for (int t = t0; t < t1; t++)
        xs[t] = mp_quant_row(x + (size_t)t * op->k, op->k, q + (size_t)t * op->k);
}

/* The int32 sum of one row's int8 products, in 16 lanes the compiler
 * vectorizes at -O2 without ISA flags (mp_ref_gemm_q's loop, which may alias
 * its output, stays scalar: ~10x slower, and the lossless check decodes every
 * prompt with the reference).  Integer addition is exact in any order (|sum|
 * <= 127 K, far inside int32), so the sum is mp_ref_gemm_q's bit for bit. */
static int32_t ref_dot(const int8_t *restrict w, const int8_t *restrict q, int k)
{
    int32_t lane[16] = {0};
    int i = 0;
    for (; i + 16 <= k; i += 16)
        for (int j = 0; j < 16; j++)
            lane[j] += (int16_t)(w[i + j] * q[i + j]); /* |w q| <= 127 */
    int32_t s = 0;
    for (int j = 0; j < 16; j++)
        s += lane[j];
    for (; i < k; i++)
        s += (int32_t)w[i] * q[i];
    return s;
}

static void ref_compute(const mp_op *op, const void *act, int n, float *y, int m0, int m1,
                        void *scratch)
{
    (void)scratch;
    const float *xs = act;
    const int8_t *q = (const int8_t *)act + ref_xs_bytes(n), *w = (const int8_t *)op->w;
    for (int t = 0; t < n; t++)
        for (int r = m0; r < m1; r++)
            y[(size_t)t * op->m + r] = mp_dequant(ref_dot(w + (size_t)r * op->k,
                                                          q + (size_t)t * op->k, op->k),
                                                  op->w_scale, xs[t]);
}

static const mp_variant ref_variant = {
    .name = "reference", .method = "REF", .family = MP_FAMILY_BASELINE, .isa = MP_ISA_SCALAR,
    .exactness = MP_LOSSLESS, .domain = MP_DOMAIN_TERNARY, .k_multiple = 1, .m_align = 1,
    .source = "DESIGN.md Numerics", .packed_size = ref_packed_size, .pack = ref_pack,
    .act_size = ref_act_size, .prepare = ref_prepare, .compute = ref_compute,
};

const mp_variant *mp_e2e_choice_variant(const mp_e2e_choice *c)
{
    return c->v ? c->v : &ref_variant;
}

