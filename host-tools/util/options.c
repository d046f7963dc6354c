/*
 * The options engine: parses a command line against an option table and
 * prints the table as --help (see options.h for the rules it keeps).
 *
 * Invariants:
 *  1. Parsing stops at the first bad word or at --help: values stored
 *     before it stay, so the caller frees its lists on every path.
 *  2. A string value points into argv (argv must outlive it); a list value
 *     is a copy (strvec_push), the caller's to free.
 *  3. --help lists the options in table order, under their groups, and
 *     ends with -h, --help: the table alone decides what it says.
 *  4. Parse errors and opt_usage_error print the same one-line form and
 *     mean exit status 2.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/options.h"

#define HELP_COLUMN 21          /* where option descriptions start */

bool parse_unsigned(const char *s, unsigned *out)
{
    if (!isdigit((unsigned char)*s))
        return false;
    errno = 0;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v > OPT_NUMBER_MAX)
        return false;
    *out = (unsigned)v;
    return true;
}

int opt_exit(enum opt_result r)
{
    return r == OPT_HELP_SHOWN ? 0 : 2;
}

static int vusage_error(const struct opt_command *c, const char *fmt, va_list ap)
{
    fprintf(stderr, "alphaprof %s: ", c->name);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "; see 'alphaprof %s --help'\n", c->name);
    return 2;
}

int opt_usage_error(const struct opt_command *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vusage_error(c, fmt, ap);
    va_end(ap);
    return 2;
}

static enum opt_result bad(const struct opt_command *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static enum opt_result bad(const struct opt_command *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vusage_error(c, fmt, ap);
    va_end(ap);
    return OPT_BAD;
}

/* "--name" or "-x", as the user would write it. */
static void spelling(const struct option *o, char *out, size_t n)
{
    if (o->long_name)
        snprintf(out, n, "--%s", o->long_name);
    else
        snprintf(out, n, "-%c", o->short_name);
}

static void join_choices(const char *const *names, char *out, size_t n)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; names[i]; i++) {
        const char *sep = i == 0 ? "" : names[i + 1] ? ", " : " or ";
        len += (size_t)snprintf(out + len, len < n ? n - len : 0, "%s%s", sep, names[i]);
    }
}

static bool parse_double(const struct option *o, const char *arg, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(arg, &end);
    if (end == arg || *end || errno || x != x)
        return false;
    if (x < o->dmin || x > o->dmax || ((o->flags & OPT_ABOVE_MIN) && x == o->dmin) ||
        ((o->flags & OPT_BELOW_MAX) && x == o->dmax))
        return false;
    *out = x;
    return true;
}

/* What a value of o must be, for its error message. */
static void expectation(const struct option *o, char *why, size_t n)
{
    switch (o->kind) {
    case OPT_KIND_UINT:
        /* (the range whole: "a whole number >= 0" refused 99999999999, past OPT_NUMBER_MAX) */
        snprintf(why, n, "give a whole number in %u..%u", o->min, o->max < OPT_NUMBER_MAX ? o->max : OPT_NUMBER_MAX);
        break;
    case OPT_KIND_DOUBLE:
        snprintf(why, n, "give a number %s %g and %s %g", o->flags & OPT_ABOVE_MIN ? ">" : ">=", o->dmin,
                 o->flags & OPT_BELOW_MAX ? "<" : "<=", o->dmax);
        break;
    case OPT_KIND_CHOICE: {
        char names[160];
        join_choices(o->choices, names, sizeof names);
        snprintf(why, n, "use %s", names);
        break;
    }
    default:
        why[0] = '\0';
    }
}

/* Stores arg as o's value: 0, or -1 with why set. */
static int store(const struct option *o, const char *arg, char *why, size_t n)
{
    switch (o->kind) {
    case OPT_KIND_STRING:
    case OPT_KIND_LIST:
        if (!*arg) {    /* an empty path or name is never meant ("" opens SQLite's temporary database) */
            snprintf(why, n, "give a %s, not an empty word", o->argh ? o->argh : "value");
            return -1;
        }
        if (o->kind == OPT_KIND_LIST)
            strvec_push(o->value, arg);
        else
            *(const char **)o->value = arg;
        return 0;
    case OPT_KIND_UINT: {
        unsigned u;
        if (parse_unsigned(arg, &u) && u >= o->min && u <= o->max) {
            *(unsigned *)o->value = u;
            return 0;
        }
        break;
    }
    case OPT_KIND_DOUBLE:
        if (parse_double(o, arg, o->value))
            return 0;
        break;
    case OPT_KIND_CHOICE:
        for (int i = 0; o->choices[i]; i++)
            if (strcmp(o->choices[i], arg) == 0) {
                *(int *)o->value = i;
                return 0;
            }
        break;
    case OPT_KIND_CALLBACK:
        why[0] = '\0';
        return o->callback(o->value, arg, why, n);
    default:
        break;
    }
    expectation(o, why, n);
    return -1;
}

static const struct option *find_long(const struct option *t, const char *name, size_t len)
{
    for (; t->kind != OPT_KIND_END; t++)
        if (t->long_name && strlen(t->long_name) == len && strncmp(t->long_name, name, len) == 0)
            return t;
    return NULL;
}

static const struct option *find_short(const struct option *t, char c)
{
    for (; t->kind != OPT_KIND_END; t++)
        if (t->kind != OPT_KIND_GROUP && t->short_name == c)
            return t;
    return NULL;
}

/* One option word at argv[*i]: 0 done (value words consumed), OPT_BAD,
 * or OPT_HELP_SHOWN. */
static enum opt_result take_option(const struct opt_command *c, const struct option *options, int argc,
                                   char **argv, int *i)
{
    const char *word = argv[*i], *inline_value = NULL;
    const struct option *o;
    if (word[1] == '-') {
        const char *name = word + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        if (len == 4 && strncmp(name, "help", 4) == 0 && !eq) {
            opt_print_help(c, options, stdout);
            return OPT_HELP_SHOWN;
        }
        o = find_long(options, name, len);
        inline_value = eq ? eq + 1 : NULL;
    } else {
        if (word[1] == 'h' && !word[2]) {
            opt_print_help(c, options, stdout);
            return OPT_HELP_SHOWN;
        }
        o = find_short(options, word[1]);
        inline_value = word[2] ? word + 2 + (word[2] == '=') : NULL;
    }
    if (!o)
        return bad(c, "unknown option '%.*s'", (int)strcspn(word, "="), word);
    char name[64];
    spelling(o, name, sizeof name);
    if (o->kind == OPT_KIND_FLAG) {
        if (inline_value)
            return bad(c, "%s takes no value ('%s')", name, word);
        *(bool *)o->value = o->set_to;
        return OPT_PARSED;
    }
    const char *arg = inline_value;
    if (!arg) {
        if (*i + 1 >= argc)
            return bad(c, "%s needs a value (%s)", name, o->argh ? o->argh : "VALUE");
        arg = argv[++*i];
    }
    char why[256];
    if (store(o, arg, why, sizeof why))
        return bad(c, "%s '%s': %s", name, arg, why);
    return OPT_PARSED;
}

enum opt_result opt_parse(const struct opt_command *c, const struct option *options, int argc,
                          char **argv, struct strvec *operands, struct strvec *rest)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            struct strvec *to = rest ? rest : operands;
            if (!to && i + 1 < argc)
                return bad(c, "unexpected argument '%s'", argv[i + 1]);
            for (i++; i < argc; i++)
                strvec_push(to, argv[i]);
            break;
        }
        if (a[0] == '-' && a[1] != '\0') {
            enum opt_result r = take_option(c, options, argc, argv, &i);
            if (r != OPT_PARSED)
                return r;
        } else if (operands) {
            strvec_push(operands, a);
        } else {
            return bad(c, "unexpected argument '%s'", a);
        }
    }
    return OPT_PARSED;
}

/* Prints text with every line after the first indented to the column. */
static void print_indented(FILE *f, const char *text)
{
    for (const char *p = text; *p; p++) {
        fputc(*p, f);
        if (*p == '\n' && p[1])
            fprintf(f, "%*s", HELP_COLUMN, "");
    }
    fputc('\n', f);
}

static void print_option(FILE *f, const struct option *o)
{
    char head[96];
    int n;
    if (o->short_name && o->long_name)
        n = snprintf(head, sizeof head, "  -%c, --%s", o->short_name, o->long_name);
    else if (o->long_name)
        n = snprintf(head, sizeof head, "  --%s", o->long_name);
    else
        n = snprintf(head, sizeof head, "  -%c", o->short_name);
    if (o->argh)
        n += snprintf(head + n, sizeof head - (size_t)n, " %s", o->argh);
    if (n + 1 > HELP_COLUMN)
        fprintf(f, "%s\n%*s", head, HELP_COLUMN, "");
    else
        fprintf(f, "%-*s", HELP_COLUMN, head);
    print_indented(f, o->help ? o->help : "");
}

void opt_print_help(const struct opt_command *c, const struct option *options, FILE *f)
{
    fprintf(f, "usage: alphaprof %s %s\n", c->name, c->synopsis);
    if (c->about)
        fprintf(f, "\n%s\n", c->about);
    bool heading = false;
    for (const struct option *o = options; o->kind != OPT_KIND_END; o++) {
        if (o->kind == OPT_KIND_GROUP) {
            fprintf(f, "\n%s:\n", o->help);
            heading = true;
            continue;
        }
        if (!heading) {
            fprintf(f, "\noptions:\n");
            heading = true;
        }
        print_option(f, o);
    }
    fprintf(f, "%-*s%s\n", HELP_COLUMN, "  -h, --help", "this text");
    if (c->epilog)
        fprintf(f, "\n%s\n", c->epilog);
}
