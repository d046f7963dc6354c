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
#include "util/instrument-emit.h"

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
#include "util/regular-file.h"
#include "util/symbols.h"

struct both_state both;          /* instrument-emit.h note 2 */

/* r = this core's CCT region, from sp alone (cct-region.h note 1). */
void put_core_state(struct code *c, unsigned r)
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

int read_file(const char *path, struct elf_in *e, struct ap_err *err)
{
    FILE *f = regular_fopen_read(path, "a workload image (.elf)", err);     /* (a FIFO would block) */
    if (!f)
        return -1;
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

int find_section(const struct elf_in *e, const char *name)
{
    for (unsigned i = 0; i < e->eh->e_shnum; i++)
        if (!strcmp(e->shstr + e->sh[i].sh_name, name))
            return (int)i;
    return -1;
}

/* File bytes of [addr, addr + len) in an allocated PROGBITS section. */
uint8_t *at_addr(const struct elf_in *e, uint64_t addr, uint64_t len)
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
bool returns_twice(const char *name)
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

int proc_of(const struct proc *p, unsigned n, uint64_t pc)
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
bool runtime_entry(const struct proc *p, unsigned n, uint64_t entry)
{
    int k = proc_of(p, n, entry);
    return k >= 0 && p[k].runtime;
}

/* Procedures: the function symbols, one per address, each running to the
 * next one (or its section's end). */
int collect_procs(const struct elf_in *e, struct proc **out, unsigned *n, int *symtab,
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
int collect_sites(const struct elf_in *e, struct proc *procs, unsigned nprocs,
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

/* The original image `in` read whole, with its procedures (*symtab its
 * symbol table's section); -1 with err set, an instrumented copy refused. */
int read_original(const char *in, struct elf_in *e, struct proc **procs, unsigned *nprocs, int *symtab,
                  struct ap_err *err)
{
    if (read_file(in, e, err))
        return -1;
    if (find_section(e, INSTRUMENT_SECTION) >= 0) {
        ap_err_set(err, "%s: already instrumented; instrument the original image", in);
        return -1;
    }
    return collect_procs(e, procs, nprocs, symtab, err, in);
}

/* The CCT slow path's entry (cct-region.h note 15), or 0 with err set. */
uint64_t cct_lookup_entry(const char *in, const struct proc *procs, unsigned nprocs, struct ap_err *err)
{
    for (unsigned i = 0; i < nprocs; i++)
        if (!strcmp(procs[i].name, INSTRUMENT_LOOKUP))
            return procs[i].entry;
    ap_err_set(err, "%s: no %s: the image was linked without the alphaprof runtime's CCT slow path "
               "(workloads/runtime/cct.c); rebuild it with make", in, INSTRUMENT_LOOKUP);
    return 0;
}

/* Where the instrumentation segment starts: past the image's bss and
 * every loaded segment, 64-byte aligned. */
uint64_t segment_base(const struct elf_in *e, const struct image_header *hdr)
{
    uint64_t end = hdr->bss_end;
    for (unsigned i = 0; i < e->eh->e_phnum; i++)
        if (e->ph[i].p_type == PT_LOAD && e->ph[i].p_paddr + e->ph[i].p_memsz > end)
            end = e->ph[i].p_paddr + e->ph[i].p_memsz;
    return align_up(end, 64);
}

/* ---- code generation ---- */

/* The shared slow-path stub: saves what a standard call still needs
 * (arguments, pv, gp) and calls __alphaprof_cct_lookup(core, site, target,
 * procs, slot, site_proc) from $1, $22, $23, (procs), $25, $28; returns to
 * $24 with $1 = core, $2 = current record, $3 = the callee's record, and
 * with metrics $23 = $2 too (where a leaf's lookup keeps cur, put_trampoline). */
void put_stub(struct code *c, uint64_t procs_addr, uint64_t lookup, bool metrics)
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
void put_unwind(struct code *c, bool metrics)
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
void put_incq(struct code *c, unsigned x, unsigned base, int off)
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
void put_trampoline(struct code *c, const struct site *s, const struct proc *procs, unsigned nprocs,
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
int write_instrumented(struct elf_in *e, const struct image_header *hdr0, const struct code *cc,
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
        ap_err_set(err, "%s: cannot write: %s", out, strerror(errno));     /* (its temporary twin beside it) */
        goto done;
    }
    if (fclose(f)) {
        ap_err_set(err, "%s: cannot write: %s", out, strerror(errno));
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
void put_site_table(struct code *c, const struct site *sites, unsigned nsites)
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
int segment_fits(const struct code *c, const char *in, struct ap_err *err)
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

    if (read_original(in, &e, &procs, &nprocs, &symtab, err))
        goto done;
    uint64_t lookup = cct_lookup_entry(in, procs, nprocs, err);
    if (!lookup)
        goto done;
    collect_sites(&e, procs, nprocs, &sites, &nsites, &st->skipped_sites);
    if (metrics)                /* a metered leaf call keeps registers the leaf must leave alone */
        for (unsigned i = 0; i < nprocs; i++)
            procs[i].leaf = procs[i].leaf && keeps_regs(&e, &procs[i]);

    /* the segment: procedure table, stub, trampolines */
    c.base = segment_base(&e, &hdr);
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

/* The path table at the end of section sec (INSTRUMENT_SECTION) of e,
 * read from path: *procs (to free) and *n; -1 with err when there is
 * none or it is cut short. */
static int path_table_of(const struct elf_in *e, int sec, const char *path, struct path_table_proc **procs,
                         size_t *n, struct ap_err *err)
{
    const Elf64_Shdr *s = &e->sh[sec];
    uint64_t tr[3];
    if (s->sh_size < sizeof tr || s->sh_offset + s->sh_size > e->size)
        return ap_err_set(err, "%s: section %s is cut short; instrument the image again", path, INSTRUMENT_SECTION);
    memcpy(tr, e->buf + s->sh_offset + s->sh_size - sizeof tr, sizeof tr);
    uint64_t room = s->sh_size - sizeof tr;
    if (tr[0] != PATH_TABLE_MAGIC || tr[1] > room / sizeof **procs || tr[2] > room / 16 ||
        tr[1] * sizeof **procs + tr[2] * 16 > room)
        return ap_err_set(err, "%s: not instrumented for paths (no path table at the end of %s); "
                          "use alphaprof instrument --paths", path, INSTRUMENT_SECTION);
    *n = tr[1];
    *procs = calloc(*n ? *n : 1, sizeof **procs);
    memcpy(*procs, e->buf + s->sh_offset + room - tr[2] * 16 - *n * sizeof **procs, *n * sizeof **procs);
    return 0;
}

bool instrument_metered(const char *path)
{
    struct elf_in e = {0};
    struct ap_err err;
    if (read_file(path, &e, &err)) {
        free(e.buf);
        return false;
    }
    int sec = find_section(&e, INSTRUMENT_SECTION);
    uint64_t head[3] = {0};
    if (sec >= 0 && e.sh[sec].sh_size >= sizeof head && e.sh[sec].sh_offset + sizeof head <= e.size)
        memcpy(head, e.buf + e.sh[sec].sh_offset, sizeof head);
    bool metered = head[0] == CCT_PROCS_MAGIC && (head[2] & (CCT_METRICS | CCT_BOTH_METERED));
    struct path_table_proc *procs;      /* else --paths --metrics: its path table says */
    size_t n;
    if (sec >= 0 && !metered && path_table_of(&e, sec, path, &procs, &n, &err) == 0) {
        for (size_t k = 0; k < n && !metered; k++)
            metered = procs[k].metrics != 0;
        free(procs);
    }
    free(e.buf);
    return metered;
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
    int rc = sec >= 0 ? path_table_of(&e, sec, path, procs, n, err) : 0;
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
