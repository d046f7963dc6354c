/*
 * alphaprof diff: two profiles side by side (two epochs of one database,
 * or two databases), per procedure or per instruction, with whether each
 * change in share is more than sampling noise, sorted by the size of the
 * change.
 *
 * Significance: each row's count is binomial given its profile's total
 * (every sample falls in the row or not, with the row's share of the time
 * as probability), so a change of share is tested with the two-proportion
 * z-test with pooled variance (util/profile-stats.h); the p-values of all
 * rows are corrected together with Holm's method, since a diff tests every
 * row at once.
 *
 * Invariants: the tests and the ranking are util/compare-rank's; this file
 * parses and prints.  Instructions are compared only within one build of
 * an image (--insn across builds is refused, exit 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "util/compare-rank.h"
#include "util/json-out.h"
#include "util/option-groups.h"
#include "util/profile-compare.h"
#include "util/profile-stats.h"
#include "util/strvec.h"

static const struct opt_command diff_command = {
    .name = "diff",
    .synopsis = "[options]",
    .about = "Compares two profiles: two epochs of one database (--epoch A --epoch B)\n"
             "or two databases (--db A --db2 B), per procedure or, with --insn, per\n"
             "instruction, largest change in share first.",
    .epilog = "Significance: two-proportion z-test with pooled variance on each row's\n"
              "share of its profile's samples (each count is binomial given the total),\n"
              "two-sided p; sig = yes when significant at --alpha after Holm's\n"
              "correction over every row compared.  A '~' after p marks rows with fewer\n"
              "than 5 expected samples (or non-samples) on a side, where the normal\n"
              "approximation is rough.  delta% = B% - A%; its 95% interval is in --json.\n"
              "\n"
              "Procedures are matched by image and name, so A and B may come from\n"
              "different builds; instructions by image and offset.\n"
              "\n"
              "Exit status: 0 done, 1 a profile could not be read, 2 bad options.",
};

static const char *const sort_names[] = {"delta", "z", NULL};

struct side {
    const char *db_path;
    int64_t epoch;          /* as asked: > 0, 0 current, -1 all */
    struct pdb *db;
    uint32_t event;
    struct profile_view view;
    bool loaded;
    int e;                  /* event index in view */
};

static int sort_by_z;        /* --sort z */

static const char *proc_label(const struct cmp_row *r)
{
    return r->proc[0] ? r->proc : "[outside any procedure]";
}

static void describe(const struct side *s, bool show_db, char *out, size_t n)
{
    if (s->view.epoch < 0)
        snprintf(out, n, "every epoch%s%s", show_db ? " of " : "", show_db ? s->db_path : "");
    else
        snprintf(out, n, "epoch %lld%s%s", (long long)s->view.epoch, show_db ? " of " : "",
                 show_db ? s->db_path : "");
}

/* Images present in both profiles whose builds differ: a note each, and an
 * error for --insn, where offsets of different builds mean nothing. */
static int compare_builds(struct side *a, struct side *b, bool insn, struct strvec *notes, struct ap_err *err)
{
    for (size_t i = 0; i < a->view.nimages; i++) {
        const struct pv_image *ia = &a->view.images[i];
        for (size_t k = 0; k < b->view.nimages; k++) {
            const struct pv_image *ib = &b->view.images[k];
            if (strcmp(ia->name, ib->name) || ia->id == 0)
                continue;
            char ha[41], hb[41];
            if (cmp_image_build_id(a->db, ia->id, ha, err) || cmp_image_build_id(b->db, ib->id, hb, err))
                return -1;
            if (!strcmp(ha, hb))
                continue;
            if (insn)
                return ap_err_set(err,
                                  "image %s differs between A (build-id %s) and B (build-id %s): "
                                  "instructions cannot be matched; compare procedures (drop --insn)",
                                  ia->name, ha[0] ? ha : "none", hb[0] ? hb : "none");
            strvec_pushf(notes, "image %s differs between A (build-id %s) and B (build-id %s); "
                                "procedures are matched by name",
                         ia->name, ha[0] ? ha : "none", hb[0] ? hb : "none");
        }
    }
    return 0;
}

static void print_text(const struct side *a, const struct side *b, const struct cmp_table *t,
                       const struct diff_rank *rows, size_t n, size_t limit, double alpha,
                       const struct strvec *notes)
{
    bool two_dbs = strcmp(a->db_path, b->db_path) != 0;
    char da[512], db[512];
    describe(a, two_dbs, da, sizeof da);
    describe(b, two_dbs, db, sizeof db);
    printf("Event %s.  A: %s, %llu samples.  B: %s, %llu samples.\n", a->view.event_names[a->e], da,
           (unsigned long long)t->total[0], db, (unsigned long long)t->total[1]);
    printf("Two-proportion z-test on each %s's share; sig: p < %g after Holm's correction over %zu rows.\n",
           t->level == CMP_INSNS ? "instruction" : "procedure", alpha, n);
    for (size_t i = 0; i < notes->n; i++)
        printf("Note: %s.\n", notes->v[i]);
    printf("\n%10s %7s %10s %7s %8s %8s %10s %3s  ", "A", "A%", "B", "B%", "delta%", "z", "p", "sig");
    if (t->level == CMP_INSNS)
        printf("%-18s %-24s %-20s %s\n", "pc", "procedure", "line", "image");
    else
        printf("%-32s %s\n", "procedure", "image");
    size_t shown = limit && limit < n ? limit : n;
    for (size_t i = 0; i < shown; i++) {
        const struct diff_rank *r = &rows[i];
        printf("%10llu %7.2f %10llu %7.2f %+8.2f %8.2f %9.3g%c %3s  ", (unsigned long long)r->row->count[0],
               100 * r->test.share_a, (unsigned long long)r->row->count[1], 100 * r->test.share_b,
               100 * r->test.delta, r->test.z, r->test.p_value, r->test.small ? '~' : ' ',
               r->p_holm <= alpha && r->test.valid ? "yes" : "no");
        if (t->level == CMP_INSNS)
            printf("0x%016llx %-24s %-20s %s\n", (unsigned long long)r->row->address, proc_label(r->row),
                   r->row->where ? r->row->where : "?", r->row->image);
        else
            printf("%-32s %s\n", proc_label(r->row), r->row->image);
    }
    if (shown < n)
        printf("(%zu more rows; --limit 0 shows all)\n", n - shown);
}

static void print_side_json(const char *key, const struct side *s, uint64_t total)
{
    printf("\"%s\": {\"db\": ", key);
    json_str(stdout, s->db_path);
    printf(", \"epoch\": %lld, \"samples\": %llu}", (long long)s->view.epoch, (unsigned long long)total);
}

static void print_json(const struct side *a, const struct side *b, const struct cmp_table *t,
                       const struct diff_rank *rows, size_t n, size_t limit, double alpha,
                       const struct strvec *notes)
{
    printf("{\"event\": %u, \"event_name\": ", a->event);
    json_str(stdout, a->view.event_names[a->e]);
    printf(", \"level\": \"%s\", \"test\": \"two-proportion z-test, Holm-corrected\", \"alpha\": ",
           t->level == CMP_INSNS ? "instruction" : "procedure");
    json_num(stdout, alpha);
    printf(", ");
    print_side_json("a", a, t->total[0]);
    printf(", ");
    print_side_json("b", b, t->total[1]);
    printf(", \"compared\": %zu, \"notes\": [", n);
    for (size_t i = 0; i < notes->n; i++) {
        printf("%s", i ? ", " : "");
        json_str(stdout, notes->v[i]);
    }
    printf("],\n \"rows\": [");
    size_t shown = limit && limit < n ? limit : n;
    for (size_t i = 0; i < shown; i++) {
        const struct diff_rank *r = &rows[i];
        printf("%s\n  {\"name\": ", i ? "," : "");
        json_str(stdout, r->row->proc);
        printf(", \"image\": ");
        json_str(stdout, r->row->image);
        if (t->level == CMP_INSNS) {
            printf(", \"offset\": %llu, \"address\": %llu, \"line\": ", (unsigned long long)r->row->offset,
                   (unsigned long long)r->row->address);
            json_str(stdout, r->row->where);
        }
        printf(", \"a\": %llu, \"b\": %llu, \"share_a\": ", (unsigned long long)r->row->count[0],
               (unsigned long long)r->row->count[1]);
        json_num(stdout, r->test.share_a);
        printf(", \"share_b\": ");
        json_num(stdout, r->test.share_b);
        printf(", \"delta\": ");
        json_num(stdout, r->test.delta);
        printf(", \"ci95\": [");
        json_num(stdout, r->test.ci_lo);
        printf(", ");
        json_num(stdout, r->test.ci_hi);
        printf("], \"z\": ");
        json_num(stdout, r->test.z);
        printf(", \"p\": ");
        json_num(stdout, r->test.p_value);
        printf(", \"p_holm\": ");
        json_num(stdout, r->p_holm);
        printf(", \"significant\": %s, \"few_samples\": %s}", r->p_holm <= alpha && r->test.valid ? "true" : "false",
               r->test.small ? "true" : "false");
    }
    printf("]}\n");
}

static int load_side(struct side *s, const char *event_spec, const char *image, int core, struct ap_err *err)
{
    if (pdb_open(s->db_path, PDB_READ, &s->db, err))
        return -1;
    if (cmp_resolve_event(s->db, event_spec, &s->event, err) || cmp_check_epoch(s->db, s->epoch, err))
        return -1;
    struct pv_selection sel = {.epoch = s->epoch, .core = core, .image = image};
    if (pv_load(s->db, &sel, &s->view, err))
        return -1;
    s->loaded = true;
    s->e = pv_event_index(&s->view, s->event);
    if (s->e < 0) {
        char d[512];
        describe(s, true, d, sizeof d);
        return ap_err_set(err, "%s holds no samples of event %s%s", d, event_spec ? event_spec : "(the first)",
                          image || core >= 0 ? " in this selection" : "");
    }
    return 0;
}

static void close_side(struct side *s)
{
    if (s->loaded)
        pv_free(&s->view);
    if (s->db)
        pdb_close(s->db);
}

/* The command line of one diff, parsed. */
struct diff_options {
    struct profile_opts po;
    const char *db2, *event_spec;
    int64_t epoch_v[2];
    struct epoch_list epochs;
    bool insn;
    int sort;                   /* index in sort_names */
    double alpha;
    unsigned limit;
};

static int diff_report(const struct diff_options *o, struct side *a, struct side *b);

int cmd_diff(int argc, char **argv)
{
    struct diff_options o = {.po = PROFILE_OPTS_INIT, .alpha = 0.05, .limit = OPT_LIMIT_UNSET};
    o.epochs = (struct epoch_list){o.epoch_v, 0, 2, true, "--epoch given more than twice (A's, then B's)"};
    const struct option options[] = {
        OPT_STRING(0, "db", &o.po.db, "PATH", "profile A's database (default $ALPHAPROF_DB or alphaprof.db)"),
        OPT_STRING(0, "db2", &o.db2, "PATH", "profile B's database (default: the same as A)"),
        OPT_CALLBACK(0, "epoch", &o.epochs, "N|all", "first: A's epoch, second: B's (default: the current one;\n"
                     "with --db2, a single --epoch applies to both)", opt_epoch_list),
        OPT_CALLBACK(0, "event", &o.event_spec, "E", "event name or number (default: the first, as in report)",
                     opt_event),
        OPT_PROFILE_IMAGE(&o.po), OPT_PROFILE_CORE(&o.po),
        OPT_BOOLEAN(0, "insn", &o.insn, "per instruction instead of per procedure (A and B must\n"
                    "hold the same build of each image)"),
        OPT_CHOICE(0, "sort", &o.sort, sort_names, "delta|z", "by the change in share (default) or by its z score"),
        OPT_DOUBLE(0, "alpha", &o.alpha, "X", 0, 1, OPT_ABOVE_MIN | OPT_BELOW_MAX,
                   "significance level (default 0.05)"),
        OPT_LIMIT(&o.limit, "rows"),
        OPT_PROFILE_JSON(&o.po),
        OPT_END(),
    };
    enum opt_result r = opt_parse(&diff_command, options, argc, argv, NULL, NULL);
    if (r != OPT_PARSED)
        return opt_exit(r);
    struct side a = {.db_path = profile_opts_db(&o.po)}, b = {.db_path = o.db2 ? o.db2 : a.db_path};
    a.epoch = o.epoch_v[0];
    b.epoch = o.epochs.n == 2 ? o.epoch_v[1] : o.db2 ? o.epoch_v[0] : 0;
    if (!o.db2 && (o.epochs.n < 2 || a.epoch == b.epoch))
        return opt_usage_error(&diff_command, "give two profiles: --epoch A --epoch B (two different epochs), "
                                   "or --db A --db2 B");
    return diff_report(&o, &a, &b);
}

/* Compares side a with side b. */
static int diff_report(const struct diff_options *o, struct side *ap, struct side *bp)
{
    struct side a = *ap, b = *bp;
    const char *event_spec = o->event_spec, *image = o->po.sel.image;
    int core = o->po.sel.core;
    unsigned limit = opt_limit(o->limit, o->po.json);
    bool json = o->po.json, insn = o->insn;
    double alpha = o->alpha;
    sort_by_z = o->sort == 1;
    struct ap_err err;
    struct strvec notes = {0};
    int rc = 1;
    struct cmp_table t;
    cmp_init(&t, insn ? CMP_INSNS : CMP_PROCS, 2);
    struct diff_rank *rows = NULL;
    if (load_side(&a, event_spec, image, core, &err) || load_side(&b, event_spec, image, core, &err) ||
        compare_builds(&a, &b, insn, &notes, &err)) {
        fprintf(stderr, "alphaprof diff: %s\n", err.msg);
        goto out;
    }
    cmp_add_view(&t, 0, &a.view, a.e);
    cmp_add_view(&t, 1, &b.view, b.e);
    cmp_finish(&t);
    rows = rank_diff(&t, sort_by_z);
    if (json)
        print_json(&a, &b, &t, rows, t.nrows, limit, alpha, &notes);
    else
        print_text(&a, &b, &t, rows, t.nrows, limit, alpha, &notes);
    rc = 0;
out:
    free(rows);
    cmp_free(&t);
    strvec_free(&notes);
    close_side(&a);
    close_side(&b);
    return rc;
}
