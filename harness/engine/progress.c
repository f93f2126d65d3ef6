/* progress.c - what a long command shows while it works, and how it stops.
 *
 * Progress goes to stderr only when stderr is a terminal (a log file or a CI
 * capture stays clean) and not --quiet: done/total, elapsed, an ETA from the
 * mean time per point so far, and the point being measured, redrawn in place.
 * SIGINT/SIGTERM: the first asks the engine to stop; the timing loop checks it
 * before every call, so it stops within a call's time (issue 20: not after a
 * --min-time 20 point), abandoning the point in flight; a second one exits at
 * once (130), leaving the store as of the last committed point. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mp_engine.h"

void mp_progress_begin(mp_progress *p, long total, int quiet)
{
    p->total = total;
    p->done = 0;
    p->t0 = mp_now();
    p->on = !quiet && isatty(2);
}

void mp_progress_show(mp_progress *p, const char *fmt, ...)
{
    if (!p->on)
        return;
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    double el = mp_now() - p->t0;
    char eta[32] = "?";
    if (p->done > 0)
        snprintf(eta, sizeof eta, "%.0fs", el / (double)p->done * (double)(p->total - p->done));
    fprintf(stderr, "\r\033[K[%ld/%ld] %.0fs elapsed, ETA %s  %s", p->done, p->total, el, eta,
            what);
}

void mp_progress_step(mp_progress *p, long n)
{
    p->done += n;
}

void mp_progress_end(mp_progress *p)
{
    if (p->on)
        fputs("\r\033[K", stderr);
}

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    if (stop_requested)
        _exit(130);
    stop_requested = 1;
    static const char msg[] = "\nmpbench: stopping: the point in flight is abandoned, what is "
                              "stored stays (again to stop now)\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
}

void mp_engine_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int mp_engine_interrupted(void)
{
    return stop_requested != 0;
}
