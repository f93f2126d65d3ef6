/* test_i2s.c - I2_S and NAIVE2 layouts checked against bytes worked out by hand. */
#include <criterion/criterion.h>
#include <string.h>

#include "mp_test.h"
#include "../variants/mp_registry.h"
#include "../kernels/common/mp_numerics.h"

Test(i2s, packs_by_hand)
{
    /* One row, K = 128.  Weights: w[0] = +1, w[32] = -1, w[64] = 0, w[96] = +1,
     * everything else 0.  Codes are w + 1: byte 0 = (2<<6)|(0<<4)|(1<<2)|2 = 0x86;
     * all other bytes hold four zeros = code 1 each = 0b01010101 = 0x55. */
    const mp_variant *v = mp_registry_find("i2_s.scalar");
    cr_assert(v);
    int8_t w[128] = {0};
    w[0] = 1, w[32] = -1, w[64] = 0, w[96] = 1;
    int param[MP_MAX_PARAMS] = {0};
    size_t bytes = v->packed_size(1, 128, param);
    cr_assert_eq(bytes, 32 + 32, "32 bytes of codes + 32-byte scale trailer");
    uint8_t p[64];
    v->pack(w, 0.75f, 1, 128, param, p);
    cr_assert_eq(p[0], 0x86, "byte 0 = 0x%02x", p[0]);
    for (int j = 1; j < 32; j++)
        cr_assert_eq(p[j], 0x55, "byte %d = 0x%02x", j, p[j]);
    float s;
    memcpy(&s, p + 32, 4);
    cr_assert_eq(s, 0.75f, "scale in the trailer");
    mp_test_unpacks_to(v, p, 1, 128, param, w);
}

Test(i2s, bpw_is_two)
{
    const mp_variant *v = mp_registry_find("i2_s.avx2");
    int param[MP_MAX_PARAMS] = {0};
    double bpw = 8.0 * (double)v->packed_size(6912, 2560, param) / (6912.0 * 2560);
    cr_assert(bpw > 2.0 && bpw < 2.0001, "bpw %f", bpw);
}

Test(naive2, packs_by_hand)
{
    /* seed 002: 00 = 0, 01 = +1, 10 = -1, weight i of a byte in bits 2i+1..2i.
     * Row [1, -1, 0, 1, -1] -> byte 0 = 01 | 10<<2 | 00<<4 | 01<<6 = 0x49,
     * byte 1 = 10 = 0x02 (K = 5: two bytes). */
    const mp_variant *v = mp_registry_find("naive2.scalar");
    int8_t w[5] = {1, -1, 0, 1, -1};
    int param[MP_MAX_PARAMS] = {0};
    uint8_t p[64];
    cr_assert_eq(v->packed_size(1, 5, param), 2 + 32);
    v->pack(w, 1.0f, 1, 5, param, p);
    cr_assert_eq(p[0], 0x49, "byte 0 = 0x%02x", p[0]);
    cr_assert_eq(p[1], 0x02, "byte 1 = 0x%02x", p[1]);
    mp_test_unpacks_to(v, p, 1, 5, param, w);
}
