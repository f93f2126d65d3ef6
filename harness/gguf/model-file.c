/* model-file.c - a model by name or file: a GGUF file (issue 19: by its name
 * or by its magic) is read by gguf-model.c, anything else is a model text file
 * of models/shapes (core/models.c).  Here, above both, so that core/ never
 * calls into gguf/; the AArch64 test driver links it with its no-GGUF stubs. */
#include <string.h>

#include "mp_gguf.h"

int mp_model_load(const char *name, mp_model *m, mp_err *e)
{
    if (!name || !*name)
        return mp_model_load_text(name, m, e);
    size_t nlen = strlen(name);
    if ((nlen > 5 && !strcmp(name + nlen - 5, ".gguf")) || mp_gguf_is_file(name))
        return mp_gguf_model_load(name, m, e);
    return mp_model_load_text(name, m, e);
}
