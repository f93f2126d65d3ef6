/* fuzz-gguf.c - GGUF files (harness/gguf-read.c, gguf-model.c): parsed from
 * memory, then the decoder architecture taken from them. */
#include <stdlib.h>
#include <string.h>

#include "mp_fuzz.h"
#include "../../harness/gguf/mp_gguf.h"

int mp_fuzz_gguf(const uint8_t *data, size_t size)
{
    /* a copy of exactly size bytes, so ASan sees every read past the end */
    uint8_t *buf = malloc(size ? size : 1);
    memcpy(buf, data, size);
    mp_gguf *g;
    mp_err e;
    if (mp_gguf_parse(buf, size, "fuzz.gguf", &g, &e) == MP_OK) {
        mp_model m;
        mp_gguf_model(g, &m, &e);
        mp_gguf_close(g);
    }
    free(buf);
    return 0;
}
