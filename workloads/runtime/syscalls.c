/*
 * newlib's system hooks and the runtime API, each one callsys to the
 * monitor (firmware/abi/syscalls.h).  Files other than the console do not
 * exist on the board.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/times.h>
#include "workloads/runtime/alphaprof-runtime.h"
#include "workloads/runtime/syscall.h"

static long result_or_errno(long r)
{
    if (r < 0) {
        errno = (int)-r;
        return -1;
    }
    return r;
}

int _write(int fd, const void *buf, size_t len)
{
    return (int)result_or_errno(alphaprof_syscall(SYS_WRITE, fd, (long)buf, (long)len));
}

int _read(int fd, void *buf, size_t len)
{
    return (int)result_or_errno(alphaprof_syscall(SYS_READ, fd, (long)buf, (long)len));
}

void *_sbrk(ptrdiff_t increment)
{
    long r = alphaprof_syscall(SYS_SBRK, increment, 0, 0);
    if (r < 0) {
        errno = (int)-r;
        return (void *)-1;
    }
    return (void *)r;
}

void _exit(int status)
{
    alphaprof_syscall(SYS_EXIT, status, 0, 0);
    for (;;)
        ;
}

int _close(int fd) { return fd <= 2 ? 0 : (errno = EBADF, -1); }
int _isatty(int fd) { return fd <= 2 ? 1 : (errno = EBADF, 0); }
int _kill(int pid, int sig) { (void)pid; (void)sig; errno = EINVAL; return -1; }
int _getpid(void) { return 1; }
int _open(const char *path, int flags, int mode) { (void)path; (void)flags; (void)mode; errno = ENOENT; return -1; }

int _fstat(int fd, struct stat *st)
{
    if (fd > 2) {
        errno = EBADF;
        return -1;
    }
    st->st_mode = S_IFCHR;
    st->st_blksize = 0;
    return 0;
}

off_t _lseek(int fd, off_t offset, int whence)
{
    (void)fd; (void)offset; (void)whence;
    errno = ESPIPE;
    return -1;
}

int _gettimeofday(struct timeval *tv, void *tz)
{
    (void)tz;
    uint64_t ns = alphaprof_clock_ns();
    tv->tv_sec = (time_t)(ns / 1000000000u);
    tv->tv_usec = (suseconds_t)(ns % 1000000000u / 1000u);
    return 0;
}

clock_t _times(struct tms *t)
{
    clock_t now = (clock_t)(alphaprof_clock_ns() / (1000000000u / CLOCKS_PER_SEC));
    t->tms_utime = now;
    t->tms_stime = t->tms_cutime = t->tms_cstime = 0;
    return now;
}

int alphaprof_core_id(void) { return (int)alphaprof_syscall(SYS_CORE_ID, 0, 0, 0); }
int alphaprof_core_count(void) { return (int)alphaprof_syscall(SYS_CORE_COUNT, 0, 0, 0); }
long alphaprof_join_cores(void) { return alphaprof_syscall(SYS_JOIN_CORES, 0, 0, 0); }
uint64_t alphaprof_clock_ns(void) { return (uint64_t)alphaprof_syscall(SYS_CLOCK_NS, 0, 0, 0); }
