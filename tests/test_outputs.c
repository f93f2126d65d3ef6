/* test_outputs.c - issue 40: the one output rule (harness/cli/paths.c).  An
 * output never names an input of the same command, however it is spelled
 * (./, a/.., absolute, a symlink, a hard link, a symlinked folder), nor a
 * special file (exit 2 naming both options, the input untouched); a write that
 * fails on a full disk exits 3 with the reason and leaves nothing behind. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mp_test.h"

static char out[65536];
#define EXPECT(...) MP_TEST_EXPECT(out, __VA_ARGS__)

/* The file's size and inode, to show it was not replaced. */
static void same_file_still(const char *path, const struct stat *was)
{
    struct stat st;
    cr_assert_eq(stat(path, &st), 0, "%s is gone", path);
    cr_assert(st.st_ino == was->st_ino && st.st_size == was->st_size &&
                  st.st_mtim.tv_nsec == was->st_mtim.tv_nsec && st.st_mtim.tv_sec == was->st_mtim.tv_sec,
              "%s was replaced or changed", path);
}

Test(outputs, an_output_never_names_an_input_however_spelled, .timeout = 120)
{
    char dir[64], model[128], cmd[1024];
    mp_test_scratch(dir, sizeof dir, model, sizeof model, "outputs", "m.txt");
    snprintf(cmd, sizeof cmd, "cp tests/fixtures/tiny.txt %s && mkdir %s/sub && ln -s m.txt %s/ln.txt "
                              "&& ln %s %s/hl.txt && ln -s . %s/sd",
             model, dir, dir, model, dir, dir);
    mp_test_sh(cmd);
    struct stat was;
    cr_assert_eq(stat(model, &was), 0);
    const char *spell[] = {"%s/m.txt", "%s/./m.txt", "%s/sub/../m.txt", "%s/ln.txt", "%s/hl.txt",
                           "%s/sd/m.txt"};
    for (size_t i = 0; i < sizeof spell / sizeof spell[0]; i++) {
        char o[256];
        snprintf(o, sizeof o, spell[i], dir);
        EXPECT(2, "--gguf-out", "pack --gguf-out %s --model %s", o, model);
        cr_assert(strstr(out, "--model"), "%s", out);
        same_file_still(model, &was);
        /* the database of a measuring command, checked before it measures */
        EXPECT(2, "is the same file as --model", "run --variant i2_s.scalar --model %s --reps 1 "
                                                "--min-time 0 --warm --db %s", model, o);
        same_file_still(model, &was);
    }
    /* a relative spelling from the folder itself */
    char rel[300];
    snprintf(rel, sizeof rel, "sh -c 'cd %s && %s pack --gguf-out ./m.txt --model m.txt' 2>&1",
             dir, mp_test_bin());
    FILE *p = popen(rel, "r");
    size_t got = fread(out, 1, sizeof out - 1, p);
    out[got] = 0;
    cr_assert_eq(WEXITSTATUS(pclose(p)), 2, "%s", out);
    same_file_still(model, &was);
    /* a FIFO as an output: refused at once, never opened (a writer would block) */
    char fifo[160];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    cr_assert_eq(mkfifo(fifo, 0644), 0);
    EXPECT(2, "FIFO", "pack --variant i2_s.scalar --shape 64x128 --seed 1 --out %s", fifo);
    struct stat st;
    cr_assert(stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO was replaced");
    /* an output folder that holds the input under one of its output names */
    EXPECT(0, "", "run --variant i2_s.scalar --shape 64x128 --reps 1 --min-time 0 --warm "
                  "--db %s/sub/roofline.dat", dir);
    EXPECT(2, "--outdir", "plot roofline --db %s/sub/roofline.dat --outdir %s/sd/sub", dir, dir);
    cr_assert(strstr(out, "--db"), "%s", out);
}

Test(outputs, a_write_on_a_full_disk_exits_3_and_leaves_nothing, .timeout = 120)
{
    if (geteuid() != 0)
        cr_skip_test("needs root to mount a small tmpfs (not permitted here)");
    char dir[64], disk[128], cmd[512];
    mp_test_scratch(dir, sizeof dir, disk, sizeof disk, "outputs", "disk");
    cr_assert_eq(mkdir(disk, 0755), 0);
    if (mount("tmpfs", disk, "tmpfs", 0, "size=256k") != 0)
        cr_skip_test("mount of a tmpfs not permitted here");
    snprintf(cmd, sizeof cmd, "dd if=/dev/zero of=%s/fill bs=4k 2>/dev/null; true", disk);
    mp_test_sh(cmd);
    EXPECT(3, "No space left on device", "pack --gguf-out %s/x.gguf --model tests/fixtures/tiny.txt", disk);
    cr_assert(strstr(out, "x.gguf"), "%s", out);
    /* a new database that could not be made: exit 3, the file not left behind */
    EXPECT(3, "is full", "run --variant i2_s.scalar --shape 64x128 --reps 1 --min-time 0 --warm "
                         "--db %s/x.db", disk);
    snprintf(cmd, sizeof cmd, "ls -A %s", disk);
    FILE *p = popen(cmd, "r");
    size_t got = fread(out, 1, sizeof out - 1, p);
    out[got] = 0;
    pclose(p);
    umount(disk);
    cr_assert_str_eq(out, "fill\n", "left behind on the full disk: %s", out);
}
