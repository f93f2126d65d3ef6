/* test_bigmem.c - the engine's large buffers are reused between points
 * (harness/core/bigmem.c): a freed buffer serves the next allocation it holds,
 * a miss releases what is kept, and the bytes are the caller's to write. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mp_test.h"
#include "../harness/core/mp_bigmem.h"

#if defined(__SANITIZE_ADDRESS__)
#define REUSE 0
#else
#define REUSE 1
#endif

Test(bigmem, a_freed_buffer_serves_the_next_that_fits)
{
    if (!REUSE || mp_big_pages())
        cr_skip_test("no reuse under AddressSanitizer or with MPBENCH_HUGEPAGES=1");
    size_t mb = 1u << 20;
    uint8_t *a = mp_big_alloc(8 * mb);
    memset(a, 0x5a, 8 * mb);
    mp_big_free(a);
    uint8_t *b = mp_big_alloc(6 * mb); /* fits: the same buffer */
    cr_assert_eq(b, a, "a freed 8 MiB buffer was not reused for 6 MiB");
    memset(b, 1, 6 * mb);
    uint8_t *c = mp_big_alloc(3 * mb); /* nothing kept: a new one */
    cr_assert_neq(c, b);
    memset(c, 2, 3 * mb);
    mp_big_free(b);
    mp_big_free(c);
    uint8_t *d = mp_big_alloc(3 * mb); /* the smallest that holds it: c */
    cr_assert_eq(d, c, "not the smallest kept buffer");
    uint8_t *e = mp_big_alloc(16 * mb); /* a miss: b released, a new one */
    cr_assert_neq(e, b);
    memset(e, 3, 16 * mb);
    mp_big_free(d);
    mp_big_free(e);
    uint8_t *small = mp_big_alloc(4096); /* small buffers are plain allocations */
    cr_assert_neq(small, d);
    mp_big_free(small);
}
