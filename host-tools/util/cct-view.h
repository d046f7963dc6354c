/*
 * The calling context trees of one session as the reports see them
 * (schema v5's cct_records and cct_cores, written by the ingest from CCT
 * frames; the records' meaning is firmware/abi/cct-region.h): per core, the
 * records with procedure names and call sites as source lines, and the
 * exclusive metrics.  `alphaprof cct`, the exports' real stacks and
 * `check --cct` start here.
 *
 * Invariants: a record's exclusive metric is its inclusive one minus the
 * inclusive ones of its tree children (never below zero: the runtime adds
 * a record's time once per outermost activation, and its children's
 * activations lie inside its own); every record of a core is reachable
 * from that core's root (id 0) through `parent`, or is the overflow record.
 */
#ifndef ALPHAPROF_UTIL_CCT_VIEW_H
#define ALPHAPROF_UTIL_CCT_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/error.h"
#include "util/profile-db.h"
#include "util/profile-view.h"

#define CV_NO_NODE ((size_t)-1)
#define CV_HOT_PATHS 3          /* a record's hottest paths kept (instrument --both) */

struct cv_node {
    int core;
    uint64_t id, parent_id;
    size_t parent, first_child, next_sibling;   /* indices in cct_view.nodes, CV_NO_NODE */
    unsigned depth;
    int64_t callee_image, site_image;
    uint64_t callee, site;                      /* offsets in their images */
    uint64_t callee_addr, site_addr;            /* addresses (load address + offset) */
    char name[96];                              /* the callee: procedure, [root] or [overflow] */
    char site_proc[96];                         /* procedure holding the call site */
    const char *site_file;                      /* source of the call site, NULL unknown */
    uint32_t site_line;
    uint64_t calls, cycles, retired;            /* inclusive */
    uint64_t cycles_excl, retired_excl;
    /* instrument --both: the callee's Ball-Larus paths counted in this
     * context (cct_path_counts): their executions, how many distinct, and
     * the hottest (path number, executions), most first */
    uint64_t path_executions;
    uint32_t paths_distinct, nhot;
    struct { uint64_t path, count, cycles, event; } hot[CV_HOT_PATHS];
    /* --both --metrics (schema v12): its paths' summed cycles and event
     * here (each path's start to end, callees included) */
    uint64_t path_cycles, path_event;
};

struct cv_core {
    int core;
    uint64_t total, received, skipped_calls, overflow_calls;
    size_t root;                                /* index of record 0, CV_NO_NODE if missing */
};

struct cct_view {
    int64_t session;
    bool metrics;                               /* cycles and retired measured (instrument --cct
                                                 * --metrics); false: counts only, all 0 */
    bool paths;                                 /* paths counted per context (instrument --both) */
    bool path_metrics;                          /* ... with their cycles and event (--both --metrics) */
    int path_event;                             /* that event (enum pmu_event), -1 none or unknown */
    uint64_t path_total[2];                     /* cycles and event of every context's paths */
    struct cv_node *nodes;                      /* by (core, id) */
    size_t nnodes;
    struct cv_core *cores;
    size_t ncores;
    struct pv_image *images;
    size_t nimages;
};

/* Loads the trees of `session` (0: the newest session that has one).
 * Fails with a message naming the way out when there is none. */
int cv_load(struct pdb *db, int64_t session, struct cct_view *v, struct ap_err *err);
void cv_free(struct cct_view *v);

/* The node of (core, id), or NULL. */
const struct cv_node *cv_find(const struct cct_view *v, int core, uint64_t id);
/* A record's call site as text: file:line (the file's base name), else
 * the calling procedure or its address; "" when none is known (the root). */
void cv_site_text(const struct cv_node *n, char *buf, size_t cap);

/* Whether an image that measures metrics ran where its counter reads all
 * gave 0: a board without the hardware model has no PMU page to read
 * (hw-model/pmu-window.h), so every record's cycles stay 0 while its calls
 * count.  cv_metrics_unread for a tree; the note is the one line `cct` and
 * `paths` print to `out` before their tables (`what`: "context", "path"). */
bool cv_metrics_unread(const struct cct_view *v);
void cv_metrics_unread_note(const char *cmd, const char *what, FILE *out);

#endif
