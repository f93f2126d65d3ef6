/* fuzz-db.c - database files from elsewhere, as `merge`, `compare` and
 * `report` meet them: checked read-only (mp_store_verify); one that passes is
 * read by compare and merged into an in-memory store.  Nothing may crash, and
 * the input file is never written. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mp_fuzz.h"
#include "../../harness/mp_harness.h"
#include "../../harness/mp_store_compare.h"
#include "../../harness/mp_store_merge.h"

int mp_fuzz_db(const uint8_t *data, size_t size)
{
    const char *path = mp_fuzz_file(data, size, ".db");
    mp_err e;
    int version;
    if (mp_store_verify(path, "fuzz", &version, &e) == MP_OK && version > 0) {
        mp_cmp_run r;
        if (mp_store_compare_read(path, "--base", 0, &r, &e) == MP_OK)
            mp_store_compare_free(&r);
        mp_store *s;
        if (mp_store_open(":memory:", &s, &e) == MP_OK) {
            long added = 0, skipped = 0;
            mp_store_merge(s, path, &added, &skipped, &e);
            mp_store_close(s);
        }
    }
    struct stat st;
    if (stat(path, &st) != 0 || (size_t)st.st_size != size)
        abort(); /* the input was written to */
    return 0;
}
