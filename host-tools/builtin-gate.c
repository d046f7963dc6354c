/*
 * alphaprof gate: the profile regression gate for CI.  Compares each
 * procedure's time (or any event's count) in a new run with one or more
 * base runs and fails when one got significantly slower by more than a
 * threshold.  The test is util/profile-gate's (sampling error and, given
 * several base runs, their spread; Holm's correction over every row).
 *
 * Invariants: exit status 0 passed, 1 a significant regression beyond the
 * threshold, 2 the input could not be used (bad options, an unreadable
 * database, an event missing from a run): here, unlike the other
 * builtins, 1 is reserved for the verdict a CI job acts on, so a broken
 * input can never read as a regression or as a pass.  Each database is
 * opened read-only and read whole (every epoch).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "util/json-out.h"
#include "util/option-groups.h"
#include "util/profile-compare.h"
#include "util/profile-gate.h"
#include "util/strvec.h"

#define MAX_BASE 32

static const struct opt_command gate_command = {
    .name = "gate",
    .synopsis = "--base A.db [--base A2.db ...] --db B.db [options]",
    .about = "The profile regression gate for CI: compares every procedure's time in\n"
             "run B with the base runs A (one or more databases, each read whole) and\n"
             "fails when one became significantly slower by more than --max-regress.\n"
             "Time is samples times the run's mean sampling period (for an event,\n"
             "its estimated count), so runs at different rates compare.",
    .epilog = "The test, per procedure and for the whole profile: z = (B - mean A) /\n"
              "sqrt(var B + var mean A), each variance the larger of the sampling\n"
              "error (Poisson counts) and the base runs' own spread; two-sided p,\n"
              "Holm-corrected over every row.  A regression is significant at --alpha,\n"
              "slower, and slower by more than --max-regress; an improvement likewise\n"
              "faster.  A procedure new in B is measured against the base's whole\n"
              "time.  Procedures are matched by image and name.\n"
              "\n"
              "Exit status: 0 passed, 1 a significant regression beyond the\n"
              "threshold, 2 bad options or a run that could not be used.",
};

/* --max-regress: a percentage ("2%", "2.5") into a fraction. */
static int opt_percent(void *value, const char *arg, char *why, size_t whylen)
{
    char *end;
    double x = strtod(arg, &end);
    if (end != arg && *end == '%')
        end++;
    if (end == arg || *end || !(x >= 0 && x < 1000)) {
        snprintf(why, whylen, "give a percentage from 0 to 1000, e.g. 2%%");
        return -1;
    }
    *(double *)value = x / 100;
    return 0;
}

struct run {
    const char *db;
    struct profile_view view;
    int e;
    double period;
};

static const char *proc_label(const struct gate_row *g)
{
    return !g->row ? "[whole profile]" : g->row->proc[0] ? g->row->proc : "[outside any procedure]";
}

/* Loads one database whole; 0 or -1 with err set. */
static int load_run(struct run *r, const char *event_spec, const char *image, int core, struct ap_err *err)
{
    struct pdb *db;
    if (pdb_open(r->db, PDB_READ, &db, err))
        return -1;
    uint32_t event;
    struct pv_selection sel = {.epoch = -1, .core = core, .image = image};
    int rc = cmp_resolve_event(db, event_spec, &event, err);
    if (!rc)
        rc = pv_load(db, &sel, &r->view, err);
    pdb_close(db);
    if (rc)
        return -1;
    r->e = pv_event_index(&r->view, event);
    if (r->e < 0) {
        pv_free(&r->view);
        return ap_err_set(err, "%s holds no samples of event %s%s; record the runs with the same events",
                          r->db, event_spec ? event_spec : "(the first)",
                          image || core >= 0 ? " in this selection" : "");
    }
    r->period = (double)r->view.periods[r->e];
    return 0;
}

struct gate_options {
    struct strvec base;
    struct profile_opts po;
    const char *event_spec;
    double max_regress, alpha;
    unsigned limit;
};

static void print_text(const struct gate_options *o, const struct run *runs, size_t nbase,
                       const struct cmp_table *t, const struct gate_result *g, bool periods_known)
{
    const struct run *b = &runs[nbase];
    const char *ev = b->view.event_names[b->e];
    const char *unit = !periods_known ? "samples" : !strcmp(ev, "timer") ? "ns" : ev;
    printf("Event %s, time as %s%s; %zu base run%s, new run %s (%llu samples).\n", ev, unit,
           periods_known ? " (samples x mean period)" : " (a run's mean period is unknown: raw samples)",
           nbase, nbase == 1 ? "" : "s", b->db, (unsigned long long)t->total[nbase]);
    printf("Regression: slower by more than %g%% and significant at %g after Holm's correction over %zu rows.\n\n",
           100 * o->max_regress, o->alpha, g->nrows);
    printf("%-11s %9s %9s %14s %14s %8s %10s  %-32s %s\n", "verdict", "change", "+-se", "base", "new", "z", "p(holm)",
           "procedure", "image");
    unsigned limit = opt_limit(o->limit, false);
    size_t shown = 0, hidden = 0;
    for (size_t i = 0; i < g->nrows; i++) {
        const struct gate_row *r = &g->rows[i];
        bool notable = r->verdict != GATE_SAME || !r->row;
        if (!notable && limit && shown >= limit) {
            hidden++;
            continue;
        }
        shown++;
        printf("%-11s %+8.2f%% %8.2f%% %14.0f %14.0f %8.2f %10.3g  %-32s %s\n", gate_verdict_name(r->verdict),
               100 * r->change, 100 * r->se_change, r->base_mean, r->value, r->z, r->p_holm, proc_label(r),
               r->row ? r->row->image : "");
    }
    if (hidden)
        printf("(%zu more unchanged rows; --limit 0 shows all)\n", hidden);
    if (g->regressions)
        printf("\ngate: FAIL: %zu significant regression%s beyond %g%%\n", g->regressions,
               g->regressions == 1 ? "" : "s", 100 * o->max_regress);
    else
        printf("\ngate: PASS: no significant regression beyond %g%% (%zu improvement%s)\n", 100 * o->max_regress,
               g->improvements, g->improvements == 1 ? "" : "s");
}

static void print_json(const struct gate_options *o, const struct run *runs, size_t nbase,
                       const struct cmp_table *t, const struct gate_result *g, bool periods_known)
{
    const struct run *b = &runs[nbase];
    printf("{\"verdict\": \"%s\", \"event_name\": ", g->regressions ? "fail" : "pass");
    json_str(stdout, b->view.event_names[b->e]);
    printf(", \"time_unit\": \"%s\", \"max_regress\": ", periods_known ? "samples x period" : "samples");
    json_num(stdout, o->max_regress);
    printf(", \"alpha\": ");
    json_num(stdout, o->alpha);
    printf(", \"regressions\": %zu, \"improvements\": %zu, \"runs\": [", g->regressions, g->improvements);
    for (size_t s = 0; s <= nbase; s++) {
        printf("%s{\"role\": \"%s\", \"db\": ", s ? ", " : "", s < nbase ? "base" : "new");
        json_str(stdout, runs[s].db);
        printf(", \"samples\": %llu, \"period\": ", (unsigned long long)t->total[s]);
        json_num(stdout, runs[s].period);
        printf("}");
    }
    printf("],\n \"rows\": [");
    for (size_t i = 0; i < g->nrows; i++) {
        const struct gate_row *r = &g->rows[i];
        printf("%s\n  {\"name\": ", i ? "," : "");
        json_str(stdout, r->row ? r->row->proc : NULL);
        printf(", \"image\": ");
        json_str(stdout, r->row ? r->row->image : NULL);
        printf(", \"whole_profile\": %s, \"verdict\": \"%s\", \"base\": ", r->row ? "false" : "true",
               gate_verdict_name(r->verdict));
        json_num(stdout, r->base_mean);
        printf(", \"base_sd\": ");
        json_num(stdout, r->base_sd);
        printf(", \"new\": ");
        json_num(stdout, r->value);
        printf(", \"change\": ");
        json_num(stdout, r->change);
        printf(", \"se_change\": ");
        json_num(stdout, r->se_change);
        printf(", \"z\": ");
        json_num(stdout, r->z);
        printf(", \"p\": ");
        json_num(stdout, r->p);
        printf(", \"p_holm\": ");
        json_num(stdout, r->p_holm);
        printf(", \"counts\": [");
        for (size_t s = 0; s <= nbase; s++)
            printf("%s%llu", s ? ", " : "",
                   (unsigned long long)(r->row ? r->row->count[s] : t->total[s]));
        printf("]}");
    }
    printf("]}\n");
}

static int gate_run(const struct gate_options *o);

int cmd_gate(int argc, char **argv)
{
    struct gate_options o = {.po = PROFILE_OPTS_INIT, .max_regress = 0.02, .alpha = 0.01,
                             .limit = OPT_LIMIT_UNSET};
    const struct option options[] = {
        OPT_LIST(0, "base", &o.base, "PATH", "a base run's database (repeat for several runs; required)"),
        OPT_STRING(0, "db", &o.po.db, "PATH", "the new run's database (default $ALPHAPROF_DB or alphaprof.db)"),
        OPT_CALLBACK(0, "max-regress", &o.max_regress, "P%", "fail only past this slowdown (default 2%)",
                     opt_percent),
        OPT_CALLBACK(0, "event", &o.event_spec, "E", "event name or number (default: the first, as in report)",
                     opt_event),
        OPT_DOUBLE(0, "alpha", &o.alpha, "X", 0, 1, OPT_ABOVE_MIN | OPT_BELOW_MAX,
                   "significance level, after Holm's correction (default 0.01)"),
        OPT_PROFILE_IMAGE(&o.po), OPT_PROFILE_CORE(&o.po),
        OPT_LIMIT(&o.limit, "unchanged rows besides every changed one"),
        OPT_PROFILE_JSON(&o.po),
        OPT_END(),
    };
    enum opt_result r = opt_parse(&gate_command, options, argc, argv, NULL, NULL);
    int rc = r != OPT_PARSED ? opt_exit(r)
             : o.base.n == 0  ? opt_usage_error(&gate_command, "give the base run(s): --base A.db [--base A2.db ...]")
             : o.base.n > MAX_BASE ? opt_usage_error(&gate_command, "at most %d base runs", MAX_BASE)
                                   : -1;
    if (rc < 0)
        rc = gate_run(&o);
    strvec_free(&o.base);
    return rc;
}

static int gate_run(const struct gate_options *o)
{
    size_t nbase = o->base.n, nruns = nbase + 1;
    struct run *runs = xmalloc(nruns * sizeof *runs);
    memset(runs, 0, nruns * sizeof *runs);
    for (size_t s = 0; s < nbase; s++)
        runs[s].db = o->base.v[s];
    runs[nbase].db = profile_opts_db(&o->po);
    struct ap_err err;
    size_t loaded = 0;
    int rc = 2;
    for (; loaded < nruns; loaded++)
        if (load_run(&runs[loaded], o->event_spec, o->po.sel.image, o->po.sel.core, &err)) {
            fprintf(stderr, "alphaprof gate: %s\n", err.msg);
            goto out;
        }
    const char *ev = runs[nbase].view.event_names[runs[nbase].e];
    for (size_t s = 0; s < nbase; s++)
        if (strcmp(runs[s].view.event_names[runs[s].e], ev)) {
            fprintf(stderr, "alphaprof gate: %s's event is %s but %s's is %s; give --event to compare one event\n",
                    runs[s].db, runs[s].view.event_names[runs[s].e], runs[nbase].db, ev);
            goto out;
        }
    bool periods_known = true;
    for (size_t s = 0; s < nruns; s++)
        periods_known &= runs[s].period > 0;
    double *period = xmalloc(nruns * sizeof *period);
    for (size_t s = 0; s < nruns; s++)
        period[s] = periods_known ? runs[s].period : 1;

    struct cmp_table t;
    cmp_init(&t, CMP_PROCS, nruns);
    for (size_t s = 0; s < nruns; s++)
        cmp_add_view(&t, s, &runs[s].view, runs[s].e);
    cmp_finish(&t);
    struct gate_result g;
    gate_evaluate(&t, period, nbase, o->max_regress, o->alpha, &g);
    if (o->po.json)
        print_json(o, runs, nbase, &t, &g, periods_known);
    else
        print_text(o, runs, nbase, &t, &g, periods_known);
    rc = g.regressions ? 1 : 0;
    gate_free(&g);
    cmp_free(&t);
    free(period);
out:
    for (size_t s = 0; s < loaded; s++)
        pv_free(&runs[s].view);
    free(runs);
    return rc;
}
