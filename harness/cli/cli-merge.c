/* cli-merge.c - `mpbench merge OUT.db IN.db...`: fold databases from several
 * machines (or sweep shards) into one.  Machines are matched by fingerprint and
 * keep it; a run already present in OUT (the same run uid) is skipped whole;
 * sweep results are unique per sweep key and item, so shards of one sweep merge
 * into exactly the unsharded set.  Every input is checked (read-only) before
 * OUT is opened, so a bad input leaves OUT untouched (or not created); each
 * input is then merged in one transaction and verified.  This
 * file handles the arguments and messages; the merge itself is the store's
 * (store-merge.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../store/mp_store_internal.h"
#include "mp_cli.h"
#include "../store/mp_store.h"
#include "../core/mp_core.h"
#include "../store/mp_store_merge.h"

int mp_cmd_merge(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "--help")) {
        puts("usage: mpbench merge OUT.db IN.db [IN.db...]\n"
             "  Merges the inputs into OUT (created if missing), without duplicates.");
        return 0;
    }
    if (argc < 3)
        return mp_die(2, "usage: mpbench merge OUT.db IN.db [IN.db...]");
    mp_err e;
    int rc;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], argv[1]) || mp_same_file(argv[i], argv[1]))
            return mp_die(2, "merge: input %s is also the output %s", argv[i], argv[1]);
        if ((rc = mp_store_merge_check(argv[i], &e)))
            return mp_die(rc, "%s; nothing merged", e.msg);
    }
    if (mp_parse_only_stop("merge"))
        return 0;
    mp_store *store;
    rc = mp_store_open(argv[1], &store, &e);
    if (rc)
        return mp_die(rc, "%s", e.msg);
    for (int i = 2; i < argc && !rc; i++) {
        long added = 0, skipped = 0;
        rc = mp_store_merge(store, argv[i], &added, &skipped, &e);
        if (!rc)
            fprintf(stderr, "mpbench: merged %s: %ld runs added, %ld already present\n", argv[i],
                    added, skipped);
    }
    mp_store_close(store);
    return rc ? mp_die(rc, "%s", e.msg) : 0;
}
