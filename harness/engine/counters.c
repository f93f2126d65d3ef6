/* counters.c - event counters (mp_counters.h): libpfm4 encodes the names,
 * perf_event_open counts them per pool thread, PAPI is the alternative backend
 * for hardware events.  On a VM that refuses hardware events (this one does:
 * ENOENT for cycles) they are recorded unavailable and the run goes on. */
#include <errno.h>
#include <linux/perf_event.h>
#include <papi.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mp_counters.h"

static const char *const sw_names[] = {"task-clock", "page-faults", "context-switches",
                                       "cpu-migrations"};
static const unsigned long long sw_config[] = {PERF_COUNT_SW_TASK_CLOCK,
                                               PERF_COUNT_SW_PAGE_FAULTS,
                                               PERF_COUNT_SW_CONTEXT_SWITCHES,
                                               PERF_COUNT_SW_CPU_MIGRATIONS};

typedef struct event {
    int papi;         /* counted by PAPI on the calling thread */
    int fd[64];       /* per pool thread */
} event;

struct mp_counters {
    mp_event_names names; /* first: core/result.c reads it; names.n events */
    int ntids;
    event ev[MP_MAX_EVENTS];
    int papi_set;     /* PAPI event set, or PAPI_NULL */
    int papi_n;
    long long papi_vals[MP_MAX_EVENTS];
};

static int perf_open(struct perf_event_attr *a, int tid)
{
    a->size = sizeof *a;
    a->disabled = 1;
    a->exclude_kernel = 1;
    a->exclude_hv = 1;
    a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    return (int)syscall(SYS_perf_event_open, a, tid, -1, -1, 0);
}

static int pfm_ready(void)
{
    static int state; /* 0 untried, 1 ok, -1 failed */
    if (!state)
        state = pfm_initialize() == PFM_SUCCESS ? 1 : -1;
    return state == 1;
}

static int sw_index(const char *name)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(name, sw_names[i]))
            return i;
    return -1;
}

/* Encodes name into attr; returns 0, or -1 with a message when libpfm4 does
 * not know it. */
static int encode(const char *name, struct perf_event_attr *attr, char *why, size_t len)
{
    memset(attr, 0, sizeof *attr);
    int sw = sw_index(name);
    if (sw >= 0) {
        attr->type = PERF_TYPE_SOFTWARE;
        attr->config = sw_config[sw];
        return 0;
    }
    if (!pfm_ready()) {
        snprintf(why, len, "libpfm4 failed to initialize");
        return -1;
    }
    pfm_perf_encode_arg_t arg;
    memset(&arg, 0, sizeof arg);
    arg.attr = attr;
    arg.size = sizeof arg;
    int rc = pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
    if (rc != PFM_SUCCESS) {
        snprintf(why, len, "%s", pfm_strerror(rc));
        return -1;
    }
    return 0;
}

void mp_counters_describe(FILE *f)
{
    const char *names[] = {"cycles", "instructions", "cache-misses", "task-clock",
                           "page-faults", "context-switches", "cpu-migrations"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        struct perf_event_attr a;
        char why[160];
        if (encode(names[i], &a, why, sizeof why)) {
            fprintf(f, "  %-18s unknown to libpfm4: %s\n", names[i], why);
            continue;
        }
        int fd = perf_open(&a, 0);
        if (fd >= 0) {
            close(fd);
            fprintf(f, "  %-18s available (perf_event)\n", names[i]);
        } else {
            fprintf(f, "  %-18s unavailable: perf_event_open: %s\n", names[i], strerror(errno));
        }
    }
    int v = PAPI_library_init(PAPI_VER_CURRENT);
    if (v != PAPI_VER_CURRENT) {
        fprintf(f, "  PAPI               unavailable: PAPI_library_init failed (%d)\n", v);
        return;
    }
    const PAPI_component_info_t *ci = PAPI_get_component_info(0);
    if (!ci || ci->disabled)
        fprintf(f, "  PAPI CPU component disabled: %s\n",
                ci && ci->disabled_reason[0] ? ci->disabled_reason : "no CPU component");
    else
        fprintf(f, "  PAPI CPU component active (%s, %d counters)\n", ci->name, ci->num_cntrs);
}

static const char *papi_cpu_problem(void)
{
    static char why[150];
    int v = PAPI_is_initialized() ? (int)PAPI_VER_CURRENT : PAPI_library_init(PAPI_VER_CURRENT);
    if (v != PAPI_VER_CURRENT) {
        snprintf(why, sizeof why, "PAPI_library_init failed (%d)", v);
        return why;
    }
    const PAPI_component_info_t *ci = PAPI_get_component_info(0);
    if (!ci || ci->disabled) {
        snprintf(why, sizeof why, "PAPI CPU component disabled: %.110s",
                 ci && ci->disabled_reason[0] ? ci->disabled_reason : "none");
        return why;
    }
    return NULL;
}

int mp_counters_open(const char *list, const char *backend, const int *tids, int ntids,
                     mp_counters **out, mp_err *e)
{
    *out = NULL;
    if (!backend)
        backend = "pfm";
    if (strcmp(backend, "pfm") && strcmp(backend, "papi"))
        return mp_fail(e, MP_EUSAGE, "--counters-backend: '%s' is not pfm or papi", backend);
    if (ntids > 64)
        ntids = 64;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list && *list ? list : MP_COUNTERS_DEFAULT);
    mp_counters *c = calloc(1, sizeof *c);
    c->ntids = ntids;
    c->papi_set = PAPI_NULL;
    /* requested events first, then the software events not already named */
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (c->names.n == MP_MAX_EVENTS - 4) {
            free(c);
            return mp_fail(e, MP_EUSAGE, "--counters: at most %d events", MP_MAX_EVENTS - 4);
        }
        struct perf_event_attr a;
        char why[160];
        if (encode(t, &a, why, sizeof why)) {
            free(c);
            return mp_fail(e, MP_EUSAGE, "--counters: unknown event '%s' (%s)", t, why);
        }
        snprintf(c->names.name[c->names.n++], sizeof c->names.name[0], "%s", t);
    }
    for (int i = 0; i < 4; i++) {
        int have = 0;
        for (int j = 0; j < c->names.n; j++)
            have |= !strcmp(c->names.name[j], sw_names[i]);
        if (!have)
            snprintf(c->names.name[c->names.n++], sizeof c->names.name[0], "%s", sw_names[i]);
    }
    const char *papi_why = !strcmp(backend, "papi") ? papi_cpu_problem() : NULL;
    int use_papi = !strcmp(backend, "papi") && !papi_why;
    if (use_papi && PAPI_create_eventset(&c->papi_set) != PAPI_OK)
        c->papi_set = PAPI_NULL;
    for (int i = 0; i < c->names.n; i++) {
        event *ev = &c->ev[i];
        for (int t = 0; t < 64; t++)
            ev->fd[t] = -1;
        int sw = sw_index(c->names.name[i]) >= 0;
        if (!sw && !strcmp(backend, "papi")) {
            if (papi_why) {
                snprintf(c->names.reason[i], sizeof c->names.reason[i], "%s", papi_why);
            } else {
                int rc = c->papi_set == PAPI_NULL ? PAPI_ENOEVST
                                                  : PAPI_add_named_event(c->papi_set, c->names.name[i]);
                if (rc != PAPI_OK)
                    snprintf(c->names.reason[i], sizeof c->names.reason[i], "PAPI: %s",
                             PAPI_strerror(rc));
                else {
                    ev->papi = 1;
                    c->papi_n++;
                }
            }
            continue;
        }
        struct perf_event_attr a;
        char why[160];
        encode(c->names.name[i], &a, why, sizeof why);
        for (int t = 0; t < ntids; t++) {
            struct perf_event_attr at = a;
            ev->fd[t] = perf_open(&at, tids[t]);
            if (ev->fd[t] < 0) {
                snprintf(c->names.reason[i], sizeof c->names.reason[i], "perf_event_open: %s",
                         strerror(errno));
                for (int u = 0; u < t; u++)
                    close(ev->fd[u]), ev->fd[u] = -1;
                break;
            }
        }
    }
    *out = c;
    return MP_OK;
}

void mp_counters_start(mp_counters *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->names.n; i++)
        for (int t = 0; t < c->ntids; t++)
            if (c->ev[i].fd[t] >= 0) {
                ioctl(c->ev[i].fd[t], PERF_EVENT_IOC_RESET, 0);
                ioctl(c->ev[i].fd[t], PERF_EVENT_IOC_ENABLE, 0);
            }
    if (c->papi_n)
        PAPI_start(c->papi_set);
}

void mp_counters_stop(mp_counters *c, double *acc)
{
    if (!c)
        return;
    if (c->papi_n)
        PAPI_stop(c->papi_set, c->papi_vals);
    int pi = 0;
    for (int i = 0; i < c->names.n; i++) {
        event *ev = &c->ev[i];
        if (ev->papi) {
            acc[i] += (double)c->papi_vals[pi++];
            continue;
        }
        for (int t = 0; t < c->ntids; t++) {
            if (ev->fd[t] < 0)
                continue;
            ioctl(ev->fd[t], PERF_EVENT_IOC_DISABLE, 0);
            unsigned long long v[3];
            if (read(ev->fd[t], v, sizeof v) == (ssize_t)sizeof v) {
                /* scale for multiplexing: value * enabled / running */
                double x = (double)v[0];
                if (v[2] && v[2] < v[1])
                    x *= (double)v[1] / (double)v[2];
                acc[i] += x;
            }
        }
    }
}

void mp_counters_close(mp_counters *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->names.n; i++)
        for (int t = 0; t < c->ntids; t++)
            if (c->ev[i].fd[t] >= 0)
                close(c->ev[i].fd[t]);
    if (c->papi_set != PAPI_NULL) {
        PAPI_cleanup_eventset(c->papi_set);
        PAPI_destroy_eventset(&c->papi_set);
    }
    free(c);
}
