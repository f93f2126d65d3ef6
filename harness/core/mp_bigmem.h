/* mp_bigmem.h - large buffers on 2 MiB pages (harness/bigmem.c): weight
 * copies of the cold-cache rotation, probe streams, the end-to-end runner's
 * weights, embedding, head and KV cache.  Free either kind with mp_big_free. */
#ifndef MP_BIGMEM_H
#define MP_BIGMEM_H

#include <stddef.h>

/* Whether the measurement engine puts its buffers on 2 MiB pages
 * (MPBENCH_HUGEPAGES=1; off by default, see bigmem.c). */
int mp_big_pages(void);
/* On the engine's page kind; mp_big_settle once the buffer is filled. */
void *mp_big_alloc(size_t bytes);
void mp_big_settle(void *p, size_t bytes);
/* On the page kind the caller asks for (1: 2 MiB pages), for buffers that must
 * sit on the same kind of pages as what they are compared with (e2e's weights
 * and the probe that bounds them).  Aborts, naming the size, when memory is out. */
void *mp_big_alloc_as(size_t bytes, int huge);
void mp_big_settle_as(void *p, size_t bytes, int huge);
void mp_big_free(void *p);

#endif
