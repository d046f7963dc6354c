/*
 * The ingest loop: link bytes (a file, FIFO, unix socket or any fd) through
 * the link decoder into the profile database.
 *
 * Frames are checked (CRC, sequence), PCs mapped to (image, offset) with the
 * board's loadmap, and merged into the current epoch; merges are committed
 * every commit_ms (small steady transactions, no bursts).
 *
 * Sequence (link-protocol.h section 5): frames are taken in seq order of
 * their link session only.  Behind the expected seq: a duplicate or replay,
 * discarded and counted (link_dup_frames).  Ahead of it, with acks on
 * (ack_fd): discarded, and the target is asked to send again from the
 * expected one (LINK_ACK RESEND); without acks (a one-way stream): taken,
 * the gap counted as link_lost_frames.  With acks on, a LINK_ACK after
 * every commit tells the target what it may forget.  The target's
 * cumulative FLUSH counters become per-epoch stats and drops; samples the
 * target sent that never arrived intact are counted as link_lost_* drops, so
 * every sample is either in the database or counted as dropped.
 *
 * Invariants:
 *  1. The ingest borrows db (the caller closes it after ingest_close) and
 *     copies opts and the ELF paths; status, console and hook_ctx stay the
 *     caller's and must outlive it.
 *  2. A LINK_ACK's "stored" moves only after pdb_commit succeeded, so the
 *     target forgets only what is on disk.
 *  3. Errors are the database's or a build-id mismatch; link damage is
 *     counted, never an error.
 *  4. The frame hook sees a frame at most once, before it is merged: the
 *     session's in seq order, and the skipped ones (before the first
 *     HELLO, another host's session); never a duplicate or a frame ahead
 *     of a gap.
 *  5. The epoch is read again after every commit, so `alphaprof db
 *     new-epoch` from another process takes effect at the next commit.
 */
#ifndef ALPHAPROF_UTIL_INGEST_H
#define ALPHAPROF_UTIL_INGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/error.h"
#include "util/profile-db.h"

struct ingest_opts {
    unsigned commit_ms;         /* commit pending merges this often (0: 250) */
    FILE *status;               /* live status line here once a second, or NULL */
    FILE *console;              /* CONSOLE frames' text here, or NULL */
    uint64_t baud;              /* link speed for the link-use figure, 0 unknown */
    const char *const *elfs;    /* workload ELF files the board may run: their */
    size_t nelfs;               /* build-ids must match the loadmap's */
    /* A daemon attached to a running board: */
    bool commit_on_flush;       /* commit when every core's FLUSH is in, not on a timer */
    bool skip_until_hello;      /* frames before the first HELLO are the tail of an
                                   earlier session: skipped (counted) */
    /* Acknowledgements (link-protocol.h 5.2): LINK_ACKs are written to
     * ack_fd (the link, non-blocking; -1: not yet) when send_acks. */
    bool send_acks;
    int ack_fd;
    uint64_t nonce;             /* take only the session of this nonce (the host's
                                   START); 0: the first HELLO's */
    /* Sees every frame taken in order, and those before the first HELLO,
     * before it is merged (ACK, EPOCH, FLUSH...); never duplicates. */
    void (*frame_hook)(void *ctx, const struct lk_frame *f);
    void *hook_ctx;
    /* value transforms applied to every VALUES hotlist, stored beside it
     * (util/value-transform.h: a mask of 1 << VT_*) */
    unsigned value_transforms;
};

/* What went through, for the status line and the caller's report. */
struct ingest_totals {
    uint64_t bytes;             /* link bytes read */
    uint64_t frames;            /* good frames */
    uint64_t entries;           /* SAMPLES + PME_AGG entries and pairs merged */
    uint64_t samples;           /* samples merged (SAMPLES counts) */
    uint64_t pme_samples;       /* ProfileMe samples merged */
    uint64_t pairs;
    uint64_t unknown;           /* samples whose PC was in no image */
    uint64_t dropped;           /* samples counted as dropped (target and host) */
    uint64_t dropped_frames;    /* frames damaged, lost or malformed (not samples) */
    uint64_t malformed;         /* good-CRC frames whose payload did not parse */
    uint64_t commits;
    uint64_t sessions, ended;   /* HELLOs and ENDs seen */
    int64_t exit_status;        /* from the last END */
    uint64_t committed_samples; /* samples (SAMPLES + ProfileMe) on disk */
    uint64_t skipped;           /* frames skipped before the first HELLO */
    uint64_t dup_frames;        /* duplicates and replays discarded (incl. already_stored) */
    uint64_t already_stored;    /* frames an earlier host had stored (takeover) */
    uint64_t gap_frames;        /* frames that came after a gap (ahead of `expected`) */
    uint64_t held_frames;       /* ... of them held until it filled (selective repeat) */
    uint64_t lost_frames;       /* gaps taken as lost (no acks) */
    uint64_t resend_requests;   /* LINK_ACK RESEND sent */
    uint64_t parts;             /* PART pieces taken (link-protocol.h 5.7) */
    uint64_t acks_sent;         /* LINK_ACK sent */
    uint64_t ack_bytes;         /* ... bytes of those sent within the budget (link-protocol.h 5.8) */
    uint64_t acks_forced;       /* ... sent past it, after LK_ACK_IDLE_MS without one */
    uint64_t acks_deferred;     /* LINK_ACKs due but over the byte budget (link-protocol.h 5.8) */
    uint64_t went_back;         /* cumulative values that went back (ignored) */
    uint32_t ncores;            /* from the last HELLO */
    uint64_t baud;              /* from the last HELLO (0 unpaced or unknown) */
    struct lk_dec_stats link;   /* the decoder's counts */
};

struct ingest;

int ingest_open(struct pdb *db, const struct ingest_opts *opts, struct ingest **out,
                struct ap_err *err);
/* Decodes and merges bytes; commits when due.  Errors are the database's or
 * a build-id mismatch, never the link's (those are counted). */
int ingest_feed(struct ingest *in, const uint8_t *buf, size_t n, struct ap_err *err);
/* Where LINK_ACKs go from now on (a link that connects after the open). */
void ingest_set_ack_fd(struct ingest *in, int fd);
/* Idle work: a LINK_ACK when one is due (call it every ~50 ms). */
void ingest_tick(struct ingest *in);
/* Commits now (also called when the link is idle). */
int ingest_commit(struct ingest *in, struct ap_err *err);
/* End of stream: a cut-off frame is counted, everything committed. */
int ingest_finish(struct ingest *in, struct ap_err *err);
/* Reads fd until end of file, committing while idle; stop (may be NULL) is
 * polled between reads: set it to end early. */
int ingest_fd(struct ingest *in, int fd, volatile int *stop, struct ap_err *err);
const struct ingest_totals *ingest_totals(const struct ingest *in);
void ingest_close(struct ingest *in);

/* Opens a link source: "unix:PATH" (connect to a socket), "-" (stdin),
 * or a file or FIFO path.  Returns the fd or -1. */
int ingest_open_source(const char *spec, struct ap_err *err);

#endif
