/*
 * The slow path of calling-context-tree instrumentation (alphaprof
 * instrument --cct): finds or makes the call record for a call whose
 * record the trampoline's slot cache did not have.  Linked into every
 * image (like gprof's mcount) and never run by an image that is not
 * instrumented; the instrumenter calls it through a register-saving stub
 * and never instruments calls inside __alphaprof_cct_* code.  The layout,
 * the folding rule and the bounds are firmware/abi/cct-region.h's notes.
 *
 * With --both (cct-region.h notes 10-12) a record also gets its callee's
 * path counters after its slots, and the records end where the path
 * region begins.
 *
 * Leaf code on purpose: no calls out of this file (not even an implicit
 * memset; the monitor clears the region), integer registers only, so the
 * stub saves the argument registers, pv and gp and nothing else.  Its
 * static helpers may be procedures of their own (new_record is): the
 * instrumenter counts whatever the __alphaprof_cct_* code branches into
 * as the runtime (cct-region.h note 15).
 */
#include <stdint.h>
#include "firmware/abi/cct-region.h"

struct cct_record *__alphaprof_cct_lookup(struct cct_core *c, uint64_t site, uint64_t target,
                                          const struct cct_procs *procs, uint64_t slot,
                                          uint64_t site_proc);

static struct cct_record *rec(uint64_t addr) { return (struct cct_record *)addr; }

/* Out of line on purpose (cct-region.h note 15): a helper of the runtime
 * that the compiler keeps as a procedure of its own, named without the
 * __alphaprof_cct prefix, is the runtime's all the same; so every image
 * has one and the --both tests check the instrumenter's rule for it. */
__attribute__((noinline))
static struct cct_record *new_record(struct cct_core *c, uint64_t callee, uint64_t site,
                                     uint64_t parent, uint32_t nslots, uint32_t flags, uint32_t npaths)
{
    /* --both: the path region lies after the records (note 11) */
    uint64_t end = (uint64_t)c + (c->flags & CCT_BOTH ? CCT_BOTH_PATHS_OFFSET : CCT_PER_CORE);
    if (!(c->flags & CCT_BOTH))
        npaths = 0;
    uint64_t size = cct_record_total(nslots, npaths);
    if (c->alloc + size > end)
        return 0;
    struct cct_record *r = rec(c->alloc);
    c->alloc += size;
    r->callee = callee;
    r->site = site;
    r->parent = parent;
    r->nslots = nslots;
    r->flags = flags;
    r->npaths = npaths;
    r->id = (uint32_t)c->nrecords++;
    if (parent) {
        r->next = rec(parent)->children;
        rec(parent)->children = (uint64_t)r;
    }
    return r;
}

static void init_core(struct cct_core *c, const struct cct_procs *procs)
{
    c->version = CCT_VERSION;
    c->core = (uint32_t)(((uint64_t)c - CCT_PHYS) / CCT_PER_CORE);
    c->top = (uint64_t)c + CCT_STACK_OFFSET;
    c->alloc = (uint64_t)c + CCT_RECORDS_OFFSET;
    c->procs = (uint64_t)procs;
    c->flags = procs->flags & (CCT_METRICS | CCT_BOTH);
    c->root = (uint64_t)new_record(c, 0, 0, 0, 0, 0, 0);
    c->overflow = (uint64_t)new_record(c, 0, 0, 0, 0, 0, 0);
    c->cur = c->root;
    c->magic = procs->flags & CCT_BOTH ? CCT_MAGIC_BOTH : CCT_MAGIC;
}

/* The procedure a call target enters (its entry or its no-gp entry), or
 * NULL for an address the instrumenter did not list. */
static const struct cct_proc *find_proc(const struct cct_procs *procs, uint64_t target)
{
    uint64_t lo = 0, hi = procs->count;
    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        const struct cct_proc *p = &procs->proc[mid];
        if (target == p->entry || (p->alt_entry && target == p->alt_entry))
            return p;
        if (target < p->entry)
            hi = mid;
        else
            lo = mid + 1;
    }
    return 0;
}

struct cct_record *__alphaprof_cct_lookup(struct cct_core *c, uint64_t site, uint64_t target,
                                          const struct cct_procs *procs, uint64_t slot,
                                          uint64_t site_proc)
{
    if (c->magic != (procs->flags & CCT_BOTH ? CCT_MAGIC_BOTH : CCT_MAGIC))     /* cur is the region itself until then (cct-region.h note 6) */
        init_core(c, procs);
    struct cct_record *cur = rec(c->cur);
    if (cur == rec(c->overflow)) {
        c->overflow_calls++;
        return cur;
    }
    const struct cct_proc *p = find_proc(procs, target);
    uint64_t callee = p ? p->entry : target;
    struct cct_record *found = 0;
    for (uint64_t ch = cur->children; ch && !found; ch = rec(ch)->next)
        if (rec(ch)->site == site && rec(ch)->callee == callee)
            found = rec(ch);
    for (struct cct_record *a = cur; a && !found; a = rec(a->parent))
        if (a->callee == callee && a != rec(c->root))
            found = a;
    if (!found)
        found = new_record(c, callee, site, (uint64_t)cur, p ? p->nslots : 0, p ? p->flags : 0, p ? p->npaths : 0);
    if (!found) {
        c->overflow_calls++;
        return rec(c->overflow);
    }
    /* Slot `slot` of a record belongs to its own procedure's site of that
     * number: a site reached through a tail call is another's.  The calls
     * (note 9) and leaf metrics (note 3a) a slot counted belong to the
     * record it pointed at. */
    if (cur->callee == site_proc && slot < cur->nslots) {
        struct cct_slot *sl = (struct cct_slot *)((uint64_t)cur + CCT_REC_SLOTS) + slot;
        if (sl->rec != (uint64_t)found) {
            if (sl->rec)
                cct_slot_fold(sl, rec(sl->rec));
            sl->calls = found->flags & CCT_REC_LEAF;
            sl->cycles = sl->retired = 0;       /* (a slot never used holds none) */
            sl->rec = (uint64_t)found;
            sl->callee = found->callee;
        }
    }
    return found;
}
