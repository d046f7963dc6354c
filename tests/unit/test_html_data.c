/*
 * The HTML report's fixed parts: every drop reason of
 * firmware/abi/counter-names.def is explained in words (a reason added
 * there without an explanation fails here), and the embedded stylesheet
 * and script are there and hold no "</", which would end their <style> or
 * <script> element early.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/html-assets.h"
#include "util/html-data.h"

static const char *const drop_names[] = {
#define LK_DROP(id, number, name, what) name,
#define HOST_DROP(id, name, what) name,
#define VALUE_DROP(id, name, what) name,
#include "firmware/abi/counter-names.def"
};

static void test_every_drop_reason_is_explained(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof drop_names / sizeof drop_names[0]; i++) {
        const char *what = html_drop_what(drop_names[i]);
        if (!what)
            fail_msg("drop reason %s has no explanation in util/html-data.c", drop_names[i]);
        assert_true(strlen(what) > 10);
    }
    assert_null(html_drop_what("no_such_reason"));
}

static void test_assets_are_embedded_and_cannot_end_their_elements(void **state)
{
    (void)state;
    assert_true(strlen(html_report_js) > 1000);
    assert_true(strlen(html_report_css) > 200);
    assert_null(strstr(html_report_js, "</"));
    assert_null(strstr(html_report_css, "</"));
    assert_non_null(strstr(html_report_js, "alphaprof-data"));    /* the element the data sits in */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_drop_reason_is_explained),
        cmocka_unit_test(test_assets_are_embedded_and_cannot_end_their_elements),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
