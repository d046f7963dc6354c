/* Command-line option helpers shared by the subcommands. */
#ifndef ALPHAPROF_UTIL_OPTIONS_H
#define ALPHAPROF_UTIL_OPTIONS_H

#include <stdbool.h>

/* "--opt=VAL" or "--opt VAL": the value, advancing *i; NULL if argv[*i] is
 * not this option (or *missing is set when its value is missing). */
const char *opt_value(int argc, char **argv, int *i, const char *name, bool *missing);
/* A decimal number 0..1000000. */
bool parse_unsigned(const char *s, unsigned *out);
/* --model full|counters: the hw-model mode (pmu-window.h PMU_MODE_*), or
 * NULL after printing what is wrong, prefixed by cmd. */
const char *parse_model_mode(const char *cmd, const char *value);

#endif
