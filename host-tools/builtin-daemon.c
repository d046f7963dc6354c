/*
 * alphaprof daemon: attaches to a running board's profile link (the unix
 * socket `alphaprof run --profile-socket PATH` serves) and merges what the
 * on-target profiler sends into the profile database, continuously.
 *
 * The link is two-way: the daemon sends control frames (CONFIG, START,
 * FLUSH_NOW, NEW_EPOCH, STOP; link-protocol.h section 4), one at a time,
 * each answered by the target's ACK.  Frames from the target go through the
 * shared ingest loop (util/ingest.c): CRC and sequence checks, resync after
 * damage, loadmap and build-id mapping.  Merges are committed once every
 * core's FLUSH of a round is in, so each transaction holds whole flushes
 * (small and steady: a round every flush interval); the database is in WAL
 * mode, so a daemon killed at any moment leaves every committed flush.
 *
 * SIGUSR1 or --epoch-every starts a new epoch (NEW_EPOCH, answered by EPOCH
 * once the target has sent everything collected before it).  SIGINT and
 * SIGTERM stop the target's sampling (STOP: everything flushed first),
 * commit and exit 130 or 143, within STOP_SAVE_S (a second signal: at once).
 *
 * Session (link-protocol.h section 5):
 *  1. START carries a random nonce; the ingest loop takes only the link
 *     session that answers it (HELLO with that nonce), in seq order, and
 *     acknowledges what it committed (LINK_ACK), so the board forgets only
 *     what is stored.  A daemon killed at any moment loses nothing the board
 *     still holds: the next one's START takes it over.
 *  2. Control frames are sent again (same seq) every LINK_CONTROL_RETRY_S until their
 *     ACK comes; the board answers a retry without doing the work twice.
 *     The control seq starts at a random value, so a new daemon's frames
 *     are not taken for retries of a killed one's.
 *  3. The end: END from the board (exit 0, "the board ended"), its run's
 *     own STOP (alphaprof run --timeout or a signal, answered OK; exit 0),
 *     a signal (STOP acknowledged, exit 130 or 143), or the link closing
 *     without any of these: a cut link (exit 3), what the board held is
 *     kept for the next daemon.
 *
 * Invariants (besides the session's above):
 *  1. At most one control frame is outstanding: the next is sent only
 *     after the last one's ACK or its timeout, so every ACK answers a known
 *     frame.
 *  2. A bad option, an ELF that cannot be opened or a database that cannot
 *     be opened ends it with status 2 before the link is touched: a mistake
 *     never disturbs the board.
 *  3. CONFIG (when options ask for one; after a STOP if the board is
 *     sampling) and START are acknowledged OK before FLUSH_NOW or
 *     NEW_EPOCH is sent; a refusal or no answer ends it with status 1.
 *  4. With --db postgresql://... (the fleet store, util/fleet-store.h) the
 *     daemon merges into a local spool database (--spool) as always and
 *     pushes it to the store every --push-every seconds, at each new epoch
 *     and at the end; a push replaces the run it made before (one run per
 *     spool), and a push that fails is a warning: the spool keeps
 *     everything and the next push sends it.  Only the last push's failure
 *     changes the exit status (1), naming the spool.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "util/value-transform.h"
#include "util/fleet-store.h"
#include "firmware/abi/link-codec.h"
#include "hw-model/pmu-window.h"
#include "util/board.h"
#include "util/ingest.h"
#include "util/image-file.h"
#include "util/link-control.h"
#include "util/option-groups.h"
#include "util/profile-db.h"
#include "util/rate-note.h"
#include "util/regular-file.h"
#include "util/serial-link.h"
#include "util/strvec.h"
#include "util/stop-note.h"

#define DEFAULT_FLUSH_MS    1000
#define DEFAULT_CONNECT_S   30
#define DEFAULT_ACK_S       20      /* give up on an ACK after this long without frames */
#define STOP_SAVE_S         10      /* a signal: the most we wait for STOP's flush */
#define EXIT_LINK_CUT       3

static const struct opt_command daemon_command = {
    .name = "daemon",
    .synopsis = "--link unix:PATH [options] [IMAGE.elf ...]",
    .about = "Attaches to a running board's profile link (started with\n"
             "'alphaprof run --profile-socket PATH ...'), starts the on-target\n"
             "profiler and merges its samples into the profile database until\n"
             "SIGINT or SIGTERM (which stop sampling, flush and commit) or until the\n"
             "board goes away.  SIGUSR1 starts a new epoch.",
    .epilog = "SIGINT and SIGTERM stop the board's sampling first: what it holds is sent\n"
              "and stored (at most " GRAMMAR_STR(STOP_SAVE_S) " s more; a second signal ends it at once).\n"
              "Exit status: 0 when the board ended (END) or its run stopped it (alphaprof\n"
              "run --timeout or a signal), 130 after SIGINT and 143 after SIGTERM (the\n"
              "profile up to the stop is stored), 1 if the profile could not be stored or\n"
              "the target refused the set-up, 2 for bad options, 3 when the link was cut\n"
              "before the board's END (what the board still holds is kept for the next\n"
              "daemon).",
};

/* The command line of one daemon, parsed and checked. */
struct daemon_options {
    const char *link, *db, *board, *spool;
    const char *value_transform;    /* --value-transform, parsed into value_transforms */
    unsigned value_transforms;
    struct boot_options boot;       /* --events, --period, as the monitor reads them */
    const char *events, *period;    /* as given (NULL: not given) */
    unsigned flush_every, flush_ms, epoch_every, connect_s, push_every;
    bool status_line, verbose, check_link;
    struct strvec elfs;
};

static volatile sig_atomic_t want_stop, stop_signals, want_epoch;

static void on_stop(int sig)
{
    want_stop = sig;
    stop_signals++;
}

static void on_usr1(int sig)
{
    (void)sig;
    want_epoch = 1;
}

static double now_s(void)
{
    return link_control_now();
}

struct daemon {
    int fd;
    bool verbose;
    struct ingest *in;
    struct pdb *db;
    struct link_control ctl;            /* our control frames (util/link-control.h) */
    uint16_t first_seq;                 /* ctl's first seq: ours are first_seq .. ctl.seq - 1 */
    double last_frame;                  /* when a good frame last came */
    /* the last ACK of ours */
    bool acked;
    struct lk_ack ack;
    char ack_msg[LK_MAX_NAME + 1];
    uint64_t acks, stray_acks, epochs_seen;
    uint64_t last_commits;
    bool eof;
    bool ended;                         /* END came: the board asks nothing more */
    bool stopped_by_run;                /* a STOP of another host (alphaprof run) was answered OK */
};

static void hook(void *ctx, const struct lk_frame *f)
{
    struct daemon *d = ctx;
    d->last_frame = now_s();
    switch (f->type) {
    case LK_T_ACK: {
        struct lk_ack a;
        if (lk_parse_ack(f, &a) != LK_OK)
            return;
        if (!link_control_answered(&d->ctl, &a)) {
            d->stray_acks++;
            /* the board's run stopped it (alphaprof run's own stop means
             * save): a STOP of no seq of ours (not a repeated answer to
             * our own) */
            uint16_t sent = (uint16_t)(d->ctl.seq - d->first_seq);
            if (a.type == LK_T_STOP && a.status == LK_ACK_OK && (uint16_t)(a.seq - d->first_seq) >= sent)
                d->stopped_by_run = true;
            return;
        }
        d->acked = true;
        d->ack = a;
        size_t n = a.message.n < LK_MAX_NAME ? a.message.n : LK_MAX_NAME;
        memcpy(d->ack_msg, a.message.p, n);
        d->ack_msg[n] = 0;
        d->acks++;
        if (d->verbose)
            printf("daemon: ACK %s: status %u: %s\n", lk_type_name(a.type), a.status, d->ack_msg);
        break;
    }
    case LK_T_HELLO: {
        struct lk_hello h;
        if (lk_parse_hello(f, &h) != LK_OK)
            break;
        if (d->verbose)
            printf("daemon: session: board %.*s, %u cores, link %" PRIu64 " baud%s\n",
                   (int)h.board.n, (const char *)h.board.p, h.ncores, h.baud,
                   h.baud ? "" : " (unpaced)");
        char note[256];
        if (rate_note(&h, note, sizeof note))
            fprintf(stderr, "alphaprof daemon: %s\n", note);
        break;
    }
    case LK_T_EPOCH: {
        struct lk_epoch e;
        if (lk_parse_epoch(f, &e) == LK_OK) {
            d->epochs_seen++;
            if (d->verbose)
                printf("daemon: EPOCH %" PRIu64 " at %" PRIu64 " ns\n", e.epoch, e.time);
        }
        break;
    }
    case LK_T_FLUSH: {
        struct lk_flush fl;
        if (lk_parse_flush(f, &fl) != LK_OK || fl.core != 0 || !d->verbose)
            break;
        uint64_t bytes = 0, taken = 0;
        for (uint32_t i = 0; i < fl.nstats; i++) {
            if (fl.stats[i].id == LK_STAT_BYTES_SENT)
                bytes = fl.stats[i].value;
            if (fl.stats[i].id == LK_STAT_SAMPLES_TAKEN)
                taken = fl.stats[i].value;
        }
        uint64_t link_full = 0;
        for (uint32_t i = 0; i < fl.ndrops; i++)
            if (fl.drops[i].id == LK_DROP_LINK_FULL)
                link_full = fl.drops[i].value;
        printf("daemon: flush %" PRIu64 " at %" PRIu64 " ns: bytes_sent %" PRIu64
               " samples_taken %" PRIu64 " link_full %" PRIu64 "\n",
               fl.flush_no, fl.time, bytes, taken, link_full);
        break;
    }
    case LK_T_END:
        d->ended = true;
        if (d->verbose)
            printf("daemon: END from the board\n");
        break;
    default:
        break;
    }
}

/* Sends one control frame (the writer holds it); it becomes outstanding. */
static int send_control(struct daemon *d, struct lk_writer *w, uint8_t type)
{
    if (link_control_send(&d->ctl, w, type) != 0)
        return -1;
    d->acked = false;
    if (d->verbose)
        printf("daemon: sent %s\n", lk_type_name(type));
    return 0;
}

/* The outstanding control frame again, same seq, when its ACK is late. */
static int retry_control(struct daemon *d)
{
    int rc = link_control_retry(&d->ctl);
    if (rc > 0 && d->verbose)
        printf("daemon: no ACK yet: %s sent again\n", lk_type_name(d->ctl.out_type));
    return rc < 0 ? -1 : 0;
}

/* No ACK and no frame from the board for DEFAULT_ACK_S: it is not answering. */
static bool ack_overdue(const struct daemon *d)
{
    double last = d->last_frame > d->ctl.out_first ? d->last_frame : d->ctl.out_first;
    return d->ctl.outstanding && now_s() - last > DEFAULT_ACK_S;
}

static int send_start(struct daemon *d, uint64_t nonce)
{
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    if (lk_enc_start(&w, raw, sizeof raw, nonce) != LK_OK)
        return -1;
    return send_control(d, &w, LK_T_START);
}

static int send_simple(struct daemon *d, uint8_t type)
{
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    if (lk_enc_control(&w, raw, sizeof raw, type) != LK_OK)
        return -1;
    return send_control(d, &w, type);
}

static int send_epoch(struct daemon *d)
{
    struct ap_err err;
    int64_t cur = 0;
    if (pdb_current_epoch(d->db, &cur, &err) != 0) {
        fprintf(stderr, "alphaprof daemon: %s\n", err.msg);
        return -1;
    }
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    if (lk_enc_new_epoch(&w, raw, sizeof raw, (uint64_t)cur + 1) != LK_OK)
        return -1;
    return send_control(d, &w, LK_T_NEW_EPOCH);
}

/* Reads what the link has (waiting up to timeout_ms) into the ingest loop.
 * -1 on a database error; sets d->eof when the board closed the link. */
static int pump(struct daemon *d, int timeout_ms, struct ap_err *err)
{
    static uint8_t buf[1 << 16];
    struct pollfd p = {d->fd, POLLIN, 0};
    int r = poll(&p, 1, timeout_ms);
    if (r < 0 && errno != EINTR)
        return ap_err_set(err, "waiting for the link: %s", strerror(errno));
    if (r <= 0) {
        ingest_tick(d->in);
        return 0;
    }
    ssize_t n = read(d->fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (n <= 0) {
        d->eof = true;
        return 0;
    }
    if (ingest_feed(d->in, buf, (size_t)n, err) != 0)
        return -1;
    ingest_tick(d->in);
    const struct ingest_totals *t = ingest_totals(d->in);
    if (d->verbose && t->commits != d->last_commits)
        printf("daemon: commit %" PRIu64 ": %" PRIu64 " samples stored\n", t->commits,
               t->committed_samples);
    d->last_commits = t->commits;
    if (d->verbose)
        fflush(stdout);
    return 0;
}

/* Waits for the outstanding frame's ACK.  1 acked, 0 timed out or the link
 * closed, -1 database error.  Signals do not interrupt it (a STOP is short). */
static int wait_ack(struct daemon *d, struct ap_err *err)
{
    while (d->ctl.outstanding && !d->eof && !ack_overdue(d)) {
        if (pump(d, 100, err) != 0)
            return -1;
        if (retry_control(d) != 0)
            return ap_err_set(err, "cannot write to the link: %s", strerror(errno));
    }
    if (d->ctl.outstanding) {
        d->ctl.outstanding = false;
        return 0;
    }
    return 1;
}

static int setup_once(struct daemon *d, uint8_t type, const struct lk_config *cfg,
                      uint64_t nonce, struct ap_err *err);

/* One control frame at set-up, acknowledged (d->ack says how).  cfg:
 * CONFIG's payload.  A target still busy with an earlier frame (one a
 * killed daemon sent) is asked again, for up to the ACK timeout. */
static int setup_step(struct daemon *d, uint8_t type, const struct lk_config *cfg,
                      uint64_t nonce, struct ap_err *err)
{
    double until = now_s() + DEFAULT_ACK_S;
    for (;;) {
        int rc = setup_once(d, type, cfg, nonce, err);
        if (rc != 0 || d->ack.status != LK_ACK_BUSY || now_s() >= until)
            return rc;
        /* CONFIG while sampling is BUSY too: the caller stops first */
        if (type == LK_T_CONFIG && strstr(d->ack_msg, "STOP"))
            return rc;
        double pause = now_s() + 0.1;
        while (now_s() < pause && !d->eof)
            if (pump(d, 20, err) != 0)
                return -1;
    }
}

static int setup_once(struct daemon *d, uint8_t type, const struct lk_config *cfg,
                      uint64_t nonce, struct ap_err *err)
{
    int rc;
    if (cfg) {
        uint8_t raw[LK_MAX_RAW];
        struct lk_writer w;
        rc = lk_enc_config(&w, raw, sizeof raw, cfg) == LK_OK ? send_control(d, &w, type) : -1;
    } else if (type == LK_T_START) {
        rc = send_start(d, nonce);
    } else {
        rc = send_simple(d, type);
    }
    if (rc != 0)
        return ap_err_set(err, "cannot send %s to the board: %s", lk_type_name(type),
                          strerror(errno));
    rc = wait_ack(d, err);
    if (rc < 0)
        return -1;
    if (rc == 0 && d->eof)
        return ap_err_set(err, "the board closed the link before it answered %s",
                          lk_type_name(type));
    if (rc == 0)
        return ap_err_set(err, "the board did not answer %s, sent %" PRIu64 " times, and sent "
                          "nothing for %d s (is its monitor profiling? start it with alphaprof "
                          "run --profile-socket)", lk_type_name(type), d->ctl.retries + 1, DEFAULT_ACK_S);
    return 0;
}

/*
 * --check-link: the target's control channel, once sampling.  A damaged
 * chunk (no frame: the target only counts it, LK_STAT_CTRL_BAD) and an
 * intact frame with a malformed CONFIG payload, which must come back as
 * LK_ACK_BAD_FRAME.  0 when the target behaved.
 */
static int link_check(struct daemon *d, struct ap_err *err)
{
    static const uint8_t junk[] = {LK_DELIM, 0x05, 'j', 'u', 'n', 'k', LK_DELIM};
    if (!write_all(d->fd, junk, sizeof junk))
        return ap_err_set(err, "cannot write to the link: %s", strerror(errno));
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    lk_begin(&w, raw, sizeof raw, LK_T_CONFIG);
    lk_put_uvarint(&w, LK_MODE_TIMER);      /* and nothing else: malformed */
    if (send_control(d, &w, LK_T_CONFIG) != 0)
        return ap_err_set(err, "cannot write to the link: %s", strerror(errno));
    int rc = wait_ack(d, err);
    if (rc <= 0)
        return rc < 0 ? -1 : ap_err_set(err, "link check: no answer to a malformed CONFIG");
    if (d->ack.status != LK_ACK_BAD_FRAME)
        return ap_err_set(err, "link check: a malformed CONFIG was answered with status %u (%s), "
                          "not %d (bad frame)", d->ack.status, d->ack_msg, LK_ACK_BAD_FRAME);
    printf("daemon: link check: damaged chunk sent, malformed CONFIG answered bad frame: %s\n",
           d->ack_msg);
    return 0;
}

/* Checks that need several options at once: 0, or a usage error (2). */
static int daemon_check(const struct opt_command *c, struct daemon_options *o)
{
    const char *bad;
    int badlen;
    if (o->value_transform && value_transform_parse(o->value_transform, &o->value_transforms, &bad, &badlen))
        return opt_usage_error(c, "--value-transform: no transform '%.*s' (there are: %s)", badlen, bad,
                               value_transform_names());
    if (!o->link)
        return opt_usage_error(c, "--link is required (e.g. --link unix:/tmp/board.sock)");
    if (strncmp(o->link, "unix:", 5) != 0 || !o->link[5])
        return opt_usage_error(c, "--link '%s': give unix:PATH, the socket of 'alphaprof run --profile-socket PATH'",
                               o->link);
    if (o->events && o->period)
        return opt_usage_error(c, "--period: --events (counters) and --period (timer) exclude each other");
    if (o->spool && !fleet_is_uri(o->db))
        return opt_usage_error(c, "--spool goes with a fleet store: --db postgresql://...");
    if (o->spool && fleet_is_uri(o->spool))
        return opt_usage_error(c, "--spool is a local file, not a fleet store");
    return board_name_check(c, o->board);
}

/* The CONFIG the options ask for; false if they ask for none. */
static bool daemon_config(const struct daemon_options *o, struct lk_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    if (o->events) {
        cfg->mode = LK_MODE_COUNTERS;
        cfg->nevents = o->boot.nevents;
        for (unsigned i = 0; i < o->boot.nevents; i++)
            cfg->events[i] = (struct lk_event_config){o->boot.events[i].event, o->boot.events[i].period_min,
                                                      o->boot.events[i].period_max};
    }
    if (o->period) {
        cfg->mode = LK_MODE_TIMER;
        cfg->nevents = 1;
        cfg->events[0] = (struct lk_event_config){LK_EVENT_TIMER, o->boot.period_min, o->boot.period_max};
    }
    cfg->flush_ms = o->flush_ms;
    return o->events || o->period || o->flush_ms;
}

static int daemon_run(const struct daemon_options *o);

/* Pushes the spool to the fleet store (note 4): 0, or -1 after a warning. */
static int push_spool(const char *fleet, const char *spool, bool verbose)
{
    struct ap_err err;
    int64_t run;
    bool replaced;
    if (fleet_push(spool, fleet, &run, &replaced, &err)) {
        fprintf(stderr, "alphaprof daemon: warning: push to the fleet store failed (the spool keeps it): %s\n",
                err.msg);
        return -1;
    }
    if (verbose)
        printf("daemon: pushed %s to the fleet store as run %lld\n", spool, (long long)run);
    return 0;
}

int cmd_daemon(int argc, char **argv)
{
    struct daemon_options o = {.board = DEFAULT_BOARD, .boot = BOOT_OPTIONS_DEFAULTS,
                               .flush_every = DEFAULT_FLUSH_MS, .connect_s = DEFAULT_CONNECT_S,
                               .push_every = 10};
    const struct option options[] = {
        OPT_STRING(0, "link", &o.link, "unix:PATH", "the board's profile socket"),
        OPT_STRING(0, "db", &o.db, "PATH", "profile database (default $ALPHAPROF_DB or alphaprof.db;\n"
                   "created if missing), or a fleet store postgresql://..."),
        OPT_STRING(0, "spool", &o.spool, "PATH", "with a fleet store: the local database pushed to it\n"
                   "(default alphaprof-spool.db)"),
        OPT_UINT(0, "push-every", &o.push_every, "S", 1, OPT_NUMBER_MAX,
                 "with a fleet store: push every S seconds (default 10)"),
        OPT_BOOT_KEY(0, "events", "events", &o.boot, &o.events, "LIST",
                     "sample the hardware model's counters, e.g. cycles,dmiss\n"
                     "or cycles:60000-64000 (a board with the model)"),
        OPT_BOOT_KEY(0, "period", "period", &o.boot, &o.period, "MIN-MAX", "timer sampling period range in ns (timer mode)"),
        OPT_UINT(0, "flush-every", &o.flush_every, "MS", 0, OPT_NUMBER_MAX,
                 "ask the target to flush everything this often\n"
                 "(default " GRAMMAR_STR(DEFAULT_FLUSH_MS) "; 0: only its own periodic drain)"),
        OPT_UINT(0, "flush-ms", &o.flush_ms, "N", 1, BOOT_NUMBER_MAX, "the target's own drain interval (CONFIG)"),
        OPT_UINT(0, "epoch-every", &o.epoch_every, "S", 1, OPT_NUMBER_MAX, "start a new epoch every S seconds"),
        OPT_STRING(0, "board", &o.board, "B", "board whose monitor ELF the loadmap names (default " DEFAULT_BOARD ")"),
        OPT_LIST(0, "elf", &o.elfs, "FILE", "an ELF the board runs (also as IMAGE.elf arguments):\n"
                 "its build-id is checked against the board's loadmap"),
        OPT_UINT(0, "connect-timeout", &o.connect_s, "S", 0, OPT_NUMBER_MAX,
                 "wait this long for the socket (default " GRAMMAR_STR(DEFAULT_CONNECT_S) ")"),
        OPT_BOOLEAN(0, "check-link", &o.check_link,
                    "after START, send the target a damaged chunk and a\n"
                    "malformed CONFIG (it must count the one and refuse the\nother)"),
        OPT_BOOLEAN(0, "status", &o.status_line,
                    "a live status line on stderr (samples/s, link use,\nhash-table hit rate, drops)"),
        OPT_BOOLEAN('v', "verbose", &o.verbose, "log sessions, ACKs, epochs, flushes and commits on stdout"),
        OPT_STRING(0, "value-transform", &o.value_transform, "NAME[,NAME]",
                   "transform value samples before merging, stored beside\n"
                   "them: accessors (per data address, the instructions\n"
                   "that touched it; alphaprof values --kind accessor)"),
        OPT_END(),
    };
    enum opt_result r = opt_parse(&daemon_command, options, argc, argv, &o.elfs, NULL);
    int status = r != OPT_PARSED ? opt_exit(r) : daemon_check(&daemon_command, &o);
    if (r == OPT_PARSED && status == 0)
        status = daemon_run(&o);
    strvec_free(&o.elfs);
    return status;
}

/* Attaches, sets the target up and merges until stopped. */
static int daemon_run(const struct daemon_options *o)
{
    const char *link = o->link, *db_path = o->db ? o->db : pdb_default_path(), *board_name = o->board;
    const char *fleet = NULL;
    if (fleet_is_uri(db_path)) {
        fleet = db_path;
        db_path = o->spool ? o->spool : "alphaprof-spool.db";
    }
    double push_every = o->push_every, next_push = 0;
    unsigned flush_every = o->flush_every, epoch_every = o->epoch_every, connect_s = o->connect_s;
    bool status_line = o->status_line, verbose = o->verbose, check_link = o->check_link;
    struct strvec elfs = {0};
    for (size_t i = 0; i < o->elfs.n; i++)
        strvec_push(&elfs, o->elfs.v[i]);
    int status = 2;
    struct ap_err err;
    struct lk_config cfg;
    bool want_config = daemon_config(o, &cfg);

    /* The monitor's ELF joins the images the loadmap may name. */
    char home[PATH_MAX];
    struct board board;
    if (alphaprof_home(home, sizeof home, &err) == 0 && board_load(home, board_name, &board, &err) == 0) {
        char fw[PATH_MAX];
        board_resolve(home, board.firmware, fw, sizeof fw);
        if (access(fw, R_OK) == 0)
            strvec_push(&elfs, fw);
    }

    /* The images before the link: attaching may wait for the board, a bad
     * image name must not. */
    for (size_t i = 0; i < o->elfs.n; i++) {
        struct image_file img;
        if (image_open(&img, o->elfs.v[i], false, &err)) {
            fprintf(stderr, "alphaprof daemon: %s\n", err.msg);
            goto out;
        }
        image_close(&img);
    }

    struct pdb *db = NULL;
    if (pdb_open(db_path, PDB_CREATE, &db, &err)) {
        fprintf(stderr, "alphaprof daemon: %s\n", err.msg);
        goto out;
    }
    if (fleet) {
        /* the store must take the (empty) spool before the board is touched */
        struct ap_err perr;
        int64_t run;
        bool replaced;
        if (fleet_push(db_path, fleet, &run, &replaced, &perr)) {
            fprintf(stderr, "alphaprof daemon: %s\n", perr.msg);
            pdb_close(db);
            goto out;
        }
    }
    status = 1;
    struct daemon d = {.fd = -1, .verbose = verbose, .db = db};

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_stop;            /* no SA_RESTART: poll returns at once */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    /* Attach: the board may still be starting. */
    const char *path = link + 5;
    double until = now_s() + connect_s;
    for (;;) {
        d.fd = serial_link_try_connect(path);
        if (d.fd >= 0 || d.fd == -2 || now_s() >= until || want_stop)
            break;
        usleep(50000);
    }
    if (d.fd < 0) {
        fprintf(stderr, "alphaprof daemon: cannot connect to the profile socket %s: %s (start the board "
                "with 'alphaprof run --profile-socket %s IMAGE')\n", path,
                d.fd == -2 ? strerror(errno) : "nobody listens there", path);
        goto close_out;
    }
    if (verbose)
        printf("daemon: attached to %s\n", path);
    /* this daemon's link session, and where its control seq starts */
    uint64_t nonce = 0;
    if (getrandom(&nonce, sizeof nonce, 0) != sizeof nonce || nonce == 0)
        nonce = ((uint64_t)getpid() << 32 ^ (uint64_t)(now_s() * 1e9)) | 1;
    d.ctl.fd = d.fd;
    d.ctl.seq = d.first_seq = (uint16_t)(nonce >> 48);
    struct ingest_opts io = {
        .status = status_line ? stderr : NULL,
        .elfs = (const char *const *)elfs.v,
        .nelfs = elfs.n,
        .commit_on_flush = true,
        .skip_until_hello = true,
        .send_acks = true,
        .ack_fd = d.fd,
        .nonce = nonce,
        .frame_hook = hook,
        .hook_ctx = &d,
        .value_transforms = o->value_transforms,
    };
    if (ingest_open(db, &io, &d.in, &err)) {
        fprintf(stderr, "alphaprof daemon: %s\n", err.msg);
        goto close_out;
    }

    int rc = 0;
    if (want_config) {
        rc = setup_step(&d, LK_T_CONFIG, &cfg, 0, &err);
        if (rc == 0 && d.ack.status == LK_ACK_BUSY) {
            /* sampling since boot: stop it, then configure */
            rc = setup_step(&d, LK_T_STOP, NULL, 0, &err);
            if (rc == 0)
                rc = setup_step(&d, LK_T_CONFIG, &cfg, 0, &err);
        }
        if (rc == 0 && d.ack.status != LK_ACK_OK) {
            fprintf(stderr, "alphaprof daemon: the board refused the configuration: %s\n", d.ack_msg);
            goto close_out;
        }
    }
    if (rc == 0)
        rc = setup_step(&d, LK_T_START, NULL, nonce, &err);
    if (rc == 0 && d.ack.status != LK_ACK_OK) {
        fprintf(stderr, "alphaprof daemon: the board refused START: %s\n", d.ack_msg);
        goto close_out;
    }
    if (rc != 0) {
        fprintf(stderr, "alphaprof daemon: %s\n", err.msg);
        goto close_out;
    }
    /* in the session, so the target's counts of it reach the database */
    if (check_link && link_check(&d, &err) != 0) {
        fprintf(stderr, "alphaprof daemon: %s\n", err.msg);
        goto close_out;
    }

    double next_flush = flush_every ? now_s() + flush_every / 1000.0 : 0;
    next_push = fleet ? now_s() + push_every : 0;
    double next_epoch = epoch_every ? now_s() + epoch_every : 0;
    bool stopping = false, stop_sent = false, stop_saved = false;
    double stop_until = 0;
    while (!d.eof) {
        if (pump(&d, 50, &err) != 0) {
            fprintf(stderr, "\nalphaprof daemon: %s\n", err.msg);
            goto close_out;
        }
        double now = now_s();
        if (ack_overdue(&d)) {
            fprintf(stderr, "alphaprof daemon: warning: no ACK for %s, sent %" PRIu64 " times, "
                    "and nothing from the board for %d s\n", lk_type_name(d.ctl.out_type),
                    d.ctl.retries + 1, DEFAULT_ACK_S);
            d.ctl.outstanding = false;
        } else if (retry_control(&d) != 0) {
            break;
        }
        if (d.acked) {
            d.acked = false;
            if (d.ack.status != LK_ACK_OK)
                fprintf(stderr, "alphaprof daemon: warning: the board answered %s with status %u: %s\n",
                        lk_type_name(d.ack.type), d.ack.status, d.ack_msg);
            if (stop_sent && d.ack.type == LK_T_STOP) {
                stop_saved = d.ack.status == LK_ACK_OK;
                break;
            }
        }
        if (want_stop && !stopping) {
            stopping = true;
            stop_until = now + STOP_SAVE_S;
            if (verbose)
                printf("daemon: signal %d: stopping the board's sampling\n", (int)want_stop);
        }
        if (stopping && (stop_signals > 1 || now >= stop_until || d.ended))
            break;              /* a second signal, the board is too slow, or it ended */
        if (d.ctl.outstanding)
            continue;
        if (stopping) {
            if (stop_sent)
                break;          /* its ACK timed out */
            if (send_simple(&d, LK_T_STOP) != 0)
                break;
            stop_sent = true;
            continue;
        }
        if (fleet && now >= next_push) {
            next_push = now + push_every;
            push_spool(fleet, db_path, verbose);
        }
        if (want_epoch || (next_epoch && now >= next_epoch)) {
            want_epoch = 0;
            if (fleet)
                next_push = now;        /* the epoch before it, whole, goes out next */
            if (next_epoch)
                next_epoch = now + epoch_every;
            if (send_epoch(&d) != 0)
                break;
            continue;
        }
        if (next_flush && now >= next_flush && !d.ended) {
            next_flush = now + flush_every / 1000.0;
            if (send_simple(&d, LK_T_FLUSH_NOW) != 0)
                break;
        }
    }
    if (ingest_finish(d.in, &err) != 0) {
        fprintf(stderr, "alphaprof daemon: %s\n", err.msg);
        goto close_out;
    }
    const struct ingest_totals *t = ingest_totals(d.in);
    int64_t epoch = 0;
    pdb_current_epoch(db, &epoch, &err);
    bool cut = d.eof && t->ended == 0 && !d.stopped_by_run;
    if (d.verbose)
        printf("daemon: %" PRIu64 " LINK_ACK sent: %" PRIu64 " bytes within their budget (%.1f%% of the %" PRIu64
               " received), %" PRIu64 " past it after %d ms without one; %" PRIu64 " held back\n", t->acks_sent,
               t->ack_bytes, t->bytes ? 100.0 * (double)t->ack_bytes / (double)t->bytes : 0.0, t->bytes,
               t->acks_forced, LK_ACK_IDLE_MS, t->acks_deferred);
    fprintf(stderr,
            "alphaprof daemon: %" PRIu64 " samples (%" PRIu64 " in no image) from %" PRIu64
            " link bytes into %s, epoch %lld; %" PRIu64 " samples dropped, %" PRIu64
            " frames damaged or lost; %" PRIu64 " control frames "
            "answered; %" PRIu64 " duplicate frames discarded, %" PRIu64 " came after a gap (%" PRIu64
            " held until it filled), %" PRIu64 " frame pieces taken%s\n",
            t->samples + t->pme_samples, t->unknown, t->bytes, db_path, (long long)epoch,
            t->dropped, t->dropped_frames, d.acks, t->dup_frames, t->gap_frames, t->held_frames, t->parts,
            !d.eof || cut ? "" : t->ended ? "; the board ended (END) and closed the link"
            : "; the board's run stopped it (STOP from alphaprof run) and closed the link");
    if (cut)
        fprintf(stderr, "alphaprof daemon: the link was cut before the board's END (%" PRIu64
                " sessions, %" PRIu64 " frames taken); what the board did not get stored stays "
                "in its retransmit window for the next daemon\n", t->sessions, t->frames);
    status = cut ? EXIT_LINK_CUT : 0;
    if (stopping) {
        fprintf(stderr, "alphaprof daemon: stopped by signal %d: %s\n", (int)want_stop, stop_saved
                ? "the board stopped sampling and flushed; every sample it took is stored or counted"
                : d.ended ? "the board had ended; everything it sent is stored or counted"
                : "the board did not answer STOP in time; what it still holds stays in its "
                  "retransmit window for the next daemon");
        if (stop_saved && !d.ended)
            stop_note_instrumented("alphaprof daemon", &o->elfs, stderr);
        status = 128 + (int)want_stop;
    }
    if (fleet && push_spool(fleet, db_path, verbose) != 0) {
        fprintf(stderr, "alphaprof daemon: the last push to the fleet store failed; %s holds everything: "
                "push it with `alphaprof push --db %s --to %s`\n", db_path, db_path, fleet);
        if (status == 0)
            status = 1;
    }

close_out:
    if (d.fd >= 0)
        close(d.fd);
    ingest_close(d.in);
    pdb_close(db);
out:
    strvec_free(&elfs);
    return status;
}
