/* main.c - the mpbench program: the command line is dispatched by the command
 * table in harness/cli.c (mp_cmd_main), where the exit codes are listed. */
#include "mp_cli.h"

int main(int argc, char **argv)
{
    return mp_cmd_main(argc, argv);
}
