/* mp_paths.h - the one rule for a command's output paths (issue 40): an
 * output never names an existing input of the same command (same inode:
 * ./x, a/../x, absolute, symlinks, hard links, symlinked folders), never an
 * existing non-regular file (a FIFO, a device, a folder where a file goes),
 * and its folder can take it, all checked before anything is measured. */
#ifndef MP_PATHS_H
#define MP_PATHS_H

#include "../core/mp_core.h"

typedef enum mp_path_kind {
    MP_PATH_IN,   /* an input read by the command */
    MP_PATH_FILE, /* an output file (written to a temporary file, renamed) */
    MP_PATH_DB,   /* a database written in place (its folder takes the journal) */
    MP_PATH_DIR,  /* an output folder, created with its parents; names: its files */
} mp_path_kind;

typedef struct mp_path {
    const char *opt;  /* "--out", "OUT": the messages name it */
    const char *path; /* NULL: not given, skipped */
    mp_path_kind kind;
    const char *const *names; /* DIR: the names it writes ("*.conf": any such), NULL-ended */
} mp_path;

/* Checks every output of paths[0..n) against the rule.  Returns 0, or prints
 * "mpbench: CMD: ..." naming the options and paths and returns MP_EUSAGE (an
 * output that is an input, a special file, an empty name) or MP_EIO (no such
 * folder, a read-only one, a folder where a file goes). */
int mp_paths_check(const char *cmd, const mp_path *paths, int n);

/* A link from the file `from` to `path`, both as given on the command line
 * (relative to the current folder, or absolute): path itself when it is
 * absolute or `from` sits in the current folder; else relative to from's
 * folder (D/plots from D/REPORT.md is "plots"; results/plots from D/REPORT.md is
 * "../results/plots"), so a report and what it links can move together; the
 * absolute path when from's folder has a ".." step. */
void mp_path_link(const char *from, const char *path, char *buf, size_t len);

#endif
