/* mp_parse.h - checked integers from outside the program: the one parser of
 * decimal integers that text files are read with (tuned configs, variant
 * parameters, the harness's option and file parsers).  It sits in
 * kernels/common because every layer may include it: harness/, tuner/,
 * variants/ and the kernels.  Nothing here prints or exits: callers report
 * with their own error path. */
#ifndef MP_PARSE_H
#define MP_PARSE_H

#include <stddef.h>

/* s as a decimal integer in [lo, hi]: an optional sign then digits, nothing
 * else (no blank, no trailing character, no exponent, no hex), and no value
 * out of long's range (strtol's clamp is refused, never wrapped).  Returns 0
 * with *out set, or -1 (*out untouched; NULL and "" are refused). */
int mp_parse_long(const char *s, long lo, long hi, long *out);

#endif
