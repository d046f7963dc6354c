/* The streaming decoder on whole streams: frames split anywhere, corrupted,
 * cut short, interleaved with garbage or text, lost or repeated.  It must
 * hand back exactly the intact frames, count every other byte as bad, and
 * count lost frames from the sequence numbers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "firmware/abi/link-codec.h"

static uint64_t rng_state;

static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

/* A stream of frames, with where each one lies. */
#define MAX_FRAMES 400
struct stream {
    uint8_t *bytes;
    size_t len, cap;
    int nframes;
    size_t start[MAX_FRAMES], size[MAX_FRAMES];     /* wire bytes incl. delimiters */
    uint64_t first_pc[MAX_FRAMES];
};

static void append(struct stream *s, const void *p, size_t n)
{
    if (s->len + n > s->cap) {
        s->cap = (s->len + n) * 2;
        s->bytes = realloc(s->bytes, s->cap);
        assert_non_null(s->bytes);
    }
    memcpy(s->bytes + s->len, p, n);
    s->len += n;
}

/* SAMPLES frames with random content; frame k's first PC identifies it. */
static void make_frames(struct stream *s, int n, uint16_t first_seq)
{
    uint8_t raw[LK_MAX_RAW], wire[LK_MAX_WIRE];
    for (int k = 0; k < n; k++) {
        struct lk_writer w;
        uint64_t pc = 0x01000000 + 0x100000 * (uint64_t)k;
        lk_samples_begin(&w, raw, sizeof raw, (uint32_t)(k % 4), (uint32_t)(k % 3), 64000);
        int entries = 1 + (int)(rnd() % 200);
        for (int i = 0; i < entries; i++)
            if (lk_samples_add(&w, pc + 4 * (uint64_t)i * (1 + rnd() % 3), 1 + rnd() % 1000) != LK_OK)
                break;
        size_t len = lk_finish(&w, (uint16_t)(first_seq + k), wire, sizeof wire);
        assert_true(len > 0);
        s->start[s->nframes] = s->len;
        s->size[s->nframes] = len;
        s->first_pc[s->nframes] = pc;
        s->nframes++;
        append(s, wire, len);
    }
}

struct result {
    int nframes;
    uint64_t first_pc[MAX_FRAMES];
    uint16_t seq[MAX_FRAMES];
    struct lk_dec_stats st;
};

static uint64_t frame_first_pc(const struct lk_frame *f)
{
    struct lk_samples_hdr h;
    struct lk_reader r;
    uint64_t pc = 0, c;
    assert_int_equal(lk_samples_open(f, &h, &r), LK_OK);
    assert_int_equal(lk_samples_next(&r, &pc, &c), 1);
    /* the rest parses too */
    int rc;
    while ((rc = lk_samples_next(&r, &c, &c)) == 1)
        ;
    assert_int_equal(rc, 0);
    return pc;
}

/* Decodes bytes pushed in pieces of 1..max_piece (0: all at once). */
static void decode(const uint8_t *p, size_t n, size_t max_piece, struct result *res)
{
    struct lk_decoder *d = malloc(sizeof *d);
    assert_non_null(d);
    lk_dec_init(d);
    res->nframes = 0;
    size_t off = 0;
    while (off < n) {
        size_t piece = max_piece ? 1 + rnd() % max_piece : n - off;
        if (piece > n - off)
            piece = n - off;
        size_t done = 0;
        while (done < piece) {
            size_t used;
            struct lk_frame f;
            int got = lk_dec_push(d, p + off + done, piece - done, &used, &f);
            assert_true(used <= piece - done);
            done += used;
            if (got) {
                assert_true(res->nframes < MAX_FRAMES);
                res->seq[res->nframes] = f.seq;
                res->first_pc[res->nframes++] = frame_first_pc(&f);
            } else {
                assert_int_equal(done, piece);
            }
        }
        off += piece;
    }
    lk_dec_end(d);
    res->st = d->st;
    free(d);
}

static size_t zeros(const uint8_t *p, size_t n)
{
    size_t z = 0;
    for (size_t i = 0; i < n; i++)
        z += p[i] == 0;
    return z;
}

/* Every byte is a delimiter, in a good frame, or counted bad. */
static void assert_accounted(const struct result *res, const uint8_t *p, size_t n)
{
    assert_int_equal(res->st.bytes_ok + res->st.bytes_bad + zeros(p, n), n);
    assert_int_equal(res->st.frames_ok, res->nframes);
    uint64_t reasons = res->st.bad_cobs + res->st.too_long + res->st.too_short + res->st.bad_crc +
                       res->st.bad_version + res->st.bad_length + res->st.truncated;
    assert_int_equal(reasons, res->st.frames_bad);
}

static void test_clean_stream_any_split(void **state)
{
    (void)state;
    rng_state = 10;
    struct stream s = {0};
    make_frames(&s, 200, 0);
    const size_t pieces[] = {0, 1, 2, 7, 100, 5000};
    for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++) {
        struct result res;
        decode(s.bytes, s.len, pieces[i], &res);
        assert_int_equal(res.nframes, 200);
        for (int k = 0; k < 200; k++) {
            assert_true(res.first_pc[k] == s.first_pc[k]);
            assert_int_equal(res.seq[k], k);
        }
        assert_int_equal(res.st.frames_bad, 0);
        assert_int_equal(res.st.bytes_bad, 0);
        assert_int_equal(res.st.seq_lost, 0);
        assert_accounted(&res, s.bytes, s.len);
    }
    free(s.bytes);
}

/* One changed byte spoils exactly its own frame, wherever it falls. */
static void test_single_byte_corruption(void **state)
{
    (void)state;
    rng_state = 11;
    struct stream s = {0};
    make_frames(&s, 30, 100);
    uint8_t *copy = malloc(s.len);
    assert_non_null(copy);
    for (int trial = 0; trial < 300; trial++) {
        memcpy(copy, s.bytes, s.len);
        int k = 1 + (int)(rnd() % 28);          /* not the first or last */
        size_t at = s.start[k] + 1 + rnd() % (s.size[k] - 2);   /* inside, not a delimiter */
        uint8_t v;
        do
            v = trial % 3 == 0 ? 0 : (uint8_t)rnd();   /* a third become delimiters */
        while (v == copy[at]);
        copy[at] = v;
        struct result res;
        decode(copy, s.len, 64, &res);
        assert_int_equal(res.nframes, 29);
        for (int i = 0, j = 0; i < 30; i++) {
            if (i == k)
                continue;
            assert_true(res.first_pc[j++] == s.first_pc[i]);
        }
        assert_int_equal(res.st.seq_lost, 1);
        assert_true(res.st.frames_bad >= 1 && res.st.frames_bad <= 2);
        assert_int_equal(res.st.bytes_bad, s.size[k] - 2 - (v == 0));
        assert_accounted(&res, copy, s.len);
    }
    free(copy);
    free(s.bytes);
}

/* A frame cut short (the sender restarted, the host joined late): only it
 * is lost, and its bytes are counted. */
static void test_cut_frames(void **state)
{
    (void)state;
    rng_state = 12;
    struct stream s = {0};
    make_frames(&s, 20, 0);
    struct stream cut = {0};
    size_t lost_bytes = 0;
    int lost = 0;
    for (int k = 0; k < 20; k++) {
        size_t n = s.size[k];
        if (k % 4 == 2) {
            n = 1 + rnd() % (s.size[k] - 2);    /* keep the opening delimiter + some */
            lost_bytes += n - 1;
            lost++;
        }
        append(&cut, s.bytes + s.start[k], n);
    }
    struct result res;
    decode(cut.bytes, cut.len, 13, &res);
    assert_int_equal(res.nframes, 20 - lost);
    assert_int_equal(res.st.seq_lost, lost);
    assert_int_equal(res.st.bytes_bad, lost_bytes);
    assert_accounted(&res, cut.bytes, cut.len);

    /* joined mid-stream: the first partial frame is bad, the rest good */
    size_t from = s.start[3] + s.size[3] / 2;
    decode(s.bytes + from, s.len - from, 0, &res);
    assert_int_equal(res.nframes, 16);
    assert_true(res.first_pc[0] == s.first_pc[4]);
    assert_int_equal(res.st.frames_bad, 1);
    assert_accounted(&res, s.bytes + from, s.len - from);

    /* the stream ends inside a frame: counted as truncated at the end */
    size_t upto = s.start[19] + s.size[19] - 1;       /* the closing delimiter missing */
    decode(s.bytes, upto, 0, &res);
    assert_int_equal(res.nframes, 19);
    assert_int_equal(res.st.truncated, 1);
    assert_int_equal(res.st.bytes_bad, s.size[19] - 2);
    assert_accounted(&res, s.bytes, upto);
    free(s.bytes);
    free(cut.bytes);
}

/* Garbage and console text between frames: all counted, frames intact. */
static void test_garbage_between_frames(void **state)
{
    (void)state;
    rng_state = 13;
    struct stream s = {0};
    make_frames(&s, 50, 0);
    struct stream mixed = {0};
    const char *text = "monitor: core 1 online\r\nhello, world\r\n";
    for (int k = 0; k < 50; k++) {
        append(&mixed, s.bytes + s.start[k], s.size[k]);
        if (k % 5 == 0) {
            append(&mixed, text, strlen(text));
        } else if (k % 5 == 1) {
            size_t n = 1 + rnd() % 3000;    /* sometimes longer than any frame */
            for (size_t i = 0; i < n; i++) {
                uint8_t b = (uint8_t)rnd();
                append(&mixed, &b, 1);
            }
        }
    }
    struct result res;
    decode(mixed.bytes, mixed.len, 300, &res);
    assert_int_equal(res.nframes, 50);
    for (int k = 0; k < 50; k++)
        assert_true(res.first_pc[k] == s.first_pc[k]);
    assert_int_equal(res.st.seq_lost, 0);
    assert_int_equal(res.st.bytes_bad, mixed.len - s.len - zeros(mixed.bytes, mixed.len) + zeros(s.bytes, s.len));
    assert_true(res.st.too_long >= 1);
    assert_accounted(&res, mixed.bytes, mixed.len);
    free(s.bytes);
    free(mixed.bytes);
}

/* Pure noise: no frame, no crash, every byte counted. */
static void test_random_streams(void **state)
{
    (void)state;
    rng_state = 14;
    size_t n = 1 << 20;
    uint8_t *noise = malloc(n);
    assert_non_null(noise);
    for (int density = 0; density < 4; density++) {
        for (size_t i = 0; i < n; i++) {
            uint8_t b = (uint8_t)rnd();
            /* no zeros, rare zeros, COBS-looking runs, many zeros */
            noise[i] = density == 0 ? (uint8_t)(b | 1) : density == 1 ? (b == 0 ? 1 : b)
                     : density == 2 ? (uint8_t)(rnd() % 8) : (uint8_t)(b & 0x81);
        }
        struct result res;
        decode(noise, n, 4096, &res);
        assert_int_equal(res.nframes, 0);
        assert_accounted(&res, noise, n);
    }
    free(noise);
}

static void test_sequence_gaps_and_restarts(void **state)
{
    (void)state;
    rng_state = 15;
    struct stream s = {0};
    make_frames(&s, 40, 65530);             /* wraps through 0 */
    struct stream some = {0};
    int dropped = 0;
    for (int k = 0; k < 40; k++) {
        if (k % 7 == 3) {
            dropped++;
            continue;                       /* whole frames vanish */
        }
        append(&some, s.bytes + s.start[k], s.size[k]);
    }
    struct result res;
    decode(some.bytes, some.len, 0, &res);
    assert_int_equal(res.nframes, 40 - dropped);
    assert_int_equal(res.st.seq_lost, dropped);
    assert_int_equal(res.st.frames_bad, 0);

    /* a repeated stretch is a restart, not billions of lost frames */
    struct stream again = {0};
    append(&again, s.bytes, s.start[10]);
    append(&again, s.bytes + s.start[5], s.len - s.start[5]);
    decode(again.bytes, again.len, 0, &res);
    assert_int_equal(res.nframes, 45);
    assert_int_equal(res.st.seq_lost, 0);
    assert_int_equal(res.st.seq_restarts, 1);

    /* a HELLO starts a new session at seq 0 without counting a loss */
    uint8_t raw[LK_MAX_RAW], wire[LK_MAX_WIRE];
    struct lk_writer w;
    struct lk_hello h = {0};
    lk_enc_hello(&w, raw, sizeof raw, &h);
    size_t hl = lk_finish(&w, 0, wire, sizeof wire);
    struct stream sess = {0};
    append(&sess, s.bytes, s.start[20]);
    append(&sess, wire, hl);
    struct stream fresh = {0};
    make_frames(&fresh, 5, 1);
    append(&sess, fresh.bytes, fresh.len);
    struct lk_decoder d;
    lk_dec_init(&d);
    size_t off = 0, used;
    struct lk_frame f;
    int got = 0;
    while (off < sess.len) {
        got += lk_dec_push(&d, sess.bytes + off, sess.len - off, &used, &f);
        off += used;
    }
    assert_int_equal(got, 26);
    assert_int_equal(d.st.seq_lost, 0);
    assert_int_equal(d.st.seq_restarts, 0);
    assert_int_equal(d.st.sessions, 1);
    free(s.bytes);
    free(some.bytes);
    free(again.bytes);
    free(sess.bytes);
    free(fresh.bytes);
}

/* Chunks with a good CRC but a wrong version or length, and tiny chunks. */
static void test_bad_headers(void **state)
{
    (void)state;
    uint8_t raw[LK_MAX_RAW], wire[LK_MAX_WIRE];
    struct lk_decoder d;
    struct lk_frame f;
    size_t used;

    for (int which = 0; which < 2; which++) {
        /* build a raw frame by hand, spoil a field, re-CRC, stuff */
        struct lk_writer w;
        struct lk_epoch e = {1, 2};
        lk_enc_epoch(&w, raw, sizeof raw, &e);
        size_t n = lk_finish(&w, 0, wire, sizeof wire);
        assert_true(n > 0);
        size_t rawlen = w.len + LK_CRC_SIZE;
        if (which == 0)
            raw[1] = LK_PROTO_VERSION + 1;
        else
            raw[4] = (uint8_t)(raw[4] + 1);
        uint32_t crc = lk_crc32(0, raw, w.len);
        for (int i = 0; i < 4; i++)
            raw[w.len + (size_t)i] = (uint8_t)(crc >> (8 * i));
        wire[0] = 0;
        n = lk_cobs_encode(raw, rawlen, wire + 1, sizeof wire - 2);
        wire[n + 1] = 0;
        lk_dec_init(&d);
        assert_int_equal(lk_dec_push(&d, wire, n + 2, &used, &f), 0);
        assert_int_equal(which == 0 ? d.st.bad_version : d.st.bad_length, 1);
        assert_int_equal(d.st.frames_bad, 1);
        assert_int_equal(d.st.bytes_bad, n);
    }

    /* shorter than a header and CRC; a block cut by a delimiter */
    const uint8_t tiny[] = {0, 0x02, 0x41, 0x01, 0, 0x05, 0x41, 0x42, 0};
    lk_dec_init(&d);
    assert_int_equal(lk_dec_push(&d, tiny, sizeof tiny, &used, &f), 0);
    assert_int_equal(d.st.too_short, 1);
    assert_int_equal(d.st.bad_cobs, 1);
    assert_int_equal(d.st.bytes_bad, 6);

    /* idle delimiters alone are nothing */
    const uint8_t idle[64] = {0};
    lk_dec_init(&d);
    assert_int_equal(lk_dec_push(&d, idle, sizeof idle, &used, &f), 0);
    lk_dec_end(&d);
    assert_int_equal(d.st.frames_bad + d.st.frames_ok + d.st.bytes_bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_stream_any_split),
        cmocka_unit_test(test_single_byte_corruption),
        cmocka_unit_test(test_cut_frames),
        cmocka_unit_test(test_garbage_between_frames),
        cmocka_unit_test(test_random_streams),
        cmocka_unit_test(test_sequence_gaps_and_restarts),
        cmocka_unit_test(test_bad_headers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
