/* main.c - the mpbench program: the command line is dispatched by the command
 * table in harness/cli.c (mp_cmd_main), where the exit codes are listed. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "mp_cli.h"

int main(int argc, char **argv)
{
    /* a file over `ulimit -f` fails its write with EFBIG, which every writer
     * reports (exit 3), instead of killing the process mid-write (issue 40) */
    signal(SIGXFSZ, SIG_IGN);
    int rc = mp_cmd_main(argc, argv);
    /* what a command printed must have reached stdout (a full device, a closed
     * pipe): checked once, here */
    errno = 0;
    if ((fflush(stdout) != 0 || ferror(stdout)) && rc != 130) {
        fprintf(stderr, "mpbench: standard output: write failed: %s\n",
                errno ? strerror(errno) : "I/O error");
        return 3;
    }
    return rc;
}
