/*
 * Binary rewriting of sealed workload images (alphaprof instrument): an
 * instrumented copy whose original procedures keep their addresses, with
 * every standard call patched to branch to a trampoline in a new load
 * segment placed after the image's bss (the run-time protocol and the
 * region it writes are firmware/abi/cct-region.h).
 *
 * Invariants
 *  1. The input file is only read; the output is written to a temporary
 *     file beside it and renamed, so a failed run leaves no half image.
 *  2. Only instructions that are standard calls (bsr/jsr through $26,
 *     firmware/abi/cct-region.h note 2; --cct), or, with --paths, block
 *     ends whose Ball-Larus edge action does something and one instruction
 *     at each instrumented entry with a path register (firmware/abi/
 *     path-region.h), change, each into one `br` (a conditional branch
 *     whose taken edge alone acts: the same branch, to its trampoline); all other bytes of the loaded image stay where and
 *     what they were.  --paths lists every replaced word in the image's
 *     patch table, so the original can be numbered from the copy.
 *     --both does both at once (cct-region.h notes 10-14): a call whose
 *     call edge acts is patched once, to a path trampoline that goes on
 *     to the call's CCT trampoline; the patch table lists the calls too.
 *  3. The output is a sealed image (new build-id, both CRCs), with the
 *     trampoline segment inside [load_base, load_base + load_size) and a
 *     symbol of its own, INSTRUMENT_SYMBOL, so samples in it are named.
 *  4. An image already instrumented, without the run-time slow path, or
 *     whose trampolines would be out of branch reach is refused with one
 *     line saying why.
 *  5. The runtime's code (cct-region.h note 15: __alphaprof_cct_* and
 *     every procedure it branches into) is left as it is in every mode:
 *     no call patched, no path numbered, not in the path plan.
 */
#ifndef ALPHAPROF_UTIL_INSTRUMENT_H
#define ALPHAPROF_UTIL_INSTRUMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "firmware/abi/path-region.h"
#include "util/error.h"

#define INSTRUMENT_SECTION  ".alphaprof_instr"
#define INSTRUMENT_SYMBOL   "[instrumentation]"
#define INSTRUMENT_LOOKUP   "__alphaprof_cct_lookup"
#define INSTRUMENT_RUNTIME_PREFIX "__alphaprof_cct"     /* and what it branches to (instrument_runtime_entries) */

struct instrument_stats {
    unsigned procs;             /* procedures in the table */
    unsigned sites;             /* call sites instrumented */
    unsigned skipped_sites;     /* standard-looking calls left alone (a scratch register as target) */
    uint64_t region_addr;       /* the trampoline segment */
    uint64_t region_size;
};

/* Writes the CCT-instrumented copy of the sealed image `in` to `out`:
 * call counts per context, and with `metrics` each context's inclusive
 * cycles and retired instructions too (cct-region.h note 9). */
int instrument_cct(const char *in, const char *out, bool metrics, struct instrument_stats *st,
                   struct ap_err *err);

/* Whether a sealed image carries INSTRUMENT_SECTION (0 no, 1 yes, -1 error). */
int instrument_is_instrumented(const char *path, struct ap_err *err);

/* An instrumented image's site table (firmware/abi/cct-region.h): for each
 * trampoline, the PC of its call and the original call site, sorted by the
 * first; *lo..*hi is the trampoline segment.  An image that is not
 * instrumented gives n = 0. */
struct instrument_site_map {
    uint64_t call, site;
};
int instrument_site_table(const char *path, struct instrument_site_map **map, size_t *n, uint64_t *lo,
                          uint64_t *hi, struct ap_err *err);

/* --paths (firmware/abi/path-region.h): Ball-Larus path counters. */
struct instrument_path_stats {
    unsigned procs;             /* procedures instrumented */
    unsigned leaf_procs;        /* of them, with the path register in a register of their own */
    unsigned saved_procs;       /* ... in a callee-saved register they never name */
    unsigned constant_procs;    /* ... none: one known path number per exit */
    unsigned frame_procs;       /* of the others, keeping the caller's or their own path register in
                                 * their stack frame (path-region.h note 11) */
    unsigned loop_regs;         /* backedge paths counted in a register (path-region.h note 9) */
    unsigned iv_loops;          /* loops counted by an induction variable (path-region.h note 10) */
    unsigned held_procs;        /* holding registers for their trampolines (path-region.h note 16) */
    unsigned metered_iv_loops;  /* of iv_loops, metered by their first and last readings (note 17) */
    unsigned borrowing_loops, borrowed_regs;    /* of those, borrowing registers live at their entry */
    unsigned context_procs;     /* --both: of them, counted per calling context */
    unsigned hashed_procs;      /* of them, too many paths for an array: counted in the core's hash table
                                 * (path-region.h note 14), counts only */
    uint64_t hash_slots;        /* that table's slots per core (0: none) */
    unsigned skipped[PATH_SKIP_COUNT];  /* procedures with paths left alone, by enum path_skip */
    uint64_t patched;           /* instructions patched */
    uint64_t counters;          /* per core */
    uint64_t region_addr, region_size;
};
/* event: -1 counts only; else per path cycles and that event (enum
 * pmu_event, not cycles) read at its start and end (path-region.h note 5).
 * hash_slots: the most slots of the hash table a procedure with too many
 * paths for an array counts in (path-region.h note 14; a power of two,
 * PATH_HASH_WAYS to PATH_HASH_MAX_SLOTS), 0 to leave such procedures
 * alone. */
#define INSTRUMENT_HASH_SLOTS PATH_HASH_MAX_SLOTS
#define INSTRUMENT_HOLD_REGS 3         /* registers a procedure may hold for its trampolines (path-region.h note 16) */
int instrument_paths(const char *in, const char *out, int event, uint64_t hash_slots,
                     struct instrument_path_stats *st, struct ap_err *err);

/* --both (cct-region.h notes 10-14): call counts per calling context (as
 * --cct without metrics) and every procedure's Ball-Larus path counts in
 * the call record of the context it ran in; event as instrument_paths'
 * (>= 0: each path's cycles and that event too, note 15); hash_slots as
 * instrument_paths', for counts only: a procedure with too many paths for
 * an array counts in the hash table, keyed by its context (path-region.h
 * note 15); with event >= 0 such procedures are left alone.  ctx_paths:
 * a procedure with more paths counts them context-free only (0: the
 * default, CCT_BOTH_MAX_CTX_PATHS, or CCT_BOTH_MAX_CTX_METERED with
 * metrics; cct-region.h note 12): fewer make records smaller, for a tree
 * whose records would not fit the region. */
int instrument_both(const char *in, const char *out, int event, uint64_t hash_slots, uint64_t ctx_paths,
                    struct instrument_stats *st, struct instrument_path_stats *ps, struct ap_err *err);

/* An image instrumented with --paths or --both: its path table (path-region.h), one
 * entry per function symbol; an image not instrumented gives n = 0, one
 * instrumented otherwise an error. */
struct path_table_proc;
int instrument_path_table(const char *path, struct path_table_proc **procs, size_t *n, struct ap_err *err);

/* Whether the image at path was instrumented with --metrics (--cct,
 * --paths or --both): its trampolines read the PMU user page, which only a
 * board with the hardware model has.  Not an image, or not instrumented:
 * false. */
bool instrument_metered(const char *path);

/* Its patch table: every replaced instruction with its original word,
 * sorted by pc; none (n = 0) for an image not instrumented for paths. */
struct path_patch {
    uint64_t pc;
    uint64_t word;              /* the original instruction (low 32 bits) */
};
int instrument_path_patches(const char *path, struct path_patch **patches, size_t *n, struct ap_err *err);

/* The entries of the runtime's procedures in the image at path, ascending:
 * the __alphaprof_cct_* ones and every procedure their code branches into
 * (cct-region.h note 15).  Never instrumented, never in the path plan. */
int instrument_runtime_entries(const char *path, uint64_t **entries, size_t *n, struct ap_err *err);

#endif
