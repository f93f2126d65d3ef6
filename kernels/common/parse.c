/* parse.c - checked integers from outside the program (mp_parse.h).
 *
 * sscanf's %d and atoi wrap or stop silently: a tuned config's 256x4294967552
 * was read as 256x256.  Every integer that comes from a file goes through
 * mp_parse_long. */
#include "mp_parse.h"

#include <errno.h>
#include <stdlib.h>

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
