/*
 * The host control frames' state machine, without the hardware: which
 * frame starts what, when a flush is done or given up, what the answer
 * consists of, and the session's counter bases.  control.c feeds it the
 * frames it receives and does what it decides (flush, stop, configure,
 * send); host unit tests drive it directly (tests/unit/test_control_machine.c).
 *
 *   START      sampling: flush the old session's data first, then reply;
 *              stopped: reply at once.  Reply: bases, sampling on, new
 *              session (HELLO, NAMES, LOADMAP), ACK "started"
 *   STOP       not sampling: ACK at once; else stop sampling, flush,
 *              reply: FLUSH frames, ACK "stopped"
 *   FLUSH_NOW  flush, reply: FLUSH frames, ACK "flushed"
 *   NEW_EPOCH  flush, reply: FLUSH frames, EPOCH, ACK "new epoch"
 *   CONFIG     while stopped: checked whole, installed, ACK at once
 *
 * States: IDLE -> FLUSHING -> REPLYING -> IDLE (or IDLE -> REPLYING for a
 * START while stopped).  Invariants:
 *  1. one control frame at a time: any frame that arrives while not IDLE
 *     is answered BUSY and changes nothing;
 *  2. every intact control frame gets exactly one ACK, carrying its own
 *     sequence number and type (a frame in progress when the run ends
 *     gets its answer from ctl_finish);
 *  3. a flush leaves FLUSHING when nothing is pending, or at its deadline
 *     (CTL_FLUSH_TIMEOUT_NS after it began) by giving up, never later;
 *  4. the reply waits until the link queue has its reserve free, so the
 *     answer's frames are never cut;
 *  5. counters in FLUSH frames are relative to the session's START (the
 *     bases); a counter below its base restarted from zero and is sent
 *     as it is.
 */
#ifndef FIRMWARE_PROFILER_CONTROL_MACHINE_H
#define FIRMWARE_PROFILER_CONTROL_MACHINE_H

#include <stdint.h>
#include "firmware/abi/link-codec.h"
#include "firmware/profiler/profiler-config.h"
#include "linker/ram-map.h"

#define CTL_FLUSH_TIMEOUT_NS 3000000000ull  /* then what is left is counted LINK_FULL */
#define CTL_ID_MAX           32             /* LK_STAT_* and LK_DROP_* ids kept */

enum ctl_state { CTL_IDLE, CTL_FLUSHING, CTL_REPLYING };

struct ctl_machine {
    enum ctl_state state;
    uint8_t op;                 /* the control frame in progress */
    uint16_t op_seq;
    uint64_t epoch;             /* NEW_EPOCH's number */
    uint64_t deadline;          /* FLUSHING: give up after this */
    uint64_t frames;            /* intact control frames received */
    uint64_t base_stats[MAX_CORES][CTL_ID_MAX], base_drops[MAX_CORES][CTL_ID_MAX];
};

/* The target as a frame arrives. */
struct ctl_view {
    int sampling;               /* the host has not stopped sampling */
    int has_model;              /* the board has the hardware model */
    uint64_t now_ns;
    const struct profiler_config *config;
};

enum ctl_action {
    CTL_ANSWER,                 /* only the ACK (status, message), now */
    CTL_CONFIGURE,              /* install decision.config, then the ACK (OK) */
    CTL_FLUSH,                  /* begin a flush of every core */
    CTL_STOP_AND_FLUSH,         /* stop sampling, then begin the flush */
    CTL_REPLY_LATER,            /* nothing to flush: reply when the link has room */
};

struct ctl_decision {
    enum ctl_action action;
    uint32_t status;            /* CTL_ANSWER: LK_ACK_* */
    const char *message;        /* CTL_ANSWER, CTL_CONFIGURE */
    struct profiler_config config;      /* CTL_CONFIGURE */
};

enum ctl_flush_step { CTL_KEEP_FLUSHING, CTL_FLUSHED, CTL_GIVE_UP };

/* The answer of the frame in progress, in this order. */
struct ctl_reply {
    uint8_t type;
    uint16_t seq;
    int start_session;          /* bases, sampling on if stopped, new session */
    int send_flushes;           /* a FLUSH frame per core */
    int send_epoch;             /* EPOCH(epoch) */
    uint64_t epoch;
    const char *message;        /* ACK, status OK */
};

void ctl_init(struct ctl_machine *m);
/* An intact frame from the host (counted); d says what to do. */
void ctl_on_frame(struct ctl_machine *m, const struct lk_frame *f, const struct ctl_view *v,
                  struct ctl_decision *d);
/* FLUSHING, after a round of sending: pending = something of the flush
 * still waits.  FLUSHED and GIVE_UP move on to REPLYING (GIVE_UP: the
 * caller counts what is left as dropped first). */
enum ctl_flush_step ctl_flush_step(struct ctl_machine *m, int pending, uint64_t now_ns);
/* REPLYING and link_ready (the reserve is free): fills r and returns 1,
 * the machine is IDLE again; else 0. */
int ctl_take_reply(struct ctl_machine *m, int link_ready, struct ctl_reply *r);
/* The run ends: the frame in progress, if any, is answered now (r; 1). */
int ctl_finish(struct ctl_machine *m, struct ctl_reply *r);

/* The session's zero point of one core's cumulative counters. */
void ctl_set_base(struct ctl_machine *m, const struct lk_flush *values);
/* Makes a FLUSH's cumulative counters relative to the session's start. */
void ctl_rebase(const struct ctl_machine *m, struct lk_flush *f);

#endif
