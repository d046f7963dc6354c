/*
 * Declarative command-line options, in the spirit of Linux perf's OPT_*
 * tables: each subcommand describes its options once, in a table, and that
 * table generates both `alphaprof CMD --help` and every error about an
 * option.  perf's parse-options is the example; this is our own, small.
 *
 * Invariants:
 *  1. Every problem with the command line is one line on stderr,
 *       alphaprof CMD: <what is wrong>; see 'alphaprof CMD --help'
 *     and exit status 2 (opt_parse returns OPT_BAD, opt_exit turns it
 *     into 2; opt_usage_error prints such a line for checks that need
 *     several options at once).
 *  2. --help and -h print the generated text on stdout: exit status 0.
 *  3. A value is "--name VALUE", "--name=VALUE", "-x VALUE" or "-xVALUE";
 *     a flag takes no value ("--json=1" is an error).  "--" ends the
 *     options; what follows goes to `rest` (run's and record's image
 *     arguments) or, without one, to the operands.
 *  4. "-" alone is an operand; any other word starting with '-' before
 *     "--" is an option, known or an error.
 *  5. Values are checked as they are read (numbers in their range, choices
 *     among their names, callbacks for grammars, strings not empty), so a
 *     bad value never reaches the command.
 */
#ifndef ALPHAPROF_UTIL_OPTIONS_H
#define ALPHAPROF_UTIL_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/strvec.h"

enum opt_kind {
    OPT_KIND_END,
    OPT_KIND_GROUP,     /* a heading in --help */
    OPT_KIND_FLAG,      /* bool = set_to */
    OPT_KIND_STRING,    /* const char * */
    OPT_KIND_UINT,      /* unsigned, min..max */
    OPT_KIND_DOUBLE,    /* double, dmin..dmax (open ends by flags) */
    OPT_KIND_CHOICE,    /* int: index into choices */
    OPT_KIND_LIST,      /* struct strvec: every value, in order */
    OPT_KIND_CALLBACK,  /* fn(value, arg, why) */
};

/* Open ends of an OPT_DOUBLE range. */
#define OPT_ABOVE_MIN 1u
#define OPT_BELOW_MAX 2u

/* A callback: 0 if arg is good (and stored), else -1 with why set to what
 * the value must be ("give an epoch number or all"). */
typedef int opt_callback(void *value, const char *arg, char *why, size_t whylen);

struct option {
    enum opt_kind kind;
    char short_name;
    const char *long_name;
    void *value;
    const char *argh;           /* the value's placeholder in --help: "PATH" */
    const char *help;           /* lines after the first indented by '\n' */
    unsigned min, max;          /* OPT_KIND_UINT */
    double dmin, dmax;          /* OPT_KIND_DOUBLE */
    unsigned flags;
    bool set_to;                /* OPT_KIND_FLAG */
    const char *const *choices; /* OPT_KIND_CHOICE: NULL-terminated */
    opt_callback *callback;
};

#define OPT_END() {.kind = OPT_KIND_END}
#define OPT_GROUP(title) {.kind = OPT_KIND_GROUP, .help = (title)}
#define OPT_BOOLEAN(s, l, v, h) \
    {.kind = OPT_KIND_FLAG, .short_name = (s), .long_name = (l), .value = (v), .help = (h), .set_to = true}
#define OPT_CLEAR(s, l, v, h) \
    {.kind = OPT_KIND_FLAG, .short_name = (s), .long_name = (l), .value = (v), .help = (h), .set_to = false}
#define OPT_STRING(s, l, v, a, h) \
    {.kind = OPT_KIND_STRING, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), .help = (h)}
#define OPT_UINT(s, l, v, a, lo, hi, h) \
    {.kind = OPT_KIND_UINT, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), .help = (h), \
     .min = (lo), .max = (hi)}
#define OPT_DOUBLE(s, l, v, a, lo, hi, fl, h) \
    {.kind = OPT_KIND_DOUBLE, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), .help = (h), \
     .dmin = (lo), .dmax = (hi), .flags = (fl)}
#define OPT_CHOICE(s, l, v, names, a, h) \
    {.kind = OPT_KIND_CHOICE, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), .help = (h), \
     .choices = (names)}
#define OPT_LIST(s, l, v, a, h) \
    {.kind = OPT_KIND_LIST, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), .help = (h)}
#define OPT_CALLBACK(s, l, v, a, h, fn) \
    {.kind = OPT_KIND_CALLBACK, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), .help = (h), \
     .callback = (fn)}

/* Numbers on the command line are at most this unless a table says less. */
#define OPT_NUMBER_MAX 1000000u

struct opt_command {
    const char *name;           /* "record": messages say "alphaprof record" */
    const char *synopsis;       /* after "usage: alphaprof NAME " */
    const char *about;          /* the paragraph(s) after the usage line */
    const char *epilog;         /* after the options: columns, exit status */
};

enum opt_result { OPT_PARSED = 0, OPT_HELP_SHOWN = 1, OPT_BAD = -1 };

/*
 * Parses argv[1..argc-1] (argv[0] is the subcommand) against the table
 * options (ended by OPT_END; perf style, local to the command, pointing at
 * its variables).
 * Words that are not options go to operands (NULL: none are taken, an
 * error); words after "--" go to rest (NULL: to operands).
 */
enum opt_result opt_parse(const struct opt_command *c, const struct option *options, int argc,
                          char **argv, struct strvec *operands, struct strvec *rest);

/* The exit status for a result other than OPT_PARSED: 0 after --help, 2. */
int opt_exit(enum opt_result r);

/* Prints one usage-error line (invariant 1) and returns 2. */
int opt_usage_error(const struct opt_command *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The generated --help text. */
void opt_print_help(const struct opt_command *c, const struct option *options, FILE *f);

/* A decimal number 0..OPT_NUMBER_MAX. */
bool parse_unsigned(const char *s, unsigned *out);

#endif
