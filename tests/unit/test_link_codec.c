/* The link codec's encodings: CRC, varints, PC deltas, and a round trip of
 * every frame type through lk_finish and the decoder, with the limits each
 * encoder and parser enforces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "firmware/abi/link-codec.h"
#include "firmware/abi/path-region.h"

static uint64_t rng_state;

static uint64_t rnd(void)
{
    /* xorshift64*: deterministic, so a failure repeats */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

static struct lk_bytes bytes_of(const char *s)
{
    struct lk_bytes b = {(const uint8_t *)s, strlen(s)};
    return b;
}

static void assert_bytes(struct lk_bytes b, const char *s)
{
    assert_int_equal(b.n, strlen(s));
    assert_memory_equal(b.p, s, b.n);
}

/* Finishes w and decodes it back; the frame points into d. */
static void roundtrip(struct lk_writer *w, uint16_t seq, struct lk_decoder *d, struct lk_frame *f)
{
    static uint8_t wire[LK_MAX_WIRE];
    size_t n = lk_finish(w, seq, wire, sizeof wire);
    assert_true(n > 2);
    assert_int_equal(wire[0], 0);
    assert_int_equal(wire[n - 1], 0);
    assert_null(memchr(wire + 1, 0, n - 2));
    lk_dec_init(d);
    size_t used;
    assert_int_equal(lk_dec_push(d, wire, n, &used, f), 1);
    assert_int_equal(used, n);
    assert_int_equal(f->seq, seq);
    assert_int_equal(d->st.frames_ok, 1);
    assert_int_equal(d->st.frames_bad, 0);
    assert_int_equal(d->st.bytes_ok, n - 2);
}

static void test_crc_matches_zlib(void **state)
{
    (void)state;
    rng_state = 1;
    uint8_t buf[3000];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)rnd();
    for (size_t n = 0; n < sizeof buf; n += 1 + n / 3)
        assert_int_equal(lk_crc32(0, buf, n), crc32(0, buf, (uInt)n));
    /* chained like zlib */
    assert_int_equal(lk_crc32(lk_crc32(0, buf, 100), buf + 100, 900), crc32(0, buf, 1000));
    assert_int_equal(lk_crc32(0, "123456789", 9), 0xcbf43926u);   /* the check value */
}

static void test_cobs_output(void **state)
{
    (void)state;
    rng_state = 2;
    static uint8_t src[1100], dst[LK_COBS_MAX(1100)];
    /* zero densities from none to all; lengths around the 254 block */
    const size_t lens[] = {0, 1, 2, 253, 254, 255, 508, 509, 1099};
    for (int dens = 0; dens <= 4; dens++)
        for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
            size_t n = lens[k];
            for (size_t i = 0; i < n; i++) {
                uint8_t b = (uint8_t)rnd();
                src[i] = dens == 0 ? (uint8_t)(b | 1) : dens == 4 ? 0 : (b % (dens * 8) == 0 ? 0 : b);
            }
            size_t m = lk_cobs_encode(src, n, dst, sizeof dst);
            assert_true(m >= n + 1);
            assert_true(m <= LK_COBS_MAX(n));
            assert_null(memchr(dst, 0, m));
            /* a buffer one byte short of the bound is refused */
            assert_int_equal(lk_cobs_encode(src, n, dst, LK_COBS_MAX(n) - 1), 0);
        }
}

static void test_varints(void **state)
{
    (void)state;
    const uint64_t u[] = {0, 1, 127, 128, 300, 16383, 16384, 0xffffffffu,
                          0x7fffffffffffffffULL, 0x8000000000000000ULL, UINT64_MAX};
    const int64_t s[] = {0, -1, 1, -64, 63, -65, 64, INT64_MIN, INT64_MAX, -1000000007};
    uint8_t buf[LK_MAX_RAW];
    struct lk_writer w;
    lk_begin(&w, buf, sizeof buf, LK_T_CONSOLE);
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
        lk_put_uvarint(&w, u[i]);
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        lk_put_svarint(&w, s[i]);
    /* sizes: 1 byte up to 127, 10 for the top bit */
    assert_int_equal(lk_payload_len(&w), 1 + 1 + 1 + 2 + 2 + 2 + 3 + 5 + 9 + 10 + 10 +
                                             1 + 1 + 1 + 1 + 1 + 2 + 2 + 10 + 10 + 5);
    struct lk_frame f = {LK_T_CONSOLE, 0, buf + LK_HDR_SIZE, lk_payload_len(&w)};
    struct lk_reader r;
    lk_reader_init(&r, &f);
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
        uint64_t v;
        assert_int_equal(lk_get_uvarint(&r, &v), LK_OK);
        assert_true(v == u[i]);
    }
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        int64_t v;
        assert_int_equal(lk_get_svarint(&r, &v), LK_OK);
        assert_true(v == s[i]);
    }
    uint64_t v;
    assert_int_equal(lk_get_uvarint(&r, &v), LK_E_MALFORMED);      /* at the end */

    /* more than 64 bits, and a varint cut short */
    const uint8_t over[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
    const uint8_t cut[] = {0x80, 0x80};
    struct lk_frame g = {LK_T_CONSOLE, 0, over, sizeof over};
    lk_reader_init(&r, &g);
    assert_int_equal(lk_get_uvarint(&r, &v), LK_E_MALFORMED);
    g.payload = eleven;
    g.len = sizeof eleven;
    lk_reader_init(&r, &g);
    assert_int_equal(lk_get_uvarint(&r, &v), LK_E_MALFORMED);
    g.payload = cut;
    g.len = sizeof cut;
    lk_reader_init(&r, &g);
    assert_int_equal(lk_get_uvarint(&r, &v), LK_E_MALFORMED);
}

static void test_pc_deltas(void **state)
{
    (void)state;
    /* forward, backward, unaligned, wrap-around, the extremes */
    const uint64_t pcs[] = {0x01000000, 0x01000004, 0x01000040, 0x01000010, 0x01000011,
                            0x01000012, 0x0100000f, 0, UINT64_MAX, 4, 0xfffffc0000310000ULL,
                            0x8000000000000000ULL, 0x7ffffffffffffffcULL, 3};
    uint8_t buf[LK_MAX_RAW];
    struct lk_writer w;
    lk_begin(&w, buf, sizeof buf, LK_T_CONSOLE);
    for (size_t i = 0; i < sizeof pcs / sizeof pcs[0]; i++)
        lk_put_pc(&w, pcs[i]);
    struct lk_frame f = {LK_T_CONSOLE, 0, buf + LK_HDR_SIZE, lk_payload_len(&w)};
    struct lk_reader r;
    lk_reader_init(&r, &f);
    for (size_t i = 0; i < sizeof pcs / sizeof pcs[0]; i++) {
        uint64_t pc;
        assert_int_equal(lk_get_pc(&r, &pc), LK_OK);
        assert_true(pc == pcs[i]);
    }
    assert_true(r.p == r.end);

    /* an aligned step of one instruction costs one byte */
    lk_begin(&w, buf, sizeof buf, LK_T_CONSOLE);
    w.prev_pc = 0x01000000;
    lk_put_pc(&w, 0x01000004);
    assert_int_equal(lk_payload_len(&w), 1);

    /* the low-bits byte must be 1..3 */
    const uint8_t bad_low[] = {0x03, 0x00};
    struct lk_frame g = {LK_T_CONSOLE, 0, bad_low, sizeof bad_low};
    lk_reader_init(&r, &g);
    uint64_t pc;
    assert_int_equal(lk_get_pc(&r, &pc), LK_E_MALFORMED);
}

static void test_hello_and_small_frames(void **state)
{
    (void)state;
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_decoder d;
    struct lk_frame f;

    struct lk_hello h = {99, 4, LK_CAP_COUNTERS | LK_CAP_PROFILEME, 1000000000,
                         bytes_of("clipper"), bytes_of("alphaprof-monitor 1.0"), 9600, 0x1234567890abcdefull, 0, 0, 0, 0, 0, 0};
    assert_int_equal(lk_enc_hello(&w, raw, sizeof raw, &h), LK_OK);
    roundtrip(&w, 0, &d, &f);
    struct lk_hello h2;
    assert_int_equal(lk_parse_hello(&f, &h2), LK_OK);
    assert_int_equal(h2.proto, LK_PROTO_VERSION);  /* always the codec's own */
    assert_int_equal(h2.ncores, 4);
    assert_int_equal(h2.caps, LK_CAP_COUNTERS | LK_CAP_PROFILEME);
    assert_true(h2.timebase_hz == 1000000000);
    assert_bytes(h2.board, "clipper");
    assert_bytes(h2.firmware, "alphaprof-monitor 1.0");
    assert_true(h2.baud == 9600);
    assert_true(h2.period_min == 0 && h2.timer_max == 0);   /* not the timer's: none */
    assert_int_equal(d.st.sessions, 1);

    /* the timer's period asked and kept (issue 12) */
    h.period_min = h.period_max = 1000;
    h.timer_min = h.timer_max = 2800;
    assert_int_equal(lk_enc_hello(&w, raw, sizeof raw, &h), LK_OK);
    roundtrip(&w, 0, &d, &f);
    assert_int_equal(lk_parse_hello(&f, &h2), LK_OK);
    assert_true(h2.period_min == 1000 && h2.period_max == 1000 && h2.timer_min == 2800 && h2.timer_max == 2800);
    assert_true(h2.nonce == 0x1234567890abcdefull);

    /* an older sender's HELLO, without the appended baud field */
    uint8_t old_raw[LK_MAX_RAW];
    struct lk_writer ow;
    lk_begin(&ow, old_raw, sizeof old_raw, LK_T_HELLO);
    lk_put_uvarint(&ow, LK_PROTO_VERSION);
    lk_put_uvarint(&ow, 1);
    lk_put_uvarint(&ow, 0);
    lk_put_uvarint(&ow, 1000);
    lk_put_str(&ow, bytes_of("b"));
    lk_put_str(&ow, bytes_of("f"));
    roundtrip(&ow, 0, &d, &f);
    h2.baud = 77;
    h2.timer_min = 5;
    assert_int_equal(lk_parse_hello(&f, &h2), LK_OK);
    assert_true(h2.baud == 0 && h2.ncores == 1 && h2.timer_min == 0);

    struct lk_epoch e = {7, 123456789}, e2;
    assert_int_equal(lk_enc_epoch(&w, raw, sizeof raw, &e), LK_OK);
    roundtrip(&w, 9, &d, &f);
    assert_int_equal(lk_parse_epoch(&f, &e2), LK_OK);
    assert_true(e2.epoch == 7 && e2.time == 123456789);

    struct lk_end end = {-3, LK_END_FATAL, 42}, end2;
    assert_int_equal(lk_enc_end(&w, raw, sizeof raw, &end), LK_OK);
    roundtrip(&w, 65535, &d, &f);
    assert_int_equal(lk_parse_end(&f, &end2), LK_OK);
    assert_true(end2.status == -3 && end2.how == LK_END_FATAL && end2.time == 42);

    struct lk_ack a = {513, LK_T_CONFIG, LK_ACK_UNSUPPORTED, bytes_of("no ProfileMe on this board")}, a2;
    assert_int_equal(lk_enc_ack(&w, raw, sizeof raw, &a), LK_OK);
    roundtrip(&w, 3, &d, &f);
    assert_int_equal(lk_parse_ack(&f, &a2), LK_OK);
    assert_int_equal(a2.seq, 513);
    assert_int_equal(a2.type, LK_T_CONFIG);
    assert_int_equal(a2.status, LK_ACK_UNSUPPORTED);
    assert_bytes(a2.message, "no ProfileMe on this board");

    const uint8_t types[] = {LK_T_START, LK_T_STOP, LK_T_FLUSH_NOW};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(lk_enc_control(&w, raw, sizeof raw, types[i]), LK_OK);
        roundtrip(&w, (uint16_t)i, &d, &f);
        assert_int_equal(f.type, types[i]);
        assert_int_equal(f.len, 0);
    }
    assert_int_equal(lk_enc_control(&w, raw, sizeof raw, LK_T_SAMPLES), LK_E_RANGE);

    uint64_t ep;
    assert_int_equal(lk_enc_new_epoch(&w, raw, sizeof raw, 1ULL << 40), LK_OK);
    roundtrip(&w, 4, &d, &f);
    assert_int_equal(lk_parse_new_epoch(&f, &ep), LK_OK);
    assert_true(ep == 1ULL << 40);

    /* a parser refuses a frame of another type */
    assert_int_equal(lk_parse_hello(&f, &h2), LK_E_TYPE);
    assert_int_equal(lk_parse_epoch(&f, &e2), LK_E_TYPE);

    /* names too long for the protocol */
    char longname[LK_MAX_NAME + 2];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    h.board = bytes_of(longname);
    assert_int_equal(lk_enc_hello(&w, raw, sizeof raw, &h), LK_E_RANGE);
}

static void test_config_and_flush(void **state)
{
    (void)state;
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_decoder d;
    struct lk_frame f;

    struct lk_config c = {.mode = LK_MODE_PAIRED, .flush_ms = 250, .pme_min = 60000,
                          .pme_max = 64000, .pair_window = 100, .nevents = 3};
    for (uint32_t i = 0; i < 3; i++) {
        c.events[i].event = i * 2;
        c.events[i].period_min = 60000 + i;
        c.events[i].period_max = 65536 + i;
    }
    assert_int_equal(lk_enc_config(&w, raw, sizeof raw, &c), LK_OK);
    roundtrip(&w, 1, &d, &f);
    struct lk_config c2;
    assert_int_equal(lk_parse_config(&f, &c2), LK_OK);
    assert_int_equal(c2.mode, LK_MODE_PAIRED);
    assert_int_equal(c2.flush_ms, 250);
    assert_true(c2.pme_min == 60000 && c2.pme_max == 64000);
    assert_int_equal(c2.pair_window, 100);
    assert_int_equal(c2.nevents, 3);
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(c2.events[i].event, i * 2);
        assert_true(c2.events[i].period_min == 60000 + i);
        assert_true(c2.events[i].period_max == 65536 + i);
    }
    c.nevents = LK_MAX_EVENTS + 1;
    assert_int_equal(lk_enc_config(&w, raw, sizeof raw, &c), LK_E_RANGE);

    struct lk_flush fl = {.core = 3, .flush_no = 17, .time = 999, .nstats = LK_MAX_COUNTERS,
                          .ndrops = 2};
    for (uint32_t i = 0; i < LK_MAX_COUNTERS; i++) {
        fl.stats[i].id = i + 1;
        fl.stats[i].value = (uint64_t)i << 33;
    }
    fl.drops[0] = (struct lk_counter){LK_DROP_OVERFLOW_FULL, 5};
    fl.drops[1] = (struct lk_counter){LK_DROP_LINK_FULL, 1ULL << 50};
    assert_int_equal(lk_enc_flush(&w, raw, sizeof raw, &fl), LK_OK);
    roundtrip(&w, 2, &d, &f);
    struct lk_flush fl2;
    assert_int_equal(lk_parse_flush(&f, &fl2), LK_OK);
    assert_int_equal(fl2.core, 3);
    assert_true(fl2.flush_no == 17 && fl2.time == 999);
    assert_int_equal(fl2.nstats, LK_MAX_COUNTERS);
    for (uint32_t i = 0; i < LK_MAX_COUNTERS; i++) {
        assert_int_equal(fl2.stats[i].id, i + 1);
        assert_true(fl2.stats[i].value == (uint64_t)i << 33);
    }
    assert_int_equal(fl2.ndrops, 2);
    assert_int_equal(fl2.drops[0].id, LK_DROP_OVERFLOW_FULL);
    assert_true(fl2.drops[1].value == 1ULL << 50);
    fl.ndrops = LK_MAX_COUNTERS + 1;
    assert_int_equal(lk_enc_flush(&w, raw, sizeof raw, &fl), LK_E_RANGE);

    assert_string_equal(lk_drop_name(LK_DROP_RING_OVERFLOW), "ring_overflow");
    assert_string_equal(lk_stat_name(LK_STAT_HASH_HITS), "hash_hits");
    assert_string_equal(lk_type_name(LK_T_PME_AGG), "PME_AGG");
    assert_string_equal(lk_drop_name(999), "unknown");
}

static void test_samples_fill_a_frame(void **state)
{
    (void)state;
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_decoder d;
    struct lk_frame f;
    rng_state = 3;

    static uint64_t pcs[2000], counts[2000];
    uint64_t pc = 0x01000000;
    for (int i = 0; i < 2000; i++) {
        pc += 4 * (1 + rnd() % 8);
        pcs[i] = pc;
        counts[i] = 1 + rnd() % 300;
    }
    assert_int_equal(lk_samples_begin(&w, raw, sizeof raw, 1, 5, 62000), LK_OK);
    int n = 0;
    while (n < 2000 && lk_samples_add(&w, pcs[n], counts[n]) == LK_OK)
        n++;
    assert_true(n > 300 && n < 2000);      /* about 2.5 bytes an entry */
    assert_int_equal(lk_count(&w), n);
    assert_true(lk_payload_len(&w) <= LK_MAX_PAYLOAD);
    /* the refused entry left the frame intact */
    roundtrip(&w, 11, &d, &f);
    struct lk_samples_hdr h;
    struct lk_reader r;
    assert_int_equal(lk_samples_open(&f, &h, &r), LK_OK);
    assert_int_equal(h.core, 1);
    assert_int_equal(h.event, 5);
    assert_true(h.period == 62000);
    assert_int_equal(h.count, n);
    for (int i = 0; i < n; i++) {
        uint64_t p, c;
        assert_int_equal(lk_samples_next(&r, &p, &c), 1);
        assert_true(p == pcs[i]);
        assert_true(c == counts[i]);
    }
    uint64_t p, c;
    assert_int_equal(lk_samples_next(&r, &p, &c), 0);

    /* a small raw buffer bounds the frame as well */
    uint8_t small[40];
    assert_int_equal(lk_samples_begin(&w, small, sizeof small, 0, LK_EVENT_TIMER, 0), LK_OK);
    n = 0;
    while (lk_samples_add(&w, pcs[n], counts[n]) == LK_OK)
        n++;
    assert_true(n > 3);
    roundtrip(&w, 12, &d, &f);
    assert_int_equal(lk_samples_open(&f, &h, &r), LK_OK);
    assert_int_equal(h.count, n);
    assert_int_equal(h.event, LK_EVENT_TIMER);

    /* too small for even the header: refused, finish gives nothing */
    assert_int_equal(lk_samples_begin(&w, small, 12, 0, 1, 1), LK_E_FULL);
    assert_int_equal(lk_samples_add(&w, 4, 1), LK_E_FULL);
    uint8_t wire[LK_MAX_WIRE];
    assert_int_equal(lk_finish(&w, 0, wire, sizeof wire), 0);
}

static void test_pme_aggregates(void **state)
{
    (void)state;
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_decoder d;
    struct lk_frame f;
    rng_state = 4;

    static struct lk_pme_agg in[64];
    memset(in, 0, sizeof in);
    for (int i = 0; i < 64; i++) {
        in[i].pc = 0x01000000 + 4 * (uint64_t)(i * 3);
        in[i].samples = 1 + rnd() % 1000;
        in[i].retired = in[i].samples - rnd() % (in[i].samples + 1);
        in[i].aborted = in[i].samples - in[i].retired;
        for (int b = 0; b < 12; b++)
            in[i].bits[b] = rnd() % 3 == 0 ? rnd() % 500 : 0;   /* mostly zero */
        for (int l = 0; l < 6; l++)
            in[i].lat[l] = rnd() % 100000;
    }
    assert_int_equal(lk_pme_begin(&w, raw, sizeof raw, 2, 12, 6), LK_OK);
    int n = 0;
    while (n < 64 && lk_pme_add(&w, &in[n]) == LK_OK)
        n++;
    assert_true(n >= 20);
    roundtrip(&w, 5, &d, &f);
    struct lk_pme_hdr h;
    struct lk_reader r;
    assert_int_equal(lk_pme_open(&f, &h, &r), LK_OK);
    assert_int_equal(h.core, 2);
    assert_int_equal(h.nbits, 12);
    assert_int_equal(h.nlat, 6);
    assert_int_equal(h.count, n);
    struct lk_pme_agg out;
    for (int i = 0; i < n; i++) {
        assert_int_equal(lk_pme_next(&r, &out), 1);
        assert_memory_equal(&out, &in[i], sizeof out);
    }
    assert_int_equal(lk_pme_next(&r, &out), 0);

    /* the geometry limits */
    assert_int_equal(lk_pme_begin(&w, raw, sizeof raw, 0, LK_MAX_BITS + 1, 1), LK_E_RANGE);
    assert_int_equal(lk_pme_begin(&w, raw, sizeof raw, 0, 1, LK_MAX_LAT + 1), LK_E_RANGE);

    /* an entry announcing a counter beyond nbits is malformed */
    lk_begin(&w, raw, sizeof raw, LK_T_CONSOLE);    /* payload built by hand */
    lk_put_uvarint(&w, 0);              /* core */
    lk_put_uvarint(&w, 2);              /* nbits */
    lk_put_uvarint(&w, 0);              /* nlat */
    lk_put_u16(&w, 1);                  /* one entry */
    lk_put_pc(&w, 0x1000);
    lk_put_uvarint(&w, 3);
    lk_put_uvarint(&w, 3);
    lk_put_uvarint(&w, 0);
    lk_put_uvarint(&w, 0x4);            /* mask: bit 2 of 2 */
    lk_put_uvarint(&w, 9);
    struct lk_frame g = {LK_T_PME_AGG, 0, raw + LK_HDR_SIZE, lk_payload_len(&w)};
    assert_int_equal(lk_pme_open(&g, &h, &r), LK_OK);
    assert_int_equal(lk_pme_next(&r, &out), LK_E_MALFORMED);
    raw[LK_HDR_SIZE + 1] = LK_MAX_BITS + 1;      /* nbits beyond the limit */
    assert_int_equal(lk_pme_open(&g, &h, &r), LK_E_RANGE);
}

static void test_pairs(void **state)
{
    (void)state;
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_decoder d;
    struct lk_frame f;
    rng_state = 5;

    static struct lk_pair in[40];
    memset(in, 0, sizeof in);
    for (int i = 0; i < 40; i++) {
        in[i].distance = 1 + rnd() % 200;
        in[i].gap = 1 + rnd() % 100;
        for (int k = 0; k < 2; k++) {
            struct lk_pme_record *rec = &in[i].rec[k];
            rec->pc = 0x01000000 + 4 * (rnd() % 50000);
            rec->events = rnd() & 0xfff;
            rec->addr = k ? 0 : 0x08000000 + (rnd() % 100000) * 8;
            rec->history = rnd() & 0xfff;
            for (int l = 0; l < 7; l++)
                rec->lat[l] = rnd() % 300;
        }
    }
    assert_int_equal(lk_pairs_begin(&w, raw, sizeof raw, 3, 7, 1000, 768), LK_OK);
    int n = 0;
    while (n < 40 && lk_pairs_add(&w, &in[n]) == LK_OK)
        n++;
    assert_true(n >= 10);
    roundtrip(&w, 7, &d, &f);
    struct lk_pme_hdr h;
    struct lk_reader r;
    assert_int_equal(lk_pairs_open(&f, &h, &r), LK_OK);
    assert_int_equal(h.core, 3);
    assert_int_equal(h.nlat, 7);
    assert_int_equal(h.offered, 1000);      /* the bank's pairs: each of these stands for 1000 / 768 */
    assert_int_equal(h.kept, 768);
    assert_int_equal(h.count, n);
    struct lk_pair out;
    for (int i = 0; i < n; i++) {
        assert_int_equal(lk_pairs_next(&r, &out), 1);
        assert_memory_equal(&out, &in[i], sizeof out);
    }
    assert_int_equal(lk_pairs_next(&r, &out), 0);
    assert_int_equal(lk_pairs_begin(&w, raw, sizeof raw, 0, LK_MAX_LAT + 1, 1, 1), LK_E_RANGE);
    assert_int_equal(lk_pairs_begin(&w, raw, sizeof raw, 0, 7, 5, 6), LK_E_RANGE);    /* kept > offered */
}

/* A PAIRS frame whose bank kept more pairs than it was offered, or none
 * while the frame has some, is refused (the weight offered / kept would be
 * below 1 or undefined). */
static void test_pairs_frame_with_kept_above_offered_or_zero_is_refused(void **state)
{
    (void)state;
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_pme_hdr h;
    struct lk_reader r;
    struct lk_pair p;
    memset(&p, 0, sizeof p);
    assert_int_equal(lk_pairs_begin(&w, raw, sizeof raw, 0, 3, 6, 6), LK_OK);
    assert_int_equal(lk_pairs_add(&w, &p), LK_OK);
    struct lk_frame g = {LK_T_PAIRS, 0, raw + LK_HDR_SIZE, lk_payload_len(&w)};
    assert_int_equal(lk_pairs_open(&g, &h, &r), LK_OK);
    /* payload: core 0, nlat 3, offered, kept (one byte each), patched */
    raw[LK_HDR_SIZE + 2] = 5;           /* offered 5, kept 6 */
    assert_int_equal(lk_pairs_open(&g, &h, &r), LK_E_RANGE);
    raw[LK_HDR_SIZE + 3] = 0;           /* offered 5, kept 0, one pair */
    assert_int_equal(lk_pairs_open(&g, &h, &r), LK_E_RANGE);
}

static void test_names_loadmap_console(void **state)
{
    (void)state;
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_decoder d;
    struct lk_frame f;
    struct lk_reader r;

    const char *names[] = {"CYCLES", "RETIRED", "IMISS", "DMISS", "BRANCHMP", ""};
    assert_int_equal(lk_names_begin(&w, raw, sizeof raw, LK_NAMES_EVENT, 0), LK_OK);
    for (int i = 0; i < 6; i++)
        assert_int_equal(lk_names_add(&w, bytes_of(names[i])), LK_OK);
    roundtrip(&w, 1, &d, &f);
    struct lk_names_hdr nh;
    assert_int_equal(lk_names_open(&f, &nh, &r), LK_OK);
    assert_int_equal(nh.kind, LK_NAMES_EVENT);
    assert_int_equal(nh.first, 0);
    assert_int_equal(nh.count, 6);
    struct lk_bytes b;
    for (int i = 0; i < 6; i++) {
        assert_int_equal(lk_names_next(&r, &b), 1);
        assert_bytes(b, names[i]);
    }
    assert_int_equal(lk_names_next(&r, &b), 0);

    struct lk_loadmap_entry e = {LK_LOADMAP_LOAD, 0x01000000, 0x23456, LK_BUILD_ID_SIZE, {0},
                                 bytes_of("chase")};
    for (int i = 0; i < LK_BUILD_ID_SIZE; i++)
        e.build_id[i] = (uint8_t)(i * 13);       /* zeros included */
    assert_int_equal(lk_loadmap_begin(&w, raw, sizeof raw), LK_OK);
    int n = 0;
    while (lk_loadmap_add(&w, &e) == LK_OK) {
        e.address += 0x10000;
        n++;
    }
    assert_true(n > 20);
    roundtrip(&w, 2, &d, &f);
    uint32_t count;
    assert_int_equal(lk_loadmap_open(&f, &count, &r), LK_OK);
    assert_int_equal(count, n);
    struct lk_loadmap_entry e2;
    for (int i = 0; i < n; i++) {
        assert_int_equal(lk_loadmap_next(&r, &e2), 1);
        assert_int_equal(e2.action, LK_LOADMAP_LOAD);
        assert_true(e2.address == 0x01000000 + 0x10000 * (uint64_t)i);
        assert_true(e2.size == 0x23456);
        assert_int_equal(e2.build_id_size, LK_BUILD_ID_SIZE);
        assert_memory_equal(e2.build_id, e.build_id, LK_BUILD_ID_SIZE);
        assert_bytes(e2.name, "chase");
    }

    /* a shorter build-id comes back zero-padded, with its size */
    e.build_id_size = 8;
    assert_int_equal(lk_loadmap_begin(&w, raw, sizeof raw), LK_OK);
    assert_int_equal(lk_loadmap_add(&w, &e), LK_OK);
    roundtrip(&w, 3, &d, &f);
    assert_int_equal(lk_loadmap_open(&f, &count, &r), LK_OK);
    assert_int_equal(lk_loadmap_next(&r, &e2), 1);
    assert_int_equal(e2.build_id_size, 8);
    assert_memory_equal(e2.build_id, e.build_id, 8);
    for (int i = 8; i < LK_BUILD_ID_SIZE; i++)
        assert_int_equal(e2.build_id[i], 0);
    e.build_id_size = LK_BUILD_ID_SIZE + 1;
    assert_int_equal(lk_loadmap_add(&w, &e), LK_E_RANGE);

    /* console text with zeros and long non-zero runs; split when too long */
    static uint8_t text[3000];
    for (size_t i = 0; i < sizeof text; i++)
        text[i] = i % 700 == 0 ? 0 : (uint8_t)(1 + i % 255);
    size_t done = 0;
    int frames = 0;
    while (done < sizeof text) {
        size_t used;
        assert_int_equal(lk_enc_console(&w, raw, sizeof raw, 1, 2, text + done, sizeof text - done, &used), LK_OK);
        assert_true(used > 0);
        roundtrip(&w, (uint16_t)frames, &d, &f);
        struct lk_console c;
        assert_int_equal(lk_parse_console(&f, &c), LK_OK);
        assert_int_equal(c.stream, 1);
        assert_int_equal(c.core, 2);
        assert_int_equal(c.text.n, used);
        assert_memory_equal(c.text.p, text + done, used);
        done += used;
        frames++;
    }
    assert_int_equal(frames, 3);
}

/* Link sessions (link-protocol.h 5): START's nonce, LINK_ACK, a base FLUSH,
 * and a frame kept raw then sealed with its seq reads back as lk_finish's. */
static void test_reliability_frames(void **state)
{
    (void)state;
    uint8_t raw[LK_MAX_RAW], wire[LK_MAX_WIRE], wire2[LK_MAX_WIRE];
    struct lk_writer w;
    struct lk_frame f;
    uint64_t nonce = 1;

    assert_int_equal(lk_enc_start(&w, raw, sizeof raw, 0xfeedfacecafebeefull), LK_OK);
    size_t n = lk_frame_raw(&w);
    assert_int_equal(lk_frame_of_raw(raw, n, &f), LK_OK);
    assert_int_equal(lk_parse_start(&f, &nonce), LK_OK);
    assert_true(nonce == 0xfeedfacecafebeefull);
    lk_enc_control(&w, raw, sizeof raw, LK_T_START);        /* an old host's START */
    n = lk_frame_raw(&w);
    assert_int_equal(lk_frame_of_raw(raw, n, &f), LK_OK);
    assert_int_equal(lk_parse_start(&f, &nonce), LK_OK);
    assert_true(nonce == 0);

    struct lk_link_ack a = {0x1122334455667788ull, 65530, 65535, LK_LACK_RESEND, 0x80000005u}, b;
    assert_int_equal(lk_enc_link_ack(&w, raw, sizeof raw, &a), LK_OK);
    n = lk_frame_raw(&w);
    assert_int_equal(lk_frame_of_raw(raw, n, &f), LK_OK);
    assert_int_equal(lk_parse_link_ack(&f, &b), LK_OK);
    assert_true(b.nonce == a.nonce && b.stored == a.stored && b.expected == a.expected &&
                b.flags == a.flags && b.sack == a.sack);
    assert_int_equal(lk_frame_of_raw(raw, n - 1, &f), LK_E_MALFORMED);  /* length disagrees */
    /* a LINK_ACK of protocol 2 (no sack field) holds nothing ahead */
    lk_begin(&w, raw, sizeof raw, LK_T_LINK_ACK);
    lk_put_uvarint(&w, a.nonce);
    lk_put_uvarint(&w, 7);
    lk_put_uvarint(&w, 9);
    lk_put_uvarint(&w, LK_LACK_RESEND);
    n = lk_frame_raw(&w);
    assert_int_equal(lk_frame_of_raw(raw, n, &f), LK_OK);
    b.sack = 1;
    assert_int_equal(lk_parse_link_ack(&f, &b), LK_OK);
    assert_true(b.expected == 9 && b.flags == LK_LACK_RESEND && b.sack == 0);

    struct lk_flush fl = {.core = 2, .flush_no = 5, .nstats = 1, .base = 1}, got;
    fl.stats[0] = (struct lk_counter){LK_STAT_SAMPLES_SENT, 1234};
    assert_int_equal(lk_enc_flush(&w, raw, sizeof raw, &fl), LK_OK);
    size_t len1 = lk_finish(&w, 4242, wire, sizeof wire);
    n = lk_frame_raw(&w);
    size_t len2 = lk_seal(raw, n, 4242, wire2, sizeof wire2);
    assert_true(len1 > 0 && len1 == len2 && memcmp(wire, wire2, len1) == 0);
    struct lk_decoder d;
    lk_dec_init(&d);
    size_t used;
    assert_int_equal(lk_dec_push(&d, wire2, len2, &used, &f), 1);
    assert_int_equal(f.seq, 4242);
    assert_int_equal(lk_parse_flush(&f, &got), LK_OK);
    assert_true(got.base == 1 && got.core == 2 && got.stats[0].value == 1234);
}

/* Every parser: a payload cut anywhere short is malformed, never read past. */
static void test_truncated_payloads(void **state)
{
    (void)state;
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_hello h = {0, 2, 1, 1000, bytes_of("clipper"), bytes_of("fw"), 0, 7, 0, 0, 0, 0, 0, 0};
    struct lk_flush fl = {.core = 1, .flush_no = 2, .time = 3, .nstats = 2, .ndrops = 1};
    fl.stats[0] = (struct lk_counter){1, 500};
    fl.stats[1] = (struct lk_counter){2, 499};
    fl.drops[0] = (struct lk_counter){4, 1};
    struct lk_config c = {.mode = 1, .flush_ms = 100, .nevents = 1};
    struct lk_pme_agg a = {.pc = 0x1000, .samples = 3, .retired = 2, .aborted = 1};
    a.bits[1] = 2;
    a.lat[0] = 40;
    struct lk_pair p = {.distance = 9, .gap = 3};
    p.rec[0].pc = 0x1000;
    p.rec[1].pc = 0x1010;
    struct lk_loadmap_entry e = {LK_LOADMAP_LOAD, 0x01000000, 64, 20, {1}, bytes_of("x")};

    for (int kind = 0; kind < 8; kind++) {
        switch (kind) {
        case 0: lk_enc_hello(&w, raw, sizeof raw, &h); break;
        case 1: lk_enc_flush(&w, raw, sizeof raw, &fl); break;
        case 2: lk_enc_config(&w, raw, sizeof raw, &c); break;
        case 3: lk_samples_begin(&w, raw, sizeof raw, 0, 0, 0); lk_samples_add(&w, 0x1000, 300); break;
        case 4: lk_pme_begin(&w, raw, sizeof raw, 0, 4, 2); lk_pme_add(&w, &a); break;
        case 5: lk_pairs_begin(&w, raw, sizeof raw, 0, 3, 9, 7); lk_pairs_add(&w, &p); break;
        case 6: lk_loadmap_begin(&w, raw, sizeof raw); lk_loadmap_add(&w, &e); break;
        case 7: lk_names_begin(&w, raw, sizeof raw, 1, 0); lk_names_add(&w, bytes_of("taken")); break;
        }
        size_t full = lk_payload_len(&w);
        for (size_t len = 0; len <= full; len++) {
            /* a copy of exactly len bytes, so ASan sees any overread */
            uint8_t *copy = test_malloc(len ? len : 1);
            memcpy(copy, raw + LK_HDR_SIZE, len);
            struct lk_frame f = {w.type, 0, copy, len};
            int rc = 0;
            struct lk_reader r;
            union {
                struct lk_hello h;
                struct lk_flush fl;
                struct lk_config c;
                struct lk_samples_hdr sh;
                struct lk_pme_hdr ph;
                struct lk_names_hdr nh;
                struct lk_pme_agg a;
                struct lk_pair p;
                struct lk_loadmap_entry e;
            } u;
            uint64_t x, y;
            uint32_t cnt;
            struct lk_bytes b;
            switch (kind) {
            case 0: rc = lk_parse_hello(&f, &u.h); break;
            case 1: rc = lk_parse_flush(&f, &u.fl); break;
            case 2: rc = lk_parse_config(&f, &u.c); break;
            case 3:
                rc = lk_samples_open(&f, &u.sh, &r);
                if (rc == LK_OK)
                    rc = lk_samples_next(&r, &x, &y) == 1 ? LK_OK : LK_E_MALFORMED;
                break;
            case 4:
                rc = lk_pme_open(&f, &u.ph, &r);
                if (rc == LK_OK)
                    rc = lk_pme_next(&r, &u.a) == 1 ? LK_OK : LK_E_MALFORMED;
                break;
            case 5:
                rc = lk_pairs_open(&f, &u.ph, &r);
                if (rc == LK_OK)
                    rc = lk_pairs_next(&r, &u.p) == 1 ? LK_OK : LK_E_MALFORMED;
                break;
            case 6:
                rc = lk_loadmap_open(&f, &cnt, &r);
                if (rc == LK_OK)
                    rc = lk_loadmap_next(&r, &u.e) == 1 ? LK_OK : LK_E_MALFORMED;
                break;
            case 7:
                rc = lk_names_open(&f, &u.nh, &r);
                if (rc == LK_OK)
                    rc = lk_names_next(&r, &b) == 1 ? LK_OK : LK_E_MALFORMED;
                break;
            }
            /* appended fields are optional (older senders lack them):
             * HELLO's baud, nonce, prev_nonce, prev_pos, period_min, period_max,
             * timer_min, timer_max, FLUSH's base (a byte each here) */
            size_t optional = kind == 0 ? 8 : kind == 1 ? 1 : 0;
            if (len < full - optional && rc == LK_OK)
                fail_msg("frame kind %d cut to %zu of %zu bytes parsed as whole", kind, len, full);
            if (len == full && rc != LK_OK)
                fail_msg("frame kind %d whole did not parse: %d", kind, rc);
            test_free(copy);
        }
    }
}

/* Newer senders may append fields: older parsers ignore the tail. */
static void test_trailing_fields_ignored(void **state)
{
    (void)state;
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_decoder d;
    struct lk_frame f;
    struct lk_epoch e = {5, 6}, e2;
    lk_enc_epoch(&w, raw, sizeof raw, &e);
    lk_put_uvarint(&w, 123456);         /* a future field */
    lk_put_str(&w, bytes_of("future"));
    roundtrip(&w, 0, &d, &f);
    assert_int_equal(lk_parse_epoch(&f, &e2), LK_OK);
    assert_true(e2.epoch == 5 && e2.time == 6);
}

static void test_values_and_value_stats_round_trip(void **state)
{
    (void)state;
    static uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_decoder d;
    struct lk_frame f;
    struct lk_hotlist a = {.pc = 0x1000118, .kind = 4, .tau = 64, .offered = 123456, .nvalues = LK_MAX_HOT_VALUES};
    for (unsigned i = 0; i < a.nvalues; i++) {
        a.value[i] = 0xfffffffffffffff0ull + i;
        a.count[i] = i + 1;
    }
    struct lk_hotlist b = {.pc = 0x1000100, .kind = 0, .tau = 1, .offered = 5, .nvalues = 1, .value = {7}, .count = {5}};
    assert_int_equal(lk_values_begin(&w, raw, sizeof raw, 3), LK_OK);
    assert_int_equal(lk_values_add(&w, &a), LK_OK);
    assert_int_equal(lk_values_add(&w, &b), LK_OK);       /* a lower PC: a negative delta */
    struct lk_hotlist bad = b;
    bad.tau = 0;
    assert_int_equal(lk_values_add(&w, &bad), LK_E_RANGE);
    bad = b;
    bad.nvalues = LK_MAX_HOT_VALUES + 1;
    assert_int_equal(lk_values_add(&w, &bad), LK_E_RANGE);
    roundtrip(&w, 9, &d, &f);
    assert_int_equal(f.type, LK_T_VALUES);
    struct lk_reader r;
    uint32_t core;
    struct lk_hotlist x;
    assert_int_equal(lk_values_open(&f, &core, &r), LK_OK);
    assert_int_equal(core, 3);
    assert_int_equal(lk_values_next(&r, &x), 1);
    assert_int_equal(x.pc, a.pc);
    assert_int_equal(x.tau, 64);
    assert_int_equal(x.offered, 123456);
    assert_int_equal(x.nvalues, LK_MAX_HOT_VALUES);
    assert_memory_equal(x.value, a.value, sizeof a.value);
    assert_memory_equal(x.count, a.count, sizeof a.count);
    assert_int_equal(lk_values_next(&r, &x), 1);
    assert_int_equal(x.pc, b.pc);
    assert_int_equal(x.value[0], 7);
    assert_int_equal(lk_values_next(&r, &x), 0);

    struct lk_value_stats s = {.core = 1, .runs = 10, .insns = 240, .cycles = 50000, .offered = 300, .sent = 290,
                               .no_slot = 4, .link_full = 6, .not_user = 2, .nstops = 2,
                               .stops = {{0, 9}, {11, 1}}};
    assert_int_equal(lk_enc_value_stats(&w, raw, sizeof raw, &s), LK_OK);
    roundtrip(&w, 10, &d, &f);
    struct lk_value_stats t;
    memset(&t, 0, sizeof t);
    assert_int_equal(lk_parse_value_stats(&f, &t), LK_OK);
    assert_memory_equal(&t, &s, sizeof s);
    s.nstops = LK_MAX_VALUE_STOPS + 1;
    assert_int_equal(lk_enc_value_stats(&w, raw, sizeof raw, &s), LK_E_RANGE);
    assert_string_equal(lk_type_name(LK_T_VALUES), "VALUES");
    assert_string_equal(lk_type_name(LK_T_VALUE_STATS), "VALUE_STATS");
}

/* CCT: call records round-trip under their head, with consecutive ids
 * from `first`; a full frame refuses the record that does not fit and
 * keeps the ones before it. */
static void test_cct_records_round_trip_and_fill_frames(void **state)
{
    (void)state;
    static uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_decoder d;
    struct lk_frame f;
    struct lk_cct_head h = {.core = 2, .total = 1000, .skipped_calls = 3, .overflow_calls = 7, .first = 40,
                            .metrics = 1};
    struct lk_cct_record a = {.parent = 0, .callee = 0x1000400, .site = 0x1000104, .calls = 1,
                              .cycles = 123456789012ull, .retired = 99};
    struct lk_cct_record b = {.parent = 40, .callee = 0x1000800, .site = 0x1000460, .calls = 1650025,
                              .cycles = 0, .retired = ~0ull};
    assert_int_equal(lk_cct_begin(&w, raw, sizeof raw, &h), LK_OK);
    assert_int_equal(lk_cct_add(&w, &a), LK_OK);
    assert_int_equal(lk_cct_add(&w, &b), LK_OK);
    roundtrip(&w, 11, &d, &f);
    assert_int_equal(f.type, LK_T_CCT);
    struct lk_reader r;
    struct lk_cct_head g;
    struct lk_cct_record x;
    assert_int_equal(lk_cct_open(&f, &g, &r), LK_OK);
    assert_true(g.core == h.core && g.total == h.total && g.skipped_calls == h.skipped_calls &&
                g.overflow_calls == h.overflow_calls && g.first == h.first && g.metrics == 1);
    assert_int_equal(lk_cct_next(&r, &x), 1);
    assert_memory_equal(&x, &a, sizeof a);
    assert_int_equal(lk_cct_next(&r, &x), 1);
    assert_memory_equal(&x, &b, sizeof b);
    assert_int_equal(lk_cct_next(&r, &x), 0);
    /* a frame fills: the record that did not fit is not in it */
    assert_int_equal(lk_cct_begin(&w, raw, 200, &h), LK_OK);
    unsigned n = 0;
    while (lk_cct_add(&w, &b) == LK_OK)
        n++;
    assert_true(n > 0 && n < 20);
    roundtrip(&w, 12, &d, &f);
    assert_int_equal(lk_cct_open(&f, &g, &r), LK_OK);
    unsigned got = 0;
    while (lk_cct_next(&r, &x) == 1)
        got++;
    assert_int_equal(got, n);
    assert_string_equal(lk_type_name(LK_T_CCT), "CCT");
}

/* CCT of a counts-only tree (instrument --cct without --metrics): the
 * records carry no cycles or retired, so they read back as zero and take
 * fewer bytes; a head that says neither 0 nor 1 is refused. */
static void test_counts_only_cct_records_carry_no_metrics(void **state)
{
    (void)state;
    static uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_decoder d;
    struct lk_frame f;
    struct lk_cct_head h = {.core = 1, .total = 3, .first = 2, .metrics = 0};
    struct lk_cct_record a = {.parent = 0, .callee = 0x1000400, .site = 0x1000104, .calls = 77,
                              .cycles = 5, .retired = 6};
    assert_int_equal(lk_cct_begin(&w, raw, sizeof raw, &h), LK_OK);
    assert_int_equal(lk_cct_add(&w, &a), LK_OK);
    size_t counts_len = lk_payload_len(&w);
    roundtrip(&w, 13, &d, &f);
    struct lk_reader r;
    struct lk_cct_head g;
    struct lk_cct_record x;
    assert_int_equal(lk_cct_open(&f, &g, &r), LK_OK);
    assert_true(g.metrics == 0 && g.first == 2 && g.core == 1);
    assert_int_equal(lk_cct_next(&r, &x), 1);
    assert_true(x.parent == a.parent && x.callee == a.callee && x.site == a.site && x.calls == a.calls);
    assert_true(x.cycles == 0 && x.retired == 0);
    assert_int_equal(lk_cct_next(&r, &x), 0);
    h.metrics = 1;
    assert_int_equal(lk_cct_begin(&w, raw, sizeof raw, &h), LK_OK);
    assert_int_equal(lk_cct_add(&w, &a), LK_OK);
    assert_true(lk_payload_len(&w) == counts_len + 2);
    h.metrics = 2;
    assert_int_equal(lk_cct_begin(&w, raw, sizeof raw, &h), LK_OK);
    roundtrip(&w, 14, &d, &f);
    assert_int_equal(lk_cct_open(&f, &g, &r), LK_E_RANGE);
}

/* PATHS: a core's path counters round-trip with their head; a full
 * frame keeps the counters before the one that did not fit. */
static void test_path_counters_round_trip_and_fill_frames(void **state)
{
    (void)state;
    static uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_decoder d;
    struct lk_frame f;
    struct lk_paths_head h = {.core = 1, .lost_paths = 5, .unmatched_exits = 2, .bad_paths = 0, .first = 300};
    struct lk_path_count a = {.index = 300, .count = 1}, b = {.index = 31000, .count = ~0ull};
    assert_int_equal(lk_paths_begin(&w, raw, sizeof raw, &h), LK_OK);
    assert_int_equal(lk_paths_add(&w, &a), LK_OK);
    assert_int_equal(lk_paths_add(&w, &b), LK_OK);
    roundtrip(&w, 13, &d, &f);
    assert_int_equal(f.type, LK_T_PATHS);
    struct lk_reader r;
    struct lk_paths_head g;
    struct lk_path_count x;
    assert_int_equal(lk_paths_open(&f, &g, &r), LK_OK);
    assert_true(g.core == h.core && g.lost_paths == h.lost_paths && g.unmatched_exits == h.unmatched_exits &&
                g.bad_paths == h.bad_paths && g.first == h.first);
    assert_int_equal(lk_paths_next(&r, &x), 1);
    assert_memory_equal(&x, &a, sizeof a);
    assert_int_equal(lk_paths_next(&r, &x), 1);
    assert_memory_equal(&x, &b, sizeof b);
    assert_int_equal(lk_paths_next(&r, &x), 0);
    assert_int_equal(lk_paths_begin(&w, raw, 100, &h), LK_OK);
    unsigned n = 0;
    while (lk_paths_add(&w, &b) == LK_OK)
        n++;
    assert_true(n > 0 && n < 20);
    roundtrip(&w, 14, &d, &f);
    assert_int_equal(lk_paths_open(&f, &g, &r), LK_OK);
    unsigned got = 0;
    while (lk_paths_next(&r, &x) == 1)
        got++;
    assert_int_equal(got, n);
    assert_string_equal(lk_type_name(LK_T_PATHS), "PATHS");
}

/* CCT_PATHS (--both): each count names its record and path; a full frame
 * takes what fits and the rest goes in the next. */
static void test_context_path_counts_round_trip_and_fill_frames(void **state)
{
    (void)state;
    static uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_decoder d;
    struct lk_frame f;
    struct lk_ctx_path a = {.record = 2, .path = 0, .count = 1}, b = {.record = 70000, .path = 255, .count = ~0ull};
    assert_int_equal(lk_cct_paths_begin(&w, raw, sizeof raw, 3), LK_OK);
    assert_int_equal(lk_cct_paths_add(&w, &a), LK_OK);
    assert_int_equal(lk_cct_paths_add(&w, &b), LK_OK);
    roundtrip(&w, 15, &d, &f);
    assert_int_equal(f.type, LK_T_CCT_PATHS);
    struct lk_reader r;
    uint32_t core = 0;
    struct lk_ctx_path x;
    bool metered = true;
    assert_int_equal(lk_cct_paths_open(&f, &core, &metered, &r), LK_OK);
    assert_int_equal(core, 3);
    assert_false(metered);
    assert_int_equal(lk_cct_paths_next(&r, &x), 1);
    assert_memory_equal(&x, &a, sizeof a);
    assert_int_equal(lk_cct_paths_next(&r, &x), 1);
    assert_memory_equal(&x, &b, sizeof b);
    assert_int_equal(lk_cct_paths_next(&r, &x), 0);
    assert_int_equal(lk_cct_paths_begin(&w, raw, 100, 0), LK_OK);
    unsigned n = 0;
    while (lk_cct_paths_add(&w, &b) == LK_OK)
        n++;
    assert_true(n > 0 && n < 20);
    roundtrip(&w, 16, &d, &f);
    assert_int_equal(lk_cct_paths_open(&f, &core, &metered, &r), LK_OK);
    unsigned got = 0;
    while (lk_cct_paths_next(&r, &x) == 1)
        got++;
    assert_int_equal(got, n);
    assert_string_equal(lk_type_name(LK_T_CCT_PATHS), "CCT_PATHS");
}

/* CCT_PATHS_METERED (--both --metrics): each entry carries its count,
 * cycles and event in its context, read back as sent; a frame holds fewer
 * than CCT_PATHS' (five varints an entry), the rest goes in the next; a
 * frame cut inside an entry's metrics is refused, not read short. */
static void test_context_path_metrics_round_trip_and_fill_frames(void **state)
{
    (void)state;
    static uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_decoder d;
    struct lk_frame f;
    struct lk_ctx_path a = {.record = 2, .path = 0, .count = 1, .cycles = 7, .event = 0},
                       b = {.record = 70000, .path = 255, .count = ~0ull, .cycles = ~0ull, .event = 1ull << 40};
    assert_int_equal(lk_cct_paths_metered_begin(&w, raw, sizeof raw, 3), LK_OK);
    assert_int_equal(lk_cct_paths_add(&w, &a), LK_OK);
    assert_int_equal(lk_cct_paths_add(&w, &b), LK_OK);
    roundtrip(&w, 17, &d, &f);
    assert_int_equal(f.type, LK_T_CCT_PATHS_METERED);
    struct lk_reader r;
    uint32_t core = 0;
    bool metered = false;
    struct lk_ctx_path x;
    assert_int_equal(lk_cct_paths_open(&f, &core, &metered, &r), LK_OK);
    assert_int_equal(core, 3);
    assert_true(metered);
    assert_int_equal(lk_cct_paths_next(&r, &x), 1);
    assert_memory_equal(&x, &a, sizeof a);
    assert_int_equal(lk_cct_paths_next(&r, &x), 1);
    assert_memory_equal(&x, &b, sizeof b);
    assert_int_equal(lk_cct_paths_next(&r, &x), 0);
    /* the same entry in a counts-only frame takes fewer bytes */
    unsigned n_counts = 0, n_metered = 0;
    assert_int_equal(lk_cct_paths_begin(&w, raw, 100, 0), LK_OK);
    while (lk_cct_paths_add(&w, &b) == LK_OK)
        n_counts++;
    assert_int_equal(lk_cct_paths_metered_begin(&w, raw, 100, 0), LK_OK);
    while (lk_cct_paths_add(&w, &b) == LK_OK)
        n_metered++;
    assert_true(n_metered > 0 && n_metered < n_counts);
    roundtrip(&w, 18, &d, &f);
    assert_int_equal(lk_cct_paths_open(&f, &core, &metered, &r), LK_OK);
    unsigned got = 0;
    while (lk_cct_paths_next(&r, &x) == 1) {
        assert_memory_equal(&x, &b, sizeof b);
        got++;
    }
    assert_int_equal(got, n_metered);
    /* cut inside the last entry's event: an error, not a short entry */
    assert_int_equal(lk_cct_paths_metered_begin(&w, raw, sizeof raw, 0), LK_OK);
    assert_int_equal(lk_cct_paths_add(&w, &b), LK_OK);
    roundtrip(&w, 19, &d, &f);
    struct lk_frame cut = f;
    cut.len--;
    assert_int_equal(lk_cct_paths_open(&cut, &core, &metered, &r), LK_OK);
    assert_true(lk_cct_paths_next(&r, &x) < 0);
    /* a frame of another type is refused */
    struct lk_frame other = f;
    other.type = LK_T_CCT;
    assert_int_equal(lk_cct_paths_open(&other, &core, &metered, &r), LK_E_TYPE);
    assert_string_equal(lk_type_name(LK_T_CCT_PATHS_METERED), "CCT_PATHS_METERED");
}

/* PATH_HASH (path-region.h note 14): hashed path counts round-trip with
 * their procedure's ordinal and a path number of any 64 bits; a full frame
 * refuses the next entry (the rest go in the next frame); a frame cut
 * inside an entry is refused, not read short; another type is refused. */
static void test_hashed_path_counts_round_trip_with_64_bit_path_numbers(void **state)
{
    (void)state;
    static uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_decoder d;
    struct lk_frame f;
    struct lk_hash_path a = {.proc = 0, .path = 0, .count = 1},
                        b = {.proc = 254, .path = ~0ull, .count = ~0ull},
                        c = {.proc = 3, .path = (1ull << 43) + 12345, .count = 10};
    assert_int_equal(lk_path_hash_begin(&w, raw, sizeof raw, 5), LK_OK);
    assert_int_equal(lk_path_hash_add(&w, &a), LK_OK);
    assert_int_equal(lk_path_hash_add(&w, &b), LK_OK);
    assert_int_equal(lk_path_hash_add(&w, &c), LK_OK);
    roundtrip(&w, 21, &d, &f);
    assert_int_equal(f.type, LK_T_PATH_HASH);
    struct lk_reader r;
    uint32_t core = 0;
    struct lk_hash_path x;
    assert_int_equal(lk_path_hash_open(&f, &core, &r), LK_OK);
    assert_int_equal(core, 5);
    assert_int_equal(lk_path_hash_next(&r, &x), 1);
    assert_memory_equal(&x, &a, sizeof a);
    assert_int_equal(lk_path_hash_next(&r, &x), 1);
    assert_memory_equal(&x, &b, sizeof b);
    assert_int_equal(lk_path_hash_next(&r, &x), 1);
    assert_memory_equal(&x, &c, sizeof c);
    assert_int_equal(lk_path_hash_next(&r, &x), 0);
    /* a small frame fills, and holds what it took */
    unsigned n = 0;
    assert_int_equal(lk_path_hash_begin(&w, raw, 100, 0), LK_OK);
    while (lk_path_hash_add(&w, &b) == LK_OK)
        n++;
    assert_true(n > 0 && n < 10);
    roundtrip(&w, 22, &d, &f);
    assert_int_equal(lk_path_hash_open(&f, &core, &r), LK_OK);
    unsigned got = 0;
    while (lk_path_hash_next(&r, &x) == 1) {
        assert_memory_equal(&x, &b, sizeof b);
        got++;
    }
    assert_int_equal(got, n);
    /* cut inside the last entry's count */
    assert_int_equal(lk_path_hash_begin(&w, raw, sizeof raw, 0), LK_OK);
    assert_int_equal(lk_path_hash_add(&w, &b), LK_OK);
    roundtrip(&w, 23, &d, &f);
    struct lk_frame cut = f;
    cut.len--;
    assert_int_equal(lk_path_hash_open(&cut, &core, &r), LK_OK);
    assert_true(lk_path_hash_next(&r, &x) < 0);
    struct lk_frame other = f;
    other.type = LK_T_PATHS;
    assert_int_equal(lk_path_hash_open(&other, &core, &r), LK_E_TYPE);
    assert_string_equal(lk_type_name(LK_T_PATH_HASH), "PATH_HASH");
}

/* --both's hashed keys (path-region.h note 15): a key splits back into the
 * ordinal, the context (a record's id + 1, 0 none) and the path at every
 * field's edges, and is never 0; such a path counted in a context goes as
 * a CCT_PATHS entry whose number needs 44 bits, and round-trips. */
static void test_a_both_hash_key_splits_back_and_its_context_count_round_trips_as_cct_paths(void **state)
{
    (void)state;
    const uint64_t paths[] = {0, 1, 12345678, PATH_BOTH_HASH_MAX_NPATHS - 1};
    const uint64_t ctxs[] = {0, 1, 1123, (1u << PATH_HASH_CTX_BITS) - 1};
    const uint32_t ids[] = {0, 7, PATH_HASH_MAX_PROCS - 1};
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; j < 4; j++)
            for (size_t k = 0; k < 3; k++) {
                uint64_t key = PATH_HASH_CTX_KEY(ctxs[j], ids[k], paths[i]), ctx, path;
                uint32_t id;
                assert_true(key != 0);
                path_hash_ctx_split(key, &id, &ctx, &path);
                assert_int_equal(id, ids[k]);
                assert_int_equal(ctx, ctxs[j]);
                assert_true(path == paths[i]);
            }
    static uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_decoder d;
    struct lk_frame f;
    struct lk_ctx_path a = {.record = 4094, .path = PATH_BOTH_HASH_MAX_NPATHS - 1, .count = 10}, x;
    assert_int_equal(lk_cct_paths_begin(&w, raw, sizeof raw, 1), LK_OK);
    assert_int_equal(lk_cct_paths_add(&w, &a), LK_OK);
    roundtrip(&w, 24, &d, &f);
    struct lk_reader r;
    uint32_t core = 0;
    bool metered = true;
    assert_int_equal(lk_cct_paths_open(&f, &core, &metered, &r), LK_OK);
    assert_true(core == 1 && !metered);
    assert_int_equal(lk_cct_paths_next(&r, &x), 1);
    assert_memory_equal(&x, &a, sizeof a);
    assert_int_equal(lk_cct_paths_next(&r, &x), 0);
}

/* PATHS with metrics (--paths --metrics): each counter carries its cycles
 * and event, the head its unmetered count; a head that says neither 0 nor
 * 1 is refused. */
static void test_metered_path_counters_round_trip_with_their_metrics(void **state)
{
    (void)state;
    static uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_decoder d;
    struct lk_frame f;
    struct lk_paths_head h = {.core = 0, .first = 7, .metered = 1, .unmetered = 9};
    struct lk_path_count a = {.index = 7, .count = 3, .cycles = 1234567, .event = 0},
                         b = {.index = 9000, .count = 1, .cycles = ~0ull, .event = 42};
    assert_int_equal(lk_paths_begin(&w, raw, sizeof raw, &h), LK_OK);
    assert_int_equal(lk_paths_add(&w, &a), LK_OK);
    assert_int_equal(lk_paths_add(&w, &b), LK_OK);
    roundtrip(&w, 15, &d, &f);
    struct lk_reader r;
    struct lk_paths_head g;
    struct lk_path_count x;
    assert_int_equal(lk_paths_open(&f, &g, &r), LK_OK);
    assert_true(g.metered == 1 && g.unmetered == 9 && g.first == 7);
    assert_int_equal(lk_paths_next(&r, &x), 1);
    assert_memory_equal(&x, &a, sizeof a);
    assert_int_equal(lk_paths_next(&r, &x), 1);
    assert_memory_equal(&x, &b, sizeof b);
    assert_int_equal(lk_paths_next(&r, &x), 0);
    h.metered = 2;
    assert_int_equal(lk_paths_begin(&w, raw, sizeof raw, &h), LK_OK);
    roundtrip(&w, 16, &d, &f);
    assert_int_equal(lk_paths_open(&f, &g, &r), LK_E_RANGE);
}

/* PART (link-protocol.h 5.7): a piece round-trips with its place in the
 * frame; a piece outside its frame, or a frame no frame could be, is
 * refused at both ends. */
static void test_part_pieces(void **state)
{
    (void)state;
    uint8_t raw[LK_MAX_RAW], frame[300];
    struct lk_writer w;
    struct lk_decoder d;
    struct lk_frame f;
    struct lk_part p;
    for (unsigned i = 0; i < sizeof frame; i++)
        frame[i] = (uint8_t)(i * 7);
    assert_int_equal(lk_enc_part(&w, raw, sizeof raw, frame, 300, 256, 44), LK_OK);
    roundtrip(&w, 77, &d, &f);
    assert_int_equal(f.type, LK_T_PART);
    assert_int_equal(f.seq, 77);
    assert_int_equal(lk_parse_part(&f, &p), LK_OK);
    assert_true(p.total == 300 && p.offset == 256 && p.bytes.n == 44);
    assert_memory_equal(p.bytes.p, frame + 256, 44);
    assert_int_equal(lk_enc_part(&w, raw, sizeof raw, frame, 300, 256, 45), LK_E_RANGE);
    assert_int_equal(lk_enc_part(&w, raw, sizeof raw, frame, 300, 300, 1), LK_E_RANGE);
    assert_int_equal(lk_enc_part(&w, raw, sizeof raw, frame, 3, 0, 3), LK_E_RANGE);
    /* by hand: a piece that runs past its total */
    lk_begin(&w, raw, sizeof raw, LK_T_PART);
    lk_put_uvarint(&w, 10);
    lk_put_uvarint(&w, 8);
    lk_put_bytes(&w, frame, 3);
    roundtrip(&w, 1, &d, &f);
    assert_int_equal(lk_parse_part(&f, &p), LK_E_RANGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc_matches_zlib),
        cmocka_unit_test(test_cobs_output),
        cmocka_unit_test(test_varints),
        cmocka_unit_test(test_pc_deltas),
        cmocka_unit_test(test_hello_and_small_frames),
        cmocka_unit_test(test_values_and_value_stats_round_trip),
        cmocka_unit_test(test_cct_records_round_trip_and_fill_frames),
        cmocka_unit_test(test_counts_only_cct_records_carry_no_metrics),
        cmocka_unit_test(test_path_counters_round_trip_and_fill_frames),
        cmocka_unit_test(test_context_path_counts_round_trip_and_fill_frames),
        cmocka_unit_test(test_context_path_metrics_round_trip_and_fill_frames),
        cmocka_unit_test(test_hashed_path_counts_round_trip_with_64_bit_path_numbers),
        cmocka_unit_test(test_a_both_hash_key_splits_back_and_its_context_count_round_trips_as_cct_paths),
        cmocka_unit_test(test_metered_path_counters_round_trip_with_their_metrics),
        cmocka_unit_test(test_config_and_flush),
        cmocka_unit_test(test_samples_fill_a_frame),
        cmocka_unit_test(test_pme_aggregates),
        cmocka_unit_test(test_pairs_frame_with_kept_above_offered_or_zero_is_refused),
        cmocka_unit_test(test_pairs),
        cmocka_unit_test(test_names_loadmap_console),
        cmocka_unit_test(test_truncated_payloads),
        cmocka_unit_test(test_reliability_frames),
        cmocka_unit_test(test_part_pieces),
        cmocka_unit_test(test_trailing_fields_ignored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
