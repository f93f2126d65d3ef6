/* run-status.c - the bad-input battery's way to run a command it will signal
 * (scripts/battery.sh, class c-signals): a shell sees 130 both for a program
 * that caught SIGINT and exited 130 and for one that SIGINT killed, and only
 * the first is right.  This runs the command as its child, writes the child's
 * pid to PIDFILE (the process to signal) and, when it ends, "exit N" or
 * "signal N" to STATUSFILE.
 *
 *   run-status PIDFILE STATUSFILE COMMAND [ARG...]
 * Exit 0 once the status is written; 1 when the command could not be started
 * (STATUSFILE then says "exec ERRNO"). */
#define _DEFAULT_SOURCE /* usleep */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int put(const char *path, const char *text)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f || fputs(text, f) < 0 || fclose(f))
        return -1;
    return rename(tmp, path);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: run-status PIDFILE STATUSFILE COMMAND [ARG...]\n");
        return 2;
    }
    /* the signals are for the child: this process must outlive it */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        /* ETXTBSY is transient: another job's fork can briefly hold a
         * descriptor open for writing on the binary */
        for (int tries = 0; tries < 100; tries++) {
            execvp(argv[3], argv + 3);
            if (errno != ETXTBSY)
                break;
            usleep(10000);
        }
        char msg[64];
        snprintf(msg, sizeof msg, "exec %d\n", errno);
        put(argv[2], msg);
        _exit(127);
    }
    char text[64];
    snprintf(text, sizeof text, "%ld\n", (long)pid);
    if (put(argv[1], text))
        return 1;
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return 1;
    if (WIFSIGNALED(st))
        snprintf(text, sizeof text, "signal %d\n", WTERMSIG(st));
    else
        snprintf(text, sizeof text, "exit %d\n", WEXITSTATUS(st));
    if (access(argv[2], F_OK) == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 127)
        return 1; /* the exec failure already written */
    return put(argv[2], text) ? 1 : 0;
}
