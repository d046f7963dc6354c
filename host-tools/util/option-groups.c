/*
 * The shared option groups' callbacks and defaults (see option-groups.h).
 */
#include "util/option-groups.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "hw-model/pmu-window.h"
#include "util/board.h"
#include "util/instrument.h"
#include "util/profile-db.h"
#include "util/qemu-cmdline.h"
#include "util/regular-file.h"
#include "util/strvec.h"

int board_opts_check(const struct opt_command *c, const struct board_opts *bo)
{
    struct ap_err err;
    for (size_t i = 0; i < bo->append.n; i++)
        if (cmdline_check_key(bo->append.v[i], &err))
            return opt_usage_error(c, "--append '%s': %s", bo->append.v[i], err.msg);
    if (bo->oracle) {   /* the model writes it only at the end of the run: say now what would fail then */
        char dir[PATH_MAX];
        const char *slash = strrchr(bo->oracle, '/');
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - bo->oracle) + 1 : 1, slash ? bo->oracle : ".");
        struct stat st;
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
            return opt_usage_error(c, "--oracle %s: no directory %s to write it in", bo->oracle, dir);
        if (regular_or_absent(bo->oracle, "a file name for the oracle", &err))
            return opt_usage_error(c, "--oracle %s", err.msg);
    }
    return 0;
}

int opt_model_mode(void *value, const char *arg, char *why, size_t n)
{
    const char **mode = value;
    if (!strcmp(arg, PMU_MODE_FULL))
        *mode = PMU_MODE_FULL;
    else if (!strcmp(arg, PMU_MODE_COUNTERS))
        *mode = PMU_MODE_COUNTERS;
    else {
        snprintf(why, n, "use full (the timing model) or counters (counts only, near QEMU speed)");
        return -1;
    }
    return 0;
}

bool images_need_model(const struct strvec *images)
{
    for (size_t i = 0; i < images->n; i++)
        if (instrument_metered(images->v[i]))
            return true;
    return false;
}

const char *board_opts_board(const struct board_opts *bo, bool needs_model)
{
    if (bo->board)
        return bo->board;
    return needs_model || bo->oracle || bo->model ? DEFAULT_MODEL_BOARD : DEFAULT_BOARD;
}

int board_name_check(const struct opt_command *c, const char *name)
{
    char home[PATH_MAX];
    struct board board;
    struct ap_err err;
    if (alphaprof_home(home, sizeof home, &err) || board_load(home, name, &board, &err))
        return opt_usage_error(c, "--board '%s': %s", name, err.msg);
    return 0;
}

int opt_epoch(void *value, const char *arg, char *why, size_t n)
{
    unsigned u;
    if (!strcmp(arg, "all"))
        *(int64_t *)value = -1;
    else if (parse_unsigned(arg, &u) && u > 0)
        *(int64_t *)value = u;
    else {
        snprintf(why, n, "give an epoch number or all");
        return -1;
    }
    return 0;
}

int opt_epoch_list(void *value, const char *arg, char *why, size_t n)
{
    struct epoch_list *l = value;
    int64_t e;
    if (l->n == l->max) {
        snprintf(why, n, "%s", l->too_many);
        return -1;
    }
    if (opt_epoch(&e, arg, why, n) || (e < 0 && !l->allow_all)) {
        snprintf(why, n, l->allow_all ? "give an epoch number or all" : "give an epoch number (1, 2, ...)");
        return -1;
    }
    l->v[l->n++] = e;
    return 0;
}

int opt_core(void *value, const char *arg, char *why, size_t n)
{
    unsigned u;
    if (!parse_unsigned(arg, &u) || u > 63) {
        snprintf(why, n, "give a core number (0..63)");
        return -1;
    }
    *(int *)value = (int)u;
    return 0;
}

unsigned opt_limit(unsigned limit, bool json)
{
    return limit != OPT_LIMIT_UNSET ? limit : json ? 0 : OPT_TEXT_LIMIT;
}

const char *profile_opts_db(const struct profile_opts *po)
{
    return po->db ? po->db : pdb_default_path();
}

int opt_event_name(void *value, const char *arg, char *why, size_t n)
{
    if (strcmp(arg, "timer") && pmu_event_lookup(arg, strlen(arg)) < 0) {
        snprintf(why, n, "no event '%s' (events: timer %s)", arg, PMU_EVENT_LIST_TEXT);
        return -1;
    }
    *(const char **)value = arg;
    return 0;
}

int opt_event(void *value, const char *arg, char *why, size_t n)
{
    unsigned u;
    if (parse_unsigned(arg, &u) && u <= 0xffff) {
        *(const char **)value = arg;
        return 0;
    }
    if (opt_event_name(value, arg, why, n) == 0)
        return 0;
    snprintf(why, n, "no event '%s' (give a number or one of: timer %s)", arg, PMU_EVENT_LIST_TEXT);
    return -1;
}

int event_list_check(const char *list, struct event_spec_list *out, char *why, size_t n)
{
    struct event_spec_problem p;
    switch (event_spec_parse(list, strlen(list), out, &p)) {
    case EVENT_SPEC_OK:
        return 0;
    case EVENT_SPEC_NO_EVENT:
        snprintf(why, n, "no event '%.*s' (events: %s)", (int)p.at_len, p.at, PMU_EVENT_LIST_TEXT);
        break;
    case EVENT_SPEC_TOO_MANY:
        snprintf(why, n, "at most %d events (more than the model's %d counters take turns)",
                 EVENT_SPEC_MAX, PMU_COUNTERS);
        break;
    case EVENT_SPEC_EMPTY:
        snprintf(why, n, "an empty %s: give NAME[:MIN-MAX],... (e.g. cycles,dmiss)",
                 p.at == list + strlen(list) && !*list ? "list" : "item");
        break;
    case EVENT_SPEC_BAD_PERIOD:
        snprintf(why, n, "'%.*s' is not %s", (int)p.at_len, p.at, p.expect);
        break;
    }
    return -1;
}

int opt_boot_key(void *value, const char *arg, char *why, size_t n)
{
    struct boot_key_opt *k = value;
    char word[CMDLINE_MAX + 32];
    struct boot_problem p;
    struct event_spec_list unused;
    snprintf(word, sizeof word, "%s=%s", k->key, arg);
    if (strlen(arg) >= CMDLINE_MAX || strpbrk(arg, " \t\n")) {
        snprintf(why, n, "give a value without blanks, shorter than the boot line (%d)", CMDLINE_MAX);
        return -1;
    }
    if (boot_apply_word(k->boot, word, strlen(word), &p) == BOOT_OK) {
        *k->text = arg;
        return 0;
    }
    if (p.item)
        return event_list_check(arg, &unused, why, n);
    snprintf(why, n, "give %s", p.expect);
    return -1;
}

const char *profile_sel_given(const struct pv_selection *sel)
{
    return sel->epoch ? "--epoch" : sel->core >= 0 ? "--core" : sel->image ? "--image" : NULL;
}
