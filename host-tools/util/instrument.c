/*
 * alphaprof instrument --cct: rewrites a sealed image (util/instrument.h
 * says what the result promises; firmware/abi/cct-region.h what the
 * generated code does at run time and why these registers).
 *
 * Why rewriting the linked image (ATOM/EEL style) rather than the
 * compiler's assembly: any sealed image works, whoever built it, and the
 * original procedures keep their addresses, so the loadmap, symbols, DWARF
 * lines and the oracle's PCs of the original still describe the
 * instrumented copy.  Alpha code is PC-independent except branch
 * displacements; the only instructions moved are the calls themselves,
 * re-emitted in the trampolines with new displacements, so no relocation
 * records are needed.
 *
 * The ELF is edited as bytes (Elf64 little-endian, <elf.h>): the original
 * file is kept and the new pieces are appended after it: the trampoline
 * segment's bytes, a larger symbol and string table, section name table,
 * program header table and section header table; the old tables stay as
 * unreferenced bytes.  Sealing (util/image-file.c) then fills the CRCs.
 */
#include "util/instrument.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "firmware/abi/cct-region.h"
#include "firmware/abi/path-region.h"
#include "hw-model/isa/alpha-isa.h"
#include "hw-model/pmu-window.h"
#include "linker/image-header.h"
#include "linker/ram-map.h"
#include "util/ball-larus.h"
#include "util/image-file.h"
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

static uint32_t mem(unsigned op, unsigned ra, unsigned rb, int disp)
{
    return (uint32_t)op << 26 | ra << 21 | rb << 16 | ((uint32_t)disp & 0xffff);
}
static uint32_t opr(unsigned op, unsigned func, unsigned ra, unsigned rb, unsigned rc)
{
    return (uint32_t)op << 26 | ra << 21 | rb << 16 | func << 5 | rc;
}
static uint32_t opl(unsigned op, unsigned func, unsigned ra, unsigned lit, unsigned rc)
{
    return (uint32_t)op << 26 | ra << 21 | lit << 13 | 1u << 12 | func << 5 | rc;
}

/* A scratch register of the trampolines (dead at a standard call). */
static bool is_scratch(unsigned r)
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

static uint64_t here(const struct code *c) { return c->base + c->len; }

static void put(struct code *c, uint32_t w)
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

static void put64(struct code *c, uint64_t v)
{
    put(c, (uint32_t)v);
    put(c, (uint32_t)(v >> 32));
}

static bool disp_fits(int64_t words) { return words >= -(1 << 20) && words < (1 << 20); }

/* A branch at address `at` to `to`. */
static uint32_t branch_word(unsigned op, unsigned ra, uint64_t at, uint64_t to, bool *bad)
{
    int64_t d = ((int64_t)to - (int64_t)(at + 4)) / 4;
    if (!disp_fits(d))
        *bad = true;
    return (uint32_t)op << 26 | ra << 21 | ((uint32_t)d & 0x1fffff);
}

static void put_branch(struct code *c, unsigned op, unsigned ra, uint64_t to)
{
    put(c, branch_word(op, ra, here(c), to, &c->out_of_reach));
}

/* r = constant (an address below 2^31 - 2^15: ldah + lda). */
static void put_const(struct code *c, unsigned r, uint64_t v)
{
    int64_t hi = ((int64_t)v + 0x8000) >> 16;
    int64_t lo = (int64_t)v - (hi << 16);
    put(c, mem(OP_LDAH, r, R_ZERO, (int)hi));
    put(c, mem(OP_LDA, r, r, (int)lo));
}

/* A forward branch whose target is filled in later. */
struct fixup { size_t at; unsigned op, ra; };
static struct fixup put_fwd(struct code *c, unsigned op, unsigned ra)
{
    struct fixup f = {c->len, op, ra};
    put(c, 0);
    return f;
}
static void land(struct code *c, struct fixup f)
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
static struct {
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
} both;

/* r = this core's CCT region, from sp alone (cct-region.h note 1). */
static void put_core_state(struct code *c, unsigned r)
{
    _Static_assert(USER_STACK_PHYS % 0x10000 == 0 && CCT_PHYS % 0x10000 == 0 &&
                   (CCT_PHYS - PMU_WINDOW_PHYS) % 0x10000 == 0, "ldah reaches them");
    _Static_assert(USER_STACK_SIZE == 1u << 22 && CCT_PER_CORE == 1u << 18, "shift counts below");
    _Static_assert((MAX_CORES & (MAX_CORES - 1)) == 0, "a mask keeps the core in range");
    /* the stacks' base is a multiple of MAX_CORES slots: the core is the
     * slot number's low bits, no subtraction needed */
    _Static_assert(USER_STACK_PHYS % ((uint64_t)MAX_CORES * USER_STACK_SIZE) == 0, "core = (sp >> 22) & mask");
    /* the slot number x = sp >> 22 is below 64 for any sp in RAM, and
     * CCT_PHYS >> 18 (60) has every one of x's bits set but the core's:
     * x | 60 = 60 + (x & (MAX_CORES - 1)), the region's number, with no
     * mask and no base added (cct-region.h note 1) */
    _Static_assert((RAM_SIZE >> 22) <= 64 && CCT_REGION_NO == ((CCT_REGION_NO | 63) & ~(MAX_CORES - 1)) &&
                   CCT_REGION_NO < 256 && (USER_STACK_PHYS >> 22) % MAX_CORES == 0 &&
                   ((uint64_t)CCT_REGION_NO << 18) == CCT_PHYS, "x | CCT_REGION_NO is the region's number");
    put(c, opl(OP_INTS, F_SRL, R_SP, 22, r));
    put(c, opl(OP_INTL, F_BIS, r, CCT_REGION_NO, r));   /* a stack of its own (valuediff) stays in bounds */
    put(c, opl(OP_INTS, F_SLL, r, 18, r));
}

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

static int read_file(const char *path, struct elf_in *e, struct ap_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return ap_err_set(err, "%s: cannot open: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    e->buf = malloc(n > 0 ? (size_t)n : 1);
    e->size = (size_t)n;
    if (!e->buf || n <= 0 || fread(e->buf, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        return ap_err_set(err, "%s: cannot read", path);
    }
    fclose(f);
    e->eh = (Elf64_Ehdr *)e->buf;
    if (e->size < sizeof *e->eh || e->eh->e_shoff + (uint64_t)e->eh->e_shnum * sizeof(Elf64_Shdr) > e->size ||
        e->eh->e_phoff + (uint64_t)e->eh->e_phnum * sizeof(Elf64_Phdr) > e->size ||
        e->eh->e_shstrndx >= e->eh->e_shnum)
        return ap_err_set(err, "%s: ELF tables run past the end of the file; rebuild the image", path);
    e->sh = (Elf64_Shdr *)(e->buf + e->eh->e_shoff);
    e->ph = (Elf64_Phdr *)(e->buf + e->eh->e_phoff);
    e->shstr = (const char *)e->buf + e->sh[e->eh->e_shstrndx].sh_offset;
    return 0;
}

static int find_section(const struct elf_in *e, const char *name)
{
    for (unsigned i = 0; i < e->eh->e_shnum; i++)
        if (!strcmp(e->shstr + e->sh[i].sh_name, name))
            return (int)i;
    return -1;
}

/* File bytes of [addr, addr + len) in an allocated PROGBITS section. */
static uint8_t *at_addr(const struct elf_in *e, uint64_t addr, uint64_t len)
{
    for (unsigned i = 0; i < e->eh->e_shnum; i++) {
        const Elf64_Shdr *s = &e->sh[i];
        if (s->sh_type == SHT_PROGBITS && (s->sh_flags & SHF_ALLOC) && addr >= s->sh_addr &&
            addr + len <= s->sh_addr + s->sh_size)
            return e->buf + s->sh_offset + (addr - s->sh_addr);
    }
    return NULL;
}

static int cmp_proc(const void *a, const void *b)
{
    const struct proc *x = a, *y = b;
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* A leaf (cct-region.h note 3a): no standard call (bsr/jsr through ra,
 * not a PC read), no branch out of [entry, end), no jmp or coroutine
 * jump; returns and millicode calls through another link register are
 * fine (millicode makes no standard calls). */
/* setjmp's second return must go through a framed call's return, whose
 * unwinding drops what the longjmp abandoned (cct-region.h note 8); names
 * as GCC's own returns_twice list has them. */
static bool returns_twice(const char *name)
{
    static const char *const names[] = {"setjmp", "_setjmp", "__setjmp", "sigsetjmp", "__sigsetjmp",
                                        "savectx", "vfork", "getcontext"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(name, names[i]))
            return true;
    return false;
}

static bool is_leaf(const struct elf_in *e, const struct proc *p)
{
    const uint8_t *code = at_addr(e, p->entry, p->end - p->entry);
    if (!code || p->end <= p->entry)
        return false;
    for (uint64_t pc = p->entry; pc < p->end; pc += 4) {
        uint32_t w;
        memcpy(&w, code + (pc - p->entry), 4);
        unsigned op = w >> 26, ra = (w >> 21) & 31, func = (w >> 14) & 3;
        if (op == OP_JMP) {
            if (func == 0 || func == 3 || (func == JMP_FUNC_JSR && ra == R_RA))
                return false;
            continue;
        }
        if (op < OP_BR)
            continue;
        int64_t d = (int32_t)(w << 11) >> 11;
        uint64_t target = pc + 4 + (uint64_t)(d * 4);
        if (op == OP_BSR && ra == R_RA && target != pc + 4)
            return false;
        if (target < p->entry || target >= p->end)
            return false;
    }
    return true;
}

/* With metrics, the registers a leaf's fast call keeps its values in
 * across the call (cct-region.h note 3a): scratch at a standard call. */
#define CCT_KEPT_REGS   (0xfu << 22)    /* $22-$25 */

/* Whether a leaf leaves CCT_KEPT_REGS as they are: no instruction of its
 * writes one, and it makes no millicode call (jsr through another link
 * register: the millicode's registers are not scanned) and no PAL call. */
static bool keeps_regs(const struct elf_in *e, const struct proc *p)
{
    const uint8_t *code = at_addr(e, p->entry, p->end - p->entry);
    if (!code || p->end <= p->entry)
        return false;
    for (uint64_t pc = p->entry; pc < p->end; pc += 4) {
        uint32_t w, use, def;
        memcpy(&w, code + (pc - p->entry), 4);
        const struct alpha_insn_info *in = alpha_decode(w);
        if (!in || in->format == ALPHA_FMT_PAL || in->format == ALPHA_FMT_HW ||
            (in->format == ALPHA_FMT_JMP && ((w >> 14) & 3) != JMP_FUNC_RET))
            return false;
        liveness_regs(w, &use, &def);
        if (in->format == ALPHA_FMT_MEMF)       /* rpcc, rc, rs write ra */
            def |= 1u << alpha_ra(w);
        if (def & CCT_KEPT_REGS)
            return false;
    }
    return true;
}

static int proc_of(const struct proc *p, unsigned n, uint64_t pc)
{
    unsigned lo = 0, hi = n;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (pc < p[mid].entry)
            hi = mid;
        else if (pc >= p[mid].end)
            lo = mid + 1;
        else
            return (int)mid;
    }
    return -1;
}

/* Where procedure i's code can go but by returning (no_reentry): sets
 * seen[k] and pushes k for each procedure k it calls (bsr through any
 * link register; into its own code: i itself) or branches into, not seen
 * before; false when it can go where the code does not say (a jmp, jsr
 * or coroutine jump, a PAL call, a branch to no procedure). */
static bool code_exits(const struct elf_in *e, const struct proc *p, unsigned n, unsigned i, uint8_t *seen,
                       unsigned *stack, unsigned *sp)
{
    const struct proc *q = &p[i];
    const uint8_t *code = at_addr(e, q->entry, q->end - q->entry);
    if (!code || q->end <= q->entry)
        return false;
    for (uint64_t pc = q->entry; pc < q->end; pc += 4) {
        uint32_t w;
        memcpy(&w, code + (pc - q->entry), 4);
        unsigned op = w >> 26;
        if (op == 0 || (op == OP_JMP && ((w >> 14) & 3) != JMP_FUNC_RET))
            return false;
        if (op < OP_BR)
            continue;
        uint64_t target = alpha_branch_target(pc, w);
        bool inside = target >= q->entry && target < q->end;
        if (inside && (op != OP_BSR || target == pc + 4))
            continue;           /* its own code, or a PC read */
        int k = inside ? (int)i : proc_of(p, n, target);       /* a call into its own code calls it */
        if (k < 0)
            return false;
        if (!seen[k]) {
            seen[k] = 1;
            stack[(*sp)++] = (unsigned)k;
        }
    }
    return true;
}

/* Whether procedure i can never be active twice at once (cct-region.h
 * note 4a): nothing its code can reach by calls and branches (to a fixed
 * point) calls or branches back into it, and none of that code goes
 * where the code does not say (code_exits).  A procedure's code is its
 * symbol's range, as for a leaf (is_leaf): none falls through into the
 * next.  Worked out once per procedure, when a call needs it. */
static bool no_reentry(const struct elf_in *e, struct proc *p, unsigned n, unsigned i)
{
    if (p[i].once >= 0)
        return p[i].once;
    uint8_t *seen = calloc(n, 1);
    unsigned *stack = malloc(n * sizeof *stack), sp = 0;
    bool ok = code_exits(e, p, n, i, seen, stack, &sp);
    while (ok && sp > 0) {
        unsigned k = stack[--sp];
        ok = k != i && code_exits(e, p, n, k, seen, stack, &sp);
    }
    free(seen);
    free(stack);
    p[i].once = ok;
    return ok;
}

/* The next procedure that a branch of `from` at or after *pc goes into
 * (-1 when none is left); *pc moves past that branch. */
static int next_branch_into(const struct elf_in *e, const struct proc *p, unsigned n, const struct proc *from,
                            uint64_t *pc)
{
    for (; *pc + 4 <= from->end; *pc += 4) {
        const uint8_t *w = at_addr(e, *pc, 4);
        if (!w)
            return -1;
        uint32_t word;
        memcpy(&word, w, 4);
        if (word >> 26 < OP_BR)
            continue;       /* not a branch (0x30-0x3f are) */
        int k = proc_of(p, n, alpha_branch_target(*pc, word));
        if (k >= 0) {
            *pc += 4;
            return k;
        }
    }
    return -1;
}

/* The runtime (cct-region.h note 15): the __alphaprof_cct_* procedures and every
 * procedure their code branches into, to a fixed point.  The compiler
 * may keep a static helper of workloads/runtime/cct.c out of line (which
 * depends on its size: a few instructions more and new_record was its
 * own procedure, named without the prefix); instrumented, its path code
 * would run inside the slow path with the stub's registers. */
static int mark_runtime(const struct elf_in *e, struct proc *p, unsigned n, struct ap_err *err, const char *path)
{
    int k;
    for (bool grew = true; grew;) {
        grew = false;
        for (unsigned i = 0; i < n; i++)
            for (uint64_t pc = p[i].entry; p[i].runtime && (k = next_branch_into(e, p, n, &p[i], &pc)) >= 0;)
                if (!p[k].runtime)
                    grew = p[k].runtime = true;
    }
    /* a helper the image's own code also branches into (a memset the
     * compiler called from the runtime) would go uncounted there */
    for (unsigned i = 0; i < n; i++)
        for (uint64_t pc = p[i].entry; !p[i].runtime && (k = next_branch_into(e, p, n, &p[i], &pc)) >= 0;)
            if (p[k].runtime && strncmp(p[k].name, INSTRUMENT_RUNTIME_PREFIX, strlen(INSTRUMENT_RUNTIME_PREFIX)))
                return ap_err_set(err, "%s: %s is called by the alphaprof runtime and by the image's own %s, so "
                                  "its own calls could not be counted: link the image with this alphaprof's "
                                  "runtime (make)", path, p[k].name, p[i].name);
    return 0;
}

/* Whether the procedure entered at `entry` is the runtime's (cct-region.h note 15). */
static bool runtime_entry(const struct proc *p, unsigned n, uint64_t entry)
{
    int k = proc_of(p, n, entry);
    return k >= 0 && p[k].runtime;
}

/* Procedures: the function symbols, one per address, each running to the
 * next one (or its section's end). */
static int collect_procs(const struct elf_in *e, struct proc **out, unsigned *n, int *symtab,
                         struct ap_err *err, const char *path)
{
    *symtab = find_section(e, ".symtab");
    if (*symtab < 0)
        return ap_err_set(err, "%s: no symbol table; build it without stripping (make)", path);
    const Elf64_Shdr *st = &e->sh[*symtab];
    const Elf64_Sym *syms = (const Elf64_Sym *)(e->buf + st->sh_offset);
    const char *names = (const char *)e->buf + e->sh[st->sh_link].sh_offset;
    size_t nsyms = st->sh_size / sizeof(Elf64_Sym);
    struct proc *p = calloc(nsyms + 1, sizeof *p);
    unsigned k = 0;
    for (size_t i = 0; i < nsyms; i++) {
        const Elf64_Sym *s = &syms[i];
        if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_shndx == SHN_UNDEF || s->st_shndx >= e->eh->e_shnum)
            continue;
        const Elf64_Shdr *sec = &e->sh[s->st_shndx];
        if (!(sec->sh_flags & SHF_EXECINSTR))
            continue;
        p[k].entry = s->st_value;
        p[k].end = sec->sh_addr + sec->sh_size;
        p[k].name = names + s->st_name;
        k++;
    }
    qsort(p, k, sizeof *p, cmp_proc);
    unsigned m = 0;
    for (unsigned i = 0; i < k; i++) {
        if (m && p[m - 1].entry == p[i].entry) {
            if (!strncmp(p[i].name, INSTRUMENT_RUNTIME_PREFIX, strlen(INSTRUMENT_RUNTIME_PREFIX)))
                p[m - 1].name = p[i].name;
            continue;
        }
        p[m++] = p[i];
    }
    for (unsigned i = 0; i < m; i++) {
        if (i + 1 < m && p[i + 1].entry < p[i].end)
            p[i].end = p[i + 1].entry;
        p[i].runtime = !strncmp(p[i].name, INSTRUMENT_RUNTIME_PREFIX, strlen(INSTRUMENT_RUNTIME_PREFIX));
        p[i].leaf = is_leaf(e, &p[i]) && !returns_twice(p[i].name);
        p[i].once = -1;
        const uint8_t *w = at_addr(e, p[i].entry, 8);
        uint32_t first[2];
        if (w) {
            memcpy(first, w, sizeof first);
            if (calc_has_gp_prologue(first, 2))     /* callers in the same unit enter at +8 */
                p[i].alt_entry = p[i].entry + 8;
        }
    }
    if (mark_runtime(e, p, m, err, path)) {
        free(p);
        return -1;
    }
    *out = p;
    *n = m;
    return 0;
}

/* Every standard call in the executable sections (cct-region.h note 2). */
static int collect_sites(const struct elf_in *e, struct proc *procs, unsigned nprocs,
                         struct site **out, unsigned *n, unsigned *skipped)
{
    unsigned cap = 1024, k = 0;
    struct site *s = malloc(cap * sizeof *s);
    *skipped = 0;
    for (unsigned i = 0; i < e->eh->e_shnum; i++) {
        const Elf64_Shdr *sec = &e->sh[i];
        if (sec->sh_type != SHT_PROGBITS || !(sec->sh_flags & SHF_EXECINSTR) || !(sec->sh_flags & SHF_ALLOC))
            continue;
        for (uint64_t off = 0; off + 4 <= sec->sh_size; off += 4) {
            uint32_t w;
            memcpy(&w, e->buf + sec->sh_offset + off, 4);
            uint64_t pc = sec->sh_addr + off;
            unsigned op = w >> 26, ra = (w >> 21) & 31, rb = (w >> 16) & 31;
            bool bsr = op == OP_BSR && ra == R_RA;
            bool jsr = op == OP_JMP && ra == R_RA && ((w >> 14) & 3) == JMP_FUNC_JSR;
            if (!bsr && !jsr)
                continue;
            int64_t d = (int32_t)(w << 11) >> 11;
            uint64_t target = pc + 4 + (uint64_t)(d * 4);
            if (bsr && target == pc + 4)
                continue;           /* a PC read, not a call */
            int pi = proc_of(procs, nprocs, pc);
            if (pi >= 0 && procs[pi].runtime)
                continue;
            if (jsr && is_scratch(rb)) {
                (*skipped)++;
                continue;
            }
            if (k == cap) {
                cap *= 2;
                s = realloc(s, cap * sizeof *s);
            }
            s[k] = (struct site){.pc = pc, .insn = w, .jsr = jsr, .target = bsr ? target : 0,
                                 .rb = rb, .proc = pi, .slot = pi >= 0 ? procs[pi].nsites++ : 0};
            k++;
        }
    }
    *out = s;
    *n = k;
    return 0;
}

/* ---- code generation ---- */

enum { FR_PARENT = CCT_FR_PARENT, FR_CYCLES = CCT_FR_CYCLES, FR_RETIRED = CCT_FR_RETIRED, FR_SP = CCT_FR_SP };
#define PMU_CYCLES_OFF  16
#define PMU_RETIRED_OFF 24
#define STUB_FRAME      96

/* The shared slow-path stub: saves what a standard call still needs
 * (arguments, pv, gp) and calls __alphaprof_cct_lookup(core, site, target,
 * procs, slot, site_proc) from $1, $22, $23, (procs), $25, $28; returns to
 * $24 with $1 = core, $2 = current record, $3 = the callee's record, and
 * with metrics $23 = $2 too (where a leaf's lookup keeps cur, put_trampoline). */
static void put_stub(struct code *c, uint64_t procs_addr, uint64_t lookup, bool metrics)
{
    static const unsigned saved[] = {16, 17, 18, 19, 20, 21, R_PV, R_GP, 24, 1};
    put(c, mem(OP_LDA, R_SP, R_SP, -STUB_FRAME));
    for (unsigned i = 0; i < sizeof saved / sizeof *saved; i++)
        put(c, mem(OP_STQ, saved[i], R_SP, (int)(8 * i)));
    put(c, opr(OP_INTL, F_BIS, R_ZERO, 1, 16));
    put(c, opr(OP_INTL, F_BIS, R_ZERO, 22, 17));
    put(c, opr(OP_INTL, F_BIS, R_ZERO, 23, 18));
    put_const(c, 19, procs_addr);
    put(c, opr(OP_INTL, F_BIS, R_ZERO, 25, 20));
    put(c, opr(OP_INTL, F_BIS, R_ZERO, R_AT, 21));
    put_const(c, R_PV, lookup);
    put(c, (uint32_t)OP_JMP << 26 | R_RA << 21 | R_PV << 16 | JMP_FUNC_JSR << 14);
    put(c, opr(OP_INTL, F_BIS, R_ZERO, 0, 3));
    for (unsigned i = 0; i < sizeof saved / sizeof *saved; i++)
        put(c, mem(OP_LDQ, saved[i], R_SP, (int)(8 * i)));
    put(c, mem(OP_LDA, R_SP, R_SP, STUB_FRAME));
    put(c, mem(OP_LDQ, 2, 1, CCT_OFF_CUR));
    if (metrics)
        put(c, opr(OP_INTL, F_BIS, R_ZERO, 2, 23));
    put(c, (uint32_t)OP_JMP << 26 | R_ZERO << 21 | 24 << 16 | JMP_FUNC_RET << 14 | 1);
}

/* The shared unwinder (cct-region.h note 8), entered with bsr $28 from a
 * return path whose top frame ($23) is not its own ($22 core): pops the
 * frames below sp, each record's activity down; returns $23 = the top
 * frame then and $25 = 1 if that one is the returning call's (its sp is
 * ours), 0 if the call has no frame left. */
static void put_unwind(struct code *c, bool metrics)
{
    uint64_t loop = here(c);
    put(c, opr(OP_INTA, F_SUBQ, 23, 22, 24));
    put(c, mem(OP_LDA, 24, 24, -CCT_STACK_OFFSET));
    struct fixup to_none = put_fwd(c, OP_BLT, 24);
    put(c, mem(OP_LDQ, 25, 23, FR_SP));
    put(c, opr(OP_INTA, F_CMPULT, 25, R_SP, 24));
    struct fixup to_stop = put_fwd(c, OP_BEQ, 24);
    if (metrics) {             /* without metrics nothing counts activations (note 9) */
        put(c, mem(OP_LDQ, 24, 22, CCT_OFF_CUR));
        put(c, mem(OP_LDL, 25, 24, CCT_REC_ACTIVE));
        put(c, opl(OP_INTA, F_SUBL, 25, 1, 25));
        put(c, mem(OP_STL, 25, 24, CCT_REC_ACTIVE));
    }
    put(c, mem(OP_LDQ, 25, 23, FR_PARENT));
    put(c, mem(OP_STQ, 25, 22, CCT_OFF_CUR));
    put(c, mem(OP_STQ, 23, 22, CCT_OFF_TOP));
    put(c, mem(OP_LDA, 23, 23, -CCT_FRAME_SIZE));
    put_branch(c, OP_BR, R_ZERO, loop);
    land(c, to_stop);
    put(c, mem(OP_LDQ, 25, 23, FR_SP));
    put(c, opr(OP_INTA, F_CMPEQ, 25, R_SP, 25));
    put(c, (uint32_t)OP_JMP << 26 | R_ZERO << 21 | R_AT << 16 | JMP_FUNC_RET << 14 | 1);
    land(c, to_none);
    put(c, opr(OP_INTL, F_BIS, R_ZERO, R_ZERO, 25));
    put(c, (uint32_t)OP_JMP << 26 | R_ZERO << 21 | R_AT << 16 | JMP_FUNC_RET << 14 | 1);
}

/* x = mem[base + off] + delta; stored back (quad). */
static void put_incq(struct code *c, unsigned x, unsigned base, int off)
{
    put(c, mem(OP_LDQ, x, base, off));
    put(c, opl(OP_INTA, F_ADDQ, x, 1, x));
    put(c, mem(OP_STQ, x, base, off));
}

/* Before a call ($1 the core's region): the PMU counts now, kept at `at`
 * + the two offsets (cct-region.h note 4); uses $5, $7, $8. */
static void put_keep_metrics(struct code *c, unsigned at, int cycles_off, int retired_off)
{
    put(c, mem(OP_LDAH, 5, 1, -(int)((CCT_PHYS - PMU_WINDOW_PHYS) >> 16)));
    put(c, mem(OP_LDQ, 7, 5, PMU_CYCLES_OFF));
    put(c, mem(OP_LDQ, 8, 5, PMU_RETIRED_OFF));
    put(c, mem(OP_STQ, 7, at, cycles_off));
    put(c, mem(OP_STQ, 8, at, retired_off));
}

/* At the return ($22 the core's region): the PMU counts now in $7, $8;
 * uses $at. */
static void put_pmu_now(struct code *c)
{
    put(c, mem(OP_LDAH, R_AT, 22, -(int)((CCT_PHYS - PMU_WINDOW_PHYS) >> 16)));
    put(c, mem(OP_LDQ, 7, R_AT, PMU_CYCLES_OFF));
    put(c, mem(OP_LDQ, 8, R_AT, PMU_RETIRED_OFF));
}

/* At the return ($24 the record; the PMU counts now in $7, $8, or read
 * here from $22's region when `read`): the PMU counts now less those kept
 * at the call (put_keep_metrics, at `at` + the two offsets) added to the
 * record's inclusive metrics, as (record + now) - kept: the record's load
 * and the kept one, each after a load of its base, then meet one step
 * before the store; uses $at, $4-$8, $25. */
static void put_add_metrics(struct code *c, unsigned at, int cycles_off, int retired_off, bool read)
{
    if (read)
        put_pmu_now(c);
    put(c, mem(OP_LDQ, 5, 24, CCT_REC_CYCLES));
    put(c, mem(OP_LDQ, 6, 24, CCT_REC_RETIRED));
    put(c, mem(OP_LDQ, 25, at, cycles_off));
    put(c, mem(OP_LDQ, 4, at, retired_off));
    put(c, opr(OP_INTA, F_ADDQ, 5, 7, 5));
    put(c, opr(OP_INTA, F_ADDQ, 6, 8, 6));
    put(c, opr(OP_INTA, F_SUBQ, 5, 25, 5));
    put(c, opr(OP_INTA, F_SUBQ, 6, 4, 6));
    put(c, mem(OP_STQ, 5, 24, CCT_REC_CYCLES));
    put(c, mem(OP_STQ, 6, 24, CCT_REC_RETIRED));
}

/* A framed return's pop ($23 the popped frame, $24 the record, $7 and
 * $8 the PMU counts read first at the return, put_pmu_now): the
 * record's activity one less, and when that was its outermost activation
 * the frame's kept counts to now added to it (put_add_metrics). */
static void put_outermost_metrics(struct code *c)
{
    put(c, mem(OP_LDL, 25, 24, CCT_REC_ACTIVE));
    put(c, opl(OP_INTA, F_SUBL, 25, 1, 25));
    put(c, mem(OP_STL, 25, 24, CCT_REC_ACTIVE));
    struct fixup nested = put_fwd(c, OP_BNE, 25);
    put_add_metrics(c, 23, FR_CYCLES, FR_RETIRED, false);
    land(c, nested);
}

/* The call instruction of site s at the trampoline's current address. */
static void put_call(struct code *c, const struct site *s)
{
    c->ra = here(c) + 4;
    if (s->jsr)
        put(c, s->insn);        /* jsr is absolute: the same word works here */
    else
        put_branch(c, OP_BSR, R_RA, s->target);
}

/* Back at the call site (cct-region.h note 2): ra as the original call
 * left it, then S + 4; or, when the caller reloads gp from ra right after
 * the call, that gp (ra is dead past the reload) and on after the reload;
 * either way past the unops that follow (plan_back).  Each is one lda
 * from ra (the trampoline's own return address, put_call; a longjmp to
 * setjmp's second return restores it too) when the distance fits. */
static void put_back(struct code *c, const struct site *s)
{
    /* from ra, the trampoline's return address, when one lda reaches */
    int64_t to_gp = (int64_t)(s->back_gp - c->ra), to_ret = (int64_t)(s->pc + 4 - c->ra);
    if (s->back_gp && to_gp >= -0x8000 && to_gp < 0x8000)
        put(c, mem(OP_LDA, R_GP, R_RA, (int)to_gp));
    else if (s->back_gp)
        put_const(c, R_GP, s->back_gp);
    else if (!s->ra_dead && to_ret >= -0x8000 && to_ret < 0x8000)
        put(c, mem(OP_LDA, R_RA, R_RA, (int)to_ret));
    else if (!s->ra_dead)
        put_const(c, R_RA, s->pc + 4);
    put_branch(c, OP_BR, R_ZERO, s->resume ? s->resume : s->pc + 4 + s->back_skip);
}

/* Whether ra is dead at `at` in the caller's code [start, end): on every
 * path from there an instruction writes it (a load into it, a call)
 * before any reads it; the paths are followed through branches within
 * the procedure, and a jump, a return, a branch out of it, an
 * instruction not decoded here or more than RA_LOOK instructions end the
 * look: then it may be read (plan_back). */
#define RA_LOOK 256
struct ra_look { uint64_t seen[RA_LOOK]; unsigned n; };

static bool ra_dead_from(const struct elf_in *e, uint64_t at, uint64_t start, uint64_t end, struct ra_look *lk)
{
    for (;;) {
        if (at < start || at + 4 > end)
            return false;
        for (unsigned k = 0; k < lk->n; k++)
            if (lk->seen[k] == at)
                return true;            /* followed from there already */
        if (lk->n == RA_LOOK)
            return false;
        lk->seen[lk->n++] = at;
        const uint8_t *p = at_addr(e, at, 4);
        if (!p)
            return false;
        uint32_t w;
        memcpy(&w, p, 4);
        unsigned op = w >> 26, ra = (w >> 21) & 31, rb = (w >> 16) & 31, rc = w & 31;
        bool reads = false, writes = false;
        switch (op) {
        case 0x08: case 0x09: case 0x0a: case 0x0b: case 0x0c:     /* lda, ldah, ldbu, ldq_u, ldwu */
        case 0x28: case 0x29: case 0x2a: case 0x2b:                /* ldl, ldq, ldl_l, ldq_l */
            reads = rb == R_RA;
            writes = ra == R_RA;
            break;
        case 0x0d: case 0x0e: case 0x0f: case 0x2c: case 0x2d:     /* stw, stb, stq_u, stl, stq */
            reads = ra == R_RA || rb == R_RA;
            break;
        case 0x10: case 0x11: case 0x12: case 0x13: case 0x1c:     /* integer operates */
            reads = ra == R_RA || (!(w & 0x1000) && rb == R_RA);
            writes = rc == R_RA;
            break;
        case OP_BSR:                                               /* a call writes ra */
            if (ra == R_RA)
                return true;
            return false;
        case OP_JMP:
            return ((w >> 14) & 3) == 1 && ra == R_RA && rb != R_RA;
        case OP_BR:
            if (ra == R_RA)
                return true;
            if (ra != R_ZERO)
                return false;
            at = at + 4 + 4 * (uint64_t)((int64_t)(int32_t)(w << 11) >> 11);
            continue;
        case 0x38: case 0x39: case 0x3a: case 0x3b:                /* blbc, beq, blt, ble */
        case 0x3c: case 0x3d: case 0x3e: case 0x3f:                /* blbs, bne, bge, bgt */
            if (ra == R_RA)
                return false;
            if (!ra_dead_from(e, at + 4 + 4 * (uint64_t)((int64_t)(int32_t)(w << 11) >> 11), start, end, lk))
                return false;
            at += 4;
            continue;
        default:
            return false;
        }
        if (reads)
            return false;
        if (writes)
            return true;
        at += 4;
    }
}

static bool ra_dead_at(const struct elf_in *e, uint64_t at, const struct proc *p)
{
    struct ra_look lk;
    lk.n = 0;
    return ra_dead_from(e, at, p->entry, p->end, &lk);
}

/* Where a call's return goes on (--cct, cct-region.h note 2): a gp
 * reload right after the call (`ldah $29, hi($26); lda $29, lo($29)`,
 * ra the return address S + 4) is done by the trampoline with the value
 * it computes, and the unops after the call or the reload (at most 3)
 * are skipped: the caller's code goes on as after the original call,
 * the instructions that only read a known ra or do nothing not run
 * (the return's fetch groups are what cost, notes 9).  Without a reload,
 * ra is set back to S + 4 only where the caller may read it (ra_dead_at:
 * compiled code reloads its own ra from its frame before it returns).
 * Planned for every site before any is patched: the words read are the
 * original's. */
static void plan_back(const struct elf_in *e, const struct proc *procs, struct site *s)
{
    uint64_t at = s->pc + 4;
    const uint8_t *w = at_addr(e, at, 8);
    s->back_gp = 0;
    s->back_skip = 0;
    s->ra_dead = false;
    if (!w)
        return;
    uint32_t a, b;
    memcpy(&a, w, 4);
    memcpy(&b, w + 4, 4);
    if ((a & 0xffff0000u) == mem(OP_LDAH, R_GP, R_RA, 0) && (b & 0xffff0000u) == mem(OP_LDA, R_GP, R_GP, 0)) {
        s->back_gp = at + (uint64_t)((int64_t)(int16_t)(a & 0xffff) * 65536 + (int16_t)(b & 0xffff));
        s->back_skip = 8;
    }
    for (unsigned n = 0; n < 3; n++) {
        const uint8_t *u = at_addr(e, at + s->back_skip, 4);
        uint32_t x;
        if (!u)
            break;
        memcpy(&x, u, 4);
        if (x != UNOP)
            break;
        s->back_skip += 4;
    }
    if (!s->back_gp && s->proc >= 0)
        s->ra_dead = ra_dead_at(e, at + s->back_skip, &procs[s->proc]);
}

/* One call site's trampoline (register use: cct-region.h note 2; before
 * the call $1 core, $2 current, $3 callee record, $4.. scratch; after it
 * $0 and $1 may hold return values, so only $2-$8, $22-$25, $28). */
struct tramp_calls { uint64_t pushed, leaf, leaf_slow, unpushed, counted; };

struct slow_exits { struct fixup to[5]; unsigned n; };

/* The fast lookup of the callee's record: $1 core, register `cur` the
 * current record ($2; $23 for a call that may be a leaf's with metrics,
 * which also gets the PMU page in $22 beside the region, cct-region.h
 * note 3a), $3 the callee's record from the current record's slot for this site
 * (cct-region.h note 3), $6 the slot's calls (twice the count, + 1 for a
 * leaf); every miss branches to the slow path.  A jsr tests the slot's
 * callee, every load from the current record alone (one dependent load
 * less); the callee test also finds an empty slot (its callee is 0), so
 * a jsr does not test $3 and leaves its load to the framed call
 * (put_trampoline), and a bsr to a known leaf (LOOKUP_LEAF) neither
 * loads nor tests it: its slot's leaf bit says the slot is set (note 9).  `cur` is
 * never 0 (the loader points it at the region itself, note 6), so it is
 * not tested.  Returns whether there is a fast lookup (else every call
 * takes the slow path). */
enum { LOOKUP_COUNTS, LOOKUP_LEAF };
static bool put_lookup(struct code *c, const struct site *s, const struct proc *procs, unsigned counts,
                       unsigned cur, struct slow_exits *slow)
{
    _Static_assert(CCT_REC_LEAF == 1, "a slot's calls keep the leaf flag in bit 0");
    const struct proc *p = s->proc >= 0 ? &procs[s->proc] : NULL;
    int slot_off = CCT_REC_SLOTS + CCT_SLOT_SIZE * (int)s->slot;
    bool fast = p && slot_off + CCT_SLOT_SIZE - 8 <= 0x7fff;
    /* the current record's procedure: its flags are the site procedure's
     * (never a leaf: it calls) when its ordinal fits an lda */
    int64_t flags = p ? (int64_t)(s->proc + 1) << CCT_REC_PROC_SHIFT : 0;
    slow->n = 0;
    put_core_state(c, 1);
    if (cur == 23)              /* a leaf's call with metrics: the PMU page too (note 3a) */
        put(c, mem(OP_LDAH, 22, 1, -(int)((CCT_PHYS - PMU_WINDOW_PHYS) >> 16)));
    if (fast) {
        put(c, mem(OP_LDQ, cur, 1, CCT_OFF_CUR));
        bool by_flags = flags <= 0x7fff && !p->leaf;
        put(c, mem(by_flags ? OP_LDL : OP_LDQ, 4, cur, by_flags ? CCT_REC_FLAGS : CCT_REC_CALLEE));
        if (counts == LOOKUP_COUNTS && !s->jsr)
            put(c, mem(OP_LDQ, 3, cur, slot_off + CCT_SLOT_REC));
        put(c, mem(OP_LDQ, 6, cur, slot_off + CCT_SLOT_CALLS));
        if (s->jsr)
            put(c, mem(OP_LDQ, 7, cur, slot_off + CCT_SLOT_CALLEE));
        if (by_flags) {
            put(c, mem(OP_LDA, 4, 4, -(int)flags));
            slow->to[slow->n++] = put_fwd(c, OP_BNE, 4);
        } else {
            put_const(c, 5, p->entry);
            put(c, opr(OP_INTA, F_CMPEQ, 4, 5, 4));
            slow->to[slow->n++] = put_fwd(c, OP_BEQ, 4);
        }
        if (counts == LOOKUP_LEAF)
            slow->to[slow->n++] = put_fwd(c, OP_BLBC, 6);
        else if (!s->jsr)
            slow->to[slow->n++] = put_fwd(c, OP_BEQ, 3);
        if (s->jsr) {
            put(c, opr(OP_INTA, F_CMPEQ, 7, s->rb, 7));
            slow->to[slow->n++] = put_fwd(c, OP_BEQ, 7);
        }
    } else {
        slow->to[slow->n++] = put_fwd(c, OP_BR, R_ZERO);
    }
    return fast;
}

/* The slow path: the stub's lookup, then back to `found`. */
static void put_slow(struct code *c, const struct site *s, const struct proc *p, uint64_t stub, uint64_t found,
                     const struct slow_exits *slow)
{
    for (unsigned i = 0; i < slow->n; i++)
        land(c, slow->to[i]);
    put_const(c, 22, s->pc);
    if (s->jsr)
        put(c, opr(OP_INTL, F_BIS, R_ZERO, s->rb, 23));
    else
        put_const(c, 23, s->target);
    put(c, mem(OP_LDA, 25, R_ZERO, s->slot <= 0x7fff ? (int)s->slot : 0x7fff));
    put_const(c, R_AT, p ? p->entry : 0);
    put_branch(c, OP_BSR, 24, stub);
    put_branch(c, OP_BR, R_ZERO, found);
}

/* $4 = the shadow stack's next frame ($1 core); full: to the returned fixup. */
static struct fixup put_stack_check(struct code *c)
{
    put(c, mem(OP_LDQ, 4, 1, CCT_OFF_TOP));
    put(c, opr(OP_INTA, F_SUBQ, 4, 1, 5));
    put(c, mem(OP_LDA, 5, 5, -CCT_RECORDS_OFFSET));
    return put_fwd(c, OP_BGE, 5);
}

/* Shadow stack full (note 5): count, and make the call with a return of
 * its own that pops nothing (the calls under it find the stack full too,
 * so the frames stay in LIFO order). */
static uint64_t put_unpushed(struct code *c, const struct site *s, struct fixup to_full, bool land_it)
{
    if (land_it)
        land(c, to_full);
    put_incq(c, 5, 1, (int)__builtin_offsetof(struct cct_core, skipped_calls));
    uint64_t call = here(c);
    put_call(c, s);
    put_back(c, s);
    return call;
}

/* The callee's procedure when the call says it (a bsr to its entry), else -1. */
static int known_callee(const struct site *s, const struct proc *procs, unsigned nprocs)
{
    int i = s->jsr ? -1 : proc_of(procs, nprocs, s->target);
    /* a bsr into the middle of a symbol's range (code with no symbol of
     * its own, valuediff's blob) calls no procedure we know */
    return i >= 0 && (s->target == procs[i].entry || s->target == procs[i].alt_entry) ? i : -1;
}

/* A framed call (cct-region.h notes 4, 8), from the push on ($1 core,
 * $3 the callee's record, $4 the free frame, register `cur` the current
 * record): the frame, the call at *call, the pop and back.  With metrics
 * the frame keeps the PMU counts, and the return adds the time to the
 * callee's record: with `activity`, only at its outermost activation
 * (note 4), else every time (note 4a: a callee never active twice).
 * Returns the push's address. */
static uint64_t put_framed(struct code *c, const struct site *s, unsigned cur, bool metrics, bool activity,
                           bool may_land, uint64_t unwind, uint64_t *call)
{
    uint64_t push = here(c);
    put(c, mem(OP_STQ, cur, 4, FR_PARENT));
    put(c, mem(OP_STQ, R_SP, 4, FR_SP));
    if (metrics) {              /* the PMU counts at the call, in the frame (note 4) */
        put_keep_metrics(c, 4, FR_CYCLES, FR_RETIRED);
    }
    put(c, mem(OP_LDA, 4, 4, CCT_FRAME_SIZE));
    put(c, mem(OP_STQ, 4, 1, CCT_OFF_TOP));
    put(c, mem(OP_STQ, 3, 1, CCT_OFF_CUR));
    if (metrics && activity) {  /* one activation more (note 4) */
        put(c, mem(OP_LDL, 7, 3, CCT_REC_ACTIVE));
        put(c, opl(OP_INTA, F_ADDL, 7, 1, 7));
        put(c, mem(OP_STL, 7, 3, CCT_REC_ACTIVE));
    }
    *call = here(c);
    put_call(c, s);
    /* returned: pop this call's frame, the one on top with our sp
     * (after frames a longjmp left, note 8); with metrics, the
     * activation's time added to the callee's record (cur until the
     * pop) when it was its outermost */
    put_core_state(c, 22);
    if (metrics)                /* the PMU counts now, first: the return's window ends here (note 4) */
        put_pmu_now(c);
    put(c, mem(OP_LDQ, 23, 22, CCT_OFF_TOP));
    if (!may_land) {
        if (metrics)
            put(c, mem(OP_LDQ, 24, 22, CCT_OFF_CUR));
        /* the parent read from the frame below top, not after top's
         * decrement: a step less on the return's dependent chain */
        put(c, mem(OP_LDQ, 6, 23, FR_PARENT - CCT_FRAME_SIZE));
        put(c, mem(OP_LDA, 23, 23, -CCT_FRAME_SIZE));
        put(c, mem(OP_STQ, 23, 22, CCT_OFF_TOP));
        put(c, mem(OP_STQ, 6, 22, CCT_OFF_CUR));
        if (metrics && activity)
            put_outermost_metrics(c);
        else if (metrics)       /* never active twice: every activation its outermost (note 4a) */
            put_add_metrics(c, 23, FR_CYCLES, FR_RETIRED, false);
        put_back(c, s);
    } else {
        put(c, mem(OP_LDA, 23, 23, -CCT_FRAME_SIZE));
        put(c, mem(OP_LDQ, 25, 23, FR_SP));
        put(c, opr(OP_INTA, F_CMPEQ, 25, R_SP, 25));
        struct fixup to_unwind = put_fwd(c, OP_BEQ, 25);
        uint64_t matched = here(c);
        if (metrics)
            put(c, mem(OP_LDQ, 24, 22, CCT_OFF_CUR));
        put(c, mem(OP_LDQ, 6, 23, FR_PARENT));
        put(c, mem(OP_STQ, 23, 22, CCT_OFF_TOP));
        put(c, mem(OP_STQ, 6, 22, CCT_OFF_CUR));
        if (metrics)
            put_outermost_metrics(c);
        uint64_t back = here(c);
        put_back(c, s);
        land(c, to_unwind);
        put_branch(c, OP_BSR, R_AT, unwind);
        put_branch(c, OP_BNE, 25, matched);
        put_branch(c, OP_BR, R_ZERO, back);
    }
    return push;
}

/* One call site's trampoline, counts only or with metrics (cct-region.h
 * notes 3a, 4, 9): the call's count in its context; a frame of parent and
 * sp (and, with metrics, the PMU counts at the call) for a callee that
 * may call, none for a leaf.  The fast path counts in the slot ($6
 * loaded by the lookup), the slow path in the record it found; a leaf
 * found by the fast path skips the full-stack test (note 9 says why).
 * With metrics a leaf's call the fast path found keeps the PMU page,
 * cur and the PMU counts in $22-$25 (CCT_KEPT_REGS, which a leaf with
 * metrics leaves alone) and adds the differences to its slot on return;
 * one the slow path found keeps its record and the counts in the core's
 * leaf_* fields and adds the differences to the record; a framed call
 * keeps the counts in its frame and adds the differences when its
 * record's activity drops to 0, or, to a callee never active twice
 * (s->callee_once), at every return with no activity kept but in the
 * overflow record (note 4a).  The common case falls through to the call
 * and back. */
static void put_trampoline(struct code *c, const struct site *s, const struct proc *procs, unsigned nprocs,
                           uint64_t stub, uint64_t unwind, bool metrics, struct tramp_calls *calls)
{
    const struct proc *p = s->proc >= 0 ? &procs[s->proc] : NULL;
    int callee = known_callee(s, procs, nprocs);
    bool leaf = callee >= 0 && procs[callee].leaf, maybe_leaf = s->jsr, framed = !leaf;
    /* only a longjmp abandons frames, and it lands at a returns-twice
     * call's return, which drops them (note 8): other returns find their
     * frame on top */
    bool may_land = callee < 0 || returns_twice(procs[callee].name);
    /* with metrics, a callee never active twice needs no activity count
     * (note 4a) but in the overflow record, which many calls share */
    bool activity = !(metrics && framed && !may_land && s->callee_once);
    int slot = CCT_REC_SLOTS + CCT_SLOT_SIZE * (int)s->slot, slot_calls = slot + CCT_SLOT_CALLS;
    struct slow_exits slow;
    struct fixup to_framed = {0}, to_full = {0};
    uint64_t push = 0, leaf_meter = 0;
    /* with metrics a call that may be a leaf's keeps the current record
     * in $23 (note 3a): the lookup loads it there (the slow path's stub
     * copies it there), and a jsr's framed call uses it there too */
    unsigned cur = metrics && (leaf || maybe_leaf) ? 23 : 2;
    bool fast = put_lookup(c, s, procs, leaf ? LOOKUP_LEAF : LOOKUP_COUNTS, cur, &slow);
    calls->leaf = calls->pushed = calls->leaf_slow = calls->counted = 0;
    if (leaf || maybe_leaf) {
        /* a leaf's call falls through: count, call, back */
        if (maybe_leaf)
            to_framed = put_fwd(c, OP_BLBC, 6);
        put(c, opl(OP_INTA, F_ADDQ, 6, 2, 6));
        put(c, mem(OP_STQ, 6, cur, slot_calls));
        if (both.calls) {       /* --both: the leaf's paths count in it (cct-region.h note 12) */
            /* the counting lookup leaves a leaf's record unloaded (note 9) */
            put(c, mem(OP_LDQ, 3, 2, CCT_REC_SLOTS + CCT_SLOT_SIZE * (int)s->slot + CCT_SLOT_REC));
            put(c, mem(OP_STQ, 3, 1, CCT_OFF_LEAF_REC));
        }
        if (metrics) {
            /* the PMU page and cur (put_lookup's) and the PMU counts now
             * kept in registers the leaf leaves alone (note 3a): the
             * counts read last, right before the call */
            put(c, mem(OP_LDQ, 24, 22, PMU_CYCLES_OFF));
            put(c, mem(OP_LDQ, 25, 22, PMU_RETIRED_OFF));
        }
        calls->leaf = here(c);
        put_call(c, s);
        if (metrics) {          /* the differences added to the slot's metrics */
            put(c, mem(OP_LDQ, 7, 22, PMU_CYCLES_OFF));
            put(c, mem(OP_LDQ, 8, 22, PMU_RETIRED_OFF));
            put(c, mem(OP_LDQ, 5, 23, slot + CCT_SLOT_CYCLES));
            put(c, mem(OP_LDQ, 6, 23, slot + CCT_SLOT_RETIRED));
            put(c, opr(OP_INTA, F_SUBQ, 7, 24, 7));
            put(c, opr(OP_INTA, F_SUBQ, 8, 25, 8));
            put(c, opr(OP_INTA, F_ADDQ, 5, 7, 5));
            put(c, opr(OP_INTA, F_ADDQ, 6, 8, 6));
            put(c, mem(OP_STQ, 5, 23, slot + CCT_SLOT_CYCLES));
            put(c, mem(OP_STQ, 6, 23, slot + CCT_SLOT_RETIRED));
        }
        put_back(c, s);
        leaf_meter = calls->leaf;       /* where the slow path makes a leaf's call (counts only) */
    }
    if (framed) {
        if (maybe_leaf)
            land(c, to_framed);
        if (s->jsr && fast)     /* the callee's record, which the lookup left to us */
            put(c, mem(OP_LDQ, 3, cur, CCT_REC_SLOTS + CCT_SLOT_SIZE * (int)s->slot + CCT_SLOT_REC));
        to_full = put_stack_check(c);
        put(c, opl(OP_INTA, F_ADDQ, 6, 2, 6));
        put(c, mem(OP_STQ, 6, cur, slot_calls));
        push = put_framed(c, s, cur, metrics, activity, may_land, unwind, &calls->pushed);
    }
    /* with metrics, a leaf's call the slow path found (its slot may be
     * another's, note 3): the record and the PMU counts in the core, the
     * differences added to the record on return */
    if (metrics && (leaf || maybe_leaf)) {
        leaf_meter = here(c);
        put(c, mem(OP_STQ, 3, 1, CCT_OFF_LEAF_REC));
        put_keep_metrics(c, 1, CCT_OFF_LEAF_CYCLES, CCT_OFF_LEAF_RETIRED);
        calls->leaf_slow = here(c);
        put_call(c, s);
        put_core_state(c, 22);
        put(c, mem(OP_LDQ, 24, 22, CCT_OFF_LEAF_REC));
        put_add_metrics(c, 22, CCT_OFF_LEAF_CYCLES, CCT_OFF_LEAF_RETIRED, true);
        put_back(c, s);
    }
    /* the slow path's record ($3): only with room on the stack; counted
     * in the record; then the leaf's call or the push */
    uint64_t slow_found = here(c);
    struct fixup to_full_slow = put_stack_check(c);
    put_incq(c, 6, 3, CCT_REC_CALLS);
    if (both.calls)
        put(c, mem(OP_STQ, 3, 1, CCT_OFF_LEAF_REC));
    if (maybe_leaf) {
        put(c, mem(OP_LDL, 5, 3, CCT_REC_FLAGS));
        put_branch(c, OP_BLBS, 5, leaf_meter);
        put_branch(c, OP_BR, R_ZERO, push);
    } else {
        if (!activity) {        /* but the overflow record gets a frame that counts activity (note 4a) */
            put(c, mem(OP_LDQ, 7, 1, (int)__builtin_offsetof(struct cct_core, overflow)));
            put(c, opr(OP_INTA, F_CMPEQ, 7, 3, 7));
            put_branch(c, OP_BEQ, 7, push);
            put_framed(c, s, cur, metrics, true, may_land, unwind, &calls->counted);
        } else {
            put_branch(c, OP_BR, R_ZERO, leaf ? leaf_meter : push);
        }
    }
    land(c, to_full_slow);
    calls->unpushed = put_unpushed(c, s, to_full, framed);
    put_slow(c, s, p, stub, slow_found, &slow);
}

/* ---- writing the output ---- */

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

struct outbuf { uint8_t *b; size_t len, cap; };
static size_t out_put(struct outbuf *o, const void *p, size_t n, size_t align)
{
    size_t at = align_up(o->len, align);
    if (at + n > o->cap) {
        o->cap = 2 * (at + n);
        o->b = realloc(o->b, o->cap);
        if (!o->b)
            abort();
    }
    memset(o->b + o->len, 0, at - o->len);
    if (n)
        memcpy(o->b + at, p, n);
    o->len = at + n;
    return at;
}

int instrument_is_instrumented(const char *path, struct ap_err *err)
{
    struct elf_in e = {0};
    int rc = read_file(path, &e, err);
    if (rc == 0)
        rc = find_section(&e, INSTRUMENT_SECTION) >= 0;
    free(e.buf);
    return rc;
}

int instrument_site_table(const char *path, struct instrument_site_map **map, size_t *n, uint64_t *lo,
                          uint64_t *hi, struct ap_err *err)
{
    struct elf_in e = {0};
    *map = NULL;
    *n = 0;
    *lo = *hi = 0;
    if (read_file(path, &e, err))
        goto fail;
    int sec = find_section(&e, INSTRUMENT_SECTION);
    if (sec >= 0) {
        const Elf64_Shdr *s = &e.sh[sec];
        uint64_t trailer[2];
        if (s->sh_size < sizeof trailer || s->sh_offset + s->sh_size > e.size) {
            ap_err_set(err, "%s: section %s is cut short; instrument the image again", path, INSTRUMENT_SECTION);
            goto fail;
        }
        uint64_t size = s->sh_size, tr[3];
        memcpy(tr, e.buf + s->sh_offset + size - sizeof tr, size >= sizeof tr ? sizeof tr : 0);
        if (size >= sizeof tr && tr[0] == PATH_TABLE_MAGIC && tr[1] < size && tr[2] < size &&
            sizeof tr + tr[1] * sizeof(struct path_table_proc) + tr[2] * 16 + sizeof trailer <= size)
            size -= sizeof tr + tr[1] * sizeof(struct path_table_proc) + tr[2] * 16;     /* --both: before it */
        memcpy(trailer, e.buf + s->sh_offset + size - sizeof trailer, sizeof trailer);
        if (trailer[0] != CCT_SITES_MAGIC || trailer[1] > (size - sizeof trailer) / (2 * sizeof(uint64_t))) {
            ap_err_set(err, "%s: no site table at the end of %s; instrument the image again with this alphaprof",
                       path, INSTRUMENT_SECTION);
            goto fail;
        }
        *n = trailer[1];
        *map = calloc(*n ? *n : 1, sizeof **map);
        memcpy(*map, e.buf + s->sh_offset + size - sizeof trailer - *n * sizeof **map, *n * sizeof **map);
        *lo = s->sh_addr;
        *hi = s->sh_addr + s->sh_size;
    }
    free(e.buf);
    return 0;
fail:
    free(e.buf);
    return -1;
}

/* Writes e (patched in place) with the code segment c appended as a new
 * loaded section named INSTRUMENT_SECTION and symbol INSTRUMENT_SYMBOL
 * from sym_start, sealed, to out (atomically). */
static int write_instrumented(struct elf_in *e, const struct image_header *hdr0, const struct code *cc,
                              uint64_t sym_start, int symtab, const char *out, struct ap_err *err)
{
    struct elf_in ee = *e;
    struct elf_in *ep = &ee;
    const struct code *cp = cc;
    struct outbuf o = {0};
    char *tmp = NULL;
    int rc = -1;
    /* header: the segment is part of the loaded image */
    int hsec = find_section(ep, IMAGE_HEADER_SECTION);
    struct image_header *h = (struct image_header *)(ep->buf + ep->sh[hsec].sh_offset);
    h->load_size = cp->base + cp->len - h->load_base;
    h->bss_end = cp->base + cp->len;
    /* a new build-id: the original's mixed with the trampolines (FNV-1a) */
    int nsec = find_section(ep, ".note.gnu.build-id");
    if (nsec >= 0) {
        Elf64_Nhdr *nh = (Elf64_Nhdr *)(ep->buf + ep->sh[nsec].sh_offset);
        uint8_t *id = (uint8_t *)(nh + 1) + align_up(nh->n_namesz, 4);
        uint64_t fnv = 0xcbf29ce484222325ULL;
        for (size_t i = 0; i < cp->len; i++)
            fnv = (fnv ^ cp->bytes[i]) * 0x100000001b3ULL;
        for (uint32_t i = 0; i < nh->n_descsz; i++)
            id[i] ^= (uint8_t)(fnv >> (8 * (i % 8))) ^ (uint8_t)(i / 8 * 0x5b);
    }

    /* the new file: the old bytes, then the new pieces */
    out_put(&o, ep->buf, ep->size, 1);
    size_t seg_off = out_put(&o, cp->bytes, cp->len, 64);
    const Elf64_Shdr *sym_sh = &ep->sh[symtab];
    const Elf64_Shdr *str_sh = &ep->sh[sym_sh->sh_link];
    size_t str_off = out_put(&o, ep->buf + str_sh->sh_offset, str_sh->sh_size, 1);
    size_t name_at = str_sh->sh_size;
    out_put(&o, INSTRUMENT_SYMBOL, sizeof INSTRUMENT_SYMBOL, 1);
    size_t str_size = o.len - str_off;
    size_t sym_off = out_put(&o, ep->buf + sym_sh->sh_offset, sym_sh->sh_size, 8);
    Elf64_Sym sym = {.st_name = (uint32_t)name_at, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
                     .st_shndx = ep->eh->e_shnum, .st_value = sym_start, .st_size = cp->base + cp->len - sym_start};
    out_put(&o, &sym, sizeof sym, 1);
    size_t sym_size = o.len - sym_off;
    const Elf64_Shdr *shs = &ep->sh[ep->eh->e_shstrndx];
    size_t shstr_off = out_put(&o, ep->buf + shs->sh_offset, shs->sh_size, 1);
    size_t secname_at = shs->sh_size;
    out_put(&o, INSTRUMENT_SECTION, sizeof INSTRUMENT_SECTION, 1);
    size_t shstr_size = o.len - shstr_off;
    Elf64_Phdr seg = {.p_type = PT_LOAD, .p_flags = PF_R | PF_W | PF_X, .p_offset = seg_off,
                      .p_vaddr = cp->base, .p_paddr = cp->base, .p_filesz = cp->len, .p_memsz = cp->len,
                      .p_align = 64};
    size_t ph_off = out_put(&o, ep->ph, (size_t)ep->eh->e_phnum * sizeof(Elf64_Phdr), 8);
    out_put(&o, &seg, sizeof seg, 1);
    Elf64_Shdr sec = {.sh_name = (uint32_t)secname_at, .sh_type = SHT_PROGBITS,
                      .sh_flags = SHF_ALLOC | SHF_EXECINSTR | SHF_WRITE, .sh_addr = cp->base,
                      .sh_offset = seg_off, .sh_size = cp->len, .sh_addralign = 64};
    size_t sh_off = out_put(&o, ep->sh, (size_t)ep->eh->e_shnum * sizeof(Elf64_Shdr), 8);
    out_put(&o, &sec, sizeof sec, 1);
    Elf64_Ehdr *oeh = (Elf64_Ehdr *)o.b;
    Elf64_Shdr *osh = (Elf64_Shdr *)(o.b + sh_off);
    osh[symtab].sh_offset = sym_off;
    osh[symtab].sh_size = sym_size;
    osh[sym_sh->sh_link].sh_offset = str_off;
    osh[sym_sh->sh_link].sh_size = str_size;
    osh[oeh->e_shstrndx].sh_offset = shstr_off;
    osh[oeh->e_shstrndx].sh_size = shstr_size;
    oeh->e_phoff = ph_off;
    oeh->e_phnum++;
    oeh->e_shoff = sh_off;
    oeh->e_shnum++;

    if (asprintf(&tmp, "%s.tmp", out) < 0)
        abort();
    FILE *f = fopen(tmp, "wb");
    if (!f || fwrite(o.b, 1, o.len, f) != o.len) {
        if (f)
            fclose(f);
        ap_err_set(err, "%s: cannot write: %s", tmp, strerror(errno));
        goto done;
    }
    if (fclose(f)) {
        ap_err_set(err, "%s: cannot write: %s", tmp, strerror(errno));
        goto done;
    }
    struct image_file img;
    if (image_open(&img, tmp, true, err) || image_seal(&img, hdr0->name, err) ||
        image_check_sealed(&img, err)) {
        if (img.fd >= 0)
            image_close(&img);
        goto done;
    }
    image_close(&img);
    if (rename(tmp, out)) {
        ap_err_set(err, "%s: cannot write: %s", out, strerror(errno));
        goto done;
    }
    rc = 0;
done:
    if (rc && tmp)
        unlink(tmp);
    free(tmp);
    free(o.b);
    return rc;
}

/* The segment ends with the site table and its trailer (cct-region.h),
 * in address order: a trampoline's calls, each where it has it (a leaf's
 * counting trampoline has no framed call). */
static void put_site_table(struct code *c, const struct site *sites, unsigned nsites)
{
    uint64_t npairs = 0;
    for (unsigned i = 0; i < nsites; i++) {
        uint64_t calls[5] = {sites[i].call, sites[i].call_leaf, sites[i].call_leaf_slow, sites[i].call_unpushed,
                             sites[i].call_counted};
        qsort(calls, 5, sizeof *calls, cmp_u64);
        for (unsigned k = 0; k < 5; k++)
            if (calls[k]) {
                put64(c, calls[k]);
                put64(c, sites[i].pc);
                npairs++;
            }
    }
    put64(c, CCT_SITES_MAGIC);
    put64(c, npairs);
}

/* Whether the segment can be written: -1 with err set when a trampoline
 * is out of a branch's reach of the text or the segment ends past the
 * image area. */
static int segment_fits(const struct code *c, const char *in, struct ap_err *err)
{
    if (c->out_of_reach)
        return ap_err_set(err, "%s: trampolines at 0x%llx are beyond a branch's reach (+-4 MiB) of the text; "
                          "the image's data and bss are too large for this instrumenter",
                          in, (unsigned long long)c->base);
    if (c->base + c->len > IMAGE_AREA_END)
        return ap_err_set(err, "%s: the instrumented image would end past the image area (0x%x)", in,
                          IMAGE_AREA_END);
    return 0;
}

int instrument_cct(const char *in, const char *out, bool metrics, struct instrument_stats *st,
                   struct ap_err *err)
{
    struct image_header hdr;
    if (image_check_file(in, &hdr, err))
        return -1;
    struct elf_in e = {0};
    struct proc *procs = NULL;
    struct site *sites = NULL;
    struct code c = {0};
    unsigned nprocs = 0, nsites = 0;
    int symtab, rc = -1;
    memset(st, 0, sizeof *st);

    if (read_file(in, &e, err))
        goto done;
    if (find_section(&e, INSTRUMENT_SECTION) >= 0) {
        ap_err_set(err, "%s: already instrumented; instrument the original image", in);
        goto done;
    }
    if (collect_procs(&e, &procs, &nprocs, &symtab, err, in))
        goto done;
    uint64_t lookup = 0;
    for (unsigned i = 0; i < nprocs; i++)
        if (!strcmp(procs[i].name, INSTRUMENT_LOOKUP))
            lookup = procs[i].entry;
    if (!lookup) {
        ap_err_set(err, "%s: no %s: the image was linked without the alphaprof runtime's CCT slow path "
                   "(workloads/runtime/cct.c); rebuild it with make", in, INSTRUMENT_LOOKUP);
        goto done;
    }
    collect_sites(&e, procs, nprocs, &sites, &nsites, &st->skipped_sites);
    if (metrics)                /* a metered leaf call keeps registers the leaf must leave alone */
        for (unsigned i = 0; i < nprocs; i++)
            procs[i].leaf = procs[i].leaf && keeps_regs(&e, &procs[i]);

    /* the segment: procedure table, stub, trampolines */
    uint64_t end = hdr.bss_end;
    for (unsigned i = 0; i < e.eh->e_phnum; i++)
        if (e.ph[i].p_type == PT_LOAD && e.ph[i].p_paddr + e.ph[i].p_memsz > end)
            end = e.ph[i].p_paddr + e.ph[i].p_memsz;
    c.base = align_up(end, 64);
    put64(&c, CCT_PROCS_MAGIC);
    put64(&c, nprocs);
    put64(&c, metrics ? CCT_METRICS : 0);
    for (unsigned i = 0; i < nprocs; i++) {
        put64(&c, procs[i].entry);
        put64(&c, procs[i].alt_entry);
        put(&c, procs[i].nsites);
        put(&c, (procs[i].leaf ? CCT_PROC_LEAF : 0) | (i + 1) << CCT_REC_PROC_SHIFT);
        put64(&c, 0);           /* npaths (--both only), spare */
    }
    while (here(&c) % 16)
        put(&c, 0);
    uint64_t stub = here(&c);
    put_stub(&c, c.base, lookup, metrics);
    uint64_t unwind = here(&c);
    put_unwind(&c, metrics);
    for (unsigned i = 0; i < nsites; i++) {   /* on the original's words, before any site is patched */
        plan_back(&e, procs, &sites[i]);
        int k = metrics ? known_callee(&sites[i], procs, nprocs) : -1;
        sites[i].callee_once = k >= 0 && !procs[k].leaf && no_reentry(&e, procs, nprocs, (unsigned)k);
    }
    for (unsigned i = 0; i < nsites; i++) {
        while (here(&c) % 16)
            put(&c, UNOP);
        uint64_t t = here(&c);
        struct tramp_calls tc;
        put_trampoline(&c, &sites[i], procs, nprocs, stub, unwind, metrics, &tc);
        sites[i].call = tc.pushed;
        sites[i].call_unpushed = tc.unpushed;
        sites[i].call_leaf = tc.leaf;
        sites[i].call_leaf_slow = tc.leaf_slow;
        sites[i].call_counted = tc.counted;
        uint8_t *w = at_addr(&e, sites[i].pc, 4);
        bool bad = false;
        uint32_t br = branch_word(OP_BR, R_ZERO, sites[i].pc, t, &bad);
        if (bad)
            c.out_of_reach = true;
        memcpy(w, &br, 4);
    }
    put_site_table(&c, sites, nsites);
    if (segment_fits(&c, in, err))
        goto done;
    st->procs = nprocs;
    st->sites = nsites;
    st->region_addr = c.base;
    st->region_size = c.len;

    if (write_instrumented(&e, &hdr, &c, stub, symtab, out, err))
        goto done;
    rc = 0;
done:
    free(e.buf);
    free(procs);
    free(sites);
    free(c.bytes);
    return rc;
}

/* ---- --paths: Ball-Larus path counting (firmware/abi/path-region.h) ---- */

#define F_S8ADDQ 0x32
#define SINK_BIT 9              /* PATH_SINK == 1 << SINK_BIT (path-region.h) */

static bool fits16(int64_t v) { return v >= -32768 && v <= 32767; }

/* Hashed counting (path-region.h note 14), set while instrument_paths
 * emits a hashed procedure: its ordinal, and tmp, a register free beside
 * the one an increment goes to (put_action's C).  `slots`: the table's
 * size asked for (0: no hashing); `fix` the words that take the table's
 * geometry once the array counters are known (hash_geometry). */
enum hash_fix_kind { HF_SHIFT, HF_AT, HF_AT_CONST, HF_SLOTS };
static struct {
    bool on;
    bool ctx;                   /* --both: the procedure has records, its keys carry them (note 15) */
    int ctx_at;                 /* ... and its context is in its frame at ctx_at(sp), not read (0: none) */
    uint32_t id;
    unsigned tmp;
    uint64_t slots;
    struct hash_fix { size_t at; unsigned kind, r; } *fix;
    size_t nfix, fixcap;
} hashing;

/* Whether k is one ldah + lda away (put_addk's reach). */
static bool fits_ldah(int64_t k)
{
    int64_t hi = (k + 0x8000) >> 16;
    return hi >= -32768 && hi <= 32767;
}

/* r = v, any 64 bits (path-region.h note 14): v = ((d3 << 16 + d2) << 32)
 * + d1 << 16 + d0, each d a sign-extended 16-bit digit. */
static void put_wide(struct code *c, unsigned r, int64_t v)
{
    uint64_t u = (uint64_t)v;
    int16_t d[4];
    for (int i = 0; i < 4; i++) {
        d[i] = (int16_t)(u & 0xffff);
        u = (u - (uint64_t)(int64_t)d[i]) >> 16;
    }
    put(c, mem(OP_LDAH, r, R_ZERO, d[3]));
    put(c, mem(OP_LDA, r, r, d[2]));
    put(c, opl(OP_INTS, F_SLL, r, 32, r));
    put(c, mem(OP_LDAH, r, r, d[1]));
    put(c, mem(OP_LDA, r, r, d[0]));
}

/* r += k (|k| < 2^31, else *bad). */
static void put_addk(struct code *c, unsigned r, int64_t k, bool *bad)
{
    if (!k)
        return;
    if (hashing.on && !fits_ldah(k) && hashing.tmp != R_ZERO) {
        put_wide(c, hashing.tmp, k);
        put(c, opr(OP_INTA, F_ADDQ, r, hashing.tmp, r));
        return;
    }
    if (fits16(k)) {
        put(c, mem(OP_LDA, r, r, (int)k));
        return;
    }
    int64_t hi = (k + 0x8000) >> 16, lo = k - hi * 65536;
    if (!fits16(hi)) {
        *bad = true;
        return;
    }
    put(c, mem(OP_LDAH, r, r, (int)hi));
    if (lo)
        put(c, mem(OP_LDA, r, r, (int)lo));
}

static void put_setk(struct code *c, unsigned r, int64_t k, bool *bad)
{
    if (hashing.on && !fits_ldah(k)) {
        put_wide(c, r, k);
        return;
    }
    if (fits16(k)) {
        put(c, mem(OP_LDA, r, R_ZERO, (int)k));
        return;
    }
    put(c, opr(OP_INTL, F_BIS, R_ZERO, R_ZERO, r));
    put_addk(c, r, k, bad);
}

/* The registers a trampoline works in: the region R and temporaries A, B,
 * C, each one dead where the trampoline runs (util/liveness.h), or, when
 * too few are, one kept below sp while it runs (a trap from user mode runs
 * on the kernel stack). */
struct tregs {
    unsigned R, A, B, C;
    unsigned D, E;              /* with metrics: the counters read (path-region.h note 5) */
    unsigned nsaved, saved[6];
};

static const unsigned scratch_order[] = {1, 2, 3, 4, 5, 6, 7, 8, 22, 23, 24, 25, 28, 27,
                                         16, 17, 18, 19, 20, 21, 0, 26, 29, 9, 10, 11, 12, 13, 14, 15};

/* want (4, or 6 with metrics) registers outside live and exclude; the
 * region's the one given (R_ZERO: pick it too), which needs no picking. */
static void tregs_pick_beside(struct tregs *t, uint32_t live, uint32_t exclude, unsigned want, unsigned region)
{
    unsigned got[6] = {region, R_ZERO, R_ZERO, R_ZERO, R_ZERO, R_ZERO}, n = region != R_ZERO;
    uint32_t taken = live | exclude | 1u << R_SP | 1u << R_ZERO;
    for (size_t i = 0; i < sizeof scratch_order / sizeof *scratch_order && n < want; i++)
        if (!(taken & 1u << scratch_order[i])) {
            got[n++] = scratch_order[i];
            taken |= 1u << scratch_order[i];
        }
    t->nsaved = 0;
    for (unsigned r = 1; n < want; r++)
        if (!((exclude | 1u << R_SP) & 1u << r) && !(taken & 1u << r & ~live)) {
            bool used = false;
            for (unsigned k = 0; k < n; k++)
                used |= got[k] == r;
            if (used)
                continue;
            got[n++] = r;
            t->saved[t->nsaved++] = r;
        }
    t->R = got[0];
    t->A = got[1];
    t->B = got[2];
    t->C = got[3];
    t->D = got[4];
    t->E = got[5];
}

static void tregs_pick(struct tregs *t, uint32_t live, uint32_t exclude, unsigned want)
{
    tregs_pick_beside(t, live, exclude, want, R_ZERO);
}

#define FRAME_SLOTS 16             /* bytes a frame-mode procedure's frame grows by (path-region.h note 11) */

/* Bytes below sp that the trampoline being emitted must leave alone: a
 * frame-mode procedure's slots while sp is its caller's (path-region.h
 * note 11); 0 otherwise. */
static int spill_below;

static void tregs_save(struct code *c, const struct tregs *t)
{
    for (unsigned i = 0; i < t->nsaved; i++)
        put(c, mem(OP_STQ, t->saved[i], R_SP, -8 * (int)(i + 1) - spill_below));
}

static void tregs_restore(struct code *c, const struct tregs *t)
{
    for (unsigned i = 0; i < t->nsaved; i++)
        put(c, mem(OP_LDQ, t->saved[i], R_SP, -8 * (int)(i + 1) - spill_below));
}

/* r = this core's path region, from sp (cct-region.h note 1): a user sp
 * never reaches its slot's end (USER_STACK_TOP_GAP), which is the next
 * slot's first address. */
static void put_region(struct code *c, unsigned r)
{
    _Static_assert(USER_STACK_TOP_GAP > 0, "sp stays inside its slot");
    _Static_assert(CCT_BOTH_PATHS_OFFSET % 0x10000 == 0, "one ldah reaches --both's path region");
    put(c, opl(OP_INTS, F_SRL, R_SP, 22, r));  /* (put_core_state: x | 60, three instructions) */
    put(c, opl(OP_INTL, F_BIS, r, CCT_REGION_NO, r));
    put(c, opl(OP_INTS, F_SLL, r, 18, r));
    if (both.on)
        put(c, mem(OP_LDAH, r, r, (int)(CCT_BOTH_PATHS_OFFSET >> 16)));
}

/* --both: counts path x (a register whose number was checked against
 * npaths; R_ZERO: the number k) in the current call record when that is
 * the procedure's own (cct-region.h note 12); R the path region, y and z
 * scratch.  Else it goes on where the caller puts the context-free count,
 * and ctx_done after that joins the two.  Nothing without `both.ctx`.
 * Metered (--both --metrics, cct-region.h note 16): the record's slots
 * are struct path_metered, and with d (not NULL) its D and E are added
 * to the slot's cycles and event; x is left as it was. */
struct ctx_count {
    bool on;
    struct fixup done;
};

struct meter;
static int64_t slot_size(const struct meter *mt);
static void put_meter_add(struct code *c, const struct tregs *t, unsigned K, int off);

static struct ctx_count put_ctx_count(struct code *c, unsigned R, unsigned x, int64_t k, unsigned y, unsigned z,
                                      const struct meter *mt, const struct tregs *d)
{
    struct ctx_count cc = {.on = both.on && both.ctx};
    if (!cc.on)
        return cc;
    put(c, mem(OP_LDAH, z, R, -(int)(CCT_BOTH_PATHS_OFFSET >> 16)));
    put(c, mem(OP_LDQ, y, z, both.leaf ? CCT_OFF_LEAF_REC : CCT_OFF_CUR));
    if (both.leaf && both.exit)         /* cct-region.h note 12: a leaf's record is its call's only */
        put(c, mem(OP_STQ, R_ZERO, z, CCT_OFF_LEAF_REC));
    struct fixup none = put_fwd(c, OP_BEQ, y);
    put(c, mem(OP_LDL, z, y, CCT_REC_FLAGS));
    put(c, mem(OP_LDA, z, z, -both.ctx_flags));
    struct fixup other = put_fwd(c, OP_BNE, z);
    int off = both.ctx_off;
    int64_t size = slot_size(mt);
    if (x == R_ZERO) {
        off += (int)(size * k);
    } else if (size == 8) {
        put(c, opr(OP_INTA, F_S8ADDQ, x, y, y));
    } else {
        _Static_assert(CCT_PATH_METERED_SIZE == 32, "a shift by 5");
        put(c, opl(OP_INTS, F_SLL, x, 5, z));
        put(c, opr(OP_INTA, F_ADDQ, z, y, y));
    }
    put(c, mem(OP_LDQ, z, y, off));
    put(c, opl(OP_INTA, F_ADDQ, z, 1, z));
    put(c, mem(OP_STQ, z, y, off));
    if (d) {
        struct tregs u = *d;
        u.C = z;
        put_meter_add(c, &u, y, off);
    }
    cc.done = put_fwd(c, OP_BR, R_ZERO);
    land(c, none);
    land(c, other);
    return cc;
}

static void ctx_done(struct code *c, const struct ctx_count *cc)
{
    if (cc->on)
        land(c, cc->done);
}

#define F_CMOVEQ 0x24

/* dst = r + k (|k| < 2^31, else *bad): one lda, or ldah and lda. */
static void put_base_plus(struct code *c, unsigned dst, unsigned r, int64_t k, bool *bad)
{
    if (fits16(k)) {
        put(c, mem(OP_LDA, dst, r, (int)k));
        return;
    }
    int64_t hi = (k + 0x8000) >> 16, lo = k - hi * 65536;
    if (!fits16(hi))
        *bad = true;
    put(c, mem(OP_LDAH, dst, r, (int)hi));
    if (lo)
        put(c, mem(OP_LDA, dst, dst, (int)lo));
}

/* --both (cct-region.h note 17): dst = the activation's counters' base
 * + `extra` slots (both.slot bytes each: 8, or 32 metered), found once at
 * the procedure's entry: its call
 * record's path counters (record + ctx_off) when the record the CCT
 * trampolines left (cur, a leaf's leaf_rec) is the procedure's own, else
 * the context-free counters from `base` (path-region.h note 4).  R the
 * path region, or with `core` the CCT core state (dst may be R: R is
 * read first, but by the cmoveq of a leaf's none); y, z scratch.  No branch:
 * the free base is built and the record's taken over it by cmoveq.  A
 * leaf's leaf_rec is cleared here (its call's only, note 12); one of 0
 * (none) reads the core as a record, whose flags are 0 (note 6). */
static void put_ctx_base(struct code *c, unsigned dst, unsigned R, unsigned y, unsigned z, uint32_t base,
                         int64_t extra, bool core, bool *bad)
{
    int64_t free_off = PATH_COUNTERS_OFFSET + both.slot * ((int64_t)base + extra) + (core ? CCT_BOTH_PATHS_OFFSET : 0);
    if (!both.ctx) {
        put_base_plus(c, dst, R, free_off, bad);
        return;
    }
    _Static_assert(__builtin_offsetof(struct cct_core, procs) + 4 == CCT_REC_FLAGS && CCT_END <= 1ull << 32,
                   "the core read as a record: its flags are the high half of `procs`, 0");
    unsigned cs = core ? R : z;         /* the CCT core state */
    if (!core)
        put(c, mem(OP_LDAH, z, R, -(int)(CCT_BOTH_PATHS_OFFSET >> 16)));
    put(c, mem(OP_LDQ, y, cs, both.leaf ? CCT_OFF_LEAF_REC : CCT_OFF_CUR));
    if (both.leaf) {
        put(c, mem(OP_STQ, R_ZERO, cs, CCT_OFF_LEAF_REC));
        put(c, opr(OP_INTL, F_CMOVEQ, y, cs, y));
    }
    put_base_plus(c, dst, R, free_off, bad);
    put(c, mem(OP_LDL, z, y, CCT_REC_FLAGS));
    if (!fits16(both.ctx_off + both.slot * extra))
        *bad = true;
    put(c, mem(OP_LDA, y, y, (int)(both.ctx_off + both.slot * extra)));
    put(c, mem(OP_LDA, z, z, -both.ctx_flags));
    put(c, opr(OP_INTL, F_CMOVEQ, z, y, dst));
}

/* k = (x < n): n a literal when it fits 8 bits, else built in k. */
static void put_below(struct code *c, unsigned x, uint64_t n, unsigned k, bool *bad)
{
    if (n < 256) {
        put(c, opl(OP_INTA, F_CMPULT, x, (unsigned)n, k));
        return;
    }
    put_setk(c, k, (int64_t)n, bad);
    put(c, opr(OP_INTA, F_CMPULT, x, k, k));
}

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

static int64_t slot_size(const struct meter *mt) { return mt->on ? PATH_METERED_SIZE : 8; }

/* dst = at + the slot size * x. */
static void put_slot_addr(struct code *c, const struct meter *mt, unsigned x, unsigned at, unsigned dst)
{
    _Static_assert(PATH_METERED_SIZE == 32, "a shift by 5");
    if (mt->on) {
        put(c, opl(OP_INTS, F_SLL, x, 5, dst));
        put(c, opr(OP_INTA, F_ADDQ, dst, at, dst));
    } else {
        put(c, opr(OP_INTA, F_S8ADDQ, x, at, dst));
    }
}

#define PMU_FROM_REGION (-(int)((CCT_PHYS - PMU_WINDOW_PHYS) >> 16))

/* Whether the loader sets this image's magic in every core's region
 * (path-region.h note 8: --paths, counts only; --both's path region,
 * cct-region.h note 17), so no trampoline stores it; a --paths metered
 * image's trampolines still do. */
static bool magic_by_loader(const struct meter *mt)
{
    return both.on || !mt->on;
}

/* The region's magic (R the region, x a scratch register). */
static void put_magic(struct code *c, const struct meter *mt, unsigned R, unsigned x)
{
    if (magic_by_loader(mt))
        return;
    if (mt->on) {
        put(c, mem(OP_LDAH, x, R, PMU_FROM_REGION));
        put(c, mem(OP_STL, x, R, PATH_OFF_MAGIC));
    } else {
        put(c, mem(OP_STL, R, R, PATH_OFF_MAGIC));
    }
}

/* D = cycles, E = the event, from this core's PMU page (R the region;
 * --both's lies CCT_BOTH_PATHS_OFFSET into the core's, one ldah still).
 * Each trampoline reads the page as soon as it has found the region,
 * before its bookkeeping, so what that bookkeeping costs (a register
 * stack slot that misses after an interrupt evicted it, say) falls where
 * the model's path window has it: an entry's inside the path, as the
 * model's start is before the procedure's first instruction; an exit's
 * or a backedge's after it (path-region.h note 5). */
static void put_meter_read(struct code *c, const struct meter *mt, const struct tregs *t)
{
    if (mt->given) {
        put(c, opr(OP_INTL, F_BIS, R_ZERO, mt->gc, t->D));
        put(c, opr(OP_INTL, F_BIS, R_ZERO, mt->ge, t->E));
        return;
    }
    put(c, mem(OP_LDAH, t->E, t->R, PMU_FROM_REGION - (both.on ? (int)(CCT_BOTH_PATHS_OFFSET >> 16) : 0)));
    put(c, mem(OP_LDQ, t->D, t->E, PMU_CYCLES_OFF));
    put(c, mem(OP_LDQ, t->E, t->E, mt->ev_off));
}

/* A path starts: the counters read (D, E) go to its start slots at S. */
static void put_meter_start(struct code *c, const struct tregs *t, unsigned S, int off_cycles, int off_event)
{
    put(c, mem(OP_STQ, t->D, S, off_cycles));
    put(c, mem(OP_STQ, t->E, S, off_event));
}

/* A path ends: D, E (the counters read) minus its start at S (restart:
 * the next path starts at that read, a backedge); clobbers C. */
static void put_meter_end(struct code *c, const struct tregs *t, unsigned S, int off_cycles, int off_event,
                          bool restart)
{
    put(c, mem(OP_LDQ, t->C, S, off_cycles));
    if (restart)
        put(c, mem(OP_STQ, t->D, S, off_cycles));
    put(c, opr(OP_INTA, F_SUBQ, t->D, t->C, t->D));
    put(c, mem(OP_LDQ, t->C, S, off_event));
    if (restart)
        put(c, mem(OP_STQ, t->E, S, off_event));
    put(c, opr(OP_INTA, F_SUBQ, t->E, t->C, t->E));
}

/* The slot at K + off gets D and E added (struct path_metered); clobbers C. */
static void put_meter_add(struct code *c, const struct tregs *t, unsigned K, int off)
{
    put(c, mem(OP_LDQ, t->C, K, off + 8));
    put(c, opr(OP_INTA, F_ADDQ, t->C, t->D, t->C));
    put(c, mem(OP_STQ, t->C, K, off + 8));
    put(c, mem(OP_LDQ, t->C, K, off + 16));
    put(c, opr(OP_INTA, F_ADDQ, t->C, t->E, t->C));
    put(c, mem(OP_STQ, t->C, K, off + 16));
}

/* Counts path t->B of a procedure with npaths paths whose counters start at
 * base (path-region.h note 4), with D and E added when metered; clobbers
 * B, C. */
/* cold (may be NULL): where a bad number branches, for the caller to land
 * out of the hot path (put_cold_bad), so a good count takes no branch. */
static void put_count(struct code *c, const struct tregs *t, const struct meter *mt, uint64_t npaths, uint32_t base,
                      bool *bad, struct fixup *cold)
{
    put_below(c, t->B, npaths, t->C, bad);
    struct fixup ok = {0}, done = {0};
    if (cold) {
        *cold = put_fwd(c, OP_BEQ, t->C);
    } else {
        ok = put_fwd(c, OP_BNE, t->C);
        put_incq(c, t->C, t->R, PATH_OFF_BAD);
        done = put_fwd(c, OP_BR, R_ZERO);
        land(c, ok);
    }
    /* metered: D and E hold the path's metrics, A is free here (put_action) */
    struct ctx_count cc = put_ctx_count(c, t->R, t->B, 0, t->C, mt->on ? t->A : t->D, mt, mt->on ? t : NULL);
    put_slot_addr(c, mt, t->B, t->R, t->B);
    int64_t off = PATH_COUNTERS_OFFSET + slot_size(mt) * (int64_t)base;
    if (!fits16(off + 16)) {
        put_addk(c, t->B, off, bad);
        off = 0;
    }
    put_incq(c, t->C, t->B, (int)off);
    if (mt->on)
        put_meter_add(c, t, t->B, (int)off);
    ctx_done(c, &cc);
    if (!cold)
        land(c, done);
}

/* put_count's bad number, out of line: counted, then on to `to`. */
static struct fixup put_cold_bad(struct code *c, const struct tregs *t, struct fixup from)
{
    land(c, from);
    put_incq(c, t->C, t->R, PATH_OFF_BAD);
    return put_fwd(c, OP_BR, R_ZERO);
}

#define OP_INTM 0x13
#define F_MULQ 0x20
#define F_XOR 0x40

/* A word whose value hash_geometry fills in (path-region.h note 14). */
static void put_hash_fix(struct code *c, unsigned kind, unsigned r)
{
    if (hashing.nfix == hashing.fixcap) {
        hashing.fixcap = hashing.fixcap ? 2 * hashing.fixcap : 64;
        hashing.fix = realloc(hashing.fix, hashing.fixcap * sizeof *hashing.fix);
        if (!hashing.fix)
            abort();
    }
    hashing.fix[hashing.nfix++] = (struct hash_fix){c->len, kind, r};
    put(c, UNOP);
}

/* --both's key (path-region.h note 15): B = B << PATH_HASH_CTX_BITS |
 * ctx (R_ZERO: none, context-free). */
static void put_key_ctx(struct code *c, unsigned B, unsigned ctx)
{
    put(c, opl(OP_INTS, F_SLL, B, PATH_HASH_CTX_BITS, B));
    if (ctx != R_ZERO)
        put(c, opr(OP_INTA, F_ADDQ, B, ctx, B));
}

/* Counts path t->B of a hashed procedure (path-region.h note 14) in the
 * core's hash table: checked against npaths (a bad number branches to
 * *cold), keyed, hashed to its home slot, then of the PATH_HASH_PROBE
 * slots from there the one holding the key counts, or the first empty one
 * is claimed, or (all taken by others) the path counts as lost.  R the
 * region; clobbers B, C, D, E.  --both (note 15): the key carries ctx
 * (a register, E or R_ZERO for none) between the path and the ordinal;
 * the home slot is the path's alone. */
static void put_hash_count(struct code *c, const struct tregs *t, uint64_t npaths, struct fixup *cold, unsigned ctx)
{
    unsigned B = t->B, C = t->C, D = t->D, E = t->E;
    if (npaths < 256) {
        put(c, opl(OP_INTA, F_CMPULT, B, (unsigned)npaths, C));
    } else {
        if (npaths < 0x7fff8000u)
            put_const(c, C, npaths);
        else
            put_wide(c, C, (int64_t)npaths);
        put(c, opr(OP_INTA, F_CMPULT, B, C, C));
    }
    *cold = put_fwd(c, OP_BEQ, C);
    /* the home slot: the number (its halves xored when it has high bits)
     * times the procedure's multiplier, PATH_HASH_MULT + 2 x its ordinal
     * (odd; only its low 32 bits count), the low 32 bits' top ones */
    unsigned x = B;
    if (npaths > 1ull << 32) {
        put(c, opl(OP_INTS, F_SRL, B, 32, C));
        put(c, opr(OP_INTL, F_XOR, B, C, C));
        x = C;
    }
    int64_t mul = (int32_t)(PATH_HASH_MULT + 2 * hashing.id), mhi = (mul + 0x8000) >> 16;
    put(c, mem(OP_LDAH, D, R_ZERO, (int)mhi));
    put(c, mem(OP_LDA, D, D, (int)(mul - mhi * 65536)));
    put(c, opr(OP_INTM, F_MULQ, x, D, C));
    if (both.on)
        put_key_ctx(c, B, ctx);
    put(c, opl(OP_INTS, F_SLL, B, 8, B));
    put(c, mem(OP_LDA, B, B, (int)hashing.id + 1));                /* the key */
    put(c, opl(OP_INTS, F_SLL, C, 32, C));
    put_hash_fix(c, HF_SHIFT, C);                                   /* srl C, 64 - log2(slots), C */
    put(c, opl(OP_INTS, F_SLL, C, 4, C));
    put(c, opr(OP_INTA, F_ADDQ, C, t->R, C));
    put_hash_fix(c, HF_AT, C);                                      /* ldah C, hi(C) */
    put_hash_fix(c, HF_AT, C);                                      /* lda C, lo(C) */
    /* the home slot, then up to PATH_HASH_PROBE - 1 after it */
    put(c, mem(OP_LDQ, D, C, 0));
    struct fixup claim = put_fwd(c, OP_BEQ, D);
    put(c, opr(OP_INTA, F_SUBQ, D, B, D));
    struct fixup hit = put_fwd(c, OP_BEQ, D);
    _Static_assert(PATH_HASH_SLOT_SIZE == 16 && PATH_HASH_SLOT_SIZE * PATH_HASH_PROBE < 32768, "one lda");
    put(c, mem(OP_LDA, E, C, PATH_HASH_SLOT_SIZE * PATH_HASH_PROBE));
    uint64_t probe = here(c);
    put(c, mem(OP_LDA, C, C, PATH_HASH_SLOT_SIZE));
    put(c, opr(OP_INTA, F_CMPULT, C, E, D));
    struct fixup full = put_fwd(c, OP_BEQ, D);
    put(c, mem(OP_LDQ, D, C, 0));
    struct fixup claim2 = put_fwd(c, OP_BEQ, D);
    put(c, opr(OP_INTA, F_SUBQ, D, B, D));
    put_branch(c, OP_BNE, D, probe);
    struct fixup hit2 = put_fwd(c, OP_BR, R_ZERO);
    land(c, full);
    put_incq(c, D, t->R, PATH_OFF_LOST);                            /* the probe found no room */
    struct fixup done = put_fwd(c, OP_BR, R_ZERO);
    land(c, claim);
    land(c, claim2);
    put(c, mem(OP_STQ, B, C, 0));
    put_hash_fix(c, HF_AT_CONST, D);                                /* ldah D, hi(zero) */
    put_hash_fix(c, HF_AT_CONST, D);                                /* lda D, lo(D) */
    put(c, mem(OP_STQ, D, t->R, PATH_OFF_HASH_AT));
    put_hash_fix(c, HF_SLOTS, D);                                   /* lda D, slots(zero) */
    put(c, mem(OP_STQ, D, t->R, PATH_OFF_HASH_SLOTS));
    land(c, hit);               /* (the home slot's: the hot path falls out below) */
    land(c, hit2);
    put_incq(c, D, C, 8);
    land(c, done);
}

#define F_ZAPNOT 0x31
#define F_CMOVNE 0x26

/* dst = a hashed procedure's context (path-region.h note 15): the current
 * call record's id + 1 when that record is the procedure's (the record
 * test of put_ctx_count: cur, or a leaf's leaf_rec, cleared with `clear`;
 * one of 0 reads the core as a record, whose flags are 0), else 0.  cs
 * the CCT core state; tmp scratch.  The record's id and flags are one
 * quadword. */
static void put_hash_ctx(struct code *c, unsigned dst, unsigned cs, unsigned tmp, bool clear)
{
    _Static_assert(__builtin_offsetof(struct cct_record, id) + 4 == CCT_REC_FLAGS, "id and flags: one ldq");
    put(c, mem(OP_LDQ, dst, cs, both.leaf ? CCT_OFF_LEAF_REC : CCT_OFF_CUR));
    if (both.leaf) {
        if (clear)      /* (cct-region.h note 12: a leaf's record is its call's only) */
            put(c, mem(OP_STQ, R_ZERO, cs, CCT_OFF_LEAF_REC));
        put(c, opr(OP_INTL, F_CMOVEQ, dst, cs, dst));
    }
    put(c, mem(OP_LDQ, dst, dst, (int)__builtin_offsetof(struct cct_record, id)));
    put(c, opl(OP_INTS, F_SRL, dst, 32, tmp));                   /* flags */
    put(c, opl(OP_INTS, F_ZAPNOT, dst, 15, dst));                /* id */
    put(c, mem(OP_LDA, tmp, tmp, -both.ctx_flags));
    put(c, mem(OP_LDA, dst, dst, 1));
    put(c, opr(OP_INTL, F_CMOVNE, tmp, R_ZERO, dst));            /* not the procedure's: context-free */
}

/* put_hash_count, under --both (path-region.h note 15) with the path's
 * context in its key: in E put_hash_ctx's (a leaf's leaf_rec cleared at
 * its exits), or the one its entry kept in its frame (hashing.ctx_at),
 * or none when the procedure has no record (hashing.ctx false).  Without
 * --both, put_hash_count itself. */
static void put_hash_key_count(struct code *c, const struct tregs *t, uint64_t npaths, struct fixup *cold)
{
    unsigned ctx = R_ZERO;
    if (both.on && hashing.ctx) {
        ctx = t->E;
        if (hashing.ctx_at) {
            put(c, mem(OP_LDQ, ctx, R_SP, hashing.ctx_at));
        } else {
            put(c, mem(OP_LDAH, t->D, t->R, -(int)(CCT_BOTH_PATHS_OFFSET >> 16)));
            put_hash_ctx(c, ctx, t->D, t->C, both.exit);
        }
    }
    put_hash_count(c, t, npaths, cold, ctx);
}

/* The hash table's geometry into every hashed trampoline (path-region.h
 * note 14): the table after the array counters (used of them, each size
 * bytes), the largest power of two of home slots that fits with the
 * probe's tail after them before `end`, at most hashing.slots. */
static uint64_t hash_geometry(struct code *c, uint64_t used, int64_t size, uint64_t end)
{
    uint64_t at = PATH_COUNTERS_OFFSET + used * (uint64_t)size;
    at = (at + 127) & ~(uint64_t)127;     /* (on a cache line pair of its own) */
    uint64_t slots = hashing.slots;
    while (slots > PATH_HASH_MIN_SLOTS && at + PATH_HASH_TABLE_SLOTS(slots) * PATH_HASH_SLOT_SIZE > end)
        slots /= 2;
    unsigned bits = 0;          /* log2(slots) */
    while (1ull << bits < slots)
        bits++;
    int64_t hi = ((int64_t)at + 0x8000) >> 16, lo = (int64_t)at - hi * 65536;
    for (size_t i = 0; i < hashing.nfix; i++) {
        const struct hash_fix *f = &hashing.fix[i];
        bool second = i > 0 && hashing.fix[i - 1].kind == f->kind && hashing.fix[i - 1].at + 4 == f->at;
        uint32_t w = 0;
        switch (f->kind) {
        case HF_SHIFT:
            w = bits ? opl(OP_INTS, F_SRL, f->r, 64 - bits, f->r) : opr(OP_INTL, F_BIS, R_ZERO, R_ZERO, f->r);
            break;
        case HF_AT:
            w = second ? mem(OP_LDA, f->r, f->r, (int)lo) : mem(OP_LDAH, f->r, f->r, (int)hi);
            break;
        case HF_AT_CONST:
            w = second ? mem(OP_LDA, f->r, f->r, (int)lo) : mem(OP_LDAH, f->r, R_ZERO, (int)hi);
            break;
        case HF_SLOTS:
            w = mem(OP_LDA, f->r, R_ZERO, (int)slots);
            break;
        }
        memcpy(c->bytes + f->at, &w, 4);
    }
    return slots;
}

/* What a CFG edge's Ball-Larus action does with the path register in
 * memory (ball-larus.h note 5, the register stack of path-region.h notes
 * 2-3); R = region, A, B, C free. */

/* An exit or a backedge: A = the activation's depth, B = its path
 * register plus this edge's increment; branches
 * out when there is no activation (depth 0) or it is the sink's (lost
 * past the stack). */
static void put_path_ending(struct code *c, const struct tregs *t, int64_t add, bool *bad,
                            struct fixup *to_unmatched, struct fixup *to_sink)
{
    _Static_assert(PATH_SINK == 1 << SINK_BIT, "the sink is the depth with bit SINK_BIT set");
    put(c, mem(OP_LDQ, t->A, t->R, PATH_OFF_DEPTH));
    *to_unmatched = put_fwd(c, OP_BEQ, t->A);
    put(c, opl(OP_INTS, F_SRL, t->A, SINK_BIT, t->B));
    *to_sink = put_fwd(c, OP_BNE, t->B);
    put(c, opr(OP_INTA, F_S8ADDQ, t->A, t->R, t->B));
    put(c, mem(OP_LDQ, t->B, t->B, PATH_STACK_OFFSET));
    put_addk(c, t->B, add, bad);
}

/* op (a load or store) of r at the sp slot of the slot whose address
 * in the first stack's terms is at (path-region.h note 6): the sp stack
 * lies at the region's end, one ldah into tmp away. */
static void put_sp_slot(struct code *c, unsigned op, unsigned r, unsigned at, unsigned tmp)
{
    int64_t s5 = both.on ? PATH_BOTH_STACK5_OFFSET : PATH_STACK5_OFFSET;
    int64_t hi = (s5 + 0x8000) >> 16, lo = s5 - hi * 65536;
    put(c, mem(OP_LDAH, tmp, at, (int)hi));
    put(c, mem(op, r, tmp, (int)lo));
}

static void put_action(struct code *c, const struct tregs *t, const struct meter *mt, const struct bl_action *a,
                       uint64_t npaths, uint32_t base, bool sp_tags, bool *bad)
{
    bool reads = mt->on && (a->kind == BL_ACT_ENTRY || a->kind == BL_ACT_EXIT || a->kind == BL_ACT_BACKEDGE);
    if (reads)
        put_meter_read(c, mt, t);
    hashing.tmp = t->C;         /* (path-region.h note 14: C is free beside each increment of B) */
    switch (a->kind) {
    case BL_ACT_ENTRY: {
        put_magic(c, mt, t->R, t->C);
        put(c, mem(OP_LDQ, t->A, t->R, PATH_OFF_DEPTH));
        put(c, opl(OP_INTA, F_ADDQ, t->A, 1, t->A));
        put(c, opl(OP_INTS, F_SRL, t->A, SINK_BIT, t->B));     /* depth + 1 reaches the sink */
        struct fixup to_sink = put_fwd(c, OP_BNE, t->B);
        put(c, mem(OP_STQ, t->A, t->R, PATH_OFF_DEPTH));
        struct fixup to_set = put_fwd(c, OP_BR, R_ZERO);
        land(c, to_sink);
        put_incq(c, t->B, t->R, PATH_OFF_EXCESS);
        put(c, mem(OP_LDA, t->A, R_ZERO, PATH_SINK));
        put(c, mem(OP_STQ, t->A, t->R, PATH_OFF_DEPTH));
        land(c, to_set);
        put(c, opr(OP_INTA, F_S8ADDQ, t->A, t->R, t->A));
        put_setk(c, t->B, a->add, bad);
        put(c, mem(OP_STQ, t->B, t->A, PATH_STACK_OFFSET));
        if (sp_tags)    /* (on the sink too: never unwound there) */
            put_sp_slot(c, OP_STQ, R_SP, t->A, t->C);
        if (mt->on)     /* on the sink too: its paths are lost anyway */
            put_meter_start(c, t, t->A, PATH_STACK3_OFFSET, PATH_STACK4_OFFSET);
        break;
    }
    case BL_ACT_ADD:
        if (!a->add)
            break;
        put(c, mem(OP_LDQ, t->A, t->R, PATH_OFF_DEPTH));
        put(c, opr(OP_INTA, F_S8ADDQ, t->A, t->R, t->A));
        put(c, mem(OP_LDQ, t->B, t->A, PATH_STACK_OFFSET));
        put_addk(c, t->B, a->add, bad);
        put(c, mem(OP_STQ, t->B, t->A, PATH_STACK_OFFSET));
        break;
    case BL_ACT_EXIT: {
        struct fixup to_unmatched, to_sink;
        put_path_ending(c, t, a->add, bad, &to_unmatched, &to_sink);
        if (mt->on) {
            put(c, opr(OP_INTA, F_S8ADDQ, t->A, t->R, t->A));
            put_meter_end(c, t, t->A, PATH_STACK3_OFFSET, PATH_STACK4_OFFSET, false);
            put(c, mem(OP_LDQ, t->A, t->R, PATH_OFF_DEPTH));
        }
        put(c, opl(OP_INTA, F_SUBQ, t->A, 1, t->A));
        put(c, mem(OP_STQ, t->A, t->R, PATH_OFF_DEPTH));
        struct fixup cold = {0};
        bool out = (!both.on || hashing.on) && !mt->on;     /* (--both and metered: as they were) */
        if (hashing.on)
            put_hash_key_count(c, t, npaths, &cold);
        else
            put_count(c, t, mt, npaths, base, bad, out ? &cold : NULL);
        struct fixup done1 = put_fwd(c, OP_BR, R_ZERO);
        struct fixup done0 = out ? put_cold_bad(c, t, cold) : done1;
        land(c, to_unmatched);
        put_incq(c, t->B, t->R, PATH_OFF_UNMATCHED);
        struct fixup done2 = put_fwd(c, OP_BR, R_ZERO);
        land(c, to_sink);
        put_incq(c, t->B, t->R, PATH_OFF_LOST);
        put(c, mem(OP_LDQ, t->A, t->R, PATH_OFF_EXCESS));
        put(c, opl(OP_INTA, F_SUBQ, t->A, 1, t->A));
        put(c, mem(OP_STQ, t->A, t->R, PATH_OFF_EXCESS));
        struct fixup done3 = put_fwd(c, OP_BNE, t->A);
        put(c, mem(OP_LDA, t->A, R_ZERO, PATH_SINK - 1));
        put(c, mem(OP_STQ, t->A, t->R, PATH_OFF_DEPTH));
        land(c, done1);
        if (out)
            land(c, done0);
        land(c, done2);
        land(c, done3);
        break;
    }
    case BL_ACT_BACKEDGE: {
        struct fixup to_unmatched, to_sink;
        put_path_ending(c, t, a->add, bad, &to_unmatched, &to_sink);
        if (mt->on) {
            put(c, opr(OP_INTA, F_S8ADDQ, t->A, t->R, t->A));
            put_meter_end(c, t, t->A, PATH_STACK3_OFFSET, PATH_STACK4_OFFSET, true);
            put(c, mem(OP_LDQ, t->A, t->R, PATH_OFF_DEPTH));
        }
        struct fixup cold = {0};
        bool out = (!both.on || hashing.on) && !mt->on;     /* (--both and metered: as they were) */
        if (hashing.on)
            put_hash_key_count(c, t, npaths, &cold);
        else
            put_count(c, t, mt, npaths, base, bad, out ? &cold : NULL);
        if (both.on && mt->on)              /* put_count's context count took A */
            put(c, mem(OP_LDQ, t->A, t->R, PATH_OFF_DEPTH));
        uint64_t reset = here(c);
        put(c, opr(OP_INTA, F_S8ADDQ, t->A, t->R, t->A));
        put_setk(c, t->B, a->reset, bad);
        put(c, mem(OP_STQ, t->B, t->A, PATH_STACK_OFFSET));
        struct fixup done = put_fwd(c, OP_BR, R_ZERO);
        if (out) {
            land(c, cold);
            put_incq(c, t->C, t->R, PATH_OFF_BAD);
            put_branch(c, OP_BR, R_ZERO, reset);
        }
        land(c, to_sink);
        put_incq(c, t->B, t->R, PATH_OFF_LOST);
        struct fixup done2 = put_fwd(c, OP_BR, R_ZERO);
        land(c, to_unmatched);
        put_incq(c, t->B, t->R, PATH_OFF_UNMATCHED);
        land(c, done);
        land(c, done2);
        break;
    }
    default:
        break;
    }
}

static bool action_trivial(const struct bl_action *a)
{
    return a->kind == BL_ACT_UNREACHABLE || (a->kind == BL_ACT_ADD && a->add == 0);
}

/* An instruction that runs the same at another address. */
static bool relocatable(uint32_t w)
{
    unsigned op = w >> 26;
    return op != 0 && op != OP_JMP && op < 0x30;
}

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

/* --both: the CCT call site at pc, or NULL (sites are in pc order). */
static struct site *site_at(const struct path_out *po, uint64_t pc)
{
    unsigned lo = 0, hi = po->nsites;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (po->sites[mid].pc < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < po->nsites && po->sites[lo].pc == pc ? &po->sites[lo] : NULL;
}

/* Whether w at pc calls a function that returns twice (a bsr to it: GCC
 * calls setjmp directly; one reached through a pointer is not seen). */
static bool calls_twice(const struct path_out *po, uint64_t pc, uint32_t w)
{
    if (w >> 26 != OP_BSR)
        return false;
    uint64_t to = alpha_branch_target(pc, w);
    for (unsigned i = 0; i < po->ntwice; i++)
        if (po->twice[i] == to)
            return true;
    return false;
}

static bool proc_calls_twice(const struct path_out *po, const struct calc_proc *cfg)
{
    for (size_t i = 0; i < cfg->n; i++)
        if (calls_twice(po, cfg->insns[i].pc, cfg->insns[i].s.word))
            return true;
    return false;
}

/* After a return from a function that returns twice: pops the register
 * stack's slots that activations a longjmp abandoned left, those whose
 * sp is at or below this one's (path-region.h note 6); not on the sink. */
static void put_unwind_paths(struct code *c, uint32_t live)
{
    struct tregs t;
    tregs_pick(&t, live, 0, 3);
    tregs_save(c, &t);
    put_region(c, t.R);
    put(c, mem(OP_LDQ, t.A, t.R, PATH_OFF_DEPTH));
    put(c, opl(OP_INTS, F_SRL, t.A, SINK_BIT, t.B));
    struct fixup on_sink = put_fwd(c, OP_BNE, t.B);
    uint64_t loop = here(c);
    struct fixup empty = put_fwd(c, OP_BEQ, t.A);
    put(c, opr(OP_INTA, F_S8ADDQ, t.A, t.R, t.B));
    put_sp_slot(c, OP_LDQ, t.B, t.B, t.B);
    put(c, opr(OP_INTA, F_CMPULT, R_SP, t.B, t.B));        /* sp below the slot's: an activation still live */
    struct fixup kept = put_fwd(c, OP_BNE, t.B);
    put(c, opl(OP_INTA, F_SUBQ, t.A, 1, t.A));
    put_branch(c, OP_BR, R_ZERO, loop);
    land(c, empty);
    land(c, kept);
    put(c, mem(OP_STQ, t.A, t.R, PATH_OFF_DEPTH));
    land(c, on_sink);
    tregs_restore(c, &t);
}

/* pc's instruction replaced by w, its original word kept in the patch
 * table (the plan numbers the original). */
static void replace_word(struct path_out *po, uint64_t pc, uint32_t w)
{
    if (po->npatches == po->cap) {
        po->cap = po->cap ? 2 * po->cap : 1024;
        po->patches = realloc(po->patches, po->cap * sizeof *po->patches);
        if (!po->patches)
            abort();
    }
    uint8_t *at = at_addr(po->e, pc, 4);
    uint32_t old;
    memcpy(&old, at, 4);    /* (the instruction was read from here: it is there) */
    po->patches[po->npatches++] = (struct path_patch){pc, old};
    memcpy(at, &w, 4);
}

static void add_patch(struct path_out *po, uint64_t pc, uint64_t tramp, unsigned op, unsigned ra)
{
    replace_word(po, pc, branch_word(op, ra, pc, tramp, &po->c->out_of_reach));
}

/* pc's instruction replaced by w in place (a frame's size, path-region.h
 * note 11), unless a trampoline moved it (patched since patch `from`: the
 * trampoline holds w already). */
static void patch_word(struct path_out *po, size_t from, uint64_t pc, uint32_t w)
{
    for (size_t k = from; k < po->npatches; k++)
        if (po->patches[k].pc == pc)
            return;
    replace_word(po, pc, w);
}

static void align_tramp(struct code *c)
{
    while (here(c) % 16)
        put(c, UNOP);
}

/* The out edge of block b of that kind, or -1. */
static int edge_of(const struct calc_proc *cfg, uint32_t b, int kind)
{
    const struct calc_block *bl = &cfg->blocks[b];
    for (uint32_t i = 0; i < bl->nout; i++)
        if (cfg->edges[bl->out[i]].kind == kind)
            return (int)bl->out[i];
    return -1;
}

/* Whether one procedure can be instrumented (enum path_skip), and E, the
 * instruction its entry action goes on. */
static enum path_skip paths_check(const struct calc_proc *cfg, const struct bl_proc *bl, uint64_t start,
                                  uint64_t *entry_pc)
{
    /* too many paths for an array: the hash table's (path-region.h note 14) */
    bool hashed = bl->status == BL_TOO_MANY && hashing.slots && bl->npaths < PATH_HASH_MAX_NPATHS;
    if (!hashed && bl->status == BL_TOO_MANY)
        return PATH_SKIP_TOO_MANY;
    if (!hashed && (!bl_countable(bl) || bl->npaths >= (1u << 31)))
        return PATH_SKIP_NUMBERING;
    uint64_t E = start;
    if (cfg->n > 3 && calc_has_gp_prologue((const uint32_t[]){cfg->insns[0].s.word, cfg->insns[1].s.word}, 2))
        E = start + 8;
    *entry_pc = E;
    const struct calc_insn *ei = &cfg->insns[(E - start) / 4];
    if (!relocatable(ei->s.word) || calc_flow_of(ei->s.word, ei->s.cls) != FLOW_NONE)
        return PATH_SKIP_ENTRY;
    const struct calc_block *eb = &cfg->blocks[ei->block];
    if (cfg->insns[eb->first].pc == E && (eb->nin != 1 || cfg->edges[eb->in[0]].kind != EDGE_ENTRY))
        return PATH_SKIP_ENTRY;         /* a branch to E would run the entry action again */
    for (uint32_t b = 0; b < cfg->nblocks; b++) {
        const struct calc_block *x = &cfg->blocks[b];
        bool any = false;
        for (uint32_t i = 0; i < x->nout; i++)
            if (!action_trivial(&bl->action[x->out[i]]))
                any = true;
        if (!any || !x->n)
            continue;
        const struct calc_insn *L = &cfg->insns[x->first + x->n - 1];
        enum calc_flow f = calc_flow_of(L->s.word, L->s.cls);
        if (L->pc == E || f == FLOW_INDIRECT || (f == FLOW_NONE && !relocatable(L->s.word)))
            return PATH_SKIP_EDGE;
        if (f == FLOW_COND && (x->nout != 2 || edge_of(cfg, b, EDGE_FALL) < 0))
            return PATH_SKIP_EDGE;
        if (f != FLOW_COND && x->nout != 1)
            return PATH_SKIP_EDGE;
    }
    return PATH_INSTRUMENTED;
}

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
    /* frame mode (counts only; path-region.h note 11): the procedure's own
     * frame grown by FRAME_SLOTS at its top, fsize its size before; with
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
    } stub[4];
    unsigned nstubs;
};

static uint32_t bit(unsigned r) { return r == R_ZERO ? 0 : 1u << r; }

static unsigned put_slot_base(struct code *c, unsigned dst, unsigned src, int64_t *off);
static int fslot(const struct pmode *m, int k);

/* A procedure's loops in the statistics instrument prints. */
static void count_loops(struct instrument_path_stats *st, const struct pmode *m)
{
    st->loop_regs += m->nk - m->niv;
    st->iv_loops += m->niv;
    for (unsigned k = 0; k < m->nk; k++)
        if (m->km[k].page != R_ZERO) {
            st->metered_iv_loops++;
            st->borrowing_loops += m->km[k].nheld > 0;
            st->borrowed_regs += m->km[k].nheld;
        }
}

static uint32_t kmask(const struct pmode *m)
{
    uint32_t x = 0;
    for (unsigned k = 0; k < m->nk; k++) {
        const struct iv_meter *v = &m->km[k];
        x |= 1u << m->K[k];
        if (v->page != R_ZERO)
            x |= 1u << v->page | 1u << v->last_c | 1u << v->last_e | 1u << v->first_c | 1u << v->first_e;
    }
    return x;
}

/* A bad number's way out (to_bad): a stub the procedure's exit code
 * places, which comes back here, or with no stub left inline: counted in
 * bad_paths, then on. */
static void put_bad_way_at(struct code *c, struct pmode *m, struct fixup to_bad, unsigned r, unsigned x,
                           bool restart, bool find_region)
{
    if (m->nstubs < sizeof m->stub / sizeof *m->stub) {
        m->stub[m->nstubs++] = (struct bad_stub){to_bad, here(c), r, x, restart};
        return;
    }
    struct fixup done = put_fwd(c, OP_BR, R_ZERO);
    land(c, to_bad);
    if (restart) {      /* a kept leaf's: S and T read the page as the count would have */
        put(c, mem(OP_LDQ, m->S, m->W, PMU_CYCLES_OFF));
        put(c, mem(OP_LDQ, m->T, m->W, m->mt.ev_off));
    }
    if (find_region)
        put_region(c, r);
    put_incq(c, x, r, PATH_OFF_BAD);
    land(c, done);
}

static void put_bad_way(struct code *c, struct pmode *m, const struct tregs *t, struct fixup to_bad)
{
    put_bad_way_at(c, m, to_bad, t->R, t->C, false, true);
}

static void pick(const struct pmode *m, struct tregs *t, uint32_t live, uint32_t exclude)
{
    tregs_pick(t, live, exclude | kmask(m), m->mt.on || hashing.on ? 6 : both.on && !m->cb ? 5 : 4);   /* --both: D
                                                     * for put_ctx_count; hashed: D, E for put_hash_count */
}

/* A leaf's path count: B = P + add, counted at Y (or the region). */
/* Counts path P + add (P in a register) with t's registers; t.R is the
 * region already when region_ready. */
static void put_reg_count(struct code *c, struct pmode *m, const struct tregs *t, int64_t add, bool region_ready,
                          bool metrics)
{
    if (hashing.on) {           /* a hashed procedure's (path-region.h note 14): P + add into B, counted */
        hashing.tmp = t->C;
        if (!region_ready)
            put_region(c, t->R);
        int64_t idx = m->rv + add;
        if (m->rk && idx >= 0 && (uint64_t)idx < m->npaths) {      /* known here (note 8) */
            put_setk(c, t->B, idx, m->bad);
        } else if (add && fits16(add)) {
            put(c, mem(OP_LDA, t->B, m->P, (int)add));
        } else {
            put(c, opr(OP_INTL, F_BIS, R_ZERO, m->P, t->B));
            put_addk(c, t->B, add, m->bad);
        }
        struct fixup to_bad;
        put_hash_key_count(c, t, m->npaths, &to_bad);
        put_bad_way(c, m, t, to_bad);
        return;
    }
    if (!metrics && !m->mt.on && (!both.on || m->cb)) {
        bool own_y = m->leaf && m->Y != R_ZERO;     /* set at the entry beside P, never lost */
        int64_t idx = m->rv + add;
        /* (--both: the counters' base is Y's, not the region's: cct-region.h note 17) */
        bool y_base = own_y || (m->cb && m->fmem);  /* --both's fmem: Y is its frame's base, exact */
        if (m->rk && idx >= 0 && (uint64_t)idx < m->npaths && (!both.on || y_base)) {
            /* the number is known here (path-region.h note 8): its slot's
             * address is a constant, no P, no check */
            unsigned at = y_base ? m->Y : t->R;
            int64_t off = y_base ? 8 * idx : PATH_COUNTERS_OFFSET + 8 * ((int64_t)m->base + idx);
            if (!y_base && !region_ready)
                put_region(c, t->R);
            at = put_slot_base(c, t->B, at, &off);
            put_incq(c, t->C, at, (int)off);
            return;
        }
        if (own_y && fits16(8 * add)) {
            /* P and Y were set together at the entry, nothing else writes
             * them: P is in range, and a check could not save a Y that
             * was not (path-region.h note 3) */
            put(c, opr(OP_INTA, F_S8ADDQ, m->P, m->Y, t->B));
            put_incq(c, t->C, t->B, (int)(8 * add));
            return;
        }
    }
    unsigned x = m->P;
    if (add) {
        if (fits16(add)) {
            put(c, mem(OP_LDA, t->B, m->P, (int)add));
        } else {
            put(c, opr(OP_INTL, F_BIS, R_ZERO, m->P, t->B));
            put_addk(c, t->B, add, m->bad);
        }
        x = t->B;
    }
    put_below(c, x, m->npaths, t->C, m->bad);
    struct fixup to_bad = put_fwd(c, OP_BEQ, t->C);
    struct ctx_count cc = {0};
    if (both.on && both.ctx && !m->cb) {
        if (!region_ready) {
            put_region(c, t->R);
            if (m->leaf && !magic_by_loader(&m->mt))        /* as below */
                put(c, mem(OP_STL, t->R, t->R, PATH_OFF_MAGIC));
            region_ready = true;
        }
        /* with metrics D and E hold them: A is free in every metered count's caller */
        cc = put_ctx_count(c, t->R, x, 0, t->C, metrics ? t->A : t->D, &m->mt, metrics ? t : NULL);
    }
    int64_t off = 0;
    unsigned at = m->Y;
    if (at != R_ZERO && m->mt.on) {
        off = PATH_COUNTERS_OFFSET + slot_size(&m->mt) * (int64_t)m->base;     /* Y: the region (metered) */
    } else if (at == R_ZERO) {
        if (!region_ready)
            put_region(c, t->R);
        if (!region_ready && m->leaf && !magic_by_loader(&m->mt)) {
            /* the region's magic, which other procedures set at their
             * entry: so a core that ran only leaves without loops is
             * drained too */
            put(c, mem(OP_STL, t->R, t->R, PATH_OFF_MAGIC));
        }
        at = t->R;
        off = PATH_COUNTERS_OFFSET + slot_size(&m->mt) * (int64_t)m->base;
    }
    put_slot_addr(c, &m->mt, x, at, t->B);
    if (!fits16(off + 16)) {
        put_addk(c, t->B, off, m->bad);
        off = 0;
    }
    put_incq(c, t->C, t->B, (int)off);
    if (metrics)
        put_meter_add(c, t, t->B, (int)off);
    ctx_done(c, &cc);
    put_bad_way(c, m, t, to_bad);
}

static void put_leaf_count(struct code *c, struct pmode *m, int64_t add, uint32_t live)
{
    struct tregs t;
    pick(m, &t, live, bit(m->P) | bit(m->Y));
    tregs_save(c, &t);
    put_reg_count(c, m, &t, add, false, false);
    tregs_restore(c, &t);
}

/* Adds the loop registers of mask to their paths' counters (path-region.h
 * note 9): at Y in a leaf that keeps it, else from the region. */
static void put_loop_flush(struct code *c, struct pmode *m, unsigned mask, uint32_t live)
{
    struct tregs t;
    bool own_y = (m->leaf || m->cb) && m->Y != R_ZERO, far = false;     /* --both: Y is the base (note 17) */
    bool fm = m->cb && m->fmem;         /* --both: the base in the frame's second slot */
    for (unsigned k = 0; k < m->nk; k++)
        far |= (mask & 1u << k) && !fits16((own_y || fm ? 0 : PATH_COUNTERS_OFFSET + 8 * (int64_t)m->base) +
                                           8 * m->kidx[k] + 16);
    /* the region (none at Y), the count, a slot's base when far */
    tregs_pick(&t, live, bit(m->P) | bit(m->Y) | kmask(m), own_y ? 3 : far ? 3 : 2);
    unsigned R = own_y ? m->Y : t.R, C = own_y ? t.R : t.A, B = own_y ? t.A : t.B;
    tregs_save(c, &t);
    if (fm)
        put(c, mem(OP_LDQ, t.R, R_SP, fslot(m, 1)));
    else if (!own_y)
        put_region(c, t.R);
    for (unsigned k = 0; k < m->nk; k++) {
        if (!(mask & 1u << k))
            continue;
        int64_t off = own_y || fm ? 8 * m->kidx[k] : PATH_COUNTERS_OFFSET + 8 * ((int64_t)m->base + m->kidx[k]);
        unsigned at = put_slot_base(c, B, R, &off);
        put(c, mem(OP_LDQ, C, at, (int)off));
        put(c, opr(OP_INTA, F_ADDQ, C, m->K[k], C));
        put(c, mem(OP_STQ, C, at, (int)off));
    }
    tregs_restore(c, &t);
}

/* With metrics, a leaf's entry: its path starts in the core's leaf slots
 * (path-region.h note 5), Y = its counters' address when it loops. */
static void put_metered_leaf_entry(struct code *c, struct pmode *m, uint32_t live)
{
    struct tregs t;
    pick(m, &t, live, bit(m->P) | bit(m->Y));
    tregs_save(c, &t);
    put_region(c, t.R);
    put_meter_read(c, &m->mt, &t);
    put_magic(c, &m->mt, t.R, t.C);
    if (m->Y != R_ZERO)         /* metered: Y keeps the region, each count finds its slot from it */
        put(c, opr(OP_INTL, F_BIS, R_ZERO, t.R, m->Y));
    put_meter_start(c, &t, t.R, PATH_OFF_LEAF_CYCLES, PATH_OFF_LEAF_EVENT);
    tregs_restore(c, &t);
}

/* With metrics, a leaf's exit or backedge (restart): the path's count and
 * metrics from the leaf slots. */
static void put_metered_leaf_count(struct code *c, struct pmode *m, int64_t add, uint32_t live, bool restart)
{
    struct tregs t;
    tregs_pick_beside(&t, live, bit(m->P) | bit(m->Y) | kmask(m), m->mt.on ? 6 : 4, m->Y);
    tregs_save(c, &t);
    if (m->Y != R_ZERO)
        t.R = m->Y;             /* the region, since the entry */
    else
        put_region(c, t.R);
    put_meter_read(c, &m->mt, &t);
    put_meter_end(c, &t, t.R, PATH_OFF_LEAF_CYCLES, PATH_OFF_LEAF_EVENT, restart);
    put_reg_count(c, m, &t, add, true, true);
    tregs_restore(c, &t);
}

/* A = R + 8 x the depth: the activation's register stack slot (its
 * start's, with PATH_STACK3/4_OFFSET); to none at depth 0, to sink on the
 * sink (B scratch). */
static void put_depth_slot(struct code *c, const struct tregs *t, struct fixup *none, struct fixup *sink)
{
    put(c, mem(OP_LDQ, t->A, t->R, PATH_OFF_DEPTH));
    *none = put_fwd(c, OP_BEQ, t->A);
    put(c, opl(OP_INTS, F_SRL, t->A, SINK_BIT, t->B));
    *sink = put_fwd(c, OP_BNE, t->B);
    put(c, opr(OP_INTA, F_S8ADDQ, t->A, t->R, t->A));
}

/* With metrics, a callee-saved mode's backedge: the activation's start
 * slot is its depth's; none (depth 0, or the sink): counted unmetered.
 * Four registers besides the region (millicode keeps every register live,
 * so each one more is a spill): C, a scratch, shares B's register while
 * the end is read (B is dead then) and A's while the path counts (the
 * start slot's address is dead then). */
static void put_metered_saved_backedge(struct code *c, struct pmode *m, int64_t add, uint32_t live)
{
    struct tregs t;
    tregs_pick_beside(&t, live, bit(m->P) | bit(m->Y) | kmask(m), both.on ? 6 : 5, m->Y);
    unsigned spare = t.E;       /* --both: the context count's scratch (put_reg_count's A) */
    t.E = t.D;
    t.D = t.C;
    t.C = t.B;
    tregs_save(c, &t);
    if (m->Y != R_ZERO)
        t.R = m->Y;             /* the region, since the entry */
    else
        put_region(c, t.R);
    struct tregs u = t;         /* counting */
    u.C = t.A;
    if (both.on)
        u.A = spare;
    put_meter_read(c, &m->mt, &t);
    struct fixup none, sink;
    put_depth_slot(c, &t, &none, &sink);
    put_meter_end(c, &t, t.A, PATH_STACK3_OFFSET, PATH_STACK4_OFFSET, true);
    put_reg_count(c, m, &u, add, true, true);
    struct fixup done = put_fwd(c, OP_BR, R_ZERO);
    land(c, none);
    land(c, sink);
    put_reg_count(c, m, &u, add, true, false);
    put_incq(c, u.C, u.R, PATH_OFF_UNMETERED);
    land(c, done);
    tregs_restore(c, &t);
}

#define KEPT_SCALE 4             /* a kept leaf's P: the path number times this */

/* dst = src + the high part of *off, *off left with a part that reaches
 * the slot's last word from dst in one displacement (the whole when it
 * already does: dst = src, nothing emitted); returns the base to use. */
static unsigned put_slot_base(struct code *c, unsigned dst, unsigned src, int64_t *off)
{
    if (fits16(*off + 16))
        return src;
    int64_t hi = (*off + 0x8000) >> 16, lo = *off - hi * 65536;
    put(c, mem(OP_LDAH, dst, src, (int)hi));
    if (!fits16(lo + 16)) {
        put(c, mem(OP_LDA, dst, dst, (int)lo));
        lo = 0;
    }
    *off = lo;
    return dst;
}

/* A kept leaf's entry (pmode.kept): Y = the region and W = the PMU page,
 * found once for the activation (the region in three instructions,
 * put_region, W one ldah from it; a known leaf keeps W alone, so its
 * entry is 8 instructions, two of the core's fetch groups);
 * S, T = the page's cycles and event, the path's start, read
 * last so the entry's own work stays outside the path. */
static void put_kept_entry(struct code *c, struct pmode *m, int64_t add, uint32_t live)
{
    _Static_assert(PMU_WINDOW_PHYS % 0x10000 == 0, "one ldah from the core's offset");
    unsigned x = m->known ? m->W : m->Y;    /* a known leaf has no Y: its exit finds the region from W */
    if (both.on) {
        /* --both (cct-region.h note 17): W from the CCT core state, the
         * start read, then Y = the activation's slots' base (P and a
         * register dead here as scratch: inside the path, as the model's
         * window has the entry) */
        struct tregs t;
        tregs_pick(&t, live, bit(m->P) | bit(m->Y) | bit(m->S) | bit(m->T) | bit(m->W), 1);
        tregs_save(c, &t);
        put_core_state(c, m->Y);
        put(c, mem(OP_LDAH, m->W, m->Y, -(int)((CCT_PHYS - PMU_WINDOW_PHYS) >> 16)));
        put(c, mem(OP_LDQ, m->S, m->W, PMU_CYCLES_OFF));
        put(c, mem(OP_LDQ, m->T, m->W, m->mt.ev_off));
        put_ctx_base(c, m->Y, m->Y, m->P, t.R, m->base, 0, true, m->bad);
        tregs_restore(c, &t);
        if (!m->known)
            put_setk(c, m->P, KEPT_SCALE * add, m->bad);
        return;
    }
    put_region(c, x);
    put(c, mem(OP_LDAH, m->W, x, -(int)((CCT_PHYS - PMU_WINDOW_PHYS) >> 16)));
    put(c, mem(OP_LDQ, m->S, m->W, PMU_CYCLES_OFF));
    put(c, mem(OP_LDQ, m->T, m->W, m->mt.ev_off));
    /* the magic (the page's address) after the reads, so a miss it takes
     * is inside the path as the model sees it, not before its start; a
     * known leaf stores none: the loader sets it (path-region.h note 5) */
    if (!m->known) {
        put(c, mem(OP_STL, m->W, m->Y, PATH_OFF_MAGIC));
        put_setk(c, m->P, KEPT_SCALE * add, m->bad);
    }
}

/* A kept leaf's read of the page word at off into dst (or, given a
 * reading, its register g: struct meter). */
static void put_kept_read(struct code *c, const struct pmode *m, unsigned dst, int off, unsigned g)
{
    if (m->mt.given)
        put(c, opr(OP_INTL, F_BIS, R_ZERO, g, dst));
    else
        put(c, mem(OP_LDQ, dst, m->W, off));
}

/* A kept leaf's exit, or its backedge (restart: the same read starts the
 * next path): path P + add's slot (the known number's, without P) gets
 * its count, and end - start of cycles and the event, where each end is
 * read from the PMU page straight into S or T between the slot's load
 * and its add (slot - S, then S = the page, then + S), so a backedge's
 * end read is the next path's start with no move (an exit's the same
 * way: reading the page first, as before, cost qsort's comparator more).
 * A backedge's reads lie at the same place in the trampoline each time,
 * so a path between backedges is measured whole; others with their
 * count's bookkeeping (the bias check --paths reports).  P holds
 * KEPT_SCALE times the number, so one s8addq finds the slot.  P, S and T
 * are dead after an exit and set again after a backedge, so they are
 * worked in; two more registers besides. */
static void put_kept_count(struct code *c, struct pmode *m, int64_t add, uint32_t live, bool restart)
{
    _Static_assert(PATH_METERED_SIZE == 8 * KEPT_SCALE, "s8addq of the scaled number is the slot's offset");
    struct tregs t;
    tregs_pick(&t, live, bit(m->P) | bit(m->Y) | bit(m->S) | bit(m->T) | bit(m->W) | kmask(m), 2);
    unsigned base = t.R, tmp = t.A;
    tregs_save(c, &t);
    int64_t off = both.on ? 0 : PATH_COUNTERS_OFFSET + PATH_METERED_SIZE * (int64_t)m->base;    /* --both: Y's */
    unsigned at;
    struct fixup to_bad = {0};
    if (m->known && both.on) {
        /* --both: the known number's slot from the activation's base */
        off += PATH_METERED_SIZE * (m->entry_add + add);
        at = put_slot_base(c, base, m->Y, &off);
    } else if (m->known) {
        /* from W, one ldah reaches the slot; no magic: the loader set it (path-region.h note 5) */
        int64_t from_page = CCT_PHYS - PMU_WINDOW_PHYS;
        off += from_page + PATH_METERED_SIZE * (m->entry_add + add);
        int64_t lo = off;
        at = put_slot_base(c, base, m->W, &lo);
        off = lo;
    } else {
        /* (no folding the add into the bound: P may be negative before
         * the exit's add, Ball-Larus increments on chords can be) */
        put_addk(c, m->P, KEPT_SCALE * add, m->bad);
        put_below(c, m->P, KEPT_SCALE * m->npaths, tmp, m->bad);
        to_bad = put_fwd(c, OP_BEQ, tmp);
        put(c, opr(OP_INTA, F_S8ADDQ, m->P, m->Y, m->P));
        at = put_slot_base(c, m->P, m->P, &off);
    }
    put(c, mem(OP_LDQ, tmp, at, (int)off + 8));
    put(c, opr(OP_INTA, F_SUBQ, tmp, m->S, tmp));
    put_kept_read(c, m, m->S, PMU_CYCLES_OFF, m->mt.gc);
    put(c, opr(OP_INTA, F_ADDQ, tmp, m->S, tmp));
    put(c, mem(OP_STQ, tmp, at, (int)off + 8));
    put(c, mem(OP_LDQ, tmp, at, (int)off + 16));
    put(c, opr(OP_INTA, F_SUBQ, tmp, m->T, tmp));
    put_kept_read(c, m, m->T, m->mt.ev_off, m->mt.ge);
    put(c, opr(OP_INTA, F_ADDQ, tmp, m->T, tmp));
    put(c, mem(OP_STQ, tmp, at, (int)off + 16));
    put_incq(c, tmp, at, (int)off);
    if (!m->known) {
        /* a bad number: counted in the region, which Y is (found again) */
        if (both.on)            /* Y is the slots' base: the stub finds the region in base */
            put_bad_way_at(c, m, to_bad, base, tmp, restart, true);
        else
            put_bad_way_at(c, m, to_bad, m->Y, tmp, restart, false);
    }
    tregs_restore(c, &t);
}

#define PATH_POISON 0x40000000          /* a path register no numbering reaches (npaths < 2^31) */
#define PATH_SINK_SLOT (PATH_STACK_OFFSET + 8 * PATH_SINK)
#define PATH_SINK_SLOT2 (PATH_STACK2_OFFSET + 8 * PATH_SINK)
#define STACK2 (PATH_STACK2_OFFSET - PATH_STACK_OFFSET)

/* The callee-saved mode's entry and exit (pmode.saved; path-region.h
 * note 2): the caller's P goes on the register stack, P = ENTRY's add; at
 * an exit the path is counted and the caller's P comes back.  Past the
 * stack the outermost activation on the sink keeps its caller's P in the
 * sink slot; a deeper one's caller gets PATH_POISON back, so its path is
 * counted as lost (the bad-number stub sees the sink). */
static void put_saved_entry(struct code *c, struct pmode *m, int64_t add, uint32_t live)
{
    struct tregs t;
    pick(m, &t, live, bit(m->P) | bit(m->Y));     /* Y is set here: not a spill */
    tregs_save(c, &t);
    put_region(c, t.R);
    if (m->mt.on)
        put_meter_read(c, &m->mt, &t);
    put_magic(c, &m->mt, t.R, t.C);
    put(c, mem(OP_LDQ, t.A, t.R, PATH_OFF_DEPTH));
    put(c, opl(OP_INTA, F_ADDQ, t.A, 1, t.A));
    put(c, opl(OP_INTS, F_SRL, t.A, SINK_BIT, t.B));
    struct fixup to_sink = put_fwd(c, OP_BNE, t.B);
    put(c, mem(OP_STQ, t.A, t.R, PATH_OFF_DEPTH));
    put(c, opr(OP_INTA, F_S8ADDQ, t.A, t.R, t.B));
    put(c, mem(OP_STQ, m->P, t.B, PATH_STACK_OFFSET));
    if (m->Y != R_ZERO)
        put(c, mem(OP_STQ, m->Y, t.B, PATH_STACK2_OFFSET));
    if (m->sp_tags)
        put_sp_slot(c, OP_STQ, R_SP, t.B, t.C);
    if (m->mt.on)           /* (on the sink: none; its paths count unmetered) */
        put_meter_start(c, &t, t.B, PATH_STACK3_OFFSET, PATH_STACK4_OFFSET);
    struct fixup done = put_fwd(c, OP_BR, R_ZERO);
    land(c, to_sink);
    put(c, mem(OP_LDQ, t.B, t.R, PATH_OFF_EXCESS));
    put(c, opl(OP_INTA, F_ADDQ, t.B, 1, t.C));
    put(c, mem(OP_STQ, t.C, t.R, PATH_OFF_EXCESS));
    struct fixup deeper = put_fwd(c, OP_BNE, t.B);
    put(c, mem(OP_STQ, m->P, t.R, PATH_SINK_SLOT));
    if (m->Y != R_ZERO)
        put(c, mem(OP_STQ, m->Y, t.R, PATH_SINK_SLOT2));
    put(c, mem(OP_LDA, t.A, R_ZERO, PATH_SINK));
    put(c, mem(OP_STQ, t.A, t.R, PATH_OFF_DEPTH));
    land(c, deeper);
    land(c, done);
    put_setk(c, m->P, add, m->bad);
    if (m->cb) {
        put_ctx_base(c, m->Y, t.R, t.A, t.B, m->base, 0, false, m->bad);
    } else if (m->Y != R_ZERO) {
        put(c, opr(OP_INTL, F_BIS, R_ZERO, t.R, m->Y));
        if (!m->mt.on)          /* metered: Y keeps the region */
            put_addk(c, m->Y, PATH_COUNTERS_OFFSET + 8 * (int64_t)m->base, m->bad);
    }
    tregs_restore(c, &t);
}

static void put_saved_exit(struct code *c, struct pmode *m, int64_t add, uint32_t live)
{
    struct tregs t;
    pick(m, &t, live, bit(m->P) | bit(m->Y));     /* Y is loaded here: not a spill */
    tregs_save(c, &t);
    put_region(c, t.R);
    if (m->mt.on)
        put_meter_read(c, &m->mt, &t);
    put(c, mem(OP_LDQ, t.A, t.R, PATH_OFF_DEPTH));
    struct fixup to_unmatched = put_fwd(c, OP_BEQ, t.A);
    if (m->mt.on) {
        put(c, opl(OP_INTS, F_SRL, t.A, SINK_BIT, t.B));
        struct fixup sink = put_fwd(c, OP_BNE, t.B);
        put(c, opr(OP_INTA, F_S8ADDQ, t.A, t.R, t.A));
        put_meter_end(c, &t, t.A, PATH_STACK3_OFFSET, PATH_STACK4_OFFSET, false);
        put_reg_count(c, m, &t, add, true, true);
        put(c, mem(OP_LDQ, t.A, t.R, PATH_OFF_DEPTH));
        struct fixup counted = put_fwd(c, OP_BR, R_ZERO);
        land(c, sink);
        put_reg_count(c, m, &t, add, true, false);
        put_incq(c, t.C, t.R, PATH_OFF_UNMETERED);
        land(c, counted);
    } else {
        put_reg_count(c, m, &t, add, true, false);
    }
    put(c, opl(OP_INTS, F_SRL, t.A, SINK_BIT, t.B));
    struct fixup to_sink = put_fwd(c, OP_BNE, t.B);
    put(c, opr(OP_INTA, F_S8ADDQ, t.A, t.R, t.B));
    put(c, mem(OP_LDQ, m->P, t.B, PATH_STACK_OFFSET));
    if (m->Y != R_ZERO)
        put(c, mem(OP_LDQ, m->Y, t.B, PATH_STACK2_OFFSET));
    put(c, opl(OP_INTA, F_SUBQ, t.A, 1, t.A));
    put(c, mem(OP_STQ, t.A, t.R, PATH_OFF_DEPTH));
    struct fixup done1 = put_fwd(c, OP_BR, R_ZERO);
    land(c, to_sink);
    put(c, mem(OP_LDQ, t.B, t.R, PATH_OFF_EXCESS));
    put(c, opl(OP_INTA, F_SUBQ, t.B, 1, t.B));
    put(c, mem(OP_STQ, t.B, t.R, PATH_OFF_EXCESS));
    struct fixup to_poison = put_fwd(c, OP_BNE, t.B);
    put(c, mem(OP_LDQ, m->P, t.R, PATH_SINK_SLOT));
    if (m->Y != R_ZERO)
        put(c, mem(OP_LDQ, m->Y, t.R, PATH_SINK_SLOT2));
    put(c, mem(OP_LDA, t.A, R_ZERO, PATH_SINK - 1));
    put(c, mem(OP_STQ, t.A, t.R, PATH_OFF_DEPTH));
    struct fixup done2 = put_fwd(c, OP_BR, R_ZERO);
    land(c, to_poison);
    put(c, mem(OP_LDAH, m->P, R_ZERO, PATH_POISON >> 16));
    if (m->Y != R_ZERO) {
        /* the caller's counters' address is lost too: one that keeps any
         * number below PATH_MAX_COUNTERS inside the region */
        put(c, mem(OP_LDA, m->Y, t.R, m->mt.on ? 0 : PATH_COUNTERS_OFFSET));
    }
    struct fixup done3 = put_fwd(c, OP_BR, R_ZERO);
    land(c, to_unmatched);
    put_incq(c, t.B, t.R, PATH_OFF_UNMATCHED);
    land(c, done1);
    land(c, done2);
    land(c, done3);
    tregs_restore(c, &t);
}

/* Frame mode (path-region.h note 11): the offset from sp of the frame's
 * k-th slot where the edge being emitted runs. */
static int fslot(const struct pmode *m, int k)
{
    return (int)((m->fbody ? m->fsize : -FRAME_SLOTS) + 8 * k);
}

/* The callee-saved mode's entry in frame mode: the caller's P (and Y) go
 * to the frame's slots (sp is the caller's at the entry), P = ENTRY's add,
 * Y = the counters' address. */
static void put_frame_entry(struct code *c, struct pmode *m, int64_t add)
{
    put(c, mem(OP_STQ, m->P, R_SP, fslot(m, 0)));
    if (m->addr) {
        put_region(c, m->P);
        put_addk(c, m->P, PATH_COUNTERS_OFFSET + 8 * ((int64_t)m->base + add), m->bad);
        return;
    }
    if (m->Y != R_ZERO) {
        put(c, mem(OP_STQ, m->Y, R_SP, fslot(m, 1)));
        put_region(c, m->Y);
        put_addk(c, m->Y, PATH_COUNTERS_OFFSET + 8 * (int64_t)m->base, m->bad);
    }
    put_setk(c, m->P, add, m->bad);
}

/* ... and its exit: the path counted, the caller's P (and Y) back. */
static void put_frame_exit(struct code *c, struct pmode *m, int64_t add, uint32_t live)
{
    struct tregs t;
    pick(m, &t, live, bit(m->P) | bit(m->Y));
    tregs_save(c, &t);
    if (m->addr) {
        /* P is never out of range but when a callee on the sink handed
         * back PATH_POISON (note 3): no address in RAM, so one test keeps
         * it from being counted; its stub counts it as lost */
        _Static_assert(RAM_SIZE <= 1u << 28 && PATH_POISON - 8 * PATH_MAX_COUNTERS >= 1u << 28,
                       "a poisoned address is at or above 2^28, every counter's below");
        put(c, opl(OP_INTS, F_SRL, m->P, 28, t.C));
        struct fixup poisoned = put_fwd(c, OP_BNE, t.C);
        int64_t off = 8 * add;
        unsigned at = put_slot_base(c, t.B, m->P, &off);
        put_incq(c, t.C, at, (int)off);
        if (m->nstubs < sizeof m->stub / sizeof *m->stub) {
            m->stub[m->nstubs++] = (struct bad_stub){poisoned, here(c), t.R, t.C, false};
        } else {
            struct fixup done = put_fwd(c, OP_BR, R_ZERO);
            land(c, poisoned);
            put_region(c, t.R);
            put_incq(c, t.C, t.R, PATH_OFF_LOST);
            land(c, done);
        }
    } else {
        put_reg_count(c, m, &t, add, false, false);
    }
    tregs_restore(c, &t);
    put(c, mem(OP_LDQ, m->P, R_SP, fslot(m, 0)));
    if (m->Y != R_ZERO)
        put(c, mem(OP_LDQ, m->Y, R_SP, fslot(m, 1)));
}

/* An action with P kept in the frame's slot (pmode.fmem): as the memory
 * mode's, in the procedure's own frame rather than on the register stack. */
static void put_fmem_action(struct code *c, struct pmode *m, const struct bl_action *a, uint32_t live)
{
    struct tregs t;
    pick(m, &t, live, 0);
    tregs_save(c, &t);
    hashing.tmp = t.C;          /* (a hashed procedure's wide increments: path-region.h note 14) */
    int slot = fslot(m, 0);
    switch (a->kind) {
    case BL_ACT_ENTRY:
        if (m->cb) {            /* --both: the counters' base in the second slot (cct-region.h note 17) */
            put_core_state(c, t.R);
            put_ctx_base(c, t.R, t.R, t.A, t.B, m->base, 0, true, m->bad);
            put(c, mem(OP_STQ, t.R, R_SP, fslot(m, 1)));
        } else if (both.on && hashing.ctx) {    /* --both, hashed: its context there (path-region.h note 15) */
            put_core_state(c, t.R);
            put_hash_ctx(c, t.A, t.R, t.B, true);
            put(c, mem(OP_STQ, t.A, R_SP, fslot(m, 1)));
        }
        put_setk(c, t.A, a->add, m->bad);
        put(c, mem(OP_STQ, t.A, R_SP, slot));
        break;
    case BL_ACT_ADD:
        if (m->rk) {
            put_setk(c, t.A, m->rv + a->add, m->bad);
        } else {
            put(c, mem(OP_LDQ, t.A, R_SP, slot));
            put_addk(c, t.A, a->add, m->bad);
        }
        put(c, mem(OP_STQ, t.A, R_SP, slot));
        break;
    case BL_ACT_EXIT:
    case BL_ACT_BACKEDGE: {
        int64_t idx = m->rv + a->add;
        if (!(m->rk && idx >= 0 && (uint64_t)idx < m->npaths))        /* (put_reg_count's known slot) */
            put(c, mem(OP_LDQ, t.A, R_SP, slot));
        unsigned P = m->P;
        m->P = t.A;
        if (m->cb) {            /* --both: Y the base from the frame (the region is not needed) */
            put(c, mem(OP_LDQ, t.R, R_SP, fslot(m, 1)));
            m->Y = t.R;
        }
        hashing.ctx_at = both.on && hashing.ctx ? fslot(m, 1) : 0;    /* (kept there at the entry) */
        put_reg_count(c, m, &t, a->add, false, false);
        hashing.ctx_at = 0;
        m->P = P;
        if (m->cb)
            m->Y = R_ZERO;
        if (a->kind == BL_ACT_BACKEDGE) {
            put_setk(c, t.A, a->reset, m->bad);
            put(c, mem(OP_STQ, t.A, R_SP, slot));
        }
        break;
    }
    default:
        break;
    }
    tregs_restore(c, &t);
}

/* The bad-number stubs of the trampoline just ended. */
static void put_stubs(struct code *c, struct pmode *m)
{
    for (unsigned i = 0; i < both.ncold; i++) {         /* --both's (struct both_cold) */
        struct both_cold *cd = &both.cold[i];
        for (unsigned j = 0; j < cd->nfrom; j++)
            land(c, cd->from[j]);
        int64_t off = cd->off;
        if (!fits16(off)) {
            put_addk(c, cd->r, off, m->bad);
            off = 0;
        }
        put_incq(c, cd->x, cd->r, (int)off);
        put_branch(c, OP_BR, R_ZERO, cd->back);
    }
    both.ncold = 0;
    for (unsigned i = 0; i < m->nstubs; i++) {
        unsigned r = m->stub[i].r, x = m->stub[i].x;
        land(c, m->stub[i].from);
        if (m->stub[i].reads) {
            put(c, mem(OP_LDQ, m->S, m->W, PMU_CYCLES_OFF));
            put(c, mem(OP_LDQ, m->T, m->W, m->mt.ev_off));
        }
        put_region(c, r);
        if (m->saved) {
            /* on the sink: a caller whose P was lost (PATH_POISON) */
            put(c, mem(OP_LDQ, x, r, PATH_OFF_DEPTH));
            put(c, opl(OP_INTS, F_SRL, x, SINK_BIT, x));
            struct fixup not_sink = put_fwd(c, OP_BEQ, x);
            put_incq(c, x, r, PATH_OFF_LOST);
            put_branch(c, OP_BR, R_ZERO, m->stub[i].back);
            land(c, not_sink);
        }
        put_incq(c, x, r, PATH_OFF_BAD);
        put_branch(c, OP_BR, R_ZERO, m->stub[i].back);
    }
    m->nstubs = 0;
}

static void put_action_code(struct code *c, struct pmode *m, const struct bl_action *a, uint32_t live);

/* The edge of action a in the procedure's actions, or -1 (a made-up one). */
static ptrdiff_t edge_index(const struct pmode *m, const struct bl_action *a)
{
    return m->act0 && a >= m->act0 && a < m->act0 + m->nact ? a - m->act0 : -1;
}

/* Whether an edge carries no code: a trivial action, no loop register. */
static bool edge_trivial(const struct pmode *m, const struct bl_action *a)
{
    ptrdiff_t e = edge_index(m, a);
    if (e < 0 || !m->kzero)
        return action_trivial(a);
    return (action_trivial(a) || m->kskip[e]) && !(m->kzero[e] | m->kflush[e] | m->kback[e] | m->kneut[e]);
}

#define F_SRA 0x3c

/* A metered loop's entry (path-region.h note 17): no first reading yet,
 * and the PMU page (a kept leaf's W, else found from sp). */
static void put_iv_meter_entry(struct code *c, const struct pmode *m, unsigned k)
{
    const struct iv_meter *v = &m->km[k];
    unsigned R = m->kept ? m->Y : v->page;      /* the region: a kept leaf's Y */
    if (!m->kept)
        put_region(c, R);
    for (unsigned i = 0; i < v->nheld; i++)
        put(c, mem(OP_STQ, v->held[i], R, PATH_OFF_LOOP_HELD + 8 * (int)i));
    if (!m->kept)
        put(c, mem(OP_LDAH, v->page, v->page, PMU_FROM_REGION));
    put(c, opr(OP_INTL, F_BIS, R_ZERO, R_ZERO, v->first_c));
}

/* A metered loop's borrowed registers back (note 17), at every way out;
 * the page (dead after) becomes the region. */
static void put_iv_meter_unhold(struct code *c, const struct pmode *m, unsigned k)
{
    const struct iv_meter *v = &m->km[k];
    unsigned R = m->kept ? m->Y : v->page;
    if (!v->nheld)
        return;
    if (!m->kept)
        put(c, mem(OP_LDAH, v->page, v->page, -PMU_FROM_REGION));
    for (unsigned i = 0; i < v->nheld; i++)
        put(c, mem(OP_LDQ, v->held[i], R, PATH_OFF_LOOP_HELD + 8 * (int)i));
}

/* A metered loop's backedge (note 17): the page read into the last
 * reading; the first backedge's kept too (a cycle count is never 0). */
static void put_iv_meter_read(struct code *c, const struct pmode *m, unsigned k)
{
    const struct iv_meter *v = &m->km[k];
    put(c, mem(OP_LDQ, v->last_c, v->page, PMU_CYCLES_OFF));
    put(c, mem(OP_LDQ, v->last_e, v->page, m->mt.ev_off));
    put(c, opr(OP_INTL, F_CMOVEQ, v->first_c, v->last_e, v->first_e));
    put(c, opr(OP_INTL, F_CMOVEQ, v->first_c, v->last_c, v->first_c));
}

/* The iterations after the first of a metered loop (note 17), K of them:
 * the iteration path's slot gets K, and the last reading less the first
 * as their metrics (the loop's registers are dead after). */
static void put_iv_meter_flush(struct code *c, struct pmode *m, unsigned k, uint32_t live)
{
    const struct iv_meter *v = &m->km[k];
    struct tregs t;
    tregs_pick_beside(&t, live, bit(m->P) | bit(m->Y) | bit(m->S) | bit(m->T) | bit(m->W) | kmask(m), 4, m->Y);
    tregs_save(c, &t);
    if (m->Y == R_ZERO)         /* metered: Y keeps the region (--both: the activation's slots' base) */
        put_region(c, t.R);
    int64_t off = (both.on ? 0 : PATH_COUNTERS_OFFSET + PATH_METERED_SIZE * (int64_t)m->base) +
                  PATH_METERED_SIZE * m->kidx[k];
    unsigned at = put_slot_base(c, t.B, t.R, &off);
    put(c, mem(OP_LDQ, t.C, at, (int)off));
    put(c, opr(OP_INTA, F_ADDQ, t.C, m->K[k], t.C));
    put(c, mem(OP_STQ, t.C, at, (int)off));
    put(c, opr(OP_INTA, F_SUBQ, v->last_c, v->first_c, v->last_c));
    put(c, opr(OP_INTA, F_SUBQ, v->last_e, v->first_e, v->last_e));
    t.D = v->last_c;
    t.E = v->last_e;
    put_meter_add(c, &t, at, (int)off);
    tregs_restore(c, &t);
}

/* The path going on after a metered loop (note 17) starts at its last
 * backedge's reading (the model's window has the fixup inside it, as any
 * trampoline between a path's reads), kept where the activation keeps
 * its start (note 5). */
static void put_iv_meter_restart(struct code *c, struct pmode *m, unsigned k, uint32_t live)
{
    const struct iv_meter *v = &m->km[k];
    if (m->kept) {
        put(c, opr(OP_INTL, F_BIS, R_ZERO, v->last_c, m->S));
        put(c, opr(OP_INTL, F_BIS, R_ZERO, v->last_e, m->T));
        return;
    }
    struct tregs t;
    tregs_pick_beside(&t, live, bit(m->P) | bit(m->Y) | kmask(m), 3, m->Y);
    t.D = v->last_c;
    t.E = v->last_e;
    tregs_save(c, &t);
    if (m->Y == R_ZERO)
        put_region(c, t.R);
    if (m->leaf) {
        put_meter_start(c, &t, t.R, PATH_OFF_LEAF_CYCLES, PATH_OFF_LEAF_EVENT);
    } else {
        /* the depth's slot; none (depth 0, the sink): its path counts unmetered */
        struct fixup none, sink;
        put_depth_slot(c, &t, &none, &sink);
        put_meter_start(c, &t, t.A, PATH_STACK3_OFFSET, PATH_STACK4_OFFSET);
        land(c, none);
        land(c, sink);
    }
    tregs_restore(c, &t);
}

/* An exit of loop k counted by its induction variable (path-region.h note
 * 10): n = the backedges taken since the loop was entered, from ivr - K
 * (less the increment when it ran before this exit, ib); with any, the
 * first counts as the backedge's action does (P + add, the number it was
 * entered with; P = reset) and the n - 1 others add to the iteration
 * path's counter.  K is dead afterwards.  Metered (note 17): the first
 * backedge's action ends at the first reading, the path going on starts
 * at the last, and the others' metrics are the last less the first. */
static void put_iv_fixup(struct code *c, struct pmode *m, unsigned k, bool ib, uint32_t live)
{
    unsigned K = m->K[k];
    const struct iv_meter *v = &m->km[k];
    bool metered = v->page != R_ZERO;
    put(c, opr(OP_INTA, F_SUBQ, m->ivr[k], K, K));
    if (ib)
        put(c, mem(OP_LDA, K, K, (int)-m->ivstep[k]));
    if (m->ivstep[k] < 0)
        put(c, opr(OP_INTA, F_SUBQ, R_ZERO, K, K));
    if (m->ivl[k])          /* (the longword's wraps: mod 2^32) */
        put(c, opl(OP_INTS, F_ZAPNOT, K, 0x0f, K));
    if (m->ivsh[k])
        put(c, opl(OP_INTS, F_SRA, K, m->ivsh[k], K));
    struct fixup none = put_fwd(c, OP_BEQ, K);
    put(c, opl(OP_INTA, F_SUBQ, K, 1, K));
    bool rk = m->rk;
    m->rk = false;
    m->mt.given = metered;
    m->mt.gc = v->first_c;
    m->mt.ge = v->first_e;
    put_action_code(c, m, &m->act0[m->kbe[k]], live);
    m->mt.given = false;
    m->rk = rk;
    if (metered) {
        put_iv_meter_restart(c, m, k, live);
        put_iv_meter_flush(c, m, k, live);
    } else {
        put_loop_flush(c, m, 1u << k, live);
    }
    land(c, none);
    if (metered)
        put_iv_meter_unhold(c, m, k);
}

/* The code of an edge: its loop registers' (path-region.h note 9), then
 * its action's. */
static void put_edge_code(struct code *c, struct pmode *m, const struct bl_action *a, uint32_t live)
{
    ptrdiff_t e = edge_index(m, a);
    if (e < 0 || !m->kzero) {
        put_action_code(c, m, a, live);
        return;
    }
    unsigned counted = 0;       /* loops counted in K itself (note 9), not by an induction variable */
    for (unsigned k = 0; k < m->nk; k++)
        if (m->ivr[k] == R_ZERO)
            counted |= 1u << k;
    for (unsigned k = 0; k < m->nk; k++)
        if ((m->kflush[e] & 1u << k) && m->ivr[k] != R_ZERO)
            put_iv_fixup(c, m, k, m->kib[e], live);
    if (m->kflush[e] & counted)
        put_loop_flush(c, m, m->kflush[e] & counted, live);
    for (unsigned k = 0; k < m->nk; k++) {
        if (m->kzero[e] & 1u << k) {
            put(c, opr(OP_INTL, F_BIS, R_ZERO, m->ivr[k], m->K[k]));   /* ivr = R_ZERO: K = 0 */
            if (m->km[k].page != R_ZERO)
                put_iv_meter_entry(c, m, k);
        }
        if ((m->kneut[e] & 1u << k) && m->kadj[e])     /* from the loop into its sink: X's fixup counts it */
            put(c, mem(OP_LDA, m->K[k], m->K[k], (int)(m->kadj[e] * m->ivstep[k])));
        else if (m->kneut[e] & 1u << k) {       /* no iteration: ivr - K = the increment when it ran before */
            put(c, mem(OP_LDA, m->K[k], m->ivr[k], (int)-(m->kxib[e] ? m->ivstep[k] : 0)));
            if (m->km[k].nheld)         /* the fixup there gives the borrowed registers back (note 17) */
                put_iv_meter_entry(c, m, k);
        }
    }
    if (m->kskip[e])
        return;
    if (m->kread[e]) {
        put_iv_meter_read(c, m, m->kread[e] - 1u);
        return;
    }
    if (!m->kback[e]) {
        put_action_code(c, m, a, live);
        return;
    }
    /* the iteration path (P == kv) counts in K; another (the first
     * iteration's, entered from outside) as any backedge's */
    unsigned k = m->kback[e] - 1u;
    /* compared in P itself (reset after either way), so the hot path
     * needs no scratch register */
    if (m->kv[k])
        put(c, mem(OP_LDA, m->P, m->P, (int)-m->kv[k]));
    struct fixup other = put_fwd(c, OP_BNE, m->P);
    put(c, opl(OP_INTA, F_ADDQ, m->K[k], 1, m->K[k]));
    put_setk(c, m->P, a->reset, m->bad);
    struct fixup done = put_fwd(c, OP_BR, R_ZERO);
    land(c, other);
    if (m->kv[k])
        put(c, mem(OP_LDA, m->P, m->P, (int)m->kv[k]));
    put_action_code(c, m, a, live);
    land(c, done);
}

/* --both, counts only: an entry, x the CCT core state: x = the
 * activation's counters' base + 8 extra (put_ctx_base, cct-region.h note
 * 17) with two registers dead here (else kept below sp). */
static void put_both_entry_base(struct code *c, struct pmode *m, unsigned x, int64_t extra, uint32_t live)
{
    struct tregs t;
    tregs_pick(&t, live, bit(m->P) | bit(m->Y) | kmask(m), 2);
    tregs_save(c, &t);
    put_ctx_base(c, x, x, t.R, t.A, m->base, extra, true, m->bad);
    tregs_restore(c, &t);
}

/* --both, counts only, frame mode (path-region.h note 11): the caller's
 * P (and Y) to the frame's slots, then P = the activation's counters'
 * base + 8 ENTRY's add (no backedge: addr), else Y = that base and P =
 * the add. */
static void put_both_frame_entry(struct code *c, struct pmode *m, int64_t add, uint32_t live)
{
    put(c, mem(OP_STQ, m->P, R_SP, fslot(m, 0)));
    if (m->addr) {
        put_core_state(c, m->P);
        put_both_entry_base(c, m, m->P, add, live);
        return;
    }
    put(c, mem(OP_STQ, m->Y, R_SP, fslot(m, 1)));
    put_core_state(c, m->Y);
    put_both_entry_base(c, m, m->Y, 0, live);
    put_setk(c, m->P, add, m->bad);
}

/* The code of an edge's action where the registers of live are live. */
static void put_action_code(struct code *c, struct pmode *m, const struct bl_action *a, uint32_t live)
{
    if (action_trivial(a))
        return;
    both.exit = a->kind == BL_ACT_EXIT;
    if (m->constant) {
        if (a->kind == BL_ACT_EXIT) {
            struct tregs t;
            pick(m, &t, live, 0);
            tregs_save(c, &t);
            int64_t k = m->entry_add + a->add;
            if (both.on && both.ctx && both.ncold < sizeof both.cold / sizeof *both.cold && fits16(both.ctx_off + 8 * k)) {
                /* the activation's one count: in its record, straight
                 * on; context-free out of line (cct-region.h note 17),
                 * the path region not needed on the way */
                struct both_cold *cd = &both.cold[both.ncold++];
                put_core_state(c, t.R);
                put(c, mem(OP_LDQ, t.B, t.R, both.leaf ? CCT_OFF_LEAF_REC : CCT_OFF_CUR));
                cd->nfrom = 1;
                if (both.leaf) {
                    put(c, mem(OP_STQ, R_ZERO, t.R, CCT_OFF_LEAF_REC));
                    cd->from[cd->nfrom++] = put_fwd(c, OP_BEQ, t.B);
                }
                put(c, mem(OP_LDL, t.C, t.B, CCT_REC_FLAGS));
                put(c, mem(OP_LDA, t.C, t.C, -both.ctx_flags));
                cd->from[0] = put_fwd(c, OP_BNE, t.C);   /* (from[1] set first: a leaf's) */
                put_incq(c, t.A, t.B, (int)(both.ctx_off + 8 * k));
                cd->back = here(c);
                cd->r = t.R;
                cd->x = t.A;
                cd->off = CCT_BOTH_PATHS_OFFSET + PATH_COUNTERS_OFFSET + 8 * ((int64_t)m->base + k);
                tregs_restore(c, &t);
                return;
            }
            put_region(c, t.R);
            if (!magic_by_loader(&m->mt))
                put(c, mem(OP_STL, t.R, t.R, PATH_OFF_MAGIC));
            struct ctx_count cc = put_ctx_count(c, t.R, R_ZERO, m->entry_add + a->add, t.B, t.C, &m->mt, NULL);
            int64_t off = PATH_COUNTERS_OFFSET + 8 * ((int64_t)m->base + m->entry_add + a->add);
            if (!fits16(off)) {
                put_addk(c, t.R, off, m->bad);
                off = 0;
            }
            put_incq(c, t.A, t.R, (int)off);
            ctx_done(c, &cc);
            tregs_restore(c, &t);
        }
        return;
    }
    if (m->fmem) {
        put_fmem_action(c, m, a, live);
        return;
    }
    if (m->saved) {
        switch (a->kind) {
        case BL_ACT_ENTRY:
            if (m->frame && m->cb)
                put_both_frame_entry(c, m, a->add, live);
            else if (m->frame)
                put_frame_entry(c, m, a->add);
            else
                put_saved_entry(c, m, a->add, live);
            break;
        case BL_ACT_ADD:
            put_addk(c, m->P, (m->addr ? 8 : 1) * a->add, m->bad);
            break;
        case BL_ACT_EXIT:
            if (m->frame)
                put_frame_exit(c, m, a->add, live);
            else
                put_saved_exit(c, m, a->add, live);
            break;
        case BL_ACT_BACKEDGE:
            if (m->mt.on)
                put_metered_saved_backedge(c, m, a->add, live);
            else
                put_leaf_count(c, m, a->add, live);
            put_setk(c, m->P, a->reset, m->bad);
            break;
        default:
            break;
        }
        return;
    }
    if (!m->leaf) {
        struct tregs t;
        pick(m, &t, live, 0);
        tregs_save(c, &t);
        put_region(c, t.R);
        put_action(c, &t, &m->mt, a, m->npaths, m->base, m->sp_tags, m->bad);
        tregs_restore(c, &t);
        return;
    }
    if (m->kept) {
        switch (a->kind) {
        case BL_ACT_ENTRY:
            put_kept_entry(c, m, a->add, live);
            break;
        case BL_ACT_ADD:
            put_addk(c, m->P, KEPT_SCALE * a->add, m->bad);
            break;
        case BL_ACT_EXIT:
            put_kept_count(c, m, a->add, live, false);
            break;
        case BL_ACT_BACKEDGE:
            put_kept_count(c, m, a->add, live, true);
            put_setk(c, m->P, KEPT_SCALE * a->reset, m->bad);
            break;
        default:
            break;
        }
        return;
    }
    if (m->mt.on) {
        switch (a->kind) {
        case BL_ACT_ENTRY:
            put_metered_leaf_entry(c, m, live);
            put_setk(c, m->P, a->add, m->bad);
            break;
        case BL_ACT_ADD:
            put_addk(c, m->P, a->add, m->bad);
            break;
        case BL_ACT_EXIT:
            put_metered_leaf_count(c, m, a->add, live, false);
            break;
        case BL_ACT_BACKEDGE:
            put_metered_leaf_count(c, m, a->add, live, true);
            put_setk(c, m->P, a->reset, m->bad);
            break;
        default:
            break;
        }
        return;
    }
    if (m->addr) {
        /* a leaf with no backedge, counts only: P holds its path's
         * counter's address (path-region.h note 11) */
        switch (a->kind) {
        case BL_ACT_ENTRY:
            if (m->cb) {
                put_core_state(c, m->P);
                put_both_entry_base(c, m, m->P, a->add, live);
                break;
            }
            put_region(c, m->P);
            put_addk(c, m->P, PATH_COUNTERS_OFFSET + 8 * ((int64_t)m->base + a->add), m->bad);
            break;
        case BL_ACT_ADD:
            put_addk(c, m->P, 8 * a->add, m->bad);
            break;
        case BL_ACT_EXIT: {
            struct tregs t;
            pick(m, &t, live, bit(m->P));
            tregs_save(c, &t);
            int64_t off = 8 * a->add;
            unsigned at = put_slot_base(c, t.B, m->P, &off);
            put_incq(c, t.C, at, (int)off);
            tregs_restore(c, &t);
            break;
        }
        default:
            break;
        }
        return;
    }
    switch (a->kind) {
    case BL_ACT_ENTRY:
        if (m->Y != R_ZERO) {
            if (m->cb) {
                put_core_state(c, m->Y);
                put_both_entry_base(c, m, m->Y, 0, live);
            } else {
                put_region(c, m->Y);
                if (!magic_by_loader(&m->mt))
                    put(c, mem(OP_STL, m->Y, m->Y, PATH_OFF_MAGIC));
                put_addk(c, m->Y, PATH_COUNTERS_OFFSET + 8 * (int64_t)m->base, m->bad);
            }
        }
        put_setk(c, m->P, a->add, m->bad);
        break;
    case BL_ACT_ADD:
        put_addk(c, m->P, a->add, m->bad);
        break;
    case BL_ACT_EXIT:
        put_leaf_count(c, m, a->add, live);
        break;
    case BL_ACT_BACKEDGE:
        put_leaf_count(c, m, a->add, live);
        put_setk(c, m->P, a->reset, m->bad);
        break;
    default:
        break;
    }
}

/* Whether block b's last instruction can be patched for an edge's code
 * (as paths_check requires of every block with an acting edge). */
static bool block_patchable(const struct calc_proc *cfg, uint32_t b, uint64_t E)
{
    const struct calc_block *u = &cfg->blocks[b];
    if (!u->n)
        return false;
    const struct calc_insn *L = &cfg->insns[u->first + u->n - 1];
    enum calc_flow fl = calc_flow_of(L->s.word, L->s.cls);
    return !(L->pc == E || fl == FLOW_INDIRECT || (fl == FLOW_NONE && !relocatable(L->s.word)) ||
             (fl == FLOW_COND && (u->nout != 2 || edge_of(cfg, b, EDGE_FALL) < 0)) ||
             (fl != FLOW_COND && u->nout != 1));
}

/* Marks in[] every block that reaches one of stack[0..sp) backward
 * without passing a block already marked (a natural loop's body, its
 * header marked first); stack has room for every block. */
static void reach_back(const struct calc_proc *cfg, uint8_t *in, uint32_t *stack, size_t sp)
{
    while (sp) {
        uint32_t v = stack[--sp];
        for (uint32_t i = 0; i < cfg->blocks[v].nin; i++) {
            uint32_t u = cfg->edges[cfg->blocks[v].in[i]].from;
            if (u != CALC_NONE && !in[u]) {
                in[u] = 1;
                stack[sp++] = u;
            }
        }
    }
}

/* in[] = the blocks of h's loop: h and those reaching a backedge into h
 * without passing h (none when no backedge goes to h). */
static void loop_blocks(const struct calc_proc *cfg, const struct bl_proc *bl, uint32_t h, uint8_t *in,
                        uint32_t *stack)
{
    size_t sp = 0;
    memset(in, 0, cfg->nblocks + 1);
    for (uint32_t i = 0; i < cfg->blocks[h].nin; i++) {
        uint32_t e = cfg->blocks[h].in[i];
        in[h] |= bl->action[e].kind == BL_ACT_BACKEDGE && cfg->edges[e].from != CALC_NONE;
    }
    for (uint32_t i = 0; in[h] && i < cfg->blocks[h].nin; i++) {
        uint32_t e = cfg->blocks[h].in[i], t = cfg->edges[e].from;
        if (bl->action[e].kind == BL_ACT_BACKEDGE && t != CALC_NONE && !in[t]) {
            in[t] = 1;
            stack[sp++] = t;
        }
    }
    reach_back(cfg, in, stack, sp);
}

/* Whether a loop counted in a register may hold this instruction
 * (path-region.h notes 9 and 10): no call, indirect jump or halt, nothing
 * undecodable, no PAL or hardware instruction, so nothing but the loop's
 * own code runs between its entry and its exits. */
static bool loop_may_hold(const struct calc_insn *in)
{
    enum calc_flow f = calc_flow_of(in->s.word, in->s.cls);
    const struct alpha_insn_info *ai = alpha_decode(in->s.word);
    return f != FLOW_CALL && f != FLOW_INDIRECT && f != FLOW_HALT && ai && ai->format != ALPHA_FMT_PAL &&
           ai->format != ALPHA_FMT_HW;
}

/* Loop h counted by an induction variable (path-region.h note 10): L =
 * in[] is a chain h -> ... -> t, one backedge t -> h, no other edge in L
 * acting, no call, PAL call, indirect jump or halt, entered only at h; a
 * register v is written in L once, by v += +-2^j; a register K of no
 * caller's, not named in L and dead on every edge into h from outside,
 * is left (metered, note 17: the page's too, and four more or borrowed
 * ones).  An exit falling out beside a branch that stays in L moves to
 * its target X's first instruction (X: two instructions or more, the
 * first an ordinary one; every way into X from outside L sets K to
 * count none).  True when taken (m->nk grown). */
static bool try_iv_loop(const struct calc_proc *cfg, const struct bl_proc *bl, const uint32_t *live, uint64_t E,
                        struct pmode *m, uint32_t h, uint8_t *in, uint32_t *used)
{
    size_t nb = cfg->nblocks, ne = cfg->nedges;
    if (m->nk == sizeof m->K / sizeof *m->K)
        return false;
    /* blocks no path reaches (padding falling into the loop) are not its */
    for (uint32_t v = 0; v < nb; v++) {
        bool reached = false;
        for (uint32_t i = 0; in[v] && i < cfg->blocks[v].nout; i++)
            reached |= bl->action[cfg->blocks[v].out[i]].kind != BL_ACT_UNREACHABLE;
        in[v] &= reached;
    }
    /* the chain and its one backedge */
    int64_t backedge = -1;
    uint32_t nin = 0;
    for (uint32_t v = 0; v < nb; v++)
        nin += in[v];
    int32_t *pos = calc_zalloc(nb + 1, sizeof *pos);
    bool ok = true;
    uint32_t u = h, n = 0;
    for (uint32_t v = 0; v < nb; v++)
        pos[v] = -1;
    while (ok) {
        pos[u] = (int32_t)n++;
        const struct calc_block *x = &cfg->blocks[u];
        uint32_t next = CALC_NONE, nnext = 0;
        for (uint32_t i = 0; i < x->nout; i++) {
            uint32_t f = x->out[i];
            const struct calc_edge *y = &cfg->edges[f];
            if (y->to == CALC_EXIT || !in[y->to])
                continue;
            nnext++;
            if (bl->action[f].kind == BL_ACT_BACKEDGE && y->to == h) {
                if (backedge >= 0)
                    ok = false;
                backedge = f;
            } else if (!action_trivial(&bl->action[f]) || y->to == h || pos[y->to] >= 0) {
                ok = false;
            } else {
                next = y->to;
            }
        }
        if (!ok || nnext != 1)
            ok = false;
        else if (next == CALC_NONE)
            break;
        else
            u = next;
    }
    ok &= backedge >= 0 && n == nin;
    /* what L does and names; the edges into it */
    uint32_t named = 0, writes[32] = {0}, dead_on_entry = ~0u;
    for (uint32_t v = 0; v < nb && ok; v++) {
        const struct calc_block *x = &cfg->blocks[v];
        if (!in[v])
            continue;
        for (uint32_t i = x->first; i < x->first + x->n; i++) {
            uint32_t w = cfg->insns[i].s.word, use, def;
            ok &= loop_may_hold(&cfg->insns[i]);
            named |= liveness_named(w);
            liveness_regs(w, &use, &def);
            for (unsigned r = 0; r < 31; r++)
                writes[r] += (def >> r) & 1;
        }
        for (uint32_t i = 0; i < x->nin; i++) {
            const struct calc_edge *y = &cfg->edges[x->in[i]];
            if (y->from == CALC_NONE) {
                ok = false;
                continue;
            }
            if (in[y->from] || bl->action[x->in[i]].kind == BL_ACT_UNREACHABLE)
                continue;
            const struct calc_block *p = &cfg->blocks[y->from];
            if (v != h || !block_patchable(cfg, y->from, E) ||
                calc_flow_of(cfg->insns[p->first + p->n - 1].s.word, cfg->insns[p->first + p->n - 1].s.cls) ==
                    FLOW_CALL)
                ok = false;
            else
                dead_on_entry &= ~liveness_at_edge(cfg, live, p->first + p->n - 1, v);
        }
    }
    /* the induction variable: written once in L, by v += +-2^j */
    unsigned iv = R_ZERO, sh = 0;
    int64_t step = 0;
    int32_t ipos = -1;
    bool longword = false;
    for (uint32_t v = 0; v < nb && ok && iv == R_ZERO; v++) {
        const struct calc_block *x = &cfg->blocks[v];
        for (uint32_t i = x->first; in[v] && i < x->first + x->n && iv == R_ZERO; i++) {
            uint32_t w = cfg->insns[i].s.word, ra = (w >> 21) & 31, rb = (w >> 16) & 31;
            int64_t d = 0;
            unsigned fn = (w >> 5) & 0x7f;
            bool lw = w >> 26 == OP_INTA && (fn == F_ADDL || fn == F_SUBL);
            if (w >> 26 == OP_LDA && ra == rb)
                d = (int16_t)(w & 0xffff);
            else if (w >> 26 == OP_INTA && (w & 1u << 12) && (w & 31) == ra &&
                     (fn == F_ADDQ || fn == F_SUBQ || lw))
                d = fn == F_ADDQ || fn == F_ADDL ? (int64_t)((w >> 13) & 0xff) : -(int64_t)((w >> 13) & 0xff);
            else
                continue;
            uint64_t a = d < 0 ? (uint64_t)-d : (uint64_t)d;
            if (!a || (a & (a - 1)) || ra == R_SP || ra == R_ZERO || writes[ra] != 1)
                continue;
            iv = ra;
            step = d;
            sh = (unsigned)__builtin_ctzll(a);
            ipos = pos[v];
            longword = lw;
        }
    }
    ok &= iv != R_ZERO;
    /* the exits: on their edge, or moved to their target's start */
    struct iv_sink sk = {.insn = UINT32_MAX};
    uint32_t X = CALC_NONE;
    bool at_end = false;
    for (size_t f = 0; f < ne && ok; f++) {
        const struct calc_edge *x = &cfg->edges[f];
        if (x->from == CALC_NONE || !in[x->from] || (x->to != CALC_EXIT && in[x->to]))
            continue;
        ok &= block_patchable(cfg, x->from, E) && !m->kneut[f];
        const struct calc_block *p = &cfg->blocks[x->from];
        const struct calc_insn *L = &cfg->insns[p->first + p->n - 1];
        bool beside = calc_flow_of(L->s.word, L->s.cls) == FLOW_COND && x->kind == EDGE_FALL;
        if (!beside || !action_trivial(&bl->action[f]))
            continue;
        bool ib = pos[x->from] >= ipos;
        if (X != CALC_NONE && (X != x->to || sk.ib != ib)) {
            ok = false;         /* one sink per loop */
            continue;
        }
        X = x->to;
        sk.ib = ib;
    }
    if (ok && X != CALC_NONE) {
        const struct calc_block *xb = &cfg->blocks[X];
        const struct calc_insn *first = xb->n ? &cfg->insns[xb->first] : NULL;
        ok = X != CALC_EXIT && xb->n >= 1;
        at_end = ok && !(xb->n >= 2 && first->pc != E && relocatable(first->s.word) &&
                         calc_flow_of(first->s.word, first->s.cls) == FLOW_NONE);
        for (unsigned i = 0; i < m->nsink && ok && !at_end; i++)
            ok = m->sink[i].insn != xb->first;
        if (ok && at_end) {
            /* X's first instruction cannot move: the count goes to X's
             * end (its out edges), X writing neither v nor K nor calling */
            const struct calc_insn *L = &cfg->insns[xb->first + xb->n - 1];
            ok = block_patchable(cfg, X, E) && calc_flow_of(L->s.word, L->s.cls) != FLOW_CALL;
            for (uint32_t i = xb->first; i < xb->first + xb->n && ok; i++) {
                uint32_t use, def;
                liveness_regs(cfg->insns[i].s.word, &use, &def);
                ok = !(def & 1u << iv);
                named |= liveness_named(cfg->insns[i].s.word);
            }
            for (uint32_t i = 0; i < xb->nout && ok; i++)
                ok = !(m->kflush[xb->out[i]] | m->kneut[xb->out[i]]);
        }
        for (uint32_t i = 0; i < xb->nin && ok; i++) {
            const struct calc_edge *y = &cfg->edges[xb->in[i]];
            if ((y->from != CALC_NONE && in[y->from]) || bl->action[xb->in[i]].kind == BL_ACT_UNREACHABLE)
                continue;       /* (its source is patchable, as every exit's) */
            const struct calc_block *p = y->from == CALC_NONE ? NULL : &cfg->blocks[y->from];
            ok = p && block_patchable(cfg, y->from, E) &&
                 calc_flow_of(cfg->insns[p->first + p->n - 1].s.word, cfg->insns[p->first + p->n - 1].s.cls) !=
                     FLOW_CALL &&
                 !(m->kflush[xb->in[i]] | m->kneut[xb->in[i]]);
        }
        sk.insn = xb->first;
    }
    /* K (and the page, a kept leaf's W else), dead on the entry; with
     * metrics note 17's four readings too, dead or else borrowed (live
     * on the entry, kept in the region while the loop runs) */
    unsigned dead[6], ndead = 0, live_[PATH_LOOP_HELD], nlive = 0;
    unsigned need = !m->mt.on ? 1 : m->kept ? 5 : 6, own = !m->mt.on || m->kept ? 1 : 2;
    /* (metered, another loop's registers too: two such loops are never
     * both running, none inside another, each done at its ways out) */
    uint32_t taken = m->mt.on ? bit(m->P) | bit(m->Y) | bit(m->S) | bit(m->T) | bit(m->W) : *used;
    for (size_t r = 0; r < 21 && ok && ndead < need; r++) {
        unsigned x = scratch_order[r];
        if ((named | taken) & 1u << x)
            continue;
        if (dead_on_entry & 1u << x)
            dead[ndead++] = x;
        else if (m->mt.on && nlive < PATH_LOOP_HELD && (!m->kept || m->Y != R_ZERO) && !both.on)   /* (the region;
                                                                        --both: Y is the slots' base) */
            live_[nlive++] = x;
    }
    if (!ok || ndead < own || ndead + nlive < need || m->nsink == sizeof m->sink / sizeof *m->sink) {
        free(pos);
        return false;
    }
    unsigned k = m->nk++, K = dead[0];
    *used |= 1u << K;
    if (!m->mt.on) {
        m->km[k] = (struct iv_meter){.page = R_ZERO};
    } else {
        struct iv_meter *vm = &m->km[k];
        unsigned rd[4], n = 0;
        for (unsigned i = own; i < ndead && n < 4; i++)
            rd[n++] = dead[i];
        *vm = (struct iv_meter){.page = m->kept ? m->W : dead[1]};
        for (unsigned i = 0; n < 4; i++)
            rd[n++] = vm->held[vm->nheld++] = live_[i];
        vm->last_c = rd[0];
        vm->last_e = rd[1];
        vm->first_c = rd[2];
        vm->first_e = rd[3];
    }
    m->niv++;
    m->K[k] = K;
    m->ivr[k] = iv;
    m->ivsh[k] = sh;
    m->ivl[k] = longword;
    m->ivstep[k] = step;
    m->kbe[k] = (uint32_t)backedge;
    m->kv[k] = bl->action[backedge].reset;
    m->kidx[k] = bl->action[backedge].reset + bl->action[backedge].add;
    if (m->mt.on)
        m->kread[backedge] = (uint8_t)(k + 1);
    else
        m->kskip[backedge] = 1;
    for (size_t f = 0; f < ne; f++) {
        const struct calc_edge *x = &cfg->edges[f];
        bool from_in = x->from != CALC_NONE && in[x->from];
        bool to_in = x->to != CALC_EXIT && in[x->to];
        if (bl->action[f].kind == BL_ACT_UNREACHABLE)
            continue;
        if (!from_in && to_in)
            m->kzero[f] |= (uint8_t)(1u << k);
        bool ib = from_in && pos[x->from] >= ipos, to_x = X != CALC_NONE && x->to == X;
        if (from_in && to_x && action_trivial(&bl->action[f])) {
            /* X's fixup counts it: K moved by the increment when this
             * exit's differs from X's */
            m->kadj[f] = (int8_t)((int)ib - (int)sk.ib);
            if (m->kadj[f])
                m->kneut[f] |= (uint8_t)(1u << k);
        } else if (from_in && !to_in) {
            /* counted here, before its action; into X, K then counts none there */
            m->kflush[f] |= (uint8_t)(1u << k);
            m->kib[f] = ib;
        }
        if (to_x && !(from_in && action_trivial(&bl->action[f]))) {
            m->kneut[f] |= (uint8_t)(1u << k);
            m->kxib[f] = sk.ib;
        }
    }
    if (X != CALC_NONE && at_end) {
        for (uint32_t i = 0; i < cfg->blocks[X].nout; i++) {
            m->kflush[cfg->blocks[X].out[i]] |= (uint8_t)(1u << k);
            m->kib[cfg->blocks[X].out[i]] = sk.ib;
        }
    } else if (X != CALC_NONE) {
        sk.k = k;
        m->sink[m->nsink++] = sk;
    }
    free(pos);
    return true;
}

/* Loops counted in registers: each loop (innermost first) by its
 * induction variable when it has one (path-region.h note 10, any
 * procedure with a path register; metered, note 17, only so), else in
 * a register of its own (note 9, a procedure whose path register is a
 * saved one, counts only): for each header
 * h, its loop L (the blocks that reach a backedge into h without passing
 * h), taken when L has no call, no PAL call and no entry but h's; then each backedge into h whose source's number, on the
 * paths from h's reset through L, is one (kv) gets a register K of its
 * own: a temporary L never names, dead on every edge into h from outside
 * L (so dead throughout L), that edge zeroing it; every edge out of L
 * (to EXIT too) adds it to the iteration path's counter. */
static void choose_loop_regs(const struct calc_proc *cfg, const struct bl_proc *bl, const uint32_t *live,
                             uint64_t E, struct pmode *m)
{
    size_t nb = cfg->nblocks, ne = cfg->nedges;
    m->nk = 0;
    m->act0 = bl->action;
    m->nact = ne;
    m->kzero = calc_zalloc(ne + 1, 1);
    m->kflush = calc_zalloc(ne + 1, 1);
    m->kback = calc_zalloc(ne + 1, 1);
    m->kskip = calc_zalloc(ne + 1, 1);
    m->kneut = calc_zalloc(ne + 1, 1);
    m->kib = calc_zalloc(ne + 1, 1);
    m->kxib = calc_zalloc(ne + 1, 1);
    m->kadj = calc_zalloc(ne + 1, 1);
    m->kread = calc_zalloc(ne + 1, 1);
    m->nsink = m->niv = 0;
    uint8_t *in = calc_zalloc(nb + 1, 1), *kind = calc_zalloc(nb + 1, 1);
    int64_t *val = calc_zalloc(nb + 1, sizeof *val);
    uint32_t *stack = calc_zalloc(nb + 1, sizeof *stack);
    uint32_t used = bit(m->P) | bit(m->Y) | bit(m->S) | bit(m->T) | bit(m->W), *sinkto = calc_zalloc(ne + 1, sizeof *sinkto);
    /* innermost loops first (fewest blocks), as they run most */
    uint32_t *order = calc_zalloc(nb + 1, sizeof *order), *size = calc_zalloc(nb + 1, sizeof *size);
    for (uint32_t h = 0; h < nb; h++) {
        order[h] = h;
        loop_blocks(cfg, bl, h, in, stack);
        for (uint32_t v = 0; v < nb; v++)
            size[h] += in[v];
    }
    for (uint32_t i = 1; i < nb; i++)
        for (uint32_t j = i; j > 0 && size[order[j - 1]] > size[order[j]]; j--) {
            uint32_t x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    for (uint32_t oi = 0; oi < nb && m->nk < sizeof m->K / sizeof *m->K; oi++) {
        uint32_t h = order[oi];
        bool any = false;
        loop_blocks(cfg, bl, h, in, stack);
        if (in[h] && try_iv_loop(cfg, bl, live, E, m, h, in, &used))
            continue;
        if (!m->saved || m->mt.on)
            continue;           /* (a leaf's count at Y is as cheap as note 9's test; metered: note 17 only) */
        memset(in, 0, nb + 1);
        in[h] = 1;
        size_t sp = 0;
        for (uint32_t i = 0; i < cfg->blocks[h].nin; i++) {
            uint32_t e = cfg->blocks[h].in[i], t = cfg->edges[e].from;
            if (bl->action[e].kind != BL_ACT_BACKEDGE || t == CALC_NONE)
                continue;
            any = true;
            if (!in[t]) {
                in[t] = 1;
                stack[sp++] = t;
            }
        }
        if (!any)
            continue;
        bool ok = true;
        while (sp) {
            uint32_t v = stack[--sp];
            for (uint32_t i = 0; i < cfg->blocks[v].nin; i++) {
                uint32_t u = cfg->edges[cfg->blocks[v].in[i]].from;
                if (u == CALC_NONE)
                    ok = false;
                else if (!in[u]) {
                    in[u] = 1;
                    stack[sp++] = u;
                }
            }
        }
        uint32_t named = 0, dead_on_entry = ~0u;
        for (uint32_t v = 0; v < nb && ok; v++) {
            const struct calc_block *x = &cfg->blocks[v];
            if (!in[v])
                continue;
            for (uint32_t i = x->first; i < x->first + x->n; i++) {
                uint32_t w = cfg->insns[i].s.word;
                ok &= loop_may_hold(&cfg->insns[i]);
                named |= liveness_named(w);
            }
            for (uint32_t i = 0; i < x->nin; i++) {
                const struct calc_edge *y = &cfg->edges[x->in[i]];
                if (y->from == CALC_NONE) {
                    ok = false;         /* the procedure's entry: no edge to zero K on */
                    continue;
                }
                if (in[y->from])
                    continue;
                const struct calc_block *u = &cfg->blocks[y->from];
                if (v != h || !u->n || calc_flow_of(cfg->insns[u->first + u->n - 1].s.word,
                                                    cfg->insns[u->first + u->n - 1].s.cls) == FLOW_CALL)
                    ok = false;
                else
                    dead_on_entry &= ~liveness_at_edge(cfg, live, u->first + u->n - 1, v);
            }
        }
        /* every edge into or out of L gets code: its source must be
         * patchable as paths_check requires of any edge that acts */
        for (size_t f = 0; f < ne; f++)
            sinkto[f] = CALC_EXIT;
        for (size_t f = 0; f < ne && ok; f++) {
            const struct calc_edge *x = &cfg->edges[f];
            bool from_in = x->from != CALC_NONE && in[x->from];
            bool to_in = x->to != CALC_EXIT && in[x->to];
            if (from_in == to_in || x->from == CALC_NONE)
                continue;
            ok &= block_patchable(cfg, x->from, E);
            if (!ok || !from_in)
                continue;
            /* an exit that falls out beside a branch staying in L would
             * put a trampoline on that branch's way: its adding goes to
             * the end of the block it falls to, when only it goes there */
            const struct calc_block *u = &cfg->blocks[x->from];
            const struct calc_insn *L = &cfg->insns[u->first + u->n - 1];
            if (calc_flow_of(L->s.word, L->s.cls) != FLOW_COND || x->kind != EDGE_FALL)
                continue;
            bool hot = false;
            for (uint32_t i = 0; i < u->nout; i++) {
                const struct calc_edge *y = &cfg->edges[u->out[i]];
                hot |= y->kind != EDGE_FALL && y->to != CALC_EXIT && in[y->to] &&
                       !(bl->action[u->out[i]].kind == BL_ACT_BACKEDGE && y->to == h);
            }
            if (!hot)
                continue;
            uint32_t X = x->to;
            if (X == CALC_EXIT || cfg->blocks[X].nin != 1 || !cfg->blocks[X].n || !block_patchable(cfg, X, E)) {
                ok = false;
                continue;
            }
            sinkto[f] = X;
            for (uint32_t i = cfg->blocks[X].first; i < cfg->blocks[X].first + cfg->blocks[X].n; i++)
                named |= liveness_named(cfg->insns[i].s.word);
        }
        if (!ok)
            continue;
        /* the numbers from h's reset through L */
        for (uint32_t i = 0; i < cfg->blocks[h].nin; i++) {
            uint32_t e = cfg->blocks[h].in[i];
            if (bl->action[e].kind != BL_ACT_BACKEDGE || cfg->edges[e].from == CALC_NONE)
                continue;
            memset(kind, 0, nb + 1);
            kind[h] = 1;
            val[h] = bl->action[e].reset;
            for (bool changed = true; changed;) {
                changed = false;
                for (size_t f = 0; f < ne; f++) {
                    const struct calc_edge *x = &cfg->edges[f];
                    const struct bl_action *a = &bl->action[f];
                    if (x->from == CALC_NONE || x->to == CALC_EXIT || !in[x->from] || !in[x->to] ||
                        x->to == h || a->kind != BL_ACT_ADD || !kind[x->from])
                        continue;
                    uint8_t k = kind[x->from];
                    int64_t v = val[x->from] + a->add;
                    uint8_t *to = &kind[x->to];
                    if (*to == 2 || (*to == 1 && k == 1 && val[x->to] == v))
                        continue;
                    if (*to == 0 && k == 1) {
                        *to = 1;
                        val[x->to] = v;
                    } else {
                        *to = 2;
                    }
                    changed = true;
                }
            }
            uint32_t t = cfg->edges[e].from;
            int64_t idx = val[t] + bl->action[e].add;
            if (kind[t] != 1 || idx < 0 || (uint64_t)idx >= m->npaths || !fits16(-val[t]) ||
                m->nk == sizeof m->K / sizeof *m->K)
                continue;
            /* a register no caller keeps: $1-$8, $22-$25, at, pv,
             * $16-$21, v0 (scratch_order's first 21) */
            unsigned K = R_ZERO;
            for (size_t r = 0; r < 21 && K == R_ZERO; r++)
                if (!((named | used) & 1u << scratch_order[r]) && (dead_on_entry & 1u << scratch_order[r]))
                    K = scratch_order[r];
            if (K == R_ZERO)
                break;
            unsigned k = m->nk++;
            used |= 1u << K;
            m->K[k] = K;
            m->km[k].page = R_ZERO;
            m->ivr[k] = R_ZERO;
            m->kidx[k] = idx;
            m->kv[k] = val[t];
            m->kback[e] = (uint8_t)(k + 1);
            for (size_t f = 0; f < ne; f++) {
                const struct calc_edge *x = &cfg->edges[f];
                bool from_in = x->from != CALC_NONE && in[x->from];
                bool to_in = x->to != CALC_EXIT && in[x->to];
                if (!from_in && to_in)
                    m->kzero[f] |= (uint8_t)(1u << k);
                if (from_in && !to_in && sinkto[f] == CALC_EXIT)
                    m->kflush[f] |= (uint8_t)(1u << k);
                else if (from_in && !to_in)
                    for (uint32_t i = 0; i < cfg->blocks[sinkto[f]].nout; i++)
                        m->kflush[cfg->blocks[sinkto[f]].out[i]] |= (uint8_t)(1u << k);
            }
        }
    }
    free(in);
    free(kind);
    free(val);
    free(stack);
    free(order);
    free(size);
    free(sinkto);
}

/* Whether the procedure's stack frame can grow by FRAME_SLOTS at its top
 * (path-region.h note 11): sp written only by `lda sp, -N(sp)` (the frame
 * made, N the same everywhere, a multiple of 16) and `lda sp, N(sp)` (the
 * frame dropped), each where sp is the caller's or the frame's on every
 * way in; sp read only as the base of a load or store that stays in the
 * frame ([0, N - 8]) while it is made, or at or above sp (the caller's
 * frame, the incoming arguments) while it is not, and to take an address
 * (lda) only of a local below the frame's top 48 bytes while it is made
 * (printf's va_start takes N - 48, the a0-a5 save area that va_arg walks
 * on from into the incoming arguments, which the grown frame would move);
 * no call while it is not made; a return only while it is not.  Fills
 * m->fsize and m->fstate (per instruction: sp the frame's before it). */
static bool frame_plan(const struct calc_proc *cfg, struct pmode *m)
{
    size_t nb = cfg->nblocks;
    int8_t *at = calc_zalloc(nb + 1, 1);        /* a block's sp on entry: -1 not reached */
    uint8_t *st = calc_zalloc(cfg->n + 1, 1);
    memset(at, -1, nb + 1);
    int64_t N = 0;
    bool ok = cfg->nedges > 0 && cfg->edges[0].kind == EDGE_ENTRY && cfg->edges[0].to < nb;
    if (ok)
        at[cfg->edges[0].to] = 0;
    for (bool changed = ok; changed && ok;) {
        changed = false;
        for (uint32_t b = 0; b < nb && ok; b++) {
            const struct calc_block *x = &cfg->blocks[b];
            if (at[b] < 0 || !x->n)
                continue;
            int s = at[b];
            for (uint32_t i = x->first; i < x->first + x->n && ok; i++) {
                uint32_t w = cfg->insns[i].s.word, use, def;
                st[i] = (uint8_t)s;
                const struct alpha_insn_info *in = alpha_decode(w);
                enum calc_flow f = calc_flow_of(w, cfg->insns[i].s.cls);
                if (!in || in->format == ALPHA_FMT_HW) {
                    ok = false;
                    break;
                }
                liveness_regs(w, &use, &def);
                unsigned op = w >> 26, ra = alpha_ra(w), rb = alpha_rb(w);
                int64_t d = alpha_disp16(w);
                if (def & bit(R_SP)) {
                    if (op != OP_LDA || rb != R_SP)
                        ok = false;
                    else if (!s && d < 0 && -d % 16 == 0 && (!N || N == -d))
                        N = -d, s = 1;
                    else if (s && d == N)
                        s = 0;
                    else
                        ok = false;
                    continue;
                }
                if (f == FLOW_CALL && !s)
                    ok = false;
                if (f == FLOW_RETURN && s)
                    ok = false;
                if (!(use & bit(R_SP)))
                    continue;
                if (op == 0x0b && ra == R_ZERO)
                    continue;       /* unop: ldq_u $31 */
                if ((in->format != ALPHA_FMT_MEM && in->format != ALPHA_FMT_FMEM) || rb != R_SP ||
                    (in->format == ALPHA_FMT_MEM && ra == R_SP) || op == OP_LDAH) {
                    ok = false;
                    continue;
                }
                if (op == OP_LDA)   /* an address: a local's, not one of the frame's top 48 bytes, where
                                     * a varargs procedure saves a0-a5 for va_arg to walk on into the
                                     * incoming arguments (so N - 48 is va_start's); while the frame is
                                     * made (N is known then: a later frame's size is the same one) */
                    ok &= s && d >= 0 && d < N - 48;
                else if (s)
                    ok &= d >= 0 && d + 8 <= N;
                else
                    ok &= d >= 0;
            }
            const struct calc_insn *L = &cfg->insns[x->first + x->n - 1];
            enum calc_flow lf = calc_flow_of(L->s.word, L->s.cls);
            for (uint32_t k = 0; k < x->nout && ok; k++) {
                uint32_t to = cfg->edges[x->out[k]].to;
                if (to == CALC_EXIT && s && lf != FLOW_HALT)
                    ok = false;     /* (a way out with the frame made but a halt: a tail call that keeps it) */
                if (to == CALC_EXIT)
                    continue;
                if (at[to] < 0) {
                    at[to] = (int8_t)s;
                    changed = true;
                } else if (at[to] != s) {
                    ok = false;
                }
            }
        }
    }
    ok &= N > 0 && N + FRAME_SLOTS <= 32752;
    free(at);
    if (!ok) {
        free(st);
        return false;
    }
    m->fsize = N;
    m->fstate = st;
    return true;
}

/* Whether cfg's numbering has a backedge (a loop). */
static bool has_backedge(const struct calc_proc *cfg, const struct bl_proc *bl)
{
    for (size_t e = 0; e < cfg->nedges; e++)
        if (bl->action[e].kind == BL_ACT_BACKEDGE)
            return true;
    return false;
}

/* Registers held for the trampolines (path-region.h note 16): in a
 * procedure whose P is callee-saved although it makes no call (millicode:
 * its returns keep every register, so none is dead for a trampoline's
 * scratch and each one spills its own), with a loop, that names neither
 * sp nor anything but its own blocks and leaves only by returns, the
 * entry keeps INSTRUMENT_HOLD_REGS registers it never names below sp and
 * every return takes them back; in between they are dead (live[] says so). */
static void hold_plan(const struct calc_proc *cfg, const struct bl_proc *bl, uint32_t *live, struct pmode *m)
{
    m->nhold = 0;
    if (!m->saved || m->frame || m->mt.on || !has_backedge(cfg, bl))
        return;
    uint32_t named = bit(m->P) | bit(m->Y);
    for (size_t i = 0; i < cfg->n; i++) {
        uint32_t w = cfg->insns[i].s.word;
        const struct alpha_insn_info *in = alpha_decode(w);
        enum calc_flow f = calc_flow_of(w, cfg->insns[i].s.cls);
        if (!in || in->format == ALPHA_FMT_PAL || in->format == ALPHA_FMT_HW || f == FLOW_CALL ||
            f == FLOW_INDIRECT || f == FLOW_HALT)
            return;
        if (f == FLOW_BRANCH || f == FLOW_COND) {
            uint64_t to = alpha_branch_target(cfg->insns[i].pc, w);
            if (to < cfg->start || to >= cfg->start + 4 * (uint64_t)cfg->n)
                return;
        }
        named |= liveness_named(w);
    }
    if (named & bit(R_SP))
        return;
    uint32_t held = 0;
    for (size_t i = 0; i < sizeof scratch_order / sizeof *scratch_order && m->nhold < INSTRUMENT_HOLD_REGS; i++) {
        unsigned r = scratch_order[i];
        if (r != R_RA && r != R_GP && !(named & 1u << r)) {
            m->hold[m->nhold++] = r;
            held |= 1u << r;
        }
    }
    for (size_t i = 0; i < cfg->n; i++)
        live[i] &= ~held;
}

/* The held registers (note 16) stored below sp (OP_STQ, the entry) or
 * loaded back from there (OP_LDQ, a return). */
static void put_held(struct code *c, const struct pmode *m, unsigned op)
{
    for (unsigned i = 0; i < m->nhold; i++)
        put(c, mem(op, m->hold[i], R_SP, -8 * (int)(i + 1)));
}

/* Whether cfg can keep its path register in registers (struct pmode). */
static void choose_mode(const struct calc_proc *cfg, const struct bl_proc *bl, const uint32_t *live,
                        struct pmode *m)
{
    m->leaf = m->saved = m->kept = m->known = m->addr = false;
    m->P = m->Y = m->S = m->T = m->W = R_ZERO;
    /* no increment inside and no backedge: every exit's number is known */
    m->constant = true;
    bool loops = false, calls = false, odd = false;
    for (size_t e = 0; e < cfg->nedges; e++) {
        const struct bl_action *a = &bl->action[e];
        if (a->kind == BL_ACT_ENTRY)
            m->entry_add = a->add;
        if (a->kind == BL_ACT_BACKEDGE || (a->kind == BL_ACT_ADD && a->add))
            m->constant = false;
        loops |= a->kind == BL_ACT_BACKEDGE;
    }
    bool known = m->constant;
    if (m->mt.on)
        m->constant = false;    /* a path's start must be kept (path-region.h note 5) */
    if (m->constant)
        return;
    uint32_t named = 0, needed = live[0];
    for (size_t i = 0; i < cfg->n; i++) {
        uint32_t w = cfg->insns[i].s.word;
        enum calc_flow f = calc_flow_of(w, cfg->insns[i].s.cls);
        const struct alpha_insn_info *in = alpha_decode(w);
        calls |= f == FLOW_CALL || (in && in->format == ALPHA_FMT_PAL);
        odd |= !in || in->format == ALPHA_FMT_HW;
        named |= liveness_named(w);
    }
    if (odd)
        return;
    if (!calls) {
        for (size_t e = 0; e < cfg->nedges; e++) {
            const struct calc_edge *x = &cfg->edges[e];
            if (x->to == CALC_EXIT && x->from != CALC_NONE)
                needed |= liveness_at_edge(cfg, live, cfg->blocks[x->from].first + cfg->blocks[x->from].n - 1,
                                           CALC_EXIT);
        }
        uint32_t taken = named | needed | bit(R_SP) | 1u << R_ZERO;
        unsigned spare[5], nspare = 0;
        for (size_t i = 0; i < sizeof scratch_order / sizeof *scratch_order && nspare < 5; i++)
            if (!(taken & 1u << scratch_order[i]))
                spare[nspare++] = scratch_order[i];
        if (m->mt.on && nspare >= (known && !both.on ? 3u : 5u)) {     /* (cct-region.h notes 16, 17) */
            unsigned k = 0;
            if (!known || both.on) {    /* --both: Y is the activation's slots' base, P the number
                                         * (known: the entry's scratch, its exits add to Y alone) */
                m->P = spare[k++];
                m->Y = spare[k++];
            }
            m->W = spare[k++];
            m->S = spare[k++];
            m->T = spare[k++];
            m->leaf = m->kept = true;
            m->known = known;
            return;
        }
        for (size_t i = 0; i < sizeof scratch_order / sizeof *scratch_order; i++) {
            unsigned r = scratch_order[i];
            if (taken & 1u << r)
                continue;
            if (m->P == R_ZERO)
                m->P = r;
            else if (loops && m->Y == R_ZERO)
                m->Y = r;
            taken |= 1u << r;
        }
        m->leaf = m->P != R_ZERO;
        /* counts only, no backedge: P the counter's address (note 11) */
        m->addr = m->leaf && !loops && !m->mt.on;     /* (--both too: cct-region.h note 17) */
        if (m->leaf)
            return;
        m->Y = R_ZERO;      /* a leaf whose exits keep every register (millicode): as one with calls */
    }
    /* callees keep a callee-saved register the procedure never names */
    for (unsigned r = 9; r <= 15; r++)
        if (!(named & 1u << r)) {
            if (m->P == R_ZERO) {
                m->P = r;
                m->saved = true;
            } else if (m->Y == R_ZERO && (loops || (both.on && !m->mt.on))) {  /* --both: note 17's base */
                m->Y = r;
            }
        }
}


/* The spanning tree's weights (ball-larus.h note 4): what an increment on
 * each edge would cost.  Edges whose action is there anyway (ENTRY's, the
 * edges to EXIT, a backedge's pseudo edges) cost nothing more, so they are
 * the cheapest chords; an edge inside a loop runs about 8 times as often
 * per loop around it; a fall-through edge of a conditional branch costs
 * its taken edge a trampoline too. */
static double *tree_weights(const struct calc_proc *cfg, const struct bl_proc *bl)
{
    size_t nb = cfg->nblocks;
    double *w = calc_zalloc(cfg->nedges, sizeof *w);
    unsigned *depth = calc_zalloc(nb, sizeof *depth);
    uint8_t *in = calc_zalloc(nb, sizeof *in);
    uint32_t *stack = calc_zalloc(nb + 1, sizeof *stack);
    for (size_t e = 0; e < cfg->nedges; e++) {
        if (!bl->backedge[e])
            continue;
        /* the natural loop of backedge t -> h: h and what reaches t without h */
        uint32_t t = cfg->edges[e].from, h = cfg->edges[e].to;
        memset(in, 0, nb * sizeof *in);
        in[h] = 1;
        size_t sp = 0;
        if (!in[t]) {
            in[t] = 1;
            stack[sp++] = t;
        }
        reach_back(cfg, in, stack, sp);
        for (size_t b = 0; b < nb; b++)
            depth[b] += in[b];
    }
    for (size_t e = 0; e < cfg->nedges; e++) {
        const struct calc_edge *x = &cfg->edges[e];
        if (x->from == CALC_NONE || x->to == CALC_EXIT || bl->backedge[e])
            continue;
        unsigned d = depth[x->from] < depth[x->to] ? depth[x->from] : depth[x->to];
        double f = 1;
        for (unsigned k = 0; k < d && k < 30; k++)
            f *= 8;
        w[e] = f * (x->kind == EDGE_FALL ? 3 : 2);
    }
    free(depth);
    free(in);
    free(stack);
    return w;
}

/* Jump threading over one trampoline's words [from, c->len) (path-region.h
 * note 8): a branch to an unconditional `br` inside it goes straight to
 * that br's target, and an unconditional br to a return (a jump that
 * writes no register) becomes that return; so a trampoline's hot path
 * ends in one taken branch where its cold paths join before it. */
static void thread_branches(struct code *c, size_t from)
{
    uint64_t lo = c->base + from, hi = c->base + c->len;
    for (size_t at = from; at + 4 <= c->len; at += 4) {
        uint32_t w;
        memcpy(&w, c->bytes + at, 4);
        unsigned op = w >> 26;
        if (op < OP_BR || op == OP_BSR)
            continue;
        uint64_t pc = c->base + at;
        for (int hop = 0; hop < 8; hop++) {
            uint64_t to = alpha_branch_target(pc, w);
            if (to < lo || to >= hi || to == pc)
                break;
            uint32_t x;
            memcpy(&x, c->bytes + (to - c->base), 4);
            if (op == OP_BR && ((w >> 21) & 31) == R_ZERO && x >> 26 == OP_JMP && ((x >> 21) & 31) == R_ZERO) {
                w = x;
                break;
            }
            if (x >> 26 != OP_BR || ((x >> 21) & 31) != R_ZERO || alpha_branch_target(to, x) == to)
                break;
            w = branch_word(op, (w >> 21) & 31, pc, alpha_branch_target(to, x), &c->out_of_reach);
        }
        memcpy(c->bytes + at, &w, 4);
    }
}

/* Which blocks' path register is known on entry (path-region.h note 8):
 * forward over the CFG from ENTRY's r = add, a backedge's r = reset, an
 * add moving a known number; where known numbers meet unequal, or an
 * unknown one, not known.  kind[b]: 0 not reached, 1 known (val[b]),
 * 2 not known. */
static void known_numbers(const struct calc_proc *cfg, const struct bl_proc *bl, uint8_t *kind, int64_t *val)
{
    memset(kind, 0, cfg->nblocks);
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t e = 0; e < cfg->nedges; e++) {
            const struct calc_edge *x = &cfg->edges[e];
            const struct bl_action *a = &bl->action[e];
            if (x->to == CALC_EXIT || a->kind == BL_ACT_UNREACHABLE || a->kind == BL_ACT_EXIT)
                continue;
            uint8_t k;
            int64_t v = 0;
            if (a->kind == BL_ACT_ENTRY) {
                k = 1;
                v = a->add;
            } else if (a->kind == BL_ACT_BACKEDGE) {
                k = 1;
                v = a->reset;
            } else if (x->from == CALC_NONE) {
                continue;
            } else {
                k = kind[x->from];
                v = val[x->from] + a->add;
            }
            uint8_t *to = &kind[x->to];
            if (!k || *to == 2 || (*to == 1 && k == 1 && val[x->to] == v))
                continue;
            if (*to == 0 && k == 1) {
                *to = 1;
                val[x->to] = v;
            } else {
                *to = 2;
            }
            changed = true;
        }
    }
}

/* Emits every trampoline of one procedure and patches its instructions. */
static void paths_emit(struct path_out *po, const struct calc_proc *cfg, const struct bl_proc *bl, uint64_t E,
                       struct pmode *m, const uint32_t *live)
{
    struct code *c = po->c;
    uint64_t t;
    uint8_t *kind = calc_zalloc(cfg->nblocks + 1, 1);
    int64_t *val = calc_zalloc(cfg->nblocks + 1, sizeof *val);
    known_numbers(cfg, bl, kind, val);
    m->rk = false;
    /* the entry */
    if (m->constant)
        goto block_ends;
    align_tramp(c);
    t = here(c);
    const struct bl_action *entry = NULL;
    for (size_t k = 0; k < cfg->nedges; k++)
        if (cfg->edges[k].kind == EDGE_ENTRY)
            entry = &bl->action[k];
    struct bl_action push = {.kind = BL_ACT_ENTRY, .add = entry ? entry->add : 0};
    size_t ei = (E - cfg->start) / 4;
    m->fbody = false;           /* (frame mode: sp is the caller's at the entry, frame_plan) */
    spill_below = m->frame ? FRAME_SLOTS : 8 * (int)m->nhold;
    put_held(c, m, OP_STQ);                     /* (note 16: held up to each return) */
    put_edge_code(c, m, &push, live[ei]);
    put(c, cfg->insns[ei].s.word);
    put_branch(c, OP_BR, R_ZERO, E + 4);
    put_stubs(c, m);
    thread_branches(c, (size_t)(t - c->base));
    add_patch(po, E, t, OP_BR, R_ZERO);
block_ends:
    /* the block ends */
    for (uint32_t b = 0; b < cfg->nblocks; b++) {
        const struct calc_block *x = &cfg->blocks[b];
        bool any = false;
        for (uint32_t i = 0; i < x->nout; i++)
            if (!edge_trivial(m, &bl->action[x->out[i]]))
                any = true;
        if (!x->n)
            continue;
        uint32_t li = x->first + x->n - 1;
        const struct calc_insn *L = &cfg->insns[li];
        uint32_t w = L->s.word;
        uint64_t pc = L->pc, next = pc + 4;
        bool twice = calls_twice(po, pc, w);
        if (!any && !twice)
            continue;
        m->rk = kind[b] == 1;
        m->rv = val[b];
        unsigned ra = (w >> 21) & 31, rb = (w >> 16) & 31;
        enum calc_flow f = calc_flow_of(w, L->s.cls);
        if (m->frame) {
            /* sp where the edge's code runs: after L when L falls through */
            uint32_t use, def;
            liveness_regs(w, &use, &def);
            m->fbody = m->fstate[li] ^ (f == FLOW_NONE && (def & bit(R_SP)));
            spill_below = m->fbody ? 0 : FRAME_SLOTS;
        }
        const struct bl_action *a = &bl->action[x->out[0]];
        uint32_t after = liveness_at_edge(cfg, live, li, cfg->edges[x->out[0]].to);
        align_tramp(c);
        t = here(c);
        unsigned patch_op = OP_BR, patch_ra = R_ZERO;
        struct site *cs = f == FLOW_CALL && po->sites ? site_at(po, pc) : NULL;
        if (cs && twice) {
            /* --both (cct-region.h note 10): its CCT trampoline makes the
             * call and comes back here after either return */
            cs->resume = t;
            put_unwind_paths(c, after);
            put_edge_code(c, m, a, after);
            put_const(c, ra, next);
            put_branch(c, OP_BR, R_ZERO, next);
            put_stubs(c, m);
            continue;
        }
        if (cs) {
            /* --both: the edge's action, then the call's CCT trampoline */
            put_edge_code(c, m, a, live[li]);
            if (po->nfix == po->fixcap) {
                po->fixcap = po->fixcap ? 2 * po->fixcap : 256;
                po->fix = realloc(po->fix, po->fixcap * sizeof *po->fix);
                if (!po->fix)
                    abort();
            }
            po->fix[po->nfix++] = (struct site_fix){put_fwd(c, OP_BR, R_ZERO), (unsigned)(cs - po->sites)};
            cs->from_paths = true;
            put_stubs(c, m);
            add_patch(po, pc, t, OP_BR, R_ZERO);
            continue;
        }
        switch (f) {
        case FLOW_COND: {
            int fe = edge_of(cfg, b, EDGE_FALL), te = fe;
            for (uint32_t i = 0; i < x->nout; i++)
                if (cfg->edges[x->out[i]].kind != EDGE_FALL)
                    te = (int)x->out[i];
            const struct bl_action *fall = &bl->action[fe], *taken = &bl->action[te];
            uint32_t fall_live = liveness_at_edge(cfg, live, li, cfg->edges[fe].to);
            uint32_t taken_live = liveness_at_edge(cfg, live, li, cfg->edges[te].to);
            if (edge_trivial(m, fall)) {
                /* only the taken edge acts: the branch itself goes to the trampoline */
                patch_op = w >> 26;
                patch_ra = ra;
                put_edge_code(c, m, taken, taken_live);
                put_branch(c, OP_BR, R_ZERO, alpha_branch_target(pc, w));
            } else if (m->kback && m->kback[te]) {
                /* a loop counted in a register (path-region.h note 9): its
                 * backedge falls through the trampoline, the exit is taken
                 * (the branch inverted: op ^ 4 for every conditional one) */
                struct fixup to_fall = put_fwd(c, (w >> 26) ^ 4u, ra);
                put_edge_code(c, m, taken, taken_live);
                put_branch(c, OP_BR, R_ZERO, alpha_branch_target(pc, w));
                land(c, to_fall);
                put_edge_code(c, m, fall, fall_live);
                put_branch(c, OP_BR, R_ZERO, next);
            } else if (edge_trivial(m, taken)) {
                put_branch(c, w >> 26, ra, alpha_branch_target(pc, w));
                put_edge_code(c, m, fall, fall_live);
                put_branch(c, OP_BR, R_ZERO, next);
            } else {
                struct fixup to_taken = put_fwd(c, w >> 26, ra);
                put_edge_code(c, m, fall, fall_live);
                put_branch(c, OP_BR, R_ZERO, next);
                land(c, to_taken);
                put_edge_code(c, m, taken, taken_live);
                put_branch(c, OP_BR, R_ZERO, alpha_branch_target(pc, w));
            }
            break;
        }
        case FLOW_BRANCH:
            put_edge_code(c, m, a, after | bit(ra));
            if (ra != R_ZERO)
                put_const(c, ra, next);
            put_branch(c, OP_BR, R_ZERO, alpha_branch_target(pc, w));
            break;
        case FLOW_CALL:
            if (twice) {
                /* called from here, so that both returns come back here
                 * (path-region.h note 6); ra as the original's after */
                put_branch(c, OP_BSR, ra, alpha_branch_target(pc, w));
                put_unwind_paths(c, after);
                put_edge_code(c, m, a, after);
                put_const(c, ra, next);
                put_branch(c, OP_BR, R_ZERO, next);
                break;
            }
            put_edge_code(c, m, a, live[li]);
            if (w >> 26 == OP_BSR) {
                put_const(c, ra, next);
                put_branch(c, OP_BR, R_ZERO, alpha_branch_target(pc, w));
            } else if (rb != ra) {
                put_const(c, ra, next);
                put(c, (w & ~(31u << 21)) | (uint32_t)R_ZERO << 21);
            } else {
                put(c, w);
                put_const(c, ra, next);
                put_branch(c, OP_BR, R_ZERO, next);
            }
            break;
        case FLOW_RETURN:
            put_edge_code(c, m, a, live[li]);
            put_held(c, m, OP_LDQ);
            put(c, w);
            break;
        case FLOW_HALT:
            put_edge_code(c, m, a, live[li]);
            put(c, w);
            put_branch(c, OP_BR, R_ZERO, next);
            break;
        default:                /* FLOW_NONE: falls into a block others branch to */
            put(c, w);
            put_edge_code(c, m, a, after);
            put_branch(c, OP_BR, R_ZERO, next);
            break;
        }
        put_stubs(c, m);
        thread_branches(c, (size_t)(t - c->base));
        add_patch(po, pc, t, patch_op, patch_ra);
    }
    /* exits moved to a block's first instruction (path-region.h note 10) */
    for (unsigned i = 0; i < m->nsink; i++) {
        const struct calc_insn *F = &cfg->insns[m->sink[i].insn];
        m->rk = false;
        if (m->frame) {
            m->fbody = m->fstate[m->sink[i].insn];
            spill_below = m->fbody ? 0 : FRAME_SLOTS;
        }
        align_tramp(c);
        t = here(c);
        put_iv_fixup(c, m, m->sink[i].k, m->sink[i].ib, live[m->sink[i].insn]);
        put(c, F->s.word);
        put_branch(c, OP_BR, R_ZERO, F->pc + 4);
        put_stubs(c, m);
        thread_branches(c, (size_t)(t - c->base));
        add_patch(po, F->pc, t, OP_BR, R_ZERO);
    }
    m->rk = false;
    spill_below = 0;
    free(kind);
    free(val);
    free(m->fstate);
    m->fstate = NULL;
    free(m->kzero);
    free(m->kflush);
    free(m->kback);
    free(m->kskip);
    free(m->kneut);
    free(m->kib);
    free(m->kxib);
    free(m->kadj);
    free(m->kread);
    m->kzero = m->kflush = m->kback = m->kskip = m->kneut = m->kib = m->kxib = m->kread = NULL;
    m->kadj = NULL;
    m->nk = m->nsink = 0;
}

/* Ends the segment with the path table, the patches and the trailer
 * (path-region.h); then whether the segment can be written: -1 with err
 * set when a number did not fit (bad), a trampoline is out of a branch's
 * reach, or the segment ends past the image area. */
static int put_path_table(struct code *c, const struct path_table_proc *table, size_t nsyms,
                          const struct path_out *po, bool bad, const char *in, struct ap_err *err)
{
    for (size_t k = 0; k < nsyms; k++)
        for (size_t b = 0; b < sizeof table[k] / 4; b++)
            put(c, ((const uint32_t *)&table[k])[b]);
    for (size_t k = 0; k < po->npatches; k++) {
        put64(c, po->patches[k].pc);
        put64(c, po->patches[k].word);
    }
    put64(c, PATH_TABLE_MAGIC);
    put64(c, nsyms);
    put64(c, po->npatches);
    if (bad)
        return ap_err_set(err, "%s: a path number or counter offset does not fit 31 bits; this instrumenter "
                          "cannot count it", in);
    return segment_fits(c, in, err);
}

/* --hash-slots N out of range: err set, -1. */
static int hash_slots_bad(uint64_t hash_slots, struct ap_err *err)
{
    if (hash_slots && (hash_slots < PATH_HASH_MIN_SLOTS || hash_slots > PATH_HASH_MAX_SLOTS ||
                       (hash_slots & (hash_slots - 1))))
        return ap_err_set(err, "--hash-slots %llu: give 0 (no hash table) or a power of two from %d to %d",
                          (unsigned long long)hash_slots, PATH_HASH_MIN_SLOTS, PATH_HASH_MAX_SLOTS);
    return 0;
}

/* A hashed procedure's path register (path-region.h notes 14, 15): a
 * leaf's P, a callee-saved P, or memory; no counters' address. */
static void hashed_mode(struct pmode *m)
{
    m->constant = m->kept = m->known = m->addr = false;
    m->Y = m->S = m->T = m->W = R_ZERO;
    if (m->npaths >= PATH_POISON) {     /* (a poisoned P would be a number) */
        m->leaf = m->saved = false;
        m->P = R_ZERO;
    }
}

/* The hashing state back to off, for the next image. */
static void hashing_end(void)
{
    free(hashing.fix);
    memset(&hashing, 0, sizeof hashing);
    hashing.tmp = R_ZERO;
}

int instrument_paths(const char *in, const char *out, int event, uint64_t hash_slots,
                     struct instrument_path_stats *st, struct ap_err *err)
{
    struct meter mt = {.on = event >= 0};
    if (hash_slots_bad(hash_slots, err))
        return -1;
    if (mt.on) {
        if (event == PMU_EV_CYCLES || event >= PMU_EV_COUNT)
            return ap_err_set(err, "the event beside cycles cannot be cycles itself; name another (%s)",
                              PMU_EVENT_LIST_TEXT);
        mt.ev_off = event == PMU_EV_RETIRED ? PMU_RETIRED_OFF : (int)PMU_TOTALS_OFF(event);
    }
    uint64_t max_counters = mt.on ? PATH_MAX_METERED : PATH_MAX_COUNTERS;
    hashing.slots = hash_slots;
    hashing.nfix = 0;
    if (hash_slots)     /* room always left for the smallest table (path-region.h note 14) */
        max_counters -= (PATH_HASH_TABLE_SLOTS(PATH_HASH_MIN_SLOTS) * PATH_HASH_SLOT_SIZE + 128) / slot_size(&mt);
    unsigned nhashed = 0;
    struct image_header hdr;
    if (image_check_file(in, &hdr, err))
        return -1;
    struct elf_in e = {0};
    struct symtab *sy = NULL;
    struct code c = {0};
    struct path_out po = {.c = &c, .e = &e};
    struct path_table_proc *table = NULL;
    struct proc *procs = NULL;          /* for the runtime's (cct-region.h note 15) */
    unsigned nprocs = 0;
    int symtab, rc = -1;
    memset(st, 0, sizeof *st);

    if (read_file(in, &e, err))
        goto done;
    if (find_section(&e, INSTRUMENT_SECTION) >= 0) {
        ap_err_set(err, "%s: already instrumented; instrument the original image", in);
        goto done;
    }
    if (collect_procs(&e, &procs, &nprocs, &symtab, err, in))
        goto done;
    if (symtab_open(in, &sy, err))
        goto done;
    uint64_t end = hdr.bss_end;
    for (unsigned i = 0; i < e.eh->e_phnum; i++)
        if (e.ph[i].p_type == PT_LOAD && e.ph[i].p_paddr + e.ph[i].p_memsz > end)
            end = e.ph[i].p_paddr + e.ph[i].p_memsz;
    c.base = align_up(end, 64);
    size_t nsyms;
    const struct symbol *syms = symtab_symbols(sy, &nsyms);
    table = calloc(nsyms + 1, sizeof *table);
    uint64_t counters = 0;
    bool bad = false;
    for (size_t k = 0; k < nsyms && po.ntwice < sizeof po.twice / sizeof *po.twice; k++)
        if (returns_twice(syms[k].name))
            po.twice[po.ntwice++] = syms[k].start;
    bool sp_tags = false;       /* any direct call to one (path-region.h note 6) */
    for (size_t k = 0; k < nsyms && po.ntwice && !sp_tags; k++) {
        uint64_t from = syms[k].start, to = symtab_symbol_end(sy, &syms[k]);
        for (uint64_t pc = from; pc + 4 <= to && !sp_tags; pc += 4) {
            const uint8_t *w = at_addr(&e, pc, 4);
            uint32_t word;
            if (!w)
                break;
            memcpy(&word, w, 4);
            sp_tags = calls_twice(&po, pc, word);
        }
    }
    for (size_t k = 0; k < nsyms; k++) {
        struct path_table_proc *tp = &table[k];
        *tp = (struct path_table_proc){.start = syms[k].start, .status = PATH_SKIP_NUMBERING};
        struct calc_proc cfg;
        struct bl_proc bl;
        if (path_plan_number(sy, &syms[k], NULL, 0, &cfg, &bl))
            continue;
        tp->npaths = bl.npaths;
        uint64_t E = 0;
        bool runtime = runtime_entry(procs, nprocs, syms[k].start);
        enum path_skip why = runtime ? PATH_SKIP_RUNTIME : paths_check(&cfg, &bl, syms[k].start, &E);
        bool hashed = why == PATH_INSTRUMENTED && bl.status == BL_TOO_MANY;     /* (paths_check: hashing is on) */
        tp->metrics = mt.on && !hashed ? (uint32_t)event + 1 : 0;
        if (why == PATH_INSTRUMENTED && (hashed ? nhashed >= PATH_HASH_MAX_PROCS : counters + bl.npaths > max_counters))
            why = PATH_SKIP_NO_ROOM;
        tp->status = why;
        if (why == PATH_INSTRUMENTED) {
            tp->instrumented = hashed ? 1 | PATH_HASHED : 1;
            tp->base = hashed ? nhashed : (uint32_t)counters;
            size_t before = po.npatches;
            /* the same numbers, increments placed where they cost least */
            double *wt = tree_weights(&cfg, &bl);
            bl_free(&bl);
            bl_number(&bl, &cfg, wt);
            free(wt);
            uint32_t *live = calc_zalloc(cfg.n, sizeof *live);
            liveness_compute(&cfg, live);
            struct pmode m = {.npaths = bl.npaths, .base = tp->base, .sp_tags = sp_tags, .mt = mt, .bad = &bad};
            if (hashed)
                m.mt = (struct meter){0};       /* counts only (path-region.h note 14) */
            choose_mode(&cfg, &bl, live, &m);
            if (hashed)
                hashed_mode(&m);
            size_t nframe = 0;
            uint32_t *frame_at = NULL;  /* the instructions that make and drop the frame (note 11) */
            if (!m.constant && !m.leaf && !m.mt.on && !proc_calls_twice(&po, &cfg) && frame_plan(&cfg, &m)) {
                m.frame = true;
                m.fmem = !m.saved;
                m.addr = m.saved && !has_backedge(&cfg, &bl) && !hashed;     /* (a hashed count needs the number) */
                frame_at = calc_zalloc(cfg.n + 1, sizeof *frame_at);
                for (size_t i = 0; i < cfg.n; i++) {
                    uint32_t w = cfg.insns[i].s.word;
                    int64_t d = alpha_disp16(w);
                    if (w >> 26 == OP_LDA && alpha_ra(w) == R_SP && alpha_rb(w) == R_SP &&
                        (d == m.fsize || d == -m.fsize)) {
                        cfg.insns[i].s.word = mem(OP_LDA, R_SP, R_SP, (int)(d + (d < 0 ? -1 : 1) * FRAME_SLOTS));
                        frame_at[nframe++] = (uint32_t)i;
                    }
                }
            }
            hold_plan(&cfg, &bl, live, &m);
            st->held_procs += m.nhold > 0;
            if (!m.constant && !hashed)        /* (notes 9 and 10; metered: 17) */
                choose_loop_regs(&cfg, &bl, live, E, &m);
            if (!m.constant && !m.saved && proc_calls_twice(&po, &cfg)) {
                /* its path register in memory would not come back with longjmp */
                free(live);
                *tp = (struct path_table_proc){.start = syms[k].start, .npaths = bl.npaths,
                                               .status = PATH_SKIP_SETJMP, .metrics = tp->metrics};
                st->skipped[PATH_SKIP_SETJMP]++;
                bl_free(&bl);
                calc_proc_free(&cfg);
                continue;
            }
            st->leaf_procs += m.leaf;
            st->constant_procs += m.constant;
            st->saved_procs += m.saved;
            count_loops(st, &m);
            hashing.on = hashed;
            hashing.id = tp->base;
            paths_emit(&po, &cfg, &bl, E, &m, live);
            hashing.on = false;
            hashing.tmp = R_ZERO;
            for (size_t k = 0; k < nframe; k++)
                patch_word(&po, before, cfg.insns[frame_at[k]].pc, cfg.insns[frame_at[k]].s.word);
            free(frame_at);
            st->frame_procs += m.frame;
            free(live);
            if (hashed)
                nhashed++;
            else
                counters += bl.npaths;
            st->hashed_procs += hashed;
            st->procs++;
            st->patched += po.npatches - before;
        } else if (bl.npaths) {
            st->skipped[why]++;
        }
        bl_free(&bl);
        calc_proc_free(&cfg);
    }
    st->counters = counters;
    if (nhashed)
        st->hash_slots = hash_geometry(&c, counters, slot_size(&mt), PATH_STACK5_OFFSET);
    /* the path table, the patches, the trailer (path-region.h) */
    while (here(&c) % 8)
        put(&c, 0);
    if (put_path_table(&c, table, nsyms, &po, bad, in, err))
        goto done;
    st->region_addr = c.base;
    st->region_size = c.len;
    if (write_instrumented(&e, &hdr, &c, c.base, symtab, out, err))
        goto done;
    rc = 0;
done:
    hashing_end();
    if (sy)
        symtab_close(sy);
    free(e.buf);
    free(table);
    free(procs);
    free(po.patches);
    free(c.bytes);
    return rc;
}

/* ---- --both: paths per calling context (cct-region.h notes 10-14) ---- */

/* The CCT procedure (index in procs) whose entry is start, or -1. */
static int proc_at_entry(const struct proc *procs, unsigned nprocs, uint64_t start)
{
    int i = proc_of(procs, nprocs, start);
    return i >= 0 && procs[i].entry == start ? i : -1;
}

int instrument_both(const char *in, const char *out, int event, uint64_t hash_slots, struct instrument_stats *st,
                    struct instrument_path_stats *ps, struct ap_err *err)
{
    struct meter mt = {.on = event >= 0};     /* --both --metrics (cct-region.h note 16) */
    if (hash_slots_bad(hash_slots, err))
        return -1;
    if (mt.on) {
        if (event == PMU_EV_CYCLES || event >= PMU_EV_COUNT)
            return ap_err_set(err, "the event beside cycles cannot be cycles itself; name another (%s)",
                              PMU_EVENT_LIST_TEXT);
        mt.ev_off = event == PMU_EV_RETIRED ? PMU_RETIRED_OFF : (int)PMU_TOTALS_OFF(event);
    }
    uint64_t max_counters = mt.on ? PATH_BOTH_MAX_METERED : PATH_BOTH_MAX_COUNTERS;
    /* hashed per context, counts only (path-region.h note 15) */
    hashing.slots = mt.on ? 0 : hash_slots;
    hashing.nfix = 0;
    if (hashing.slots)  /* room always left for the smallest table */
        max_counters -= (PATH_HASH_TABLE_SLOTS(PATH_HASH_MIN_SLOTS) * PATH_HASH_SLOT_SIZE + 128) / 8;
    unsigned nhashed = 0;
    struct image_header hdr;
    if (image_check_file(in, &hdr, err))
        return -1;
    struct elf_in e = {0};
    struct proc *procs = NULL;
    struct site *sites = NULL;
    struct symtab *sy = NULL;
    struct code c = {0};
    struct path_out po = {.c = &c, .e = &e};
    struct path_table_proc *table = NULL;
    uint64_t *tramp = NULL;
    unsigned nprocs = 0, nsites = 0;
    int symtab, rc = -1;
    bool bad = false;
    memset(st, 0, sizeof *st);
    memset(ps, 0, sizeof *ps);

    if (read_file(in, &e, err))
        goto done;
    if (find_section(&e, INSTRUMENT_SECTION) >= 0) {
        ap_err_set(err, "%s: already instrumented; instrument the original image", in);
        goto done;
    }
    if (collect_procs(&e, &procs, &nprocs, &symtab, err, in))
        goto done;
    uint64_t lookup = 0;
    for (unsigned i = 0; i < nprocs; i++) {
        if (!strcmp(procs[i].name, INSTRUMENT_LOOKUP))
            lookup = procs[i].entry;
    }
    if (!lookup) {
        ap_err_set(err, "%s: no %s: the image was linked without the alphaprof runtime's CCT slow path "
                   "(workloads/runtime/cct.c); rebuild it with make", in, INSTRUMENT_LOOKUP);
        goto done;
    }
    collect_sites(&e, procs, nprocs, &sites, &nsites, &st->skipped_sites);
    for (unsigned i = 1; i < nsites; i++)
        if (sites[i].pc <= sites[i - 1].pc) {
            ap_err_set(err, "%s: executable sections out of address order; this instrumenter cannot do --both", in);
            goto done;
        }
    if (symtab_open(in, &sy, err))
        goto done;
    uint64_t end = hdr.bss_end;
    for (unsigned i = 0; i < e.eh->e_phnum; i++)
        if (e.ph[i].p_type == PT_LOAD && e.ph[i].p_paddr + e.ph[i].p_memsz > end)
            end = e.ph[i].p_paddr + e.ph[i].p_memsz;
    c.base = align_up(end, 64);

    /* the procedure table (npaths filled in below), the CCT stub and unwinder */
    put64(&c, CCT_PROCS_MAGIC);
    put64(&c, nprocs);
    put64(&c, CCT_BOTH | (mt.on ? CCT_BOTH_METERED : 0));
    size_t table_at = c.len;
    for (unsigned i = 0; i < nprocs; i++) {
        put64(&c, procs[i].entry);
        put64(&c, procs[i].alt_entry);
        put(&c, procs[i].nsites);
        put(&c, (procs[i].leaf ? CCT_PROC_LEAF : 0) | (i + 1) << CCT_REC_PROC_SHIFT);
        put64(&c, 0);
    }
    while (here(&c) % 16)
        put(&c, 0);
    uint64_t stub = here(&c);
    put_stub(&c, c.base, lookup, false);
    uint64_t unwind = here(&c);
    put_unwind(&c, false);

    /* the paths: as instrument_paths, counting per context where it can */
    both.on = true;
    both.slot = (int)slot_size(&mt);
    po.sites = sites;
    po.nsites = nsites;
    size_t nsyms;
    const struct symbol *syms = symtab_symbols(sy, &nsyms);
    table = calloc(nsyms + 1, sizeof *table);
    uint64_t counters = 0;
    for (size_t k = 0; k < nsyms && po.ntwice < sizeof po.twice / sizeof *po.twice; k++)
        if (returns_twice(syms[k].name))
            po.twice[po.ntwice++] = syms[k].start;
    bool sp_tags = false;
    for (unsigned i = 0; i < nsites && !sp_tags; i++)
        sp_tags = calls_twice(&po, sites[i].pc, sites[i].insn);
    for (size_t k = 0; k < nsyms; k++) {
        struct path_table_proc *tp = &table[k];
        *tp = (struct path_table_proc){.start = syms[k].start, .status = PATH_SKIP_NUMBERING};
        struct calc_proc cfg;
        struct bl_proc bl;
        if (path_plan_number(sy, &syms[k], NULL, 0, &cfg, &bl))
            continue;
        tp->npaths = bl.npaths;
        uint64_t E = 0;
        bool runtime = runtime_entry(procs, nprocs, syms[k].start);
        enum path_skip why = runtime ? PATH_SKIP_RUNTIME : paths_check(&cfg, &bl, syms[k].start, &E);
        tp->metrics = mt.on ? (uint32_t)event + 1 : 0;
        bool hashed = why == PATH_INSTRUMENTED && bl.status == BL_TOO_MANY;     /* (note 15: hashing on) */
        if (hashed && bl.npaths >= PATH_BOTH_HASH_MAX_NPATHS)
            why = PATH_SKIP_TOO_MANY;   /* (its number and a context do not fit a key) */
        else if (why == PATH_INSTRUMENTED &&
                 (hashed ? nhashed >= PATH_HASH_MAX_PROCS : counters + bl.npaths > max_counters))
            why = PATH_SKIP_NO_ROOM;
        tp->status = why;
        if (why != PATH_INSTRUMENTED) {
            if (bl.npaths)
                ps->skipped[why]++;
            bl_free(&bl);
            calc_proc_free(&cfg);
            continue;
        }
        double *wt = tree_weights(&cfg, &bl);
        bl_free(&bl);
        bl_number(&bl, &cfg, wt);
        free(wt);
        uint32_t *live = calc_zalloc(cfg.n, sizeof *live);
        liveness_compute(&cfg, live);
        struct pmode m = {.npaths = bl.npaths, .base = hashed ? nhashed : (uint32_t)counters, .sp_tags = sp_tags,
                          .mt = mt, .bad = &bad};
        choose_mode(&cfg, &bl, live, &m);
        if (hashed)
            hashed_mode(&m);
        /* counts only: frame mode (path-region.h note 11), as instrument_paths plans it; a hashed
         * procedure's in memory only (P in its frame, no counters' base: note 15) */
        size_t nframe = 0;
        uint32_t *frame_at = NULL;
        if (!m.constant && !m.leaf && !m.mt.on && (!m.saved || (m.Y != R_ZERO && !hashed)) &&
            !proc_calls_twice(&po, &cfg) && frame_plan(&cfg, &m)) {
            m.frame = true;
            m.fmem = !m.saved;  /* P in the frame's first slot, the counters' base in its second */
            m.addr = m.saved && !has_backedge(&cfg, &bl);
            if (m.addr)
                m.Y = R_ZERO;   /* P is the counter's address */
            frame_at = calc_zalloc(cfg.n + 1, sizeof *frame_at);
            for (size_t i = 0; i < cfg.n; i++) {
                uint32_t w = cfg.insns[i].s.word;
                int64_t d = alpha_disp16(w);
                if (w >> 26 == OP_LDA && alpha_ra(w) == R_SP && alpha_rb(w) == R_SP && (d == m.fsize || d == -m.fsize)) {
                    cfg.insns[i].s.word = mem(OP_LDA, R_SP, R_SP, (int)(d + (d < 0 ? -1 : 1) * FRAME_SLOTS));
                    frame_at[nframe++] = (uint32_t)i;
                }
            }
        }
        /* counts only: the counters' base found once an activation (cct-region.h note 17) */
        m.cb = !mt.on && !m.constant && !hashed &&
               ((m.leaf && (m.addr || m.Y != R_ZERO)) || (m.saved && (m.addr || m.Y != R_ZERO)) || m.fmem);
        if (!m.constant && !m.saved && proc_calls_twice(&po, &cfg)) {
            free(live);
            tp->status = PATH_SKIP_SETJMP;
            ps->skipped[PATH_SKIP_SETJMP]++;
            bl_free(&bl);
            calc_proc_free(&cfg);
            continue;
        }
        /* per context when its records can hold its counters within one
         * lda of the record (note 12) */
        int ci = proc_at_entry(procs, nprocs, syms[k].start);
        int64_t off = ci >= 0 ? (int64_t)cct_record_size(procs[ci].nsites) : 0;
        bool flags_fit = ci >= 0 && ((int64_t)ci + 1) << CCT_REC_PROC_SHIFT <= 0x7fff;
        both.ctx = flags_fit && !hashed &&
                   bl.npaths <= (mt.on ? CCT_BOTH_MAX_CTX_METERED : CCT_BOTH_MAX_CTX_PATHS) &&
                   off + slot_size(&mt) * (int64_t)bl.npaths <= 0x7fff;
        hashing.ctx = flags_fit && hashed;     /* in the hash table keyed by its record (note 15) */
        both.ctx_off = (int)off;
        both.leaf = ci >= 0 && procs[ci].leaf;
        both.ctx_flags = (both.leaf ? CCT_REC_LEAF : 0) | (ci + 1) << CCT_REC_PROC_SHIFT;
        if (both.ctx) {
            /* in 8-byte words: a metered slot is 4 (cct-region.h note 16) */
            uint32_t np = (uint32_t)(bl.npaths * (uint64_t)slot_size(&mt) / 8);
            memcpy(c.bytes + table_at + (size_t)ci * sizeof(struct cct_proc) + 24, &np, 4);
            ps->context_procs++;
        }
        tp->instrumented = 1 | (both.ctx || hashing.ctx ? PATH_PER_CONTEXT : 0) | (hashed ? PATH_HASHED : 0);
        tp->base = m.base;
        ps->context_procs += hashing.ctx;
        size_t before = po.npatches;
        ps->leaf_procs += m.leaf;
        ps->constant_procs += m.constant;
        ps->saved_procs += m.saved;
        hold_plan(&cfg, &bl, live, &m);
        ps->held_procs += m.nhold > 0;
        /* loops in registers count at Y (path-region.h notes 9, 10); a
         * metered kept leaf's by an induction variable meter at their
         * ways out (note 17) */
        if (m.cb || (m.mt.on && m.kept && !m.constant && !hashed))
            choose_loop_regs(&cfg, &bl, live, E, &m);
        count_loops(ps, &m);
        hashing.on = hashed;
        hashing.id = m.base;
        paths_emit(&po, &cfg, &bl, E, &m, live);
        hashing.on = hashing.ctx = false;
        hashing.tmp = R_ZERO;
        for (size_t k2 = 0; k2 < nframe; k2++)
            patch_word(&po, before, cfg.insns[frame_at[k2]].pc, cfg.insns[frame_at[k2]].s.word);
        free(frame_at);
        ps->frame_procs += m.frame;
        free(live);
        if (hashed)
            nhashed++;
        else
            counters += bl.npaths;
        ps->hashed_procs += hashed;
        ps->procs++;
        ps->patched += po.npatches - before;
        bl_free(&bl);
        calc_proc_free(&cfg);
    }
    if (nhashed)                /* up to the sp stack, or past it when no setjmp call uses it (note 15) */
        ps->hash_slots = hash_geometry(&c, counters, slot_size(&mt), sp_tags ? PATH_BOTH_STACK5_OFFSET
                                                                             : CCT_BOTH_PATHS_SIZE);
    both.on = both.ctx = both.leaf = false;
    ps->counters = counters;

    /* the calls: a CCT trampoline each (counts only); a leaf's keeps its
     * record in leaf_rec for the leaf's paths */
    both.calls = true;
    tramp = calloc(nsites + 1, sizeof *tramp);
    for (unsigned i = 0; i < nsites; i++) {
        while (here(&c) % 16)
            put(&c, UNOP);
        tramp[i] = here(&c);
        struct tramp_calls tc;
        put_trampoline(&c, &sites[i], procs, nprocs, stub, unwind, false, &tc);
        sites[i].call = tc.pushed;
        sites[i].call_unpushed = tc.unpushed;
        sites[i].call_leaf = tc.leaf;
        sites[i].call_leaf_slow = tc.leaf_slow;
        sites[i].call_counted = tc.counted;
        if (!sites[i].from_paths)
            add_patch(&po, sites[i].pc, tramp[i], OP_BR, R_ZERO);
    }
    both.calls = false;
    for (size_t k = 0; k < po.nfix; k++) {
        uint32_t w = branch_word(po.fix[k].f.op, po.fix[k].f.ra, c.base + po.fix[k].f.at, tramp[po.fix[k].site],
                                 &c.out_of_reach);
        memcpy(c.bytes + po.fix[k].f.at, &w, 4);
    }
    /* the site table and its trailer, then the path table, the patches and
     * theirs (instrument_site_table finds the first before the second) */
    put_site_table(&c, sites, nsites);
    if (put_path_table(&c, table, nsyms, &po, bad, in, err))
        goto done;
    st->procs = nprocs;
    st->sites = nsites;
    st->region_addr = ps->region_addr = c.base;
    st->region_size = ps->region_size = c.len;
    if (write_instrumented(&e, &hdr, &c, c.base, symtab, out, err))
        goto done;
    rc = 0;
done:
    memset(&both, 0, sizeof both);
    hashing_end();
    if (sy)
        symtab_close(sy);
    free(e.buf);
    free(procs);
    free(sites);
    free(table);
    free(tramp);
    free(po.patches);
    free(po.fix);
    free(c.bytes);
    return rc;
}

int instrument_path_table(const char *path, struct path_table_proc **procs, size_t *n, struct ap_err *err)
{
    struct elf_in e = {0};
    *procs = NULL;
    *n = 0;
    if (read_file(path, &e, err)) {
        free(e.buf);
        return -1;
    }
    int sec = find_section(&e, INSTRUMENT_SECTION);
    int rc = 0;
    if (sec >= 0) {
        const Elf64_Shdr *s = &e.sh[sec];
        uint64_t tr[3];
        if (s->sh_size < sizeof tr || s->sh_offset + s->sh_size > e.size) {
            free(e.buf);
            return ap_err_set(err, "%s: section %s is cut short; instrument the image again", path, INSTRUMENT_SECTION);
        }
        memcpy(tr, e.buf + s->sh_offset + s->sh_size - sizeof tr, sizeof tr);
        uint64_t room = s->sh_size - sizeof tr;
        if (tr[0] != PATH_TABLE_MAGIC || tr[1] > room / sizeof **procs || tr[2] > room / 16 ||
            tr[1] * sizeof **procs + tr[2] * 16 > room) {
            rc = ap_err_set(err, "%s: not instrumented for paths (no path table at the end of %s); "
                            "use alphaprof instrument --paths", path, INSTRUMENT_SECTION);
        } else {
            *n = tr[1];
            *procs = calloc(*n ? *n : 1, sizeof **procs);
            memcpy(*procs, e.buf + s->sh_offset + room - tr[2] * 16 - *n * sizeof **procs, *n * sizeof **procs);
        }
    }
    free(e.buf);
    return rc;
}

static int cmp_patch(const void *a, const void *b)
{
    const struct path_patch *x = a, *y = b;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

int instrument_path_patches(const char *path, struct path_patch **patches, size_t *n, struct ap_err *err)
{
    struct elf_in e = {0};
    *patches = NULL;
    *n = 0;
    if (read_file(path, &e, err)) {
        free(e.buf);
        return -1;
    }
    int sec = find_section(&e, INSTRUMENT_SECTION);
    if (sec >= 0) {
        const Elf64_Shdr *s = &e.sh[sec];
        uint64_t tr[3];
        if (s->sh_size >= sizeof tr && s->sh_offset + s->sh_size <= e.size) {
            memcpy(tr, e.buf + s->sh_offset + s->sh_size - sizeof tr, sizeof tr);
            uint64_t room = s->sh_size - sizeof tr;
            if (tr[0] == PATH_TABLE_MAGIC && tr[2] <= room / 16) {
                *n = tr[2];
                *patches = calloc(*n ? *n : 1, sizeof **patches);
                memcpy(*patches, e.buf + s->sh_offset + room - *n * 16, *n * 16);
                qsort(*patches, *n, sizeof **patches, cmp_patch);
            }
        }
    }
    free(e.buf);
    return 0;
}

int instrument_runtime_entries(const char *path, uint64_t **entries, size_t *n, struct ap_err *err)
{
    struct elf_in e = {0};
    struct proc *procs = NULL;
    unsigned nprocs = 0;
    int symtab, rc = -1;
    *entries = NULL;
    *n = 0;
    if (!read_file(path, &e, err) && !collect_procs(&e, &procs, &nprocs, &symtab, err, path)) {
        *entries = calloc(nprocs + 1, sizeof **entries);
        for (unsigned i = 0; i < nprocs; i++)
            if (procs[i].runtime)
                (*entries)[(*n)++] = procs[i].entry;
        rc = 0;
    }
    free(procs);
    free(e.buf);
    return rc;
}
