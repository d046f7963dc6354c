/*
 * Ball-Larus path counts in the model (oracle-format.h: PATH.plan in,
 * PATH.blpaths out): each retired instruction of planned code moves its
 * core's path register by the plan's action for the edge it took.
 *
 * Design notes:
 *  1. One shadow stack of frames per core.  A call (bsr, jsr) in planned
 *     code pushes a frame with its return address; the next planned
 *     instruction is the callee's entry (its start, or past its gp
 *     prologue): ENTRY's action sets the register.  A ret pops back to the
 *     frame whose return address it went to, ending the callee's path at
 *     its EXIT edge; the caller's call edge (to the block after the call)
 *     is applied then, so a call does not end the caller's path.
 *  2. A planned instruction arriving at the top frame's return address
 *     while its callee was expected: the callee was outside the plan; the
 *     frame is dropped, the caller's call edge applied.
 *  3. A frame is counting only in a procedure numbered BL_OK or
 *     BL_TOO_MANY; a transition the plan lacks stops its counting (counted
 *     in unknown) until it returns.
 *  4. Code outside the plan is not followed: the monitor's interrupts and
 *     PALcode run in between without touching the frames.
 *  5. An instruction's way out is the next planned instruction to retire
 *     on its core, not its immediate successor: an interrupt or a system
 *     call after a branch comes back to where the branch went.  So each
 *     planned instruction is followed when the next one retires (the last
 *     of a run is never followed: its path is not counted).
 *  6. Metrics (oracle-format.h): each planned instruction's retirement
 *     comes with the core's counters before and after it (struct
 *     bl_meter); the oracle keeps them with the instruction, so when it
 *     follows it, it knows the counters after it (a path's end, a
 *     backedge's new start) and before it (an entry's start: what ran
 *     before the procedure's first instruction, the monitor's loading or
 *     an interrupt, is not the path's).  A frame keeps its path's start;
 *     count_path adds end - start to the path.
 *  7. A return to no frame's return address (longjmp; setjmp's second
 *     return) goes back to the frame that made the last call returning
 *     there, when that frame is still on the stack: the frames above it
 *     are abandoned (their paths never end, as in the instrumented image),
 *     and its path register is the one it had at that call, as setjmp
 *     saved it (the instrumented image keeps a path register across calls
 *     in a callee-saved register, which longjmp restores); then the call
 *     edge applies as at any return.  So the rule is the CCT oracle's
 *     (cct-oracle.c note 4).  Its metrics' start stays the frame's
 *     current one (the instrumented image keeps it in memory).  Otherwise
 *     the core's frames are dropped and counting starts again at the next
 *     procedure entry.
 *  8. Contexts (oracle-format.h PATH.cctpaths): each planned instruction
 *     comes with the calling-context oracle's current record where it
 *     retired (cct_oracle_current after its cct_oracle_retire).  A path
 *     that an instruction's own edge ends (an exit, a backedge) counts
 *     under that instruction's record; a caller's path ended by its call
 *     edge when the callee returns (note 1, 2, 7) under the record current
 *     when that is followed (the caller's again).  With the path's
 *     metrics (note 6's deltas, the same ones the path adds to its own
 *     entry), so the contexts' metrics of a path add up to its total.
 *  9. Depth.  A core's frames grow with the recursion (doubling, from 256)
 *     up to MAX_FRAMES (2^20); a call past that, or with no memory left,
 *     drops the core's frames, each counting one's open path counted in
 *     lost, and counting starts again (note 7's rule).  (The stack was 256
 *     frames: `calltree 4 700` showed path_count_error 511 against an
 *     instrumented image that had counted every path of its 700-deep
 *     recursion right: the truth had lost them.)
 */
#ifndef HW_MODEL_PLUGIN_BL_ORACLE_H
#define HW_MODEL_PLUGIN_BL_ORACLE_H

#include <stdbool.h>
#include <stdint.h>

#include "hw-model/oracle-format.h"

/* What a translated instruction of planned code needs at run time. */
struct bl_insn {
    const struct oracle_plan_proc *proc;    /* its procedure */
    const struct oracle_plan_edge *edges;   /* edges from it (it ends a block), or NULL */
    uint32_t nedges;
    uint8_t flow;                           /* 0 none, 1 call, 2 return */
};

/* The core's counters after an instruction: [PMU_EV_CYCLES] and
 * [PMU_EV_RETIRED] the PMU page's cycles and retired, the rest its totals. */
struct bl_meter {
    uint64_t v[PMU_EV_COUNT];
};

/* Reads path (the plan); 1 loaded, 0 no such file, -1 bad file. */
int bl_oracle_load(const char *path, unsigned ncores);
bool bl_oracle_active(void);
/* The plan's view of pc (word: its instruction), false if unplanned. */
bool bl_oracle_insn(uint64_t pc, uint32_t word, unsigned cls, struct bl_insn *out);
/* A planned instruction retired on core (its way out is the next one's pc:
 * note 5), in calling context ctx (note 8). */
void bl_oracle_retired(unsigned core, uint64_t pc, const struct bl_insn *in, const struct bl_meter *before,
                       const struct bl_meter *after, uint64_t ctx);
/* Writes path (atomically); 0, or -1 with errno. */
int bl_oracle_write(const char *path, uint64_t run_id);
/* Writes the paths per context (oracle-format.h PATH.cctpaths), likewise. */
int bl_oracle_write_contexts(const char *path, uint64_t run_id);

#endif
