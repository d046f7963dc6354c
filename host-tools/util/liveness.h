/*
 * Integer register liveness over one procedure's CFG (calc.h), for the
 * instrumenter (util/instrument.c): a trampoline uses the registers dead
 * where it runs as scratch, with no save and restore, and --paths keeps
 * the path number in a register no instruction of the image names.
 *
 * Design notes
 *  1. Masks: bit r is integer register $r; $31 is never live.  Floating
 *     point registers are not tracked (the instrumentation never uses them).
 *  2. What an instruction reads and writes comes from the shared decoder
 *     (hw-model/isa/alpha-insn.def), with the cases the timing model does
 *     not need: a conditional move reads its destination (it may not write
 *     it), a store-conditional writes its source, a word that is no
 *     instruction, a PAL call and unknown MEMF functions read everything.
 *  3. The calling standard: a call through $26 (bsr/jsr) reads the
 *     argument registers $16-$21, pv $27, gp $29 and sp (and, jsr, its
 *     target) and writes only $26: a call kills nothing else, so anything
 *     live after it stays live before it (safe whatever the callee does;
 *     compiled callers read no temporary after a call before writing it).
 *     A call linking through t9 ($23) is millicode (GCC's division
 *     routines __divq, __remqu & co.: arguments in t10 and t11, the result
 *     in t12, every other register kept; GCC's own code relies on it): it
 *     reads $24, $25, gp and sp (and, jsr, its target) and writes only
 *     $23, by the same argument.  (It read everything until a metered
 *     loop needed seven registers dead at its entry, path-region.h note
 *     17: a __divq after parallel's main loop left it three.)  A call
 *     linking through any other register reads everything.  A `ret` through $26 leaves v0, the callee-saved
 *     $9-$15, ra, gp and sp live (LIVE_AT_RET); every other way out of the
 *     procedure (a tail branch, an indirect jump without a table, falling
 *     off its end, a halt, a return through another register) leaves
 *     everything live.
 *  4. The analysis is the usual backward fixpoint over blocks; unreachable
 *     blocks are included (they only add liveness).
 *
 * Invariant: a register outside live_before[i] is not read before being
 * written on any path from instruction i that the CFG knows, under note 3.
 */
#ifndef ALPHAPROF_UTIL_LIVENESS_H
#define ALPHAPROF_UTIL_LIVENESS_H

#include <stdbool.h>
#include <stdint.h>

#include "util/calc.h"

#define LIVE_ALL        0x7fffffffu     /* every register but $31 */
#define LIVE_ARGS       (0x3fu << 16)   /* $16-$21 */
#define LIVE_AT_RET     (1u << 0 | 0x7fu << 9 | 1u << 26 | 1u << 29 | 1u << 30)

/* The integer registers one instruction word reads and writes (note 2;
 * call semantics are the CFG's business, liveness_compute). */
void liveness_regs(uint32_t word, uint32_t *use, uint32_t *def);

/* Every integer register the word names, read or written, for the image
 * scan of a free register; a word that is no instruction names none. */
uint32_t liveness_named(uint32_t word);

/* live_before[i] for each of cfg's n instructions (caller's array). */
void liveness_compute(const struct calc_proc *cfg, uint32_t *live_before);

/* The registers live right after instruction i when it falls through or
 * its edge goes to block `to` (CALC_EXIT: leaving the procedure, note 3). */
uint32_t liveness_at_edge(const struct calc_proc *cfg, const uint32_t *live_before, uint32_t i, uint32_t to);

#endif
