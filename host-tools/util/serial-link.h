/*
 * The launcher's end of the board's serial link (COM1): a unix socket that
 * QEMU serves (-chardev socket,server=on,wait=on), or pipes to QEMU's stdio.
 * Also the translation of guest output for the terminal.
 *
 * Invariants:
 *  1. serial_link_try_connect makes one attempt and never waits: -1 means
 *     "not yet, try again", -2 a real error; a returned fd is the caller's
 *     to close.
 *  2. The filters keep their state in the caller's struct (zeroed to
 *     start), so a line or "\r\n" split across reads comes out as in one.
 *  3. The filters only drop or hold back bytes, never add any: out needs
 *     room for the input plus what was held back, hence the sizes asked.
 *  4. write_all retries EINTR and EAGAIN, so it writes everything or
 *     fails.
 */
#ifndef ALPHAPROF_UTIL_SERIAL_LINK_H
#define ALPHAPROF_UTIL_SERIAL_LINK_H

#include <stdbool.h>
#include <stddef.h>

/* One non-blocking connection attempt to QEMU's socket.  Returns the fd
 * (non-blocking, close-on-exec), -1 if QEMU is not listening yet (try again),
 * -2 with errno set on a real error. */
int serial_link_try_connect(const char *path);

/* Guest output for the terminal: "\r\n" becomes "\n" (also across reads). */
struct crlf_filter {
    bool pending_cr;
};
/* Filters in into out (room for n + 1 bytes); returns the bytes in out. */
size_t crlf_filter(struct crlf_filter *f, const char *in, size_t n, char *out);
/* Anything held back at the end of output. */
size_t crlf_flush(struct crlf_filter *f, char *out);

/* Hides the PALcode's "PCI: ..." boot lines that precede the monitor's
 * first line; everything from the first other line on passes unchanged. */
struct boot_filter {
    bool done;
    size_t len;
    char line[256];
};
/* Filters in into out (room for n + sizeof line bytes); returns the bytes in out. */
size_t boot_filter(struct boot_filter *f, const char *in, size_t n, char *out);

/* Drops QEMU's own "waiting for connection" notice from its stderr, which is
 * expected on every run over the unix link; other lines pass unchanged. */
struct notice_filter {
    size_t len;
    char line[512];
};
size_t notice_filter(struct notice_filter *f, const char *in, size_t n, char *out);
size_t notice_flush(struct notice_filter *f, char *out);

/* Writes all of buf to a blocking fd; false on error (e.g. EPIPE). */
bool write_all(int fd, const void *buf, size_t n);

#endif
