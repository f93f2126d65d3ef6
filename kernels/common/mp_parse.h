/* mp_parse.h - checked integers from outside the program: the one parser of
 * decimal integers that text files and the environment are read with (tuned
 * configs, variant parameters, the harness's option and file parsers), and
 * the table of the MPBENCH_* environment variables that hold numbers.  It sits
 * in kernels/common because every layer may include it: harness/, tuner/,
 * variants/ and the kernels that read a variable (the llama.cpp peer).
 * Nothing here prints or exits: callers report with their own error path. */
#ifndef MP_PARSE_H
#define MP_PARSE_H

#include <stddef.h>

/* s as a decimal integer in [lo, hi]: an optional sign then digits, nothing
 * else (no blank, no trailing character, no exponent, no hex), and no value
 * out of long's range (strtol's clamp is refused, never wrapped).  Returns 0
 * with *out set, or -1 (*out untouched; NULL and "" are refused). */
int mp_parse_long(const char *s, long lo, long hi, long *out);

/* Checks every MPBENCH_* variable of the table that is set: a set variable
 * (empty included) must be an integer in its range.  Returns 0, or -1 with
 * why naming the first bad variable, its value and the range.  The program
 * calls it once at start (mp_cmd_main) and refuses a bad environment with
 * exit 2, so the use sites below never see a bad value. */
int mp_env_check(char *why, size_t len);

/* The value of the table's variable name, or unset when it is not set (or,
 * in a library caller that skipped mp_env_check, not valid).  A name that is
 * not in the table aborts: every numeric variable is in the one table. */
long mp_env_long(const char *name, long unset);

/* Row i of the table (NULL past its end), for the documentation's test. */
typedef struct mp_env_var {
    const char *name;
    long lo, hi;
    const char *what;
} mp_env_var;
const mp_env_var *mp_env_var_get(int i);

#endif
