/*
 * Running QEMU for one board run (interface: qemu-launch.h).
 *
 * Invariants:
 *   1. QEMU is always reaped: stopped with SIGTERM, then SIGKILL after 3 s,
 *      on timeout, on our signals and on errors.
 *   2. Console bytes reach our stdout in order and whole lines reach the
 *      console parser; the monitor's exit line decides the result, QEMU's
 *      own status only when the monitor said nothing.
 *   3. The relay (relay_path) serves one client at a time and passes bytes
 *      unchanged and in order both ways; a client is accepted only once
 *      the board's socket is up (its first bytes wait, never dropped), and
 *      one that died while queued is closed unread (its START must not
 *      reach the board).  Board bytes while no client is attached are
 *      dropped, as QEMU's own server did: the link protocol resends them.
 */
#include "util/qemu-launch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/serial-link.h"
#include "util/strvec.h"

#define CONNECT_RETRY_MS 20

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool program_exists(const char *prog)
{
    if (strchr(prog, '/'))
        return access(prog, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t n = colon ? (size_t)(colon - path) : strlen(path);
        char full[PATH_MAX];
        snprintf(full, sizeof full, "%.*s/%s", (int)n, n ? path : ".", prog);
        if (access(full, X_OK) == 0)
            return true;
        path += n + (colon ? 1 : 0);
    }
    return false;
}

static void set_nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* Stop means save: asks the target to stop and flush over the profile
 * link; QEMU then runs until the profile is in (or LAUNCH_SAVE_MS). */
static bool begin_save(const struct launch_opts *o, int prof_sock, long long *save_deadline)
{
    if (!o->profile.stop || !o->profile.saved || prof_sock < 0)
        return false;
    o->profile.stop(o->profile.ctx, prof_sock);
    *save_deadline = now_ms() + LAUNCH_SAVE_MS;
    return true;
}

/* Terminates QEMU: SIGTERM, then SIGKILL if it is still there after 3 s. */
static void stop_qemu(pid_t pid, struct launch_result *r)
{
    kill(pid, SIGTERM);
    long long until = now_ms() + 3000;
    while (now_ms() < until) {
        pid_t w = waitpid(pid, &r->wait_status, WNOHANG);
        if (w == pid) {
            r->reaped = true;
            return;
        }
        usleep(10000);
    }
    kill(pid, SIGKILL);
    if (waitpid(pid, &r->wait_status, 0) == pid)
        r->reaped = true;
}

static pid_t spawn(const struct launch_opts *o, int *con_in, int *con_out,
                   int *qerr, struct launch_result *r, struct ap_err *err)
{
    int in_p[2] = {-1, -1}, out_p[2], err_p[2], exec_p[2];
    if ((o->link == LINK_STDIO && pipe2(in_p, O_CLOEXEC)) || pipe2(out_p, O_CLOEXEC) ||
        pipe2(err_p, O_CLOEXEC) || pipe2(exec_p, O_CLOEXEC))
        return ap_err_set(err, "cannot create pipes: %s", strerror(errno));
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        return ap_err_set(err, "cannot fork: %s", strerror(errno));
    if (pid == 0) {
        /* Own process group: the terminal's ^C reaches the launcher, which
         * stops QEMU and cleans up; and QEMU dies with the launcher. */
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(127);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        int devnull = open("/dev/null", O_RDWR);
        dup2(o->link == LINK_STDIO ? in_p[0] : devnull, 0);
        dup2(out_p[1], 1);
        dup2(err_p[1], 2);
        execvp(o->argv[0], o->argv);
        int e = errno;
        if (write(exec_p[1], &e, sizeof e) < 0)
            _exit(127);
        _exit(127);
    }
    close(exec_p[1]);
    close(out_p[1]);
    close(err_p[1]);
    if (o->link == LINK_STDIO)
        close(in_p[0]);
    int e;
    ssize_t n;
    do
        n = read(exec_p[0], &e, sizeof e);
    while (n < 0 && errno == EINTR);
    close(exec_p[0]);
    if (n == (ssize_t)sizeof e) {
        r->exec_failed = true;
        r->exec_errno = e;
        waitpid(pid, &r->wait_status, 0);
        r->reaped = true;
        close(out_p[0]);
        close(err_p[0]);
        if (o->link == LINK_STDIO)
            close(in_p[1]);
        return 0;
    }
    *con_out = out_p[0];
    *qerr = err_p[0];
    *con_in = o->link == LINK_STDIO ? in_p[1] : -1;
    set_nonblock(out_p[0]);
    set_nonblock(err_p[0]);
    if (*con_in >= 0)
        set_nonblock(*con_in);
    return pid;
}

/* ------------------------------------------------ the profile link relay */

#define RELAY_BACKLOG (1u << 20)    /* bytes queued for a slow client before the board waits */

struct relay {
    int listen_fd, client;
    unsigned char *out;             /* board bytes not yet written to the client */
    size_t out_len;
};

static int relay_open(struct relay *rl, const char *path, struct ap_err *err)
{
    rl->listen_fd = rl->client = -1;
    rl->out = NULL;
    rl->out_len = 0;
    if (!path)
        return 0;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path)
        return ap_err_set(err, "profile socket path too long: %s", path);
    strcpy(sa.sun_path, path);
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
        unlink(path);               /* an earlier run's */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, 4) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return ap_err_set(err, "cannot serve the profile socket %s: %s", path, strerror(e));
    }
    rl->listen_fd = fd;
    rl->out = xmalloc(RELAY_BACKLOG);
    return 0;
}

static void relay_drop_client(const struct launch_opts *o, struct relay *rl)
{
    if (rl->client < 0)
        return;
    close(rl->client);
    rl->client = -1;
    rl->out_len = 0;
    if (o->profile.host)
        o->profile.host(o->profile.ctx, false);
}

static void relay_close(const struct launch_opts *o, struct relay *rl)
{
    relay_drop_client(o, rl);
    if (rl->listen_fd >= 0) {
        close(rl->listen_fd);
        unlink(o->relay_path);
    }
    free(rl->out);
}

/* Board bytes for the client: queued (dropped while no client). */
static void relay_to_client(struct relay *rl, const char *buf, size_t n)
{
    if (rl->client < 0 || rl->out_len + n > RELAY_BACKLOG)
        return;                     /* the caller reads the board only while there is room */
    memcpy(rl->out + rl->out_len, buf, n);
    rl->out_len += n;
}

/* Accepts, reads and writes as poll said. */
static void relay_events(const struct launch_opts *o, struct relay *rl, short listen_ev, short client_ev,
                         int prof_sock)
{
    if (listen_ev & POLLIN) {
        int fd = accept4(rl->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        struct pollfd gone = {.fd = fd, .events = POLLRDHUP};
        if (fd >= 0 && poll(&gone, 1, 0) == 1 && (gone.revents & (POLLRDHUP | POLLHUP | POLLERR))) {
            /* it went away while it waited to be served (a daemon killed
             * in the queue): what it had written (a START) must not reach
             * the board, or the board would start a session nobody stores */
            close(fd);
        } else if (fd >= 0) {
            rl->client = fd;
            if (o->profile.host)
                o->profile.host(o->profile.ctx, true);
        }
    }
    if (rl->client < 0)
        return;
    if (client_ev & (POLLIN | POLLHUP | POLLERR)) {
        char buf[4096];
        ssize_t n = read(rl->client, buf, sizeof buf);
        if (n > 0) {
            if (o->profile.from_host)
                o->profile.from_host(o->profile.ctx, (const unsigned char *)buf, (size_t)n);
            if (prof_sock >= 0)
                write_all(prof_sock, buf, (size_t)n);
        } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
            relay_drop_client(o, rl);
            return;
        }
    }
    if ((client_ev & POLLOUT) && rl->out_len) {
        ssize_t w = write(rl->client, rl->out, rl->out_len);
        if (w > 0) {
            memmove(rl->out, rl->out + w, rl->out_len - (size_t)w);
            rl->out_len -= (size_t)w;
        } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
            relay_drop_client(o, rl);
        }
    }
}

int qemu_launch(const struct launch_opts *o, struct launch_result *r, struct ap_err *err)
{
    memset(r, 0, sizeof *r);
    console_init(&r->console);
    int con_in = -1, con_out = -1, qerr = -1;
    struct relay rl;
    if (relay_open(&rl, o->relay_path, err) != 0)
        return -1;
    pid_t pid = spawn(o, &con_in, &con_out, &qerr, r, err);
    if (pid <= 0) {
        relay_close(o, &rl);
        return pid < 0 ? -1 : 0;    /* 0: exec failed, r says so */
    }

    /* In stdio mode con_out is QEMU's stdout = the console.  In unix mode
     * QEMU's stdout only carries QEMU's own messages, shown like stderr,
     * and the console is the socket (con_sock, read and written). */
    int qout = -1, con_sock = -1;
    if (o->link == LINK_UNIX) {
        qout = con_out;
        con_out = -1;
    }
    bool stdin_open = o->in_fd >= 0, stdout_ok = true;
    char pending[4096];
    size_t pending_len = 0, pending_off = 0;
    struct crlf_filter crlf = {0};
    struct boot_filter boot = {.done = o->show_boot};
    struct notice_filter notice = {0};
    long long deadline = now_ms() + (long long)o->timeout_s * 1000;
    bool reported = false;
    char buf[8192], out[8192 * 2 + 1], out2[8192 * 2 + 1 + 256];

    int prof_sock = -1;
    bool prof_open = o->profile_socket_path != NULL;
    long long save_deadline = -1;   /* stopping: saving the profile until then */

    for (;;) {
        if (prof_open && prof_sock < 0) {
            int fd = serial_link_try_connect(o->profile_socket_path);
            if (fd >= 0) {
                prof_sock = fd;
                r->profile_connected = true;
                if (o->profile.attach)
                    o->profile.attach(o->profile.ctx, fd);
            } else if (fd == -2) {
                prof_open = false;      /* reported below as "no profile data" */
            }
        }
        int console_fd = o->link == LINK_UNIX ? con_sock : con_out;
        int to_guest = o->link == LINK_UNIX ? con_sock : con_in;
        if (o->link == LINK_UNIX && con_sock < 0) {
            int fd = serial_link_try_connect(o->socket_path);
            if (fd >= 0) {
                con_sock = console_fd = to_guest = fd;
            } else if (fd == -2) {
                ap_err_set(err, "cannot connect to QEMU's serial socket %s: %s", o->socket_path,
                           strerror(errno));
                stop_qemu(pid, r);
                close(qerr);
                close(qout);
                relay_close(o, &rl);
                return -1;
            }
        }
        bool connected = console_fd >= 0 && (!prof_open || prof_sock >= 0);
        if (!connected && qerr < 0 && qout < 0)
            break;          /* QEMU gone before the link came up */

        struct pollfd p[9];
        int np = 0, i_stop = -1, i_err = -1, i_qout = -1, i_con = -1, i_in = -1, i_out = -1;
        int i_prof = -1, i_listen = -1, i_client = -1;
        if (prof_sock >= 0 && rl.out_len + sizeof buf <= RELAY_BACKLOG) {
            i_prof = np;
            p[np++] = (struct pollfd){.fd = prof_sock, .events = POLLIN};
        }
        if (rl.listen_fd >= 0 && rl.client < 0 && prof_sock >= 0) {    /* a client's bytes wait for the board's end */
            i_listen = np;
            p[np++] = (struct pollfd){.fd = rl.listen_fd, .events = POLLIN};
        }
        if (rl.client >= 0) {
            i_client = np;
            p[np++] = (struct pollfd){.fd = rl.client, .events = (short)(POLLIN | (rl.out_len ? POLLOUT : 0))};
        }
        if (o->stop_fd >= 0) {
            i_stop = np;
            p[np++] = (struct pollfd){.fd = o->stop_fd, .events = POLLIN};
        }
        if (qerr >= 0) {
            i_err = np;
            p[np++] = (struct pollfd){.fd = qerr, .events = POLLIN};
        }
        if (qout >= 0) {
            i_qout = np;
            p[np++] = (struct pollfd){.fd = qout, .events = POLLIN};
        }
        if (console_fd >= 0) {
            i_con = np;
            p[np++] = (struct pollfd){.fd = console_fd, .events = POLLIN};
        }
        if (connected && to_guest >= 0) {
            if (pending_len > pending_off) {
                if (to_guest == console_fd) {
                    p[i_con].events |= POLLOUT;
                } else {
                    i_out = np;
                    p[np++] = (struct pollfd){.fd = to_guest, .events = POLLOUT};
                }
            } else if (stdin_open && r->console.running_seen) {
                /* Only once the workload runs: bytes sent earlier would be
                 * eaten by the PALcode's and the monitor's UART set-up. */
                i_in = np;
                p[np++] = (struct pollfd){.fd = o->in_fd, .events = POLLIN};
            }
        }

        long long now = now_ms();
        if (save_deadline >= 0 && (now >= save_deadline || prof_sock < 0 ||
                                   o->profile.saved(o->profile.ctx))) {
            r->profile_saved = prof_sock >= 0 && o->profile.saved(o->profile.ctx);
            stop_qemu(pid, r);
            break;
        }
        if (now >= deadline && save_deadline < 0) {
            if (reported) {
                r->lingered = true;
            } else {
                r->timed_out = true;
                if (begin_save(o, prof_sock, &save_deadline))
                    continue;
            }
            stop_qemu(pid, r);
            break;
        }
        long long wait = (save_deadline >= 0 ? save_deadline : deadline) - now;
        if (!connected && wait > CONNECT_RETRY_MS)
            wait = CONNECT_RETRY_MS;
        if (prof_sock >= 0 && o->profile.tick) {
            o->profile.tick(o->profile.ctx);
            if (wait > LAUNCH_TICK_MS)
                wait = LAUNCH_TICK_MS;
        }
        int rc = poll(p, (nfds_t)np, (int)wait);
        if (rc < 0) {
            if (errno == EINTR)
                continue;
            ap_err_set(err, "poll: %s", strerror(errno));
            stop_qemu(pid, r);
            break;
        }
        if (i_stop >= 0 && (p[i_stop].revents & POLLIN)) {
            int sig = 0;
            unsigned char b;
            if (read(o->stop_fd, &b, 1) == 1)
                sig = b;
            bool again = r->stopped_by != 0;    /* a second signal: no more waiting */
            r->stopped_by = sig ? sig : SIGTERM;
            if (!again && save_deadline < 0 && begin_save(o, prof_sock, &save_deadline))
                continue;
            stop_qemu(pid, r);
            break;
        }
        if (i_prof >= 0 && (p[i_prof].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t n = read(prof_sock, buf, sizeof buf);
            if (n > 0) {
                r->profile_bytes += (unsigned long long)n;
                o->profile.sink(o->profile.ctx, (const unsigned char *)buf, (size_t)n);
                relay_to_client(&rl, buf, (size_t)n);
            } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                close(prof_sock);
                prof_sock = -1;
                prof_open = false;
            }
        }
        relay_events(o, &rl, i_listen >= 0 ? p[i_listen].revents : 0,
                     i_client >= 0 ? p[i_client].revents : 0, prof_sock);
        /* QEMU's own messages (errors, warnings) go to our stderr. */
        int *qfds[2] = {&qerr, &qout};
        int qidx[2] = {i_err, i_qout};
        for (int k = 0; k < 2; k++) {
            if (qidx[k] >= 0 && (p[qidx[k]].revents & (POLLIN | POLLHUP | POLLERR))) {
                ssize_t n = read(*qfds[k], buf, sizeof buf);
                if (n > 0) {
                    size_t m = notice_filter(&notice, buf, (size_t)n, out);
                    write_all(o->err_fd, out, m);
                } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                    close(*qfds[k]);
                    *qfds[k] = -1;
                }
            }
        }
        if (i_con >= 0 && (p[i_con].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t n = read(console_fd, buf, sizeof buf);
            if (n > 0) {
                console_feed(&r->console, buf, (size_t)n);
                size_t m = crlf_filter(&crlf, buf, (size_t)n, out);
                m = boot_filter(&boot, out, m, out2);
                if (stdout_ok && m && !write_all(o->out_fd, out2, m))
                    stdout_ok = false;      /* reader went away: keep running */
                if (!reported && (r->console.exit_seen || r->console.fatal_seen)) {
                    reported = true;
                    long long linger = o->truth_at_exit ? LAUNCH_TRUTH_LINGER_MS : LAUNCH_LINGER_MS;
                    if (deadline > now_ms() + linger)
                        deadline = now_ms() + linger;
                }
            } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                if (o->link == LINK_UNIX) {
                    close(con_sock);
                    con_sock = -1;
                } else {
                    close(con_out);
                    con_out = -1;
                }
                break;      /* the board is gone; reap QEMU below */
            }
        }
        if (connected && pending_len > pending_off) {
            int idx = to_guest == console_fd ? i_con : i_out;
            if (idx >= 0 && (p[idx].revents & (POLLOUT | POLLERR))) {
                ssize_t w = write(to_guest, pending + pending_off, pending_len - pending_off);
                if (w > 0) {
                    pending_off += (size_t)w;
                } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
                    pending_len = pending_off = 0;
                    stdin_open = false;     /* the guest side is closed */
                }
            }
        }
        if (i_in >= 0 && (p[i_in].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t n = read(o->in_fd, pending, sizeof pending);
            if (n > 0) {
                pending_len = (size_t)n;
                pending_off = 0;
            } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                stdin_open = false;         /* EOF: stop forwarding, keep the link */
            }
        }
        if (pending_off == pending_len)
            pending_len = pending_off = 0;
    }

    /* The profile link may still hold data the board sent before it ended:
     * read it to its end (QEMU closes the socket as it exits). */
    if (prof_sock >= 0) {
        long long until = now_ms() + 5000;
        while (now_ms() < until) {
            struct pollfd pp = {.fd = prof_sock, .events = POLLIN};
            if (o->profile.tick)
                o->profile.tick(o->profile.ctx);
            if (poll(&pp, 1, LAUNCH_TICK_MS) <= 0)
                continue;
            ssize_t n = read(prof_sock, buf, sizeof buf);
            if (n > 0) {
                r->profile_bytes += (unsigned long long)n;
                o->profile.sink(o->profile.ctx, (const unsigned char *)buf, (size_t)n);
                relay_to_client(&rl, buf, (size_t)n);
            } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                break;
            }
        }
        close(prof_sock);
    }
    /* what the board sent reaches the client before it sees the end */
    for (long long until = now_ms() + 2000; rl.client >= 0 && rl.out_len && now_ms() < until;) {
        struct pollfd pc = {.fd = rl.client, .events = POLLOUT};
        if (poll(&pc, 1, 50) > 0)
            relay_events(o, &rl, 0, pc.revents, -1);
    }
    relay_close(o, &rl);

    size_t m = crlf_flush(&crlf, out);
    if (m && stdout_ok)
        write_all(o->out_fd, out, m);
    if (!boot.done && boot.len && stdout_ok)
        write_all(o->out_fd, boot.line, boot.len);     /* an unfinished last line */
    console_finish(&r->console);

    /* Drain QEMU's last words, then reap it (it is exiting: bounded wait).
     * The board's sockets close before QEMU's at-exit handlers run, and the
     * model writes its truth in one of them: that may take far more than
     * 5 s (qsort 8 rounds under load), so it gets the truth's linger, and
     * running past it counts as lingering, not as a crash. */
    if (!r->reaped) {
        long long until = now_ms() + (o->truth_at_exit ? LAUNCH_TRUTH_LINGER_MS : 5000);
        while (!r->reaped) {
            for (int k = 0; k < 2; k++) {
                int fd = k ? qout : qerr;
                if (fd < 0)
                    continue;
                ssize_t n = read(fd, buf, sizeof buf);
                if (n > 0)
                    write_all(o->err_fd, out, notice_filter(&notice, buf, (size_t)n, out));
            }
            pid_t w = waitpid(pid, &r->wait_status, WNOHANG);
            if (w == pid) {
                r->reaped = true;
                break;
            }
            if (now_ms() >= until) {
                r->lingered = r->console.exit_seen;
                stop_qemu(pid, r);
                break;
            }
            usleep(10000);
        }
    }
    for (int k = 0; k < 2; k++) {
        int fd = k ? qout : qerr;
        if (fd < 0)
            continue;
        ssize_t n;
        while ((n = read(fd, buf, sizeof buf)) > 0)
            write_all(o->err_fd, out, notice_filter(&notice, buf, (size_t)n, out));
        close(fd);
    }
    write_all(o->err_fd, out, notice_flush(&notice, out));
    if (con_sock >= 0)
        close(con_sock);
    if (con_out >= 0)
        close(con_out);
    if (con_in >= 0)
        close(con_in);
    return 0;
}

int launch_outcome(const struct launch_result *r, const char *qemu, unsigned timeout_s,
                   char *msg, size_t msglen)
{
    msg[0] = '\0';
    const struct console_state *c = &r->console;
    if (r->exec_failed) {
        if (r->exec_errno == ENOENT)
            snprintf(msg, msglen, "%s not found; run make setup (installs qemu-system-misc)", qemu);
        else
            snprintf(msg, msglen, "cannot run %s: %s", qemu, strerror(r->exec_errno));
        return 127;
    }
    if (r->stopped_by) {
        snprintf(msg, msglen, "stopped by signal %d (%s); QEMU was terminated", r->stopped_by,
                 strsignal(r->stopped_by));
        return 128 + r->stopped_by;
    }
    if (r->timed_out) {
        snprintf(msg, msglen, "timed out after %u s; QEMU was killed (raise --timeout if the workload needs longer)",
                 timeout_s);
        return 124;
    }
    bool crashed = r->reaped && WIFSIGNALED(r->wait_status) && !r->lingered;
    if (c->exit_seen) {
        int st = console_clamp_status(c->exit_status);
        if (crashed) {
            snprintf(msg, msglen, "QEMU died of signal %d (%s) after %s exited with status %ld",
                     WTERMSIG(r->wait_status), strsignal(WTERMSIG(r->wait_status)),
                     c->exit_name, c->exit_status);
            return st ? st : 125;
        }
        if (r->lingered)
            snprintf(msg, msglen, "QEMU did not exit after %s exited with status %ld; it was killed",
                     c->exit_name, c->exit_status);
        else if (st != c->exit_status)
            snprintf(msg, msglen, "%s exited with status %ld, reported as %d", c->exit_name,
                     c->exit_status, st);
        return st;
    }
    if (c->fatal_seen) {
        snprintf(msg, msglen, "the monitor stopped the run: %s", c->fatal_line);
        return 1;
    }
    if (crashed) {
        snprintf(msg, msglen, "QEMU died of signal %d (%s) before the workload finished",
                 WTERMSIG(r->wait_status), strsignal(WTERMSIG(r->wait_status)));
        return 125;
    }
    if (r->reaped && WIFEXITED(r->wait_status))
        snprintf(msg, msglen, "QEMU exited with status %d without a result from the monitor (no 'monitor: NAME exited with status N' line); see its messages above",
                 WEXITSTATUS(r->wait_status));
    else
        snprintf(msg, msglen, "QEMU ended without a result from the monitor");
    return 125;
}
