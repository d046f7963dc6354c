/*
 * Ball-Larus path numbering (Ball and Larus, "Efficient path profiling",
 * MICRO 1996) of one procedure's CFG, the CFG calc already builds from the
 * image (calc.h, calc_cfg_build).  The one numbering the instrumenter, the
 * model's path truth and the reports share.
 *
 * Use:
 *     struct calc_proc cfg;  calc_cfg_build(&cfg, ...);
 *     struct bl_proc bl;     bl_number(&bl, &cfg, weights_or_NULL);
 *     ... bl.action[e] for every CFG edge e (what runs on it), bl.npaths,
 *     bl_regenerate(&bl, r, &path) (a number back to its blocks) ...
 *     bl_free(&bl);
 *
 * Design notes:
 *  1. Nodes: the CFG's blocks 0..nblocks-1, then ENTRY (bl_entry()) and
 *     EXIT (bl_exit()).  ENTRY's one real edge is the CFG's edges[0]; every
 *     CFG edge to CALC_EXIT (a return, halt, tail branch out, indirect jump)
 *     goes to EXIT.  Calls do not end a path: a call's block has one edge,
 *     to the block after the call (EDGE_CALL_RETURN); the callee's paths
 *     are its own.
 *  2. Backedges are the retreating edges of a depth-first search from
 *     block 0 (edges to a block on the search stack); each is replaced in
 *     the DAG by two pseudo edges, ENTRY -> its target and its source ->
 *     EXIT.  Blocks not reachable from block 0 are outside the DAG
 *     (numpaths 0, their edges' actions BL_ACT_UNREACHABLE).
 *  3. Numbering: numpaths[EXIT] = 1; numpaths[v] = sum over v's out edges
 *     of numpaths[target]; v's out edges, in the order of their index in
 *     edges[], get val = the sum of numpaths[target] of the edges before
 *     them.  So each ENTRY -> EXIT path of the DAG has a unique val sum in
 *     [0, npaths) and every number in that range is one path
 *     (bl_regenerate inverts it).
 *  4. Placement (Ball's event counting): a maximum-weight spanning tree of
 *     the DAG with the edge EXIT -> ENTRY added (and forced into the tree)
 *     is taken, weights being the caller's expected edge frequencies; with
 *     pot[] a potential over the tree (pot[ENTRY] = pot[EXIT] = 0, tree
 *     edges: pot[to] = pot[from] + val), inc(e) = pot[from] + val(e) -
 *     pot[to].  inc is 0 on tree edges, so only chords carry code, and on
 *     every ENTRY -> EXIT path the incs sum to the vals (the potential
 *     telescopes).  The heaviest edges are in the tree: the common path
 *     pays least.
 *  5. What runs, per CFG edge (bl_action): r is the procedure activation's
 *     path register.  ENTRY's edge: r = add.  A DAG edge inside: r += add
 *     (add 0: nothing).  An edge to EXIT: count[r + add].  A backedge:
 *     count[r + add] (its source -> EXIT pseudo edge), then r = reset (the
 *     ENTRY -> target pseudo edge's inc).  bl_step applies it, so a
 *     simulator and the instrumenter cannot disagree.
 *  6. What BL cannot number is marked, not guessed: status BL_INDIRECT
 *     when the CFG has an indirect jump whose targets are unknown (calc's
 *     missing_edges: the jump's edge goes to EXIT, but control comes back
 *     into the procedure by an edge the DAG does not have); BL_TOO_MANY
 *     when numpaths[ENTRY] exceeds BL_MAX_PATHS (then the numbers are
 *     still unique but need a hash table rather than an array; npaths is
 *     saturated at UINT64_MAX if it does not fit 64 bits, status
 *     BL_OVERFLOW, and then numbers are no longer unique).  Use
 *     bl_countable() before counting into an array.
 *
 * Invariants (checked by tests/unit/test_ball_larus.c): for every path
 * number r in [0, npaths), bl_regenerate(r) gives an ENTRY -> EXIT DAG path
 * whose vals and whose incs both sum to r; distinct r give distinct paths.
 */
#ifndef ALPHAPROF_UTIL_BALL_LARUS_H
#define ALPHAPROF_UTIL_BALL_LARUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/calc.h"

#define BL_MAX_PATHS (1ull << 24)       /* above: count in a hash table (note 6) */

enum bl_status { BL_OK, BL_INDIRECT, BL_TOO_MANY, BL_OVERFLOW };
extern const char *const bl_status_names[4];

enum bl_edge_kind {
    BL_EDGE_REAL,           /* a CFG edge that is not a backedge */
    BL_EDGE_PSEUDO_ENTRY,   /* ENTRY -> a backedge's target */
    BL_EDGE_PSEUDO_EXIT,    /* a backedge's source -> EXIT */
};

struct bl_edge {                /* an edge of the DAG */
    uint32_t from, to;          /* nodes (note 1) */
    uint32_t cfg_edge;          /* the CFG edge it is, or (pseudo) the backedge it stands for */
    uint8_t kind;               /* enum bl_edge_kind */
    bool chord;                 /* not in the spanning tree: carries inc */
    uint64_t val;               /* note 3 */
    int64_t inc;                /* note 4 (0 on tree edges) */
};

enum bl_action_kind {
    BL_ACT_ADD,                 /* r += add */
    BL_ACT_ENTRY,               /* r = add (ENTRY's edge: the path starts) */
    BL_ACT_EXIT,                /* count[r + add] (the path ends) */
    BL_ACT_BACKEDGE,            /* count[r + add]; r = reset */
    BL_ACT_UNREACHABLE,         /* from a block block 0 cannot reach */
};

struct bl_action {              /* per CFG edge (note 5) */
    uint8_t kind;               /* enum bl_action_kind */
    int64_t add, reset;
};

struct bl_proc {
    enum bl_status status;
    size_t nblocks, nnodes;     /* nnodes = nblocks + 2 */
    uint64_t npaths;            /* numpaths[ENTRY] */
    uint64_t *numpaths;         /* per node */
    struct bl_edge *edges;      /* the DAG's edges */
    size_t nedges;
    uint32_t *out, *out_start;  /* DAG edges by source node: out[out_start[v] .. out_start[v + 1]) */
    size_t ncfg_edges;
    bool *backedge;             /* per CFG edge */
    struct bl_action *action;   /* per CFG edge */
    size_t nchords;             /* DAG edges that carry an increment */
};

static inline uint32_t bl_entry(const struct bl_proc *bl) { return (uint32_t)bl->nblocks; }
static inline uint32_t bl_exit(const struct bl_proc *bl) { return (uint32_t)bl->nblocks + 1; }

/* Numbers cfg's paths.  weight[e] per CFG edge (expected executions; NULL:
 * all 1) chooses the spanning tree (note 4).  0, or -1 for an empty CFG. */
int bl_number(struct bl_proc *bl, const struct calc_proc *cfg, const double *weight);
void bl_free(struct bl_proc *bl);

/* Paths can be counted in an array of npaths entries (note 6). */
static inline bool bl_countable(const struct bl_proc *bl) { return bl->status == BL_OK; }

/* One CFG edge e taken by an activation whose path register is *r (note
 * 5).  Returns true when a path ended on it, its number in *done. */
bool bl_step(const struct bl_proc *bl, uint32_t e, int64_t *r, uint64_t *done);

/* A path: its blocks in order, and how it starts and ends. */
struct bl_path {
    uint32_t *blocks;           /* owned; n of them */
    size_t n;
    bool from_backedge;         /* starts at a backedge's target (else at the procedure's entry) */
    bool to_backedge;           /* ends by a backedge (else by leaving the procedure) */
    uint32_t first_cfg_edge;    /* ENTRY's edge, or the backedge it started after */
    uint32_t last_cfg_edge;     /* the edge to EXIT, or the backedge it ended by */
    uint32_t *dag_edges;        /* owned; ndag DAG edges, ENTRY's first, EXIT's last */
    size_t ndag;
};

/* The path numbered r (note 3): 0, or -1 if r >= npaths. */
int bl_regenerate(const struct bl_proc *bl, uint64_t r, struct bl_path *path);
void bl_path_free(struct bl_path *path);

#endif
