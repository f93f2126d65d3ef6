/* fuzz-model.c - model architecture files (harness/models.c): an accepted file
 * gives shapes every kernel can index (M x K within 32 bits, all positive). */
#include <limits.h>
#include <stdlib.h>

#include "mp_fuzz.h"
#include "../../harness/core/mp_core.h"
#include "../../harness/gguf/mp_gguf.h"

int mp_fuzz_model(const uint8_t *data, size_t size)
{
    const char *path = mp_fuzz_file(data, size, ".txt");
    mp_model m;
    mp_err e;
    if (mp_model_load(path, &m, &e) != MP_OK)
        return 0;
    int shapes[8][2];
    char names[8][32];
    int ns = mp_model_shapes(&m, shapes, names);
    if (ns < 1 || ns > 8)
        abort();
    for (int i = 0; i < ns; i++)
        if (shapes[i][0] < 1 || shapes[i][1] < 1 || (double)shapes[i][0] * shapes[i][1] > INT_MAX)
            abort();
    return 0;
}
