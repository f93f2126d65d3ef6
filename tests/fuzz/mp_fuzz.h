/* mp_fuzz.h - the fuzz targets of issue 20: one entry point per parser of
 * outside input, each taking arbitrary bytes and returning 0.  They are linked
 * twice: into libFuzzer binaries (`make fuzz`, one target each, MP_FUZZ_TARGET
 * selects which entry is LLVMFuzzerTestOneInput) and into the Criterion tests,
 * which replay every committed corpus file and every past crash
 * (tests/fuzz/corpus/TARGET/) through the same entry. */
#ifndef MP_FUZZ_H
#define MP_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* --shape, --n, --threads, --shard, --min-time style numbers, --variant, --params */
int mp_fuzz_args(const uint8_t *data, size_t size);
/* a model architecture file (models/shapes/NAME.txt) */
int mp_fuzz_model(const uint8_t *data, size_t size);
/* a tuned config file (tuner/mp_tuned.h) */
int mp_fuzz_tuned(const uint8_t *data, size_t size);
/* a GGUF file: the reader, then the architecture taken from it */
int mp_fuzz_gguf(const uint8_t *data, size_t size);
/* a database file as merge, compare and report open it */
int mp_fuzz_db(const uint8_t *data, size_t size);
/* a whole command line, one argument per line, through the command table in
 * parse-only mode (tests/fuzz/fuzz-cli.c) */
int mp_fuzz_cli(const uint8_t *data, size_t size);
/* The CLI target's runner, for tests: runs the command line `args` (len bytes,
 * arguments separated by '\n') as mp_fuzz_cli does; returns its exit code, or
 * -1 when it wrote into the scratch folder, and sets *stopped (if not NULL) to
 * the command that stopped after validation (NULL: none did). */
int mp_fuzz_cli_exec(const char *args, size_t len, const char **stopped);
/* The scratch folder the command lines run in (created on first use). */
const char *mp_fuzz_cli_dir(void);

/* The bytes as a file the parsers can open by path (one per process, rewritten
 * each call; under /dev/shm when it exists).  Returns its path. */
const char *mp_fuzz_file(const uint8_t *data, size_t size, const char *suffix);

#ifdef MP_FUZZ_TARGET
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return MP_FUZZ_TARGET(data, size);
}
#endif

#endif
