/*
 * alphaprof record: boots the board like `alphaprof run`, turns on the
 * on-target profiler, and ingests the profile link (COM2) into the profile
 * database while the workload runs.  The console stays on the terminal.
 * Every option is checked before the board starts, the boot keys with the
 * monitor's own table (firmware/abi/boot-line.c).
 *
 * Invariants:
 *  1. Nothing boots on a bad command line: a bad option or combination
 *     exits 2 before QEMU starts, and so does a database that cannot be
 *     opened or created.
 *  2. The boot keys are record's own first, then --append's: the monitor
 *     takes the last of a key, so the user's win.
 *  3. The profile link is a reliable session from the board's first frame
 *     (link-protocol.h 5): record gives the board its nonce on the boot
 *     line (nonce=HEX), acknowledges what it stored and asks again for
 *     what was lost (util/ingest.c), as the daemon does.
 *  4. STOP is the only control frame record sends (util/link-control.c:
 *     retried until answered), and only on --timeout or a signal; the
 *     profile counts as saved only once its ACK or the board's END came
 *     (in seq order: after every frame before it).
 *  5. A workload status of 0 becomes 1 when the profile is incomplete
 *     (not stored, no session, or no END without a STOP); any other
 *     status is passed on as it is.
 *  6. Every boot-key option record accepts goes on the boot line
 *     (record_keys): one that is checked and never sent is silently
 *     ignored by the board (--pme-draw was, until 2026-11-28: every
 *     "geometric" ProfileMe run drew uniform; the monitor's line says
 *     which draw it uses, and tests/e2e/test_pme.py looks for it).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "firmware/abi/link-protocol.h"
#include "hw-model/pmu-window.h"
#include "util/value-transform.h"
#include "util/run-costs.h"
#include "util/board-run.h"
#include "util/ingest.h"
#include "util/link-control.h"
#include "util/option-groups.h"
#include "util/oracle-file.h"
#include "util/qemu-launch.h"
#include "util/serial-link.h"
#include "util/profile-db.h"
#include "util/stop-note.h"
#include "util/strvec.h"

#define N_(x) GRAMMAR_STR(x)

/* The command line of one record, parsed. */
struct record_options {
    struct board_opts bo;
    const char *db;
    bool timer, profileme, paired, status_line;
    struct boot_options boot;   /* the boot keys given, applied as the monitor would */
    /* the boot keys' values as given (NULL: not given) */
    const char *events, *period, *pme, *pme_draw, *seed, *table, *pair_window;
    const char *value_every, *value_length, *value_skip, *value_capture;
    int values;                 /* --values: value_every at its default */
    const char *value_transform;    /* --value-transform, parsed into value_transforms */
    unsigned value_transforms;
    int mode;                   /* 0 timer, 1 ProfileMe, 2 paired */
    struct strvec images, args;
};

static const struct opt_command record_command = {
    .name = "record",
    .synopsis = "[options] IMAGE.elf [IMAGE2.elf ...] [-- ARGS]",
    .about = "Runs the workload on the board with the on-target profiler on and\n"
             "stores what it collects in the profile database (current epoch).",
    .epilog = "--timeout, ^C and SIGTERM stop the board's sampling first: what it holds is\n"
              "sent and stored (at most 10 s more; a second signal ends it at once).\n"
              "Exit status: the workload's, as for alphaprof run; 1 if the profile could\n"
              "not be stored; 2 for bad options; 124 after --timeout, 130 after ^C, 143\n"
              "after SIGTERM (the profile up to the stop is stored).",
};

struct record_sink {
    struct ingest *in;
    bool failed;
    struct ap_err err;
    struct link_control ctl;    /* STOP, retried until answered */
    /* stop means save: STOP sent on the link, its ACK (or END) came */
    bool stop_sent, saved;
};

/* The profile socket is connected: acknowledgements and STOP go there. */
static void attach_link(void *ctx, int fd)
{
    struct record_sink *s = ctx;
    s->ctl.fd = fd;
    ingest_set_ack_fd(s->in, fd);
}

/* LINK_ACKs when due, STOP again while unanswered. */
static void tick_link(void *ctx)
{
    struct record_sink *s = ctx;
    ingest_tick(s->in);
    if (s->stop_sent && !s->saved)
        link_control_retry(&s->ctl);
}

/* The timeout or a signal: the target stops sampling and flushes
 * (link-protocol.h section 4); QEMU ends once its ACK is in. */
static void stop_target(void *ctx, int fd)
{
    struct record_sink *s = ctx;
    s->ctl.fd = fd;
    s->stop_sent = link_control_send_simple(&s->ctl, LK_T_STOP) == 0;
    if (s->stop_sent)
        fprintf(stderr, "alphaprof record: stopping: the board stops sampling and sends what it holds "
                "(at most %d s; a second signal ends it at once)\n", LAUNCH_SAVE_MS / 1000);
}

static bool target_saved(void *ctx)
{
    return ((struct record_sink *)ctx)->saved;
}

static void watch_frames(void *ctx, const struct lk_frame *f)
{
    struct record_sink *s = ctx;
    struct lk_ack a;
    if (f->type == LK_T_END ||
        (s->stop_sent && lk_parse_ack(f, &a) == LK_OK && link_control_answered(&s->ctl, &a)))
        s->saved = true;
}

static void feed(void *ctx, const unsigned char *buf, size_t n)
{
    struct record_sink *s = ctx;
    if (!s->failed && ingest_feed(s->in, buf, n, &s->err))
        s->failed = true;
}

/*
 * The ProfileMe sampling intervals of this run, for the estimators (kS,
 * L C S/2 - U W S): periods rows PDB_PERIOD_PME* of the current epoch.  The
 * unit draws the interval uniform in [lo, hi] fetched instructions; in
 * paired mode the second record follows the first 1..W fetches later and
 * both records also go to the aggregates, so a pair takes (lo+hi)/2 +
 * (W+1)/2 fetches and the aggregates get a record every half of that.
 * The time draw (pmu-window.h PME_DRAW_TIME) stores only
 * PDB_PERIOD_PME_CYCLES, its mean interval in cycles per record (uniform
 * over the units of lo..hi cycles: (lo + hi - 1) / 2; geometric: (lo +
 * hi) / 2), rounded: the row says the profile's records are
 * time-sampled (pme-view.h `time_sampled`).
 */
static int store_pme_intervals(struct pdb *db, int mode, unsigned lo, unsigned hi, unsigned window,
                               unsigned draw, struct ap_err *err)
{
    int64_t epoch;
    if (pdb_current_epoch(db, &epoch, err))
        return -1;
    double mean = ((double)lo + (double)hi) / 2;
    if (draw & BOOT_PME_DRAW_TIME) {
        double cycles = draw & BOOT_PME_DRAW_GEOMETRIC ? mean : mean - 0.5;
        pdb_set_period(db, epoch, PDB_PERIOD_PME_CYCLES, -1, (uint64_t)(cycles + 0.5));
    } else if (mode == 2) {
        double pair = mean + ((double)window + 1) / 2;
        pdb_set_period(db, epoch, PDB_PERIOD_PME, -1, (uint64_t)(pair / 2 + 0.5));
        pdb_set_period(db, epoch, PDB_PERIOD_PME_PAIR, -1, (uint64_t)(pair + 0.5));
        pdb_set_period(db, epoch, PDB_PERIOD_PME_WINDOW, -1, window);
    } else {
        pdb_set_period(db, epoch, PDB_PERIOD_PME, -1, (uint64_t)(mean + 0.5));
    }
    return pdb_commit(db, err);
}


/* Checks that need several options at once: 0, or a usage error (2). */
static int record_check(const struct opt_command *c, struct record_options *o)
{
    bool counters_only = o->bo.model && !strcmp(o->bo.model, PMU_MODE_COUNTERS);
    o->mode = o->paired ? 2 : o->profileme ? 1 : 0;
    if (o->images.n == 0)
        return opt_usage_error(c, "no workload image given (e.g. build/workloads/chase.elf)");
    const char *bad;
    int badlen;
    if (o->value_transform && value_transform_parse(o->value_transform, &o->value_transforms, &bad, &badlen))
        return opt_usage_error(c, "--value-transform: no transform '%.*s' (there are: %s)", badlen, bad,
                               value_transform_names());
    if (board_opts_check(c, &o->bo))
        return 2;
    if (counters_only && (o->mode || !o->events))
        return opt_usage_error(c, "--model counters samples hardware counters: give --events (%s needs --model full)",
                               o->mode ? "ProfileMe" : "timer sampling");
    for (unsigned i = 0; counters_only && i < o->boot.nevents; i++)
        if (!(PMU_COUNTERS_MODE_EVENTS & (1u << o->boot.events[i].event)))
            return opt_usage_error(c, "--events: --model counters counts cycles (as instructions), retired, "
                                   "loads, stores and branches; %s needs --model full",
                                   pmu_event_name(o->boot.events[i].event));
    if (o->events && o->mode)
        return opt_usage_error(c, "--events: give either --events (counter sampling) or --profileme/--paired");
    if (o->period && o->mode)
        return opt_usage_error(c, "--period is the timer's (and the cycle event's) sampling period; ProfileMe "
                               "samples every --pme-interval fetched instructions instead");
    if ((o->pme || o->pme_draw || o->pair_window) && !o->mode)
        return opt_usage_error(c, "%s needs --profileme or --paired",
                               o->pme ? "--pme-interval" : o->pme_draw ? "--pme-draw" : "--pair-window");
    if (o->pair_window && o->mode != 2)
        return opt_usage_error(c, "--pair-window needs --paired");
    if (o->pme_draw && (o->boot.pme_draw & BOOT_PME_DRAW_TIME) && o->mode != 2)
        return opt_usage_error(c, "--pme-draw %s needs --paired: the board sends records whole only in pairs "
                               "(a time-sampled pair is two consecutive samples)", o->pme_draw);
    if (o->pair_window && (o->boot.pme_draw & BOOT_PME_DRAW_TIME))
        return opt_usage_error(c, "--pair-window has no meaning with --pme-draw %s: its pairs are consecutive "
                               "time samples", o->pme_draw);
    return 0;
}

/* The oracle the model wrote at exit names its run: kept with the sessions
 * of this record, so that check refuses another run's oracle.  An oracle
 * that was not written (the model failed) is the plugin's error to report. */
static int store_oracle_run(struct pdb *db, int64_t sessions_before, const char *oracle, struct ap_err *err)
{
    struct oracle_header h;
    if (access(oracle, F_OK) != 0)
        return 0;
    char *abs = realpath(oracle, NULL);
    int rc = oracle_read_header(oracle, &h, err) ||
             pdb_set_oracle(db, sessions_before, h.run_id, abs ? abs : oracle, err);
    free(abs);
    return rc ? -1 : 0;
}

/* The boot keys of the run: the sampling's, then the user's (the monitor
 * takes the last of a key, so --append overrides record's own). */
static void record_keys(struct record_options *o, uint64_t nonce, struct strvec *keys)
{
    struct boot_options *b = &o->boot;
    if (nonce)
        strvec_pushf(keys, "nonce=%llx", (unsigned long long)nonce);
    if (o->mode) {
        if (o->mode == 2 && !o->pme && !(b->pme_draw & BOOT_PME_DRAW_TIME)) {
            /* two records a pair: the same records per second as single */
            b->pme_min *= 2;
            b->pme_max *= 2;
        }
        strvec_push(keys, o->mode == 2 ? "profile=paired" : "profile=profileme");
        strvec_pushf(keys, "pme=%llu-%llu", (unsigned long long)b->pme_min, (unsigned long long)b->pme_max);
        if (o->mode == 2)
            strvec_pushf(keys, "pair_window=%u", b->pair_window);
        if (o->pme_draw)    /* (until 2026-11-28 parsed and never sent: every run drew uniform) */
            strvec_pushf(keys, "pme_draw=%s", o->pme_draw);
        run_costs_say_profileme(stderr, "alphaprof record", o->mode, (unsigned)b->pme_min, (unsigned)b->pme_max,
                                (b->pme_draw & BOOT_PME_DRAW_TIME) != 0);
    } else if (o->events) {
        strvec_push(keys, "profile=counters");
        strvec_pushf(keys, "events=%s", o->events);
    } else {
        strvec_push(keys, "profile=timer");
    }
    if (o->period)
        strvec_pushf(keys, "period=%s", o->period);
    if (o->table)
        strvec_pushf(keys, "table=%s", o->table);
    if (o->bo.baud)
        strvec_pushf(keys, "baud=%u", o->bo.baud);
    if (o->seed && b->seed)
        strvec_pushf(keys, "seed=%u", b->seed);
    if (o->value_every)
        strvec_pushf(keys, "value_every=%s", o->value_every);
    else if (o->values)
        strvec_pushf(keys, "value_every=%u", BOOT_DEFAULT_VALUE_EVERY);
    if (o->value_length)
        strvec_pushf(keys, "value_length=%s", o->value_length);
    if (o->value_skip)
        strvec_pushf(keys, "value_skip=%s", o->value_skip);
    if (o->value_capture)
        strvec_pushf(keys, "value_capture=%s", o->value_capture);
    for (size_t k = 0; k < o->bo.append.n; k++)
        strvec_push(keys, o->bo.append.v[k]);
}

/* What record says when the run is over; the status, 1 if the profile is
 * incomplete. */
static int record_summary(const char *db_path, struct pdb *db, const struct ingest_totals *t,
                          const struct record_sink *sink, const struct strvec *images, int status)
{
    int64_t epoch = 0;
    struct ap_err err;
    pdb_current_epoch(db, &epoch, &err);
    fprintf(stderr,
            "alphaprof record: %llu samples (%llu in no image) from %llu link bytes into %s, epoch %lld; "
            "%llu samples dropped; %llu frames damaged or lost\n",
            (unsigned long long)t->samples, (unsigned long long)t->unknown,
            (unsigned long long)t->bytes, db_path, (long long)epoch,
            (unsigned long long)t->dropped, (unsigned long long)t->dropped_frames);
    if (t->pme_samples || t->pairs)
        fprintf(stderr, "alphaprof record: %llu ProfileMe samples, %llu paired samples (%.1f link bytes per sample)\n",
                (unsigned long long)t->pme_samples, (unsigned long long)t->pairs,
                (double)t->bytes / (double)(t->pme_samples ? t->pme_samples : 1));
    if (sink->stop_sent) {
        fprintf(stderr, "alphaprof record: stopped early: %s\n", sink->saved
                ? "the board stopped sampling and flushed; every sample it took is stored or counted"
                : "the board did not answer STOP in time; the profile is incomplete");
        if (stop_note_instrumented("alphaprof record", images, stderr) && status == 0)
            status = 1;
    } else if (t->sessions == 0 || t->ended == 0) {
        fprintf(stderr, "alphaprof record: the profile link %s; the profile is incomplete\n",
                t->sessions == 0 ? "carried no session" : "ended before the board's END frame");
        if (status == 0)
            status = 1;
    }
    return status;
}

/* The ELFs the loadmap may name: the images (absolute paths, so the
 * database's image paths work from any directory) and the monitor. */
static void loadmap_elfs(const struct strvec *images, const char *board_name, struct strvec *elfs)
{
    for (size_t i = 0; i < images->n; i++) {
        char *abs = realpath(images->v[i], NULL);
        strvec_push(elfs, abs ? abs : images->v[i]);
        free(abs);
    }
    char home[PATH_MAX], fw[PATH_MAX];
    struct board board;
    struct ap_err err;
    if (alphaprof_home(home, sizeof home, &err) == 0 && board_load(home, board_name, &board, &err) == 0) {
        board_resolve(home, board.firmware, fw, sizeof fw);
        strvec_push(elfs, fw);
    }
}

/* Runs the board with the boot keys and the profile link into the
 * database. */
static int record_run(struct record_options *o, uint64_t nonce, const struct strvec *keys)
{
    struct board_run run = {
        .cmd = "alphaprof record",
        .say_time_limit = true,
        .board_name = board_opts_board(&o->bo, o->mode || o->events || images_need_model(&o->images)),
        .cores = o->bo.cores,
        .timeout_s = o->bo.timeout_s,
        .deterministic = o->bo.deterministic,
        .verbose = o->bo.verbose,
        .check = true,
        .link = LINK_UNIX,
        .images = &o->images,
        .keys = keys,
        .args = &o->args,
        .oracle_path = o->bo.oracle,
        .model_mode = o->bo.model,
    }, *br = &run;
    const char *db_path = o->db ? o->db : pdb_default_path();
    struct ap_err err;
    struct pdb *db = NULL;
    if (pdb_open(db_path, PDB_CREATE, &db, &err)) {
        fprintf(stderr, "alphaprof record: %s\n", err.msg);
        return 2;
    }
    struct record_sink sink = {0};
    struct strvec elfs = {0};
    loadmap_elfs(&o->images, br->board_name, &elfs);
    struct ingest_opts io = {
        .status = o->status_line ? stderr : NULL,
        .baud = o->bo.baud,
        .elfs = (const char *const *)elfs.v,
        .nelfs = elfs.n,
        .frame_hook = watch_frames,
        .hook_ctx = &sink,
        .send_acks = nonce != 0,   /* a --deterministic record listens only */
        .ack_fd = -1,           /* until the link is up: attach_link */
        .nonce = nonce,
        .value_transforms = o->value_transforms,
    };
    sink.ctl.fd = -1;
    sink.ctl.seq = (uint16_t)(nonce >> 48);
    int status = 2;
    if (ingest_open(db, &io, &sink.in, &err)) {
        fprintf(stderr, "alphaprof record: %s\n", err.msg);
        goto out;
    }
    br->profile.sink = feed;
    br->profile.ctx = &sink;
    int64_t sessions_before = 0;
    if (pdb_last_session(db, &sessions_before, &sink.err))
        sink.failed = true;
    br->profile.stop = stop_target;
    br->profile.saved = target_saved;
    br->profile.attach = attach_link;
    br->profile.tick = tick_link;
    status = board_run(br);
    if (!sink.failed && ingest_finish(sink.in, &sink.err))
        sink.failed = true;
    if (!sink.failed && o->mode &&
        store_pme_intervals(db, o->mode, (unsigned)o->boot.pme_min, (unsigned)o->boot.pme_max,
                            o->boot.pair_window, o->boot.pme_draw, &sink.err))
        sink.failed = true;
    if (!sink.failed && br->launched && pdb_set_board_config(db, sessions_before, br->board_name, &sink.err))
        sink.failed = true;
    if (!sink.failed && o->bo.oracle && br->launched &&
        store_oracle_run(db, sessions_before, o->bo.oracle, &sink.err))
        sink.failed = true;
    if (sink.failed) {
        fprintf(stderr, "alphaprof record: the profile was not stored completely: %s\n", sink.err.msg);
        if (status == 0)
            status = 1;
    } else if (br->launched) {
        status = record_summary(db_path, db, ingest_totals(sink.in), &sink, &o->images, status);
    }
    ingest_close(sink.in);
out:
    pdb_close(db);
    strvec_free(&elfs);
    return status;
}

int cmd_record(int argc, char **argv)
{
    struct record_options o = {.bo = BOARD_OPTS_INIT, .boot = BOOT_OPTIONS_DEFAULTS};
    const struct option options[] = {
        OPT_STRING(0, "db", &o.db, "PATH", "profile database (default $ALPHAPROF_DB or alphaprof.db;\n"
                   "created if missing)"),
        OPT_GROUP("what to sample"),
        OPT_BOOLEAN(0, "timer", &o.timer, "sample PCs from each core's timer (the default; any board)"),
        OPT_BOOT_KEY(0, "events", "events", &o.boot, &o.events, "LIST",
                     "sample the hardware model's counters instead, e.g.\n"
                     "cycles,dmiss or cycles:60000-64000,dmiss:4000-4400 (default\n"
                     "periods: cycles --period's, others " N_(BOOT_DEFAULT_EVENT_PERIOD_MIN) "-"
                     N_(BOOT_DEFAULT_EVENT_PERIOD_MAX) "; needs --board\n"
                     DEFAULT_MODEL_BOARD ", which --events picks by default)"),
        OPT_BOOLEAN(0, "profileme", &o.profileme,
                    "sample instructions with the hardware model's ProfileMe unit:\n"
                    "per-instruction events, retired/aborted and stage latencies\n"
                    "(needs --board " DEFAULT_MODEL_BOARD ", which it picks by default)"),
        OPT_BOOLEAN(0, "paired", &o.paired, "ProfileMe with paired samples (implies --profileme), kept whole"),
        OPT_BOOT_KEY(0, "pme-interval", "pme", &o.boot, &o.pme, "MIN-MAX",
                     "fetched instructions between ProfileMe samples (or pairs;\n"
                     "cycles between samples with --pme-draw time),\n"
                     "at least " N_(PME_MIN_INTERVAL) " (default " N_(BOOT_DEFAULT_PME_MIN) "-" N_(BOOT_DEFAULT_PME_MAX)
                     ", paired twice that:\nabout the timer's samples per second)"),
        OPT_BOOT_KEY(0, "pme-draw", "pme_draw", &o.boot, &o.pme_draw, "uniform|geometric|time|time-geometric",
                     "how the interval is drawn: uniform in MIN-MAX (default) or\n"
                     "geometric with their mean, memoryless: code that runs at a\n"
                     "fixed distance after a sample (the monitor's drain) is\n"
                     "sampled like any other; time, time-geometric: MIN-MAX in\n"
                     "cycles, the sample the execution TIP charges the cycle to\n"
                     "(time-proportional, TEA; needs --paired)"),
        OPT_BOOT_KEY(0, "pair-window", "pair_window", &o.boot, &o.pair_window, "W",
                 "paired: the second instruction 1..W fetches after the first\n"
                 "(default " N_(BOOT_DEFAULT_PAIR_WINDOW) ", 1.." N_(PME_MAX_PAIR_WINDOW) ")"),
        OPT_BOOT_KEY(0, "period", "period", &o.boot, &o.period, "MIN-MAX",
                     "timer sampling period range, ns of virtual time (default\n"
                     N_(BOOT_DEFAULT_PERIOD_MIN) "-" N_(BOOT_DEFAULT_PERIOD_MAX) "; with --events the cycles' default)"),
        OPT_BOOT_KEY(0, "table", "table", &o.boot, &o.table, "rr4|stf6",
                     "on-target hash table: DCPI 4-way round robin (default)\nor 6-way swap-to-front"),
        OPT_BOOT_KEY(0, "seed", "seed", &o.boot, &o.seed, "N", "seed of the period randomiser"),
        OPT_BOOLEAN(0, "status", &o.status_line, "print a live status line on stderr"),
        OPT_GROUP("value sampling (alphaprof values)"),
        OPT_BOOLEAN(0, "values", &o.values,
                    "value sampling at the default rate, every " N_(BOOT_DEFAULT_VALUE_EVERY) "th\n"
                    "sampling interrupt (its cost: README, Value sampling)"),
        OPT_BOOT_KEY(0, "value-every", "value_every", &o.boot, &o.value_every, "K",
                     "at every K-th sampling interrupt interpret the interrupted\n"
                     "code and keep the values it computes, loads and waits for\n"
                     "(default 0: off)"),
        OPT_BOOT_KEY(0, "value-length", "value_length", &o.boot, &o.value_length, "N",
                     "instructions captured per run (default " N_(BOOT_DEFAULT_VALUE_LENGTH) ", 1.."
                     N_(BOOT_VALUE_MAX_LENGTH) ")"),
        OPT_BOOT_KEY(0, "value-skip", "value_skip", &o.boot, &o.value_skip, "N",
                     "first interpret a random 0..N instructions unseen, so the\n"
                     "captured PCs are not biased (default " N_(BOOT_DEFAULT_VALUE_SKIP) ", 0.."
                     N_(BOOT_VALUE_MAX_SKIP) ")"),
        OPT_BOOT_KEY(0, "value-capture", "value_capture", &o.boot, &o.value_capture, "SPEC",
                     "what to keep per opcode class, CLASS:KIND[+KIND],...; classes\n"
                     "int load store branch fp all, kinds result operand_a operand_b\n"
                     "address latency ra tos or none (default int:result,\n"
                     "load:result+address+latency, store:operand_a+address, fp:result)"),
        OPT_STRING(0, "value-transform", &o.value_transform, "NAME[,NAME]",
                   "transform value samples before merging (as the daemon's\n"
                   "--value-transform): accessors"),
        OPT_BOARD_RUN(&o.bo),
        OPT_END(),
    };
    struct strvec keys = {0};
    enum opt_result r = opt_parse(&record_command, options, argc, argv, &o.images, &o.args);
    int status = r != OPT_PARSED ? opt_exit(r) : record_check(&record_command, &o);
    if (r == OPT_PARSED && status == 0) {
        /* the link session's nonce (link-protocol.h 5.1).  A --deterministic
         * run must repeat bit for bit, and acknowledgements reach the board
         * at moments the host's timing decides: it listens only (no nonce,
         * no acknowledgements), as a local socket damages nothing and any
         * frame lost is still counted (link_lost_*). */
        uint64_t nonce = 0;
        if (!o.bo.deterministic &&
            (getrandom(&nonce, sizeof nonce, 0) != sizeof nonce || nonce == 0))
            nonce = ((uint64_t)getpid() << 32 ^ (uint64_t)time(NULL)) | 1;
        record_keys(&o, nonce, &keys);
        status = record_run(&o, nonce, &keys);
    }
    strvec_free(&o.images);
    strvec_free(&keys);
    strvec_free(&o.bo.append);
    strvec_free(&o.args);
    return status;
}
