/* test_fuzz.c - the fuzz corpora as regression tests (issue 20): every seed and
 * every input that once crashed a target (tests/fuzz/corpus/TARGET/, crashes
 * are added there under their libFuzzer name) runs through the same entry
 * point as `make fuzz`, so a fixed crash stays fixed in `make test` and under
 * `make check-asan`.  A crash kills this test's process, which fails it. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/mp_fuzz.h"

static int replay(const char *target, int (*fn)(const uint8_t *, size_t))
{
    char dir[256];
    snprintf(dir, sizeof dir, "tests/fuzz/corpus/%s", target);
    DIR *d = opendir(dir);
    cr_assert(d, "no corpus %s (run from the repository root)", dir);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        FILE *f = fopen(path, "rb");
        cr_assert(f, "%s", path);
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        fseek(f, 0, SEEK_SET);
        uint8_t *buf = malloc(len ? (size_t)len : 1);
        cr_assert_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
        fclose(f);
        cr_assert_eq(fn(buf, (size_t)len), 0, "%s", path);
        free(buf);
        n++;
    }
    closedir(d);
    return n;
}

Test(fuzz, args_corpus) { cr_assert_gt(replay("args", mp_fuzz_args), 10); }
Test(fuzz, model_corpus) { cr_assert_gt(replay("model", mp_fuzz_model), 3); }
Test(fuzz, tuned_corpus) { cr_assert_gt(replay("tuned", mp_fuzz_tuned), 1); }
Test(fuzz, gguf_corpus) { cr_assert_gt(replay("gguf", mp_fuzz_gguf), 1); }
Test(fuzz, db_corpus, .timeout = 120) { cr_assert_gt(replay("db", mp_fuzz_db), 1); }
