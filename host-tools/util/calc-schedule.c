/*
 * calc's static schedule (calc.h): every block issued by the model's own
 * rules (hw-model/model/issue-rules.h: inorder_issue, model_class_latency),
 * every load hitting, nothing stalling dynamically.  As the model counts
 * time, an instruction's cycles are its retire gap: retire = issue + 1
 * (a barrier or PAL call: issue + its latency), in order, so
 *   M_i = retire_i - retire_{i-1}
 * is what the CYCLES counter charges instruction i with no dynamic stall.
 * An issue group's cycle is shared by its members in the stacks (TIP).
 *
 * A block whose only way in is falling through from the block before it
 * (or, after calc_refine, whose fall-through way in dominates) is
 * scheduled on from that block's state (it may pair with its tail); any
 * other block starts fresh (its predecessors are unknown), as DCPI does.
 * A block entered both by falling through and another way also gets the
 * other schedule's M_i (m_alt): the estimate weighs the two by the
 * ways' estimated frequencies (DCPI 6.1.3's "no one static schedule"
 * when a block has several predecessors; a lone instruction after a
 * taken branch pairs when fallen into).  A block entered only by falling
 * through also gets m_alt, its fresh schedule: after a mispredict of the
 * branch before it, the fall-through path starts anew, so an
 * instruction's M_i may be either (the estimate uses those whose M_i is
 * the same both ways as issue points, when it can).  Only the
 * out-of-order core has no static schedule: there M_i is
 * 1 per instruction divided by the map width, a bound, not a schedule.
 *
 * Invariants: sum over a group of share is 1; static_cause is set only
 * when M_i > 1.
 */
#include "util/calc.h"

#include <stdlib.h>
#include <string.h>

#include "hw-model/isa/alpha-isa.h"

struct sched_state {
    struct inorder_issue io;
    uint64_t reg_ready[64];
    uint32_t reg_producer[64];
    uint64_t last_retire, last_issue;
    uint32_t group_first;       /* first instruction of the open issue group */
};

/* Closes the issue group that ends before instruction end. */
static void close_group(struct calc_proc *p, struct sched_state *st, uint32_t end)
{
    if (st->group_first == CALC_NONE || end <= st->group_first)
        return;
    double share = 1.0 / (end - st->group_first);
    for (uint32_t i = st->group_first; i < end; i++)
        p->insns[i].share = share;
}

static void schedule_block(struct calc_proc *p, uint32_t b, struct sched_state *st)
{
    const struct model_params *mp = &p->params;
    const struct calc_block *blk = &p->blocks[b];
    for (uint32_t i = blk->first; i < blk->first + blk->n; i++) {
        struct calc_insn *in = &p->insns[i];
        const struct insn_static *s = &in->s;
        uint64_t ready = st->last_issue ? st->last_issue : 1;
        uint32_t producer = CALC_NONE;
        for (int k = 0; k < 2; k++)
            if (s->src[k] != REG_NONE && st->reg_ready[s->src[k]] > ready) {
                ready = st->reg_ready[s->src[k]];
                producer = st->reg_producer[s->src[k]];
            }
        enum issue_wait why;
        uint64_t issue;
        uint32_t lat = model_class_latency(mp, s->cls);
        if (mp->inorder) {
            issue = inorder_issue(&st->io, mp, s, ready, &why);
        } else {
            issue = ready;
            why = ISSUE_READY;
        }
        uint64_t retire = issue + (mp->inorder && model_class_serialises(s->cls) ? lat : 1);
        if (retire < st->last_retire)
            retire = st->last_retire;
        in->m = (uint32_t)(retire - st->last_retire);
        if (issue != st->last_issue || st->group_first == CALC_NONE) {
            close_group(p, st, i);
            st->group_first = i;
        }
        if (in->m > 1) {
            switch (why) {
            case ISSUE_READY:
                in->static_cause = CAUSE_DEPENDENCY;
                in->static_culprit = producer;
                break;
            case ISSUE_DIVIDER:
            case ISSUE_PIPE:
            case ISSUE_SLOT:
            case ISSUE_ORDER:
                in->static_cause = CAUSE_FU_BUSY;
                break;
            case ISSUE_SERIAL:
                in->static_cause = CAUSE_SERIALISE;
                break;
            }
            if (model_class_serialises(s->cls))
                in->static_cause = CAUSE_SERIALISE;
        }
        if (s->dst != REG_NONE) {
            st->reg_ready[s->dst] = issue + lat;
            st->reg_producer[s->dst] = i;
        }
        st->last_issue = issue;
        st->last_retire = retire;
        if (!mp->inorder)
            st->last_issue = issue + 1;     /* one a cycle: a bound only */
    }
    close_group(p, st, blk->first + blk->n);
    st->group_first = CALC_NONE;
}

static void fresh(struct sched_state *st)
{
    memset(st, 0, sizeof *st);
    st->last_retire = 1;        /* the first issues at 1, retires at 2: M = 1 */
    st->group_first = CALC_NONE;
}

/* Is b entered only by falling through from b - 1? */
static bool only_fall_through(const struct calc_proc *p, uint32_t b)
{
    const struct calc_block *blk = &p->blocks[b];
    if (b == 0 || (blk->nin != 1 && !blk->fall_dominant))
        return false;
    for (uint32_t k = 0; k < blk->nin; k++)
        if (p->edges[blk->in[k]].from == b - 1 && p->edges[blk->in[k]].kind == EDGE_FALL)
            return true;
    return false;
}

/* Does b have both a fall-through way in from b - 1 and another? */
static bool mixed_entry(const struct calc_proc *p, uint32_t b)
{
    const struct calc_block *blk = &p->blocks[b];
    bool fall = false, other = false;
    for (uint32_t k = 0; k < blk->nin; k++) {
        const struct calc_edge *e = &p->edges[blk->in[k]];
        if (b > 0 && e->from == b - 1 && e->kind == EDGE_FALL)
            fall = true;
        else
            other = true;
    }
    return fall && other;
}

/* Schedules b as entered by falling through (continuing from the blocks
 * before it) or fresh (after a taken branch, a call, the entry). */
static void schedule_entered(struct calc_proc *p, uint32_t b, bool by_fall)
{
    struct sched_state st;
    fresh(&st);
    if (by_fall && b > 0) {
        uint32_t a = b - 1;
        while (only_fall_through(p, a))
            a--;
        for (uint32_t k = a; k < b; k++)
            schedule_block(p, k, &st);
    }
    schedule_block(p, b, &st);
}

void calc_schedule(struct calc_proc *p)
{
    for (uint32_t b = 0; b < p->nblocks; b++)
        schedule_entered(p, b, only_fall_through(p, b));
    /* A block entered both ways: its other schedule's M_i too (the
     * estimate weighs the two by the ways' frequencies). */
    for (uint32_t b = 0; b < p->nblocks; b++) {
        struct calc_block *blk = &p->blocks[b];
        blk->alt_entry = mixed_entry(p, b);
        for (uint32_t i = blk->first; i < blk->first + blk->n; i++)
            p->insns[i].m_alt = p->insns[i].m;
        if (!blk->alt_entry && !only_fall_through(p, b))
            continue;
        /* (scheduled on from the blocks before, those get what their own
         * schedule gave them: the same chain from the same start) */
        struct calc_insn *save = calc_zalloc(blk->n, sizeof *save);
        memcpy(save, &p->insns[blk->first], blk->n * sizeof *save);
        schedule_entered(p, b, !only_fall_through(p, b));
        for (uint32_t k = 0; k < blk->n; k++) {
            uint32_t alt = p->insns[blk->first + k].m;
            p->insns[blk->first + k] = save[k];
            p->insns[blk->first + k].m_alt = alt;
        }
        free(save);
    }
}
