/*
 * The launcher's end of the board's serial link (see serial-link.h):
 * connecting to QEMU's socket, the filters for the terminal, write_all.
 *
 * Invariants:
 *  1. The filters have no state of their own: all of it is in the
 *     caller's struct, so each link has its own and they never mix.
 *  2. boot_filter passes everything unchanged once done; a line that
 *     fills its 256-byte buffer is not the PALcode's, so it ends the
 *     hiding too.
 *  3. notice_filter drops only lines holding QEMU's connection notice or
 *     the refused-plugin line (board-run.c reports that error itself); it
 *     judges a longer line 512 bytes at a time.
 *  4. serial_link_try_connect leaves no fd open on failure, and the fd it
 *     returns is non-blocking and close-on-exec.
 */
#include "util/serial-link.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int serial_link_try_connect(const char *path)
{
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof sa.sun_path) {
        errno = ENAMETOOLONG;
        return -2;
    }
    strcpy(sa.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -2;
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        /* Not created yet, or created but not listening yet. */
        return (e == ENOENT || e == ECONNREFUSED || e == EAGAIN) ? -1 : -2;
    }
    int fl = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, fl | O_NONBLOCK);
    return fd;
}

size_t crlf_filter(struct crlf_filter *f, const char *in, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = in[i];
        if (f->pending_cr) {
            f->pending_cr = false;
            if (ch != '\n')
                out[o++] = '\r';
        }
        if (ch == '\r')
            f->pending_cr = true;
        else
            out[o++] = ch;
    }
    return o;
}

size_t crlf_flush(struct crlf_filter *f, char *out)
{
    if (!f->pending_cr)
        return 0;
    f->pending_cr = false;
    out[0] = '\r';
    return 1;
}

size_t boot_filter(struct boot_filter *f, const char *in, size_t n, char *out)
{
    size_t o = 0, i = 0;
    while (i < n && !f->done) {
        char ch = in[i++];
        if (f->len < sizeof f->line)
            f->line[f->len++] = ch;
        bool full = f->len == sizeof f->line;
        if (ch != '\n' && !full)
            continue;
        /* A whole line (or too long to be the PALcode's). */
        if (full || strncmp(f->line, "PCI:", 4) != 0) {
            memcpy(out + o, f->line, f->len);
            o += f->len;
            f->done = true;
        }
        f->len = 0;
    }
    memcpy(out + o, in + i, n - i);
    return o + (n - i);
}

static bool is_notice(const char *line, size_t len)
{
    static const char notice[] = "info: QEMU waiting for connection on:";
    /* (the hardware model says why itself: board-run.c reports its errors) */
    static const char plugin_refused[] = "qemu_plugin_install returned error code";
    /* (when we stopped QEMU ourselves, at a timeout or a signal, our own
     * line says so) */
    static const char terminating[] = "terminating on signal ";
    const char *t = memmem(line, len, terminating, sizeof terminating - 1);
    if (t) {
        char pid[40];
        int k = snprintf(pid, sizeof pid, " from pid %ld ", (long)getpid());
        if (k > 0 && memmem(t, len - (size_t)(t - line), pid, (size_t)k) != NULL)
            return true;
    }
    return memmem(line, len, notice, sizeof notice - 1) != NULL ||
           memmem(line, len, plugin_refused, sizeof plugin_refused - 1) != NULL;
}

size_t notice_filter(struct notice_filter *f, const char *in, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        f->line[f->len++] = in[i];
        if (in[i] == '\n' || f->len == sizeof f->line) {
            if (!is_notice(f->line, f->len)) {
                memcpy(out + o, f->line, f->len);
                o += f->len;
            }
            f->len = 0;
        }
    }
    return o;
}

size_t notice_flush(struct notice_filter *f, char *out)
{
    size_t o = 0;
    if (f->len && !is_notice(f->line, f->len)) {
        memcpy(out, f->line, f->len);
        o = f->len;
    }
    f->len = 0;
    return o;
}

bool write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN) {
                /* Our stdout may be non-blocking (shared with a parent). */
                usleep(1000);
                continue;
            }
            return false;
        }
        p += w;
        n -= (size_t)w;
    }
    return true;
}
