/*
 * The ingest loop (see ingest.h): link decoder -> frame handlers -> the
 * profile database's merges, committed on a timer.
 *
 * Invariants:
 *  1. Every seq before `stored` is committed: stored catches up with
 *     expected only after pdb_commit succeeded.
 *  2. A session's link position (link_pos_NONCE) is committed in the same
 *     transaction as its frames, so a host taking over skips exactly
 *     what is stored.
 *  3. Cumulative FLUSH counters only grow within a session: a value that
 *     goes back is ignored and counted (went_back), never subtracted.
 *  4. Host counts go to the database as differences since the last commit
 *     (the recorded_* fields), so nothing is added twice.
 *  5. Pending rows are committed early past PENDING_LIMIT, so a burst
 *     never builds an unbounded transaction.
 *  6. PART pieces (link-protocol.h 5.7) are kept only for `expected` of
 *     the current session; a piece of another frame, length or session
 *     starts over.  The frame they make is taken like a whole one.
 *  8. Selective repeat (link-protocol.h 5.3): a frame that comes early
 *     (1..LK_SACK_BITS ahead of `expected`, acknowledging hosts only) is
 *     held in the reorder buffer (util/link-reorder.h) and taken, in seq
 *     order, right after the frame that fills the gap before it; so every
 *     handler still sees the session in order.  Every LINK_ACK carries the
 *     buffer's bitmap; a frame held already is a duplicate.  A new
 *     session (HELLO) empties the buffer.  ALPHAPROF_LINK_GO_BACK_N=1
 *     holds nothing and asks for go-back-N instead (link-protocol.h 5.9:
 *     the bench's baseline).
 *  7. LINK_ACK pacing (link-protocol.h 5.8): a LINK_ACK goes only when
 *     `expected` or `stored` moved since the last one (or a RESEND is
 *     due), and only while the bytes the host has sent in LINK_ACKs stay
 *     within 1/LK_ACK_BYTES_SHARE of the bytes it received (plus one
 *     LINK_ACK to start with), so acknowledgements never take more than
 *     that share of the line towards the board, however the host's clock
 *     runs against the board's virtual time.  One exception keeps a
 *     session alive: something unacknowledged and no LINK_ACK for
 *     LK_ACK_IDLE_MS of host time.  With nothing moved, a LINK_ACK still
 *     goes every LK_ACK_IDLE_MS within the budget: a board settling
 *     after END (firmware profiler.c settle_link) waits only while it
 *     hears the host, and under heavy damage nothing may move for
 *     longer than its patience while its retries still bring bytes.
 */
#include "util/ingest.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "firmware/abi/path-region.h"
#include "firmware/profiler/value-interp.h"
#include "util/value-transform.h"
#include "util/image-file.h"
#include "util/link-reorder.h"
#include "util/symbols.h"
#include "util/strvec.h"

#define MAX_CORE        64          /* cores and counter ids tracked per session */
#define MAX_ID          64
#define PENDING_LIMIT   (1u << 20)  /* commit early past this many pending rows */
#define MAX_NONCES      64          /* link sessions remembered, to know a replayed HELLO */

struct elf_info {
    char *path;
    char name[IMAGE_NAME_MAX];
    uint8_t build_id[IMAGE_BUILD_ID_MAX];
    uint32_t build_id_size;
};

struct mapping {
    uint64_t address, size;
    int64_t image;
};

/* Cumulative counters of the target, per core and id, since HELLO. */
struct cumulative {
    uint64_t value[MAX_CORE][MAX_ID];
};

struct ingest {
    struct pdb *db;
    struct ingest_opts opts;
    struct lk_decoder dec;
    struct lk_dec_stats dec_committed;  /* decoder counts already recorded */
    struct ingest_totals t;
    struct elf_info *elfs;
    size_t nelfs;

    int64_t epoch, session;
    bool in_session;
    struct mapping *map;                /* sorted by address */
    size_t nmap, cap_map;
    struct cumulative *stats, *drops;   /* last FLUSH values */
    /* what arrived, per core, to set against the target's *_sent */
    uint64_t got_samples[MAX_CORE], got_pme[MAX_CORE], got_pairs[MAX_CORE];
    uint64_t lost_samples[MAX_CORE], lost_pme[MAX_CORE], lost_pairs[MAX_CORE];
    uint64_t hash_hits[MAX_CORE], hash_misses[MAX_CORE];
    /* value sampling: offered values that arrived in VALUES frames, the
     * last VALUE_STATS (cumulative) */
    uint64_t got_values[MAX_CORE], lost_values[MAX_CORE];
    struct lk_value_stats vstats[MAX_CORE];

    /* link session and sequence (link-protocol.h 5) */
    uint64_t nonce;
    uint16_t expected, stored;          /* next seq to take; every one before stored is committed */
    uint64_t nonces[MAX_NONCES];
    size_t nnonces;
    uint16_t nak_for;                   /* `expected` of the last RESEND */
    uint32_t nak_holes;                 /* ... and the holes it showed (bit i: expected + 1 + i) */
    struct link_reorder reorder;        /* frames that came early (invariant 8) */
    bool go_back_n;                     /* hold nothing: link-protocol.h 5.9, for comparison */
    struct timespec last_nak, last_ack;
    uint16_t ack_seq, acked_expected, acked_stored;
    /* LINK_ACK bytes the host may still send (invariant 7): earned by the
     * bytes the target sent, at 1/LK_ACK_BYTES_SHARE of them */
    uint64_t ack_credit, ack_earning;   /* ... and bytes received not yet counted in it */
    bool ack_waiting;                   /* a LINK_ACK due is held back by the budget */
    uint64_t recorded_dups, recorded_lost, recorded_gaps;   /* host counts already recorded */
    uint64_t pos, recorded_pos;         /* frames taken in the session; recorded as link_pos_NONCE */
    /* takeover (link-protocol.h 5.5): frames an earlier host on this
     * database stored already are absorbed, not stored again */
    uint64_t prev_nonce, prev_pos, prev_stored;
    bool resent_seen;                   /* the first frame after the context came */
    uint64_t skip_until;                /* position before which frames are stored already */

    struct timespec last_commit, last_status;
    struct ingest_totals at_last_status;

    /* the pieces of frame `expected` sent as PART frames (invariant 6) */
    struct {
        bool active;
        uint64_t nonce;
        uint16_t seq;
        uint32_t total, have;
        uint8_t raw[LK_MAX_RAW];
        bool got[LK_MAX_RAW];
    } part;
};

static double now_s(struct timespec *ts)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    return (double)ts->tv_sec + (double)ts->tv_nsec / 1e9;
}

static double since(const struct timespec *then)
{
    struct timespec ts;
    double n = now_s(&ts);
    return n - ((double)then->tv_sec + (double)then->tv_nsec / 1e9);
}

/* The host stat holding how far a host got in link session `nonce`. */
static void link_position_name(char *buf, size_t cap, uint64_t nonce)
{
    snprintf(buf, cap, "link_pos_%016" PRIx64, nonce);
}

static void new_session_state(struct ingest *in)
{
    in->nmap = 0;
    memset(in->stats, 0, sizeof *in->stats);
    memset(in->drops, 0, sizeof *in->drops);
    memset(in->got_samples, 0, sizeof in->got_samples);
    memset(in->got_pme, 0, sizeof in->got_pme);
    memset(in->got_pairs, 0, sizeof in->got_pairs);
    memset(in->lost_samples, 0, sizeof in->lost_samples);
    memset(in->lost_pme, 0, sizeof in->lost_pme);
    memset(in->lost_pairs, 0, sizeof in->lost_pairs);
    memset(in->hash_hits, 0, sizeof in->hash_hits);
    memset(in->hash_misses, 0, sizeof in->hash_misses);
    memset(in->got_values, 0, sizeof in->got_values);
    memset(in->lost_values, 0, sizeof in->lost_values);
    memset(in->vstats, 0, sizeof in->vstats);
}

static int load_elfs(struct ingest *in, struct ap_err *err)
{
    in->elfs = calloc(in->opts.nelfs ? in->opts.nelfs : 1, sizeof *in->elfs);
    if (!in->elfs)
        return ap_err_set(err, "out of memory");
    for (size_t i = 0; i < in->opts.nelfs; i++) {
        struct image_file img;
        struct elf_info *e = &in->elfs[i];
        if (image_open(&img, in->opts.elfs[i], false, err) != 0) {
            /* Not a workload image (the monitor): its build-id and file name. */
            struct symtab *st;
            if (symtab_open(in->opts.elfs[i], &st, err) != 0 ||
                image_name_from_path(in->opts.elfs[i], e->name, err) != 0) {
                symtab_close(NULL);
                return -1;
            }
            size_t n;
            const uint8_t *id = symtab_build_id(st, &n);
            e->build_id_size = (uint32_t)(n < sizeof e->build_id ? n : sizeof e->build_id);
            memcpy(e->build_id, id, e->build_id_size);
            symtab_close(st);
            e->path = xstrdup(in->opts.elfs[i]);
            in->nelfs++;
            continue;
        }
        int rc = image_build_id(&img, e->build_id, &e->build_id_size, err);
        memcpy(e->name, img.hdr.name, sizeof e->name);
        e->name[sizeof e->name - 1] = 0;
        image_close(&img);
        if (rc != 0)
            return -1;
        if (e->name[0] == 0 && image_name_from_path(in->opts.elfs[i], e->name, err) != 0)
            return -1;
        e->path = xstrdup(in->opts.elfs[i]);
        in->nelfs++;
    }
    return 0;
}

int ingest_open(struct pdb *db, const struct ingest_opts *opts, struct ingest **out,
                struct ap_err *err)
{
    *out = NULL;
    struct ingest *in = calloc(1, sizeof *in);
    if (!in)
        return ap_err_set(err, "out of memory");
    in->db = db;
    in->opts = *opts;
    if (in->opts.commit_ms == 0)
        in->opts.commit_ms = 250;
    in->ack_credit = LK_ACK_CREDIT_MAX / LK_ACK_BYTES_SHARE;     /* one LINK_ACK to start with */
    link_reorder_init(&in->reorder);
    in->go_back_n = getenv("ALPHAPROF_LINK_GO_BACK_N") && strcmp(getenv("ALPHAPROF_LINK_GO_BACK_N"), "1") == 0;
    in->stats = calloc(1, sizeof *in->stats);
    in->drops = calloc(1, sizeof *in->drops);
    lk_dec_init(&in->dec);
    if (!in->stats || !in->drops || load_elfs(in, err) != 0 ||
        pdb_current_epoch(db, &in->epoch, err) != 0) {
        if (!in->stats || !in->drops)
            ap_err_set(err, "out of memory");
        ingest_close(in);
        return -1;
    }
    now_s(&in->last_commit);
    in->last_status = in->last_commit;
    *out = in;
    return 0;
}

void ingest_close(struct ingest *in)
{
    if (!in)
        return;
    for (size_t i = 0; i < in->nelfs; i++)
        free(in->elfs[i].path);
    free(in->elfs);
    free(in->map);
    free(in->stats);
    free(in->drops);
    free(in);
}

const struct ingest_totals *ingest_totals(const struct ingest *in)
{
    return &in->t;
}

/* ------------------------------------------------------------ the loadmap */

static const struct mapping *find_mapping(const struct ingest *in, uint64_t pc)
{
    size_t lo = 0, hi = in->nmap;       /* first entry with address > pc */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (in->map[mid].address <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const struct mapping *m = &in->map[lo - 1];
    return pc - m->address < m->size ? m : NULL;
}

/* (image, offset) of a PC: image 0 with the PC itself when in no image. */
static int64_t place(struct ingest *in, uint64_t pc, uint64_t *offset)
{
    const struct mapping *m = find_mapping(in, pc);
    if (!m) {
        *offset = pc;
        return PDB_IMAGE_UNKNOWN;
    }
    *offset = pc - m->address;
    return m->image;
}

static void map_set(struct ingest *in, uint64_t address, uint64_t size, int64_t image, bool load)
{
    size_t i = 0;
    while (i < in->nmap && in->map[i].address < address)
        i++;
    bool same = i < in->nmap && in->map[i].address == address;
    if (!load) {
        if (same) {
            memmove(&in->map[i], &in->map[i + 1], (in->nmap - i - 1) * sizeof *in->map);
            in->nmap--;
        }
        return;
    }
    if (!same) {
        if (in->nmap == in->cap_map) {
            in->cap_map = in->cap_map ? in->cap_map * 2 : 16;
            in->map = xrealloc(in->map, in->cap_map * sizeof *in->map);
        }
        memmove(&in->map[i + 1], &in->map[i], (in->nmap - i) * sizeof *in->map);
        in->nmap++;
    }
    in->map[i] = (struct mapping){address, size, image};
}

static void hex(char *out, const uint8_t *id, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", id[i]);
    out[2 * n] = 0;
}

static int on_loadmap(struct ingest *in, const struct lk_frame *f, struct ap_err *err)
{
    uint32_t count;
    struct lk_reader r;
    struct lk_loadmap_entry e;
    int rc;
    if (lk_loadmap_open(f, &count, &r) != LK_OK)
        return 1;
    while ((rc = lk_loadmap_next(&r, &e)) == 1) {
        char name[LK_MAX_NAME + 1];
        memcpy(name, e.name.p, e.name.n);
        name[e.name.n] = 0;
        const char *path = NULL;
        for (size_t i = 0; i < in->nelfs; i++) {
            const struct elf_info *x = &in->elfs[i];
            if (strcmp(x->name, name) != 0)
                continue;
            if (x->build_id_size != e.build_id_size ||
                memcmp(x->build_id, e.build_id, e.build_id_size) != 0) {
                char board[2 * LK_BUILD_ID_SIZE + 1], file[2 * IMAGE_BUILD_ID_MAX + 1];
                hex(board, e.build_id, e.build_id_size);
                hex(file, x->build_id, x->build_id_size);
                return ap_err_set(err, "build-id mismatch for image %s: the board runs build-id "
                                  "%s, but %s has build-id %s; pass the ELF the board was "
                                  "given (or rebuild and rerun)", name, board, x->path, file);
            }
            path = x->path;
        }
        int64_t image;
        if (pdb_image(in->db, name, e.build_id, e.build_id_size, path, &image, err) != 0)
            return -1;
        bool load = e.action == LK_LOADMAP_LOAD;
        map_set(in, e.address, e.size, image, load);
        if (in->in_session &&
            pdb_loadmap(in->db, in->session, in->epoch, image, e.address, e.size, load, err) != 0)
            return -1;
    }
    return rc == 0 ? 0 : 1;
}

/* --------------------------------------------------------- frame handlers */

static bool core_ok(uint32_t core)
{
    return core < MAX_CORE;
}

static int on_samples(struct ingest *in, const struct lk_frame *f)
{
    struct lk_samples_hdr h;
    struct lk_reader r;
    uint64_t pc, n;
    int rc;
    if (lk_samples_open(f, &h, &r) != LK_OK || !core_ok(h.core))
        return 1;
    if (h.period)
        pdb_set_period(in->db, in->epoch, h.event, (int32_t)h.core, h.period);
    while ((rc = lk_samples_next(&r, &pc, &n)) == 1) {
        uint64_t off;
        int64_t image = place(in, pc, &off);
        pdb_add_samples(in->db, in->epoch, image, h.event, (int32_t)h.core, off, n);
        in->got_samples[h.core] += n;
        in->t.samples += n;
        in->t.entries++;
        if (image == PDB_IMAGE_UNKNOWN)
            in->t.unknown += n;
    }
    return rc == 0 ? 0 : 1;
}

static int on_pme(struct ingest *in, const struct lk_frame *f)
{
    struct lk_pme_hdr h;
    struct lk_reader r;
    struct lk_pme_agg a;
    int rc;
    if (lk_pme_open(f, &h, &r) != LK_OK || !core_ok(h.core))
        return 1;
    while ((rc = lk_pme_next(&r, &a)) == 1) {
        uint64_t off;
        int64_t image = place(in, a.pc, &off);
        pdb_add_pme(in->db, in->epoch, image, (int32_t)h.core, off, &a, h.nbits, h.nlat);
        in->got_pme[h.core] += a.samples;
        in->t.pme_samples += a.samples;
        in->t.entries++;
    }
    return rc == 0 ? 0 : 1;
}

static int on_pairs(struct ingest *in, const struct lk_frame *f)
{
    struct lk_pme_hdr h;
    struct lk_reader r;
    struct lk_pair p;
    int rc;
    if (lk_pairs_open(f, &h, &r) != LK_OK || !core_ok(h.core))
        return 1;
    /* each pair stands for its bank's offered / kept (the codec checked kept > 0) */
    double weight = h.kept ? (double)h.offered / (double)h.kept : 1;
    while ((rc = lk_pairs_next(&r, &p)) == 1) {
        struct pdb_pair_record where[2];
        for (int k = 0; k < 2; k++) {
            where[k].image = place(in, p.rec[k].pc, &where[k].offset);
            where[k].rec = &p.rec[k];
        }
        pdb_add_pair(in->db, in->epoch, in->session, (int32_t)h.core, &p, h.nlat, where, weight);
        in->got_pairs[h.core]++;
        in->t.pairs++;
        in->t.entries++;
    }
    return rc == 0 ? 0 : 1;
}

static void account_link(struct ingest *in, uint32_t core, enum lk_host_drop reason, uint64_t sent,
                         uint64_t got, uint64_t *lost);

struct derived_ctx {
    struct ingest *in;
    uint32_t core;
};

/* A value transform's row (util/value-transform.h), placed like a PC. */
static void store_derived(void *p, uint64_t where, unsigned kind, uint64_t value, uint64_t count, uint64_t tau,
                          uint64_t offered)
{
    struct derived_ctx *x = p;
    uint64_t off;
    int64_t image = place(x->in, where, &off);
    pdb_add_value_list(x->in->db, x->in->epoch, image, (int32_t)x->core, off, kind, offered);
    pdb_add_value(x->in->db, x->in->epoch, image, (int32_t)x->core, off, kind, value, count, tau);
}

/* VALUES: hotlists summed into value_lists and value_counts (estimates
 * carry tau, so sums over frames stay unbiased), and what the value
 * transforms make of them beside. */
static int on_values(struct ingest *in, const struct lk_frame *f)
{
    uint32_t core;
    struct lk_reader r;
    struct lk_hotlist h;
    int rc;
    if (lk_values_open(f, &core, &r) != LK_OK || !core_ok(core))
        return 1;
    while ((rc = lk_values_next(&r, &h)) == 1) {
        uint64_t off;
        int64_t image = place(in, h.pc, &off);
        pdb_add_value_list(in->db, in->epoch, image, (int32_t)core, off, h.kind, h.offered);
        for (uint32_t i = 0; i < h.nvalues; i++)
            pdb_add_value(in->db, in->epoch, image, (int32_t)core, off, h.kind, h.value[i], h.count[i], h.tau);
        if (in->opts.value_transforms) {
            struct derived_ctx x = {in, core};
            value_transform_apply(in->opts.value_transforms, &h, store_derived, &x);
        }
        in->got_values[core] += h.offered;
        in->t.entries++;
    }
    return rc == 0 ? 0 : 1;
}

/* PATHS: Ball-Larus path counters of an instrumented image, stored by
 * index (the image's path table names them when they are read). */
static int on_paths(struct ingest *in, const struct lk_frame *f, struct ap_err *err)
{
    struct lk_paths_head h;
    struct lk_reader r;
    struct lk_path_count c;
    if (lk_paths_open(f, &h, &r) != LK_OK || !core_ok(h.core))
        return 1;
    struct pdb_path_core pc = {.lost_paths = h.lost_paths, .unmatched_exits = h.unmatched_exits,
                               .bad_paths = h.bad_paths, .metered = h.metered != 0, .unmetered = h.unmetered};
    if (pdb_put_path_core(in->db, in->session, in->epoch, (int32_t)h.core, &pc, err))
        return -1;
    int rc;
    while ((rc = lk_paths_next(&r, &c)) == 1) {
        const uint64_t m[2] = {c.cycles, c.event};
        if (pdb_put_path_count(in->db, in->session, in->epoch, (int32_t)h.core, c.index, c.count,
                               h.metered ? m : NULL, err))
            return -1;
    }
    return rc == 0 ? 0 : 1;
}

/* PATH_HASH: hashed path counts (path-region.h note 14), stored in
 * path_counts under their negative counter (path_hash_counter); an entry
 * no image could have sent (an ordinal or number past the table's
 * bounds) makes the frame a bad one. */
static int on_path_hash(struct ingest *in, const struct lk_frame *f, struct ap_err *err)
{
    uint32_t core;
    struct lk_reader r;
    struct lk_hash_path e;
    int rc;
    if (lk_path_hash_open(f, &core, &r) != LK_OK || !core_ok(core))
        return 1;
    while ((rc = lk_path_hash_next(&r, &e)) == 1) {
        if (e.proc >= PATH_HASH_MAX_PROCS || e.path >= PATH_HASH_MAX_NPATHS)
            return 1;
        if (pdb_put_path_count(in->db, in->session, in->epoch, (int32_t)core,
                               (uint64_t)path_hash_counter((uint32_t)e.proc, e.path), e.count, NULL, err))
            return -1;
    }
    return rc == 0 ? 0 : 1;
}

/* CCT_PATHS: path counts per calling context (instrument --both), by
 * record id and path number, stored as they come; CCT_PATHS_METERED
 * (--both --metrics) the same with each one's cycles and event. */
static int on_cct_paths(struct ingest *in, const struct lk_frame *f, struct ap_err *err)
{
    uint32_t core;
    bool metered;
    struct lk_reader r;
    struct lk_ctx_path e;
    int rc;
    if (lk_cct_paths_open(f, &core, &metered, &r) != LK_OK || !core_ok(core))
        return 1;
    while ((rc = lk_cct_paths_next(&r, &e)) == 1) {
        const uint64_t m[2] = {e.cycles, e.event};
        if (pdb_put_cct_path_count(in->db, in->session, in->epoch, (int32_t)core, e.record, e.path, e.count,
                                   metered ? m : NULL, err))
            return -1;
    }
    return rc == 0 ? 0 : 1;
}

/* CCT: call records of an instrumented image, stored as they come
 * (profile-db-cct.c); the root and overflow records have no callee. */
static int on_cct(struct ingest *in, const struct lk_frame *f, struct ap_err *err)
{
    struct lk_cct_head h;
    struct lk_reader r;
    struct lk_cct_record e;
    int rc;
    if (lk_cct_open(f, &h, &r) != LK_OK || !core_ok(h.core))
        return 1;
    if (pdb_put_cct_core(in->db, in->session, in->epoch, (int32_t)h.core, h.total, h.skipped_calls,
                         h.overflow_calls, h.metrics != 0, err))
        return -1;
    for (uint64_t id = h.first; (rc = lk_cct_next(&r, &e)) == 1; id++) {
        struct pdb_cct_record p = {.id = id, .parent = e.parent, .calls = e.calls, .cycles = e.cycles,
                                   .retired = e.retired};
        p.callee_image = e.callee ? place(in, e.callee, &p.callee) : PDB_IMAGE_UNKNOWN;
        p.site_image = e.site ? place(in, e.site, &p.site) : PDB_IMAGE_UNKNOWN;
        if (pdb_put_cct_record(in->db, in->session, in->epoch, (int32_t)h.core, &p, err))
            return -1;
    }
    return rc == 0 ? 0 : 1;
}

/* The growth of one VALUE_STATS counter (cumulative since HELLO). */
static uint64_t value_growth(struct ingest *in, uint64_t *last, uint64_t now)
{
    if (now < *last) {
        in->t.went_back++;
        return 0;
    }
    uint64_t d = now - *last;
    *last = now;
    return d;
}

static const char *const value_stop_names[] = {
#define VI_STOP(id, name) name,
    VI_STOPS
#undef VI_STOP
};

static int on_value_stats(struct ingest *in, const struct lk_frame *f)
{
    struct lk_value_stats v;
    if (lk_parse_value_stats(f, &v) != LK_OK || !core_ok(v.core))
        return 1;
    struct lk_value_stats *last = &in->vstats[v.core];
    int32_t c = (int32_t)v.core;
    const struct { const char *name; uint64_t *last, now; bool drop; } fields[] = {
#define VALUE_FIELD_(ID, name, field, drop) {name, &last->field, v.field, drop},
        VALUE_FIELD_(RUNS, "value_runs", runs, false)
        VALUE_FIELD_(INSNS, "value_insns", insns, false)
        VALUE_FIELD_(CYCLES, "value_cycles", cycles, false)
        VALUE_FIELD_(OFFERED, "values_offered", offered, false)
        VALUE_FIELD_(SENT, "values_sent", sent, false)
        VALUE_FIELD_(NOT_USER, "value_not_user", not_user, false)
        VALUE_FIELD_(NO_SLOT, "values_no_slot", no_slot, true)
        VALUE_FIELD_(LINK_FULL, "values_link_full", link_full, true)
#undef VALUE_FIELD_
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        uint64_t d = value_growth(in, fields[i].last, fields[i].now);
        if (fields[i].drop)
            pdb_add_drop(in->db, in->epoch, c, fields[i].name, d);
        else
            pdb_add_stat(in->db, in->epoch, c, fields[i].name, d);
    }
    for (uint32_t i = 0; i < v.nstops; i++) {
        uint32_t id = v.stops[i].id;
        if (id >= LK_MAX_VALUE_STOPS)
            continue;
        char name[48];
        snprintf(name, sizeof name, "value_stop_%s",
                 id < sizeof value_stop_names / sizeof value_stop_names[0] ? value_stop_names[id] : "unknown");
        uint64_t *l = &last->stops[id].value;       /* indexed by reason, not by position */
        pdb_add_stat(in->db, in->epoch, c, name, value_growth(in, l, v.stops[i].value));
    }
    account_link(in, v.core, LK_HOST_DROP_LINK_LOST_VALUES, v.sent, in->got_values[v.core],
                 &in->lost_values[v.core]);
    return 0;
}

static const char *counter_name(char *buf, size_t cap, const char *known, const char *prefix,
                                uint32_t id)
{
    if (strcmp(known, "unknown") != 0)
        return known;
    snprintf(buf, cap, "%s_%" PRIu32, prefix, id);
    return buf;
}

/* The growth of a cumulative counter since the last FLUSH.  Values never go
 * back inside a session (the target counts from its first START, frames
 * come in order): one that does is ignored and counted. */
static uint64_t growth(struct ingest *in, struct cumulative *c, uint32_t core, uint32_t id,
                       uint64_t value)
{
    uint64_t last = c->value[core][id];
    if (value < last) {
        in->t.went_back++;
        return 0;
    }
    c->value[core][id] = value;
    return value - last;
}

/* A base FLUSH (link-protocol.h 5.5): what an earlier host stored of this
 * session's board becomes the zero point; nothing is added. */
static void take_base(struct ingest *in, const struct lk_flush *fl)
{
    uint32_t c = fl->core;
    for (uint32_t i = 0; i < fl->nstats; i++) {
        uint32_t id = fl->stats[i].id;
        uint64_t v = fl->stats[i].value;
        if (id >= MAX_ID)
            continue;
        in->stats->value[c][id] = v;
        if (id == LK_STAT_SAMPLES_SENT)
            in->got_samples[c] = v;
        else if (id == LK_STAT_PME_SENT)
            in->got_pme[c] = v;
        else if (id == LK_STAT_PAIRS_SENT)
            in->got_pairs[c] = v;
    }
    for (uint32_t i = 0; i < fl->ndrops; i++)
        if (fl->drops[i].id < MAX_ID)
            in->drops->value[c][fl->drops[i].id] = fl->drops[i].value;
}

/* Target says it sent `sent`; `got` arrived; `lost` already counted. */
static void account_link(struct ingest *in, uint32_t core, enum lk_host_drop reason, uint64_t sent,
                         uint64_t got, uint64_t *lost)
{
    if (sent > got + *lost) {
        uint64_t more = sent - got - *lost;
        pdb_add_drop(in->db, in->epoch, (int32_t)core, lk_host_drop_name(reason), more);
        in->t.dropped += more;
        *lost += more;
    }
}

static int on_flush(struct ingest *in, const struct lk_frame *f)
{
    struct lk_flush fl;
    char buf[32];
    if (lk_parse_flush(f, &fl) != LK_OK || !core_ok(fl.core))
        return 1;
    if (fl.base) {
        take_base(in, &fl);
        return 0;
    }
    uint32_t c = fl.core;
    for (uint32_t i = 0; i < fl.nstats; i++) {
        uint32_t id = fl.stats[i].id;
        uint64_t v = fl.stats[i].value;
        if (id >= MAX_ID)
            continue;
        uint64_t d = growth(in, in->stats, c, id, v);
        pdb_add_stat(in->db, in->epoch, (int32_t)c,
                     counter_name(buf, sizeof buf, lk_stat_name(id), "stat", id), d);
        switch (id) {
        case LK_STAT_SAMPLES_SENT:
            account_link(in, c, LK_HOST_DROP_LINK_LOST_SAMPLES, v, in->got_samples[c], &in->lost_samples[c]);
            break;
        case LK_STAT_PME_SENT:
            account_link(in, c, LK_HOST_DROP_LINK_LOST_PME, v, in->got_pme[c], &in->lost_pme[c]);
            break;
        case LK_STAT_PAIRS_SENT:
            account_link(in, c, LK_HOST_DROP_LINK_LOST_PAIRS, v, in->got_pairs[c], &in->lost_pairs[c]);
            break;
        case LK_STAT_HASH_HITS: in->hash_hits[c] = v; break;
        case LK_STAT_HASH_MISSES: in->hash_misses[c] = v; break;
        default: break;
        }
    }
    for (uint32_t i = 0; i < fl.ndrops; i++) {
        uint32_t id = fl.drops[i].id;
        if (id >= MAX_ID)
            continue;
        uint64_t d = growth(in, in->drops, c, id, fl.drops[i].value);
        pdb_add_drop(in->db, in->epoch, (int32_t)c,
                     counter_name(buf, sizeof buf, lk_drop_name(id), "drop", id), d);
        in->t.dropped += d;
    }
    return 0;
}

static int on_hello(struct ingest *in, const struct lk_frame *f, struct ap_err *err)
{
    struct lk_hello h;
    if (lk_parse_hello(f, &h) != LK_OK)
        return 1;
    if (ingest_commit(in, err) != 0)
        return -1;
    new_session_state(in);
    if (pdb_session_begin(in->db, in->epoch, &h, &in->session, err) != 0)
        return -1;
    in->in_session = true;
    in->t.sessions++;
    in->t.ncores = h.ncores;
    in->t.baud = h.baud;
    return 0;
}

static int on_names(struct ingest *in, const struct lk_frame *f, struct ap_err *err)
{
    static const char *const kinds[] = {PDB_NAMES_EVENT, PDB_NAMES_PME_BIT, PDB_NAMES_PME_LAT};
    struct lk_names_hdr h;
    struct lk_reader r;
    struct lk_bytes b;
    int rc;
    if (lk_names_open(f, &h, &r) != LK_OK || h.kind > 2)
        return 1;
    for (uint32_t i = h.first; (rc = lk_names_next(&r, &b)) == 1; i++) {
        char name[LK_MAX_NAME + 1];
        memcpy(name, b.p, b.n);
        name[b.n] = 0;
        if (pdb_set_name(in->db, kinds[h.kind], i, name, err) != 0)
            return -1;
    }
    return rc == 0 ? 0 : 1;
}

static int on_epoch(struct ingest *in, const struct lk_frame *f, struct ap_err *err)
{
    struct lk_epoch e;
    if (lk_parse_epoch(f, &e) != LK_OK)
        return 1;
    /* everything before the marker belongs to the epoch that is ending */
    if (ingest_commit(in, err) != 0)
        return -1;
    /* The marker answers NEW_EPOCH N, N being the database's epoch id: if
     * the database is there already (the host started it), nothing to do;
     * otherwise start one now. */
    if (e.epoch != (uint64_t)in->epoch) {
        char note[64];
        snprintf(note, sizeof note, "epoch %" PRIu64 " of the board", e.epoch);
        if (pdb_new_epoch(in->db, note, &in->epoch, err) != 0)
            return -1;
    }
    return 0;
}

static int on_end(struct ingest *in, const struct lk_frame *f, struct ap_err *err)
{
    struct lk_end e;
    if (lk_parse_end(f, &e) != LK_OK)
        return 1;
    if (ingest_commit(in, err) != 0)
        return -1;
    in->t.ended++;
    in->t.exit_status = e.status;
    if (in->in_session && pdb_session_end(in->db, in->session, &e, err) != 0)
        return -1;
    in->in_session = false;
    return 0;
}

static int on_console(struct ingest *in, const struct lk_frame *f)
{
    struct lk_console c;
    if (lk_parse_console(f, &c) != LK_OK)
        return 1;
    if (in->opts.console && c.text.n) {
        fwrite(c.text.p, 1, c.text.n, in->opts.console);
        fflush(in->opts.console);
    }
    return 0;
}

/* Whether a (well-formed) FLUSH frame is the last core's of a round. */
static bool flush_is_last(const struct lk_frame *f, uint32_t ncores)
{
    struct lk_flush fl;
    if (lk_parse_flush(f, &fl) != LK_OK)
        return false;
    return ncores == 0 || fl.core + 1 >= ncores;
}

/* 0 handled, 1 malformed, -1 error. */
static int on_frame(struct ingest *in, const struct lk_frame *f, struct ap_err *err)
{
    switch (f->type) {
    case LK_T_HELLO: return on_hello(in, f, err);
    case LK_T_NAMES: return on_names(in, f, err);
    case LK_T_LOADMAP: return on_loadmap(in, f, err);
    case LK_T_SAMPLES: return on_samples(in, f);
    case LK_T_PME_AGG: return on_pme(in, f);
    case LK_T_PAIRS: return on_pairs(in, f);
    case LK_T_FLUSH: return on_flush(in, f);
    case LK_T_EPOCH: return on_epoch(in, f, err);
    case LK_T_END: return on_end(in, f, err);
    case LK_T_CONSOLE: return on_console(in, f);
    case LK_T_VALUES: return on_values(in, f);
    case LK_T_VALUE_STATS: return on_value_stats(in, f);
    case LK_T_CCT: return on_cct(in, f, err);
    case LK_T_PATHS: return on_paths(in, f, err);
    case LK_T_PATH_HASH: return on_path_hash(in, f, err);
    case LK_T_CCT_PATHS:
    case LK_T_CCT_PATHS_METERED: return on_cct_paths(in, f, err);
    case LK_T_ACK: return 0;
    default: return 1;          /* not a target-to-host frame */
    }
}

/* ---------------------------------------------------------------- commits */

/* The decoder's new counts since the last commit, as host drops and stats. */
static void record_link(struct ingest *in)
{
    const struct lk_dec_stats *s = &in->dec.st, *o = &in->dec_committed;
    int64_t e = in->epoch;
    pdb_add_drop(in->db, e, PDB_CORE_HOST, lk_host_drop_name(LK_HOST_DROP_LINK_BAD_FRAMES), s->frames_bad - o->frames_bad);
    /* sequence gaps are the ingest's own count: with acks, a gap is sent
     * again, not lost */
    pdb_add_drop(in->db, e, PDB_CORE_HOST, lk_host_drop_name(LK_HOST_DROP_LINK_LOST_FRAMES), in->t.lost_frames - in->recorded_lost);
    in->t.dropped_frames += (s->frames_bad - o->frames_bad) + (in->t.lost_frames - in->recorded_lost);
    in->recorded_lost = in->t.lost_frames;
    if (in->t.dup_frames != in->recorded_dups)
        pdb_add_stat(in->db, e, PDB_CORE_HOST, lk_host_stat_name(LK_HOST_STAT_LINK_DUP_FRAMES), in->t.dup_frames - in->recorded_dups);
    in->recorded_dups = in->t.dup_frames;
    if (in->t.gap_frames != in->recorded_gaps)
        pdb_add_stat(in->db, e, PDB_CORE_HOST, lk_host_stat_name(LK_HOST_STAT_LINK_FRAMES_RESENT), in->t.gap_frames - in->recorded_gaps);
    in->recorded_gaps = in->t.gap_frames;
    if (s->frames_ok != o->frames_ok || s->frames_bad != o->frames_bad) {
        pdb_add_stat(in->db, e, PDB_CORE_HOST, lk_host_stat_name(LK_HOST_STAT_LINK_FRAMES_OK), s->frames_ok - o->frames_ok);
        pdb_add_stat(in->db, e, PDB_CORE_HOST, lk_host_stat_name(LK_HOST_STAT_LINK_BYTES_OK), s->bytes_ok - o->bytes_ok);
        pdb_add_stat(in->db, e, PDB_CORE_HOST, lk_host_stat_name(LK_HOST_STAT_LINK_BYTES_BAD), s->bytes_bad - o->bytes_bad);
    }
    in->dec_committed = *s;
}

/* LINK_ACK: stored = everything committed, expected = the next to take.
 * Sent when the budget allows (invariant 7) or `force` (a session kept
 * alive); false when it was not sent. */
static bool send_link_ack(struct ingest *in, uint32_t flags, bool force)
{
    if (!in->opts.send_acks || in->t.sessions == 0 || in->opts.ack_fd < 0)
        return false;
    uint8_t raw[64], wire[96];
    struct lk_writer w;
    struct lk_link_ack a = {in->nonce, in->stored, in->expected, flags | (in->go_back_n ? LK_LACK_GO_BACK : 0),
                            link_reorder_sack(&in->reorder, in->expected)};
    if (lk_enc_link_ack(&w, raw, sizeof raw, &a) != LK_OK)
        return false;
    size_t n = lk_finish(&w, in->ack_seq, wire, sizeof wire);
    if (n == 0 || (!force && in->ack_credit < n)) {
        if (n && !in->ack_waiting)
            in->t.acks_deferred++;      /* once per LINK_ACK held back */
        in->ack_waiting = n != 0;
        return false;
    }
    in->ack_waiting = false;
    in->ack_seq++;
    in->ack_credit = in->ack_credit > n ? in->ack_credit - n : 0;
    in->acked_expected = in->expected;
    in->acked_stored = in->stored;
    /* non-blocking: a full socket drops this one; the next is cumulative */
    if (write(in->opts.ack_fd, wire, n) == (ssize_t)n) {
        in->t.acks_sent++;
        if (force)
            in->t.acks_forced++;
        else
            in->t.ack_bytes += n;
    }
    now_s(&in->last_ack);
    return true;
}

void ingest_set_ack_fd(struct ingest *in, int fd)
{
    in->opts.ack_fd = fd;
}

/* Due (invariant 7), when `expected` or `stored` moved since the last
 * LINK_ACK: at once when `expected` moved LK_ACK_FRAMES (the target sends
 * only LK_IN_FLIGHT_FRAMES ahead of it, link-protocol.h 5.2), else
 * LK_ACK_EVERY_MS after the last one; within the budget, except after
 * LK_ACK_IDLE_MS without one. */
void ingest_tick(struct ingest *in)
{
    /* frames that left nothing to merge (ACK...): a commit of the position */
    if (pdb_pending(in->db) == 0 && in->stored != in->expected) {
        struct ap_err err;
        ingest_commit(in, &err);        /* an error here comes back at the next commit */
    }
    double ms = since(&in->last_ack) * 1000;
    bool moved = in->acked_expected != in->expected || in->acked_stored != in->stored;
    if (!in->t.sessions)
        return;
    if (!moved) {
        if (ms >= LK_ACK_IDLE_MS)
            send_link_ack(in, 0, false);        /* "still here", paid from the budget */
        return;
    }
    if ((ms >= LK_ACK_EVERY_MS || (uint16_t)(in->expected - in->acked_expected) >= LK_ACK_FRAMES) &&
        !send_link_ack(in, 0, false) && ms >= LK_ACK_IDLE_MS)
        send_link_ack(in, 0, true);     /* over budget this long: the session's liveness first */
}

int ingest_commit(struct ingest *in, struct ap_err *err)
{
    record_link(in);
    if (in->t.sessions && in->pos != in->recorded_pos) {
        char name[48];      /* how far this session got: committed with its frames */
        link_position_name(name, sizeof name, in->nonce);
        pdb_add_stat(in->db, in->epoch, PDB_CORE_HOST, name, in->pos - in->recorded_pos);
        in->recorded_pos = in->pos;
    }
    if (pdb_commit(in->db, err) != 0)
        return -1;
    if (in->t.sessions && in->stored != in->expected) {
        in->stored = in->expected;
        send_link_ack(in, 0, false);    /* else ingest_tick sends it when due */
    }
    in->t.commits++;
    in->t.committed_samples = in->t.samples + in->t.pme_samples;
    now_s(&in->last_commit);
    /* `alphaprof db new-epoch` may have started one meanwhile */
    return pdb_current_epoch(in->db, &in->epoch, err);
}

static void status_line(struct ingest *in, bool final)
{
    if (!in->opts.status)
        return;
    double dt = since(&in->last_status);
    if (!final && dt < 1.0)
        return;
    const struct ingest_totals *t = &in->t, *o = &in->at_last_status;
    if (dt <= 0)
        dt = 1e-9;
    uint64_t hits = 0, misses = 0;
    for (int c = 0; c < MAX_CORE; c++) {
        hits += in->hash_hits[c];
        misses += in->hash_misses[c];
    }
    char link[48] = "";
    double bps = (double)(t->bytes - o->bytes) / dt;
    uint64_t baud = in->opts.baud ? in->opts.baud : t->baud;
    if (baud)
        snprintf(link, sizeof link, " (%.0f%% of %" PRIu64 " baud)", bps * 10 * 100 / (double)baud,
                 baud);
    char hit[32] = "-";
    if (hits + misses)
        snprintf(hit, sizeof hit, "%.1f%%", 100.0 * (double)hits / (double)(hits + misses));
    fprintf(in->opts.status,
            "\r%.0f samples/s  %.0f B/s%s  hash hits %s  drops %" PRIu64 "  bad frames %" PRIu64
            "  unknown %" PRIu64 "   %s",
            (double)(t->samples + t->pme_samples - o->samples - o->pme_samples) / dt, bps, link,
            hit, t->dropped, in->dec.st.frames_bad, t->unknown, final ? "\n" : "");
    fflush(in->opts.status);
    in->at_last_status = *t;
    now_s(&in->last_status);
}

enum order { TAKE, DUPLICATE, AHEAD, SKIP };

/* How far a host got in session `nonce` on this database (its committed
 * link_pos_NONCE stat): frames before that position are stored. */
static uint64_t link_position(struct ingest *in, uint64_t nonce)
{
    char name[48], sql[160];
    link_position_name(name, sizeof name, nonce);
    snprintf(sql, sizeof sql, "SELECT coalesce(sum(value), 0) FROM stats WHERE core = %d AND name = '%s'",
             PDB_CORE_HOST, name);
    int64_t v = 0;
    struct ap_err err;
    return pdb_query_int(in->db, sql, &v, &err) == 0 && v > 0 ? (uint64_t)v : 0;
}

static bool context_frame(const struct lk_frame *f)
{
    struct lk_flush fl;
    return f->type == LK_T_NAMES || f->type == LK_T_LOADMAP ||
           (f->type == LK_T_FLUSH && lk_parse_flush(f, &fl) == LK_OK && fl.base);
}

/* A frame taken in order that an earlier host stored already (5.5): its
 * samples count as arrived, its FLUSH values as the base; nothing else. */
static bool absorb_stored(struct ingest *in, const struct lk_frame *f)
{
    if (!in->prev_nonce || in->prev_stored <= in->prev_pos || f->type == LK_T_HELLO)
        return false;
    if (!in->resent_seen) {
        if (context_frame(f))
            return false;
        in->resent_seen = true;
        in->skip_until = in->pos - 1 + (in->prev_stored - in->prev_pos);
    }
    if (in->pos - 1 >= in->skip_until)
        return false;
    struct lk_reader r;
    if (f->type == LK_T_FLUSH) {
        struct lk_flush fl;
        if (lk_parse_flush(f, &fl) == LK_OK && core_ok(fl.core))
            take_base(in, &fl);
    } else if (f->type == LK_T_SAMPLES) {
        struct lk_samples_hdr h;
        uint64_t pc, n;
        if (lk_samples_open(f, &h, &r) == LK_OK && core_ok(h.core))
            while (lk_samples_next(&r, &pc, &n) == 1)
                in->got_samples[h.core] += n;
    } else if (f->type == LK_T_PME_AGG) {
        struct lk_pme_hdr h;
        struct lk_pme_agg a;
        if (lk_pme_open(f, &h, &r) == LK_OK && core_ok(h.core))
            while (lk_pme_next(&r, &a) == 1)
                in->got_pme[h.core] += a.samples;
    } else if (f->type == LK_T_PAIRS) {
        struct lk_pme_hdr h;
        if (lk_pairs_open(f, &h, &r) == LK_OK && core_ok(h.core))
            in->got_pairs[h.core] += h.count;
    } else if (f->type == LK_T_VALUES) {
        uint32_t core;
        struct lk_hotlist h;
        if (lk_values_open(f, &core, &r) == LK_OK && core_ok(core))
            while (lk_values_next(&r, &h) == 1)
                in->got_values[core] += h.offered;
    } else if (f->type == LK_T_VALUE_STATS) {       /* stored already: the base */
        struct lk_value_stats v;
        if (lk_parse_value_stats(f, &v) == LK_OK && core_ok(v.core)) {
            struct lk_value_stats base = v;
            for (uint32_t i = 0; i < LK_MAX_VALUE_STOPS; i++)
                base.stops[i] = (struct lk_counter){i, 0};
            for (uint32_t i = 0; i < v.nstops; i++)
                if (v.stops[i].id < LK_MAX_VALUE_STOPS)
                    base.stops[v.stops[i].id].value = v.stops[i].value;
            in->vstats[v.core] = base;
        }
    }
    return true;
}

static bool nonce_seen(const struct ingest *in, uint64_t nonce)
{
    for (size_t i = 0; i < in->nnonces; i++)
        if (in->nonces[i] == nonce)
            return true;
    return false;
}

/* Where a good frame stands in its link session (link-protocol.h 5.3, 5.4). */
static enum order in_order(struct ingest *in, const struct lk_frame *f)
{
    if (f->type == LK_T_HELLO) {
        struct lk_hello h;
        if (lk_parse_hello(f, &h) != LK_OK)
            return TAKE;                /* counted malformed by its handler */
        if (nonce_seen(in, h.nonce))
            return DUPLICATE;           /* a replay, of this session or an earlier one */
        if (in->opts.nonce && h.nonce != in->opts.nonce)
            return SKIP;                /* another host's session */
        if (in->nnonces < MAX_NONCES)
            in->nonces[in->nnonces++] = h.nonce;
        else
            in->nonces[h.nonce % MAX_NONCES] = h.nonce;
        in->nonce = h.nonce;
        in->expected = (uint16_t)(f->seq + 1);
        in->stored = f->seq;
        in->pos = in->recorded_pos = f->seq + 1u;
        in->prev_nonce = h.prev_nonce;
        in->prev_pos = h.prev_pos;
        in->prev_stored = h.prev_nonce ? link_position(in, h.prev_nonce) : 0;
        in->resent_seen = false;
        in->skip_until = 0;
        link_reorder_clear(&in->reorder);
        return TAKE;
    }
    if (in->t.sessions == 0)
        return in->opts.skip_until_hello || in->opts.nonce ? SKIP : TAKE;
    uint16_t ahead = (uint16_t)(f->seq - in->expected);
    if (ahead == 0) {
        in->expected++;
        in->pos++;
        return TAKE;
    }
    if (ahead >= 32768)
        return DUPLICATE;
    if (in->opts.send_acks)
        return AHEAD;
    in->t.lost_frames += ahead;         /* one-way: nobody can send it again */
    in->expected = (uint16_t)(f->seq + 1);
    in->pos += ahead + 1u;
    return TAKE;
}

/* The frames after `expected` missing below the highest one held (bit i:
 * expected + 1 + i), as a sack bitmap shows them. */
static uint32_t holes_of(uint32_t sack)
{
    uint32_t below = 0;
    for (uint32_t top = sack; top; top >>= 1)
        below = below << 1 | 1;
    return ~sack & (below >> 1);
}

/* A gap: ask the target for what the host lacks (link-protocol.h 5.3): at
 * once when `expected` moved or a new hole shows, else once per LK_NAK_MS. */
static void ask_again(struct ingest *in)
{
    uint32_t holes = holes_of(link_reorder_sack(&in->reorder, in->expected));
    if (in->nak_for == in->expected && !(holes & ~in->nak_holes) &&
        since(&in->last_nak) * 1000 < LK_NAK_MS)
        return;
    if (!send_link_ack(in, LK_LACK_RESEND, false))
        return;                         /* over budget: asked at the next frame ahead */
    in->nak_for = in->expected;
    in->nak_holes = holes;
    now_s(&in->last_nak);
    in->t.resend_requests++;
}

/* A PART of frame `expected` (invariant 6): 1 with *whole set when its
 * last piece came, 0 while pieces are missing, -1 when it is no piece of
 * `expected` (ordered like any frame). */
static int take_part(struct ingest *in, const struct lk_frame *f, struct lk_frame *whole)
{
    struct lk_part p;
    if (in->t.sessions == 0 || f->seq != in->expected || lk_parse_part(f, &p) != LK_OK)
        return -1;
    if (!in->part.active || in->part.nonce != in->nonce || in->part.seq != f->seq ||
        in->part.total != p.total) {
        in->part.active = true;
        in->part.nonce = in->nonce;
        in->part.seq = f->seq;
        in->part.total = p.total;
        in->part.have = 0;
        memset(in->part.got, 0, sizeof in->part.got);
    }
    for (size_t i = 0; i < p.bytes.n; i++) {
        uint32_t at = p.offset + (uint32_t)i;
        if (!in->part.got[at]) {
            in->part.got[at] = true;
            in->part.raw[at] = p.bytes.p[i];
            in->part.have++;
        }
    }
    in->t.parts++;
    if (in->part.have < in->part.total)
        return 0;
    in->part.active = false;
    if (lk_frame_of_raw(in->part.raw, in->part.total, whole) != LK_OK || whole->type == LK_T_PART)
        return -1;                      /* taken as a malformed frame below */
    whole->seq = f->seq;
    return 1;
}

/* A frame in its session's order (TAKE) or outside any session (SKIP):
 * to the handlers and the database.  -1 on a database error. */
static int take_frame(struct ingest *in, const struct lk_frame *f, enum order o, struct ap_err *err)
{
    if (in->opts.frame_hook) {
        in->t.link = in->dec.st;
        in->opts.frame_hook(in->opts.hook_ctx, f);
    }
    if (o == SKIP) {
        in->t.skipped++;
        return 0;
    }
    if (absorb_stored(in, f)) {
        in->t.dup_frames++;
        in->t.already_stored++;
        return 0;
    }
    int rc = on_frame(in, f, err);
    if (rc < 0)
        return -1;
    if (rc > 0) {
        in->t.malformed++;
        pdb_add_drop(in->db, in->epoch, PDB_CORE_HOST, lk_host_drop_name(LK_HOST_DROP_LINK_MALFORMED), 1);
        in->t.dropped_frames++;
    }
    if (pdb_pending(in->db) >= PENDING_LIMIT && ingest_commit(in, err) != 0)
        return -1;
    /* a daemon commits whole flushes: after the last core's FLUSH */
    if (in->opts.commit_on_flush && f->type == LK_T_FLUSH && rc == 0 &&
        flush_is_last(f, in->t.ncores) && ingest_commit(in, err) != 0)
        return -1;
    return 0;
}

int ingest_feed(struct ingest *in, const uint8_t *buf, size_t n, struct ap_err *err)
{
    in->t.bytes += n;
    in->ack_earning += n;               /* a paced link may come a byte at a time */
    in->ack_credit += in->ack_earning / LK_ACK_BYTES_SHARE;
    in->ack_earning %= LK_ACK_BYTES_SHARE;
    if (in->ack_credit > LK_ACK_CREDIT_MAX)
        in->ack_credit = LK_ACK_CREDIT_MAX;
    while (n > 0) {
        size_t used;
        struct lk_frame f;
        int got = lk_dec_push(&in->dec, buf, n, &used, &f);
        buf += used;
        n -= used;
        if (!got)
            break;
        in->t.frames++;
        if (f.type == LK_T_PART) {
            struct lk_frame whole;
            int got_all = take_part(in, &f, &whole);
            if (got_all == 0)
                continue;
            if (got_all == 1) {
                f = whole;
            } else if (in->t.sessions && f.seq == in->expected) {
                /* a piece of `expected` that makes no frame: not taken for it */
                in->t.malformed++;
                pdb_add_drop(in->db, in->epoch, PDB_CORE_HOST, lk_host_drop_name(LK_HOST_DROP_LINK_MALFORMED), 1);
                in->t.dropped_frames++;
                continue;
            }
        }
        enum order o = in_order(in, &f);
        if (o == DUPLICATE) {
            in->t.dup_frames++;
            /* the target resent (its retransmit time): tell it where we are */
            if (in->opts.send_acks && since(&in->last_ack) * 1000 >= LK_NAK_MS)
                send_link_ack(in, 0, false);
            continue;
        }
        if (o == AHEAD) {
            enum link_reorder_put held = in->go_back_n ? LINK_REORDER_BEYOND
                                                       : link_reorder_put(&in->reorder, in->expected, &f);
            if (held == LINK_REORDER_DUPLICATE) {
                in->t.dup_frames++;
                continue;
            }
            in->t.gap_frames++;
            if (held == LINK_REORDER_HELD)
                in->t.held_frames++;
            ask_again(in);
            continue;
        }
        if (take_frame(in, &f, o, err) != 0)
            return -1;
        /* the frames held behind it, now in order (invariant 8) */
        struct lk_frame next;
        while (o == TAKE && in->t.sessions && link_reorder_take(&in->reorder, in->expected, &next)) {
            in->expected++;
            in->pos++;
            if (take_frame(in, &next, TAKE, err) != 0)
                return -1;
        }
    }
    in->t.link = in->dec.st;
    if (!in->opts.commit_on_flush && since(&in->last_commit) * 1000 >= in->opts.commit_ms &&
        ingest_commit(in, err) != 0)
        return -1;
    ingest_tick(in);
    status_line(in, false);
    return 0;
}

int ingest_finish(struct ingest *in, struct ap_err *err)
{
    lk_dec_end(&in->dec);
    in->t.link = in->dec.st;
    int rc = ingest_commit(in, err);
    status_line(in, true);
    return rc;
}

int ingest_fd(struct ingest *in, int fd, volatile int *stop, struct ap_err *err)
{
    static uint8_t buf[1 << 16];
    for (;;) {
        if (stop && *stop)
            break;
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, (int)in->opts.commit_ms);
        if (r < 0 && errno != EINTR)
            return ap_err_set(err, "waiting for the link: %s", strerror(errno));
        if (r <= 0) {
            /* idle: commit what is pending, keep the status line alive */
            if (pdb_pending(in->db) && ingest_commit(in, err) != 0)
                return -1;
            ingest_tick(in);
            status_line(in, false);
            continue;
        }
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0)
            return ap_err_set(err, "reading the link: %s", strerror(errno));
        if (n == 0)
            break;
        if (ingest_feed(in, buf, (size_t)n, err) != 0)
            return -1;
    }
    return ingest_finish(in, err);
}

int ingest_open_source(const char *spec, struct ap_err *err)
{
    if (strcmp(spec, "-") == 0)
        return dup(0);
    if (strncmp(spec, "unix:", 5) == 0) {
        const char *path = spec + 5;
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        if (strlen(path) >= sizeof a.sun_path)
            return ap_err_set(err, "link socket path too long: %s", path);
        strcpy(a.sun_path, path);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return ap_err_set(err, "link socket: %s", strerror(errno));
        if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
            int e = errno;
            close(fd);
            return ap_err_set(err, "cannot connect to the link socket %s: %s (is the board "
                              "running with its serial link on that socket?)", path, strerror(e));
        }
        return fd;
    }
    int fd = open(spec, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ap_err_set(err, "cannot open link stream %s: %s (give a file, a FIFO, "
                          "unix:SOCKET or - for standard input)", spec, strerror(errno));
    return fd;
}
