/* test_e2e_llama.c - suite `e2e_llama`: llama.cpp end to end (issue 39,
 * engine/e2e-decoder.c): an e2e configuration whose variant is a llamacpp.*
 * peer runs the whole model through libllama on a GGUF file of our seeded
 * weights.
 *
 * What is checked: every llama.cpp format gives pp and tg rows with positive
 * tokens/s, the reason naming the engine, a decode bound from the bytes of its
 * file; the files are written once into --weight-cache and reused by another
 * plan (none rewritten); the same plan again stores nothing it already has; llama.cpp's
 * greedy tokens on the written file equal ours for the formats that hold the
 * ternary values exactly (so the file is the same model); the library absent:
 * the variant is unavailable with the reason (exit 2); a bad --gguf: exit 2
 * naming the file.  SIGKILL at seeded moments: test_harden.c.  No test depends
 * on timing. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mp_test.h"
#include "../harness/gguf/mp_gguf.h"

#define TINY_TQ "tests/fixtures/tiny-tq.txt"

static char out[1 << 17];

#define EXPECT(...) MP_TEST_EXPECT(out, __VA_ARGS__)

static void need_llama(void)
{
    if (!mp_ggml_dir())
        cr_skip_test("libllama (llama.cpp peer package) absent: run `make peers` or set "
                     "MPBENCH_GGML_DIR");
}

static double mtime(const char *dir, const char *name)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    struct stat st;
    cr_assert_eq(stat(p, &st), 0, "%s was not written", p);
    return (double)st.st_mtim.tv_sec + 1e-9 * (double)st.st_mtim.tv_nsec;
}

Test(e2e_llama, rows_files_cached_and_resumed, .timeout = 240)
{
    need_llama();
    char dir[64], db[160], cache[192];
    mp_test_scratch(dir, sizeof dir, db, sizeof db, "e2e-llama", "e.db");
    snprintf(cache, sizeof cache, "%s/cache", dir);
    cr_assert_eq(mkdir(cache, 0755), 0);
    const char *cmd = "e2e --model " TINY_TQ " --variant 'llamacpp.tq2_0,llamacpp.tq1_0,"
                      "llamacpp.q8_0,llamacpp.q4_0,llamacpp.f16' --pp 8 --tg 4 --reps 2 "
                      "--threads 2 --weight-cache %s --db %s";
    EXPECT(0, "llamacpp.tq2_0", cmd, cache, db);
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM e2e WHERE status IN ('ok', "
                                        "'unstable') AND tps_median > 0"), 10, "%s", out);
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM e2e WHERE reason LIKE "
                                        "'llama.cpp end to end%'"), 10);
    /* decode rows: a bound from the file's bytes; prefill rows: none */
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM e2e WHERE test='tg4' AND "
                                        "token_bytes > 0 AND bound_tps > 0"), 5);
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM e2e WHERE test='pp8' AND "
                                        "coalesce(bound_tps, 0) = 0"), 5);
    /* the bits per weight of each format, from the file */
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM e2e WHERE "
                                        "(variant='llamacpp.q8_0' AND abs(bpw - 8.5) < 1e-9) OR "
                                        "(variant='llamacpp.f16' AND abs(bpw - 16) < 1e-9) OR "
                                        "(variant='llamacpp.tq2_0' AND abs(bpw - 2.0625) < 1e-9)"),
                 6);
    static const char *const files[] = {"tq2_0", "tq1_0", "q8_0", "q4_0", "f16"};
    double t[5];
    char name[96];
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof name, "llama-tiny-tq-L2-s1-%s-f16.gguf", files[i]);
        t[i] = mtime(cache, name);
    }
    /* the same command again: its rows are stored, nothing is measured */
    EXPECT(0, "llamacpp.q4_0", cmd, cache, db);
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM e2e"), 10);
    /* another plan on the same files: measured again, no file rewritten */
    EXPECT(0, "llamacpp.q4_0", "e2e --model " TINY_TQ " --variant 'llamacpp.tq2_0,llamacpp.tq1_0,"
                               "llamacpp.q8_0,llamacpp.q4_0,llamacpp.f16' --pp 0 --tg 2 --reps 1 "
                               "--threads 1 --weight-cache %s --db %s", cache, db);
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM e2e"), 15);
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof name, "llama-tiny-tq-L2-s1-%s-f16.gguf", files[i]);
        cr_assert_eq(mtime(cache, name), t[i], "%s was rewritten", name);
    }
    /* another head: its own file, and a run that needs it measures */
    EXPECT(0, "llamacpp.tq2_0", "e2e --model " TINY_TQ " --variant llamacpp.tq2_0 --lm-head "
                                "q8_0 --pp 0 --tg 4 --reps 1 --weight-cache %s --db %s",
           cache, db);
    mtime(cache, "llama-tiny-tq-L2-s1-tq2_0-q8_0.gguf");
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM e2e WHERE lm_head='q8_0'"), 1);
    /* without a cache nothing is left in TMPDIR */
    char tmp[192], ls[256];
    snprintf(tmp, sizeof tmp, "%s/tmp", dir);
    cr_assert_eq(mkdir(tmp, 0755), 0);
    setenv("TMPDIR", tmp, 1);
    EXPECT(0, "llamacpp.tq2_0", "e2e --model " TINY_TQ " --variant llamacpp.tq2_0 --pp 4 --tg 2 "
                                "--reps 1 --no-db");
    unsetenv("TMPDIR");
    snprintf(ls, sizeof ls, "test -z \"$(ls -A %s)\"", tmp);
    mp_test_sh(ls);
}

/* The written file is the model our rows run: llama.cpp's greedy tokens on it
 * equal our runner's (list gguf --llama) for the formats that hold the ternary
 * values exactly. */
Test(e2e_llama, file_is_our_model, .timeout = 120)
{
    need_llama();
    char dir[64], path[160];
    mp_test_scratch(dir, sizeof dir, path, sizeof path, "e2e-llama", "m.gguf");
    static const char *const exact[] = {"tq2_0", "q8_0", "f16"};
    for (int i = 0; i < 3; i++) {
        EXPECT(0, "bitnet", "pack --gguf-out %s --model " TINY_TQ " --variant %s --lm-head f16",
               path, exact[i]);
        EXPECT(0, "every key and tensor agrees", "list gguf %s --llama 4,6", path);
        cr_assert(strstr(out, "4 of 4 prompts give the same 6 greedy tokens"), "%s: %s",
                  exact[i], out);
    }
}

/* llama.cpp's idle workers can be put to sleep while our bound's bytes are
 * read beside its steps: the npm build's CPU registry does not hand out
 * ggml_threadpool_pause/resume, so they come from the loaded CPU library
 * (gguf-llama.c cpu_proc); without them every 2-thread llamacpp.* row read
 * beside a spinning worker and exceeded its bound. */
Test(e2e_llama, workers_can_be_paused, .timeout = 120)
{
    need_llama();
    char dir[64], path[160];
    mp_test_scratch(dir, sizeof dir, path, sizeof path, "e2e-llama", "p.gguf");
    EXPECT(0, "bitnet", "pack --gguf-out %s --model " TINY_TQ " --variant tq2_0 --lm-head f16",
           path);
    mp_llama *l = NULL;
    mp_err e;
    cr_assert_eq(mp_llama_open(path, 2, 64, 8, 1, &l, &e), 0, "%s", e.msg);
    cr_assert_eq(mp_llama_pause(l, 1), 0, "ggml_threadpool_pause not found");
    cr_assert_eq(mp_llama_pause(l, 0), 0, "ggml_threadpool_resume not found");
    mp_llama_close(l);
}

Test(e2e_llama, absent_library_and_bad_file)
{
    char dir[64], path[160];
    mp_test_scratch(dir, sizeof dir, path, sizeof path, "e2e-llama", "bad.gguf");
    setenv("MPBENCH_GGML_DIR", "/nonexistent", 1);
    EXPECT(2, "unavailable", "e2e --model " TINY_TQ " --variant llamacpp.tq2_0 --pp 4 --tg 2 "
                             "--reps 1 --no-db");
    cr_assert(strstr(out, "llama.cpp peer"), "%s", out);
    unsetenv("MPBENCH_GGML_DIR");
    mp_test_write(path, "GGUF but not really");
    EXPECT(2, path, "e2e --gguf %s --variant llamacpp.tq2_0 --pp 4 --tg 2 --reps 1 --no-db",
           path);
}
