/*
 * Encoder and streaming decoder for the link protocol (link-protocol.h).
 *
 * One copy of the code, built into the firmware (freestanding
 * alpha-linux-gnu-gcc) and the host tools.  No allocation, no stdio, no
 * libc calls: every buffer belongs to the caller.
 *
 * Sending a frame:
 *     uint8_t raw[LK_MAX_RAW], wire[LK_MAX_WIRE];
 *     struct lk_writer w;
 *     lk_samples_begin(&w, raw, sizeof raw, core, event, period);
 *     while (more && lk_samples_add(&w, pc, n) == LK_OK) ...;
 *     size_t len = lk_finish(&w, seq++, wire, sizeof wire);   // 0 = error
 *
 * Receiving:
 *     struct lk_decoder d;  lk_dec_init(&d);
 *     while (n > 0) {
 *         size_t used; struct lk_frame f;
 *         int got = lk_dec_push(&d, p, n, &used, &f);
 *         p += used; n -= used;
 *         if (got) handle(&f);          // f.payload is valid until the next push
 *     }
 *     lk_dec_end(&d);                   // at end of stream: counts a cut-off frame
 *
 * then lk_parse_*() / lk_*_next() read payloads.
 */
#ifndef ALPHAPROF_LINK_CODEC_H
#define ALPHAPROF_LINK_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "firmware/abi/link-protocol.h"

/* Results. */
#define LK_OK           0
#define LK_E_FULL       (-1)    /* does not fit in this frame: finish it, start another */
#define LK_E_RANGE      (-2)    /* an argument out of the protocol's limits */
#define LK_E_MALFORMED  (-3)    /* a payload ends early or holds a bad varint */
#define LK_E_TYPE       (-4)    /* the frame is not of the type asked for */

/* CRC-32/IEEE (zlib's crc32): start with crc = 0. */
uint32_t lk_crc32(uint32_t crc, const void *data, size_t n);

/* COBS: encoded length (without delimiters), or 0 if cap is too small. */
size_t lk_cobs_encode(const uint8_t *src, size_t n, uint8_t *dst, size_t cap);

/* Byte strings inside frames (never owned). */
struct lk_bytes {
    const uint8_t *p;
    size_t n;
};

/* ------------------------------------------------------------------ writer */

struct lk_writer {
    uint8_t *buf;           /* raw frame under construction */
    size_t cap;
    size_t lim;             /* the payload's end: cap less the CRC, capped */
    size_t len;
    bool overflow;          /* a put did not fit; lk_finish refuses */
    uint8_t type;
    uint8_t nbits, nlat;    /* PME_AGG / PAIRS geometry */
    size_t count_at;        /* offset of the n16 entry count, 0 if none */
    uint16_t count;
    uint64_t prev_pc;       /* for pcd */
    bool paths_metered;     /* PATHS, CCT_PATHS_METERED: entries carry cycles and event */
    bool cct_metrics;       /* CCT: records carry cycles and retired */
};

/* Starts a frame of `type` in buf (cap >= LK_HDR_SIZE + LK_CRC_SIZE). */
void lk_begin(struct lk_writer *w, uint8_t *buf, size_t cap, uint8_t type);
void lk_put_u8(struct lk_writer *w, uint8_t v);
void lk_put_u16(struct lk_writer *w, uint16_t v);
void lk_put_uvarint(struct lk_writer *w, uint64_t v);
void lk_put_svarint(struct lk_writer *w, int64_t v);
void lk_put_pc(struct lk_writer *w, uint64_t pc);
void lk_put_bytes(struct lk_writer *w, const void *p, size_t n);
void lk_put_str(struct lk_writer *w, struct lk_bytes s);
/* Payload bytes written so far (the caller's budget check). */
size_t lk_payload_len(const struct lk_writer *w);
/* Entries added to a SAMPLES / PME_AGG / PAIRS / LOADMAP frame. */
uint16_t lk_count(const struct lk_writer *w);

/*
 * Seals the frame (header, CRC), COBS-encodes it with its delimiters into
 * out.  Returns the wire length, or 0 if a put overflowed, the payload is
 * longer than LK_MAX_PAYLOAD or out is smaller than needed
 * (LK_MAX_WIRE always suffices).  The writer's buffer is left as the raw
 * frame.
 */
size_t lk_finish(struct lk_writer *w, uint16_t seq, uint8_t *out, size_t out_cap);
/* The two halves of lk_finish, for a sender that keeps frames to send them
 * again (firmware/profiler/link-retx.c): lk_frame_raw fills in the header
 * (seq 0) and returns the raw length without CRC (0 on overflow);
 * lk_seal sets seq, appends the CRC (raw needs LK_CRC_SIZE bytes of room
 * after len) and COBS-encodes into out.  Returns the wire length or 0. */
size_t lk_frame_raw(struct lk_writer *w);
size_t lk_seal(uint8_t *raw, size_t len, uint16_t seq, uint8_t *out, size_t out_cap);

/* -------------------------------------------------------- payload records */

struct lk_hello {
    uint32_t proto;                     /* parsed; the encoder always sends LK_PROTO_VERSION */
    uint32_t ncores;
    uint32_t caps;
    uint64_t timebase_hz;
    struct lk_bytes board;
    struct lk_bytes firmware;
    uint64_t baud;                      /* link pacing (8N1), 0 unpaced or not sent */
    uint64_t nonce;                     /* the link session's nonce (section 5) */
    uint64_t prev_nonce;                /* takeover: the session it carries on (0: none) */
    uint64_t prev_pos;                  /* ... and the old position of its first resent frame */
    /* Timer sampling (0 when the timer does not sample): the period range
     * configured, and the one the board samples at (raised to its floor). */
    uint64_t period_min, period_max;
    uint64_t timer_min, timer_max;
};

struct lk_loadmap_entry {
    uint32_t action;                    /* LK_LOADMAP_* */
    uint64_t address;
    uint64_t size;
    uint32_t build_id_size;             /* bytes used in build_id */
    uint8_t build_id[LK_BUILD_ID_SIZE];
    struct lk_bytes name;
};

struct lk_samples_hdr {
    uint32_t core;
    uint32_t event;
    uint64_t period;
    uint16_t count;
};

struct lk_pme_agg {
    uint64_t pc;
    uint64_t samples, retired, aborted;
    uint64_t bits[LK_MAX_BITS];         /* count per event bit (nbits used) */
    uint64_t lat[LK_MAX_LAT];           /* sum per latency field (nlat used) */
};

struct lk_pme_hdr {                     /* PME_AGG and PAIRS */
    uint32_t core;
    uint32_t nbits;                     /* 0 for PAIRS */
    uint32_t nlat;
    uint64_t offered, kept;             /* PAIRS: the bank's pairs taken and kept (0, 0 for PME_AGG) */
    uint16_t count;
};

struct lk_pme_record {
    uint64_t pc;
    uint64_t events;                    /* event bit-field */
    uint64_t addr;
    uint64_t history;
    uint64_t lat[LK_MAX_LAT];
};

struct lk_pair {
    uint64_t distance;                  /* cycles between the two fetches */
    uint64_t gap;                       /* instructions fetched between them */
    struct lk_pme_record rec[2];
};

struct lk_counter {
    uint32_t id;
    uint64_t value;
};

struct lk_flush {
    uint32_t core;
    uint64_t flush_no;
    uint64_t time;
    uint32_t nstats;
    struct lk_counter stats[LK_MAX_COUNTERS];     /* LK_STAT_* */
    uint32_t ndrops;
    struct lk_counter drops[LK_MAX_COUNTERS];     /* LK_DROP_* */
    uint32_t base;                      /* 1: values an earlier host already stored */
};

struct lk_link_ack {
    uint64_t nonce;                     /* the session acknowledged */
    uint16_t stored;                    /* every frame before this seq is stored */
    uint16_t expected;                  /* the next seq the host takes */
    uint32_t flags;                     /* LK_LACK_* */
    uint32_t sack;                      /* bit i: the host holds expected + 1 + i (i < LK_SACK_BITS) */
};

struct lk_epoch {
    uint64_t epoch;
    uint64_t time;
};

struct lk_end {
    int64_t status;
    uint32_t how;                       /* LK_END_* */
    uint64_t time;
};

struct lk_console {
    uint32_t stream;
    uint32_t core;
    struct lk_bytes text;
};

struct lk_ack {
    uint16_t seq;
    uint8_t type;
    uint32_t status;                    /* LK_ACK_* */
    struct lk_bytes message;
};

struct lk_part {
    uint32_t total;                     /* the whole raw frame's length */
    uint32_t offset;                    /* of this piece in it */
    struct lk_bytes bytes;              /* the piece (inside the frame) */
};

struct lk_names_hdr {
    uint32_t kind;                      /* LK_NAMES_* */
    uint32_t first;
    uint32_t count;
};

struct lk_event_config {
    uint32_t event;
    uint64_t period_min, period_max;
};

struct lk_config {
    uint32_t mode;                      /* LK_MODE_* */
    uint32_t flush_ms;
    uint64_t pme_min, pme_max;
    uint32_t pair_window;
    uint32_t nevents;
    struct lk_event_config events[LK_MAX_EVENTS];
};

/* VALUES: one hotlist (link-protocol.h section 3). */
struct lk_hotlist {
    uint64_t pc;
    uint32_t kind;
    uint64_t tau;
    uint64_t offered;
    uint32_t nvalues;
    uint64_t value[LK_MAX_HOT_VALUES];
    uint64_t count[LK_MAX_HOT_VALUES];
};

struct lk_value_stats {
    uint32_t core;
    uint64_t runs, insns, cycles, offered, sent, no_slot, link_full, not_user;
    uint32_t nstops;
    struct lk_counter stops[LK_MAX_VALUE_STOPS];  /* id: VI_STOP_* */
};

/* CCT: the frame's head and one call record (link-protocol.h section 3). */
struct lk_cct_head {
    uint32_t core;
    uint64_t total, skipped_calls, overflow_calls, first;
    uint64_t metrics;           /* 1: each record carries cycles and retired */
};

struct lk_cct_record {
    uint64_t parent, callee, site, calls;
    uint64_t cycles, retired;   /* when metrics */
};

/* PATHS: the frame's head and one counter (link-protocol.h section 3). */
struct lk_paths_head {
    uint32_t core;
    uint64_t lost_paths, unmatched_exits, bad_paths, first;
    uint64_t metered;           /* 1: each counter carries cycles and event */
    uint64_t unmetered;         /* paths counted without metrics */
};

struct lk_path_count {
    uint64_t index, count;
    uint64_t cycles, event;     /* when metered */
};

/* CCT_PATHS: one path's count in one calling context; CCT_PATHS_METERED:
 * with its cycles and event there too (link-protocol.h section 3). */
struct lk_ctx_path {
    uint64_t record, path, count;
    uint64_t cycles, event;     /* CCT_PATHS_METERED only (0 from CCT_PATHS) */
};

/* PATH_HASH: one hashed path's count (link-protocol.h section 3). */
struct lk_hash_path {
    uint64_t proc, path, count;
};

/* ------------------------------------------------------- typed encoders */
/* Single-shot frames: begin, fill, leave the writer ready for lk_finish.
 * Each returns LK_OK, LK_E_RANGE or LK_E_FULL. */
int lk_enc_hello(struct lk_writer *w, uint8_t *buf, size_t cap, const struct lk_hello *h);
int lk_enc_flush(struct lk_writer *w, uint8_t *buf, size_t cap, const struct lk_flush *f);
int lk_enc_epoch(struct lk_writer *w, uint8_t *buf, size_t cap, const struct lk_epoch *e);
int lk_enc_end(struct lk_writer *w, uint8_t *buf, size_t cap, const struct lk_end *e);
int lk_enc_ack(struct lk_writer *w, uint8_t *buf, size_t cap, const struct lk_ack *a);
int lk_enc_config(struct lk_writer *w, uint8_t *buf, size_t cap, const struct lk_config *c);
int lk_enc_new_epoch(struct lk_writer *w, uint8_t *buf, size_t cap, uint64_t epoch);
int lk_enc_start(struct lk_writer *w, uint8_t *buf, size_t cap, uint64_t nonce);
int lk_enc_link_ack(struct lk_writer *w, uint8_t *buf, size_t cap, const struct lk_link_ack *a);
/* A piece of the raw frame raw[0..total) (link-protocol.h 5.7). */
int lk_enc_part(struct lk_writer *w, uint8_t *buf, size_t cap, const uint8_t *raw, uint32_t total,
                uint32_t offset, uint32_t n);
/* START (nonce 0), STOP, FLUSH_NOW: frames without payload. */
int lk_enc_control(struct lk_writer *w, uint8_t *buf, size_t cap, uint8_t type);
/* Console text: puts as many bytes as fit; *used says how many. */
int lk_enc_console(struct lk_writer *w, uint8_t *buf, size_t cap, uint32_t stream,
                   uint32_t core, const void *text, size_t n, size_t *used);

/* List frames: begin, then add until LK_E_FULL (the entry that did not fit
 * is not in the frame: finish, begin another, add it there). */
int lk_names_begin(struct lk_writer *w, uint8_t *buf, size_t cap, uint32_t kind, uint32_t first);
int lk_names_add(struct lk_writer *w, struct lk_bytes name);
int lk_loadmap_begin(struct lk_writer *w, uint8_t *buf, size_t cap);
int lk_loadmap_add(struct lk_writer *w, const struct lk_loadmap_entry *e);
int lk_samples_begin(struct lk_writer *w, uint8_t *buf, size_t cap, uint32_t core,
                     uint32_t event, uint64_t period);
int lk_samples_add(struct lk_writer *w, uint64_t pc, uint64_t samples);
int lk_pme_begin(struct lk_writer *w, uint8_t *buf, size_t cap, uint32_t core,
                 uint32_t nbits, uint32_t nlat);
int lk_pme_add(struct lk_writer *w, const struct lk_pme_agg *a);
/* offered, kept: the bank's pairs taken and kept (each pair of the frame
 * stands for offered / kept); LK_E_RANGE unless kept <= offered. */
int lk_pairs_begin(struct lk_writer *w, uint8_t *buf, size_t cap, uint32_t core, uint32_t nlat,
                   uint64_t offered, uint64_t kept);
int lk_pairs_add(struct lk_writer *w, const struct lk_pair *p);
int lk_values_begin(struct lk_writer *w, uint8_t *buf, size_t cap, uint32_t core);
int lk_values_add(struct lk_writer *w, const struct lk_hotlist *h);
int lk_enc_value_stats(struct lk_writer *w, uint8_t *buf, size_t cap, const struct lk_value_stats *v);
int lk_cct_begin(struct lk_writer *w, uint8_t *buf, size_t cap, const struct lk_cct_head *h);
int lk_cct_add(struct lk_writer *w, const struct lk_cct_record *rec);
int lk_paths_begin(struct lk_writer *w, uint8_t *buf, size_t cap, const struct lk_paths_head *h);
int lk_paths_add(struct lk_writer *w, const struct lk_path_count *c);
int lk_cct_paths_begin(struct lk_writer *w, uint8_t *buf, size_t cap, uint32_t core);
/* A CCT_PATHS_METERED frame: lk_cct_paths_add then writes cycles and event too. */
int lk_cct_paths_metered_begin(struct lk_writer *w, uint8_t *buf, size_t cap, uint32_t core);
int lk_cct_paths_add(struct lk_writer *w, const struct lk_ctx_path *e);
int lk_path_hash_begin(struct lk_writer *w, uint8_t *buf, size_t cap, uint32_t core);
int lk_path_hash_add(struct lk_writer *w, const struct lk_hash_path *e);

/* ----------------------------------------------------------------- decoder */

struct lk_frame {
    uint8_t type;
    uint16_t seq;
    const uint8_t *payload;             /* inside the decoder: valid until the next push */
    size_t len;
};

struct lk_dec_stats {
    uint64_t frames_ok;                 /* good frames returned */
    uint64_t bytes_ok;                  /* wire bytes of good frames (without delimiters) */
    uint64_t frames_bad;                /* chunks between delimiters that were no frame */
    uint64_t bytes_bad;                 /* their wire bytes */
    /* why (each bad chunk counts once, in the first that applies) */
    uint64_t bad_cobs;                  /* stuffing broken (chunk cut inside a block) */
    uint64_t too_long;                  /* longer than LK_MAX_RAW once unstuffed */
    uint64_t too_short;                 /* shorter than header + CRC */
    uint64_t bad_crc;
    uint64_t bad_version;
    uint64_t bad_length;                /* header length disagrees with the frame */
    uint64_t truncated;                 /* the stream ended inside a frame */
    /* sequence */
    uint64_t seq_lost;                  /* frames missing between good ones */
    uint64_t seq_restarts;              /* seq jumped back: sender restarted or duplicated */
    uint64_t sessions;                  /* HELLO frames seen */
};

struct lk_decoder {
    uint8_t buf[LK_MAX_RAW];
    size_t len;                         /* unstuffed bytes of the current chunk */
    size_t chunk_bytes;                 /* wire bytes of the current chunk */
    uint8_t code;                       /* current COBS block code, 0 before the first */
    uint8_t left;                       /* data bytes left in the block */
    bool skipping;                      /* chunk already bad: wait for a delimiter */
    bool have_seq;
    uint16_t next_seq;
    struct lk_dec_stats st;
};

void lk_dec_init(struct lk_decoder *d);
/*
 * Consumes input up to and including the delimiter that ends a good frame.
 * Returns 1 with *f set when it found one, 0 when it used all n bytes
 * without.  *used is the number of bytes consumed.
 */
int lk_dec_push(struct lk_decoder *d, const uint8_t *in, size_t n, size_t *used,
                struct lk_frame *f);
/* End of stream: a chunk in progress is counted as truncated. */
void lk_dec_end(struct lk_decoder *d);

/* ------------------------------------------------------- payload readers */

struct lk_reader {
    const uint8_t *p, *end;
    uint64_t prev_pc;
    uint32_t left;                      /* entries left in a list */
    uint32_t nbits, nlat;
    bool paths_metered;                 /* PATHS, CCT_PATHS_METERED: entries carry cycles and event */
    bool cct_metrics;                   /* CCT: records carry cycles and retired */
};

void lk_reader_init(struct lk_reader *r, const struct lk_frame *f);
int lk_get_u8(struct lk_reader *r, uint8_t *v);
int lk_get_u16(struct lk_reader *r, uint16_t *v);
int lk_get_uvarint(struct lk_reader *r, uint64_t *v);
int lk_get_svarint(struct lk_reader *r, int64_t *v);
int lk_get_pc(struct lk_reader *r, uint64_t *pc);
int lk_get_str(struct lk_reader *r, struct lk_bytes *s);

/* Whole-frame parsers: LK_OK, LK_E_TYPE, LK_E_RANGE or LK_E_MALFORMED. */
int lk_parse_hello(const struct lk_frame *f, struct lk_hello *h);
int lk_parse_flush(const struct lk_frame *f, struct lk_flush *out);
int lk_parse_epoch(const struct lk_frame *f, struct lk_epoch *e);
int lk_parse_end(const struct lk_frame *f, struct lk_end *e);
int lk_parse_ack(const struct lk_frame *f, struct lk_ack *a);
int lk_parse_console(const struct lk_frame *f, struct lk_console *c);
int lk_parse_config(const struct lk_frame *f, struct lk_config *c);
int lk_parse_new_epoch(const struct lk_frame *f, uint64_t *epoch);
int lk_parse_start(const struct lk_frame *f, uint64_t *nonce);
int lk_parse_link_ack(const struct lk_frame *f, struct lk_link_ack *a);
/* A PART: total within a frame's raw size, the piece inside total. */
int lk_parse_part(const struct lk_frame *f, struct lk_part *p);
/* A raw frame (header + payload, no CRC) as the decoder would return it. */
int lk_frame_of_raw(const uint8_t *raw, size_t len, struct lk_frame *f);

/*
 * List parsers: *_open reads the list header and readies r; *_next returns
 * 1 with the next entry, 0 at the end of the list, or a negative LK_E_*.
 */
int lk_names_open(const struct lk_frame *f, struct lk_names_hdr *h, struct lk_reader *r);
int lk_names_next(struct lk_reader *r, struct lk_bytes *name);
int lk_loadmap_open(const struct lk_frame *f, uint32_t *count, struct lk_reader *r);
int lk_loadmap_next(struct lk_reader *r, struct lk_loadmap_entry *e);
int lk_samples_open(const struct lk_frame *f, struct lk_samples_hdr *h, struct lk_reader *r);
int lk_samples_next(struct lk_reader *r, uint64_t *pc, uint64_t *samples);
int lk_pme_open(const struct lk_frame *f, struct lk_pme_hdr *h, struct lk_reader *r);
int lk_pme_next(struct lk_reader *r, struct lk_pme_agg *a);
int lk_pairs_open(const struct lk_frame *f, struct lk_pme_hdr *h, struct lk_reader *r);
int lk_pairs_next(struct lk_reader *r, struct lk_pair *p);
int lk_values_open(const struct lk_frame *f, uint32_t *core, struct lk_reader *r);
int lk_values_next(struct lk_reader *r, struct lk_hotlist *h);
int lk_cct_open(const struct lk_frame *f, struct lk_cct_head *h, struct lk_reader *r);
int lk_cct_next(struct lk_reader *r, struct lk_cct_record *rec);
int lk_paths_open(const struct lk_frame *f, struct lk_paths_head *h, struct lk_reader *r);
int lk_paths_next(struct lk_reader *r, struct lk_path_count *c);
/* CCT_PATHS or CCT_PATHS_METERED (*metered says which; entries of the
 * latter carry cycles and event). */
int lk_cct_paths_open(const struct lk_frame *f, uint32_t *core, bool *metered, struct lk_reader *r);
int lk_cct_paths_next(struct lk_reader *r, struct lk_ctx_path *e);
int lk_path_hash_open(const struct lk_frame *f, uint32_t *core, struct lk_reader *r);
int lk_path_hash_next(struct lk_reader *r, struct lk_hash_path *e);
int lk_parse_value_stats(const struct lk_frame *f, struct lk_value_stats *v);

/* Names for messages and status lines ("SAMPLES", "overflow_full"...);
 * "unknown" for numbers the protocol does not define. */
const char *lk_type_name(uint8_t type);
const char *lk_drop_name(uint32_t reason);
const char *lk_stat_name(uint32_t id);

/* What the host counts itself (firmware/abi/counter-names.def). */
enum lk_host_drop {
#define HOST_DROP(id, name, what) LK_HOST_DROP_##id,
#include "firmware/abi/counter-names.def"
};
enum lk_host_stat {
#define HOST_STAT(id, name) LK_HOST_STAT_##id,
#include "firmware/abi/counter-names.def"
};
const char *lk_host_drop_name(enum lk_host_drop id);
const char *lk_host_stat_name(enum lk_host_stat id);

#endif
