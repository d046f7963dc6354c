/*
 * One procedure's annotated listing (what `alphaprof annotate` prints, like
 * DCPI's dcpilist): for every instruction of the procedure its address,
 * disassembly, source line, the inlined calls it belongs to, its samples of
 * each event and its ProfileMe aggregate.  The model only: printing is the
 * builtin's.
 *
 * Invariants:
 *   1. One entry per 4-byte instruction slot from the symbol's start to its
 *      end (symtab_symbol_end), in address order, sampled or not.
 *   2. Every sample of the view's events that lies in the procedure is in
 *      exactly one entry, and proc_total sums them per event.
 *   3. The listing points into the views it was built from (images,
 *      symbols, lines, ProfileMe aggregates): free it before them.
 */
#ifndef ALPHAPROF_UTIL_PROC_LISTING_H
#define ALPHAPROF_UTIL_PROC_LISTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/pme-view.h"
#include "util/profile-view.h"

#define LISTING_MAX_INLINED 8

struct listing_insn {
    uint64_t pc;
    char text[96];                      /* disassembly, "??" if unreadable */
    const struct source_line *line;     /* NULL without DWARF */
    const char *inlined[LISTING_MAX_INLINED];   /* innermost first */
    size_t ninlined;
    uint64_t count[PV_MAX_EVENTS];      /* samples per event of the view */
    const struct pme_insn *pme;         /* ProfileMe aggregate, NULL if none */
};

struct proc_listing {
    const struct pv_image *img;
    const struct symbol *sym;
    struct listing_insn *insns;
    size_t n;
    uint64_t proc_total[PV_MAX_EVENTS];
    uint64_t pme_samples;               /* ProfileMe samples in the procedure */
};

/*
 * The listing of procedure name: found among the sampled procedures of v,
 * else in any image's symbol table (of v, then of pv, for ProfileMe-only
 * profiles).  pv may be NULL.  -1 if no image has such a procedure.
 */
int proc_listing_build(const struct profile_view *v, const struct pme_view *pv, const char *name,
                       struct proc_listing *l);
void proc_listing_free(struct proc_listing *l);

#endif
