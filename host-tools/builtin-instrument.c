/*
 * alphaprof instrument: an instrumented copy of a sealed workload image
 * (util/instrument.c; what the copy does at run time is
 * firmware/abi/cct-region.h for --cct, firmware/abi/path-region.h for
 * --paths, both at once with --both: paths per calling context, with
 * --metrics each path's cycles and one event too, cct-region.h note 16).
 *
 * Invariants: the input image is never written; the output is complete and
 * sealed or not there.  Exit status: 0 written, 1 the image could not be
 * instrumented (one line why), 2 bad options.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "firmware/abi/event-spec.h"
#include "util/instrument.h"
#include "util/options.h"
#include "util/regular-file.h"

static const struct opt_command instrument_command = {
    .name = "instrument",
    .synopsis = "--cct [--metrics] | --paths|--both [--metrics [--event E]] IMAGE.elf -o OUT.elf",
    .about = "Writes an instrumented copy of the sealed workload image IMAGE.elf to\n"
             "OUT.elf.  --cct builds a calling context tree at run time: every call\n"
             "goes through a trampoline that counts it per calling context (call\n"
             "sites distinguished, recursion folded); with --metrics also each\n"
             "context's inclusive modelled cycles and retired instructions, read from\n"
             "the PMU page at the call and its return (costs more).  --paths counts\n"
             "every procedure's Ball-Larus paths (the numbering of the model's oracle)\n"
             "in per-core counters; with --metrics also each path's modelled cycles\n"
             "and one event (--event, default dmiss) read from the PMU page at its\n"
             "start and end (inclusive of callees).  --both does the two at once and\n"
             "counts each path in the calling context it ran in (with --metrics its\n"
             "cycles and --event there too; the tree stays counts).  The original\n"
             "procedures keep\n"
             "their addresses; the trampolines are a new segment after the image,\n"
             "named " INSTRUMENT_SYMBOL ".",
    .epilog = "Run the copy like the original (alphaprof record OUT.elf); the monitor\n"
              "sends the tree (or the path counts) with the profile; `alphaprof cct --db P`\n"
              "prints the tree, `alphaprof paths --db P [--context]` the paths,\n"
              "`alphaprof check --cct|--paths` checks the counts.\n"
              "\n"
              "Exit status: 0 written, 1 the image could not be instrumented, 2 bad options.",
};

/* The procedures that hold registers for their trampolines (path-region.h
 * note 16), when some do. */
static void print_held(const char *out, const struct instrument_path_stats *ps)
{
    if (ps->held_procs)
        printf("alphaprof instrument: %s: %u of them (loops in millicode, whose returns keep every register) "
               "hold %u registers below sp from entry to return for their trampolines\n",
               out, ps->held_procs, INSTRUMENT_HOLD_REGS);
    if (ps->metered_iv_loops)
        printf("alphaprof instrument: %s: %u of the loops by an induction variable read the PMU page at each "
               "backedge and count their metrics at their ways out, %u of them borrowing %u registers live at "
               "their entry (kept in the region while they run)\n",
               out, ps->metered_iv_loops, ps->borrowing_loops, ps->borrowed_regs);
}

/* What the hash table line adds when the region had room for fewer slots
 * than --hash-slots asked (path-region.h notes 14, 15: the largest power of
 * two that fits after the array counters). */
static const char *fewer_slots(uint64_t asked, const struct instrument_path_stats *ps)
{
    static char why[160];
    if (!asked || ps->hash_slots >= asked)
        return "";
    snprintf(why, sizeof why, " (fewer than the %llu asked for: the region has room for no more after the "
             "array counters)", (unsigned long long)asked);
    return why;
}

/* An image in which nothing could be counted (its symbols damaged, say)
 * gives no instrumented copy: one line, exit 1. */
static int nothing_counted(const char *in, const char *out, const char *what)
{
    unlink(out);
    fprintf(stderr, "alphaprof instrument: %s: %s could be counted, so nothing was written; are its symbols "
                    "intact? (rebuild it from source)\n", in, what);
    return 1;
}

int cmd_instrument(int argc, char **argv)
{
    bool cct = false, paths = false, both = false, quiet = false, metrics = false;
    unsigned hash_slots = UINT_MAX;     /* not given: INSTRUMENT_HASH_SLOTS, 0 with --metrics */
    unsigned ctx_paths = 0;             /* not given: instrument_both's default */
    const char *out = NULL, *event_name = NULL;
    struct strvec operands = {0};
    const struct option options[] = {
        OPT_BOOLEAN(0, "cct", &cct, "calling context tree: call counts per context"),
        OPT_BOOLEAN(0, "paths", &paths, "Ball-Larus path counts per procedure"),
        OPT_BOOLEAN(0, "metrics", &metrics, "with --cct: per context inclusive cycles and instructions too; "
                    "with --paths or --both: per path cycles and --event too (all cost more)"),
        OPT_STRING(0, "event", &event_name, "NAME", "with --paths|--both --metrics: the event beside cycles (default dmiss)"),
        OPT_UINT(0, "hash-slots", &hash_slots, "N", 0, PATH_HASH_MAX_SLOTS, "with --paths|--both: at most N slots per core "
                 "in the hash table of procedures with too many paths for an array (a power of two; 0: leave "
                 "them alone; default 8192 with --paths; 0 with --metrics, whose array leaves the table too little "
                 "room, and with --both, whose region holds at most 4096 home slots: asked for, qsort loses "
                 "279 of 7.3 M path executions there; --both --metrics leaves them alone)"),
        OPT_BOOLEAN(0, "both", &both, "paths per calling context: path counts (and --metrics) per CCT node"),
        OPT_UINT(0, "context-paths", &ctx_paths, "N", 1, 1u << 20,
                 "with --both: a procedure with more than N paths counts them context-free only (default 256, 48 "
                 "with --metrics); fewer make the call records smaller, for a tree the core's region cannot hold "
                 "(the monitor and check --cct say how many calls went on the overflow record)"),
        OPT_STRING('o', "output", &out, "OUT.elf", "the instrumented image to write"),
        OPT_BOOLEAN('q', "quiet", &quiet, "print nothing on success"),
        OPT_END(),
    };
    enum opt_result r = opt_parse(&instrument_command, options, argc, argv, &operands, NULL);
    int rc;
    struct ap_err oerr;
    if (r != OPT_PARSED)
        rc = opt_exit(r);
    else if (event_name && (pmu_event_lookup(event_name, strlen(event_name)) < 0 ||
                            pmu_event_lookup(event_name, strlen(event_name)) == PMU_EV_CYCLES))
    {
        char msg[400];
        snprintf(msg, sizeof msg, "--event %s: not an event to read beside cycles; any of these but cycles: %s",
                 event_name, PMU_EVENT_LIST_TEXT);
        rc = opt_usage_error(&instrument_command, "%s", msg);
    }
    else if (hash_slots != UINT_MAX && hash_slots &&
             (hash_slots < PATH_HASH_MIN_SLOTS || (hash_slots & (hash_slots - 1))))
        rc = opt_usage_error(&instrument_command, "--hash-slots %u: give 0 (no hash table) or a power of two from "
                             "%d to %d", hash_slots, PATH_HASH_MIN_SLOTS, PATH_HASH_MAX_SLOTS);
    else if (operands.n != 1)
        rc = opt_usage_error(&instrument_command, operands.n ? "give one image" : "which image? give IMAGE.elf");
    else if (cct && paths)
        rc = opt_usage_error(&instrument_command, "--cct and --paths together: say --both (paths per calling context)");
    else if (both && (cct || paths))
        rc = opt_usage_error(&instrument_command, "--both is --cct and --paths at once: give --both alone");
    else if (!cct && !paths && !both)
        rc = opt_usage_error(&instrument_command, "say what to instrument for: --cct, --paths or --both");
    else if (ctx_paths && !both)
        rc = opt_usage_error(&instrument_command, "--context-paths goes with --both (paths per calling context)");
    else if (cct && hash_slots != UINT_MAX)
        rc = opt_usage_error(&instrument_command, "--hash-slots sizes the paths' hash table: it goes with --paths "
                             "or --both, not --cct");
    else if (event_name && !paths && !both)
        rc = opt_usage_error(&instrument_command, "--event goes with --paths|--both --metrics (a CCT's metrics are "
                             "cycles and instructions)");
    else if (event_name && !metrics)
        rc = opt_usage_error(&instrument_command, "--event chooses the metric beside cycles: add --metrics");
    else if (both && metrics && hash_slots && hash_slots != UINT_MAX)
        rc = opt_usage_error(&instrument_command, "--hash-slots counts only: --both --metrics leaves procedures "
                             "with too many paths for an array alone; drop --metrics or --hash-slots");
    else if (!out)
        rc = opt_usage_error(&instrument_command, "where to? give -o OUT.elf");
    else if (!strcmp(out, operands.v[0]) || same_file(out, operands.v[0]))
        rc = opt_usage_error(&instrument_command, "-o names the input image; the original stays untouched, give "
                             "another file");
    else if (regular_or_absent(out, "a file name for the instrumented image (OUT.elf)", &oerr))
        rc = opt_usage_error(&instrument_command, "%s", oerr.msg);
    else {
        struct ap_err err;
        struct instrument_stats st;
        struct instrument_path_stats ps;
        int event = !metrics ? -1 : event_name ? pmu_event_lookup(event_name, strlen(event_name)) : PMU_EV_DMISS;
        if (hash_slots == UINT_MAX)
            hash_slots = metrics || both ? 0 : INSTRUMENT_HASH_SLOTS;
        if (both) {
            if (instrument_both(operands.v[0], out, event, hash_slots, ctx_paths, &st, &ps, &err)) {
                fprintf(stderr, "alphaprof instrument: %s\n", err.msg);
                rc = 1;
            } else if (ps.procs == 0 && st.sites == 0) {
                rc = nothing_counted(operands.v[0], out, "no call site and no procedure's paths");
            } else {
                if (!quiet)
                    printf("alphaprof instrument: %s: %u call sites in %u procedures counted per context; paths of "
                           "%u procedures counted (%u per context, the others context-free), %u left alone; %llu "
                           "context-free counters, trampolines at 0x%llx (%llu bytes)%s%s\n", out, st.sites, st.procs,
                           ps.procs, ps.context_procs,
                           ps.skipped[1] + ps.skipped[2] + ps.skipped[3] + ps.skipped[4] + ps.skipped[5] +
                               ps.skipped[6] + ps.skipped[7],
                           (unsigned long long)ps.counters, (unsigned long long)st.region_addr,
                           (unsigned long long)st.region_size, metrics ? "; metrics: cycles and " : "",
                           metrics ? pmu_event_name((unsigned)event) : "");
                if (!quiet)
                    print_held(out, &ps);
                if (!quiet && ps.hashed_procs)
                    printf("alphaprof instrument: %s: %u of them with too many paths for an array counted in a "
                           "hash table of %llu slots per core, keyed by their context%s\n", out, ps.hashed_procs,
                           (unsigned long long)ps.hash_slots, fewer_slots(hash_slots, &ps));
                rc = 0;
            }
        } else if (paths) {
            if (instrument_paths(operands.v[0], out, event, hash_slots, &ps, &err)) {
                fprintf(stderr, "alphaprof instrument: %s\n", err.msg);
                rc = 1;
            } else if (ps.procs == 0) {
                rc = nothing_counted(operands.v[0], out, "no procedure's paths");
            } else {
                if (!quiet)
                    printf("alphaprof instrument: %s: paths of %u procedures counted (the path register: %u none "
                           "needed, %u in a register of their own (leaves), %u in a callee-saved register, "
                           "the others in memory; %u of those two kept in their own stack frame; %u loops counted in a register, %u by an induction variable; %llu counters, %llu "
                           "instructions patched), %u left alone (%u numbering not countable, %u no counter "
                           "room, %u entry, %u edge, %u setjmp callers, %u the runtime's, %u too many paths and "
                           "not hashed), trampolines at 0x%llx (%llu bytes)%s%s\n",
                           out, ps.procs, ps.constant_procs, ps.leaf_procs, ps.saved_procs, ps.frame_procs, ps.loop_regs, ps.iv_loops, (unsigned long long)ps.counters, (unsigned long long)ps.patched,
                           ps.skipped[1] + ps.skipped[2] + ps.skipped[3] + ps.skipped[4] + ps.skipped[5] +
                               ps.skipped[6] + ps.skipped[7],
                           ps.skipped[1], ps.skipped[2], ps.skipped[3], ps.skipped[4], ps.skipped[5],
                           ps.skipped[6], ps.skipped[7],
                           (unsigned long long)ps.region_addr,
                           (unsigned long long)ps.region_size, metrics ? "; metrics: cycles and " : "",
                           metrics ? pmu_event_name((unsigned)event) : "");
                if (!quiet)
                    print_held(out, &ps);
                if (!quiet && ps.hashed_procs)
                    printf("alphaprof instrument: %s: %u of them with too many paths for an array counted in a "
                           "hash table of %llu slots per core%s%s\n", out, ps.hashed_procs,
                           (unsigned long long)ps.hash_slots, fewer_slots(hash_slots, &ps),
                           metrics ? ", counts only (a hashed path keeps no metrics: its slot holds a key and a "
                                     "count)" : "");
                rc = 0;
            }
        } else if (instrument_cct(operands.v[0], out, metrics, &st, &err)) {
            fprintf(stderr, "alphaprof instrument: %s\n", err.msg);
            rc = 1;
        } else if (st.sites == 0) {
            rc = nothing_counted(operands.v[0], out, "no call site");
        } else {
            if (!quiet)
                printf("alphaprof instrument: %s: %u call sites in %u procedures, %s, trampolines at 0x%llx "
                       "(%llu bytes)%s\n", out, st.sites, st.procs,
                       metrics ? "call counts and inclusive cycles and instructions" : "call counts",
                       (unsigned long long)st.region_addr, (unsigned long long)st.region_size,
                       st.skipped_sites ? " (some calls through a scratch register left alone)" : "");
            rc = 0;
        }
    }
    strvec_free(&operands);
    return rc;
}
