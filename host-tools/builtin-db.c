/*
 * alphaprof db: look after the profile database: list epochs, start one,
 * dump the raw contents, print the schema, create an empty database.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "util/profile-db.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: alphaprof db [--db PATH] [ACTION] [options]\n"
            "\n"
            "Looks after the profile database that `alphaprof record` and\n"
            "`alphaprof daemon` write (SQLite, WAL mode: safe to read while they run).\n"
            "\n"
            "actions:\n"
            "  epochs             list the epochs with their totals (the default)\n"
            "  new-epoch          end the current epoch and start the next;\n"
            "                     samples merged from now on go there\n"
            "  dump               print the raw contents, table by table\n"
            "  schema             print the SQL schema, with what each column means\n"
            "  init               create an empty database (record creates one too)\n"
            "\n"
            "options:\n"
            "  --db PATH          the database (default $ALPHAPROF_DB or %s)\n"
            "  --json             JSON instead of aligned tables (epochs, dump)\n"
            "  --table NAME       dump only this table (repeatable)\n"
            "  --epoch N          dump only epoch N's rows\n"
            "  --note TEXT        a note for the new epoch\n"
            "  -h, --help         this text\n"
            "\n"
            "Exit status: 0 done, 1 the database could not be read or written,\n"
            "2 bad options.\n",
            PDB_DEFAULT_PATH);
}

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "alphaprof db: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nsee 'alphaprof db --help'\n");
    return 2;
}

static int fail(const struct ap_err *err)
{
    fprintf(stderr, "alphaprof db: %s\n", err->msg);
    return 1;
}

int cmd_db(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},
        {"json", no_argument, NULL, 'j'},
        {"table", required_argument, NULL, 't'},
        {"epoch", required_argument, NULL, 'e'},
        {"note", required_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *path = pdb_default_path();
    const char *note = NULL;
    bool json = false;
    int64_t epoch = 0;
    const char **tables = calloc((size_t)argc + 1, sizeof *tables);
    size_t ntables = 0;
    int c, rc = 0;
    if (!tables)
        return 1;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': path = optarg; break;
        case 'j': json = true; break;
        case 't': tables[ntables++] = optarg; break;
        case 'n': note = optarg; break;
        case 'e': {
            char *end;
            epoch = strtoll(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || epoch <= 0) {
                free(tables);
                return bad_usage("--epoch wants an epoch number (1, 2, ...), not '%s'", optarg);
            }
            break;
        }
        case 'h':
            usage(stdout);
            free(tables);
            return 0;
        case ':':
            free(tables);
            return bad_usage("%s needs a value", argv[optind - 1]);
        default:
            free(tables);
            return bad_usage("unknown option '%s'", argv[optind - 1]);
        }
    }
    const char *action = optind < argc ? argv[optind++] : "epochs";
    if (optind < argc) {
        free(tables);
        return bad_usage("unexpected argument '%s'", argv[optind]);
    }
    if (strcmp(action, "schema") == 0) {
        fputs(pdb_schema_sql(), stdout);
        free(tables);
        return 0;
    }

    enum pdb_mode mode;
    if (strcmp(action, "epochs") == 0 || strcmp(action, "dump") == 0)
        mode = PDB_READ;
    else if (strcmp(action, "new-epoch") == 0)
        mode = PDB_WRITE;
    else if (strcmp(action, "init") == 0)
        mode = PDB_CREATE;
    else {
        free(tables);
        return bad_usage("unknown action '%s' (epochs, new-epoch, dump, schema, init)", action);
    }
    if ((ntables || epoch) && strcmp(action, "dump") != 0) {
        free(tables);
        return bad_usage("--table and --epoch go with dump, not %s", action);
    }

    struct pdb *db;
    struct ap_err err;
    if (pdb_open(path, mode, &db, &err) != 0) {
        free(tables);
        return fail(&err);
    }
    if (strcmp(action, "epochs") == 0) {
        rc = pdb_list_epochs(db, stdout, json, &err);
    } else if (strcmp(action, "dump") == 0) {
        rc = pdb_dump(db, stdout, tables, ntables, epoch, json, &err);
    } else if (strcmp(action, "new-epoch") == 0) {
        int64_t e;
        rc = pdb_new_epoch(db, note, &e, &err);
        if (rc == 0)
            printf("epoch %lld started in %s\n", (long long)e, path);
    } else {
        int64_t e;
        rc = pdb_current_epoch(db, &e, &err);
        if (rc == 0)
            printf("%s: profile database ready, current epoch %lld\n", path, (long long)e);
    }
    pdb_close(db);
    free(tables);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "alphaprof db: cannot write the output\n");
        return 1;
    }
    return rc == 0 ? 0 : fail(&err);
}
