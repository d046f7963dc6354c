/*
 * The instrumenter's shared pieces (util/instrument.h is its interface):
 * the Alpha encodings and the code buffer trampolines are written into,
 * the image's procedures and call sites, and the types and emitters the
 * path files share.  Internal to the five files that include it.
 *
 * Design notes:
 *  1. One job per file.  instrument.c reads the sealed image (procedures,
 *     call sites), emits --cct's trampolines, writes the instrumented ELF
 *     and reads its tables back; instrument-count.c has a count's building
 *     blocks (a trampoline's registers, PMU reads, array, per-context and
 *     hashed counting, one edge's Ball-Larus action); instrument-pmode.c
 *     the code of each way a procedure keeps its path register (leaves,
 *     kept leaves, callee-saved, frame and memory modes, loop registers,
 *     metered loops: path-region.h notes 2, 5, 9-11, 16, 17);
 *     instrument-plan.c the choices made before any code (loops counted
 *     in registers or by an induction variable, frame mode, held
 *     registers, the mode, the spanning tree's weights, numbers known on
 *     entry, jump threading); instrument-paths.c one procedure's
 *     trampolines and patches, the path table, instrument_paths and
 *     instrument_both.
 *  2. State across calls: `both` (defined in instrument.c) and `hashing`
 *     (instrument-count.c) hold what instrument_both and instrument_paths
 *     set for the image being written, and are back at zero when it is
 *     done; `spill_below` holds the trampoline being emitted's.  One image
 *     at a time, one thread: the instrumenter is not reentrant.
 *  3. Small emitters are static inline here; the others are defined once,
 *     in the file whose job they are, and declared at the end.
 */
#ifndef ALPHAPROF_UTIL_INSTRUMENT_EMIT_H
#define ALPHAPROF_UTIL_INSTRUMENT_EMIT_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "firmware/abi/cct-region.h"
#include "firmware/abi/path-region.h"
#include "hw-model/isa/alpha-isa.h"
#include "hw-model/pmu-window.h"
#include "linker/image-header.h"
#include "linker/ram-map.h"
#include "util/ball-larus.h"
#include "util/image-file.h"
#include "util/instrument.h"
#include "util/liveness.h"
#include "util/path-plan.h"
#include "util/symbols.h"

/* ---- Alpha encodings (hw-model/isa/alpha-insn.def names them) ---- */
enum {
    OP_LDA = 0x08, OP_LDAH = 0x09, OP_INTA = 0x10, OP_INTL = 0x11, OP_INTS = 0x12,
    OP_JMP = 0x1a, OP_LDL = 0x28, OP_LDQ = 0x29, OP_STL = 0x2c, OP_STQ = 0x2d,
    OP_BR = 0x30, OP_BSR = 0x34, OP_BEQ = 0x39, OP_BNE = 0x3d, OP_BGE = 0x3e, OP_BLT = 0x3a,
    OP_BLBC = 0x38, OP_BLBS = 0x3c,
};
enum { F_ADDL = 0x00, F_SUBL = 0x09, F_CMPULT = 0x1d, F_ADDQ = 0x20, F_SUBQ = 0x29, F_CMPEQ = 0x2d };
enum { F_AND = 0x00, F_BIS = 0x20, F_SRL = 0x34, F_SLL = 0x39 };
enum { R_RA = 26, R_PV = 27, R_AT = 28, R_GP = 29, R_SP = 30, R_ZERO = 31 };
#define JMP_FUNC_JSR 1
#define JMP_FUNC_RET 2
#define UNOP 0x2ffe0000u        /* ldq_u $31, 0($30) */

static inline uint32_t mem(unsigned op, unsigned ra, unsigned rb, int disp)
{
    return (uint32_t)op << 26 | ra << 21 | rb << 16 | ((uint32_t)disp & 0xffff);
}
static inline uint32_t opr(unsigned op, unsigned func, unsigned ra, unsigned rb, unsigned rc)
{
    return (uint32_t)op << 26 | ra << 21 | rb << 16 | func << 5 | rc;
}
static inline uint32_t opl(unsigned op, unsigned func, unsigned ra, unsigned lit, unsigned rc)
{
    return (uint32_t)op << 26 | ra << 21 | lit << 13 | 1u << 12 | func << 5 | rc;
}

/* A scratch register of the trampolines (dead at a standard call). */
static inline bool is_scratch(unsigned r)
{
    return (r >= 1 && r <= 8) || (r >= 22 && r <= 25) || r == R_AT;
}

/* ---- the code buffer of the trampoline segment ---- */
struct code {
    uint8_t *bytes;
    size_t len, cap;
    uint64_t base;              /* address of bytes[0] */
    bool out_of_reach;
    uint64_t ra;                /* what ra holds after the last call put (put_call), for put_back */
};

static inline uint64_t here(const struct code *c) { return c->base + c->len; }

static inline void put(struct code *c, uint32_t w)
{
    if (c->len + 4 > c->cap) {
        c->cap = c->cap ? 2 * c->cap : 65536;
        c->bytes = realloc(c->bytes, c->cap);
        if (!c->bytes)
            abort();
    }
    memcpy(c->bytes + c->len, &w, 4);
    c->len += 4;
}

static inline void put64(struct code *c, uint64_t v)
{
    put(c, (uint32_t)v);
    put(c, (uint32_t)(v >> 32));
}

static inline bool disp_fits(int64_t words) { return words >= -(1 << 20) && words < (1 << 20); }

/* A branch at address `at` to `to`. */
static inline uint32_t branch_word(unsigned op, unsigned ra, uint64_t at, uint64_t to, bool *bad)
{
    int64_t d = ((int64_t)to - (int64_t)(at + 4)) / 4;
    if (!disp_fits(d))
        *bad = true;
    return (uint32_t)op << 26 | ra << 21 | ((uint32_t)d & 0x1fffff);
}

static inline void put_branch(struct code *c, unsigned op, unsigned ra, uint64_t to)
{
    put(c, branch_word(op, ra, here(c), to, &c->out_of_reach));
}

/* r = constant (an address below 2^31 - 2^15: ldah + lda). */
static inline void put_const(struct code *c, unsigned r, uint64_t v)
{
    int64_t hi = ((int64_t)v + 0x8000) >> 16;
    int64_t lo = (int64_t)v - (hi << 16);
    put(c, mem(OP_LDAH, r, R_ZERO, (int)hi));
    put(c, mem(OP_LDA, r, r, (int)lo));
}

/* A forward branch whose target is filled in later. */
struct fixup { size_t at; unsigned op, ra; };
static inline struct fixup put_fwd(struct code *c, unsigned op, unsigned ra)
{
    struct fixup f = {c->len, op, ra};
    put(c, 0);
    return f;
}
static inline void land(struct code *c, struct fixup f)
{
    uint32_t w = branch_word(f.op, f.ra, c->base + f.at, here(c), &c->out_of_reach);
    memcpy(c->bytes + f.at, &w, 4);
}

#define CCT_REGION_NO ((unsigned)(CCT_PHYS >> 18))     /* region = (sp >> 22 | this) << 18 */

/* --both (cct-region.h notes 10-12), set while instrument_both emits one
 * image's path trampolines: the path region lies at CCT_BOTH_PATHS_OFFSET
 * in the core's region, and the procedure being emitted counts its paths
 * in its call records when `ctx` (at ctx_off in a record whose flags are
 * ctx_flags), else context-free only; while it emits the CCT trampolines,
 * `calls`. */
struct both_state {
    bool on, ctx;
    int ctx_off, ctx_flags;
    bool leaf;                  /* the procedure is a CCT leaf: its record is the core's leaf_rec */
    bool exit;                  /* the edge being emitted is an exit (a leaf's clears leaf_rec) */
    bool calls;                 /* emitting --both's CCT trampolines: leaf calls set leaf_rec */
    int slot;                   /* a path's counter or slot: 8 bytes, or 32 with metrics */
    /* a constant-mode exit's context-free count, out of line after its
     * trampoline (put_stubs): from the tests to r + off, then back */
    struct both_cold {
        struct fixup from[2];   /* the flags' test and, a leaf's, leaf_rec's 0 */
        unsigned nfrom;
        uint64_t back;
        unsigned r, x;
        int64_t off;
    } cold[4];
    unsigned ncold;
};
extern struct both_state both;

/* ---- the image's procedures and call sites ---- */
struct proc {
    uint64_t entry, alt_entry, end;
    const char *name;
    unsigned nsites;
    bool runtime;               /* __alphaprof_cct_* and what it branches to: never instrumented (mark_runtime) */
    bool leaf;                  /* no call, no way out but its return (cct-region.h note 3a) */
    signed char once;           /* --metrics: 1 never active twice (no_reentry), 0 may be, -1 not yet known */
};

struct site {
    uint64_t pc;
    uint32_t insn;
    bool jsr;
    uint64_t target;            /* bsr */
    unsigned rb;                /* jsr */
    int proc;                   /* index in procs, -1 outside any */
    unsigned slot;
    uint64_t call;              /* its trampoline's call instruction */
    uint64_t call_unpushed;     /* ... and the one made when the shadow stack is full */
    uint64_t call_leaf;         /* ... and the one for a leaf callee, 0 if none */
    uint64_t call_leaf_slow;    /* ... and, with metrics, the one for a leaf the slow path found, 0 if none */
    uint64_t call_counted;      /* ... and, with metrics, the framed one that counts activity for the
                                 * overflow record when the callee is never active twice, 0 if none */
    bool callee_once;           /* --metrics: a bsr to a procedure never active twice (no_reentry) */
    uint64_t resume;            /* --both: where its return goes on (a path continuation), 0: pc + 4 */
    uint64_t back_gp;           /* --cct: the gp the caller's reload after the call computes, 0: none */
    unsigned back_skip;         /* --cct: bytes after the call its return skips (plan_back) */
    bool ra_dead;               /* --cct: nothing reads ra where the caller goes on (plan_back) */
    bool from_paths;            /* --both: a path trampoline at pc branches to its trampoline */
};

struct elf_in {
    uint8_t *buf;
    size_t size;
    Elf64_Ehdr *eh;
    Elf64_Shdr *sh;
    Elf64_Phdr *ph;
    const char *shstr;
};

enum { FR_PARENT = CCT_FR_PARENT, FR_CYCLES = CCT_FR_CYCLES, FR_RETIRED = CCT_FR_RETIRED, FR_SP = CCT_FR_SP };
#define PMU_CYCLES_OFF  16
#define PMU_RETIRED_OFF 24
#define STUB_FRAME      96

#define F_S8ADDQ 0x32
#define SINK_BIT 9              /* PATH_SINK == 1 << SINK_BIT (path-region.h) */

static inline bool fits16(int64_t v) { return v >= -32768 && v <= 32767; }

/* Hashed counting (path-region.h note 14), set while instrument_paths
 * emits a hashed procedure: its ordinal, and tmp, a register free beside
 * the one an increment goes to (put_action's C).  `slots`: the table's
 * size asked for (0: no hashing); `fix` the words that take the table's
 * geometry once the array counters are known (hash_geometry). */
enum hash_fix_kind { HF_SHIFT, HF_AT, HF_AT_CONST, HF_SLOTS };
struct hashing_state {
    bool on;
    bool ctx;                   /* --both: the procedure has records, its keys carry them (note 15) */
    int ctx_at;                 /* ... and its context is in its frame at ctx_at(sp), not read (0: none) */
    uint32_t id;
    unsigned tmp;
    uint64_t slots;
    struct hash_fix { size_t at; unsigned kind, r; } *fix;
    size_t nfix, fixcap;
};
extern struct hashing_state hashing;

/* The registers a trampoline works in: the region R and temporaries A, B,
 * C, each one dead where the trampoline runs (util/liveness.h), or, when
 * too few are, one kept below sp while it runs (a trap from user mode runs
 * on the kernel stack). */
struct tregs {
    unsigned R, A, B, C;
    unsigned D, E;              /* with metrics: the counters read (path-region.h note 5) */
    unsigned nsaved, saved[6];
};

/* Bytes a frame-mode procedure's frame grows by (path-region.h note 11):
 * the caller's P and Y, and with metrics the path's start (cycles, event). */
#define FRAME_SLOTS 16
#define FRAME_SLOTS_METERED 32

/* Bytes below sp that the trampoline being emitted must leave alone: a
 * frame-mode procedure's slots while sp is its caller's (path-region.h
 * note 11); 0 otherwise. */
extern int spill_below;

/* What put_ctx_count leaves open for ctx_done (instrument-count.c). */
struct ctx_count {
    bool on;
    struct fixup done;
};

#define F_CMOVEQ 0x24

/* Per-path metrics (path-region.h note 5): whether they are on and where
 * the chosen event is in the PMU page. */
struct meter {
    bool on;
    int ev_off;
    /* given: a reading taken earlier, in registers gc (cycles) and ge (the
     * event), stands for the page's (path-region.h note 17's fixup) */
    bool given;
    unsigned gc, ge;
};

static inline int64_t slot_size(const struct meter *mt) { return mt->on ? PATH_METERED_SIZE : 8; }

/* cyc = the cycles and ev = the chosen event from the PMU page at W (ev
 * may be W itself: read last). */
static inline void put_page_read(struct code *c, const struct meter *mt, unsigned W, unsigned cyc, unsigned ev)
{
    put(c, mem(OP_LDQ, cyc, W, PMU_CYCLES_OFF));
    put(c, mem(OP_LDQ, ev, W, mt->ev_off));
}

#define PMU_FROM_REGION (-(int)((CCT_PHYS - PMU_WINDOW_PHYS) >> 16))

#define OP_INTM 0x13
#define F_MULQ 0x20
#define F_XOR 0x40

#define F_ZAPNOT 0x31
#define F_CMOVNE 0x26

struct path_out {
    struct code *c;
    struct path_patch *patches;
    size_t npatches, cap;
    struct elf_in *e;
    uint64_t twice[8];          /* the functions that return twice (returns_twice) */
    unsigned ntwice;
    /* --both: the call sites (by pc) whose CCT trampolines make the calls,
     * and the path trampolines' branches to those trampolines */
    struct site *sites;
    unsigned nsites;
    struct site_fix { struct fixup f; unsigned site; } *fix;
    size_t nfix, fixcap;
};

/* How one procedure keeps its path register (path-region.h note 2):
 * in memory, on the core's register stack, or (a leaf: no calls, no PAL
 * calls, only standard returns) in a register P the procedure never names
 * and that is dead at its entry and exits, so it needs no saving; Y, a
 * second such register, then holds the procedure's counters' address from
 * its entry on when it has loops. */
struct pmode {
    bool constant;              /* one path number per exit, known here: no path register */
    int64_t entry_add;
    bool leaf;                  /* P a register of its own (else: saved, or in memory) */
    bool saved;                 /* P a callee-saved register the procedure never names,
                                 * the caller's value pushed on the register stack */
    unsigned P, Y;              /* Y = R_ZERO: none */
    bool cb;                    /* --both, counts only: Y (P when addr) holds the activation's counters'
                                 * base, found at its entry (cct-region.h note 17) */
    /* frame mode (path-region.h note 11): the procedure's own
     * frame grown by frame_slots() at its top, fsize its size before; with
     * `saved` the caller's P (and Y) kept there instead of on the register
     * stack, with `fmem` P itself kept there (no register to spare);
     * fstate[i] whether sp is the frame's (1) or the caller's (0) before
     * instruction i; fbody that of the edge being emitted */
    bool frame, fmem, fbody;
    bool addr;                  /* frame mode, no backedge: P holds its path's counter's address */
    int64_t fsize;
    uint8_t *fstate;
    /* with metrics, a leaf with registers to spare (path-region.h note 5):
     * Y the region from the entry on, S and T its path's start (cycles,
     * the event); known: every exit's number is known here, so no P */
    bool kept, known;
    unsigned S, T, W;           /* W: the core's PMU page */
    uint64_t npaths;
    uint32_t base;
    bool sp_tags;               /* the image calls setjmp: pushes record sp (path-region.h note 6) */
    struct meter mt;            /* per-path metrics (path-region.h note 5) */
    /* the edge being emitted: its source block's path register is known
     * here to be rv (known_numbers; path-region.h note 8) */
    bool rk;
    int64_t rv;
    /* loops counted in registers (counts only; path-region.h note 9):
     * K[k] counts the executions of backedge path kidx[k], those that
     * find P == kv[k] there (the iteration path: started at the loop's
     * header); per edge, kzero and kflush the K's it zeroes (entering the
     * loop) and adds to their counters (leaving it), kback the K of a
     * backedge + 1 (0: none); act0 the procedure's first action */
    unsigned nk, K[8];
    int64_t kidx[8], kv[8];
    uint8_t *kzero, *kflush, *kback;
    /* loops counted by an induction variable (path-region.h note 10):
     * K[k] holds ivr[k]'s value at the loop's entry (kzero copies it),
     * ivstep[k] = +-2^ivsh[k] is its one increment per iteration, kbe[k]
     * the loop's backedge, which carries no code (kskip); an exit (kflush)
     * works out the iterations from ivr - K, kib[e] saying whether the
     * increment ran before that exit; kneut the edges into a sink block
     * from outside the loop, which set K so that no iteration counts;
     * sink[] the exits moved to their target block's first instruction */
    unsigned ivr[8], ivsh[8];
    bool ivl[8];                /* a longword increment (addl, subl): n is taken mod 2^32 */
    int64_t ivstep[8];
    uint32_t kbe[8];
    uint8_t *kskip, *kneut, *kib, *kxib;
    int8_t *kadj;
    struct iv_sink {
        uint32_t insn;          /* the block's first instruction */
        unsigned k;
        bool ib;
    } sink[8];
    unsigned nsink, niv;
    /* metered loops by an induction variable (path-region.h note 17): per
     * loop, the PMU page (a kept leaf's W), the last backedge's reading and
     * the first's; page R_ZERO: the loop is not metered so.  kread[e]:
     * backedge e reads (loop + 1) */
    struct iv_meter {
        unsigned page, last_c, last_e, first_c, first_e;
        unsigned nheld, held[PATH_LOOP_HELD];   /* readings' registers live at the entry: borrowed */
    } km[8];
    uint8_t *kread;
    /* registers held (path-region.h note 16): kept below sp from the entry
     * to each return, so the trampolines between have them to spare */
    unsigned nhold, hold[INSTRUMENT_HOLD_REGS];
    const struct bl_action *act0;
    size_t nact;
    bool *bad;
    /* out of line, after the trampoline: counting a bad path number */
    struct bad_stub {
        struct fixup from;
        uint64_t back;
        unsigned r, x;
        bool reads;             /* a kept leaf's: S and T read the page as the count would have */
        bool first;             /* a metered loop's first backedge (path-region.h note 17): loop r's
                                 * first reading = its last */
    } stub[4];
    unsigned nstubs;
};

/* How many bytes procedure m's frame grows by in frame mode: with metrics
 * (its own: a hashed procedure counts only) the path's start too. */
static inline int frame_slots(const struct pmode *m)
{
    return m->mt.on ? FRAME_SLOTS_METERED : FRAME_SLOTS;
}

static inline uint32_t bit(unsigned r) { return r == R_ZERO ? 0 : 1u << r; }

#define KEPT_SCALE 4             /* a kept leaf's P: the path number times this */

#define PATH_POISON 0x40000000          /* a path register no numbering reaches (npaths < 2^31) */
#define PATH_SINK_SLOT (PATH_STACK_OFFSET + 8 * PATH_SINK)
#define PATH_SINK_SLOT2 (PATH_STACK2_OFFSET + 8 * PATH_SINK)
#define STACK2 (PATH_STACK2_OFFSET - PATH_STACK_OFFSET)

#define F_SRA 0x3c

static inline uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }
/* What one call site's --cct trampoline counts (put_trampoline). */
struct tramp_calls { uint64_t pushed, leaf, leaf_slow, unpushed, counted; };

/* Registers in the order trampolines take them: scratch first. */
#define SCRATCH_ORDER_N 30
extern const unsigned scratch_order[SCRATCH_ORDER_N];

/* instrument.c */
int read_original(const char *in, struct elf_in *e, struct proc **procs, unsigned *nprocs, int *symtab,
                  struct ap_err *err);
uint64_t segment_base(const struct elf_in *e, const struct image_header *hdr);
uint64_t cct_lookup_entry(const char *in, const struct proc *procs, unsigned nprocs, struct ap_err *err);
void put_core_state(struct code *c, unsigned r);
int read_file(const char *path, struct elf_in *e, struct ap_err *err);
int find_section(const struct elf_in *e, const char *name);
uint8_t *at_addr(const struct elf_in *e, uint64_t addr, uint64_t len);
bool returns_twice(const char *name);
int proc_of(const struct proc *p, unsigned n, uint64_t pc);
bool runtime_entry(const struct proc *p, unsigned n, uint64_t entry);
int collect_procs(const struct elf_in *e, struct proc **out, unsigned *n, int *symtab,
                  struct ap_err *err, const char *path);
int collect_sites(const struct elf_in *e, struct proc *procs, unsigned nprocs,
                  struct site **out, unsigned *n, unsigned *skipped);
void put_stub(struct code *c, uint64_t procs_addr, uint64_t lookup, bool metrics);
void put_unwind(struct code *c, bool metrics);
void put_incq(struct code *c, unsigned x, unsigned base, int off);
void put_trampoline(struct code *c, const struct site *s, const struct proc *procs, unsigned nprocs,
                    uint64_t stub, uint64_t unwind, bool metrics, struct tramp_calls *calls);
int write_instrumented(struct elf_in *e, const struct image_header *hdr0, const struct code *cc,
                       uint64_t sym_start, int symtab, const char *out, struct ap_err *err);
void put_site_table(struct code *c, const struct site *sites, unsigned nsites);
int segment_fits(const struct code *c, const char *in, struct ap_err *err);

/* instrument-count.c */
void put_addk(struct code *c, unsigned r, int64_t k, bool *bad);
void put_addk_from(struct code *c, unsigned dst, unsigned src, int64_t k, bool *bad);
void put_setk(struct code *c, unsigned r, int64_t k, bool *bad);
void tregs_pick_beside(struct tregs *t, uint32_t live, uint32_t exclude, unsigned want, unsigned region);
void tregs_pick(struct tregs *t, uint32_t live, uint32_t exclude, unsigned want);
void tregs_save(struct code *c, const struct tregs *t);
void tregs_restore(struct code *c, const struct tregs *t);
void put_region(struct code *c, unsigned r);
struct ctx_count put_ctx_count(struct code *c, unsigned R, unsigned x, int64_t k, unsigned y, unsigned z,
                               const struct meter *mt, const struct tregs *d);
void ctx_done(struct code *c, const struct ctx_count *cc);
void put_ctx_base(struct code *c, unsigned dst, unsigned R, unsigned y, unsigned z, uint32_t base,
                  int64_t extra, bool core, bool *bad);
void put_below(struct code *c, unsigned x, uint64_t n, unsigned k, bool *bad);
void put_slot_addr(struct code *c, const struct meter *mt, unsigned x, unsigned at, unsigned dst);
void put_meter_read(struct code *c, const struct meter *mt, const struct tregs *t);
void put_meter_start(struct code *c, const struct tregs *t, unsigned S, int off_cycles, int off_event);
void put_meter_end(struct code *c, const struct tregs *t, unsigned S, int off_cycles, int off_event,
                   bool restart);
void put_meter_add(struct code *c, const struct tregs *t, unsigned K, int off);
void put_hash_ctx(struct code *c, unsigned dst, unsigned cs, unsigned tmp, bool clear);
void put_hash_key_count(struct code *c, const struct tregs *t, uint64_t npaths, struct fixup *cold);
uint64_t hash_geometry(struct code *c, uint64_t used, int64_t size, uint64_t end);
void put_sp_slot(struct code *c, unsigned op, unsigned r, unsigned at, unsigned tmp);
void put_action(struct code *c, const struct tregs *t, const struct meter *mt, const struct bl_action *a,
                uint64_t npaths, uint32_t base, bool sp_tags, bool *bad);
bool action_trivial(const struct bl_action *a);
bool relocatable(uint32_t w);
struct site *site_at(const struct path_out *po, uint64_t pc);
bool calls_twice(const struct path_out *po, uint64_t pc, uint32_t w);
bool proc_calls_twice(const struct path_out *po, const struct calc_proc *cfg);
void put_unwind_paths(struct code *c, uint32_t live);
void add_patch(struct path_out *po, uint64_t pc, uint64_t tramp, unsigned op, unsigned ra);
void patch_word(struct path_out *po, size_t from, uint64_t pc, uint32_t w);
void align_tramp(struct code *c);
int edge_of(const struct calc_proc *cfg, uint32_t b, int kind);
enum path_skip paths_check(const struct calc_proc *cfg, const struct bl_proc *bl, uint64_t start,
                           uint64_t *entry_pc);

/* instrument-pmode.c */
void count_loops(struct instrument_path_stats *st, const struct pmode *m);
void put_stubs(struct code *c, struct pmode *m);
bool edge_trivial(const struct pmode *m, const struct bl_action *a);
void put_iv_fixup(struct code *c, struct pmode *m, unsigned k, bool ib, uint32_t live);
void put_edge_code(struct code *c, struct pmode *m, const struct bl_action *a, uint32_t live);

/* instrument-plan.c */
void choose_loop_regs(const struct calc_proc *cfg, const struct bl_proc *bl, const uint32_t *live,
                      uint64_t E, struct pmode *m);
bool frame_plan(const struct calc_proc *cfg, struct pmode *m);
bool has_backedge(const struct calc_proc *cfg, const struct bl_proc *bl);
void hold_plan(const struct calc_proc *cfg, const struct bl_proc *bl, uint32_t *live, struct pmode *m);
void put_held(struct code *c, const struct pmode *m, unsigned op);
void choose_mode(const struct calc_proc *cfg, const struct bl_proc *bl, const uint32_t *live,
                 struct pmode *m);
double *tree_weights(const struct calc_proc *cfg, const struct bl_proc *bl);
void thread_branches(struct code *c, size_t from);
void known_numbers(const struct calc_proc *cfg, const struct bl_proc *bl, uint8_t *kind, int64_t *val);

/* instrument-paths.c */

#endif
