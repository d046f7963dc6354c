/*
 * Boot command line parser.  The launcher writes it (host-tools
 * util/qemu-cmdline.c composes "key=value ... -- args", each word checked
 * with the same table); QEMU stores it NUL-terminated at CMDLINE_PHYS.  The
 * grammar is firmware/abi/boot-line.c's.  Unknown or bad keys are reported,
 * not fatal: an old monitor still runs workloads a newer launcher starts.
 */
#include "firmware/kernel/cmdline.h"

#include <string.h>
#include "firmware/kernel/console.h"
#include "firmware/profiler/sample-table.h"

struct boot_options boot_options = BOOT_OPTIONS_DEFAULTS;

_Static_assert(POLICY_RR4 == 0 && POLICY_STF6 == 1, "boot-line.c's table= names");

static void warn(void *ctx, const char *word, size_t len, const struct boot_problem *why)
{
    (void)ctx;
    if (why->status == BOOT_UNKNOWN_KEY)
        mon_printf("monitor: warning: unknown boot option '%.*s'; ignored\n", (int)len, word);
    else if (why->status == BOOT_NOT_KEY_VALUE)
        mon_printf("monitor: warning: boot option '%.*s' is not key=value; ignored\n", (int)len, word);
    else if (why->item)
        mon_printf("monitor: warning: %.*s: '%.*s' is not %s; ignored\n", (int)len, word,
                   (int)why->at_len, why->at, why->expect);
    else
        mon_printf("monitor: warning: %.*s is not %s; ignored\n", (int)len, word, why->expect);
}

void cmdline_parse(void)
{
    char text[CMDLINE_MAX];
    const char *src = (const char *)(KSEG_BASE + CMDLINE_PHYS);
    size_t n = strnlen(src, CMDLINE_MAX - 1);
    memcpy(text, src, n);
    text[n] = '\0';
    boot_line_parse(&boot_options, text, warn, NULL);
}
