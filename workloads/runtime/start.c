/*
 * Image entry points.  The monitor enters them in user mode with the stack
 * set, $27 = the entry (so the usual prologue loads gp) and bss cleared.
 * _start runs constructors, builds argv from the boot command line's image
 * arguments and calls main; _core_start runs core_main on the other cores.
 */
#include <stdlib.h>
#include <string.h>
#include "linker/image-header.h"
#include "linker/ram-map.h"
#include "workloads/runtime/alphaprof-runtime.h"
#include "workloads/runtime/syscall.h"

#define MAX_ARGS 32

extern int main(int argc, char **argv);
extern void __libc_init_array(void);
extern void __libc_fini_array(void);

void _start(long unused, long ncores);
void _core_start(long core, long ncores);

static char arg_text[CMDLINE_MAX + IMAGE_NAME_MAX + 2];
static char *argv[MAX_ARGS + 1];

static int split_args(void)
{
    long n = alphaprof_syscall(SYS_GET_ARGS, (long)arg_text, sizeof arg_text, 0);
    if (n < 0)
        return 0;
    int argc = 0;
    char *p = arg_text;
    while (*p && argc < MAX_ARGS) {
        while (*p == ' ')
            *p++ = '\0';
        if (!*p)
            break;
        argv[argc++] = p;
        while (*p && *p != ' ')
            p++;
    }
    argv[argc] = NULL;
    return argc;
}

void _start(long unused, long ncores)
{
    (void)unused;
    (void)ncores;
    __libc_init_array();
    atexit(__libc_fini_array);
    int argc = split_args();
    exit(main(argc, argv));
}

void _core_start(long core, long ncores)
{
    long result = core_main ? core_main((int)core, (int)ncores) : 0;
    /* Not exit(): atexit handlers and stdio belong to the boot core. */
    alphaprof_syscall(SYS_EXIT, result, 0, 0);
    for (;;)
        ;
}

/* newlib's __libc_init_array calls these around the init arrays. */
void _init(void) {}
void _fini(void) {}
