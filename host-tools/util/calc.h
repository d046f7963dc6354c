/*
 * dcpicalc (DCPI, SOSP 97, section 6) for one procedure: where have the
 * cycles gone.  From the image and the CYCLES samples (and the event
 * samples, when the profile has them) it estimates, per instruction, how
 * often it ran, its cycles per execution, and why it stalled.  The model
 * only; `alphaprof calc` and `topstalls` print it, `check --calc` checks
 * it against the oracle (calc-accuracy.h).
 *
 * Steps, one file each:
 *   calc-cfg.c       the CFG from the image's words (shared decoder):
 *                    blocks end at branches, jumps, calls and returns;
 *                    a jmp through a jump table (calc-jumptab.c) has an
 *                    edge to each target; other indirect jumps (jmp,
 *                    jsr_coroutine) and branches out of the procedure go
 *                    to EXIT, and such a jmp marks the CFG as missing
 *                    edges (its targets are unknown)
 *   calc-equiv.c     frequency-equivalence classes of blocks and edges:
 *                    cycle equivalence (Johnson, Pearson, Pingali 94) with
 *                    EXIT -> ENTRY added, their bracket-list algorithm in
 *                    linear time.  Blocks
 *                    that cannot reach EXIT, and every block of a CFG with
 *                    missing edges, get classes of their own
 *   calc-schedule.c  each block scheduled by the model's own issue rules
 *                    and latencies (hw-model/model/issue-rules.h) with no
 *                    dynamic stall: M_i, the minimal cycles instruction i
 *                    adds (retire gap), its share of its issue group, and
 *                    its static stall with cause and culprit
 *   calc-estimate.c  frequency per class from the clustered S_i/M_i of its
 *                    issue points, local propagation along the flow
 *                    constraints and a branch's edge samples (DCPI
 *                    section 7: the edges' frequencies), confidence;
 *                    then per instruction CPI and
 *                    the dynamic stall S_i - F M_i split among the culprits
 *                    not ruled out, each bounded by its event samples
 *   calc-reconcile.c the trusted classes' estimates made to agree with
 *                    the flow constraints by weighted least squares
 *                    (each by the variance of its samples), none
 *                    negative, before propagation goes on from them
 *   calc-loops.c     natural loops of the CFG (dominators, back edges,
 *                    nesting): what per-loop aggregates (pme --stacks)
 *                    sum over
 *
 * Design notes:
 *  1. Units: a frequency F is executions in the profiled interval (the
 *     samples' F of the paper times the mean CYCLES period P); a stack is
 *     cycles in the interval, indexed by enum cycle_cause
 *     (hw-model/cycle-causes.h) plus CALC_UNEXPLAINED, so it compares with
 *     the oracle's cycle stacks cause by cause.
 *  2. The stacks follow TIP's attribution, as the oracle's do: an issue
 *     group's cycle is split among its members (base), a static or dynamic
 *     stall goes to the instruction that waited at issue, except a
 *     mispredict's bubble, which goes to the mispredicted branch.
 *  3. Culprits are "guilty until proven innocent": every cause not ruled
 *     out stays a candidate (calc_insn.culprits); a cause with event
 *     samples is bounded by them (misses x the pessimistic cost of one,
 *     less what overlapped the miss); the stall is given to bounded
 *     candidates up to their bounds, the rest to candidates without
 *     samples in equal parts, each up to what analysis allows it (a DTB
 *     miss per page the load's base register can cross), else it is
 *     unexplained.
 *  4. Everything is deterministic: same profile and image, same bytes.
 *  5. As in the model (retire = issue + 1), an execution that waits at
 *     issue spends its issue cycle at the head too: that cycle is base, the
 *     wait before it the stall.  So an instruction with M_i >= 2 has
 *     share + 1 base cycles and M_i - 2 static stall cycles per execution,
 *     and a dynamic stall gives one base cycle per stalled execution
 *     (stall cycles over the typical cost of its causes, at most F).
 *  6. A dynamic stall is S_i P - F M_i, and both S_i and F carry sampling
 *     noise: what no culprit can take is shown as unexplained only when
 *     S_i exceeds F M_i / P by more than Poisson noise (2.5 sigma, as the
 *     clustering's); within it, nothing in the samples shows a stall and
 *     the cycles are the instruction's base.
 */
#ifndef ALPHAPROF_UTIL_CALC_H
#define ALPHAPROF_UTIL_CALC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw-model/cycle-causes.h"
#include "hw-model/model/issue-rules.h"

#define CALC_UNEXPLAINED CAUSE_COUNT    /* stack index of stall with no culprit left */
#define CALC_NSTACK (CAUSE_COUNT + 1)
#define CALC_NONE UINT32_MAX
#define CALC_EXIT UINT32_MAX            /* an edge's target: out of the procedure */

/* The events calc reads (by name in the profile); CALC_EV_CYCLES first. */
#define CALC_EVENTS(X) X(CYCLES, cycles) X(IMISS, imiss) X(ITBMISS, itbmiss) X(DMISS, dmiss) \
    X(L2MISS, l2miss) X(DTBMISS, dtbmiss) X(BRANCHMP, branchmp)
#define CALC_EV_ENUM_(N, n) CALC_EV_##N,
enum calc_event { CALC_EVENTS(CALC_EV_ENUM_) CALC_NEV };
#undef CALC_EV_ENUM_

enum calc_confidence { CONF_LOW, CONF_MEDIUM, CONF_HIGH };
enum calc_edge_kind { EDGE_FALL, EDGE_TAKEN, EDGE_CALL_RETURN, EDGE_ENTRY, EDGE_OUT, EDGE_TABLE };
/* What an indirect jmp is (calc_insn.jump). */
enum calc_jump { JUMP_NONE, JUMP_TABLE, JUMP_UNKNOWN };

struct calc_insn {
    uint64_t pc;
    struct insn_static s;
    uint32_t block;
    uint8_t jump;               /* enum calc_jump: a jmp through a jump table, or to where unknown */
    /* the static schedule */
    uint32_t m;                 /* M_i: cycles added with no dynamic stall */
    double share;               /* its part of its issue group's cycle */
    uint8_t static_cause;       /* of the M_i - 1 stall cycles (enum cycle_cause) */
    uint32_t static_culprit;    /* the instruction it waited for, or CALC_NONE */
    uint32_t m_alt;             /* M_i when the block is entered the other way
                                 * (calc_block.alt_entry), else m */
    /* the profile */
    double samples[CALC_NEV];
    /* Edge samples (DCPI section 7): of a conditional branch, sampled
     * executions whose direction is known and how many of them were
     * taken (ProfileMe's retired records and their taken bit); 0 none. */
    double dir_samples, dir_taken;
    /* the estimates */
    double freq;                /* executions (note 1) */
    double dynamic;             /* dynamic stall cycles (S_i P - F M_i) */
    uint32_t culprits;          /* 1 << cause of each candidate (note 3) */
    uint32_t culprit_insn;      /* the load, branch... it points to, or CALC_NONE */
    double stack[CALC_NSTACK];  /* cycles by cause (notes 1, 2) */
};

struct calc_block {
    uint32_t first, n;          /* instructions */
    uint32_t cls;               /* its frequency-equivalence class */
    uint32_t *in, *out;         /* edge indices */
    uint32_t nin, nout;
    bool reaches_exit, reached;
    bool fall_dominant;         /* mostly entered by falling through (calc_refine) */
    bool alt_entry;             /* entered both by falling through from the block
                                 * before and otherwise: m is one schedule, m_alt
                                 * the other (calc-schedule.c) */
};

struct calc_edge {
    uint32_t from, to;          /* blocks; ENTRY's edge has from CALC_NONE, EXIT's to CALC_EXIT */
    uint8_t kind;               /* enum calc_edge_kind */
    uint32_t cls;
    double freq;                /* estimated executions, < 0 unknown */
};

/* Where a class's frequency came from. */
enum calc_by { BY_NONE, BY_SAMPLES, BY_PROPAGATION, BY_BRANCH };

struct calc_class {
    double freq;                /* < 0: unknown */
    uint8_t confidence;         /* enum calc_confidence */
    uint8_t by;                 /* enum calc_by (BY_NONE: no estimate, freq 0) */
    bool propagated;
    uint32_t points, used;      /* issue points, and those in the chosen cluster */
};

struct calc_proc {
    uint64_t start;
    struct calc_insn *insns;
    size_t n;
    struct calc_block *blocks;
    size_t nblocks;
    struct calc_edge *edges;
    size_t nedges;
    struct calc_class *classes;
    size_t nclasses;
    bool missing_edges;         /* an indirect jump whose targets are unknown */
    struct model_params params;
};

/* How an instruction ends a block (calc-cfg.c): FLOW_NONE it does not;
 * bsr and jsr are calls, br a branch, jmp and jsr_coroutine indirect,
 * the halt PALcall a halt. */
enum calc_flow { FLOW_NONE, FLOW_COND, FLOW_BRANCH, FLOW_CALL, FLOW_RETURN, FLOW_INDIRECT, FLOW_HALT };
enum calc_flow calc_flow_of(uint32_t w, unsigned cls);

/* The image around a procedure: its jump tables are read through it.
 * local_entry: a procedure that starts with gcc's gp prologue (ldah gp,
 * X(pv); lda gp, Y(gp)) is also entered right after it, at +8 (callers
 * in its own unit bsr to its ..ng label: their gp is already right), so
 * the prologue runs less often than the rest of its block: the CFG gets
 * a block boundary there and a second ENTRY edge (edges[1]). */
struct calc_image {
    bool (*read)(const void *ctx, uint64_t addr, void *buf, size_t len);
    const void *ctx;
    bool local_entry;
};
/* Do the words w[0..n) start with gcc's gp prologue, ldah gp, X(pv);
 * lda gp, Y(gp) (so callers in the procedure's unit may enter at +8)?
 * (The instrumenter's alt_entry and path entry ask it too.) */
bool calc_has_gp_prologue(const uint32_t *w, size_t n);
/* The executions of the procedure's ENTRY edges whose estimate is known,
 * together (0 when none is). */
double calc_entry_freq(const struct calc_proc *p);

/* The CFG of the n words at start (calc-cfg.c); 0, or -1 if n is 0.
 * With img, a jmp through a jump table gets an edge to each target
 * (calc_jump_table); any other jmp marks the CFG as missing edges. */
int calc_cfg_build(struct calc_proc *p, const struct model_params *params, uint64_t start,
                   const uint32_t *words, size_t n);
int calc_cfg_build_image(struct calc_proc *p, const struct model_params *params, uint64_t start,
                         const uint32_t *words, size_t n, const struct calc_image *img);
/* The targets of the jmp at words[j] if it is gcc's jump-table pattern
 * (calc-jumptab.c): their number (one per table entry, *targets malloc'd),
 * or 0 (*targets NULL). */
size_t calc_jump_table(const uint32_t *words, size_t n, uint64_t start, size_t j, const struct calc_image *img,
                       uint64_t **targets);
void calc_proc_free(struct calc_proc *p);
/* Frequency-equivalence classes (calc-equiv.c). */
void calc_equivalence(struct calc_proc *p);
/*
 * Cycle equivalence of an undirected graph in O(V + E) (calc-equiv.c):
 * nv vertices, ne edges joining ea[e] and eb[e], those with alive[e] taking
 * part.  cls[e] gets each alive edge's class (0, 1, ... in order of
 * discovery; UINT32_MAX for the rest and for edges not connected to
 * root); two edges share a class iff every cycle through one passes
 * through the other.  Returns the number of classes.  Meant for graphs
 * whose alive edges all lie on cycles (a bridge gets a class of its own).
 */
uint32_t calc_cycle_equivalence(uint32_t nv, uint32_t ne, const uint32_t *ea, const uint32_t *eb,
                                const bool *alive, uint32_t root, uint32_t *cls);
/* A natural loop (calc-loops.c: a header that dominates the source of a
 * back edge to it, and the blocks reaching that source without passing
 * through the header). */
struct calc_loop {
    uint32_t header;            /* block */
    uint32_t *blocks, nblocks;  /* its body, header included, ascending */
    uint32_t backedges;         /* edges back to the header */
    uint32_t parent;            /* the smallest loop holding it (index), or CALC_NONE */
    uint32_t depth;             /* 1: outermost */
};
/* The natural loops of p's CFG in their headers' address order: how many,
 * *out malloc'd (NULL when none). */
size_t calc_loops_find(const struct calc_proc *p, struct calc_loop **out);
bool calc_loop_holds(const struct calc_loop *l, uint32_t block);
void calc_loops_free(struct calc_loop *loops, size_t n);
/* The static schedule of every block (calc-schedule.c). */
void calc_schedule(struct calc_proc *p);

/* What an estimate needs of the profile besides each instruction's samples. */
struct calc_rates {
    double period[CALC_NEV];    /* mean sampling period of each event, 0: not sampled */
};
/* The classes' estimates y (var: each one's variance; y < 0 or var not
 * finite and > 0: no estimate) reconciled with the flow constraints by
 * weighted least squares, no class negative (calc-reconcile.c): x gets
 * one frequency per class.  False (x = y, or 0 where y < 0) when the
 * procedure is too large or the system singular. */
bool calc_reconcile(const struct calc_proc *p, const double *y, const double *var, double *x);
/* Frequencies, CPI, culprits and stacks from insns[].samples (calc-estimate.c). */
void calc_estimate(struct calc_proc *p, const struct calc_rates *r);

/* A second pass: a block with several ways in whose fall-through
 * predecessor runs at least half as often is scheduled on from that
 * predecessor (it pairs with its tail), then everything is estimated
 * again.  Nothing changes if no block qualifies. */
void calc_refine(struct calc_proc *p, const struct calc_rates *r);

/* All the steps, calc_refine included. */
int calc_analyse(struct calc_proc *p, const struct model_params *params, uint64_t start,
                 const uint32_t *words, size_t n, const struct calc_rates *r);

/* Zeroed memory; never NULL (exits when out of memory, as xmalloc). */
void *calc_zalloc(size_t n, size_t size);

/* The short names of the stack's slots, cause order then "unexplained". */
extern const char *const calc_stack_names[CALC_NSTACK];
extern const char *const calc_event_names[CALC_NEV];
extern const char *const calc_confidence_names[3];
extern const char *const calc_by_names[4];
extern const char *const calc_edge_kind_names[6];
/* One letter per cause for the listing's bubbles (DCPI's: d D-cache, D DTB,
 * i I-cache, I ITB, p mispredict, w write buffer, f unit busy, a dependency,
 * s slotting...). */
extern const char calc_stack_letters[CALC_NSTACK + 1];

#endif
