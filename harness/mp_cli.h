/* mp_cli.h - the commands of the mpbench program, one per harness/cli-*.c. */
#ifndef MP_CLI_H
#define MP_CLI_H

#include <stdio.h>

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
/* `tune --from-sweep` (tune-sweep.c): DIR/FINGERPRINT.conf per machine from db's sweeps. */
int mp_tune_from_sweep(const char *db, const char *dir, double margin, double alpha);

/* Prints "mpbench: MESSAGE" to stderr and returns code (for `return mp_die(...)`). */
int mp_die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* argv joined with spaces, for the runs table. */
void mp_join_argv(int argc, char **argv, char *buf, size_t len);

#endif
