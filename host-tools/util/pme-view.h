/*
 * The ProfileMe data of one selection (epoch, core, image) as the analyses
 * see it: per instruction the aggregates of the pme, pme_bits and
 * pme_latency tables (summed over cores) and the paired samples of pairs
 * and pair_records analysed into per-instruction sums (util/pme-estimate),
 * with the sampling intervals from the periods table (PDB_PERIOD_PME*).
 * `alphaprof pme`, `annotate` and `check --oracle` start here.
 *
 * Invariants: instructions are sorted by (image, offset) and unique; every
 * pme sample of the selection is in exactly one instruction; the loss
 * factors are exactly 1 when nothing was lost.
 */
#ifndef ALPHAPROF_UTIL_PME_VIEW_H
#define ALPHAPROF_UTIL_PME_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "firmware/abi/link-protocol.h"
#include "util/error.h"
#include "util/pme-estimate.h"
#include "util/profile-db.h"
#include "util/profile-view.h"

struct pme_insn {
    struct pv_image *img;
    uint64_t offset;
    uint64_t samples, retired, aborted;
    uint64_t bits[LK_MAX_BITS];         /* samples with each event bit */
    uint64_t lat[LK_MAX_LAT];           /* latency sums over samples */
    struct pme_pair_acc pair;           /* from the paired samples */
};

/* One paired sample kept whole (the cycle stacks read each record:
 * util/pme-stacks.h); img NULL: outside the selection, a partner only. */
struct pme_pair_rec {
    struct pv_image *img;
    uint64_t offset;
    uint64_t addr;                      /* effective address, control target, or 0 */
    uint32_t events;                    /* bits by the view's bit_names */
    uint32_t lat[PME_LAT_COUNT];        /* this build's fields, by index (enum pme_latency) */
};
struct pme_pair_raw {
    double distance;                    /* cycles from the first fetch to the second */
    double weight;                      /* pairs it stands for (its bank's offered / kept; 1 in older profiles) */
    uint32_t gap;                       /* fetched instructions from the first to the second */
    struct pme_pair_rec rec[2];
};

struct pme_view {
    int64_t epoch;                      /* the epoch selected (-1: all) */
    size_t nbits, nlat;                 /* named or used bits and fields */
    char bit_names[LK_MAX_BITS][32];
    char lat_names[LK_MAX_LAT][32];
    double interval;                    /* fetched instructions per pme record, 0 unknown */
    double pair_interval;               /* ... per pair, 0 unknown */
    double window;                      /* W, 0 unknown */
    /* Time-sampled records (hw-model/pmu-window.h PME_DRAW_TIME; the
     * periods row PDB_PERIOD_PME_CYCLES): cycles per record, 0 when the
     * records were sampled in fetch order.  Then each pair is two
     * consecutive time samples (no W, no fetched-instruction intervals)
     * and the stacks are estimated by pme-stacks.h note 12. */
    double time_interval, nominal_time_interval;
    /* Records and pairs lost before the database (drops table): the
     * intervals above are per sample the hardware took; divided among
     * the samples kept they grow by these factors (>= 1), applied by
     * pme_view_load.  Losses uniform in time leave kS unbiased. */
    double record_loss_factor, pair_loss_factor;
    double pair_full;                   /* pairs the board dropped (drops pair_full) */
    double nominal_interval, nominal_pair_interval;
    bool window_estimated;              /* W from the gaps, not recorded */
    double ipc_window;                  /* T of the IPC estimate, cycles */
    uint64_t samples, retired, aborted; /* totals over the pme rows */
    uint64_t npairs, max_gap;
    struct pv_image *images;
    size_t nimages;
    struct pme_insn *insns;             /* sorted by (image, offset) */
    size_t ninsns;
    struct pme_pair_raw *raw;           /* every pair of the selection's epoch and core, in id order */
    size_t nraw;
};

/*
 * Reads the selection.  ipc_window is T (cycles) for the pairs' IPC
 * analysis.  A database without ProfileMe rows loads as an empty view.
 * Latency names other than this build's (hw-model/pmu-window.h) are an
 * error: the pair analysis reads fields by their meaning.
 */
int pme_view_load(struct pdb *db, const struct pv_selection *sel, double ipc_window,
                  struct pme_view *v, struct ap_err *err);
void pme_view_free(struct pme_view *v);
/* Index of the event bit called name, or -1. */
int pme_bit_index(const struct pme_view *v, const char *name);
/* The instruction's PC (image 0 holds absolute PCs). */
uint64_t pme_insn_pc(const struct pme_insn *in);
/* The instruction at (image, offset), or NULL. */
const struct pme_insn *pme_view_find(const struct pme_view *v, const struct pv_image *img, uint64_t offset);

#endif
