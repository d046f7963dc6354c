/*
 * alphaprof push: uploads a profile database to the fleet store, a
 * PostgreSQL database holding the runs of many boards and CI jobs
 * (util/fleet-store.h: the schema, generated from the SQLite one, and
 * what makes a push idempotent).  Every command that reads a profile then
 * reads a pushed run with --db postgresql://...#run=N (or board=,
 * workload=, build_id=, since=, until=, nth=).
 *
 * Invariants: the database pushed is opened read-only; a push is one
 * transaction (all of the run or none of it); pushing a database again
 * replaces its run, never adds a second.  Exit status: 0 stored, 1 the
 * database could not be read or the store not written, 2 bad options.
 */
#include <stdio.h>

#include "builtin.h"
#include "util/fleet-store.h"
#include "util/option-groups.h"

static const struct opt_command push_command = {
    .name = "push",
    .synopsis = "--db FILE --to postgresql://...",
    .about = "Uploads the profile database FILE to the fleet store (PostgreSQL) as one\n"
             "run: sessions, boards, images by build-id, samples, ProfileMe, drops and\n"
             "stats.  Pushing the same database again replaces its run (a database\n"
             "that grew since is stored as it is now): pushing twice stores once.",
    .epilog = "Read a run back with any command's --db:\n"
              "  alphaprof report --db 'postgresql://host/fleet#run=12'\n"
              "  alphaprof report --db 'postgresql://host/fleet#board=clipper-pm&workload=qsort'\n"
              "(the newest matching run; nth=1 the one before it; since=, until= compare\n"
              "with the run's start, UTC ISO-8601; build_id= a build-id's hex).\n"
              "\n"
              "Exit status: 0 stored, 1 the database could not be read or the store not\n"
              "written, 2 bad options.",
};

int cmd_push(int argc, char **argv)
{
    struct profile_opts po = PROFILE_OPTS_INIT;
    const char *to = NULL;
    const struct option options[] = {
        OPT_PROFILE_DB(&po),
        OPT_STRING(0, "to", &to, "URI", "the fleet store: postgresql://[user@]host[:port]/dbname (libpq's URI)"),
        OPT_END(),
    };
    enum opt_result r = opt_parse(&push_command, options, argc, argv, NULL, NULL);
    if (r != OPT_PARSED)
        return opt_exit(r);
    if (!to || !fleet_is_uri(to))
        return opt_usage_error(&push_command, "give the fleet store: --to postgresql://host/dbname");
    const char *db = profile_opts_db(&po);
    if (fleet_is_uri(db))
        return opt_usage_error(&push_command, "--db is the local database to push, not a fleet store");
    struct ap_err err;
    int64_t run;
    bool replaced;
    if (fleet_push(db, to, &run, &replaced, &err)) {
        fprintf(stderr, "alphaprof push: %s\n", err.msg);
        return 1;
    }
    printf("alphaprof push: %s stored as run %lld%s\n", db, (long long)run,
           replaced ? " (replacing its earlier push)" : "");
    return 0;
}
