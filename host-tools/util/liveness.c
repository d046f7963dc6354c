/* Integer register liveness over calc's CFG: see liveness.h. */
#include "util/liveness.h"

#include <stdlib.h>

#include "hw-model/isa/alpha-isa.h"
#include "util/strvec.h"

#define BIT(r) ((r) == 31 ? 0u : 1u << (r))

static bool is_cmov(uint32_t w)
{
    if (alpha_opcode(w) != 0x11)
        return false;
    switch ((w >> 5) & 0x7f) {
    case 0x14: case 0x16: case 0x24: case 0x26: case 0x44: case 0x46: case 0x64: case 0x66:
        return true;
    default:
        return false;
    }
}

/* use/def without call semantics; *known false for a word that is no
 * instruction (or PALmode-only), which then reads everything. */
static void regs_of(uint32_t w, uint32_t *use, uint32_t *def, bool *known)
{
    const struct alpha_insn_info *in = alpha_decode(w);
    unsigned ra = alpha_ra(w), rb = alpha_rb(w), rc = alpha_rc(w);
    *use = *def = 0;
    *known = in && in->format != ALPHA_FMT_HW;
    if (!*known) {
        *use = LIVE_ALL;
        return;
    }
    switch (in->format) {
    case ALPHA_FMT_PAL:         /* a PAL call may read any register (callsys: v0, a0-a5) */
        *use = LIVE_ALL;
        break;
    case ALPHA_FMT_MEM:
        *use = BIT(rb);
        if (in->cls == ALPHA_STORE || in->cls == ALPHA_STORE_COND)
            *use |= BIT(ra);
        if (in->cls != ALPHA_STORE)
            *def = BIT(ra);
        break;
    case ALPHA_FMT_FMEM:
        *use = BIT(rb);
        break;
    case ALPHA_FMT_MEMF:        /* rpcc, rc, rs write ra; fetch, wh64 read rb: both, conservatively */
        *use = BIT(ra) | BIT(rb);
        break;
    case ALPHA_FMT_JMP:
        *use = BIT(rb);
        *def = BIT(ra);
        break;
    case ALPHA_FMT_BRA:
        if (in->cls == ALPHA_BRANCH_COND)
            *use = BIT(ra);
        else
            *def = BIT(ra);
        break;
    case ALPHA_FMT_OPR:
        *use = BIT(ra) | (alpha_is_literal(w) ? 0 : BIT(rb));
        *def = BIT(rc);
        if (is_cmov(w))
            *use |= BIT(rc);    /* may leave rc as it was */
        break;
    case ALPHA_FMT_FTOI:
        *def = BIT(rc);
        break;
    case ALPHA_FMT_ITOF:
        *use = BIT(ra);
        break;
    default:                    /* floating point only */
        break;
    }
}

void liveness_regs(uint32_t word, uint32_t *use, uint32_t *def)
{
    bool known;
    regs_of(word, use, def, &known);
}

uint32_t liveness_named(uint32_t word)
{
    uint32_t use, def;
    bool known;
    regs_of(word, &use, &def, &known);
    const struct alpha_insn_info *in = alpha_decode(word);
    if (!known || in->format == ALPHA_FMT_PAL)
        return 0;
    return use | def;
}

/* use/def of instruction i with the calling standard at calls (note 3). */
static void insn_regs(const struct calc_insn *in, uint32_t *use, uint32_t *def)
{
    uint32_t w = in->s.word;
    enum calc_flow f = calc_flow_of(w, in->s.cls);
    if (f == FLOW_CALL) {
        unsigned ra = alpha_ra(w);
        *def = BIT(ra);
        if (ra != 26 && ra != 23) {
            *use = LIVE_ALL;
            return;
        }
        /* a standard call's arguments and pv, or millicode's t10 and t11 */
        *use = (ra == 26 ? LIVE_ARGS | BIT(27) : BIT(24) | BIT(25)) | BIT(29) | BIT(30);
        if (alpha_opcode(w) == 0x1a)
            *use |= BIT(alpha_rb(w));
        return;
    }
    liveness_regs(w, use, def);
}

static uint32_t exit_live(const struct calc_insn *last)
{
    uint32_t w = last->s.word;
    if (calc_flow_of(w, last->s.cls) == FLOW_RETURN && alpha_rb(w) == 26)
        return LIVE_AT_RET;
    return LIVE_ALL;
}

uint32_t liveness_at_edge(const struct calc_proc *cfg, const uint32_t *live_before, uint32_t i, uint32_t to)
{
    if (to == CALC_EXIT)
        return exit_live(&cfg->insns[i]);
    return live_before[cfg->blocks[to].first];
}

void liveness_compute(const struct calc_proc *cfg, uint32_t *live_before)
{
    size_t nb = cfg->nblocks;
    uint32_t *use = calc_zalloc(cfg->n, sizeof *use), *def = calc_zalloc(cfg->n, sizeof *def);
    for (size_t i = 0; i < cfg->n; i++) {
        insn_regs(&cfg->insns[i], &use[i], &def[i]);
        live_before[i] = 0;
    }
    bool changed = true;
    while (changed) {
        changed = false;
        for (size_t b = nb; b-- > 0;) {
            const struct calc_block *x = &cfg->blocks[b];
            if (!x->n)
                continue;
            uint32_t last = x->first + x->n - 1;
            uint32_t live = 0;
            for (uint32_t k = 0; k < x->nout; k++)
                live |= liveness_at_edge(cfg, live_before, last, cfg->edges[x->out[k]].to);
            for (uint32_t i = last + 1; i-- > x->first;) {
                live = use[i] | (live & ~def[i]);
                live &= LIVE_ALL;
                if (live != live_before[i]) {
                    live_before[i] = live;
                    changed = true;
                }
            }
        }
    }
    free(use);
    free(def);
}
