/* mp_e2e_cache.h - the end-to-end runner's on-disk packed-weight cache
 * (harness/e2e-cache.c): one file per (model, weights, seed, variant,
 * parameters, linear) holding that linear's packed tensors of every layer. */
#ifndef MP_E2E_CACHE_H
#define MP_E2E_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/mp_core.h"

enum { MP_E2E_CACHE_HIT, MP_E2E_CACHE_MISS, MP_E2E_CACHE_STALE, MP_E2E_CACHE_CORRUPT };

/* The build identity that goes into every key (packs of another build are stale). */
const char *mp_e2e_cache_build(void);
/* Reads the file named by ident in dir into n buffers of the given sizes and
 * their scales.  HIT only when the file's key equals key, every size matches
 * and every checksum verifies; otherwise MISS (no file), STALE (another key) or
 * CORRUPT (short, bad checksum, bad header), with note saying what, and the
 * buffers' contents are unspecified (the caller rebuilds them). */
int mp_e2e_cache_load(const char *dir, const char *ident, const char *key, int n,
                      uint8_t *const *buf, const size_t *size, float *scale, char *note,
                      size_t notelen);
/* Writes the file (a temporary, then renamed over the old one: a reader never
 * sees half a file).  Errors name the path. */
int mp_e2e_cache_save(const char *dir, const char *ident, const char *key, int n,
                      uint8_t *const *buf, const size_t *size, const float *scale, mp_err *e);
/* The file's path for ident (for tests and messages). */
void mp_e2e_cache_path(const char *dir, const char *ident, char *path, size_t len);

#endif
