/*
 * The fleet store's schema is generated from the SQLite one
 * (util/fleet-store.h note 1): every table of pdb_tables appears, led by
 * the run column, with the run first in its primary key and the SQLite
 * key's columns after it; reserved words (offset) are quoted; and the
 * fleet URI test takes PostgreSQL URIs only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/fleet-store.h"
#include "util/profile-db.h"

static void test_every_table_is_generated_with_its_run(void **state)
{
    (void)state;
    char *sql = NULL;
    struct ap_err err;
    assert_int_equal(fleet_schema_sql(&sql, &err), 0);
    for (size_t i = 0; pdb_tables[i]; i++) {
        char head[128];
        snprintf(head, sizeof head, "CREATE TABLE IF NOT EXISTS \"%s\" (\n    run bigint NOT NULL REFERENCES "
                 "fleet_runs(id) ON DELETE CASCADE", pdb_tables[i]);
        if (!strstr(sql, head))
            fail_msg("table %s is not generated with its run column:\n%s", pdb_tables[i], sql);
    }
    /* samples: the SQLite key (epoch, image, event, core, offset) after the run */
    assert_non_null(strstr(sql, "PRIMARY KEY (run, \"epoch\", \"image\", \"event\", \"core\", \"offset\")"));
    assert_non_null(strstr(sql, "\"offset\" bigint"));
    assert_non_null(strstr(sql, "\"build_id\" bytea"));
    assert_non_null(strstr(sql, "\"oracle_run_id\" bigint"));      /* a column a migration added */
    assert_non_null(strstr(sql, "CREATE TABLE IF NOT EXISTS fleet_runs"));
    free(sql);
}

static void test_fleet_uris(void **state)
{
    (void)state;
    assert_true(fleet_is_uri("postgresql://host/db"));
    assert_true(fleet_is_uri("postgres:///db?host=/tmp#run=1"));
    assert_false(fleet_is_uri("alphaprof.db"));
    assert_false(fleet_is_uri("postgresql.db"));
    assert_false(fleet_is_uri(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_table_is_generated_with_its_run),
        cmocka_unit_test(test_fleet_uris),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
