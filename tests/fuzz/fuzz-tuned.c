/* fuzz-tuned.c - tuned config files (tuner/tuned.c): loaded without a
 * fingerprint check, then looked up as the e2e runner does. */
#include "mp_fuzz.h"
#include "../../harness/core/mp_core.h"
#include "../../tuner/mp_tuned.h"
#include "../../variants/mp_registry.h"

int mp_fuzz_tuned(const uint8_t *data, size_t size)
{
    const char *path = mp_fuzz_file(data, size, ".cfg");
    mp_tuned t;
    char why[512];
    if (mp_tuned_load(path, NULL, 1, &t, why, sizeof why) == MP_TUNED_OK) {
        for (int i = 0; i < mp_registry_count() && i < 8; i++)
            mp_tuned_find(&t, mp_registry_get(i), 2560, 2560, 1, 1);
        mp_tuned_free(&t);
    }
    return 0;
}
