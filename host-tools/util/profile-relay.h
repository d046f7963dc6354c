/*
 * Stop means save for `alphaprof run --profile-socket PATH`: run serves
 * the profile link on PATH itself and relays it between the board (QEMU's
 * socket) and the daemon attached there (util/qemu-launch.c moves the
 * bytes).  This file watches both directions and, on --timeout or a
 * signal, sends the board a STOP of its own: the board stops sampling,
 * flushes, and answers with an ACK frame in its link session; QEMU may end
 * once the daemon's LINK_ACK says it stored past that ACK.
 *
 * Invariants:
 *  1. Saved means: our STOP was answered OK at session position S, and a
 *     LINK_ACK of that session from the daemon has `stored` > S (every
 *     frame through the flush is on the daemon's disk), or the board's END
 *     came and was stored the same way.
 *  2. Nothing to save (no daemon attached, or no session yet) is said, and
 *     QEMU ends at once: waiting could not save anything.
 *  3. A BUSY answer (the daemon's own control frame in progress) is asked
 *     again with a new seq (the board answers a repeated seq as before).
 *  4. Only the watcher reads the frames; the bytes are relayed unchanged.
 */
#ifndef ALPHAPROF_UTIL_PROFILE_RELAY_H
#define ALPHAPROF_UTIL_PROFILE_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "firmware/abi/link-codec.h"
#include "util/link-control.h"

struct profile_relay {
    struct lk_decoder from_board, from_host;
    struct link_control ctl;            /* our STOP */
    bool host_attached;                 /* a daemon is connected now */
    bool in_session;                    /* a HELLO came: the board has a session */
    uint64_t nonce;                     /* its nonce */
    bool stop_sent, stop_acked, ended;
    uint16_t mark;                      /* session seq of the STOP's ACK (or END) */
    bool have_mark;
    bool stored_past_mark;              /* invariant 1 */
    double busy_since;                  /* STOP answered BUSY: ask again after a pause */
};

void profile_relay_init(struct profile_relay *r, uint16_t first_seq);
/* Bytes from the board (to be relayed to the daemon). */
void profile_relay_from_board(struct profile_relay *r, const uint8_t *buf, size_t n);
/* Bytes from the daemon (to be relayed to the board). */
void profile_relay_from_host(struct profile_relay *r, const uint8_t *buf, size_t n);
/* A daemon attached (true) or went away (false). */
void profile_relay_host(struct profile_relay *r, bool attached);
/* The stop: STOP to the board on fd (QEMU's socket), unless there is
 * nothing to save (invariant 2).  Returns whether it waits for the save. */
bool profile_relay_stop(struct profile_relay *r, int fd);
/* Retries while waiting (call every ~50 ms). */
void profile_relay_tick(struct profile_relay *r);
bool profile_relay_saved(const struct profile_relay *r);

#endif
