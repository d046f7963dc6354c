/*
 * Printing the profile database (interface: profile-db.h): `db dump` of
 * any table as aligned text or JSON, and the list of epochs with their
 * totals.  Read only.
 *
 * Invariants:
 *   1. Text and JSON show the same rows: addresses and bit-fields as hex
 *      in text and as unsigned numbers in JSON (SQLite keeps them signed).
 *   2. Only tables in pdb_tables are printed; any other name is an error
 *      that lists them.
 */
#include "util/profile-db-internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/json-out.h"
#include "util/strvec.h"


/* Columns shown in hex in text output (addresses and bit-fields). */
static bool hex_column(const char *name)
{
    static const char *const hex[] = {"address", "offset", "addr", "pc", "events", "history", NULL};
    for (int i = 0; hex[i]; i++)
        if (strcmp(name, hex[i]) == 0)
            return true;
    return false;
}

/* One cell as text (for tables) into buf. */
static const char *cell_text(sqlite3_stmt *st, int i, char *buf, size_t cap)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL:
        return "-";
    case SQLITE_INTEGER: {
        int64_t v = sqlite3_column_int64(st, i);
        if (hex_column(sqlite3_column_name(st, i)))
            snprintf(buf, cap, "0x%" PRIx64, (uint64_t)v);
        else
            snprintf(buf, cap, "%" PRId64, v);
        return buf;
    }
    case SQLITE_BLOB: {
        const unsigned char *b = sqlite3_column_blob(st, i);
        int n = sqlite3_column_bytes(st, i);
        size_t o = 0;
        for (int j = 0; j < n && o + 3 < cap; j++)
            o += (size_t)snprintf(buf + o, cap - o, "%02x", b[j]);
        buf[o] = 0;
        return n ? buf : "-";
    }
    default: {
        const char *t = (const char *)sqlite3_column_text(st, i);
        return t ? t : "";
    }
    }
}

static void json_cell(FILE *out, sqlite3_stmt *st, int i)
{
    char buf[128];
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL:
        fputs("null", out);
        break;
    case SQLITE_INTEGER: {
        int64_t v = sqlite3_column_int64(st, i);
        if (hex_column(sqlite3_column_name(st, i)))
            fprintf(out, "%" PRIu64, (uint64_t)v);  /* addresses are unsigned */
        else
            fprintf(out, "%" PRId64, v);
        break;
    }
    case SQLITE_FLOAT:
        json_num(out, sqlite3_column_double(st, i));
        break;
    case SQLITE_BLOB: {
        const char *t = cell_text(st, i, buf, sizeof buf);
        json_str(out, strcmp(t, "-") ? t : "");
        break;
    }
    default:
        json_strn(out, (const char *)sqlite3_column_text(st, i), (size_t)sqlite3_column_bytes(st, i));
    }
}

/* Prints the rows of a statement: aligned columns (two passes) or JSON
 * objects.  The statement is reset and stepped again for the second pass. */
static int print_rows(struct pdb *db, sqlite3_stmt *st, FILE *out, bool json, struct ap_err *err)
{
    int ncol = sqlite3_column_count(st);
    int rc;
    if (json) {
        fputc('[', out);
        bool first = true;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            fputs(first ? "\n    {" : ",\n    {", out);
            first = false;
            for (int i = 0; i < ncol; i++) {
                if (i)
                    fputs(", ", out);
                const char *name = sqlite3_column_name(st, i);
                json_str(out, name);
                fputs(": ", out);
                json_cell(out, st, i);
            }
            fputc('}', out);
        }
        fputs(first ? "]" : "\n  ]", out);
        return rc == SQLITE_DONE ? 0 : pdb_sql_err(db, err, "reading");
    }
    size_t *width = calloc((size_t)ncol, sizeof *width);
    bool *right = calloc((size_t)ncol, sizeof *right);
    if (!width || !right) {
        free(width);
        free(right);
        return ap_err_set(err, "out of memory");
    }
    char buf[128];
    for (int i = 0; i < ncol; i++)
        width[i] = strlen(sqlite3_column_name(st, i));
    size_t rows = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        rows++;
        for (int i = 0; i < ncol; i++) {
            size_t w = strlen(cell_text(st, i, buf, sizeof buf));
            if (w > width[i])
                width[i] = w;
            if (sqlite3_column_type(st, i) == SQLITE_INTEGER)
                right[i] = true;
        }
    }
    if (rc == SQLITE_DONE) {
        for (int i = 0; i < ncol; i++)
            fprintf(out, "%s%*s", i ? "  " : "",
                    right[i] ? (int)width[i] : (i == ncol - 1 ? 0 : -(int)width[i]),
                    sqlite3_column_name(st, i));
        fputc('\n', out);
        sqlite3_reset(st);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
            for (int i = 0; i < ncol; i++) {
                bool last = i == ncol - 1;
                fprintf(out, "%s%*s%s", i ? "  " : "",
                        right[i] ? (int)width[i] : (last ? 0 : -(int)width[i]),
                        cell_text(st, i, buf, sizeof buf), last ? "\n" : "");
            }
        if (rows == 0)
            fputs("(no rows)\n", out);
    }
    free(width);
    free(right);
    return rc == SQLITE_DONE ? 0 : pdb_sql_err(db, err, "reading");
}

static bool table_has_column(struct pdb *db, const char *table, const char *column)
{
    sqlite3_stmt *st;
    char *sql = sqlite3_mprintf("SELECT 1 FROM pragma_table_info(%Q) WHERE name = %Q", table, column);
    bool has = sqlite3_prepare_v2(db->db, sql, -1, &st, NULL) == SQLITE_OK &&
               sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    sqlite3_free(sql);
    return has;
}

int pdb_dump(struct pdb *db, FILE *out, const char *const *names, size_t nnames, int64_t epoch,
             bool json, struct ap_err *err)
{
    const char *const *list = nnames ? names : pdb_tables;
    size_t n = 0;
    if (!nnames)
        while (pdb_tables[n])
            n++;
    else
        n = nnames;
    for (size_t i = 0; i < n; i++) {
        bool known = false;
        for (int j = 0; pdb_tables[j]; j++)
            known |= strcmp(list[i], pdb_tables[j]) == 0;
        if (!known) {
            struct strvec sv = {0};
            for (int j = 0; pdb_tables[j]; j++)
                strvec_push(&sv, pdb_tables[j]);
            char *all = strvec_join(&sv, ", ");
            ap_err_set(err, "no table '%s' in a profile database; the tables are: %s", list[i], all);
            free(all);
            strvec_free(&sv);
            return -1;
        }
    }
    if (json)
        fputs("{", out);
    for (size_t i = 0; i < n; i++) {
        const char *t = list[i];
        char *sql;
        if (epoch > 0 && strcmp(t, "epochs") == 0)
            sql = sqlite3_mprintf("SELECT * FROM epochs WHERE id = %lld", (long long)epoch);
        else if (epoch > 0 && strcmp(t, "pair_records") == 0)
            sql = sqlite3_mprintf("SELECT * FROM pair_records WHERE pair IN"
                                  " (SELECT id FROM pairs WHERE epoch = %lld)", (long long)epoch);
        else if (epoch > 0 && table_has_column(db, t, "epoch"))
            sql = sqlite3_mprintf("SELECT * FROM \"%w\" WHERE epoch = %lld", t, (long long)epoch);
        else
            sql = sqlite3_mprintf("SELECT * FROM \"%w\"", t);
        sqlite3_stmt *st;
        int rc = sqlite3_prepare_v2(db->db, sql, -1, &st, NULL);
        sqlite3_free(sql);
        if (rc != SQLITE_OK)
            return pdb_sql_err(db, err, "reading");
        if (json) {
            fprintf(out, "%s\n  ", i ? "," : "");
            json_str(out, t);
            fputs(": ", out);
        } else {
            fprintf(out, "%s== %s ==\n", i ? "\n" : "", t);
        }
        rc = print_rows(db, st, out, json, err);
        sqlite3_finalize(st);
        if (rc != 0)
            return -1;
    }
    if (json)
        fputs("\n}\n", out);
    return 0;
}

int pdb_list_epochs(struct pdb *db, FILE *out, bool json, struct ap_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(
            db->db,
            "SELECT e.id AS epoch, e.started, coalesce(e.ended, 'current') AS ended,"
            " (SELECT count(*) FROM sessions s WHERE s.epoch = e.id) AS sessions,"
            " (SELECT coalesce(sum(count), 0) FROM samples s WHERE s.epoch = e.id) AS samples,"
            " (SELECT coalesce(sum(samples), 0) FROM pme p WHERE p.epoch = e.id) AS pme_samples,"
            " (SELECT count(*) FROM pairs p WHERE p.epoch = e.id) AS pairs,"
            " (SELECT coalesce(sum(count), 0) FROM drops d WHERE d.epoch = e.id) AS dropped,"
            " coalesce(e.note, '') AS note"
            " FROM epochs e ORDER BY e.id",
            -1, &st, NULL) != SQLITE_OK)
        return pdb_sql_err(db, err, "listing epochs");
    if (json)
        fputs("{\n  \"epochs\": ", out);
    int rc = print_rows(db, st, out, json, err);
    if (json && rc == 0)
        fputs("\n}\n", out);
    sqlite3_finalize(st);
    return rc;
}