/*
 * The profile as the analyses see it: sample counts of one selection
 * (epoch, cores, images, events) read from the database, attributed to
 * images, procedures and instructions with each image's ELF (util/symbols).
 * report, annotate, stats, diff and the exports all start here.
 *
 * Invariants: every sample of the selection is in exactly one instruction
 * and one procedure (or its image's "outside any procedure" row), so the
 * totals of images, procedures and instructions agree; an image whose ELF
 * is missing or was rebuilt since the record has no symbols (st NULL) and
 * says why (st_error).
 */
#ifndef ALPHAPROF_UTIL_PROFILE_VIEW_H
#define ALPHAPROF_UTIL_PROFILE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/error.h"
#include "util/profile-db.h"
#include "util/symbols.h"

#define PV_MAX_EVENTS 16

struct pv_selection {
    int64_t epoch;              /* 0: the current epoch; -1: every epoch */
    int core;                   /* -1: every core */
    const char *image;          /* image name, or NULL for all */
};

struct pv_image {
    int64_t id;                 /* images.id (0: samples in no image) */
    char name[64];
    char *path;                 /* its ELF, or NULL if unknown */
    uint64_t address;           /* load address: PC = address + offset */
    uint8_t build_id[20];       /* the build the profile recorded (images.build_id) */
    size_t build_id_size;
    struct symtab *st;          /* NULL if the ELF could not be read */
    char *st_error;             /* why not */
    uint64_t total[PV_MAX_EVENTS];
};

/* One procedure (or, for an image without symbols, the whole image). */
struct pv_proc {
    struct pv_image *img;
    const struct symbol *sym;   /* NULL: no symbol covers these PCs */
    const char *name;
    uint64_t count[PV_MAX_EVENTS];
};

/* One instruction: (image, offset) with its counts. */
struct pv_insn {
    struct pv_image *img;
    uint64_t offset;
    uint64_t count[PV_MAX_EVENTS];
};

struct profile_view {
    size_t nevents;
    uint32_t events[PV_MAX_EVENTS];     /* event numbers, ascending */
    char event_names[PV_MAX_EVENTS][32];
    /* Mean sampling period, 0 unknown: for timer samples the period each
     * core achieved (achieved_periods), weighted by its samples, else the
     * one asked for; requested: the one the board set out to keep. */
    uint64_t periods[PV_MAX_EVENTS];
    uint64_t requested[PV_MAX_EVENTS];
    /* Samples x period summed per epoch and core: timer, the virtual ns
     * sampled (each core's own time; cores sharing it add up); a counter,
     * its events.  0 unknown. */
    double estimate[PV_MAX_EVENTS];
    unsigned cores[PV_MAX_EVENTS];      /* cores with samples of the event */
    uint64_t total[PV_MAX_EVENTS];
    struct pv_image *images;
    size_t nimages;
    struct pv_insn *insns;              /* sorted by (image, offset) */
    size_t ninsns;
    struct pv_proc *procs;              /* sorted by the first event's count, descending */
    size_t nprocs;
    int64_t epoch;                      /* the epoch selected (-1: all) */
};

/* Reads the selection; images whose ELF is missing are still counted
 * (procedures then show as "[image]"). */
int pv_load(struct pdb *db, const struct pv_selection *sel, struct profile_view *v,
            struct ap_err *err);
struct sqlite3;
struct sqlite3_stmt;
/* Reads the rows of st (image id, name, path, load address; finalizes
 * it) into *images (*n of them), opening each image's symbols: one that
 * cannot be opened keeps the reason in st_error. */
int pv_read_images(struct sqlite3 *db, struct sqlite3_stmt *st, struct pv_image **images, size_t *n,
                   struct ap_err *err);
/* The image of database id id among images[0..n), or NULL. */
struct pv_image *pv_image_by_id(struct pv_image *images, size_t n, int64_t id);
/* Says on f, one line per image, which images of images[0..n) have no
 * symbols and why (a rebuilt or missing ELF): "CMD: no symbols for NAME:
 * REASON", CMD the command as loss_note takes it ("alphaprof pme").
 * Images named in also[0..nalso) are skipped (said already for another
 * view of the same profile).  Without it a rebuilt
 * image's procedures show as bare addresses with nothing saying why. */
void pv_warn_images(FILE *f, const char *cmd, const struct pv_image *images, size_t n,
                    const struct pv_image *also, size_t nalso);
/* Frees what pv_read_images filled (symbol tables, paths, messages). */
void pv_free_images(struct pv_image *images, size_t n);
void pv_free(struct profile_view *v);
/* Index of an event number in v->events, or -1. */
int pv_event_index(const struct profile_view *v, uint32_t event);
/* The procedure of that name (first match), or NULL. */
const struct pv_proc *pv_find_proc(const struct profile_view *v, const char *name);

#endif
