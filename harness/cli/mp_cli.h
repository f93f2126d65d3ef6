/* mp_cli.h - the commands of the mpbench program, one per harness/cli-*.c. */
#ifndef MP_CLI_H
#define MP_CLI_H

#include <stdio.h>

/* The whole command line (argv[0] the program, argv[1] the command): the
 * command table of harness/cli.c; returns the exit code. */
int mp_cmd_main(int argc, char **argv);
int mp_cmd_run(int argc, char **argv);
int mp_cmd_list(int argc, char **argv);
int mp_cmd_pack(int argc, char **argv);
int mp_cmd_sweep(int argc, char **argv);
int mp_cmd_merge(int argc, char **argv);
int mp_cmd_compare(int argc, char **argv);
int mp_cmd_probe(int argc, char **argv);
int mp_cmd_tune(int argc, char **argv);
int mp_cmd_e2e(int argc, char **argv);
int mp_cmd_report(int argc, char **argv), mp_cmd_plot(int argc, char **argv);
/* The GGUF forms of pack and list (cli-gguf.c), which cli-pack.c and
 * cli-list.c hand their command line to. */
/* `mpbench pack --gguf-out FILE --model NAME [--variant T] [--seed S]`. */
int mp_cmd_pack_gguf(int argc, char **argv);
/* `mpbench list gguf FILE [--tensors]`: argv[0] is "gguf". */
int mp_cmd_list_gguf(int argc, char **argv);

#endif
