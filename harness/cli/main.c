/* main.c - the mpbench program: the command line is dispatched by the command
 * table in harness/cli.c (mp_cmd_main), where the exit codes are listed.
 * SIGINT and SIGTERM are caught before anything else (issue 40): a signal in a
 * command's first moments, before its own loop checks mp_engine_interrupted,
 * is then a request to stop, never a death with half a file written. */
#include "mp_cli.h"
#include "../engine/mp_engine.h"

int main(int argc, char **argv)
{
    mp_engine_catch_signals();
    return mp_cmd_main(argc, argv);
}
