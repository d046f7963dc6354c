/* The ingest loop fed with streams made by the link encoder, as the
 * firmware would send them: every sample lands in the right (epoch, image,
 * event, core, offset) or is counted as dropped, over a file, in pieces,
 * corrupted, and over a unix socket. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/ingest.h"

static uint64_t rng_state;

static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

/* ------------------------------------------------------------ fake target */

#define NCORES 2
#define IMG_A_BASE 0x01000000ULL
#define IMG_A_SIZE 0x10000ULL
#define IMG_B_BASE 0x01020000ULL
#define IMG_B_SIZE 0x8000ULL

struct target {
    uint8_t *bytes;
    size_t len, cap;
    uint16_t seq;
    uint64_t samples_sent[NCORES], pme_sent[NCORES], pairs_sent[NCORES];
    uint64_t taken[NCORES], overflow_drops[NCORES];
    /* where each frame lies, to spoil one later */
    size_t frame_at[512], frame_len[512];
    uint64_t frame_samples[512];
    int nframes;
    /* what the database must hold */
    uint64_t expect_a, expect_b, expect_unknown;     /* samples per image */
    uint64_t expect_epoch[3];
    uint64_t expect_pme, expect_pairs;
};

static void emit(struct target *t, struct lk_writer *w, uint64_t samples)
{
    uint8_t wire[LK_MAX_WIRE];
    size_t n = lk_finish(w, t->seq++, wire, sizeof wire);
    assert_true(n > 0);
    if (t->len + n > t->cap) {
        t->cap = (t->len + n) * 2;
        t->bytes = realloc(t->bytes, t->cap);
        assert_non_null(t->bytes);
    }
    t->frame_at[t->nframes] = t->len;
    t->frame_len[t->nframes] = n;
    t->frame_samples[t->nframes++] = samples;
    memcpy(t->bytes + t->len, wire, n);
    t->len += n;
}

static void hello(struct target *t)
{
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_hello h = {0, NCORES, LK_CAP_COUNTERS | LK_CAP_PROFILEME, 1000000000,
                         {(const uint8_t *)"clipper", 7}, {(const uint8_t *)"test target", 11}, 0, 0, 0, 0, 0, 0, 0, 0};
    static uint64_t sessions;
    h.nonce = ++sessions;       /* each HELLO a new link session */
    t->seq = 0;
    lk_enc_hello(&w, raw, sizeof raw, &h);
    emit(t, &w, 0);
    const char *names[] = {"CYCLES", "RETIRED", "DMISS"};
    lk_names_begin(&w, raw, sizeof raw, LK_NAMES_EVENT, 0);
    for (int i = 0; i < 3; i++)
        lk_names_add(&w, (struct lk_bytes){(const uint8_t *)names[i], strlen(names[i])});
    emit(t, &w, 0);
    struct lk_loadmap_entry a = {LK_LOADMAP_LOAD, IMG_A_BASE, IMG_A_SIZE, 20, {0}, {(const uint8_t *)"copy", 4}};
    struct lk_loadmap_entry b = {LK_LOADMAP_LOAD, IMG_B_BASE, IMG_B_SIZE, 8, {0}, {(const uint8_t *)"chase", 5}};
    for (int i = 0; i < 20; i++) {
        a.build_id[i] = (uint8_t)(0xa0 + i);
        b.build_id[i] = (uint8_t)(0xb0 + i);
    }
    lk_loadmap_begin(&w, raw, sizeof raw);
    lk_loadmap_add(&w, &a);
    lk_loadmap_add(&w, &b);
    emit(t, &w, 0);
}

/* SAMPLES frames with PCs in copy, in chase, and in neither. */
static void samples(struct target *t, int epoch, int frames)
{
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    for (int k = 0; k < frames; k++) {
        uint32_t core = (uint32_t)(rnd() % NCORES), event = (uint32_t)(rnd() % 3);
        lk_samples_begin(&w, raw, sizeof raw, core, event, 62000);
        uint64_t sum = 0;
        for (;;) {
            uint64_t pc, n = 1 + rnd() % 50;
            int where = (int)(rnd() % 10);
            if (where < 6)
                pc = IMG_A_BASE + 4 * (rnd() % (IMG_A_SIZE / 4));
            else if (where < 9)
                pc = IMG_B_BASE + 4 * (rnd() % (IMG_B_SIZE / 4));
            else
                pc = IMG_A_BASE + IMG_A_SIZE + 4 * (rnd() % 0x1000);   /* the gap */
            if (lk_samples_add(&w, pc, n) != LK_OK)
                break;
            sum += n;
            if (where < 6)
                t->expect_a += n;
            else if (where < 9)
                t->expect_b += n;
            else
                t->expect_unknown += n;
        }
        t->samples_sent[core] += sum;
        t->taken[core] += sum + 3;
        t->overflow_drops[core] += 3;       /* and three it lost */
        t->expect_epoch[epoch] += sum;
        emit(t, &w, sum);
    }
}

static void profileme(struct target *t)
{
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_pme_agg a;
    memset(&a, 0, sizeof a);
    lk_pme_begin(&w, raw, sizeof raw, 1, 8, 6);
    for (int i = 0; i < 10; i++) {
        a.pc = IMG_B_BASE + 0x100 + 4 * (uint64_t)i;
        a.samples = 5;
        a.retired = 4;
        a.aborted = 1;
        a.bits[3] = 2;
        a.lat[0] = 50;
        lk_pme_add(&w, &a);
        t->pme_sent[1] += 5;
        t->expect_pme += 5;
    }
    emit(t, &w, 0);
    struct lk_pair p;
    memset(&p, 0, sizeof p);
    lk_pairs_begin(&w, raw, sizeof raw, 0, 6, 4, 4);
    for (int i = 0; i < 4; i++) {
        p.distance = 10 + (uint64_t)i;
        p.rec[0].pc = IMG_A_BASE + 0x40;
        p.rec[1].pc = IMG_A_BASE + 0x60;
        lk_pairs_add(&w, &p);
        t->pairs_sent[0]++;
        t->expect_pairs++;
    }
    emit(t, &w, 0);
}

static void flush(struct target *t)
{
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    for (uint32_t c = 0; c < NCORES; c++) {
        struct lk_flush f = {.core = c, .flush_no = 1, .time = 0, .nstats = 6, .ndrops = 1};
        f.stats[0] = (struct lk_counter){LK_STAT_SAMPLES_TAKEN, t->taken[c]};
        f.stats[1] = (struct lk_counter){LK_STAT_SAMPLES_SENT, t->samples_sent[c]};
        f.stats[2] = (struct lk_counter){LK_STAT_PME_SENT, t->pme_sent[c]};
        f.stats[3] = (struct lk_counter){LK_STAT_PAIRS_SENT, t->pairs_sent[c]};
        f.stats[4] = (struct lk_counter){LK_STAT_HASH_HITS, 900};
        f.stats[5] = (struct lk_counter){LK_STAT_HASH_MISSES, 100};
        f.drops[0] = (struct lk_counter){LK_DROP_OVERFLOW_FULL, t->overflow_drops[c]};
        lk_enc_flush(&w, raw, sizeof raw, &f);
        emit(t, &w, 0);
    }
}

static void epoch_marker(struct target *t, uint64_t n)
{
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_epoch e = {n, 0};
    lk_enc_epoch(&w, raw, sizeof raw, &e);
    emit(t, &w, 0);
}

static void end(struct target *t, int64_t status)
{
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_end e = {status, LK_END_EXIT, 0};
    lk_enc_end(&w, raw, sizeof raw, &e);
    emit(t, &w, 0);
}

/* A whole run: two epochs, ProfileMe, flushes, exit status 3. */
static void make_run(struct target *t)
{
    memset(t, 0, sizeof *t);
    rng_state = 99;
    hello(t);
    samples(t, 1, 30);
    profileme(t);
    flush(t);
    epoch_marker(t, 2);             /* as if the host had asked for epoch 2 */
    samples(t, 2, 20);
    flush(t);
    end(t, 3);
}

/* ---------------------------------------------------------------- fixture */

struct fixture {
    char dir[64], db[128], stream[128], sock[128];
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    strcpy(f->dir, "/tmp/alphaprof-ingest-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->db, sizeof f->db, "%s/p.db", f->dir);
    snprintf(f->stream, sizeof f->stream, "%s/link.bin", f->dir);
    snprintf(f->sock, sizeof f->sock, "%s/link.sock", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    DIR *d = opendir(f->dir);
    struct dirent *e;
    char p[400];
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s", f->dir, e->d_name);
        unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(f->dir);
    free(f);
    return 0;
}

static int64_t q(struct pdb *db, const char *sql)
{
    int64_t v = -1;
    struct ap_err err;
    if (pdb_query_int(db, sql, &v, &err) != 0)
        fail_msg("%s: %s", sql, err.msg);
    return v;
}

static struct pdb *open_db(const char *path)
{
    struct pdb *db;
    struct ap_err err;
    if (pdb_open(path, PDB_CREATE, &db, &err) != 0)
        fail_msg("%s", err.msg);
    return db;
}

static void check_clean_run(struct pdb *db, const struct target *t)
{
    assert_int_equal(q(db, "SELECT coalesce(sum(count), 0) FROM samples s JOIN images i ON s.image = i.id"
                           " WHERE i.name = 'copy'"), t->expect_a);
    assert_int_equal(q(db, "SELECT coalesce(sum(count), 0) FROM samples s JOIN images i ON s.image = i.id"
                           " WHERE i.name = 'chase'"), t->expect_b);
    assert_int_equal(q(db, "SELECT coalesce(sum(count), 0) FROM unknown_samples"), t->expect_unknown);
    assert_int_equal(q(db, "SELECT sum(count) FROM samples WHERE epoch = 1"), t->expect_epoch[1]);
    assert_int_equal(q(db, "SELECT sum(count) FROM samples WHERE epoch = 2"), t->expect_epoch[2]);
    /* offsets are image-relative; unknown ones are the PC */
    assert_int_equal(q(db, "SELECT count(*) FROM samples WHERE image > 0 AND (offset < 0 OR offset >= 65536)"), 0);
    assert_int_equal(q(db, "SELECT count(*) FROM samples WHERE image = 0 AND offset < 16777216 + 65536"), 0);
    assert_int_equal(q(db, "SELECT count(*) FROM samples WHERE offset % 4 != 0"), 0);
    assert_int_equal(q(db, "SELECT period FROM periods LIMIT 1"), 62000);
    assert_int_equal(q(db, "SELECT sum(samples) FROM pme"), t->expect_pme);
    assert_int_equal(q(db, "SELECT sum(count) FROM pme_bits WHERE bit = 3"), 20);
    assert_int_equal(q(db, "SELECT count(*) FROM pairs"), t->expect_pairs);
    assert_int_equal(q(db, "SELECT offset FROM pair_records WHERE slot = 1 LIMIT 1"), 0x60);
    /* the target's cumulative counters became per-epoch differences */
    uint64_t drops = t->overflow_drops[0] + t->overflow_drops[1];
    assert_int_equal(q(db, "SELECT sum(count) FROM drops WHERE reason = 'overflow_full'"), drops);
    assert_int_equal(q(db, "SELECT sum(value) FROM stats WHERE name = 'samples_taken'"),
                     t->taken[0] + t->taken[1]);
    assert_int_equal(q(db, "SELECT sum(value) FROM stats WHERE name = 'hash_hits'"), 1800);
    /* taken = stored + dropped, the accounting the issue asks for */
    assert_int_equal(q(db, "SELECT (SELECT sum(count) FROM samples) + (SELECT sum(count) FROM drops)"),
                     t->taken[0] + t->taken[1]);
    assert_int_equal(q(db, "SELECT count(*) FROM epochs"), 2);
    assert_int_equal(q(db, "SELECT exit_status FROM sessions"), 3);
    assert_int_equal(q(db, "SELECT count(*) FROM loadmaps"), 2);
    assert_int_equal(q(db, "SELECT count(*) FROM names WHERE kind = 'event'"), 3);
    assert_int_equal(q(db, "SELECT length(build_id) FROM images WHERE name = 'chase'"), 8);
}

static void test_stream_from_file(void **state)
{
    struct fixture *f = *state;
    struct target t;
    make_run(&t);
    FILE *fp = fopen(f->stream, "wb");
    assert_non_null(fp);
    fwrite(t.bytes, 1, t.len, fp);
    fclose(fp);

    struct pdb *db = open_db(f->db);
    struct ingest *in;
    struct ap_err err;
    struct ingest_opts o = {0};
    assert_int_equal(ingest_open(db, &o, &in, &err), 0);
    int fd = ingest_open_source(f->stream, &err);
    assert_true(fd >= 0);
    if (ingest_fd(in, fd, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    close(fd);
    const struct ingest_totals *tot = ingest_totals(in);
    assert_int_equal(tot->bytes, t.len);
    assert_int_equal(tot->frames, t.nframes);
    assert_int_equal(tot->link.frames_bad, 0);
    assert_int_equal(tot->malformed, 0);
    assert_int_equal(tot->sessions, 1);
    assert_int_equal(tot->ended, 1);
    assert_int_equal(tot->exit_status, 3);
    assert_int_equal(tot->unknown, t.expect_unknown);
    check_clean_run(db, &t);
    assert_int_equal(q(db, "SELECT count(*) FROM drops WHERE reason LIKE 'link%'"), 0);
    ingest_close(in);
    pdb_close(db);
    free(t.bytes);

    struct ap_err e2;
    assert_int_equal(ingest_open_source("/no/such/stream", &e2), -1);
    assert_non_null(strstr(e2.msg, "/no/such/stream"));
}

/* Fed in random pieces, committing every few milliseconds: the same. */
static void test_stream_in_pieces(void **state)
{
    struct fixture *f = *state;
    struct target t;
    make_run(&t);
    struct pdb *db = open_db(f->db);
    struct ingest *in;
    struct ap_err err;
    struct ingest_opts o = {.commit_ms = 1};
    assert_int_equal(ingest_open(db, &o, &in, &err), 0);
    size_t off = 0;
    while (off < t.len) {
        size_t n = 1 + rnd() % 700;
        if (n > t.len - off)
            n = t.len - off;
        if (ingest_feed(in, t.bytes + off, n, &err) != 0)
            fail_msg("%s", err.msg);
        off += n;
    }
    assert_int_equal(ingest_finish(in, &err), 0);
    assert_true(ingest_totals(in)->commits > 1);
    check_clean_run(db, &t);
    ingest_close(in);
    pdb_close(db);
    free(t.bytes);
}

/* A spoiled frame: its samples are counted as lost on the link, so stored
 * plus dropped still equals what the target took. */
static void test_corrupted_frame_is_accounted(void **state)
{
    struct fixture *f = *state;
    struct target t;
    make_run(&t);
    int k = 5;                      /* a SAMPLES frame of epoch 1 */
    assert_true(t.frame_samples[k] > 0);
    uint8_t *b = &t.bytes[t.frame_at[k] + t.frame_len[k] / 2];
    *b ^= *b == 0x5a ? 0x33 : 0x5a;    /* changed, and not into a delimiter */

    struct pdb *db = open_db(f->db);
    struct ingest *in;
    struct ap_err err;
    struct ingest_opts o = {0};
    assert_int_equal(ingest_open(db, &o, &in, &err), 0);
    assert_int_equal(ingest_feed(in, t.bytes, t.len, &err), 0);
    assert_int_equal(ingest_finish(in, &err), 0);
    assert_int_equal(q(db, "SELECT count FROM drops WHERE reason = 'link_bad_frames'"), 1);
    assert_int_equal(q(db, "SELECT count FROM drops WHERE reason = 'link_lost_frames'"), 1);
    assert_int_equal(q(db, "SELECT sum(count) FROM drops WHERE reason = 'link_lost_samples'"),
                     t.frame_samples[k]);
    assert_int_equal(q(db, "SELECT sum(count) FROM samples"),
                     t.samples_sent[0] + t.samples_sent[1] - t.frame_samples[k]);
    /* every sample taken is stored or dropped: frame-level drops are not samples */
    assert_int_equal(q(db, "SELECT (SELECT sum(count) FROM samples) + (SELECT sum(count) FROM drops"
                           " WHERE reason NOT IN ('link_bad_frames', 'link_lost_frames'))"),
                     t.taken[0] + t.taken[1]);
    ingest_close(in);
    pdb_close(db);
    free(t.bytes);
}

/* `alphaprof db new-epoch` while ingesting: later merges go to the new one,
 * and the board's EPOCH marker for it then starts no other. */
static void test_epoch_started_by_the_host(void **state)
{
    struct fixture *f = *state;
    struct target t;
    make_run(&t);
    struct pdb *db = open_db(f->db);
    struct ingest *in;
    struct ap_err err;
    struct ingest_opts o = {0};
    assert_int_equal(ingest_open(db, &o, &in, &err), 0);
    size_t half = t.frame_at[10];
    assert_int_equal(ingest_feed(in, t.bytes, half, &err), 0);
    assert_int_equal(ingest_commit(in, &err), 0);
    int64_t before = q(db, "SELECT sum(count) FROM samples");
    struct pdb *other = open_db(f->db);
    int64_t e;
    assert_int_equal(pdb_new_epoch(other, "from the command line", &e, &err), 0);
    assert_int_equal(e, 2);
    pdb_close(other);
    assert_int_equal(ingest_commit(in, &err), 0);         /* notices the new epoch */
    assert_int_equal(ingest_feed(in, t.bytes + half, t.len - half, &err), 0);
    assert_int_equal(ingest_finish(in, &err), 0);
    assert_int_equal(q(db, "SELECT count(*) FROM epochs"), 2);
    assert_int_equal(q(db, "SELECT sum(count) FROM samples WHERE epoch = 1"), before);
    assert_int_equal(q(db, "SELECT sum(count) FROM samples WHERE epoch = 2"),
                     t.expect_epoch[1] + t.expect_epoch[2] - (uint64_t)before);
    ingest_close(in);
    pdb_close(db);
    free(t.bytes);
}

/* The stream from a unix socket, written slowly by another process. */
static void test_unix_socket(void **state)
{
    struct fixture *f = *state;
    struct target t;
    make_run(&t);
    int srv = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strcpy(a.sun_path, f->sock);
    assert_int_equal(bind(srv, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(srv, 1), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int c = accept(srv, NULL, NULL);
        for (size_t off = 0; off < t.len;) {
            size_t n = t.len - off < 3000 ? t.len - off : 3000;
            if (write(c, t.bytes + off, n) != (ssize_t)n)
                _exit(1);
            off += n;
            usleep(2000);
        }
        close(c);
        _exit(0);
    }
    close(srv);
    struct pdb *db = open_db(f->db);
    struct ingest *in;
    struct ap_err err;
    char spec[200];
    snprintf(spec, sizeof spec, "unix:%s", f->sock);
    char *status = NULL;
    size_t status_len = 0;
    FILE *status_fp = open_memstream(&status, &status_len);
    struct ingest_opts o = {.commit_ms = 5, .status = status_fp, .baud = 115200};
    assert_int_equal(ingest_open(db, &o, &in, &err), 0);
    int fd = ingest_open_source(spec, &err);
    if (fd < 0)
        fail_msg("%s", err.msg);
    if (ingest_fd(in, fd, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    close(fd);
    int st;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    check_clean_run(db, &t);
    fclose(status_fp);
    assert_non_null(strstr(status, "samples/s"));
    assert_non_null(strstr(status, "baud"));
    assert_non_null(strstr(status, "hash hits 90.0%"));
    free(status);
    ingest_close(in);
    pdb_close(db);
    free(t.bytes);

    snprintf(spec, sizeof spec, "unix:%s/none.sock", f->dir);
    assert_int_equal(ingest_open_source(spec, &err), -1);
    assert_non_null(strstr(err.msg, "cannot connect"));
}

/* Noise before the first frame and a cut-off last frame change nothing
 * else. */
static void test_noise_and_cut_end(void **state)
{
    struct fixture *f = *state;
    struct target t;
    make_run(&t);
    struct pdb *db = open_db(f->db);
    struct ingest *in;
    struct ap_err err;
    struct ingest_opts o = {0};
    assert_int_equal(ingest_open(db, &o, &in, &err), 0);
    const char *boot = "PCI: 00:01:0 class 0101 id 8086:7111\r\nmonitor: core 0 online\r\n";
    assert_int_equal(ingest_feed(in, (const uint8_t *)boot, strlen(boot), &err), 0);
    assert_int_equal(ingest_feed(in, t.bytes, t.len - 3, &err), 0);    /* END cut */
    assert_int_equal(ingest_finish(in, &err), 0);
    assert_int_equal(ingest_totals(in)->link.truncated, 1);
    assert_int_equal(ingest_totals(in)->ended, 0);
    assert_int_equal(q(db, "SELECT count(*) FROM sessions WHERE ended IS NULL"), 1);
    assert_int_equal(q(db, "SELECT sum(count) FROM drops WHERE reason = 'link_bad_frames'"), 2);
    assert_int_equal(q(db, "SELECT sum(count) FROM samples"), t.samples_sent[0] + t.samples_sent[1]);
    ingest_close(in);
    pdb_close(db);
    free(t.bytes);
}

/* A daemon's view (commit_on_flush, skip_until_hello, a frame hook): the
 * tail of an earlier session before HELLO is skipped; merges reach the
 * disk once every core's FLUSH of a round is in, without a timer commit. */
struct hook_count {
    int frames, acks;
};

static void count_frames(void *ctx, const struct lk_frame *fr)
{
    struct hook_count *h = ctx;
    h->frames++;
    if (fr->type == LK_T_ACK)
        h->acks++;
}

static void test_daemon_mode(void **state)
{
    struct fixture *f = *state;
    struct target t;
    memset(&t, 0, sizeof t);
    rng_state = 7;
    /* the end of a session the daemon missed: samples, a flush, an ACK */
    samples(&t, 0, 3);
    flush(&t);
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_ack ack = {5, LK_T_START, LK_ACK_OK, {(const uint8_t *)"started", 7}};
    lk_enc_ack(&w, raw, sizeof raw, &ack);
    emit(&t, &w, 0);
    int stale = t.nframes;
    /* then the session: its accounting starts from zero */
    memset(t.samples_sent, 0, sizeof t.samples_sent);
    memset(t.taken, 0, sizeof t.taken);
    memset(t.overflow_drops, 0, sizeof t.overflow_drops);
    memset(t.expect_epoch, 0, sizeof t.expect_epoch);
    t.expect_a = t.expect_b = t.expect_unknown = 0;
    hello(&t);
    samples(&t, 1, 10);
    flush(&t);
    size_t first_round = t.len;
    size_t last_flush = t.frame_at[t.nframes - 1];     /* core 1's FLUSH */
    uint64_t round1 = t.expect_epoch[1], taken1 = t.taken[0] + t.taken[1];
    samples(&t, 1, 5);

    struct pdb *db = open_db(f->db);
    struct ingest *in;
    struct ap_err err;
    struct hook_count hc = {0};
    struct ingest_opts o = {.commit_on_flush = true, .skip_until_hello = true,
                            .frame_hook = count_frames, .hook_ctx = &hc};
    assert_int_equal(ingest_open(db, &o, &in, &err), 0);
    struct pdb *reader = open_db(f->db);
    /* everything up to the last core's FLUSH but that frame: nothing on disk */
    assert_int_equal(ingest_feed(in, t.bytes, last_flush, &err), 0);
    assert_int_equal(q(reader, "SELECT coalesce(sum(count), 0) FROM samples"), 0);
    /* the round's last FLUSH: the whole round committed */
    assert_int_equal(ingest_feed(in, t.bytes + last_flush, first_round - last_flush, &err), 0);
    assert_int_equal(q(reader, "SELECT sum(count) FROM samples"), (int64_t)round1);
    assert_int_equal(ingest_totals(in)->committed_samples, round1);
    /* more samples, no FLUSH: still not on disk */
    assert_int_equal(ingest_feed(in, t.bytes + first_round, t.len - first_round, &err), 0);
    assert_int_equal(q(reader, "SELECT sum(count) FROM samples"), (int64_t)round1);
    assert_int_equal(ingest_finish(in, &err), 0);
    assert_int_equal(q(reader, "SELECT sum(count) FROM samples"), (int64_t)t.expect_epoch[1]);
    /* the counters of the last FLUSH: the stale session's are not there */
    assert_int_equal(q(reader, "SELECT sum(value) FROM stats WHERE name = 'samples_taken'"),
                     (int64_t)taken1);
    const struct ingest_totals *tot = ingest_totals(in);
    assert_int_equal(tot->skipped, stale);
    assert_int_equal(hc.frames, t.nframes);
    assert_int_equal(hc.acks, 1);
    assert_int_equal(tot->ncores, NCORES);
    ingest_close(in);
    pdb_close(reader);
    pdb_close(db);
    free(t.bytes);
}

/* Appends wire bytes to buf (grown as needed). */
static void put_wire(uint8_t **buf, size_t *len, const uint8_t *wire, size_t n)
{
    *buf = realloc(*buf, *len + n);
    assert_non_null(*buf);
    memcpy(*buf + *len, wire, n);
    *len += n;
}

/* PART pieces of a frame (link-protocol.h 5.7): its raw form, cut at
 * `piece` bytes, the pieces in `which` (a bit each) appended. */
static void put_pieces(uint8_t **buf, size_t *len, const struct lk_frame *fr, uint32_t piece,
                       uint32_t which)
{
    uint8_t raw[LK_MAX_RAW], praw[LK_MAX_RAW], wire[LK_MAX_WIRE];
    uint32_t total = (uint32_t)(LK_HDR_SIZE + fr->len);
    raw[0] = fr->type;
    raw[1] = LK_PROTO_VERSION;
    raw[2] = raw[3] = 0;
    raw[4] = (uint8_t)fr->len;
    raw[5] = (uint8_t)(fr->len >> 8);
    memcpy(raw + LK_HDR_SIZE, fr->payload, fr->len);
    for (uint32_t off = 0, i = 0; off < total; off += piece, i++) {
        if (!(which & (1u << i)))
            continue;
        struct lk_writer w;
        uint32_t n = total - off < piece ? total - off : piece;
        assert_int_equal(lk_enc_part(&w, praw, sizeof praw, raw, total, off, n), LK_OK);
        size_t wn = lk_finish(&w, fr->seq, wire, sizeof wire);
        assert_true(wn > 0);
        put_wire(buf, len, wire, wn);
    }
}

/* A frame at a gap sent in pieces over two tries (the first missing one,
 * the second repeating one the host has): taken once, whole, and the run
 * is stored as if nothing had happened. */
static void test_frame_in_pieces_over_two_tries_is_taken_once(void **state)
{
    struct fixture *f = *state;
    struct target t;
    make_run(&t);
    int k = 5;                      /* a SAMPLES frame */
    assert_true(t.frame_samples[k] > 0 && t.frame_len[k] > 600);
    struct lk_decoder dec;
    lk_dec_init(&dec);
    size_t used;
    struct lk_frame fr;
    assert_int_equal(lk_dec_push(&dec, t.bytes + t.frame_at[k], t.frame_len[k], &used, &fr), 1);
    uint8_t *s = NULL;
    size_t len = 0;
    size_t after = t.frame_at[k] + t.frame_len[k];
    put_wire(&s, &len, t.bytes, t.frame_at[k]);
    put_pieces(&s, &len, &fr, 256, ~0u & ~2u);          /* try 1: the second piece lost */
    put_wire(&s, &len, t.bytes + after, t.frame_len[k + 1]);  /* ahead: asked again */
    put_pieces(&s, &len, &fr, 128, 0xf);                 /* try 2: bytes 0..511, half of them again */
    put_wire(&s, &len, t.bytes + after, t.len - after);

    struct pdb *db = open_db(f->db);
    struct ingest *in;
    struct ap_err err;
    int null = open("/dev/null", O_WRONLY);
    struct ingest_opts o = {.send_acks = true, .ack_fd = null};
    assert_int_equal(ingest_open(db, &o, &in, &err), 0);
    assert_int_equal(ingest_feed(in, s, len, &err), 0);
    assert_int_equal(ingest_finish(in, &err), 0);
    const struct ingest_totals *tot = ingest_totals(in);
    assert_true(tot->parts >= 4);
    assert_int_equal(tot->gap_frames, 1);
    assert_int_equal(tot->resend_requests, 1);
    assert_int_equal(tot->malformed, 0);
    check_clean_run(db, &t);
    assert_int_equal(q(db, "SELECT count(*) FROM drops WHERE reason LIKE 'link%' AND count > 0"), 0);
    ingest_close(in);
    pdb_close(db);
    close(null);
    free(s);
    free(t.bytes);
}

/* LINK_ACK pacing (link-protocol.h 5.8): a run fed a byte at a time, as a
 * paced link may deliver it, is acknowledged, never with more LINK_ACK
 * bytes than a quarter of the bytes received plus the first LINK_ACK's,
 * and every LINK_ACK says something new (stored or expected moved). */
static void test_link_acks_stay_within_a_quarter_of_the_bytes_received(void **state)
{
    struct fixture *f = *state;
    struct target t;
    make_run(&t);
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    fcntl(pipefd[1], F_SETFL, O_NONBLOCK);
    struct pdb *db = open_db(f->db);
    struct ingest *in;
    struct ap_err err;
    struct ingest_opts o = {.send_acks = true, .ack_fd = pipefd[1]};
    assert_int_equal(ingest_open(db, &o, &in, &err), 0);
    for (size_t i = 0; i < t.len; i++)
        assert_int_equal(ingest_feed(in, t.bytes + i, 1, &err), 0);
    assert_int_equal(ingest_finish(in, &err), 0);
    const struct ingest_totals *tot = ingest_totals(in);
    close(pipefd[1]);

    static uint8_t acks[1 << 16];
    ssize_t n = read(pipefd[0], acks, sizeof acks);
    close(pipefd[0]);
    assert_true(n > 0);
    assert_int_equal(tot->acks_forced, 0);          /* fed at once: nothing waited a second */
    assert_int_equal(tot->ack_bytes, (uint64_t)n);
    assert_true((uint64_t)n <= t.len / LK_ACK_BYTES_SHARE + LK_ACK_CREDIT_MAX / LK_ACK_BYTES_SHARE);
    struct lk_decoder dec;
    lk_dec_init(&dec);
    const uint8_t *p = acks;
    size_t left = (size_t)n, seen = 0;
    uint16_t last_stored = 0, last_expected = 0;
    while (left > 0) {
        size_t used;
        struct lk_frame fr;
        int got = lk_dec_push(&dec, p, left, &used, &fr);
        p += used;
        left -= used;
        if (!got)
            continue;
        struct lk_link_ack a;
        assert_int_equal(fr.type, LK_T_LINK_ACK);
        assert_int_equal(lk_parse_link_ack(&fr, &a), LK_OK);
        assert_true(seen == 0 || a.stored != last_stored || a.expected != last_expected);
        last_stored = (uint16_t)a.stored;
        last_expected = (uint16_t)a.expected;
        seen++;
    }
    assert_int_equal(seen, tot->acks_sent);
    assert_true(seen >= 2);
    check_clean_run(db, &t);
    ingest_close(in);
    pdb_close(db);
    free(t.bytes);
}

/* Selective repeat (link-protocol.h 5.3): the frames after a lost one are
 * held, one of them twice (a duplicate, counted), and stored in order
 * right after the lost frame comes again; the RESEND names the frames
 * held in its bitmap, and nothing is counted lost. */
static void test_frames_after_a_lost_one_are_held_and_stored_in_order_once_it_comes(void **state)
{
    struct fixture *f = *state;
    struct target t;
    make_run(&t);
    int k = 5;                      /* the lost frame; k+1..k+3 come early */
    assert_true(k + 4 < t.nframes);
    struct lk_decoder dec;
    lk_dec_init(&dec);
    size_t used;
    struct lk_frame fr;
    assert_int_equal(lk_dec_push(&dec, t.bytes + t.frame_at[k], t.frame_len[k], &used, &fr), 1);
    uint16_t lost_seq = fr.seq;
    uint8_t *s = NULL;
    size_t len = 0;
    put_wire(&s, &len, t.bytes, t.frame_at[k]);
    for (int i = k + 1; i <= k + 3; i++)
        put_wire(&s, &len, t.bytes + t.frame_at[i], t.frame_len[i]);
    put_wire(&s, &len, t.bytes + t.frame_at[k + 2], t.frame_len[k + 2]);   /* a second copy */
    put_wire(&s, &len, t.bytes + t.frame_at[k], t.frame_len[k]);           /* the lost one, again */
    put_wire(&s, &len, t.bytes + t.frame_at[k + 4], t.len - t.frame_at[k + 4]);

    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    fcntl(pipefd[1], F_SETFL, O_NONBLOCK);
    struct pdb *db = open_db(f->db);
    struct ingest *in;
    struct ap_err err;
    struct ingest_opts o = {.send_acks = true, .ack_fd = pipefd[1]};
    assert_int_equal(ingest_open(db, &o, &in, &err), 0);
    assert_int_equal(ingest_feed(in, s, len, &err), 0);
    assert_int_equal(ingest_finish(in, &err), 0);
    const struct ingest_totals *tot = ingest_totals(in);
    assert_int_equal(tot->gap_frames, 3);
    assert_int_equal(tot->held_frames, 3);
    assert_int_equal(tot->dup_frames, 1);
    assert_true(tot->resend_requests >= 1);         /* one hole: asked once per LK_NAK_MS */
    check_clean_run(db, &t);
    assert_int_equal(q(db, "SELECT count(*) FROM drops WHERE reason LIKE 'link%' AND count > 0"), 0);
    close(pipefd[1]);

    static uint8_t acks[1 << 16];
    ssize_t n = read(pipefd[0], acks, sizeof acks);
    close(pipefd[0]);
    assert_true(n > 0);
    lk_dec_init(&dec);
    const uint8_t *p = acks;
    size_t left = (size_t)n;
    int resends = 0;
    while (left > 0) {
        int got = lk_dec_push(&dec, p, left, &used, &fr);
        p += used;
        left -= used;
        struct lk_link_ack a;
        if (!got || lk_parse_link_ack(&fr, &a) != LK_OK || !(a.flags & LK_LACK_RESEND))
            continue;
        assert_int_equal(a.expected, lost_seq);
        if (resends == 0)
            assert_int_equal(a.sack, 1);           /* it held lost + 1 when it first asked */
        assert_true(a.sack & 1);
        resends++;
    }
    assert_int_equal(resends, tot->resend_requests);
    ingest_close(in);
    pdb_close(db);
    free(s);
    free(t.bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_stream_from_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream_in_pieces, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupted_frame_is_accounted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_epoch_started_by_the_host, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unix_socket, setup, teardown),
        cmocka_unit_test_setup_teardown(test_noise_and_cut_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_daemon_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(test_frame_in_pieces_over_two_tries_is_taken_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_link_acks_stay_within_a_quarter_of_the_bytes_received, setup, teardown),
        cmocka_unit_test_setup_teardown(test_frames_after_a_lost_one_are_held_and_stored_in_order_once_it_comes,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
