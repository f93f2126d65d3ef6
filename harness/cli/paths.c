/* paths.c - the output rule of mp_paths.h, in one place every writing command
 * calls after parsing its options and before it measures anything (issue 40).
 * Sameness is decided by inode (stat follows symlinks), so every spelling of a
 * path is caught; writability by access(2) on the folder, which also reports
 * a read-only filesystem to root. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_paths.h"

/* The folder of path ("." for a bare name) into dir. */
static void parent_of(const char *path, char *dir, size_t len)
{
    snprintf(dir, len, "%s", path);
    char *slash = strrchr(dir, '/');
    while (slash && slash > dir && slash[1] == 0) { /* "a/b/" names a/b */
        *slash = 0;
        slash = strrchr(dir, '/');
    }
    if (!slash)
        snprintf(dir, len, ".");
    else if (slash == dir)
        dir[1] = 0;
    else
        *slash = 0;
}

/* An output that is another path of the command: MP_EUSAGE naming both. */
static int same_as_other(const char *cmd, const mp_path *o, const mp_path *p, int n)
{
    for (int i = 0; i < n; i++)
        if (&p[i] != o && p[i].kind != MP_PATH_DIR && p[i].path && *p[i].path &&
            mp_same_file(o->path, p[i].path))
            return mp_die(MP_EUSAGE, "%s: %s %s is the same file as %s %s; write elsewhere",
                          cmd, o->opt, o->path, p[i].opt, p[i].path);
    return 0;
}

/* 1 when base is one of names (an item "*.x": any name ending in .x). */
static int names_has(const char *const *names, const char *base)
{
    size_t lb = strlen(base);
    for (int j = 0; names && names[j]; j++) {
        const char *nm = names[j];
        size_t ln = strlen(nm);
        if (nm[0] == '*' ? lb >= ln - 1 && !strcmp(base + lb - (ln - 1), nm + 1) : !strcmp(nm, base))
            return 1;
    }
    return 0;
}

/* An output folder that holds another path of the command under one of the
 * names it writes: MP_EUSAGE naming both. */
static int dir_holds_other(const char *cmd, const mp_path *o, const mp_path *p, int n)
{
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (&p[i] == o || !p[i].path || stat(p[i].path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        char dir[PATH_MAX];
        parent_of(p[i].path, dir, sizeof dir);
        const char *slash = strrchr(p[i].path, '/');
        if (mp_same_file(dir, o->path) && names_has(o->names, slash ? slash + 1 : p[i].path))
            return mp_die(MP_EUSAGE, "%s: %s %s would overwrite %s %s; write elsewhere", cmd,
                          o->opt, o->path, p[i].opt, p[i].path);
    }
    return 0;
}

static const char *special_kind(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
         : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* The nearest existing folder at or above dir must be a writable folder. */
static int folder_writable(const char *cmd, const mp_path *o, const char *dir, int create)
{
    char d[PATH_MAX];
    struct stat st;
    snprintf(d, sizeof d, "%s", dir);
    while (stat(d, &st) != 0) {
        if (errno != ENOENT || !create || !strcmp(d, ".") || !strcmp(d, "/"))
            return mp_die(MP_EIO, "%s: %s %s: folder %s: %s", cmd, o->opt, o->path, d,
                          strerror(errno));
        char up[PATH_MAX];
        parent_of(d, up, sizeof up);
        snprintf(d, sizeof d, "%s", up);
    }
    if (!S_ISDIR(st.st_mode))
        return mp_die(MP_EIO, "%s: %s %s: %s is not a folder", cmd, o->opt, o->path, d);
    if (access(d, W_OK) != 0)
        return mp_die(MP_EIO, "%s: %s %s: folder %s is read-only%s (%s)", cmd, o->opt, o->path,
                      d, errno == EROFS ? "" : " to this user", strerror(errno));
    return 0;
}

static int check_one(const char *cmd, const mp_path *o, const mp_path *p, int n)
{
    struct stat st;
    int rc;
    if (!*o->path)
        return mp_die(MP_EUSAGE, "%s: %s: empty path", cmd, o->opt);
    int exists = stat(o->path, &st) == 0;
    if (o->kind == MP_PATH_DIR) {
        if (exists && !S_ISDIR(st.st_mode))
            return mp_die(S_ISREG(st.st_mode) ? MP_EIO : MP_EUSAGE,
                          "%s: %s %s: is %s, not a folder", cmd, o->opt, o->path,
                          S_ISREG(st.st_mode) ? "a file" : special_kind(st.st_mode));
        if (exists && (rc = dir_holds_other(cmd, o, p, n)))
            return rc;
        return exists ? folder_writable(cmd, o, o->path, 0) : folder_writable(cmd, o, o->path, 1);
    }
    if (exists && S_ISDIR(st.st_mode))
        return mp_die(MP_EIO, "%s: %s %s: is a directory, not a %s", cmd, o->opt, o->path,
                      o->kind == MP_PATH_DB ? "database file" : "file");
    if (exists && !S_ISREG(st.st_mode))
        return mp_die(MP_EUSAGE, "%s: %s %s: is %s, not a regular file; write elsewhere", cmd,
                      o->opt, o->path, special_kind(st.st_mode));
    if (exists && (rc = same_as_other(cmd, o, p, n)))
        return rc;
    char dir[PATH_MAX];
    parent_of(o->path, dir, sizeof dir);
    struct stat sd;
    if (o->kind == MP_PATH_DB && stat(dir, &sd) != 0 && errno == ENOENT) {
        char up[PATH_MAX]; /* the store creates a database's own folder, not its parents */
        parent_of(dir, up, sizeof up);
        snprintf(dir, sizeof dir, "%s", up);
    }
    if (exists && access(o->path, W_OK) != 0)
        return mp_die(MP_EIO, "%s: %s %s: read-only%s (%s)", cmd, o->opt, o->path,
                      errno == EROFS ? "" : " to this user", strerror(errno));
    return folder_writable(cmd, o, dir, 0);
}

int mp_paths_check(const char *cmd, const mp_path *paths, int n)
{
    for (int i = 0; i < n; i++) {
        int rc;
        if (paths[i].kind != MP_PATH_IN && paths[i].path &&
            (rc = check_one(cmd, &paths[i], paths, n)))
            return rc;
    }
    return 0;
}

void mp_path_link(const char *from, const char *path, char *buf, size_t len)
{
    const char *slash = strrchr(from, '/');
    if (path[0] == '/' || !slash) {
        snprintf(buf, len, "%s", path);
        return;
    }
    /* from's folder, without "./" steps */
    while (!strncmp(from, "./", 2))
        from += 2;
    while (!strncmp(path, "./", 2))
        path += 2;
    slash = strrchr(from, '/');
    if (!slash) {
        snprintf(buf, len, "%s", path);
        return;
    }
    size_t dl = (size_t)(slash - from);
    char cwd[2048];
    if (memmem(from, dl, "..", 2) && getcwd(cwd, sizeof cwd)) { /* no way back: absolute */
        snprintf(buf, len, "%s/%s", cwd, path);
        return;
    }
    if (!strncmp(path, from, dl) && path[dl] == '/') { /* inside from's folder */
        snprintf(buf, len, "%s", path + dl + 1);
        return;
    }
    size_t at = 0;
    buf[0] = 0;
    for (size_t i = 0; i <= dl; i++) /* one ".." per folder of from's (a/b/R: 2) */
        if ((i == dl || from[i] == '/') && i > 0 && from[i - 1] != '/' && at + 3 < len) {
            memcpy(buf + at, "../", 4);
            at += 3;
        }
    snprintf(buf + at, len - at, "%s", path);
}
