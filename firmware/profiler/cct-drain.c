/*
 * CCT frames from the per-core calling-context-tree regions.
 *
 * Notes
 *  1. Runs on the boot core in profiler_finish, after every core stopped:
 *     the regions no longer change.  An image that was not instrumented
 *     never set a region's magic (the loader zeroes them before the run),
 *     so nothing is sent for it.
 *  2. Records lie one after another in creation order (cct-region.h), so
 *     a walk by record size visits ids 0, 1, 2 ...; a frame carries
 *     consecutive ids and says the first.  The region is the workload's:
 *     a record whose size or parent does not fit the region ends the walk
 *     (the host then finds fewer records than `total` and counts them
 *     missing) instead of reading outside it.
 *  3. Waiting for room is bounded by FINISH_NS of virtual time, as value
 *     sampling's final send (value-sampling.c note 6).
 *  4. A region whose magic is path-region.h's (an image instrumented with
 *     --paths) is sent as PATHS frames instead: its nonzero counters by
 *     index, in increasing order, with the core's loss counts in every
 *     frame's head.  A metered region (magic PATH_MAGIC32_METERED,
 *     path-region.h note 5) has 32-byte slots, each counter sent with its
 *     cycles and event.  The loader sets a --paths image's magic in every
 *     core's region (path-region.h notes 5 and 8), so a region where
 *     nothing was counted (a core that ran no instrumented procedure) is
 *     not sent, as if its magic had never been set.
 *  5. A tree without metrics (cct-region.h note 9) is sent with the
 *     frames' `metrics` 0: its records' cycles and retired, never written,
 *     are not sent.  Its slots' calls are added to their records first
 *     (a slot whose record is out of the region keeps them: the host
 *     then finds the counts short against the truth, never made up), and
 *     with metrics the slots' leaf-call cycles and retired too
 *     (cct-region.h note 3a).
 *  6. A --both core (magic CCT_MAGIC_BOTH, cct-region.h notes 10-14):
 *     the tree as in 2 (records walked by their whole size, path
 *     counters included), then every record's nonzero path counters as
 *     CCT_PATHS frames (record id, path, count; by record, then path),
 *     then its path region's context-free counters as in 4.  A core whose
 *     path region's magic is set but that made no call (no record: its
 *     magic unset) sends those alone, when it counted any: the loader
 *     sets every core's path region magic before a --both image runs
 *     (cct-region.h note 17), so an untouched one is not sent, as in 4.  With --both --metrics (cct-region.h
 *     note 16) the path region is metered (its magic says so) and the
 *     records' counters lie 32 bytes apart (npaths in 8-byte words);
 *     each record's nonzero counters then go with their cycles and event
 *     as CCT_PATHS_METERED frames instead of CCT_PATHS (link-protocol.h
 *     section 3), in the same order.
 *  7. Hashed paths (path-region.h note 14): a --paths region whose core
 *     claimed a hash table slot says where the table is (hash_at,
 *     hash_slots); its array counters are those below hash_at, and after
 *     its PATHS frames its nonzero slots go as PATH_HASH frames (the key
 *     split back into the procedure's hashed ordinal and its path
 *     number), in table order.  A table that does not lie inside the
 *     counters' space is not read (the console line says so).
 *  8. Hashed paths per context (path-region.h note 15): a --both path
 *     region's table is read as 7 says (within the region: an image that
 *     calls no setjmp may put it over the sp stack), its keys split into ordinal, context and
 *     number: those with no context go as PATH_HASH frames, then those
 *     with one as CCT_PATHS frames (record = context - 1, the procedure's
 *     path number; after the records' own, in table order).
 */
#include "firmware/profiler/cct-drain.h"

#include <stdbool.h>

#include "firmware/abi/cct-region.h"
#include "firmware/abi/link-codec.h"
#include "firmware/abi/path-region.h"
#include "firmware/drivers/alarm.h"
#include "firmware/kernel/console.h"
#include "firmware/profiler/link-tx.h"
#include "linker/ram-map.h"

#define FINISH_NS 2000000000ull

static uint8_t frame_buf[LK_MAX_RAW];

static void *kseg(uint64_t pa) { return (void *)(KSEG_BASE + pa); }

/* The record at user address va of core region [lo, hi), or NULL. */
static const struct cct_record *record_at(uint64_t va, uint64_t lo, uint64_t hi)
{
    if (va < lo || va + CCT_RECORD_HEADER > hi || va % 8)
        return 0;
    const struct cct_record *r = kseg(va);
    if (va + cct_record_total(r->nslots, r->npaths) > hi)
        return 0;
    return r;
}

/* Queues the writer's frame, pumping the link until there is room or the
 * deadline passed; 0 if it could not be sent. */
static int send_waiting(struct lk_writer *w, uint64_t deadline)
{
    while (!link_tx_send(w)) {
        if (clock_ns() >= deadline)
            return 0;
        link_tx_pump();
    }
    return 1;
}

/* The core's hash table (notes 7, 8), or NULL (none, or not where one can be). */
static const struct path_hash_slot *hash_table(const struct path_core *s, bool both, uint64_t *n)
{
    uint64_t at = s->hash_at, slots = s->hash_slots;
    if (!slots || slots > PATH_HASH_MAX_SLOTS || at < PATH_COUNTERS_OFFSET || at % 128 ||
        at + PATH_HASH_SLOT_SIZE * PATH_HASH_TABLE_SLOTS(slots) > (both ? CCT_BOTH_PATHS_SIZE : PATH_STACK5_OFFSET))
        return 0;
    *n = PATH_HASH_TABLE_SLOTS(slots);
    return (const struct path_hash_slot *)((const uint8_t *)s + at);
}

/* Whether slot x goes in this pass (note 8: a --both table's keys
 * without a context first, then those with one), and its entry. */
static bool hash_entry(const struct path_hash_slot *x, bool both, bool ctx, struct lk_hash_path *e, uint64_t *rec)
{
    if (!x->key)
        return false;
    uint64_t k = 0;
    uint32_t id = (uint32_t)(x->key & 255) - 1;
    uint64_t path = x->key >> 8;
    if (both)
        path_hash_ctx_split(x->key, &id, &k, &path);
    if ((k != 0) != ctx)
        return false;
    *e = (struct lk_hash_path){.proc = id, .path = path, .count = x->count};
    *rec = k - 1;
    return true;
}

/* The hash table's nonzero slots as PATH_HASH frames (note 7), or with a
 * context as CCT_PATHS ones (note 8). */
static void drain_hash(unsigned c, const struct path_core *s, bool both, uint64_t deadline)
{
    uint64_t n = 0, sent = 0, unsent = 0;
    const struct path_hash_slot *t = hash_table(s, both, &n);
    if (!t) {
        if (s->hash_slots)
            mon_printf("monitor: hashed paths: core %u: a hash table at %lu of %lu slots is not inside the region; "
                       "not sent\n", c, (unsigned long)s->hash_at, (unsigned long)s->hash_slots);
        return;
    }
    for (int ctx = 0; ctx <= (int)both; ctx++) {
        uint64_t i = 0;
        while (i < n) {
            struct lk_writer w;
            if (ctx)
                lk_cct_paths_begin(&w, frame_buf, link_tx_data_frame(), c);
            else
                lk_path_hash_begin(&w, frame_buf, link_tx_data_frame(), c);
            unsigned k = 0;
            struct lk_hash_path e;
            uint64_t rec;
            for (; i < n; i++) {
                if (!hash_entry(&t[i], both, ctx, &e, &rec))
                    continue;
                struct lk_ctx_path x = {.record = rec, .path = e.path, .count = e.count};
                if ((ctx ? lk_cct_paths_add(&w, &x) : lk_path_hash_add(&w, &e)) != LK_OK)
                    break;
                k++;
            }
            if (!k)
                break;
            if (!send_waiting(&w, deadline)) {
                for (; i < n; i++)
                    unsent += hash_entry(&t[i], both, ctx, &e, &rec);
                unsent += k;
                break;
            }
            sent += k;
        }
    }
    mon_printf("monitor: hashed paths: core %u: %lu path counts sent, %lu not (no room on the link)\n", c,
               (unsigned long)sent, (unsigned long)unsent);
}

/* own: a region whose magic the loader set (note 4): not sent when
 * nothing was counted in it; --both's beside its tree is sent as it is.
 * both: a --both path region (its table's bounds and keys, note 8). */
static void drain_paths(unsigned c, const struct path_core *s, bool metered, bool own, bool both, uint64_t max,
                        uint64_t deadline)
{
    uint64_t nhash = 0;
    if (hash_table(s, both, &nhash))     /* the array counters lie below the table (note 7) */
        max = (s->hash_at - PATH_COUNTERS_OFFSET) / (metered ? PATH_METERED_SIZE : 8);
    const uint64_t *counter = (const uint64_t *)((const uint8_t *)s + PATH_COUNTERS_OFFSET);
    const struct path_metered *slot = (const struct path_metered *)counter;
    struct lk_paths_head h = {.core = c, .lost_paths = s->lost_paths, .unmatched_exits = s->unmatched_exits,
                              .bad_paths = s->bad_paths, .metered = metered, .unmetered = s->unmetered};
    uint64_t i = 0, sent = 0, unsent = 0;
    bool any = false;
    if (own && !s->depth && !s->excess && !s->lost_paths && !s->unmatched_exits && !s->bad_paths &&
        !s->unmetered && !s->hash_slots) {
        while (i < max && !(metered ? slot[i].count : counter[i]))
            i++;
        if (i == max)
            return;             /* untouched: its magic is the loader's (note 4) */
        i = 0;
    }
    while (i < max || !any) {
        struct lk_writer w;
        h.first = i;
        lk_paths_begin(&w, frame_buf, link_tx_data_frame(), &h);
        unsigned n = 0;
        for (; i < max; i++) {
            struct lk_path_count e = {.index = i};
            if (metered) {
                e.count = slot[i].count;
                e.cycles = slot[i].cycles;
                e.event = slot[i].event;
            } else {
                e.count = counter[i];
            }
            if (!e.count)
                continue;
            if (lk_paths_add(&w, &e) != LK_OK)
                break;
            n++;
        }
        any = true;
        if (!send_waiting(&w, deadline)) {
            for (; i < max; i++)
                unsent += (metered ? slot[i].count : counter[i]) != 0;
            unsent += n;
            break;
        }
        sent += n;
    }
    mon_printf("monitor: paths: core %u: %lu path counters sent, %lu not (no room on the link), %lu paths "
               "lost (register stack full or no hash slot), %lu unmatched exits, %lu bad path numbers\n", c,
               (unsigned long)sent, (unsigned long)unsent, (unsigned long)s->lost_paths,
               (unsigned long)s->unmatched_exits, (unsigned long)s->bad_paths);
    drain_hash(c, s, both, deadline);
}

/* Adds every slot's calls (cct-region.h note 9) and leaf metrics (note
 * 3a) to the record it points at, walking the records as the send does. */
static void add_slot_calls(const struct cct_core *s, uint64_t lo, uint64_t hi)
{
    uint64_t va = lo;
    struct cct_record *r;
    for (uint64_t id = 0; id < s->nrecords && (r = (struct cct_record *)record_at(va, lo, hi)) != 0 && r->id == id;
         id++) {
        struct cct_slot *sl = (struct cct_slot *)((uint8_t *)r + CCT_REC_SLOTS);
        for (uint32_t k = 0; k < r->nslots; k++) {
            bool any = sl[k].calls >> 1 || sl[k].cycles || sl[k].retired;
            struct cct_record *t = any ? (struct cct_record *)record_at(sl[k].rec, lo, hi) : 0;
            if (t)
                cct_slot_fold(&sl[k], t);
        }
        va += cct_record_total(r->nslots, r->npaths);
    }
}

/* Every record's nonzero path counters as CCT_PATHS frames, or with
 * their metrics as CCT_PATHS_METERED ones (note 6). */
static void drain_context_paths(unsigned c, const struct cct_core *s, bool metered, uint64_t lo, uint64_t hi, uint64_t deadline)
{
    uint64_t va = lo, id = 0, sent = 0, unsent = 0;
    const struct cct_record *r = 0;
    uint32_t k = 0;
    bool more = true;
    while (more) {
        struct lk_writer w;
        if (metered)
            lk_cct_paths_metered_begin(&w, frame_buf, link_tx_data_frame(), c);
        else
            lk_cct_paths_begin(&w, frame_buf, link_tx_data_frame(), c);
        unsigned n = 0;
        bool full = false;
        while (!full) {
            uint32_t words = metered ? PATH_METERED_SIZE / 8 : 1;     /* cct-region.h note 16 */
            if (!r || k >= r->npaths / words) {
                if (r) {
                    va += cct_record_total(r->nslots, r->npaths);
                    id++;
                }
                r = id < s->nrecords ? record_at(va, lo, hi) : 0;
                k = 0;
                if (!r || r->id != id) {
                    more = false;
                    break;
                }
                continue;
            }
            /* a path's counter is its slot's first word, 8 or 32 bytes apart (cct-region.h note 16) */
            const uint8_t *at = (const uint8_t *)r + cct_record_size(r->nslots) +
                                (uint64_t)k * 8 * words;
            uint64_t cnt = *(const uint64_t *)at;
            if (cnt) {
                struct lk_ctx_path e = {.record = id, .path = k, .count = cnt};
                if (metered) {
                    const struct path_metered *slot = (const struct path_metered *)at;
                    e.cycles = slot->cycles;
                    e.event = slot->event;
                }
                if (lk_cct_paths_add(&w, &e) != LK_OK) {
                    full = true;
                    break;
                }
                n++;
            }
            k++;
        }
        if (n == 0)
            break;
        if (!send_waiting(&w, deadline)) {
            unsent += n;
            break;
        }
        sent += n;
    }
    mon_printf("monitor: cct paths: core %u: %lu context path counters sent, %lu not (no room on the link)\n", c,
               (unsigned long)sent, (unsigned long)unsent);
}

static void drain_core(unsigned c, uint64_t deadline)
{
    uint64_t base = CCT_PHYS + (uint64_t)c * CCT_PER_CORE;
    const struct cct_core *s = kseg(base);
    const struct path_core *ps = kseg(base);
    if (ps->magic == PATH_MAGIC32(base) || ps->magic == PATH_MAGIC32_METERED(base)) {
        bool metered = ps->magic == PATH_MAGIC32_METERED(base);
        drain_paths(c, ps, metered, true, false, metered ? PATH_MAX_METERED : PATH_MAX_COUNTERS, deadline);
        return;
    }
    uint64_t pbase = base + CCT_BOTH_PATHS_OFFSET;     /* --both (note 6) */
    const struct path_core *bps = kseg(pbase);
    bool both = s->magic == CCT_MAGIC_BOTH;
    bool bmetered = bps->magic == PATH_MAGIC32_METERED(pbase);     /* --both --metrics (cct-region.h note 16) */
    uint64_t bmax = bmetered ? PATH_BOTH_MAX_METERED : PATH_BOTH_MAX_COUNTERS;
    if (!both && (bps->magic == PATH_MAGIC32(pbase) || bmetered) && s->magic != CCT_MAGIC) {
        /* (its magic is the loader's, cct-region.h note 17: untouched, nothing is sent) */
        drain_paths(c, bps, bmetered, true, true, bmax, deadline);
        return;
    }
    if (s->magic != CCT_MAGIC && !both)
        return;
    uint64_t end = base + (both ? CCT_BOTH_PATHS_OFFSET : CCT_PER_CORE);
    uint64_t lo = base + CCT_RECORDS_OFFSET, hi = s->alloc;
    if (hi > end)
        hi = end;
    add_slot_calls(s, lo, hi);
    struct lk_cct_head h = {.core = c, .total = s->nrecords, .skipped_calls = s->skipped_calls,
                            .overflow_calls = s->overflow_calls, .metrics = (s->flags & CCT_METRICS) != 0};
    uint64_t va = lo, id = 0, sent = 0;
    while (id < s->nrecords) {
        struct lk_writer w;
        h.first = id;
        lk_cct_begin(&w, frame_buf, link_tx_data_frame(), &h);
        unsigned n = 0;
        const struct cct_record *r;
        while (id < s->nrecords && (r = record_at(va, lo, hi)) != 0 && r->id == id) {
            const struct cct_record *p = r->parent ? record_at(r->parent, lo, hi) : r;
            if (!p)
                break;
            struct lk_cct_record e = {.parent = p->id, .callee = r->callee, .site = r->site,
                                      .calls = r->calls, .cycles = r->cycles, .retired = r->retired};
            if (lk_cct_add(&w, &e) != LK_OK)
                break;
            n++;
            id++;
            va += cct_record_total(r->nslots, r->npaths);
        }
        if (n == 0 || !send_waiting(&w, deadline))
            break;
        sent += n;
    }
    mon_printf("monitor: cct: core %u: %lu of %lu call records sent, %lu calls skipped (stack full), "
               "%lu on the overflow record\n", c, (unsigned long)sent, (unsigned long)s->nrecords,
               (unsigned long)s->skipped_calls, (unsigned long)s->overflow_calls);
    if (both) {
        drain_context_paths(c, s, bmetered, lo, hi, deadline);
        drain_paths(c, bps, bmetered, false, true, bmax, deadline);
    }
}

void cct_drain(unsigned ncores)
{
    uint64_t deadline = clock_ns() + FINISH_NS;
    for (unsigned c = 0; c < ncores && c < MAX_CORES; c++)
        drain_core(c, deadline);
}
