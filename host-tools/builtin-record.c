/*
 * alphaprof record: boots the board like `alphaprof run`, turns on the
 * on-target profiler, and ingests the profile link (COM2) into the profile
 * database while the workload runs.  The console stays on the terminal.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "firmware/abi/link-protocol.h"
#include "hw-model/pmu-window.h"
#include "util/run-costs.h"
#include "util/board-run.h"
#include "util/ingest.h"
#include "util/options.h"
#include "util/profile-db.h"
#include "util/strvec.h"

#define DEFAULT_BOARD "clipper"
/* For messages: the limits of hw-model/pmu-window.h as text. */
#define STR_(x) #x
#define STR(x) STR_(x)
#define PME_MIN_INTERVAL_TEXT STR(PME_MIN_INTERVAL)
#define PME_MAX_PAIR_WINDOW_TEXT STR(PME_MAX_PAIR_WINDOW)
#define DEFAULT_DB "alphaprof.db"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: alphaprof record [options] IMAGE.elf [IMAGE2.elf ...] [-- ARGS]\n"
            "\n"
            "Runs the workload on the board with the on-target profiler on and\n"
            "stores what it collects in the profile database (current epoch).\n"
            "\n"
            "  --db PATH          profile database (default %s, created if missing)\n"
            "  --board B          board definition boards/B/board.conf (default %s)\n"
            "  --cores N          number of cores (default 1)\n"
            "  --timer            sample PCs from each core's timer (the default; any board)\n"
            "  --events LIST      sample the hardware model's counters instead, e.g.\n"
            "                     cycles,dmiss or cycles:60000-64000,dmiss:4000-4400\n"
            "                     (needs --board clipper-pm, which --events picks by default)\n"
            "  --profileme        sample instructions with the hardware model's ProfileMe unit:\n"
            "                     per-instruction events, retired/aborted and stage latencies\n"
            "                     (needs --board clipper-pm, which it picks by default)\n"
            "  --paired           ProfileMe with paired samples (implies --profileme), kept whole\n"
            "  --pme-interval MIN-MAX  fetched instructions between ProfileMe samples (or pairs),\n"
            "                     at least %d (default 60000-64000, paired 120000-128000:\n"
            "                     about the timer's samples per second)\n"
            "  --pair-window W    paired: the second instruction 1..W fetches after the first\n"
            "                     (default 80, 1..%d)\n"
            "  --model full|counters  the hardware model's mode instead of the board's:\n"
            "                     counters counts only (near QEMU speed; cycles count\n"
            "                     instructions; retired, loads, stores, branches)\n"
            "  --oracle PATH      keep the hardware model's exact truth of the run in PATH\n"
            "                     (for alphaprof check)\n"
            "  --period MIN-MAX   sampling period range, ns of virtual time (default 60000-64000)\n"
            "  --baud N           run the profile link like an N-baud 8N1 UART (default: unpaced)\n"
            "  --table rr4|stf6   on-target hash table: DCPI 4-way round robin (default)\n"
            "                     or 6-way swap-to-front\n"
            "  --seed N           seed of the period randomiser\n"
            "  --deterministic    one host thread, 1 ns per instruction: runs repeat exactly\n"
            "  --append KEY=VAL   add a key to the boot command line (after record's own,\n"
            "                     so it overrides them)\n"
            "  --timeout S        give up after S seconds (default: the board's)\n"
            "  --status           print a live status line on stderr\n"
            "  -v, --verbose      print the QEMU command line\n"
            "\n"
            "Exit status: the workload's, as for alphaprof run; 1 if the profile could\n"
            "not be stored.\n",
            DEFAULT_DB, DEFAULT_BOARD, PME_MIN_INTERVAL, PME_MAX_PAIR_WINDOW);
}

struct record_sink {
    struct ingest *in;
    bool failed;
    struct ap_err err;
};

static void feed(void *ctx, const unsigned char *buf, size_t n)
{
    struct record_sink *s = ctx;
    if (!s->failed && ingest_feed(s->in, buf, n, &s->err))
        s->failed = true;
}

static int bad(const char *fmt, const char *arg)
{
    fprintf(stderr, "alphaprof record: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "; see 'alphaprof record --help'\n");
    return 2;
}

/*
 * The ProfileMe sampling intervals of this run, for the estimators (kS,
 * L C S/2 - U W S): periods rows PDB_PERIOD_PME* of the current epoch.  The
 * unit draws the interval uniform in [lo, hi] fetched instructions; in
 * paired mode the second record follows the first 1..W fetches later and
 * both records also go to the aggregates, so a pair takes (lo+hi)/2 +
 * (W+1)/2 fetches and the aggregates get a record every half of that.
 */
static int store_pme_intervals(struct pdb *db, int mode, unsigned lo, unsigned hi, unsigned window,
                               struct ap_err *err)
{
    int64_t epoch;
    if (pdb_current_epoch(db, &epoch, err))
        return -1;
    double mean = ((double)lo + (double)hi) / 2;
    if (mode == 2) {
        double pair = mean + ((double)window + 1) / 2;
        pdb_set_period(db, epoch, PDB_PERIOD_PME, -1, (uint64_t)(pair / 2 + 0.5));
        pdb_set_period(db, epoch, PDB_PERIOD_PME_PAIR, -1, (uint64_t)(pair + 0.5));
        pdb_set_period(db, epoch, PDB_PERIOD_PME_WINDOW, -1, window);
    } else {
        pdb_set_period(db, epoch, PDB_PERIOD_PME, -1, (uint64_t)(mean + 0.5));
    }
    return pdb_commit(db, err);
}

/* What is wrong with an --events list (NAME[:MIN-MAX],...), checked here
 * so a mistake stops the run instead of leaving a counter off; NULL if it
 * is good.  counters_only: the counters-only model's events alone. */
static const char *events_problem(const char *list, bool counters_only)
{
    static const char *const names[] = {PMU_EVENT_NAMES};
    static char why[256];
    unsigned n = 0;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        char item[96], *colon;
        snprintf(item, sizeof item, "%.*s", (int)(len < 95 ? len : 95), p);
        p += len + (p[len] == ',');
        if ((colon = strchr(item, ':')))
            *colon++ = '\0';
        unsigned e = 0;
        while (e < PMU_EV_COUNT && strcmp(names[e], item))
            e++;
        if (e == PMU_EV_COUNT) {
            snprintf(why, sizeof why, "no event '%s' (events: cycles retired imiss dmiss branchmp loads "
                     "stores branches l2miss itbmiss dtbmiss)", item);
            return why;
        }
        if (counters_only && !(PMU_COUNTERS_MODE_EVENTS & (1u << e))) {
            snprintf(why, sizeof why, "--model counters counts cycles (as instructions), retired, loads, "
                     "stores and branches; %s needs --model full", item);
            return why;
        }
        if (colon) {
            unsigned long lo, hi;
            char *end;
            lo = strtoul(colon, &end, 10);
            hi = *end == '-' ? strtoul(end + 1, &end, 10) : 0;
            if (*end || lo < PMU_MIN_PERIOD || hi < lo || hi - lo >= 1ul << 31) {
                snprintf(why, sizeof why, "%s:%s: give a period range MIN-MAX with MIN >= %d and MAX >= MIN",
                         item, colon, PMU_MIN_PERIOD);
                return why;
            }
        }
        if (++n > LK_MAX_EVENTS) {
            snprintf(why, sizeof why, "at most %d events (more than the model's %d counters take turns)",
                     LK_MAX_EVENTS, PMU_COUNTERS);
            return why;
        }
    }
    return NULL;
}

int cmd_record(int argc, char **argv)
{
    const char *board_name = DEFAULT_BOARD, *db_path = DEFAULT_DB;
    unsigned cores = 1, timeout_s = 0, baud = 0, seed = 0;
    bool deterministic = false, verbose = false, status_line = false;
    struct strvec images = {0}, keys = {0}, appended = {0}, args = {0}, elfs = {0};
    char period[64] = "", table[16] = "", events[160] = "", pme[64] = "", pair_window[32] = "";
    int profileme = 0;          /* 1 ProfileMe, 2 paired */
    /* ProfileMe intervals as configured (the usage's defaults, always sent
     * explicitly), stored for the estimators by store_pme_intervals */
    unsigned pme_lo = 60000, pme_hi = 64000, pme_window = 80;
    const char *oracle = NULL, *model = NULL;
    bool board_given = false;
    int status = 2;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        bool missing = false;
        if (strcmp(a, "--") == 0) {
            for (i++; i < argc; i++)
                strvec_push(&args, argv[i]);
            break;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            status = 0;
            goto out;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            verbose = true;
        } else if (strcmp(a, "--deterministic") == 0) {
            deterministic = true;
        } else if (strcmp(a, "--timer") == 0) {
            /* the default and, until the hardware model lands, the only source */
        } else if (strcmp(a, "--profileme") == 0) {
            if (!profileme)
                profileme = 1;
        } else if (strcmp(a, "--paired") == 0) {
            profileme = 2;
        } else if ((v = opt_value(argc, argv, &i, "--pme-interval", &missing))) {
            unsigned lo, hi;
            char rest;
            if (sscanf(v, "%u-%u%c", &lo, &hi, &rest) != 2 || lo < PME_MIN_INTERVAL || hi < lo || hi > 1000000) {
                status = bad("--pme-interval '%s': give MIN-MAX fetched instructions with "
                             PME_MIN_INTERVAL_TEXT " <= MIN <= MAX <= 1000000", v);
                goto out;
            }
            snprintf(pme, sizeof pme, "pme=%u-%u", lo, hi);
            pme_lo = lo;
            pme_hi = hi;
        } else if ((v = opt_value(argc, argv, &i, "--pair-window", &missing))) {
            unsigned w;
            if (!parse_unsigned(v, &w) || w == 0 || w > PME_MAX_PAIR_WINDOW) {
                status = bad("--pair-window '%s': give a number of fetched instructions, 1.."
                             PME_MAX_PAIR_WINDOW_TEXT, v);
                goto out;
            }
            snprintf(pair_window, sizeof pair_window, "pair_window=%u", w);
            pme_window = w;
        } else if (strcmp(a, "--status") == 0) {
            status_line = true;
        } else if ((v = opt_value(argc, argv, &i, "--db", &missing))) {
            db_path = v;
        } else if ((v = opt_value(argc, argv, &i, "--events", &missing))) {
            if (strlen(v) >= sizeof events - 8 || strchr(v, ' ')) {
                status = bad("--events '%s': give a comma-separated list such as cycles,dmiss", v);
                goto out;
            }
            snprintf(events, sizeof events, "events=%s", v);
        } else if ((v = opt_value(argc, argv, &i, "--oracle", &missing))) {
            oracle = v;
        } else if ((v = opt_value(argc, argv, &i, "--model", &missing))) {
            if (!(model = parse_model_mode("alphaprof record", v)))
                goto out;
        } else if ((v = opt_value(argc, argv, &i, "--board", &missing))) {
            board_name = v;
            board_given = true;
        } else if ((v = opt_value(argc, argv, &i, "--cores", &missing))) {
            if (!parse_unsigned(v, &cores) || cores == 0) {
                status = bad("--cores '%s': give a number of cores (1..4)", v);
                goto out;
            }
        } else if ((v = opt_value(argc, argv, &i, "--timeout", &missing))) {
            if (!parse_unsigned(v, &timeout_s) || timeout_s == 0) {
                status = bad("--timeout '%s': give a whole number of seconds > 0", v);
                goto out;
            }
        } else if ((v = opt_value(argc, argv, &i, "--baud", &missing))) {
            if (!parse_unsigned(v, &baud) || baud < 300) {
                status = bad("--baud '%s': give a rate of at least 300", v);
                goto out;
            }
        } else if ((v = opt_value(argc, argv, &i, "--seed", &missing))) {
            if (!parse_unsigned(v, &seed)) {
                status = bad("--seed '%s': give a number", v);
                goto out;
            }
        } else if ((v = opt_value(argc, argv, &i, "--period", &missing))) {
            unsigned lo, hi;
            char rest;
            if (sscanf(v, "%u-%u%c", &lo, &hi, &rest) != 2 || lo < 1000 || hi < lo) {
                status = bad("--period '%s': give MIN-MAX in ns with 1000 <= MIN <= MAX", v);
                goto out;
            }
            snprintf(period, sizeof period, "period=%u-%u", lo, hi);
        } else if ((v = opt_value(argc, argv, &i, "--table", &missing))) {
            if (strcmp(v, "rr4") && strcmp(v, "stf6")) {
                status = bad("--table '%s': use rr4 or stf6", v);
                goto out;
            }
            snprintf(table, sizeof table, "table=%s", v);
        } else if ((v = opt_value(argc, argv, &i, "--append", &missing))) {
            struct ap_err err;
            if (cmdline_check_key(v, &err)) {
                fprintf(stderr, "alphaprof record: %s\n", err.msg);
                goto out;
            }
            strvec_push(&appended, v);
        } else if (missing) {
            status = bad("%s needs a value", a);
            goto out;
        } else if (a[0] == '-' && a[1] != '\0') {
            status = bad("unknown option '%s'", a);
            goto out;
        } else {
            strvec_push(&images, a);
        }
    }
    if (images.n == 0) {
        status = bad("no workload image given (e.g. %s)", "build/workloads/chase.elf");
        goto out;
    }
    bool counters_only = model && !strcmp(model, PMU_MODE_COUNTERS);
    if (counters_only && (profileme || !events[0])) {
        status = bad("--model counters samples hardware counters: give --events (%s needs --model full)",
                     profileme ? "ProfileMe" : "timer sampling");
        goto out;
    }
    const char *why = events[0] ? events_problem(events + strlen("events="), counters_only) : NULL;
    if (why) {
        status = bad("--events: %s", why);
        goto out;
    }
    if (events[0] && profileme) {
        status = bad("%s: give either --events (counter sampling) or --profileme/--paired", "--events");
        goto out;
    }
    if ((pme[0] || pair_window[0]) && !profileme) {
        status = bad("%s needs --profileme or --paired", pme[0] ? "--pme-interval" : "--pair-window");
        goto out;
    }
    if (pair_window[0] && profileme != 2) {
        status = bad("%s needs --paired", "--pair-window");
        goto out;
    }
    if (profileme) {
        if (profileme == 2 && !pme[0]) {
            /* two records a pair: the same records per second as single */
            pme_lo *= 2;
            pme_hi *= 2;
        }
        strvec_push(&keys, profileme == 2 ? "profile=paired" : "profile=profileme");
        strvec_pushf(&keys, "pme=%u-%u", pme_lo, pme_hi);
        if (profileme == 2)
            strvec_pushf(&keys, "pair_window=%u", pme_window);
        run_costs_say_profileme(stderr, "alphaprof record", profileme, pme_lo, pme_hi);
        if (!board_given)
            board_name = "clipper-pm";
    } else if (events[0]) {
        strvec_push(&keys, "profile=counters");
        strvec_push(&keys, events);
        if (!board_given)
            board_name = "clipper-pm";
    } else {
        strvec_push(&keys, "profile=timer");
    }
    if ((oracle || model) && !board_given)
        board_name = "clipper-pm";
    if (period[0])
        strvec_push(&keys, period);
    if (table[0])
        strvec_push(&keys, table);
    if (baud)
        strvec_pushf(&keys, "baud=%u", baud);
    if (seed)
        strvec_pushf(&keys, "seed=%u", seed);
    /* the user's keys last: the monitor takes the last of a key, so they
     * override record's own */
    for (size_t k = 0; k < appended.n; k++)
        strvec_push(&keys, appended.v[k]);

    struct ap_err err;
    struct pdb *db = NULL;
    if (pdb_open(db_path, PDB_CREATE, &db, &err)) {
        fprintf(stderr, "alphaprof record: %s\n", err.msg);
        goto out;
    }
    /* Absolute paths, so the database's image paths work from any directory. */
    for (size_t i = 0; i < images.n; i++) {
        char *abs = realpath(images.v[i], NULL);
        strvec_push(&elfs, abs ? abs : images.v[i]);
        free(abs);
    }
    struct board_run br = {
        .cmd = "alphaprof record",
        .say_time_limit = true,
        .board_name = board_name,
        .cores = cores,
        .timeout_s = timeout_s,
        .deterministic = deterministic,
        .verbose = verbose,
        .check = true,
        .link = LINK_UNIX,
        .images = &images,
        .keys = &keys,
        .args = &args,
        .oracle_path = oracle,
        .model_mode = model,
    };
    /* The monitor's ELF joins the images the loadmap may name. */
    char home[PATH_MAX];
    struct board board;
    if (alphaprof_home(home, sizeof home, &err) == 0 && board_load(home, board_name, &board, &err) == 0) {
        char fw[PATH_MAX];
        board_resolve(home, board.firmware, fw, sizeof fw);
        strvec_push(&elfs, fw);
    }
    struct ingest_opts io = {
        .status = status_line ? stderr : NULL,
        .baud = baud,
        .elfs = (const char *const *)elfs.v,
        .nelfs = elfs.n,
    };
    struct record_sink sink = {0};
    if (ingest_open(db, &io, &sink.in, &err)) {
        fprintf(stderr, "alphaprof record: %s\n", err.msg);
        pdb_close(db);
        goto out;
    }
    br.profile_sink = feed;
    br.profile_ctx = &sink;
    status = board_run(&br);
    if (!sink.failed && ingest_finish(sink.in, &sink.err))
        sink.failed = true;
    if (!sink.failed && profileme && store_pme_intervals(db, profileme, pme_lo, pme_hi, pme_window, &sink.err))
        sink.failed = true;
    const struct ingest_totals *t = ingest_totals(sink.in);
    if (sink.failed) {
        fprintf(stderr, "alphaprof record: the profile was not stored completely: %s\n", sink.err.msg);
        if (status == 0)
            status = 1;
    } else if (br.launched) {
        int64_t epoch = 0;
        pdb_current_epoch(db, &epoch, &err);
        fprintf(stderr,
                "alphaprof record: %llu samples (%llu in no image) from %llu link bytes into %s, epoch %lld; %llu dropped\n",
                (unsigned long long)t->samples, (unsigned long long)t->unknown,
                (unsigned long long)t->bytes, db_path, (long long)epoch,
                (unsigned long long)t->dropped);
        if (t->pme_samples || t->pairs)
            fprintf(stderr, "alphaprof record: %llu ProfileMe samples, %llu paired samples (%.1f link bytes per sample)\n",
                    (unsigned long long)t->pme_samples, (unsigned long long)t->pairs,
                    (double)t->bytes / (double)(t->pme_samples ? t->pme_samples : 1));
        if (t->sessions == 0 || t->ended == 0) {
            fprintf(stderr, "alphaprof record: the profile link %s; the profile is incomplete\n",
                    t->sessions == 0 ? "carried no session" : "ended before the board's END frame");
            if (status == 0)
                status = 1;
        }
    }
    ingest_close(sink.in);
    pdb_close(db);

out:
    strvec_free(&images);
    strvec_free(&keys);
    strvec_free(&appended);
    strvec_free(&args);
    strvec_free(&elfs);
    return status;
}
