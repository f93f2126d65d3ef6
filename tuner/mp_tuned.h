/* mp_tuned.h - tuned configs: the tuner's winners as plain text, one line per
 * key, read back by the end-to-end runner.
 *
 * File format (results/tuned/MACHINE.conf):
 *   # comment lines and blank lines are ignored
 *   fingerprint amd-epyc-2c-5bb5e534          <- required, first non-comment line
 *   VARIANT MxK n=N threads=T PARAMS          <- one line per tuned key
 * PARAMS is "name=value,..." or "-" for a variant without parameters, e.g.
 *   tl2_0.avx512.bm32 6912x2560 n=1 threads=2 -
 *   vlut_i2.avx512 2560x6912 n=32 threads=1 ktile=64,ntile=32
 * Loading checks every line: five fields, every integer checked (mp_parse_long:
 * M, K in [1, INT_MAX/2] with M*K <= INT_MAX, N in [1, 65536], T in [1, 1024],
 * the CLI's limits), known variant, parameters in its space; a file whose
 * fingerprint differs from this machine's is refused unless forced. */
#ifndef MP_TUNED_H
#define MP_TUNED_H

#include <stddef.h>

#include "../kernels/mp_kernel.h"

/* Return codes, numerically the harness's (0 ok, 1 run-time/I-O, 2 bad input),
 * so a command can pass them on; messages go to why[len]. */
enum { MP_TUNED_OK = 0, MP_TUNED_EIO = 1, MP_TUNED_EINPUT = 2 };

typedef struct mp_tuned_entry {
    const mp_variant *v;
    int m, k, n, threads;
    int param[MP_MAX_PARAMS];
} mp_tuned_entry;

typedef struct mp_tuned {
    char fingerprint[64];
    int count;
    mp_tuned_entry *e;
} mp_tuned;

/* Parses path; errors name the file and line.  fingerprint: this machine's (NULL
 * skips the check); force: accept a mismatch with a warning on stderr. */
int mp_tuned_load(const char *path, const char *fingerprint, int force, mp_tuned *out,
                  char *why, size_t len);
/* The entry for (variant, m, k) closest in n and threads, or NULL. */
const mp_tuned_entry *mp_tuned_find(const mp_tuned *t, const mp_variant *v, int m, int k,
                                    int n, int threads);
/* Writes the file (atomically: temp file + rename). */
int mp_tuned_save(const char *path, const mp_tuned *t, char *why, size_t len);
void mp_tuned_free(mp_tuned *t);

#endif
