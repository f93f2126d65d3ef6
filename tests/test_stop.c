/* test_stop.c - issue 40's bad-input fixes that the battery (scripts/battery.sh)
 * finds, kept fixed by focused cases: a signal in a command's first moments
 * (handlers installed first thing in main), probe and e2e stopped promptly
 * with 130 and their run marked, the claims file's integers by the checked
 * parser, and a GGUF file with a K-quant tensor listed, not refused. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mp_test.h"
#include "../harness/gguf/mp_gguf.h"

static char out[65536];
#define EXPECT(...) MP_TEST_EXPECT(out, __VA_ARGS__)

/* Waits for pid at most `seconds`; its status, or SIGKILLs it and fails. */
static int wait_within(pid_t pid, double seconds, const char *what)
{
    int st;
    for (int i = 0; i < (int)(seconds * 100); i++) {
        if (waitpid(pid, &st, WNOHANG) == pid)
            return st;
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    cr_assert_fail("%s: still running %.0f s after the signal", what, seconds);
    return st;
}

/* Runs args in a fresh folder ("DB" in args becomes its database, into db),
 * sends sig `after` seconds after the start (or after its run is registered,
 * with wait_run), and expects exit 130, not a death by the signal, within
 * `within` seconds, with a message saying it stopped. */
static void stop_case(char **args, const char *what, int wait_run, double after, int sig,
                      double within, char *db, size_t dblen)
{
    char dir[64], log[128];
    mp_test_scratch(dir, sizeof dir, db, dblen, "stop", "s.db");
    snprintf(log, sizeof log, "%s/log", dir);
    for (int i = 0; args[i]; i++)
        if (!strcmp(args[i], "DB"))
            args[i] = db;
    pid_t pid = mp_test_spawn(args, log);
    if (wait_run)
        mp_test_wait_rows(db, "SELECT count(*) FROM runs", 1, 30);
    usleep((useconds_t)(after * 1e6));
    kill(pid, sig);
    int st = wait_within(pid, within, what);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 130, "%s: status %d (%s %d)", what, st,
              WIFSIGNALED(st) ? "killed by signal" : "exit",
              WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    long n;
    char *msg = mp_test_slurp(log, &n);
    cr_assert(strstr(msg, "stop") || strstr(msg, "interrupt"), "%s: no message: %s", what, msg);
    free(msg);
}

/* SIGTERM 20 ms after exec: before the command's own loop, the handler of main
 * turns it into a stop request (it was a death by SIGTERM, 143, no message). */
Test(stop, sigterm_in_the_first_moments_exits_130_with_a_message, .timeout = 120)
{
    char db[128];
    char *args[] = {"mpbench", "sweep", "--variant", "i2_s.scalar", "--shape", "64x128",
                    "--warm", "--reps", "2", "--min-time", "20", "--counters", "none", "--db",
                    "DB", NULL};
    stop_case(args, "sweep, SIGTERM at 20 ms", 0, 0.02, SIGTERM, 30, db, sizeof db);
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM runs WHERE status='running'"), 0);
}

/* probe had no handler: SIGTERM killed it (143).  Now it stops between two
 * measurements, stores nothing (a partial probe is no roof) and exits 130. */
Test(stop, probe_interrupted_exits_130_and_stores_nothing, .timeout = 120)
{
    char db[128];
    char *args[] = {"mpbench", "probe", "--quick", "--threads", "1", "--ceiling-variants",
                    "i2_s.scalar", "--ceiling-n", "1", "--ceiling-time", "60", "--db", "DB",
                    NULL};
    stop_case(args, "probe", 0, 0.5, SIGTERM, 10, db, sizeof db);
    if (access(db, F_OK) == 0)
        cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM runs"), 0);
}

/* e2e printed "stopping" and went on until killed: its timing loops now check
 * the flag every step, so SIGINT mid-run ends it within seconds, the run
 * marked interrupted. */
Test(stop, e2e_interrupted_mid_run_stops_within_seconds, .timeout = 120)
{
    char db[128];
    char *args[] = {"mpbench", "e2e", "--model", "tests/fixtures/tiny.txt", "--variant",
                    "i2_s.scalar", "--pp", "200", "--tg", "50", "--reps", "1000", "--db", "DB",
                    NULL};
    stop_case(args, "e2e", 1, 0.5, SIGINT, 5, db, sizeof db);
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM runs WHERE status='interrupted'"),
                 1);
}

Test(stop, e2e_lossless_interrupted_mid_run_stops_within_seconds, .timeout = 120)
{
    char db[128];
    char *args[] = {"mpbench", "e2e", "--lossless", "--model", "tests/fixtures/tiny.txt",
                    "--variant", "i2_s.scalar", "--prompts", "100000", "--tokens", "64", "--db",
                    "DB", NULL};
    stop_case(args, "e2e --lossless", 1, 0.5, SIGINT, 5, db, sizeof db);
    cr_assert_eq(mp_test_query_long(db, "SELECT count(*) FROM runs WHERE status='interrupted'"),
                 1);
}

/* Every number of a claim row by the checked parser: atoi and sscanf took
 * 4294967424 as 128, 128junk as 128, and a 13th field was dropped. */
Test(badinput, claims_file_bad_integers_exit_2_naming_file_line_field)
{
    static const struct {
        const char *from, *to, *needle;
    } cases[] = {
        {"LLAMACPP_TQ2_0 128 1\t", "LLAMACPP_TQ2_0 4294967424 1\t", "4294967424"},
        {"LLAMACPP_TQ2_0 128 1\t", "LLAMACPP_TQ2_0 99999999999 1\t", "99999999999"},
        {"LLAMACPP_TQ2_0 128 1\t", "LLAMACPP_TQ2_0 -1 1\t", "N: '-1'"},
        {"LLAMACPP_TQ2_0 128 1\t", "LLAMACPP_TQ2_0 1e3 1\t", "'1e3'"},
        {"LLAMACPP_TQ2_0 128 1\t", "LLAMACPP_TQ2_0 128junk 1\t", "128junk"},
        {"LLAMACPP_TQ2_0 128 1\t", "LLAMACPP_TQ2_0 128 4294967297\t", "T: '4294967297'"},
        {"LLAMACPP_TQ2_0 128 1\t", "LLAMACPP_TQ2_0\t", "wants 4 words"},
        {"\tmedian\t1.7\t2.9\t", "\tmedian\tnan\t2.9\t", "lo: 'nan'"},
        {"\tmedian\t1.7\t2.9\t", "\tmedian\t1.7\t1.7junk\t", "hi: '1.7junk'"},
        {"\tmedian\t1.7\t2.9\t", "\tmedian\t1.7\t2.9\textra\t", "13 fields"},
        {"paper=700m:4.08,", "paper=700m:abc,", "paper=: 'abc'"},
        {"\tkernel VLUT_I2 LLAMACPP_TQ2_0 128 1\t", "\tkernal VLUT_I2 LLAMACPP_TQ2_0 128 1\t",
         "unknown metric 'kernal'"},
    };
    char dir[64], bad[128];
    mp_test_scratch(dir, sizeof dir, bad, sizeof bad, "claims", "bad.tsv");
    long n;
    char *good = mp_test_slurp("results/claims.tsv", &n);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *at = strstr(good, cases[i].from);
        cr_assert(at, "results/claims.tsv has no '%s' any more", cases[i].from);
        FILE *f = fopen(bad, "w");
        cr_assert(f);
        fprintf(f, "%.*s%s%s", (int)(at - good), good, cases[i].to, at + strlen(cases[i].from));
        fclose(f);
        int line = 1;
        for (const char *p = good; p < at; p++)
            line += *p == '\n';
        char where[160];
        snprintf(where, sizeof where, "%s, line %d", bad, line);
        EXPECT(2, where, "report --db results/report.db --out %s/R.md --csv %s/csv --claims %s",
               dir, dir, bad);
        cr_assert(strstr(out, cases[i].needle), "case %zu: '%s' not named: %s", i,
                  cases[i].needle, out);
        cr_assert(access(dir, F_OK) == 0);
    }
    EXPECT(2, "missing.tsv", "report --db results/report.db --out %s/R.md --claims %s/missing.tsv",
           dir, dir);
    free(good);
}

static int fill_zero(void *ctx, int index, uint8_t *o, size_t bytes, mp_err *e)
{
    (void)ctx, (void)index, (void)e;
    memset(o, 0, bytes);
    return 0;
}

/* Most published GGUF files hold K-quants: list gguf lists such a tensor by
 * ggml's name and number (it refused the whole file); the readers that run it
 * refuse it naming the tensor. */
Test(badinput, list_gguf_lists_a_k_quant_tensor)
{
    char dir[64], path[128];
    mp_test_scratch(dir, sizeof dir, path, sizeof path, "kquant", "kq.gguf");
    int64_t ne[2] = {256, 2};
    mp_err e;
    mp_gguf_w *w = mp_gguf_w_new();
    cr_assert(mp_gguf_w_tensor(w, "blk.0.ffn_down.weight", 12 /* q4_K */, 2, ne, fill_zero,
                               NULL, &e) >= 0, "%s", e.msg);
    cr_assert(mp_gguf_w_tensor(w, "output_norm.weight", MP_GGML_F32, 1, ne, fill_zero, NULL,
                               &e) >= 0, "%s", e.msg);
    mp_gguf_w_str(w, "general.architecture", "test");
    cr_assert_eq(mp_gguf_w_write(w, path, 0, &e), MP_OK, "%s", e.msg);
    mp_gguf_w_free(w);
    /* listed (the architecture "test" runs nowhere: that, not the type, is the refusal) */
    char args[256];
    snprintf(args, sizeof args, "list gguf %s --tensors", path);
    mp_test_cli(out, sizeof out, args);
    cr_assert(strstr(out, "blk.0.ffn_down.weight") && strstr(out, "q4_K"), "%s", out);
    cr_assert(!strstr(out, "unknown tensor type"), "%s", out);
    mp_gguf *g;
    cr_assert_eq(mp_gguf_open(path, &g, &e), MP_OK, "%s", e.msg);
    cr_assert_eq(mp_gguf_check_types(g, &e), MP_EUSAGE);
    cr_assert(strstr(e.msg, "blk.0.ffn_down.weight") && strstr(e.msg, "q4_K"), "%s", e.msg);
    mp_gguf_close(g);
}
