/*
 * alphaprof db: look after the profile database: list epochs, start one,
 * dump the raw contents, print the schema, create an empty database.
 *
 * Invariants:
 *  1. Only new-epoch and init write the database (init may create it);
 *     epochs and dump open it read-only and schema opens nothing, so they
 *     are safe while record or the daemon writes (WAL mode).
 *  2. --help and every usage error end it before a database is opened.
 *  3. Exit status: 0 done, 1 the database (or standard output) could not
 *     be read or written, 2 bad options, as the epilog says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "util/option-groups.h"
#include "util/profile-compare.h"
#include "util/profile-db.h"

static const struct opt_command db_command = {
    .name = "db",
    .synopsis = "[--db PATH] [ACTION] [options]",
    .about = "Looks after the profile database that `alphaprof record` and\n"
             "`alphaprof daemon` write (SQLite, WAL mode: safe to read while they run).\n"
             "\n"
             "actions:\n"
             "  epochs             list the epochs with their totals (the default)\n"
             "  new-epoch          end the current epoch and start the next;\n"
             "                     samples merged from now on go there\n"
             "  dump               print the raw contents, table by table\n"
             "  schema             print the SQL schema, with what each column means\n"
             "  init               create an empty database (record creates one too)",
    .epilog = "Exit status: 0 done, 1 the database could not be read or written,\n"
              "2 bad options.",
};

static const char *const action_names[] = {"epochs", "new-epoch", "dump", "schema", "init", NULL};
enum action { EPOCHS, NEW_EPOCH, DUMP, SCHEMA, INIT };
static const enum pdb_mode action_mode[] = {PDB_READ, PDB_WRITE, PDB_READ, PDB_READ, PDB_CREATE};

/* --epoch of dump: an epoch number, not "all" */
static int epoch_number(void *value, const char *arg, char *why, size_t n)
{
    unsigned u;
    if (!parse_unsigned(arg, &u) || u == 0) {
        snprintf(why, n, "give an epoch number (1, 2, ...)");
        return -1;
    }
    *(int64_t *)value = u;
    return 0;
}

static int fail(const struct ap_err *err)
{
    fprintf(stderr, "alphaprof db: %s\n", err->msg);
    return 1;
}

/* Does the action on the open database. */
static int run_action(struct pdb *db, enum action act, const char *path, const struct strvec *tables,
                      int64_t epoch, const char *note, bool json, struct ap_err *err)
{
    int64_t e;
    switch (act) {
    case EPOCHS:
        return pdb_list_epochs(db, stdout, json, err);
    case DUMP:
        if (cmp_check_epoch(db, epoch, err))      /* (an epoch that is not there dumps nothing) */
            return -1;
        return pdb_dump(db, stdout, (const char **)tables->v, tables->n, epoch, json, err);
    case NEW_EPOCH:
        if (pdb_new_epoch(db, note, &e, err))
            return -1;
        printf("epoch %lld started in %s\n", (long long)e, path);
        return 0;
    default:
        if (pdb_current_epoch(db, &e, err))
            return -1;
        printf("%s: profile database ready, current epoch %lld\n", path, (long long)e);
        return 0;
    }
}

int cmd_db(int argc, char **argv)
{
    struct profile_opts po = PROFILE_OPTS_INIT;
    const char *note = NULL;
    struct strvec tables = {0}, operands = {0};
    int64_t epoch = 0;
    const struct option options[] = {
        OPT_PROFILE_DB(&po),
        OPT_BOOLEAN(0, "json", &po.json, "JSON instead of aligned tables (epochs, dump)"),
        OPT_LIST(0, "table", &tables, "NAME", "dump only this table (repeatable)"),
        OPT_CALLBACK(0, "epoch", &epoch, "N", "dump only epoch N's rows", epoch_number),
        OPT_STRING(0, "note", &note, "TEXT", "a note for the new epoch"),
        OPT_END(),
    };
    enum opt_result r = opt_parse(&db_command, options, argc, argv, &operands, NULL);
    if (r == OPT_HELP_SHOWN) {      /* --help: nothing else runs, no database is opened */
        strvec_free(&tables);
        strvec_free(&operands);
        return 0;
    }
    int rc = r != OPT_PARSED ? opt_exit(r) : 0, act = EPOCHS;
    if (rc == 0 && operands.n > 1)
        rc = opt_usage_error(&db_command, "unexpected argument '%s'", operands.v[1]);
    for (act = 0; rc == 0 && operands.n && action_names[act] && strcmp(action_names[act], operands.v[0]); act++)
        ;
    if (rc == 0 && operands.n && !action_names[act])
        rc = opt_usage_error(&db_command, "unknown action '%s' (epochs, new-epoch, dump, schema, init)", operands.v[0]);
    if (rc == 0 && (tables.n || epoch) && act != DUMP)
        rc = opt_usage_error(&db_command, "--table and --epoch go with dump, not %s", action_names[act]);
    if (rc == 0 && act == SCHEMA)
        fputs(pdb_schema_sql(), stdout);
    struct pdb *db;
    struct ap_err err;
    const char *path = profile_opts_db(&po);
    if (rc == 0 && act != SCHEMA) {
        if (pdb_open(path, action_mode[act], &db, &err) != 0)
            rc = fail(&err);
        else {
            rc = run_action(db, (enum action)act, path, &tables, epoch, note, po.json, &err) ? fail(&err) : 0;
            pdb_close(db);
        }
    }
    if (rc == 0 && fflush(stdout) != 0) {
        fprintf(stderr, "alphaprof db: cannot write the output\n");
        rc = 1;
    }
    strvec_free(&tables);
    strvec_free(&operands);
    return rc;
}
