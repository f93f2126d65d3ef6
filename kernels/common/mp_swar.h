/* mp_swar.h - byte-parallel (SWAR) helpers the weight packers share: eight int8
 * weights read as one 64-bit word, their codes derived with bit operations and
 * their bits gathered with one carry-free multiply, instead of one weight at a
 * time.  The packers run once per tensor, but for a whole model they were most
 * of an end-to-end run's setup.  Portable C (no intrinsics, no ISA flags).
 *
 * Loads and stores are spelled byte by byte, little-endian, so the results do
 * not depend on the host's byte order; GCC and clang turn each into one plain
 * load or store on a little-endian host. */
#ifndef MP_SWAR_H
#define MP_SWAR_H

#include <stdint.h>

#define MP_SWAR_LSB 0x0101010101010101ull /* bit 0 of every byte */

/* Byte i of p is bits 8i .. 8i + 7 of the result. */
static inline uint64_t mp_swar_ld64(const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24 |
           (uint64_t)b[4] << 32 | (uint64_t)b[5] << 40 | (uint64_t)b[6] << 48 |
           (uint64_t)b[7] << 56;
}

static inline uint32_t mp_swar_ld32(const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* x into bytes p[0..3] (p[0..7]), least significant first; spelled out, not a
 * loop, so that the compiler merges the byte stores into one. */
static inline void mp_swar_st32(void *p, uint32_t x)
{
    uint8_t *b = (uint8_t *)p;
    b[0] = (uint8_t)x, b[1] = (uint8_t)(x >> 8), b[2] = (uint8_t)(x >> 16);
    b[3] = (uint8_t)(x >> 24);
}

static inline void mp_swar_st64(void *p, uint64_t x)
{
    mp_swar_st32(p, (uint32_t)x);
    mp_swar_st32((uint8_t *)p + 4, (uint32_t)(x >> 32));
}

/* The codes w + 1 in {0, 1, 2} of eight weights w in {-1, 0, 1} (bytes 0xff,
 * 0x00, 0x01), one per byte.  A plain add of 1 per byte would carry out of every
 * 0xff byte into the next one; with bit 7 cleared first (0xff -> 0x7f) no byte
 * carries, and bits 0-1 of 0x80, 0x01, 0x02 are the codes.  Any other byte gives
 * a code in 0..3, so multiplies by small weights of these codes stay carry-free
 * whatever the input. */
static inline uint64_t mp_swar_tern_codes(uint64_t x)
{
    return ((x & 0x7f7f7f7f7f7f7f7full) + MP_SWAR_LSB) & 0x0303030303030303ull;
}

/* Eight bytes each 0 or 1 (bit 0 of its byte) -> bit i = byte i.  The
 * multiplier has bits 56 - 7i, so byte i's bit lands at bit 56 + i; every other
 * product lands at 56 + 8i - 7j, all distinct (no carry) and, for i != j, never
 * in bits 56 .. 63. */
static inline unsigned mp_swar_gather8(uint64_t x)
{
    return (unsigned)((x * 0x0102040810204080ull) >> 56);
}

/* Bits 0 and 4 of bytes i = 0..3 of z -> bits i and 4 + i of one byte (two
 * nibbles of 4 flags each).  Times 2^56 + 2^49 + 2^42 + 2^35 they land at bits
 * 56 + i and 60 + i; every product has its own bit (no carry), no other one of
 * bytes 0-3 lands in bits 56-63, and those of bytes 4-7 land above bit 63. */
static inline uint8_t mp_swar_nibbles(uint64_t z)
{
    return (uint8_t)((z * 0x0102040800000000ull) >> 56);
}

#endif
