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
#include "mp_paths.h"
#include "mp_cli.h"
#include "../store/mp_store.h"
#include "../core/mp_core.h"
#include "../store/mp_store_merge.h"
#include "mp_options.h"

typedef struct merge_opts {
    int replace;
} merge_opts;

int mp_cmd_merge(int argc, char **argv)
{
    static const mp_opt opts[] = {
        MP_OPT_F("replace", 0, merge_opts, replace,
                 "the inputs' rows replace OUT's rows of the same plans"),
        MP_OPT_END};
    static const mp_cmd_spec spec = {
        .name = "merge", .synopsis = "[--replace] OUT.db IN.db [IN.db...]", .opts = opts,
        .about = "Merges the inputs into OUT (created if missing), without duplicates.  A\n"
                 "row of a plan OUT already holds (the same command on the same machine: a\n"
                 "sweep's key, an e2e plan) is kept and the input's not added; with\n"
                 "--replace the input's replaces it, and a run of OUT left with no rows is\n"
                 "removed (`make regress-baseline` re-recording this machine's baseline).\n",
        .max_pos = MP_OPTS_MAX_POS};
    merge_opts o = {0};
    mp_opts_out po;
    mp_err e;
    int rc;
    if ((rc = mp_opts_parse(&spec, argc, argv, &o, &po)) || po.help)
        return rc;
    if (po.npos < 2)
        return mp_die(2, "usage: mpbench merge [--replace] OUT.db IN.db [IN.db...]");
    const char *out = po.pos[0], *const *in = po.pos + 1;
    int nin = po.npos - 1;
    const mp_path outp = {"OUT", out, MP_PATH_DB, NULL};
    if ((rc = mp_paths_check("merge", &outp, 1)))
        return rc;
    for (int i = 0; i < nin; i++) {
        if (!strcmp(in[i], out) || mp_same_file(in[i], out))
            return mp_die(2, "merge: input %s is also the output %s", in[i], out);
        if ((rc = mp_store_merge_check(in[i], &e)))
            return mp_die(rc, "%s; nothing merged", e.msg);
    }
    if (mp_parse_only_stop("merge"))
        return 0;
    mp_store *store;
    rc = mp_store_open(out, &store, &e);
    if (rc)
        return mp_die(rc, "%s", e.msg);
    for (int i = 0; i < nin && !rc; i++) {
        long added = 0, skipped = 0, kept = 0, replaced = 0, removed = 0;
        rc = o.replace ? mp_store_merge_replace(store, in[i], &added, &skipped, &replaced,
                                                &removed, &e)
                       : mp_store_merge(store, in[i], &added, &skipped, &kept, &e);
        if (!rc)
            fprintf(stderr, "mpbench: merged %s: %ld runs added, %ld already present\n", in[i],
                    added, skipped);
        if (!rc && o.replace)
            fprintf(stderr, "mpbench: merged %s: %ld rows of the same plans replaced, %ld runs "
                            "left empty removed\n", in[i], replaced, removed);
        if (!rc && kept)
            fprintf(stderr, "mpbench: merged %s: %ld rows of its new runs not added: %s holds "
                            "rows of the same plans (the same command on this machine), kept\n",
                    in[i], kept, out);
    }
    mp_store_close(store);
    return rc ? mp_die(rc, "%s", e.msg) : 0;
}
