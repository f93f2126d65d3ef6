/* test_fuzz.c - the fuzz corpora as regression tests (issue 20): every seed and
 * every input that once crashed a target (tests/fuzz/corpus/TARGET/, crashes
 * are added there under their libFuzzer name) runs through the same entry
 * point as `make fuzz`, so a fixed crash stays fixed in `make test` and under
 * `make check-asan`.  A crash kills this test's process, which fails it. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_test.h"
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
/* the command lines print what the commands print: stdout goes to /dev/null
 * (stderr stays, for a sanitizer's report) */
Test(fuzz, cli_corpus, .timeout = 120)
{
    fflush(stdout);
    int keep = dup(1), null = open("/dev/null", O_WRONLY);
    cr_assert(keep >= 0 && null >= 0 && dup2(null, 1) == 1);
    int n = replay("cli", mp_fuzz_cli);
    fflush(stdout);
    dup2(keep, 1);
    close(keep), close(null);
    cr_assert_gt(n, 20);
}

/* Parse-only mode stops each command after its validation, before any work:
 * every valid command line below reaches its stop (named), writes nothing into
 * the scratch folder (mp_fuzz_cli_exec checks: -1), and the output files it
 * names do not appear; the invalid ones are refused before the stop. */
static void expect_cli(const char *args, int code, const char *stop)
{
    const char *stopped = NULL;
    int rc = mp_fuzz_cli_exec(args, strlen(args), &stopped);
    cr_assert_eq(rc, code, "'%s': exit %d, expected %d", args, rc, code);
    if (stop)
        cr_assert(stopped && !strcmp(stopped, stop), "'%s': stopped at %s, expected %s", args,
                  stopped ? stopped : "(none)", stop);
    else
        cr_assert_null(stopped, "'%s': stopped at %s, expected no stop", args, stopped);
}

Test(fuzz, cli_parse_only_stops_after_validation, .timeout = 120)
{
    /* code, the stop (NULL: none), the arguments */
    static const mp_test_cli_case cases[] = {
        {0, "run", "run\n--variant\ni2_s.scalar\n--shape\n64x128\n--db\nx.db"},
        {0, "run", "run\n--variant\ni2_s.scalar\n--model\n./m.txt\n--n\n1,8\n--no-db"},
        {0, "sweep", "sweep\n--variant\ni2_s.*\n--shape\n64x128,128x256\n--n\n1,2\n--shard\n1/2"},
        {0, "sweep", "sweep\n--quick\n--dry-run"},
        {0, "tune", "tune\n--variant\ntl2_0.*\n--shape\n256x768\n--strategy\nrandom"},
        {0, "tune", "tune\n--report\n--db\nx.db"},
        {0, "e2e", "e2e\n--model\n./m.txt\n--variant\ni2_s.scalar\n--pp\n8\n--tg\n4"},
        {0, "e2e", "e2e\n--gguf\ng.gguf\n--variant\ni2_s.scalar\n--lossless\n--prompts\n2"},
        {0, "pack", "pack\n--variant\ni2_s.scalar\n--shape\n128x128\n--weights\nw.bin\n--out\np.bin"},
        {0, "pack --gguf-out", "pack\n--gguf-out\nx.gguf\n--model\n./m.txt"},
        {0, "merge", "merge\nout.db\na.db\nb.db"},
        {0, "probe", "probe\n--threads\n1,2\n--quick"},
        {0, "report", "report\n--db\na.db\n--out\nR.md"},
        {0, "plot", "plot\nroofline\n--db\na.db\n--outdir\nplots"},
        {0, "list machine", "list\nmachine\n--db\na.db"},
        {0, "list gguf", "list\ngguf\ng.gguf\n--tensors"},
        /* read-only commands run to the end */
        {0, NULL, "list\nshapes\n--model\n./m.txt"},
        {0, NULL, "compare\n--base\na.db\n--new\nb.db"},
        /* refused before the stop */
        {2, NULL, "run\n--variant\nnope.*\n--shape\n64x128"},
        {2, NULL, "run\n--variant\ni2_s.scalar\n--shape\n64x128\n--min-time\nnan"},
        {2, NULL, "sweep\n--shape\n64x128\n--shard\n3/2"},
        {2, NULL, "pack\n--variant\ni2_s.scalar\n--shape\n128x128\n--weights\nw.bin\n--out\nw.bin"},
        {3, NULL, "merge\nout.db\nm.txt"},
        {2, NULL, "merge\na.db\n./a.db"},
        {2, NULL, "e2e\n--model\n./m.txt\n--variant\ni2_s.scalar\n--layers\n3"},
        {2, NULL, "nosuchcommand"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_cli(cases[i].args, cases[i].code, cases[i].needle);
    /* an --variant list over e2e's 1023 bytes is refused, not cut to what fits */
    char longv[1400] = "e2e\n--model\n./m.txt\n--variant\n";
    while (strlen(longv) < 1300)
        strcat(longv, "i2_s.scalar,");
    strcat(longv, "i2_s.scalar");
    expect_cli(longv, 2, NULL);
    longv[strlen("e2e\n--model\n./m.txt\n--variant\n") + 900] = 0; /* cut at a glob */
    *strrchr(longv, ',') = 0;
    expect_cli(longv, 0, "e2e");
    /* nothing named above was created */
    static const char *const outs[] = {"x.db", "p.bin", "x.gguf", "out.db", "R.md", "plots",
                                       "results"};
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        char p[300];
        snprintf(p, sizeof p, "%s/%s", mp_fuzz_cli_dir(), outs[i]);
        cr_assert_neq(access(p, F_OK), 0, "%s was created", p);
    }
}
