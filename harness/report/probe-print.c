/* probe-print.c - the machine probe's figures printed in each output format
 * (`mpbench probe`, `list machine`).  Kept apart from store-probe.c, which only
 * stores and reads them. */
#include <stdio.h>
#include <string.h>

#include "mp_output.h"
#include "../store/mp_probe_store.h"

/* "6912x2560 N=128" for a ceiling measured at a shape, "" otherwise. */
static const char *shape_of(const mp_probe_row *r, char *buf, size_t len)
{
    if (r->n > 0 && r->m > 0)
        snprintf(buf, len, "%dx%d N=%d", r->m, r->k, r->n);
    else
        buf[0] = 0;
    return buf;
}

void mp_probe_print(FILE *f, mp_format fmt, const mp_probe_row *r, int n)
{
    char sh[64];
    switch (fmt) {
    case MP_FMT_CSV:
        fputs("kind,threads,bytes,value,unit,n,m,k\n", f);
        for (int i = 0; i < n; i++)
            fprintf(f, "%s,%d,%lld,%.3f,%s,%d,%d,%d\n", r[i].kind, r[i].threads, r[i].bytes,
                    r[i].value, r[i].unit, r[i].n, r[i].m, r[i].k);
        break;
    case MP_FMT_JSON:
        fputs("[\n", f);
        for (int i = 0; i < n; i++)
            fprintf(f, "  {\"kind\": \"%s\", \"threads\": %d, \"bytes\": %lld, \"value\": %.3f, "
                       "\"unit\": \"%s\", \"n\": %d, \"m\": %d, \"k\": %d}%s\n",
                    r[i].kind, r[i].threads, r[i].bytes, r[i].value, r[i].unit, r[i].n, r[i].m,
                    r[i].k, i + 1 < n ? "," : "");
        fputs("]\n", f);
        break;
    case MP_FMT_MD:
        fputs("| kind | threads | working set | value | unit | shape |\n|---|--:|--:|--:|---|---|\n",
              f);
        for (int i = 0; i < n; i++)
            fprintf(f, "| %s | %d | %.1f MiB | %.1f | %s | %s |\n", r[i].kind, r[i].threads,
                    (double)r[i].bytes / 1048576.0, r[i].value, r[i].unit,
                    shape_of(&r[i], sh, sizeof sh));
        break;
    case MP_FMT_TABLE: {
        int w = 26; /* the kind column: as wide as the longest kind (a ceiling's
                     * kind names its variant, e.g. ceiling_vnni_int2.avx512vnni) */
        for (int i = 0; i < n; i++)
            if ((int)strlen(r[i].kind) > w)
                w = (int)strlen(r[i].kind);
        fprintf(f, "%-*s %7s %14s %10s\n", w, "kind", "threads", "working set", "value");
        for (int i = 0; i < n; i++) {
            fprintf(f, "%-*s %7d %10.2f MiB %10.1f %s", w, r[i].kind, r[i].threads,
                    (double)r[i].bytes / 1048576.0, r[i].value, r[i].unit);
            if (shape_of(&r[i], sh, sizeof sh)[0])
                fprintf(f, "  %s", sh);
            fputc('\n', f);
        }
        break;
    }
    }
}
