/* test_ref.c - the reference arithmetic on small hand-computed cases. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "../kernels/common/mp_isa.h"
#include "../kernels/common/mp_numerics.h"
#include "../kernels/mp_kernel.h"

Test(reference, quantize_rounds_to_nearest_even_and_clamps)
{
    /* absmax 2.54 -> scale 127/2.54 = 50: values land on exact halves */
    float x[6] = {2.54f, 0.01f, 0.03f, -0.05f, -2.54f, 1.0f};
    int8_t q[6];
    float s = mp_quant_row(x, 6, q);
    cr_assert_float_eq(s, 50.0f, 1e-4);
    /* 0.01*50 = 0.5 -> 0 (tie to even); 0.03*50 = 1.5 -> 2; -0.05*50 = -2.5 -> -2 */
    int8_t want[6] = {127, 0, 2, -2, -127, 50};
    for (int i = 0; i < 6; i++)
        cr_assert_eq(q[i], want[i], "q[%d] = %d, want %d", i, q[i], want[i]);
}

Test(reference, clamps_at_127)
{
    /* the absmax element maps to exactly +-127, nothing beyond */
    float x[3] = {-7.0f, 7.0f, 3.5f};
    int8_t q[3];
    float s = mp_quant_row(x, 3, q);
    cr_assert_float_eq(s, 127.0f / 7.0f, 1e-6);
    cr_assert_eq(q[0], -127);
    cr_assert_eq(q[1], 127);
    cr_assert_eq(q[2], 64); /* 63.5 -> 64 (tie to even) */
}

Test(reference, zero_token_uses_the_floor)
{
    float x[4] = {0};
    int8_t q[4] = {1, 1, 1, 1};
    float s = mp_quant_row(x, 4, q);
    cr_assert_float_eq(s, 127.0f / MP_ABSMAX_FLOOR, 1.0f);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(q[i], 0);
}

Test(reference, gemm_small_by_hand)
{
    /* W = [[1, 0, -1, 1], [-1, -1, 1, 0]], x = [1, 2, -1, 0.5]: absmax 2 ->
     * scale 63.5; q = [64 (63.5 tie->64), 127, -64 (-63.5 -> -64), 32 (31.75)] */
    int8_t w[8] = {1, 0, -1, 1, -1, -1, 1, 0};
    float x[4] = {1.0f, 2.0f, -1.0f, 0.5f};
    float y[2];
    mp_ref_gemm(w, 0.25f, 2, 4, x, 1, y, 0, 2);
    /* acc0 = 64 + 64 + 32 = 160; acc1 = -64 - 127 - 64 = -255 */
    cr_assert_eq(y[0], mp_dequant(160, 0.25f, 63.5f));
    cr_assert_eq(y[1], mp_dequant(-255, 0.25f, 63.5f));
    cr_assert_float_eq(y[0], 160 / 63.5f * 0.25f, 1e-6);
}

Test(reference, int32_accumulators_exposed)
{
    int8_t w[4] = {1, 1, 1, 1};
    int8_t q[4] = {127, 127, 127, -1};
    float xs = 1.0f, y;
    int32_t acc;
    mp_ref_gemm_q(w, 1.0f, 1, 4, q, &xs, 1, &y, &acc, 0, 1);
    cr_assert_eq(acc, 380);
    cr_assert_eq(y, 380.0f);
}

Test(reference, float_oracle_is_double_precision)
{
    int8_t w[3] = {1, -1, 1};
    float x[3] = {1e8f, 1e8f, 1.0f};
    float y;
    mp_float_gemm(w, 1.0f, 1, 3, x, 1, &y, 0, 1);
    cr_assert_eq(y, 1.0f); /* float accumulation in this order would also give 1, but */
    float x2[3] = {1.0f, 1e8f, 1e8f};
    int8_t w2[3] = {1, 1, -1};
    mp_float_gemm(w2, 1.0f, 1, 3, x2, 1, &y, 0, 1);
    cr_assert_eq(y, 1.0f); /* ...float order would lose the 1 here: (1 + 1e8) - 1e8 = 0 */
}

Test(reference, generators_are_seeded)
{
    int8_t a[1000], b[1000];
    mp_gen_weights(42, a, 1000, 0);
    mp_gen_weights(42, b, 1000, 0);
    int counts[3] = {0};
    for (int i = 0; i < 1000; i++) {
        cr_assert_eq(a[i], b[i]);
        cr_assert(a[i] >= -1 && a[i] <= 1);
        counts[a[i] + 1]++;
    }
    for (int i = 0; i < 3; i++) /* roughly a third each */
        cr_assert(counts[i] > 250 && counts[i] < 420, "value %d drawn %d times", i - 1, counts[i]);
    mp_gen_weights(42, a, 1000, 1);
    for (int i = 0; i < 1000; i++)
        cr_assert(a[i] == -1 || a[i] == 1);
}

/* The definition the fast generator must keep: one splitmix64 word gives 21
 * draws of 3 bits, low bits first; ternary keeps 0..5 as v % 3 - 1, binary maps
 * the low bit to +-1; a word's draws beyond `count` are dropped. */
static void gen_weights_by_definition(uint64_t seed, int8_t *w, size_t count, int binary)
{
    mp_rng r = {seed * 0x2545f4914f6cdd1dull + 1};
    size_t i = 0;
    while (i < count) {
        uint64_t bits = mp_rng_next(&r);
        for (int j = 0; j < 21 && i < count; j++, bits >>= 3) {
            unsigned v = (unsigned)(bits & 7);
            if (binary)
                w[i++] = (v & 1) ? 1 : -1;
            else if (v < 6)
                w[i++] = (int8_t)((int)(v % 3) - 1);
        }
    }
}

Test(reference, weight_generator_keeps_its_sequence_at_every_length)
{
    enum { MAXN = 300 };
    int8_t got[MAXN + 8], want[MAXN];
    for (int binary = 0; binary < 2; binary++)
        for (size_t n = 0; n <= MAXN; n++) {
            memset(got, 0x55, sizeof got);
            mp_gen_weights(7 + n, got, n, binary);
            gen_weights_by_definition(7 + n, want, n, binary);
            cr_assert(n == 0 || !memcmp(got, want, n), "binary=%d count=%zu: sequence differs",
                      binary, n);
            for (size_t i = n; i < sizeof got; i++) /* nothing written at or past count */
                cr_assert_eq(got[i], 0x55, "binary=%d count=%zu: wrote byte %zu", binary, n, i);
        }
    /* long enough that every 12-bit chunk of the table loop comes up many times */
    enum { LONG = 1 << 20 };
    int8_t *lg = mp_alloc(LONG + 8), *lw = mp_alloc(LONG);
    for (int binary = 0; binary < 2; binary++) {
        memset(lg, 0x55, LONG + 8);
        mp_gen_weights(99, lg, LONG, binary);
        gen_weights_by_definition(99, lw, LONG, binary);
        size_t i = 0;
        while (i < LONG && lg[i] == lw[i])
            i++;
        cr_assert(i == LONG, "binary=%d, %d values: first difference at %zu", binary, LONG, i);
        cr_assert_eq(lg[LONG], 0x55, "binary=%d: wrote past %d values", binary, LONG);
    }
    mp_free(lg);
    mp_free(lw);
}

/* The activation generator's definition, which its table of quotients must
 * keep: per value one splitmix64 word, the sum in order of its four 16-bit
 * fields each divided by 65535, minus 2, times 1.7, and times 8 when the low
 * 10 bits are zero. */
static void acts_by_definition_check(const char *copy, const float *got, int n, uint64_t seed)
{
    mp_rng r = {seed * 0x9e3779b97f4a7c15ull + 7};
    int outliers = 0;
    for (int i = 0; i < n; i++) {
        uint64_t b = mp_rng_next(&r);
        float s = 0.0f;
        for (int j = 0; j < 4; j++)
            s += (float)((b >> (16 * j)) & 0xffff) / 65535.0f;
        float v = (s - 2.0f) * 1.7f;
        if ((b & 0x3ff) == 0)
            v *= 8.0f, outliers++;
        cr_assert(!memcmp(&v, &got[i], sizeof v), "%s copy, value %d of %d: %.9g, by "
                  "definition %.9g", copy, i, n, got[i], v);
    }
    cr_assert(n < 4096 || outliers > 0, "%s copy: no outliers in %d values", copy, n);
}

/* Every copy of it (the dispatcher's choice, the portable one, the AVX-512
 * one) at a long length and at lengths around its 8-value step. */
Test(reference, activation_generator_keeps_its_definition)
{
    enum { N = 200000 }; /* every 16-bit field value many times over */
    float *got = mp_alloc(sizeof(float) * (N + 1));
    typedef void (*gen_fn)(uint64_t, float *, size_t);
    struct { const char *name; gen_fn fn; } copies[3] = {{"dispatched", mp_gen_acts},
                                                        {"portable", mp_gen_acts_portable}};
    int ncopies = 2;
#if defined(__x86_64__)
    if (mp_isa_hardware() & MP_ISA_AVX512)
        copies[ncopies].name = "avx512", copies[ncopies++].fn = mp_gen_acts__avx512;
#endif
    for (int c = 0; c < ncopies; c++) {
        int lens[] = {N, 0, 1, 7, 8, 9, 15, 17, 1001};
        for (size_t l = 0; l < sizeof lens / sizeof *lens; l++) {
            got[lens[l]] = 12345.0f; /* guard */
            copies[c].fn(99 + l, got, (size_t)lens[l]);
            acts_by_definition_check(copies[c].name, got, lens[l], 99 + l);
            cr_assert_eq(got[lens[l]], 12345.0f, "%s copy wrote past %d values",
                         copies[c].name, lens[l]);
        }
    }
    mp_free(got);
}
