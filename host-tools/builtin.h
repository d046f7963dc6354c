/*
 * The alphaprof subcommands.  Adding one is one line in BUILTINS below plus
 * its builtin-<name>.c defining int cmd_<name>(int argc, char **argv), where
 * argv[0] is the subcommand name.
 *
 * Invariants: every cmd_* returns 0 on success, 1 when its input could not
 * be used (one line on stderr naming it) and 2 for usage errors; builtins
 * parse options and print, the analyses live in util/.
 */
#ifndef ALPHAPROF_BUILTIN_H
#define ALPHAPROF_BUILTIN_H

/*       name  summary */
#define BUILTINS(X) \
    X(run, "boot the board and run workload images on it") \
    X(record, "run workload images with the on-target profiler into the database") \
    X(daemon, "attach to a running board's profile link and fill the database continuously") \
    X(report, "samples per image and procedure for each event") \
    X(annotate, "a procedure's instructions with source lines and samples") \
    X(check, "compare a profile with the hardware model's oracle (accuracy)") \
    X(db, "list, start and dump epochs of the profile database") \
    X(stats, "variation of each procedure's samples across epochs or runs") \
    X(diff, "two epochs or databases side by side, with significance") \
    X(gate, "fail CI when a procedure got significantly slower than in the base runs") \
    X(export, "write the profile as pprof, folded stacks, callgrind or speedscope") \
    X(html, "the profile as one self-contained HTML report: flame graph, tables, listings") \
    X(push, "upload a profile database to the fleet store (PostgreSQL) as one run") \
    X(trend, "one procedure across the fleet store's runs, oldest first, with its share's interval") \
    X(pme, "ProfileMe estimates per instruction: counts, rates, latencies, bottlenecks") \
    X(calc, "where the cycles went: executions, CPI and stall culprits per instruction (dcpicalc)") \
    X(topstalls, "the instructions with the most stall cycles, with their causes") \
    X(values, "value profiles: each instruction's frequent values, semi-invariants, load latencies") \
    X(paths, "hot paths per procedure from ProfileMe branch history, with source lines") \
    X(instrument, "an instrumented copy of a workload image (calling context tree)") \
    X(cct, "the calling context tree of an instrumented image: calls and cycles per context")

#define DECLARE_BUILTIN(name, summary) int cmd_##name(int argc, char **argv);
BUILTINS(DECLARE_BUILTIN)
#undef DECLARE_BUILTIN

#endif
