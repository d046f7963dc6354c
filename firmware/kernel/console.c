/*
 * Console output shared by the monitor and the workload (SYS_WRITE).  One
 * lock keeps each write whole, so lines from different cores never mix;
 * it is taken with interrupts masked, so a handler printing on the same
 * core cannot deadlock against it.
 */
#include "firmware/kernel/console.h"

#include <stdarg.h>
#include <stdio.h>
#include "firmware/arch/pal.h"
#include "firmware/drivers/uart.h"
#include "firmware/kernel/spinlock.h"

static spinlock_t console_lock;

void console_write(const char *buf, size_t len)
{
    unsigned ipl = spin_lock_irqsave(&console_lock);
    for (size_t i = 0; i < len; i++)
        uart_putc(buf[i]);
    spin_unlock_irqrestore(&console_lock, ipl);
}

void mon_printf(const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsniprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line) {     /* keep the cut line a line */
        n = sizeof line - 1;
        line[n - 1] = '\n';
    }
    console_write(line, (size_t)n);
}

int console_getc(void)
{
    for (;;) {
        /* Mask, look, and only then wait: a byte arriving in between keeps
         * its interrupt pending, which ends WTINT at once. */
        unsigned ipl = pal_swpipl(IPL_ALL_MASKED);
        int c = uart_getc_nonblock();
        if (c < 0)
            pal_wtint();
        pal_swpipl(ipl);
        if (c >= 0)
            return c;
    }
}
