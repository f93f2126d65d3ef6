/* test_i8.c - the int8-weight I8 variants (kernels/i8/, issue 16): the layout
 * by hand (offset bytes, padded rows, the scale trailer), every path against the
 * reference and its scalar sibling over K at, below and above a vector and a
 * row block, M tails and N in {1, 3, 9} (the GEMV, and the GEMM's register
 * blocks with token and row tails), and full-range int8 weights (the
 * format holds any int8, not only ternary) with saturated activations, where a
 * too-narrow int16 step would overflow.  The registry grid (test_variants.c)
 * adds the real shapes. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "mp_test.h"
#include "../kernels/common/mp_numerics.h"
#include "../variants/mp_registry.h"

static const char *const paths[] = {"i8.scalar", "i8.avx2", "i8.avxvnni", "i8.avx512vnni"};

Test(i8, layout_by_hand)
{
    const mp_variant *v = mp_registry_find("i8.scalar");
    cr_assert(v);
    const int m = 2, k = 70; /* rows padded to 128 bytes */
    int8_t w[2 * 70];
    for (int j = 0; j < m * k; j++)
        w[j] = (int8_t)((j % 3) - 1);
    int param[MP_MAX_PARAMS] = {0};
    size_t bytes = v->packed_size(m, k, param);
    cr_assert_eq(bytes, 2 * 128 + 64, "packed size %zu", bytes);
    uint8_t p[2 * 128 + 64];
    v->pack(w, 0.75f, m, k, param, p);
    cr_assert_eq(p[0], 0x7f, "w = -1 is stored as 127, got %u", p[0]);
    cr_assert_eq(p[1], 0x80, "w = 0 is stored as 128, got %u", p[1]);
    cr_assert_eq(p[2], 0x81, "w = +1 is stored as 129, got %u", p[2]);
    cr_assert_eq(p[128], (uint8_t)(w[70] ^ 0x80), "row 1 starts at byte 128");
    for (int j = 70; j < 128; j++)
        cr_assert_eq(p[j], 0x80, "padding byte %d holds the code of 0, got %u", j, p[j]);
    float s;
    memcpy(&s, p + 256, sizeof s);
    cr_assert_eq(s, 0.75f, "scale trailer");
    mp_test_unpacks_to(v, p, m, k, param, w);
}

Test(i8, edge_shapes_against_reference_and_scalar)
{
    static const int ms[] = {1, 3, 4, 5, 17};
    static const int ks[] = {1, 31, 32, 33, 63, 64, 65, 127, 128, 129, 320, 2560};
    static const int ns[] = {1, 3, 9};
    int ran = 0;
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        const mp_variant *v = mp_registry_find(paths[p]);
        cr_assert(v, "%s registered", paths[p]);
        if (!mp_variant_available(v))
            continue; /* reported by the registry grid as skipped */
        for (size_t a = 0; a < sizeof ms / sizeof ms[0]; a++)
            for (size_t b = 0; b < sizeof ks / sizeof ks[0]; b++)
                for (size_t c = 0; c < sizeof ns / sizeof ns[0]; c++) {
                    mp_check c_;
                    mp_check_variant(v, NULL, ms[a], ks[b], ns[c],
                                     1000 + (uint64_t)(a * 97 + b * 13 + c), &c_);
                    /* it asserted nothing before the GEMM (N > 1) went in */
                    cr_assert(!c_.skipped, "%s M=%d K=%d N=%d skipped: %s", paths[p], ms[a],
                              ks[b], ns[c], c_.why);
                    cr_assert(c_.ok, "%s", c_.why);
                    ran++;
                }
    }
    cr_assert_gt(ran, 0, "no I8 path ran");
}

/* Full-range int8 weights (|w| up to 127) with every activation at +-absmax over
 * the largest K of the real models: exact int32 sums, compared bit for bit. */
Test(i8, full_range_int8_saturated)
{
    const int m = 6, k = 28672, n = 2;
    int8_t *w = mp_alloc((size_t)m * k);
    float *x = mp_alloc(sizeof(float) * n * k);
    for (int r = 0; r < m; r++)
        for (int j = 0; j < k; j++)
            w[(size_t)r * k + j] = (int8_t)(r == 0 ? 127 : r == 1 ? -127 : ((j * 7 + r) % 255) - 127);
    for (int j = 0; j < n * k; j++)
        x[j] = j < k ? 2.0f : (j % 2 ? -2.0f : 2.0f);
    float ref[12], y[12];
    mp_ref_gemm(w, 0.25f, m, k, x, n, ref, 0, m);
    int ran = 0;
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        const mp_variant *v = mp_registry_find(paths[p]);
        if (!mp_variant_available(v))
            continue;
        int param[MP_MAX_PARAMS] = {0};
        uint8_t *pk = mp_alloc(v->packed_size(m, k, param));
        v->pack(w, 0.25f, m, k, param, pk);
        mp_op op = {.v = v, .m = m, .k = k, .w_scale = 0.25f, .w = pk};
        void *act = mp_alloc(v->act_size(n, k, param));
        v->prepare(&op, x, n, act, 0, n);
        for (int j = 0; j < m * n; j++)
            y[j] = NAN;
        v->compute(&op, act, n, y, 0, m, NULL);
        for (int j = 0; j < m * n; j++)
            cr_assert(!memcmp(&y[j], &ref[j], sizeof(float)),
                      "%s K=%d full-range int8: y[%d] = %.9g, reference %.9g", v->name, k, j,
                      y[j], ref[j]);
        mp_free(act);
        mp_free(pk);
        ran++;
    }
    cr_assert_gt(ran, 0, "no I8 path ran");
    mp_free(x);
    mp_free(w);
}
