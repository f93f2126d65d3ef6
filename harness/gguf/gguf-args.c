/* gguf-args.c - what every command does with a --gguf FILE argument: load and
 * check the file's architecture (mp_gguf_arg), and, for e2e, open it as the
 * runner's weight source, checked ternary, kept open until exit. */
#include <stdlib.h>

#include "../e2e/mp_e2e.h"
#include "mp_gguf.h"
#include "../core/mp_core.h"

int mp_gguf_arg(const char *path)
{
    mp_model m;
    mp_err e;
    int rc = mp_gguf_model_load(path, &m, &e);
    return rc ? mp_die(rc, "--gguf %s", e.msg) : 0;
}

/* The weight source of e2e --gguf: one per process, released at exit. */
static mp_gguf *src_file;
static mp_e2e_source src_keep;

static void src_release(void)
{
    mp_gguf_source_free(&src_keep);
    mp_gguf_close(src_file);
    src_file = NULL;
}

int mp_gguf_e2e_source(const char *path, const mp_model *m, int layers, const mp_e2e_source **src)
{
    mp_err e;
    int rc;
    if (src_file)
        return mp_die(1, "internal: a second GGUF weight source");
    if ((rc = mp_gguf_open(path, &src_file, &e)) || (rc = mp_gguf_check_types(src_file, &e)) ||
        (rc = mp_gguf_check_ternary(src_file, m, layers, &e)) ||
        (rc = mp_gguf_source(src_file, m, &src_keep, &e))) {
        mp_gguf_close(src_file);
        src_file = NULL;
        return mp_die(rc, "%s", e.msg);
    }
    atexit(src_release);
    *src = &src_keep;
    return 0;
}

