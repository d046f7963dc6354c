/*
 * The Ball-Larus path plan the model counts paths by (oracle-format.h,
 * PATH.plan): every function of each workload image numbered with
 * util/ball-larus.c over calc's CFG, written before the run so the
 * plugin's truth and the instrumenter share one numbering.  An image
 * instrumented with --paths or --both is numbered as its original (its
 * patch table gives the replaced words back, and every patched call or
 * return is named as one; its trampolines and the CCT slow path, which
 * only trampolines call, are not planned).
 */
#ifndef ALPHAPROF_UTIL_PATH_PLAN_H
#define ALPHAPROF_UTIL_PATH_PLAN_H

#include <stddef.h>

#include "util/error.h"

/* Writes path (atomically) from the ELF images (one that does not read
 * as an ELF adds nothing: the run names it); 0, or -1 (err set). */
int path_plan_write(const char *path, const char *const *images, size_t nimages, struct ap_err *err);

/* One function symbol's CFG and Ball-Larus numbering exactly as the plan
 * makes them (the instrumenter numbers by this too): 0, or -1 (no code,
 * or unreadable; nothing to free). */
struct symtab;
struct symbol;
struct calc_proc;
struct bl_proc;
struct path_patch;
/* patches (by pc, npatches of them): an instrumented image's replaced
 * instructions (instrument.h), numbered as the original ones. */
int path_plan_number(const struct symtab *st, const struct symbol *sym, const struct path_patch *patches,
                     size_t npatches, struct calc_proc *cfg, struct bl_proc *bl);

#endif
