/*
 * Hot paths from ProfileMe's paired samples (path-recon.h reconstructs,
 * this reads and aggregates): every record of the pairs and pair_records
 * tables is a whole ProfileMe sample with its branch history (single-mode
 * samples are stored as per-PC aggregates only, without history, so paths
 * need `record --paired`).  `alphaprof paths` prints it; `check --paths`
 * checks the reconstruction (path-accuracy.h).
 *
 * Design notes:
 *  1. A sample takes part if it retired (a bad-path sample's history is
 *     speculative) and its PC is in a procedure of an image whose ELF
 *     reads.  The second of a pair uses the first's PC (path-recon.h note
 *     4) when the first retired.
 *  2. A path is the reconstructed segment of nbits history bits ending at
 *     the sampled block; the samples whose reconstruction is unique are
 *     grouped by (procedure, segment, sampled block).  A group of k samples
 *     estimates k x I / L executions of the path (I: fetched instructions
 *     per ProfileMe record, L: the sampled block's length, each execution
 *     offering L instructions to be sampled).  Samples left ambiguous,
 *     unresolved or without a path are counted per procedure, never
 *     spread over paths.
 */
#ifndef ALPHAPROF_UTIL_PATH_PROFILE_H
#define ALPHAPROF_UTIL_PATH_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "util/path-recon.h"
#include "util/profile-db.h"
#include "util/profile-view.h"

#define PR_DEFAULT_BITS 8   /* history bits a path reaches back, unless asked (paths --bits) */

/* One ProfileMe record of a pair. */
struct ps_sample {
    struct pv_image *img;
    uint64_t pc;
    uint32_t history;
    uint32_t core;
    uint32_t gap, distance;     /* of the pair (the second's) */
    uint8_t slot;               /* 0 first, 1 second */
    bool retired;
    bool pair_retired;          /* the second's first retired */
    uint64_t pair_pc;
    int64_t pair_id;
};

struct ps_samples {
    struct pv_image *images;
    size_t nimages;
    struct ps_sample *s;
    size_t n;
    uint64_t npairs;
    double interval;            /* fetched instructions per record, 0 unknown */
    struct pr_program *progs;   /* per image (st NULL: no ELF) */
};

/* Reads the paired samples of the selection; 0, or -1 (err set). */
int ps_load(struct pdb *db, const struct pv_selection *sel, struct ps_samples *ps, struct ap_err *err);
void ps_free(struct ps_samples *ps);
/* The program of a sample's image, or NULL. */
struct pr_program *ps_program(struct ps_samples *ps, const struct pv_image *img);
/* The query of sample i (note 1). */
void ps_query(const struct ps_sample *s, unsigned nbits, bool use_pair, struct pr_query *q);

struct path_row {
    struct pr_segment seg;
    uint64_t samples;
    double executions;          /* note 2 */
};

struct path_proc {
    const char *name;
    struct pv_image *img;
    uint64_t start;
    uint64_t samples;           /* retired samples in it */
    uint64_t outcomes[5];       /* by enum pr_outcome */
    struct path_row *rows;      /* by samples, descending */
    size_t nrows;
};

struct path_profile {
    unsigned nbits;
    uint64_t samples, used;     /* retired samples in procedures; of those with a unique path */
    uint64_t not_retired, no_code;
    struct path_proc *procs;    /* by samples, descending */
    size_t nprocs;
};

/* Reconstructs and groups (note 2); name: only that procedure (NULL all). */
void path_profile_build(struct ps_samples *ps, unsigned nbits, const char *name, struct path_profile *pp);
void path_profile_free(struct path_profile *pp);

/* "file:line" of pc in img, or its address in hex. */
void path_block_where(const struct pv_image *img, uint64_t pc, char *buf, size_t len);
/* A path as `paths` and the HTML report show it: its blocks' lines oldest
 * first, "a > b > c", a callee's blocks as one "[name]". */
void path_row_text(const struct path_proc *pr, const struct path_row *row, char *out, size_t len);

#endif
