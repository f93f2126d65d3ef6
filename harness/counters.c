/* counters.c - which events this machine allows.  Events are opened with
 * perf_event_open; a VM often refuses the hardware ones (cycles, instructions),
 * while the software ones (task clock, faults, switches, migrations) always work. */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mp_counters.h"

static int open_event(unsigned type, unsigned long long config, int *err)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = type;
    a.config = config;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    *err = fd < 0 ? errno : 0;
    return fd;
}

void mp_counters_describe(FILE *f)
{
    static const struct {
        const char *name;
        unsigned type;
        unsigned long long config;
    } ev[] = {
        {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
        {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
        {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
        {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
        {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
        {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
        {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    };
    for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++) {
        int err;
        int fd = open_event(ev[i].type, ev[i].config, &err);
        if (fd >= 0) {
            close(fd);
            fprintf(f, "  %-18s available\n", ev[i].name);
        } else {
            fprintf(f, "  %-18s unavailable: perf_event_open: %s\n", ev[i].name, strerror(err));
        }
    }
}
