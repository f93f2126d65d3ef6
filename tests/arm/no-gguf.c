/* no-gguf.c - the AArch64 test driver links harness/models.c for the model
 * files but not the GGUF reader (it runs kernels only): these two stand in for
 * harness/gguf-read.c and harness/gguf-model.c there and refuse GGUF input. */
#include "../../harness/gguf/mp_gguf.h"

int mp_gguf_is_file(const char *path)
{
    (void)path;
    return 0;
}

int mp_gguf_model_load(const char *path, mp_model *m, mp_err *e)
{
    (void)m;
    return mp_fail(e, MP_EUSAGE, "%s: GGUF files are not read by the AArch64 test driver", path);
}
