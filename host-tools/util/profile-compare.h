/*
 * Several profiles side by side, for `alphaprof stats` (many epochs or
 * runs) and `alphaprof diff` (two).  Each profile ("set") is a profile view
 * of one event; rows match procedures (or instructions) across sets by
 * image name and procedure name (or offset), so sets may come from
 * different databases.  Two static procedures of one name in one image
 * share a row.
 *
 * Invariants: after cmp_finish rows are sorted by (image, procedure,
 * offset) and unique, and each set's counts over the rows sum to at most
 * its total (samples outside the selection are in the total only).
 */
#ifndef ALPHAPROF_UTIL_PROFILE_COMPARE_H
#define ALPHAPROF_UTIL_PROFILE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "util/profile-db.h"
#include "util/profile-view.h"

enum cmp_level { CMP_PROCS, CMP_INSNS };

struct cmp_row {
    char *image;            /* image name */
    char *proc;             /* procedure name; "" outside any procedure */
    uint64_t offset;        /* CMP_INSNS: offset in the image */
    uint64_t address;       /* procedure start or instruction PC (first set that has it) */
    char *where;            /* CMP_INSNS: "file:line" from DWARF, or NULL */
    uint64_t *count;        /* per set */
    size_t present;         /* sets where count > 0 */
};

struct cmp_entry;

struct cmp_table {
    enum cmp_level level;
    size_t nsets;
    uint64_t *total;        /* per set: every sample of the event in its selection */
    struct cmp_row *rows;   /* sorted by (image, proc, offset) after cmp_finish */
    size_t nrows;
    struct cmp_entry *pending;
    size_t npending, cap;
};

void cmp_init(struct cmp_table *t, enum cmp_level level, size_t nsets);
/* Adds view v's counts of its event index e as set number `set`. */
void cmp_add_view(struct cmp_table *t, size_t set, const struct profile_view *v, int e);
/* Merges what was added into rows (call once, after every cmp_add_view). */
void cmp_finish(struct cmp_table *t);
void cmp_free(struct cmp_table *t);

/*
 * The event named by spec: a number, "timer", or a name the firmware gave
 * (names table).  NULL spec: the lowest-numbered event with samples (the
 * one report lists first).  Errors list the events the database has.
 */
int cmp_resolve_event(struct pdb *db, const char *spec, uint32_t *event, struct ap_err *err);
/* Fails with a clear message unless epoch (> 0) exists in db. */
int cmp_check_epoch(struct pdb *db, int64_t epoch, struct ap_err *err);
/* Epochs holding samples of event (within image/core when given), ascending;
 * *epochs is malloc'ed. */
int cmp_epochs_with_event(struct pdb *db, uint32_t event, const char *image, int core,
                          int64_t **epochs, size_t *n, struct ap_err *err);
/* The GNU build-id of an image as lowercase hex ("" if none) into hex[41]. */
int cmp_image_build_id(struct pdb *db, int64_t image, char hex[41], struct ap_err *err);

#endif
