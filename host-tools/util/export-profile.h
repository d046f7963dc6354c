/*
 * A profile ready to export: one "site" per sampled instruction with its
 * source-level frames (inlined calls innermost first, then the procedure)
 * and its sample counts per event, plus the images as mappings.  Built
 * from a profile view (export_from_view) or by hand (unit tests), and
 * written by the format writers (pprof, folded stacks, callgrind,
 * speedscope), which
 * depend on nothing else.
 *
 * Invariants: one site per instruction of the view, so every sample is in
 * exactly one site and the writers' totals equal the view's; names point
 * into the view and its symbol tables: free the export before the view.
 */
#ifndef ALPHAPROF_UTIL_EXPORT_PROFILE_H
#define ALPHAPROF_UTIL_EXPORT_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/error.h"
#include "util/inline-frames.h"
#include "util/profile-db.h"
#include "util/profile-view.h"

#define XP_MAX_FRAMES 48      /* inlined calls plus, with a calling context tree, the callers */

/* An image (a pprof Mapping; callgrind's ob=; the root of a folded stack). */
struct xp_mapping {
    const char *name;           /* image name */
    const char *path;           /* its ELF, or NULL */
    uint64_t start, limit;      /* [start, limit): where it was loaded */
    char build_id[41];          /* hex, "" if none */
    bool has_functions, has_lines, has_inline;
};

struct xp_site {
    size_t mapping;             /* index into mappings */
    uint64_t pc;
    size_t nframes;             /* >= 1 */
    struct src_frame frames[XP_MAX_FRAMES];    /* innermost first; last: the procedure */
    uint64_t count[PV_MAX_EVENTS];
};

struct xp_profile {
    size_t nevents;
    uint32_t events[PV_MAX_EVENTS];     /* event numbers */
    const char *event_names[PV_MAX_EVENTS];
    uint64_t periods[PV_MAX_EVENTS];    /* mean sampling period, 0 unknown */
    struct xp_mapping *mappings;
    size_t nmappings;
    struct xp_site *sites;              /* in (mapping, pc) order */
    size_t nsites;
    int64_t epoch;                      /* -1: every epoch */
    const char *source;                 /* the database, for comments */
    /* owned by export_from_view */
    struct frame_reader **readers;
    char **strings;
    size_t nstrings;
};

/*
 * Every instruction of the view with samples becomes a site: frames from
 * the image's DWARF (util/inline-frames) with the procedure named as the
 * ELF symbol names it (as report does); an image without symbols gives one
 * frame named "[outside any procedure]".  The view must outlive x.
 */
int export_from_view(struct pdb *db, const struct profile_view *v, struct xp_profile *x, struct ap_err *err);
void export_free(struct xp_profile *x);

struct cct_view;
/*
 * Real stacks from a calling context tree (util/export-contexts.c): every
 * site of a procedure the tree knows becomes one site per calling context
 * of that procedure, its frames followed by the callers' (each at its call
 * site's line) up to the root.  A site's samples are split among the
 * contexts in proportion to their exclusive cycles as the instrumentation
 * measured them (their calls where no cycles were measured), integer
 * counts by largest remainder, so every event's total is unchanged.  Sites
 * of procedures the tree does not know keep their frames.  v must outlive
 * x.  Returns the number of sites that got contexts.
 */
size_t export_add_contexts(struct xp_profile *x, const struct cct_view *v);

/* Index of the event called name (or numbered, as "12") in x, or -1. */
int export_event_index(const struct xp_profile *x, const char *name);

/* gzipped profile.proto (perftools.profiles.Profile), pprof's format. */
int export_pprof(const struct xp_profile *x, FILE *out, struct ap_err *err);
/* "image;procedure;inlined;... count" lines of event e (flame graphs). */
int export_folded(const struct xp_profile *x, size_t e, FILE *out, struct ap_err *err);
/* speedscope's JSON file format, one sampled profile per event. */
int export_speedscope(const struct xp_profile *x, FILE *out, struct ap_err *err);
/* Callgrind format (KCachegrind, callgrind_annotate), every event. */
int export_callgrind(const struct xp_profile *x, FILE *out, struct ap_err *err);

#endif
