/* main.c - the mpbench program: the command line is dispatched by the command
 * table in harness/cli.c (mp_cmd_main), where the exit codes are listed.
 * SIGINT and SIGTERM are caught before anything else (issue 40): a signal in a
 * command's first moments, before its own loop checks mp_engine_interrupted,
 * is then a request to stop, never a death with half a file written. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "mp_cli.h"
#include "../engine/mp_engine.h"

int main(int argc, char **argv)
{
    mp_engine_catch_signals();
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
