/*
 * libFuzzer target for the link decoder and payload parsers.
 *
 * Two ways in, so the CRC does not hide the parsers from the fuzzer:
 *  1. the input as a wire stream, pushed in pieces whose sizes the input
 *     chooses; every frame that comes out is parsed by its type's parser;
 *  2. the input as the payload of a frame whose type the first byte picks,
 *     framed by the encoder, decoded, and parsed; list entries that parse are
 *     encoded again and must read back the same.
 * Invariants (a violation aborts): every input byte is a delimiter, part of
 * a good frame or counted bad; a framed payload comes back byte for byte.
 *
 * Run: build/tests/fuzz/fuzz_link_decoder -max_total_time=20 CORPUS_DIR
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "firmware/abi/link-codec.h"

#define CHECK(cond)             \
    do {                        \
        if (!(cond))            \
            abort();            \
    } while (0)

static uint8_t raw2[LK_MAX_RAW];

/* Entries that parsed are encoded again and must read back the same. */
static void reencode_samples(const struct lk_frame *f)
{
    struct lk_samples_hdr h;
    struct lk_reader r;
    if (lk_samples_open(f, &h, &r) != LK_OK)
        return;
    struct lk_writer w;
    lk_samples_begin(&w, raw2, sizeof raw2, h.core, h.event, h.period);
    uint64_t pcs[LK_MAX_PAYLOAD], counts[LK_MAX_PAYLOAD];
    int n = 0;
    while (n < LK_MAX_PAYLOAD && lk_samples_next(&r, &pcs[n], &counts[n]) == 1) {
        if (lk_samples_add(&w, pcs[n], counts[n]) != LK_OK)
            break;                      /* wider encoding than the input's: fine */
        n++;
    }
    struct lk_frame g = {LK_T_SAMPLES, 0, raw2 + LK_HDR_SIZE, lk_payload_len(&w)};
    struct lk_samples_hdr h2;
    CHECK(lk_samples_open(&g, &h2, &r) == LK_OK);
    CHECK(h2.core == h.core && h2.event == h.event && h2.period == h.period && h2.count == n);
    for (int i = 0; i < n; i++) {
        uint64_t pc, c;
        CHECK(lk_samples_next(&r, &pc, &c) == 1);
        CHECK(pc == pcs[i] && c == counts[i]);
    }
}

static void reencode_pme(const struct lk_frame *f)
{
    struct lk_pme_hdr h;
    struct lk_reader r;
    if (lk_pme_open(f, &h, &r) != LK_OK)
        return;
    struct lk_pme_agg a, b;
    while (lk_pme_next(&r, &a) == 1) {
        struct lk_writer one;
        CHECK(lk_pme_begin(&one, raw2, sizeof raw2, h.core, h.nbits, h.nlat) == LK_OK);
        if (lk_pme_add(&one, &a) != LK_OK)
            continue;
        struct lk_frame g = {LK_T_PME_AGG, 0, raw2 + LK_HDR_SIZE, lk_payload_len(&one)};
        struct lk_pme_hdr h2;
        struct lk_reader r2;
        CHECK(lk_pme_open(&g, &h2, &r2) == LK_OK);
        CHECK(lk_pme_next(&r2, &b) == 1);
        CHECK(memcmp(&a, &b, sizeof a) == 0);
    }
}

/* A parsed call record encodes back to one that parses the same, under
 * the same head. */
static void reencode_cct(const struct lk_frame *f)
{
    static uint8_t raw2[LK_MAX_RAW];
    struct lk_reader r;
    struct lk_cct_head h;
    if (lk_cct_open(f, &h, &r) != LK_OK)
        return;
    struct lk_cct_record a, b;
    while (lk_cct_next(&r, &a) == 1) {
        struct lk_writer one;
        CHECK(lk_cct_begin(&one, raw2, sizeof raw2, &h) == LK_OK);
        CHECK(lk_cct_add(&one, &a) == LK_OK);
        struct lk_frame g = {LK_T_CCT, 0, raw2 + LK_HDR_SIZE, lk_payload_len(&one)};
        struct lk_cct_head h2;
        struct lk_reader r2;
        CHECK(lk_cct_open(&g, &h2, &r2) == LK_OK);
        CHECK(h2.core == h.core && h2.total == h.total && h2.skipped_calls == h.skipped_calls &&
              h2.overflow_calls == h.overflow_calls && h2.first == h.first && h2.metrics == h.metrics);
        CHECK(h.metrics || (a.cycles == 0 && a.retired == 0));
        CHECK(lk_cct_next(&r2, &b) == 1);
        CHECK(memcmp(&a, &b, sizeof a) == 0);
    }
}

/* A parsed PATHS frame's counters re-encode one by one under the same head. */
static void reencode_paths(const struct lk_frame *f)
{
    static uint8_t raw2[LK_MAX_RAW];
    struct lk_reader r;
    struct lk_paths_head h;
    if (lk_paths_open(f, &h, &r) != LK_OK)
        return;
    struct lk_path_count a, b;
    while (lk_paths_next(&r, &a) == 1) {
        struct lk_writer one;
        CHECK(lk_paths_begin(&one, raw2, sizeof raw2, &h) == LK_OK);
        CHECK(lk_paths_add(&one, &a) == LK_OK);
        struct lk_frame g = {LK_T_PATHS, 0, raw2 + LK_HDR_SIZE, lk_payload_len(&one)};
        struct lk_paths_head h2;
        struct lk_reader r2;
        CHECK(lk_paths_open(&g, &h2, &r2) == LK_OK);
        CHECK(h2.core == h.core && h2.lost_paths == h.lost_paths && h2.unmatched_exits == h.unmatched_exits &&
              h2.bad_paths == h.bad_paths && h2.first == h.first && h2.metered == h.metered &&
              h2.unmetered == h.unmetered);
        CHECK(h.metered || (a.cycles == 0 && a.event == 0));
        CHECK(lk_paths_next(&r2, &b) == 1);
        CHECK(memcmp(&a, &b, sizeof a) == 0);
    }
}

/* A parsed CCT_PATHS or CCT_PATHS_METERED frame's counts (and metrics)
 * re-encode one by one for the same core, in a frame of the same type;
 * a CCT_PATHS entry has no metrics. */
static void reencode_cct_paths(const struct lk_frame *f)
{
    static uint8_t raw2[LK_MAX_RAW];
    struct lk_reader r;
    uint32_t core;
    bool metered;
    if (lk_cct_paths_open(f, &core, &metered, &r) != LK_OK)
        return;
    CHECK(metered == (f->type == LK_T_CCT_PATHS_METERED));
    struct lk_ctx_path a, b;
    while (lk_cct_paths_next(&r, &a) == 1) {
        CHECK(metered || (a.cycles == 0 && a.event == 0));
        struct lk_writer one;
        CHECK((metered ? lk_cct_paths_metered_begin : lk_cct_paths_begin)(&one, raw2, sizeof raw2, core) == LK_OK);
        CHECK(lk_cct_paths_add(&one, &a) == LK_OK);
        struct lk_frame g = {f->type, 0, raw2 + LK_HDR_SIZE, lk_payload_len(&one)};
        uint32_t core2;
        bool metered2;
        struct lk_reader r2;
        CHECK(lk_cct_paths_open(&g, &core2, &metered2, &r2) == LK_OK);
        CHECK(core2 == core && metered2 == metered);
        CHECK(lk_cct_paths_next(&r2, &b) == 1);
        CHECK(memcmp(&a, &b, sizeof a) == 0);
        CHECK(lk_cct_paths_next(&r2, &b) == 0);
    }
}

/* A parsed PATH_HASH frame's hashed counts re-encode one by one for the
 * same core and read back the same. */
static void reencode_path_hash(const struct lk_frame *f)
{
    struct lk_reader r;
    uint32_t core;
    if (lk_path_hash_open(f, &core, &r) != LK_OK)
        return;
    struct lk_hash_path a, b;
    while (lk_path_hash_next(&r, &a) == 1) {
        struct lk_writer one;
        CHECK(lk_path_hash_begin(&one, raw2, sizeof raw2, core) == LK_OK);
        CHECK(lk_path_hash_add(&one, &a) == LK_OK);
        struct lk_frame g = {LK_T_PATH_HASH, 0, raw2 + LK_HDR_SIZE, lk_payload_len(&one)};
        uint32_t core2;
        struct lk_reader r2;
        CHECK(lk_path_hash_open(&g, &core2, &r2) == LK_OK);
        CHECK(core2 == core);
        CHECK(lk_path_hash_next(&r2, &b) == 1);
        CHECK(memcmp(&a, &b, sizeof a) == 0);
        CHECK(lk_path_hash_next(&r2, &b) == 0);
    }
}

/* A parsed hotlist encodes back to one that parses the same. */
static void reencode_values(const struct lk_frame *f)
{
    static uint8_t raw2[LK_MAX_RAW];
    struct lk_reader r;
    uint32_t core;
    if (lk_values_open(f, &core, &r) != LK_OK)
        return;
    struct lk_hotlist a, b;
    memset(&a, 0, sizeof a);
    while (lk_values_next(&r, &a) == 1) {
        CHECK(a.nvalues <= LK_MAX_HOT_VALUES && a.tau > 0);
        struct lk_writer one;
        CHECK(lk_values_begin(&one, raw2, sizeof raw2, core) == LK_OK);
        if (lk_values_add(&one, &a) != LK_OK)
            continue;
        struct lk_frame g = {LK_T_VALUES, 0, raw2 + LK_HDR_SIZE, lk_payload_len(&one)};
        struct lk_reader r2;
        uint32_t core2;
        memset(&b, 0, sizeof b);
        CHECK(lk_values_open(&g, &core2, &r2) == LK_OK && core2 == core);
        CHECK(lk_values_next(&r2, &b) == 1);
        CHECK(memcmp(&a, &b, sizeof a) == 0);
        memset(&a, 0, sizeof a);
    }
}

static void parse_any(const struct lk_frame *f)
{
    struct lk_reader r;
    union {
        struct lk_hello h;
        struct lk_flush fl;
        struct lk_epoch e;
        struct lk_end end;
        struct lk_ack a;
        struct lk_console c;
        struct lk_config cfg;
        struct lk_names_hdr nh;
        struct lk_loadmap_entry le;
        struct lk_pme_hdr ph;
        struct lk_pair p;
        struct lk_link_ack la;
        struct lk_value_stats vs;
        struct lk_part pt;
    } u;
    struct lk_bytes b;
    uint64_t x;
    uint32_t cnt;
    switch (f->type) {
    case LK_T_HELLO: lk_parse_hello(f, &u.h); break;
    case LK_T_FLUSH: lk_parse_flush(f, &u.fl); break;
    case LK_T_EPOCH: lk_parse_epoch(f, &u.e); break;
    case LK_T_END: lk_parse_end(f, &u.end); break;
    case LK_T_ACK: lk_parse_ack(f, &u.a); break;
    case LK_T_CONSOLE: lk_parse_console(f, &u.c); break;
    case LK_T_CONFIG: lk_parse_config(f, &u.cfg); break;
    case LK_T_NEW_EPOCH: lk_parse_new_epoch(f, &x); break;
    case LK_T_START: lk_parse_start(f, &x); break;
    case LK_T_PART:
        if (lk_parse_part(f, &u.pt) == LK_OK)       /* the piece lies inside the frame and its total */
            CHECK(u.pt.bytes.p > f->payload && u.pt.bytes.p + u.pt.bytes.n == f->payload + f->len &&
                  u.pt.offset + u.pt.bytes.n <= u.pt.total);
        break;
    case LK_T_LINK_ACK:
        if (lk_parse_link_ack(f, &u.la) == LK_OK) {     /* a parsed LINK_ACK encodes back the same */
            struct lk_writer w;
            struct lk_link_ack back;
            CHECK(lk_enc_link_ack(&w, raw2, sizeof raw2, &u.la) == LK_OK);
            size_t n = lk_frame_raw(&w);
            struct lk_frame g;
            CHECK(n > 0 && lk_frame_of_raw(raw2, n, &g) == LK_OK);
            CHECK(lk_parse_link_ack(&g, &back) == LK_OK);
            CHECK(back.nonce == u.la.nonce && back.stored == u.la.stored &&
                  back.expected == u.la.expected && back.flags == u.la.flags && back.sack == u.la.sack);
        }
        break;
    case LK_T_NAMES:
        if (lk_names_open(f, &u.nh, &r) == LK_OK)
            while (lk_names_next(&r, &b) == 1)
                CHECK(b.p >= f->payload && b.p + b.n <= f->payload + f->len);
        break;
    case LK_T_LOADMAP:
        if (lk_loadmap_open(f, &cnt, &r) == LK_OK)
            while (lk_loadmap_next(&r, &u.le) == 1)
                CHECK(u.le.name.n <= LK_MAX_NAME);
        break;
    case LK_T_SAMPLES: reencode_samples(f); break;
    case LK_T_PME_AGG: reencode_pme(f); break;
    case LK_T_VALUES: reencode_values(f); break;
    case LK_T_VALUE_STATS:
        if (lk_parse_value_stats(f, &u.vs) == LK_OK)
            CHECK(u.vs.nstops <= LK_MAX_VALUE_STOPS);
        break;
    case LK_T_CCT: reencode_cct(f); break;
    case LK_T_PATHS: reencode_paths(f); break;
    case LK_T_CCT_PATHS:
    case LK_T_CCT_PATHS_METERED: reencode_cct_paths(f); break;
    case LK_T_PATH_HASH: reencode_path_hash(f); break;
    case LK_T_PAIRS:
        if (lk_pairs_open(f, &u.ph, &r) == LK_OK)
            while (lk_pairs_next(&r, &u.p) == 1)
                ;
        break;
    default: break;
    }
}

static const uint8_t types[] = {
    LK_T_HELLO, LK_T_NAMES, LK_T_LOADMAP, LK_T_SAMPLES, LK_T_PME_AGG, LK_T_PAIRS,
    LK_T_FLUSH, LK_T_EPOCH, LK_T_END, LK_T_CONSOLE, LK_T_ACK, LK_T_VALUES, LK_T_VALUE_STATS, LK_T_PART,
    LK_T_CCT, LK_T_PATHS, LK_T_CCT_PATHS, LK_T_CCT_PATHS_METERED, LK_T_PATH_HASH, LK_T_START,
    LK_T_STOP,
    LK_T_CONFIG, LK_T_NEW_EPOCH, LK_T_FLUSH_NOW, LK_T_LINK_ACK,
};

static struct lk_decoder dec;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* 1. as a wire stream */
    lk_dec_init(&dec);
    size_t off = 0, zeros = 0, piece_seed = size ? data[0] : 1;
    for (size_t i = 0; i < size; i++)
        zeros += data[i] == 0;
    while (off < size) {
        size_t piece = 1 + (piece_seed * 31 + off) % 97;
        if (piece > size - off)
            piece = size - off;
        size_t done = 0;
        while (done < piece) {
            size_t used;
            struct lk_frame f;
            int got = lk_dec_push(&dec, data + off + done, piece - done, &used, &f);
            CHECK(used <= piece - done);
            done += used;
            if (got) {
                CHECK(f.len <= LK_MAX_PAYLOAD);
                parse_any(&f);
            }
        }
        off += piece;
    }
    lk_dec_end(&dec);
    CHECK(dec.st.bytes_ok + dec.st.bytes_bad + zeros == size);

    /* 2. as a payload, framed properly */
    if (size >= 1) {
        uint8_t raw[LK_MAX_RAW], wire[LK_MAX_WIRE];
        size_t plen = size - 1 > LK_MAX_PAYLOAD ? LK_MAX_PAYLOAD : size - 1;
        struct lk_writer w;
        lk_begin(&w, raw, sizeof raw, types[data[0] % sizeof types]);
        lk_put_bytes(&w, data + 1, plen);
        size_t n = lk_finish(&w, (uint16_t)size, wire, sizeof wire);
        CHECK(n > 0);
        lk_dec_init(&dec);
        size_t used;
        struct lk_frame f;
        CHECK(lk_dec_push(&dec, wire, n, &used, &f) == 1);
        CHECK(used == n && f.len == plen && f.seq == (uint16_t)size);
        CHECK(plen == 0 || memcmp(f.payload, data + 1, plen) == 0);
        parse_any(&f);
    }
    return 0;
}
