/*
 * The few newlib system hooks the monitor's own C library use can reach.
 * The monitor only formats integers into buffers, so none of these should
 * run; if one does, it behaves sanely rather than linking glibc's.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include "firmware/kernel/console.h"
#include "firmware/kernel/halt.h"
#include "linker/ram-map.h"

void *_sbrk(ptrdiff_t increment)
{
    static uintptr_t brk = KSEG_BASE + FW_HEAP_PHYS;
    uintptr_t old = brk;
    if (increment > 0 && (uintptr_t)increment > KSEG_BASE + FW_HEAP_END - brk) {
        errno = ENOMEM;
        return (void *)-1;
    }
    brk += increment;
    return (void *)old;
}

int _write(int fd, const void *buf, size_t len)
{
    (void)fd;
    console_write(buf, len);
    return (int)len;
}

int _read(int fd, void *buf, size_t len) { (void)fd; (void)buf; (void)len; return 0; }
int _close(int fd) { (void)fd; errno = EBADF; return -1; }
int _fstat(int fd, struct stat *st) { (void)fd; st->st_mode = S_IFCHR; return 0; }
int _isatty(int fd) { (void)fd; return 1; }
off_t _lseek(int fd, off_t off, int whence) { (void)fd; (void)off; (void)whence; errno = ESPIPE; return -1; }
int _kill(int pid, int sig) { (void)pid; (void)sig; errno = EINVAL; return -1; }
int _getpid(void) { return 1; }

void _exit(int status)
{
    mon_printf("monitor: FATAL the monitor called exit(%d)\n", status);
    monitor_exit_failure();
}
