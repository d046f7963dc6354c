/* The monitor's console: whole writes from any core, never interleaved. */
#ifndef FIRMWARE_KERNEL_CONSOLE_H
#define FIRMWARE_KERNEL_CONSOLE_H

#include <stddef.h>

void console_write(const char *buf, size_t len);
/* printf-style; lines from the monitor start with "monitor: ".  Integer
 * formats only (safe from any context, no heap). */
void mon_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Blocks until a byte arrives on the console. */
int console_getc(void);

#endif
