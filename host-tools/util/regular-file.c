/*
 * Regular files only (interface and invariants: regular-file.h).
 */
#include "util/regular-file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *file_kind(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISREG(mode))
        return "a regular file";
    return "not a file";
}

static int not_regular(const char *path, mode_t mode, const char *want, struct ap_err *err)
{
    ap_err_set(err, "%s is %s, not a regular file; give %s", path, file_kind(mode), want);
    errno = EINVAL;
    return -2;
}

int regular_open(const char *path, int flags, const char *want, struct ap_err *err)
{
    struct stat st;
    if (!*path) {
        ap_err_set(err, "an empty path; give %s", want);
        errno = ENOENT;
        return -2;
    }
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return not_regular(path, st.st_mode, want, err);
    int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        ap_err_set(err, "%s: %s; give %s", path, strerror(e), want);
        errno = e;
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        ap_err_set(err, "%s: %s", path, strerror(e));
        errno = e;
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return not_regular(path, st.st_mode, want, err);
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

FILE *regular_fopen_read(const char *path, const char *want, struct ap_err *err)
{
    int fd = regular_open(path, O_RDONLY, want, err);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        ap_err_set(err, "%s: %s", path, strerror(e));
        errno = e;
    }
    return f;
}

int regular_or_absent(const char *path, const char *want, struct ap_err *err)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        not_regular(path, st.st_mode, want, err);
        return -1;
    }
    return 0;
}

bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
