/*
 * entSys: the workload's system calls (firmware/abi/syscalls.h).  The
 * handler runs in kernel mode at IPL 0 on the kernel stack, so blocking
 * calls (read, join) keep taking interrupts.  User pointers are checked to
 * lie in the user region; the kernel reaches them through the same mapping.
 */
#include "firmware/kernel/syscall.h"

#include <errno.h>
#include <stdint.h>
#include "firmware/abi/syscalls.h"
#include "firmware/drivers/alarm.h"
#include "firmware/drivers/uart.h"
#include "firmware/kernel/console.h"
#include "firmware/kernel/percpu.h"
#include "firmware/kernel/run.h"
#include "linker/ram-map.h"

static int user_range_ok(uint64_t addr, uint64_t len)
{
    return addr >= USER_BASE && addr <= RAM_SIZE && len <= RAM_SIZE - addr;
}

static long sys_write(uint64_t fd, uint64_t buf, uint64_t len)
{
    if (fd != 1 && fd != 2)
        return -EBADF;
    if (!user_range_ok(buf, len))
        return -EFAULT;
    console_write((const char *)buf, len);
    return (long)len;
}

static long sys_read(uint64_t fd, uint64_t buf, uint64_t len)
{
    if (fd != 0)
        return -EBADF;
    if (!user_range_ok(buf, len))
        return -EFAULT;
    if (len == 0)
        return 0;
    char *p = (char *)buf;
    uint64_t n = 0;
    p[n++] = (char)console_getc();
    while (n < len && p[n - 1] != '\n') {
        int c = uart_getc_nonblock();
        if (c < 0)
            break;
        p[n++] = (char)c;
    }
    return (long)n;
}

void trap_syscall(uint64_t a0, uint64_t a1, uint64_t a2, struct trap_frame *f)
{
    uint64_t nr = f->r[0];
    long r;
    switch (nr) {
    case SYS_EXIT:
        run_exit(this_core(), (long)a0);
    case SYS_WRITE:
        r = sys_write(a0, a1, a2);
        break;
    case SYS_READ:
        r = sys_read(a0, a1, a2);
        break;
    case SYS_SBRK:
        r = run_sbrk((long)a0);
        break;
    case SYS_CORE_ID:
        r = this_core();
        break;
    case SYS_CORE_COUNT:
        r = ncores;
        break;
    case SYS_CLOCK_NS:
        r = (long)clock_ns();
        break;
    case SYS_JOIN_CORES:
        r = this_core() == 0 ? run_join_cores() : -EINVAL;
        break;
    case SYS_GET_ARGS:
        r = user_range_ok(a0, a1) ? run_get_args((char *)a0, a1) : -EFAULT;
        break;
    default:
        r = -ENOSYS;
        break;
    }
    f->r[0] = (uint64_t)r;
}
