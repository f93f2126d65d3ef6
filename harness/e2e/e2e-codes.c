/* e2e-codes.c - ternary weights to and from 2-bit codes (mp_e2e_codes.h): the
 * portable copy and the choice of copy.  A run's shared weights are coded once
 * and decoded for every variant after the first, 2.08 G weights each for the
 * 2B-4T model (issue 17: the byte-at-a-time loops held 12% of a 3-variant
 * setup's samples). */
#include "mp_e2e_codes.h"

#include <pthread.h>
#include <string.h>

#if defined(__x86_64__)
#include "../../kernels/common/mp_isa.h"
#include "../../kernels/mp_kernel.h"
#endif

/* Eight weights a word: per byte 0xff, 0x00, 0x01 -> code 0, 1, 2 = (bit 0 and
 * not the sign) << 1 | not bit 0, with no carry between bytes; then the eight
 * 2-bit codes folded into two bytes, neighbours pairwise (little-endian: byte
 * j of the word is bits 8j .. 8j + 7, as on every target). */
void mp_e2e_codes_pack_portable(const int8_t *w, size_t n, uint8_t *c)
{
    const uint64_t ones = 0x0101010101010101ull;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, w + i, 8);
        uint64_t t = ((v & ~(v >> 7) & ones) << 1) | (~v & ones);
        t = (t | t >> 6) & 0x000f000f000f000full;  /* 4 bits per 16 */
        t = (t | t >> 12) & 0x000000ff000000ffull; /* 8 bits per 32 */
        c[i / 4] = (uint8_t)t;
        c[i / 4 + 1] = (uint8_t)(t >> 32);
    }
    for (; i < n; i += 4) {
        unsigned b = 0;
        for (size_t j = 0; j < 4 && i + j < n; j++)
            b |= (unsigned)(w[i + j] + 1) << (2 * j);
        c[i / 4] = (uint8_t)b;
    }
}

static uint32_t unpack4[256]; /* a code byte's four weights, little-endian */
static pthread_once_t unpack4_once = PTHREAD_ONCE_INIT;

static void unpack4_fill(void)
{
    for (int b = 0; b < 256; b++)
        for (int j = 0; j < 4; j++)
            ((int8_t *)&unpack4[b])[j] = (int8_t)(((b >> (2 * j)) & 3) - 1);
}

void mp_e2e_codes_unpack_portable(const uint8_t *c, size_t n, int8_t *w)
{
    pthread_once(&unpack4_once, unpack4_fill);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v = unpack4[c[i / 4]] | (uint64_t)unpack4[c[i / 4 + 1]] << 32;
        memcpy(w + i, &v, 8);
    }
    for (; i < n; i++)
        w[i] = (int8_t)(((c[i / 4] >> (2 * (i % 4))) & 3) - 1);
}

static void (*pack_fn)(const int8_t *, size_t, uint8_t *);
static void (*unpack_fn)(const uint8_t *, size_t, int8_t *);
static pthread_once_t pick_once = PTHREAD_ONCE_INIT;

static void pick(void)
{
    pack_fn = mp_e2e_codes_pack_portable;
    unpack_fn = mp_e2e_codes_unpack_portable;
#if defined(__x86_64__)
    if (mp_isa_detect() & MP_ISA_AVX512) {
        pack_fn = mp_e2e_codes_pack__avx512;
        unpack_fn = mp_e2e_codes_unpack__avx512;
    }
#endif
}

void mp_e2e_codes_pack(const int8_t *w, size_t n, uint8_t *c)
{
    pthread_once(&pick_once, pick);
    pack_fn(w, n, c);
}

void mp_e2e_codes_unpack(const uint8_t *c, size_t n, int8_t *w)
{
    pthread_once(&pick_once, pick);
    unpack_fn(c, n, w);
}
