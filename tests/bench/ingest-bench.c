/*
 * Host ingest rate: a link stream made by the encoder (as the firmware sends
 * it) decoded and merged into a fresh profile database, timed.  Prints one
 * JSON object per case for tests/bench/bench_ingest.py.
 *
 *   ingest-bench DIR [ENTRIES]
 *
 * Cases: "hot" (entries of 4 cores x 3 events over a 64 KiB image with a
 * skewed PC distribution: the same instructions come back flush after
 * flush, as in a real profile) and "cold" (every entry a new database row:
 * the worst case).  Each entry is one DCPI hash-table entry.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/ingest.h"

static uint64_t rng = 88172645463325252ULL;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

struct buf {
    uint8_t *p;
    size_t len, cap;
};

static void put(struct buf *b, const uint8_t *p, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            exit(1);
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

static uint16_t seq;

static void finish(struct buf *b, struct lk_writer *w)
{
    uint8_t wire[LK_MAX_WIRE];
    size_t n = lk_finish(w, seq++, wire, sizeof wire);
    put(b, wire, n);
}

/* The stream: HELLO, LOADMAP, then SAMPLES frames holding `entries`. */
static void make_stream(struct buf *b, uint64_t entries, int cold)
{
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    struct lk_hello h = {0, 4, LK_CAP_COUNTERS, 1000000000, {(const uint8_t *)"bench", 5},
                         {(const uint8_t *)"bench", 5}, 0, 1, 0, 0, 0, 0, 0, 0};
    seq = 0;
    lk_enc_hello(&w, raw, sizeof raw, &h);
    finish(b, &w);
    struct lk_loadmap_entry e = {LK_LOADMAP_LOAD, 0x01000000, 1ULL << 32, 20, {1, 2, 3},
                                 {(const uint8_t *)"image", 5}};
    lk_loadmap_begin(&w, raw, sizeof raw);
    lk_loadmap_add(&w, &e);
    finish(b, &w);
    uint64_t made = 0, next_cold = 0;
    while (made < entries) {
        uint32_t core = (uint32_t)(rnd() % 4), event = (uint32_t)(rnd() % 3);
        lk_samples_begin(&w, raw, sizeof raw, core, event, 62000);
        /* entries leave the hash table unsorted; PCs within 64 KiB, skewed
         * towards a hot loop of 1 KiB */
        for (;;) {
            uint64_t pc;
            if (cold)
                pc = 0x01000000 + 4 * next_cold;
            else if (rnd() % 4)
                pc = 0x01004000 + 4 * (rnd() % 256);
            else
                pc = 0x01000000 + 4 * (rnd() % 16384);
            if (made == entries || lk_samples_add(&w, pc, 1 + rnd() % 40) != LK_OK)
                break;
            next_cold++;
            made++;
        }
        finish(b, &w);
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run_case(const char *dir, const char *name, uint64_t entries, int cold)
{
    struct buf b = {0};
    make_stream(&b, entries, cold);
    char path[512];
    snprintf(path, sizeof path, "%s/ingest-bench-%s.db", dir, name);
    unlink(path);
    struct pdb *db;
    struct ingest *in;
    struct ap_err err;
    if (pdb_open(path, PDB_CREATE, &db, &err) != 0) {
        fprintf(stderr, "ingest-bench: %s\n", err.msg);
        return 1;
    }
    struct ingest_opts o = {.commit_ms = 250};
    if (ingest_open(db, &o, &in, &err) != 0) {
        fprintf(stderr, "ingest-bench: %s\n", err.msg);
        return 1;
    }
    double t0 = now();
    /* in reads of 64 KiB, as from a socket */
    for (size_t off = 0; off < b.len; off += 65536) {
        size_t n = b.len - off < 65536 ? b.len - off : 65536;
        if (ingest_feed(in, b.p + off, n, &err) != 0) {
            fprintf(stderr, "ingest-bench: %s\n", err.msg);
            return 1;
        }
    }
    if (ingest_finish(in, &err) != 0) {
        fprintf(stderr, "ingest-bench: %s\n", err.msg);
        return 1;
    }
    double dt = now() - t0;
    const struct ingest_totals *t = ingest_totals(in);
    int64_t rows = 0;
    pdb_query_int(db, "SELECT count(*) FROM samples", &rows, &err);
    printf("{\"case\": \"%s\", \"entries\": %" PRIu64 ", \"samples\": %" PRIu64
           ", \"stream_bytes\": %zu, \"rows\": %" PRId64 ", \"commits\": %" PRIu64
           ", \"seconds\": %.4f, \"entries_per_s\": %.0f}\n",
           name, t->entries, t->samples, b.len, rows, t->commits, dt, (double)t->entries / dt);
    ingest_close(in);
    pdb_close(db);
    unlink(path);
    char side[600];
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    free(b.p);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: ingest-bench DIR [ENTRIES]\n");
        return 2;
    }
    uint64_t entries = argc > 2 ? strtoull(argv[2], NULL, 10) : 4000000;
    return run_case(argv[1], "hot", entries, 0) || run_case(argv[1], "cold", entries / 4, 1);
}
