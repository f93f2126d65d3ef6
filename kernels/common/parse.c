/* parse.c - checked integers from outside the program (mp_parse.h).
 *
 * sscanf's %d and atoi wrap or stop silently: a tuned config's 256x4294967552
 * was read as 256x256, MPBENCH_ROTATE_MB=abc as "unset".  Every integer that
 * comes from a file or the environment goes through mp_parse_long, and every
 * MPBENCH_* variable that holds a number is a row of the table below, checked
 * once when the program starts. */
#include "mp_parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mp_parse_long(const char *s, long lo, long hi, long *out)
{
    if (!s)
        return -1;
    const char *d = s + (*s == '-' || *s == '+');
    if (*d < '0' || *d > '9') /* strtol would skip blanks and take "" as 0 */
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* The MPBENCH_* variables that hold numbers (README "Environment"): name,
 * range, what it sets.  The booleans are 0 or 1. */
static const mp_env_var vars[] = {
    {"MPBENCH_ROTATE_MB", 1, 16L << 20, "the cold-weight rotation, MiB"},
    {"MPBENCH_MEM_LIMIT_MB", 1, 16L << 20, "the memory limit commands plan with, MiB"},
    {"MPBENCH_E2E_MEM_LIMIT", 1, 16L << 40, "the e2e memory limit, bytes"},
    {"MPBENCH_GGML_POLL", 0, 100, "the llama.cpp peer's worker polling level"},
    {"MPBENCH_HUGEPAGES", 0, 1, "weights and probe buffers on 2 MiB pages"},
    {"MPBENCH_E2E_HUGEPAGES", 0, 1, "e2e huge-page advice"},
    {"MPBENCH_E2E_SYNC", 0, 1, "e2e per-group sync split"},
    {"MPBENCH_E2E_TRACE", 0, 1, "e2e: each repetition and its tokens on stderr"},
    {"MPBENCH_EMULATED", 0, 1, "the CPU told emulated (1) or not (0)"},
    {"MPBENCH_VERBOSE", 0, 1, "say which ISA was detected"},
    {"MPBENCH_TEST_SLOWDOWN", 0, 400, "the test binary's canary slowdown, percent"},
};
enum { NVARS = sizeof vars / sizeof vars[0] };

const mp_env_var *mp_env_var_get(int i)
{
    return i >= 0 && i < NVARS ? &vars[i] : NULL;
}

int mp_env_check(char *why, size_t len)
{
    for (int i = 0; i < NVARS; i++) {
        const char *s = getenv(vars[i].name);
        long v;
        if (s && mp_parse_long(s, vars[i].lo, vars[i].hi, &v)) {
            snprintf(why, len, "%s='%.64s%s' is not an integer in [%ld, %ld] (%s)",
                     vars[i].name, s, strlen(s) > 64 ? "..." : "", vars[i].lo, vars[i].hi,
                     vars[i].what);
            return -1;
        }
    }
    return 0;
}

long mp_env_long(const char *name, long unset)
{
    for (int i = 0; i < NVARS; i++)
        if (!strcmp(vars[i].name, name)) {
            long v;
            return mp_parse_long(getenv(name), vars[i].lo, vars[i].hi, &v) ? unset : v;
        }
    fprintf(stderr, "%s:%d: %s is not in the table of numeric MPBENCH_* variables\n",
            __FILE__, __LINE__, name);
    abort();
}
