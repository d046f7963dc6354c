/*
 * The option groups several subcommands share, as OPT_* table entries:
 * running a board (run, record; daemon names a board too) and selecting a
 * profile (report, annotate, check, export, pme, stats, diff).  One place
 * for their spelling, help, limits and defaults, among them the one
 * default-database rule: --db, else $ALPHAPROF_DB, else alphaprof.db
 * (pdb_default_path), for every subcommand.
 *
 * Values are checked as they are read, with the monitor's own grammars
 * (firmware/abi/boot-line.h, event-spec.h): a word the monitor would refuse
 * is refused before QEMU starts.
 */
#ifndef ALPHAPROF_UTIL_OPTION_GROUPS_H
#define ALPHAPROF_UTIL_OPTION_GROUPS_H

#include "firmware/abi/boot-line.h"
#include "firmware/abi/event-spec.h"
#include "util/options.h"
#include "util/profile-view.h"
#include "util/strvec.h"

#define DEFAULT_BOARD       "clipper"
#define DEFAULT_MODEL_BOARD "clipper-pm"    /* the board with the hardware model */

/* ---------------------------------------------------- running a board */

struct board_opts {
    const char *board;          /* NULL: the command's default (board_opts_board) */
    unsigned cores, timeout_s, baud;
    bool deterministic, verbose;
    struct strvec append;       /* --append KEY=VAL (board_opts_check checks them) */
    const char *oracle;
    const char *model;          /* PMU_MODE_*, or NULL: the board's */
};
#define BOARD_OPTS_INIT {.cores = 1}

opt_callback opt_model_mode;    /* --model full|counters */

#define OPT_BOARD_RUN(bo)                                                                          \
    OPT_GROUP("running the board"),                                                                \
    OPT_STRING(0, "board", &(bo)->board, "B",                                                      \
               "board definition boards/B/board.conf (default " DEFAULT_BOARD ", or\n"             \
               DEFAULT_MODEL_BOARD " when the run needs the hardware model)"),                      \
    OPT_UINT(0, "cores", &(bo)->cores, "N", 1, OPT_NUMBER_MAX,                                     \
             "number of cores (default 1, at most the board's)"),                                  \
    OPT_BOOLEAN(0, "deterministic", &(bo)->deterministic,                                         \
                "one host thread, 1 ns per instruction: runs repeat exactly"),                     \
    OPT_UINT(0, "timeout", &(bo)->timeout_s, "S", 1, OPT_NUMBER_MAX,                               \
             "give up after S seconds (default: the board's timeout_s)"),                          \
    OPT_LIST(0, "append", &(bo)->append, "KEY=VAL",                                                \
             "add a key to the boot command line (e.g. run=NAME, tick_hz=1000),\n"                 \
             "after the command's own, so it overrides them"),                                     \
    OPT_STRING(0, "oracle", &(bo)->oracle, "PATH",                                                 \
               "write the hardware model's exact truth of the run to PATH\n"                       \
               "(for alphaprof check; board " DEFAULT_MODEL_BOARD " by default)"),                 \
    OPT_CALLBACK(0, "model", &(bo)->model, "full|counters",                                        \
                 "the hardware model's mode instead of the board's: counters\n"                    \
                 "counts only (near QEMU speed; cycles count instructions;\n"                      \
                 "retired, loads, stores, branches)", opt_model_mode),                             \
    OPT_UINT(0, "baud", &(bo)->baud, "N", 300, BOOT_NUMBER_MAX,                                    \
             "run the profile link like an N-baud 8N1 UART (default: unpaced)"),                   \
    OPT_BOOLEAN('v', "verbose", &(bo)->verbose, "print the QEMU command line")

/* Checks every --append word with the monitor's table of boot keys: 0, or
 * a usage error of c (one line, 2). */
int board_opts_check(const struct opt_command *c, const struct board_opts *bo);

/* Whether one of images was instrumented with --metrics: its trampolines
 * read the PMU user page, so the run needs the hardware model's board. */
struct strvec;
bool images_need_model(const struct strvec *images);

/* The board to run: --board, else the model's board when the run needs the
 * hardware model, else the plain one. */
const char *board_opts_board(const struct board_opts *bo, bool needs_model);

/* 0 if a board definition boards/NAME/board.conf exists and reads; else a
 * usage error of c (one line, 2). */
int board_name_check(const struct opt_command *c, const char *name);

/* ---------------------------------------------------- selecting a profile */

struct profile_opts {
    const char *db;             /* NULL until parsed: then pdb_default_path() */
    struct pv_selection sel;
    bool json;
};
#define PROFILE_OPTS_INIT {.sel = {.epoch = 0, .core = -1, .image = NULL}}

/* The first of --epoch, --core, --image given in sel, or NULL: for the
 * commands that read one session whole and must refuse them. */
const char *profile_sel_given(const struct pv_selection *sel);

opt_callback opt_epoch;         /* N (> 0) or all (-1), into an int64_t */
opt_callback opt_core;          /* 0..63, into an int */

#define OPT_PROFILE_DB(po)                                                                         \
    OPT_STRING(0, "db", &(po)->db, "PATH",                                                         \
               "the profile database (default $ALPHAPROF_DB or alphaprof.db)")
#define OPT_PROFILE_EPOCH(po)                                                                      \
    OPT_CALLBACK(0, "epoch", &(po)->sel.epoch, "N|all", "which epoch (default: the current one)",  \
                 opt_epoch)
#define OPT_PROFILE_CORE(po)                                                                       \
    OPT_CALLBACK(0, "core", &(po)->sel.core, "N", "only samples from core N", opt_core)
#define OPT_PROFILE_IMAGE(po)                                                                      \
    OPT_STRING(0, "image", &(po)->sel.image, "NAME", "only this image")
#define OPT_PROFILE_JSON(po) OPT_BOOLEAN(0, "json", &(po)->json, "JSON instead of text")
/* --epoch repeated: each value appended, up to max. */
struct epoch_list {
    int64_t *v;
    size_t n, max;
    bool allow_all;             /* "all" (-1) is a value */
    const char *too_many;       /* the message past max */
};
opt_callback opt_epoch_list;

/* The whole group. */
#define OPT_PROFILE_SELECT(po)                                                                     \
    OPT_GROUP("selecting the profile"), OPT_PROFILE_DB(po), OPT_PROFILE_EPOCH(po),                 \
    OPT_PROFILE_CORE(po), OPT_PROFILE_IMAGE(po), OPT_PROFILE_JSON(po)

/* --limit N of the tables: text shows OPT_TEXT_LIMIT rows unless told
 * otherwise (and says how many more), JSON every row: no silent cap. */
#define OPT_TEXT_LIMIT 30
#define OPT_LIMIT_UNSET (OPT_NUMBER_MAX + 1)
#define OPT_LIMIT(v, what)                                                                         \
    OPT_UINT(0, "limit", v, "N", 0, OPT_NUMBER_MAX,                                                \
             "at most N " what " (default " GRAMMAR_STR(OPT_TEXT_LIMIT) " in text, all in JSON;\n" \
             "0 = all)")
/* The rows to show: the --limit given, else the default for text or JSON. */
unsigned opt_limit(unsigned limit, bool json);

/* The database path: --db, else $ALPHAPROF_DB, else alphaprof.db. */
const char *profile_opts_db(const struct profile_opts *po);

/* ---------------------------------------------------- boot keys as options */

/* An option that is a boot key (record --period is period=...): the value
 * is checked with the monitor's table and applied to *boot, so the caller
 * reads the parsed numbers there; *text keeps the value as given (NULL:
 * not given). */
struct boot_key_opt {
    const char *key;
    struct boot_options *boot;
    const char **text;
};
opt_callback opt_boot_key;
#define OPT_BOOT_KEY(s, l, key, boot, text, a, h) \
    OPT_CALLBACK(s, l, (&(struct boot_key_opt){key, boot, text}), a, h, opt_boot_key)

/* ---------------------------------------------------- events */

/* --event E of the analyses: timer, a hardware event's name (PMU_EVENTS)
 * or an event number, into a const char *. */
opt_callback opt_event;
/* The same without numbers (check compares names with the oracle's). */
opt_callback opt_event_name;

/* ---------------------------------------------------- the event list */

/* Checks an event list NAME[:MIN-MAX],... with the monitor's grammar into
 * *out: 0, or -1 with why set (a message without the option's name). */
int event_list_check(const char *list, struct event_spec_list *out, char *why, size_t n);

#endif
