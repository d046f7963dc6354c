/*
 * alphaprof-core: the ProfileMe-capable core as a QEMU TCG plugin.
 *
 * Every executed instruction reaches on_insn() before it runs, in program
 * order on its vCPU's thread; its memory access reaches on_mem() after.
 * So the model finishes an instruction when the next one arrives: then its
 * address and its successor (the branch outcome) are known.  Each finished
 * instruction goes through the timing model (model/core-model.c), which
 * also fetches the wrong path after a mispredicted branch from guest RAM;
 * every fetched instruction, good or bad path, goes into the oracle (exact
 * per-PC truth; the model books each retired one's cycle stack straight
 * into its oracle entry), through the event counters, whose overflows append
 * records with the exact PC to the core's ring in the guest window
 * (pmu-window.h), and past the ProfileMe unit (model/profileme.c), which
 * tags some and writes their Profile Registers to the ProfileMe ring.
 *
 * The window's config_gen and oracle_request are compared on every
 * instruction: a new config_gen reloads the counters and ProfileMe (bad
 * values turn them off), a new oracle_request N writes a snapshot of the
 * oracle now, to oracle=PATH + ".N" (oracle-format.h).
 *
 * Arguments: ram=PATH (the RAM backend file), cores=N, oracle=PATH (truth
 * written at exit and on request), errors=PATH (see below), mode=full (the timing model) or
 * mode=counters (counters-mode.h: counts only, no ProfileMe, the oracle at
 * exit only), core=ooo or core=inorder (model/issue-rules.h: the core and
 * its defaults, applied before the other parameters), and
 * model parameters (width, retire_width, rob, iq_int, iq_fp, store_buffer, int_pipes,
 * fp_pipes, l1d_kb, l1i_kb, l2_kb, memory_latency, mispredict_penalty).
 *
 * With oracle=, the sample-path oracle (path-oracle.h) logs the exact
 * control flow before every retired ProfileMe sample to PATH.pmepaths,
 * and, when the host wrote a path plan to PATH.plan, bl-oracle.h counts
 * every planned procedure's Ball-Larus paths into PATH.blpaths.
 * cct-oracle.h builds every core's calling context tree into PATH.cct,
 * each retired user-mode instruction given to it after the PMU page's
 * cycles and retired took it in (its calls' and returns' metrics read
 * what a later instruction reads there), before bl-oracle.h's, which
 * keys paths by its current record.
 *
 * Errors (bad arguments, no RAM file, an oracle that cannot be written)
 * fail the run: each is one line appended to errors=PATH, which the
 * launcher prints on its stderr and turns into a failed exit (without
 * errors=, the line goes to QEMU's stderr).  Warnings (no interrupt
 * delivery, a guest's ignored request) only go to QEMU's plugin log.
 *
 * QEMU 7.2's I/O recompile under -icount (accel/tcg cpu_io_recompile): a
 * device access by an instruction that is not the last of its translation
 * block is abandoned before it happens, and the instruction is run again
 * alone in a block instrumented for memory only (CF_MEMI_ONLY: no exec
 * callback, so it reaches on_mem() without on_insn()).  Its on_insn() has
 * then already run once, for an attempt that did nothing.  The rules that
 * keep every instruction retired exactly once (a load or store retires
 * when its access happens, as on the core):
 *  R1. An access reaches the model with the instruction that made it
 *      (on_mem's userdata).  If that is not the pending instruction, its
 *      exec callback was dropped: it arrives here, as on_insn() would.
 *  R2. A load or store outside PALcode seen starting again at the same PC
 *      without its access: the first start was QEMU's abandoned attempt
 *      (the block was left before the retry, e.g. a kick between the two),
 *      not the core's; it is dropped, neither retired nor aborted.
 *  R3. Followed by PALcode without its access: it faulted or an interrupt
 *      came first; aborted (trapped()), it starts again afterwards.
 *  R4. At exit, a load or store outside PALcode still waiting for its
 *      access never completed: dropped.
 * (Left: if an interrupt is taken between the abandoned attempt and the
 * retry, QEMU 7.2 applies the memory-only flags to the first block of the
 * PALcode's interrupt entry instead, and its first instruction, an mfpr,
 * reaches no callback at all: neither the model nor tests/plugins/
 * insn-count.c counts it: read in QEMU 7.2's source, not seen in our runs.)
 *
 * ProfileMe's time draw (pmu-window.h PME_DRAW_TIME): every execution
 * that owns cycles (retired or trapped) is stepped with its own cycle
 * stack (a time slot) instead of its oracle entry's, and stays pending
 * until its cycles are final: its retire group closed (it is not in the
 * model's open group) and it is not the flush owner that the next
 * instruction's entry charges (core-model.h notes 3, 5).  Then, in program
 * order, its stack goes into its oracle entry and its total to the unit
 * (pme_unit_time), which says how many sample points it owns; its record
 * is the registers latched at its step, with its retire group's size
 * (the retired neighbours with its retire cycle).  At most retire width
 * + 1 executions are pending, far fewer than TIME_SLOTS.  An oracle
 * snapshot taken meanwhile lacks the pending few; the exit's is exact.
 *
 * Interrupts: see irq-delivery.c; after a record goes into either ring the
 * model checks the guest's threshold.  Records never depend on delivery:
 * they carry the PC.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hw-model/isa/alpha-isa.h"
#include "hw-model/model/core-model.h"
#include "hw-model/model/concurrency.h"
#include "hw-model/model/profileme.h"
#include "hw-model/oracle-format.h"
#include "hw-model/plugin/bl-oracle.h"
#include "hw-model/plugin/cct-oracle.h"
#include "hw-model/plugin/counter-unit.h"
#include "hw-model/plugin/counters-mode.h"
#include "hw-model/plugin/irq-delivery.h"
#include "hw-model/plugin/path-oracle.h"
#include "hw-model/plugin/pc-table.h"
#include "hw-model/plugin/pme-diag.h"
#include "hw-model/plugin/qemu-plugin-api.h"
#include "hw-model/plugin/value-oracle.h"
#include "hw-model/pmu-window.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

struct insn_info {
    struct insn_static s;
    struct oracle_pc *o[MAX_CORES];     /* each core's oracle entry for this PC */
    bool planned;                       /* in the Ball-Larus path plan (bl-oracle.h) */
    struct bl_insn bl;
};

/* An execution waiting for its cycles to be final (time draw, above). */
#define TIME_SLOTS 64           /* power of two, > CYCLE_MAX_RETIRE_WIDTH + 2 */
struct time_slot {
    uint64_t stack[CAUSE_COUNT];        /* its cycle stack so far, CYCLE_UNIT */
    struct oracle_pc *o;                /* its oracle entry (NULL: the model's unowned) */
    struct pme_record rec;              /* its registers, latched at its step */
    uint64_t retire;                    /* its retire cycle (retired) */
    bool retired;
};

/* Oracle entries of bad-path PCs (not translated by QEMU): a small cache. */
#define BAD_CACHE 1024
struct bad_cache_entry {
    uint64_t pc;
    struct oracle_pc *o;
};

struct vcpu {
    struct core_model model;
    struct concurrency conc;    /* the paired metrics' truth (model/concurrency.h) */
    struct pmu_window *win;
    struct counter_unit cu;
    struct insn_info *prev;
    uint64_t prev_addr;
    bool prev_accessed;         /* prev's memory access happened */
    struct pc_table oracle;
    uint64_t oracle_request;
    struct pme_unit pme;
    struct bad_cache_entry bad_cache[BAD_CACHE];
    struct time_slot tslot[TIME_SLOTS];  /* the time draw's pending executions, */
    uint64_t tslot_head, tslot_tail;    /* [head, tail) by sequence number */
};

static struct {
    unsigned ncores;
    struct vcpu *vcpus;
    uint8_t *ram;
    size_t ram_size;
    char oracle_path[4096];
    char errors_path[4096];     /* errors= (empty: stderr) */
    bool counters_mode;         /* mode=counters: counters-mode.c, no timing model */
    uint64_t run_id;            /* in every oracle file of this run */
    struct model_params params;
    pthread_mutex_t oracle_lock;
} g = {.oracle_lock = PTHREAD_MUTEX_INITIALIZER};

/* Something the model could not do: the run has failed (see the top). */
static void model_error(const char *msg)
{
    char buf[700];
    snprintf(buf, sizeof buf, "%.600s\n", msg);
    int fd = g.errors_path[0] ? open(g.errors_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644) : -1;
    if (fd >= 0) {
        ssize_t n = write(fd, buf, strlen(buf));     /* one write: lines of several vCPUs stay whole */
        close(fd);
        if (n == (ssize_t)strlen(buf))
            return;
    }
    fprintf(stderr, "alphaprof-core: %s", buf);
}

/* Worth knowing, harmless to the run. */
static void model_warning(const char *msg)
{
    char buf[700];
    snprintf(buf, sizeof buf, "alphaprof-core: %.600s\n", msg);
    qemu_plugin_outs(buf);
}

/* Records that went to the ProfileMe ring may reach the threshold. */
static inline void pme_wrote(struct vcpu *v, bool wrote)
{
    if (wrote && v->win)
        irq_delivery_check(v->win, (unsigned)(v - g.vcpus));
}

/* The firmware changed its configuration: counters and ProfileMe. */
static void reload_config(struct vcpu *v)
{
    pme_wrote(v, pme_unit_close(&v->pme, v->win));     /* the records of the old one first */
    counter_unit_reload(&v->cu);
    struct pme_config pme = v->win->pme;
    pme_unit_configure(&v->pme, &pme, v->win->seed);
}

static void serve_oracle_request(uint64_t n);

static inline void add_bits(uint64_t *count, uint32_t bits)
{
    while (bits) {
        count[__builtin_ctz(bits)]++;
        bits &= bits - 1;
    }
}

/* Counts one instruction's events on the counters; overflows emit records. */
static void count_events_on(struct vcpu *v, uint64_t pc, uint64_t addr, const struct insn_result *r,
                            uint64_t cycle)
{
    struct counter_unit *u = &v->cu;
    for (unsigned i = 0; i < PMU_COUNTERS; i++) {
        struct counter_state *c = &u->c[i];
        if (!c->enabled)
            continue;
        uint64_t n = c->event == PMU_EV_CYCLES ? r->cycles : r->events[c->event];
        if (!n)
            continue;
        c->remaining -= (int64_t)n;
        u->win->counts[i] += n;         /* the workloads' PMU page */
        while (c->remaining <= 0) {
            struct pmu_record rec = {.pc = pc, .cycle = cycle, .addr = addr, .event = c->event,
                                     .latency = r->latency};
            counter_unit_overflow(u, &rec);
            c->remaining += counter_unit_period(u, i);
        }
    }
}

/* The user page's event totals (pmu-window.h): only the events that
 * happened, as the oracle's entries. */
static inline void add_totals(struct pmu_window *w, const struct insn_result *r)
{
    uint32_t happened = r->event_mask & ~(1u << PMU_EV_RETIRED);
    while (happened) {
        unsigned e = (unsigned)__builtin_ctz(happened);
        w->totals[e] += r->events[e];
        happened &= happened - 1;
    }
}

/* (the call only when a counter is on: most runs count nothing) */
static inline void count_events(struct vcpu *v, uint64_t pc, uint64_t addr, const struct insn_result *r,
                                uint64_t cycle)
{
    if (v->cu.nenabled)
        count_events_on(v, pc, addr, r, cycle);
}

/* A tagged instruction is done: its Profile Registers go to the unit
 * (lat NULL: aborted before its stages, all zero). */
static void profile_tagged(struct vcpu *v, uint64_t pc, uint64_t addr, uint64_t fetch, uint32_t events,
                           uint32_t history, const uint32_t *lat)
{
    struct pme_record rec = {
        .pc = pc, .addr = addr, .fetch_cycle = fetch, .events = events, .history = history,
        .context = (uint8_t)model_pc_context(pc)};
    if (lat)
        memcpy(rec.lat, lat, sizeof rec.lat);
    uint64_t head = v->win ? v->win->pme_head : 0;
    pme_unit_done(&v->pme, &rec, v->win);
    if (v->win && v->win->pme_head != head)
        irq_delivery_check(v->win, (unsigned)(v - g.vcpus));
}

/* Time draw: a slot for the execution about to be stepped. */
static inline struct time_slot *time_slot_new(struct vcpu *v, struct oracle_pc *o)
{
    struct time_slot *t = &v->tslot[v->tslot_tail++ & (TIME_SLOTS - 1)];
    memset(t->stack, 0, sizeof t->stack);
    t->o = o;
    t->retired = false;
    return t;
}

static inline void time_slot_latch(struct time_slot *t, uint64_t pc, const struct insn_result *r, bool retired)
{
    t->rec = (struct pme_record){
        .pc = pc, .addr = r->addr, .fetch_cycle = r->fetch, .events = r->pme_events, .history = r->history,
        .context = (uint8_t)model_pc_context(pc)};
    if (retired)
        memcpy(t->rec.lat, r->lat, sizeof t->rec.lat);
    t->retire = r->retire;
    t->retired = retired;
}

/* The retire group's size of the retired execution seq: its retired
 * neighbours with the same retire cycle (still in the slots). */
static unsigned time_slot_group(const struct vcpu *v, uint64_t seq)
{
    const struct time_slot *t = &v->tslot[seq & (TIME_SLOTS - 1)];
    uint64_t oldest = v->tslot_tail > TIME_SLOTS ? v->tslot_tail - TIME_SLOTS : 0;
    unsigned n = 1;
    for (uint64_t s = seq; s > oldest && n < CYCLE_MAX_RETIRE_WIDTH; n++) {
        const struct time_slot *u = &v->tslot[--s & (TIME_SLOTS - 1)];
        if (!u->retired || u->retire != t->retire)
            break;
    }
    for (uint64_t s = seq + 1; s < v->tslot_tail && n < CYCLE_MAX_RETIRE_WIDTH; s++, n++) {
        const struct time_slot *u = &v->tslot[s & (TIME_SLOTS - 1)];
        if (!u->retired || u->retire != t->retire)
            break;
    }
    return n;
}

/* Pending executions whose cycles are final (all of them with all: the
 * end of the run, after core_model_settle), in order: stacks to the
 * oracle, totals through the unit, records of the sampled ones. */
static void time_slots_settle(struct vcpu *v, bool all)
{
    const struct core_model *m = &v->model;
    while (v->tslot_head != v->tslot_tail) {
        uint64_t seq = v->tslot_head;
        struct time_slot *t = &v->tslot[seq & (TIME_SLOTS - 1)];
        if (!all) {
            bool open = t->stack == m->flush_owner;
            for (unsigned i = 0; i < m->ngroup && !open; i++)
                open = m->group[i] == t->stack;
            if (open)
                break;
        }
        uint64_t total = 0;
        for (unsigned c = 0; c < CAUSE_COUNT; c++)
            total += t->stack[c];
        if (t->o)
            for (unsigned c = 0; c < CAUSE_COUNT; c++)
                t->o->stack[c] += t->stack[c];
        else
            for (unsigned c = 0; c < CAUSE_COUNT; c++)
                v->model.unowned[c] += t->stack[c];
        unsigned k = pme_unit_time(&v->pme, total);
        if (k) {
            if (t->retired) {
                unsigned n = time_slot_group(v, seq);
                t->rec.events = (t->rec.events & ~(PME_EVENTS_GROUP_MAX << PME_EVENTS_GROUP_SHIFT)) |
                                n << PME_EVENTS_GROUP_SHIFT;
            }
            uint64_t head = v->win ? v->win->pme_head : 0;
            pme_unit_time_done(&v->pme, &t->rec, k, v->win);
            if (v->win && v->win->pme_head != head)
                irq_delivery_check(v->win, (unsigned)(v - g.vcpus));
        }
        v->tslot_head++;
    }
}

static struct oracle_pc *bad_entry(struct vcpu *v, uint64_t pc)
{
    struct bad_cache_entry *c = &v->bad_cache[(pc >> 2) & (BAD_CACHE - 1)];
    if (c->o && c->pc == pc)
        return c->o;
    c->o = pc_table_get(&v->oracle, pc);
    c->pc = pc;
    return c->o;
}

/* A load or store outside PALcode whose access never happened and whose
 * successor is PALcode faulted (entMM and the like): it runs again after
 * the handler.  (PALcode's own physical accesses reach no memory callback.) */
static bool trapped(const struct vcpu *v, const struct insn_info *in, uint64_t next_pc)
{
    unsigned cls = in->s.cls;
    return !v->prev_accessed &&
           (cls == ALPHA_LOAD || cls == ALPHA_STORE || cls == ALPHA_LOAD_LOCKED || cls == ALPHA_STORE_COND) &&
           model_pc_context(next_pc) == PME_CTX_PAL && model_pc_context(in->s.pc) != PME_CTX_PAL;
}

/* A load or store outside PALcode that retires only with its access (R2,
 * R4; a store-conditional that fails makes none, PALcode's physical
 * accesses reach no memory callback). */
static bool retires_by_access(const struct vcpu *v, const struct insn_info *in)
{
    unsigned cls = in->s.cls;
    return !v->prev_accessed && (cls == ALPHA_LOAD || cls == ALPHA_STORE || cls == ALPHA_LOAD_LOCKED) &&
           model_pc_context(in->s.pc) != PME_CTX_PAL;
}

/* The oracle entry of an instruction on a core (NULL: out of memory). */
static inline struct oracle_pc *entry_of(struct vcpu *v, struct insn_info *in, unsigned core)
{
    struct oracle_pc *o = in->o[core];
    if (__builtin_expect(!o, 0))
        o = in->o[core] = pc_table_get(&v->oracle, in->s.pc);
    return o;
}

static void finish_trap(struct vcpu *v, struct insn_info *in, unsigned core)
{
    struct insn_result r;
    struct oracle_pc *o = entry_of(v, in, core);
    struct time_slot *ts = v->pme.time ? time_slot_new(v, o) : NULL;
    core_model_trap(&v->model, &in->s, &r, ts ? ts->stack : o ? o->stack : NULL);
    pme_wrote(v, pme_unit_close(&v->pme, v->win));     /* no retirement joins the last group now */
    if (ts)
        time_slot_latch(ts, in->s.pc, &r, false);
    if (v->tslot_head != v->tslot_tail)
        time_slots_settle(v, false);
    if (o) {
        o->aborted++;
        o->events[PMU_EV_IMISS] += r.events[PMU_EV_IMISS];
        o->events[PMU_EV_ITBMISS] += r.events[PMU_EV_ITBMISS];
        add_bits(o->pme_events, r.pme_events);
    }
    if (v->win && (r.events[PMU_EV_IMISS] || r.events[PMU_EV_ITBMISS])) {
        add_totals(v->win, &r);
        count_events(v, in->s.pc, 0, &r, r.fetch);
    }
    bool tag = pme_unit_fetch(&v->pme);
    if (pme_diag_on)
        pme_diag_fetched(core, in->s.pc, v->pme.fetched, model_pc_context(in->s.pc) == PME_CTX_PAL, tag, NULL, 0, 0);
    if (tag)
        profile_tagged(v, in->s.pc, r.addr, r.fetch, r.pme_events, r.history, r.lat);
    if (path_oracle_rings)      /* to its handler: a discontinuity */
        path_oracle_retired(core, in->s.pc, in->s.cls, in->s.pc);
}

/* The core's counters as the Ball-Larus oracle meters them (zero without
 * a window). */
static void bl_meter_read(struct bl_meter *m, const struct pmu_window *w)
{
    memset(m, 0, sizeof *m);
    if (!w)
        return;
    memcpy(m->v, w->totals, sizeof m->v);
    m->v[PMU_EV_CYCLES] = w->cycles;
    m->v[PMU_EV_RETIRED] = w->retired;
}

static void finish(struct vcpu *v, struct insn_info *in, uint64_t addr, uint64_t next_pc, unsigned core)
{
    struct insn_result r;
    struct core_model *m = &v->model;
    if (trapped(v, in, next_pc)) {
        finish_trap(v, in, core);
        return;
    }
    struct oracle_pc *o = entry_of(v, in, core);
    struct time_slot *ts = v->pme.time ? time_slot_new(v, o) : NULL;
    core_model_step(m, &in->s, addr, next_pc, &r, ts ? ts->stack : o ? o->stack : NULL);
    if (ts)
        time_slot_latch(ts, in->s.pc, &r, true);
    if (v->tslot_head != v->tslot_tail)     /* (also after the time draw is turned off) */
        time_slots_settle(v, false);
    if (o) {
        o->executions++;
        o->cycles += r.cycles;
        o->events[PMU_EV_CYCLES] += r.cycles;
        /* only the events that happened: most are rare, and a store to
         * the entry costs more than the loop's branch (measured) */
        uint32_t happened = r.event_mask;
        while (happened) {
            unsigned e = (unsigned)__builtin_ctz(happened);
            o->events[e] += r.events[e];
            happened &= happened - 1;
        }
        o->taken += (r.pme_events >> PME_EVB_TAKEN) & 1;
        for (unsigned k = 0; k < PME_LAT_COUNT; k++)
            o->lat_sum[k] += r.lat[k];
        add_bits(o->pme_events, r.pme_events);
        conc_note(&v->conc, r.fetch, r.issue, r.retire_ready, &o->useful_issued);
    }
    struct pmu_window *w = v->win;
    struct bl_meter before;         /* the counters before it (bl-oracle.h note 6) */
    if (in->planned)    /* (only then: zeroing it at every instruction cost 6 % of the run) */
        bl_meter_read(&before, w);
    if (w) {
        if (w->config_gen != v->cu.config_gen)
            reload_config(v);
        if (w->oracle_request != v->oracle_request) {
            v->oracle_request = w->oracle_request;
            serve_oracle_request(v->oracle_request);
        }
        w->cycles = m->last_retire;
        w->retired = m->seq;
        add_totals(w, &r);
        if (in->s.cls == ALPHA_LOAD)
            w->last_load_latency = r.latency;
        count_events(v, in->s.pc, addr, &r, r.retire);
    }
    if (g.oracle_path[0])       /* with the PMU counts after it (cct-oracle.c note 5) */
        cct_oracle_retire(core, in->s.pc, in->s.word, w ? w->cycles : 0, w ? w->retired : 0);
    pme_wrote(v, pme_unit_retired(&v->pme, r.retire, w));
    bool tag = pme_unit_fetch(&v->pme);
    if (pme_diag_on)
        pme_diag_fetched(core, in->s.pc, v->pme.fetched, model_pc_context(in->s.pc) == PME_CTX_PAL, tag, r.lat,
                         r.cycles, r.retire);
    if (tag) {
        if (path_oracle_rings)
            path_oracle_sample(core, in->s.pc, r.fetch, r.history);
        profile_tagged(v, in->s.pc, r.addr, r.fetch, r.pme_events, r.history, r.lat);
    }
    if (path_oracle_rings)
        path_oracle_retired(core, in->s.pc, in->s.cls, next_pc);
    if (in->planned) {
        struct bl_meter now;
        bl_meter_read(&now, w);
        bl_oracle_retired(core, in->s.pc, &in->bl, &before, &now,
                          g.oracle_path[0] && !g.counters_mode ? cct_oracle_current(core) : 0);
    }

    /* The wrong path fetched after a mispredicted branch: aborted.  The
     * refetch retires penalty cycles later: the branch's group is over. */
    if (m->nbad)
        pme_wrote(v, pme_unit_close(&v->pme, w));
    for (unsigned i = 0; i < m->nbad; i++) {
        const struct bad_fetch *b = &m->bad[i];
        unsigned imiss = (b->pme_events >> PME_EVB_IMISS) & 1;
        unsigned itbmiss = (b->pme_events >> PME_EVB_ITBMISS) & 1;
        struct oracle_pc *bo = bad_entry(v, b->pc);
        if (bo) {
            bo->aborted++;
            if (imiss | itbmiss) {          /* (rare: no stores otherwise) */
                bo->events[PMU_EV_IMISS] += imiss;
                bo->events[PMU_EV_ITBMISS] += itbmiss;
            }
            add_bits(bo->pme_events, b->pme_events);
        }
        if (w && (imiss || itbmiss)) {
            struct insn_result one = {.fetch = b->fetch};
            one.events[PMU_EV_IMISS] = (uint16_t)imiss;
            one.events[PMU_EV_ITBMISS] = (uint16_t)itbmiss;
            w->totals[PMU_EV_IMISS] += imiss;
            w->totals[PMU_EV_ITBMISS] += itbmiss;
            count_events(v, b->pc, 0, &one, b->fetch);
        }
        bool btag = pme_unit_fetch(&v->pme);
        if (pme_diag_on)
            pme_diag_fetched(core, b->pc, v->pme.fetched, model_pc_context(b->pc) == PME_CTX_PAL, btag, NULL, 0, 0);
        if (btag)
            profile_tagged(v, b->pc, b->addr, b->fetch, b->pme_events, b->history, NULL);
    }
}

/* cur starts on v: the pending instruction is done (R2: or dropped). */
static void start(struct vcpu *v, struct insn_info *cur, unsigned core)
{
    struct insn_info *p = v->prev;
    if (p && !(p->s.pc == cur->s.pc && retires_by_access(v, p)))
        finish(v, p, v->prev_addr, cur->s.pc, core);
    v->prev_accessed = false;
    v->prev = cur;
    v->prev_addr = 0;
}

static void on_insn(unsigned int vcpu_index, void *userdata)
{
    if (vcpu_index < g.ncores)
        start(&g.vcpus[vcpu_index], userdata, vcpu_index);
}

static void on_mem(unsigned int vcpu_index, qemu_plugin_meminfo_t info, uint64_t vaddr, void *userdata)
{
    (void)info;
    if (vcpu_index >= g.ncores)
        return;
    struct vcpu *v = &g.vcpus[vcpu_index];
    struct insn_info *in = userdata;
    if (!v->prev || v->prev->s.pc != in->s.pc)
        start(v, in, vcpu_index);      /* R1: its exec callback was dropped */
    v->prev_addr = vaddr;
    v->prev_accessed = true;
    if (g.oracle_path[0] && in->s.cls == ALPHA_LOAD)
        value_oracle_load(vcpu_index, in->s.pc, in->s.word, vaddr);    /* after the access */
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        struct insn_info *in = calloc(1, sizeof *in);
        if (!in)
            return;
        uint32_t word = 0;
        memcpy(&word, qemu_plugin_insn_data(insn),
               qemu_plugin_insn_size(insn) < 4 ? qemu_plugin_insn_size(insn) : 4);
        insn_static_decode(&in->s, qemu_plugin_insn_vaddr(insn), word);
        if (bl_oracle_active())
            in->planned = bl_oracle_insn(in->s.pc, word, in->s.cls, &in->bl);
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, QEMU_PLUGIN_CB_NO_REGS, in);
        if (in->s.cls == ALPHA_LOAD || in->s.cls == ALPHA_STORE || in->s.cls == ALPHA_LOAD_LOCKED ||
            in->s.cls == ALPHA_STORE_COND)
            qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, in);
    }
}

static int cmp_pc(const void *a, const void *b)
{
    const struct oracle_pc *x = a, *y = b;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static void add_entry(struct oracle_pc *d, const struct oracle_pc *e)
{
    d->executions += e->executions;
    d->cycles += e->cycles;
    d->aborted += e->aborted;
    d->taken += e->taken;
    for (unsigned k = 0; k < PMU_EV_COUNT; k++)
        d->events[k] += e->events[k];
    for (unsigned k = 0; k < PME_LAT_COUNT; k++)
        d->lat_sum[k] += e->lat_sum[k];
    for (unsigned k = 0; k < PME_EVB_COUNT; k++)
        d->pme_events[k] += e->pme_events[k];
    for (unsigned k = 0; k < CAUSE_COUNT; k++)
        d->stack[k] += e->stack[k];
    d->useful_issued += e->useful_issued;
}

/* Sums the cores' tables into one sorted array (other vCPUs may be running
 * when the oracle is written on request: see pc-table.h). */
static struct oracle_pc *merge_oracle(uint64_t *npcs)
{
    static struct pc_table all;         /* (32 KiB: not on a vCPU stack; under oracle_lock) */
    if (pc_table_init(&all, 1 << 16))
        return NULL;
    for (unsigned c = 0; c < g.ncores; c++) {
        struct pc_table *t = &g.vcpus[c].oracle;
        size_t used = __atomic_load_n(&t->used, __ATOMIC_ACQUIRE);
        for (size_t i = 0; i < used; i++) {
            struct oracle_pc e = *pc_table_entry(t, i);
            struct oracle_pc *d = pc_table_get(&all, e.pc);
            if (d)
                add_entry(d, &e);
        }
    }
    struct oracle_pc *out = malloc((all.used ? all.used : 1) * sizeof *out);
    size_t n = 0;
    for (size_t i = 0; out && i < all.used; i++)
        out[n++] = *pc_table_entry(&all, i);
    pc_table_free(&all);
    if (out)
        qsort(out, n, sizeof *out, cmp_pc);
    *npcs = n;
    return out;
}

static uint64_t unread(uint64_t head, uint64_t tail)
{
    return head >= tail ? head - tail : 0;
}

/* Writes the oracle file atomically (temporary file, then rename); at exit
 * (snapshot 0: the oracle path) or on the guest's request N (path + ".N"),
 * from any vCPU thread.  On request the
 * requesting core's part is exact at its current instruction; with several
 * vCPU threads (MTTCG) the others keep running meanwhile, so their totals
 * and per-PC counts are read at slightly different moments (exact again
 * at exit, and under -icount's single thread). */
static void write_oracle(uint64_t snapshot)
{
    if (!g.oracle_path[0])
        return;
    pthread_mutex_lock(&g.oracle_lock);
    struct oracle_core oc[MAX_CORES];
    for (unsigned c = 0; c < g.ncores; c++) {
        struct vcpu *v = &g.vcpus[c];
        oc[c] = (struct oracle_core){.overflows = v->cu.overflows, .ring_dropped = v->cu.dropped};
        if (g.counters_mode) {
            /* its table holds the last collection only (the blocks hold
             * the counts): no vCPU thread touches it in this mode */
            pc_table_free(&v->oracle);
            if (pc_table_init(&v->oracle, 1 << 14) == 0)
                counters_mode_collect(c, &oc[c], &v->oracle);
        } else {
            oc[c].cycles = v->model.last_retire;
            oc[c].instructions = v->model.seq;
            oc[c].fetched = v->model.fetched;
            oc[c].aborted = v->model.aborted;
            oc[c].pme_samples = v->pme.samples;
            oc[c].pme_dropped = v->pme.dropped;
            memcpy(oc[c].events, v->model.events, sizeof oc[c].events);
            memcpy(oc[c].stack, v->model.stack, sizeof oc[c].stack);
        }
        if (v->win) {
            oc[c].ring_unread = unread(v->win->ring_head, v->win->ring_tail);
            oc[c].pme_unread = unread(v->win->pme_head, v->win->pme_tail);
            oc[c].interrupts = v->win->interrupts;
        }
    }
    uint64_t npcs = 0;
    struct oracle_pc *pcs = merge_oracle(&npcs);
    char path[4200], tmp[4220];
    if (snapshot)
        snprintf(path, sizeof path, "%s.%u", g.oracle_path, (unsigned)snapshot);
    else
        snprintf(path, sizeof path, "%s", g.oracle_path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f || !pcs) {
        char msg[4400];
        snprintf(msg, sizeof msg, "cannot write the oracle file %s: %s", tmp,
                 !pcs ? "out of memory" : strerror(errno));
        model_error(msg);
        if (f)
            fclose(f);
        free(pcs);
        pthread_mutex_unlock(&g.oracle_lock);
        return;
    }
    struct oracle_header h = {.magic = ORACLE_MAGIC, .version = ORACLE_VERSION, .ncores = g.ncores,
                              .npcs = npcs, .nevents = PMU_EV_COUNT, .snapshot = (uint32_t)snapshot,
                              .run_id = g.run_id, .ncauses = CAUSE_COUNT, .cycle_unit = CYCLE_UNIT};
    fwrite(&h, sizeof h, 1, f);
    fwrite(oc, sizeof oc[0], g.ncores, f);
    fwrite(pcs, sizeof *pcs, npcs, f);
    free(pcs);
    int werr = ferror(f) ? EIO : 0;
    if (fclose(f) != 0 || werr || rename(tmp, path) != 0) {
        char msg[4400];
        snprintf(msg, sizeof msg, "cannot write the oracle file %s: %s", path, strerror(werr ? werr : errno));
        model_error(msg);
        unlink(tmp);
    }
    pthread_mutex_unlock(&g.oracle_lock);
}

/* The guest asked for snapshot n (a new oracle_request): 1..
 * ORACLE_SNAPSHOT_MAX are written; 0 (the exit file's number) and larger
 * ones are ignored, so a runaway guest fills no disk. */
static void serve_oracle_request(uint64_t n)
{
    if (n >= 1 && n <= ORACLE_SNAPSHOT_MAX) {
        write_oracle(n);
        return;
    }
    static bool told;
    if (!__atomic_exchange_n(&told, true, __ATOMIC_RELAXED)) {
        char msg[120];
        snprintf(msg, sizeof msg, "oracle_request %llu ignored: snapshots are 1..%d", (unsigned long long)n,
                 ORACLE_SNAPSHOT_MAX);
        model_warning(msg);
    }
}

/* A truth file of its own beside the oracle (PATH.suffix, same run_id),
 * written at exit; a failure is the model's error, named. */
static void write_side_truth(const char *suffix, const char *what, int (*write)(const char *, uint64_t))
{
    char path[4200];
    snprintf(path, sizeof path, "%s.%s", g.oracle_path, suffix);
    if (write(path, g.run_id)) {
        char msg[4400];
        snprintf(msg, sizeof msg, "cannot write the %s %s: %s", what, path, strerror(errno));
        model_error(msg);
    }
}

static void on_exit_cb(qemu_plugin_id_t id, void *userdata)
{
    (void)id;
    (void)userdata;
    for (unsigned c = 0; c < g.ncores; c++) {
        struct vcpu *v = &g.vcpus[c];
        if (v->prev && !retires_by_access(v, v->prev))      /* R4 */
            finish(v, v->prev, v->prev_addr, v->prev->s.pc + 4, c);
        v->prev = NULL;
        if (!g.counters_mode) {
            pme_unit_close(&v->pme, v->win);    /* the last group's records */
            core_model_settle(&v->model);       /* the last retire cycle, charged */
            time_slots_settle(v, true);
            pme_unit_close(&v->pme, v->win);
            conc_flush(&v->conc);
        }
    }
    write_oracle(0);
    pme_diag_write();
    if (!g.oracle_path[0])
        return;
    if (!g.counters_mode) {
        write_side_truth("values", "value oracle", value_oracle_write);
        write_side_truth("cct", "calling-context oracle", cct_oracle_write);
    }
    if (bl_oracle_active())
        write_side_truth("blpaths", "Ball-Larus path counts", bl_oracle_write);
    if (bl_oracle_active() && !g.counters_mode)
        write_side_truth("cctpaths", "paths per calling context", bl_oracle_write_contexts);
    if (path_oracle_rings)
        write_side_truth("pmepaths", "sample-path oracle", path_oracle_write);
}

static int map_ram(const char *path)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) || (uint64_t)st.st_size < PMU_WINDOW_END) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return -1;
    g.ram = p;
    g.ram_size = (size_t)st.st_size;
    return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                           char **argv)
{
    char msg[600];
    const char *ram = NULL;
    model_params_default(&g.params);
    {
        /* tells this run's oracle files from an earlier run's leftovers */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        g.run_id = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^ (uint64_t)getpid() << 40;
    }
    g.ncores = info->system_emulation ? (unsigned)info->system.smp_vcpus : 1;
    for (int i = 0; i < argc; i++)      /* first, so that errors in the others reach it */
        if (!strncmp(argv[i], "errors=", 7))
            snprintf(g.errors_path, sizeof g.errors_path, "%s", argv[i] + 7);
    for (int i = 0; i < argc; i++)      /* then the core, whose defaults the others change */
        if (!strncmp(argv[i], "core=", 5) && !model_params_core(&g.params, argv[i] + 5)) {
            snprintf(msg, sizeof msg, "%s: the cores are ooo (21264-like) and inorder (21164-like)", argv[i]);
            model_error(msg);
            return -1;
        }
    for (int i = 0; i < argc; i++) {
        char key[64];
        const char *eq = strchr(argv[i], '=');
        if (!eq || (size_t)(eq - argv[i]) >= sizeof key) {
            snprintf(msg, sizeof msg, "argument '%s' is not key=value", argv[i]);
            model_error(msg);
            return -1;
        }
        memcpy(key, argv[i], (size_t)(eq - argv[i]));
        key[eq - argv[i]] = '\0';
        const char *val = eq + 1;
        if (!strcmp(key, "ram"))
            ram = val;
        else if (!strcmp(key, "cores")) {
            char *end;
            unsigned long n = strtoul(val, &end, 10);
            g.ncores = *end || !*val ? 0 : n > MAX_CORES ? MAX_CORES + 1 : (unsigned)n;
        }
        else if (!strcmp(key, "oracle"))
            snprintf(g.oracle_path, sizeof g.oracle_path, "%s", val);
        else if (!strcmp(key, "errors") || !strcmp(key, "core"))
            continue;
        else if (!strcmp(key, "mode")) {
            /* the last mode= wins: alphaprof --model follows the board's */
            if (!strcmp(val, PMU_MODE_COUNTERS)) {
                g.counters_mode = true;
            } else if (!strcmp(val, PMU_MODE_FULL)) {
                g.counters_mode = false;
            } else {
                snprintf(msg, sizeof msg, "mode=%s: the modes are full and counters", val);
                model_error(msg);
                return -1;
            }
        } else if (!strcmp(key, "ipi_reg") || !strcmp(key, "ipi_shift")) {
            if (!irq_delivery_param(key, val)) {
                snprintf(msg, sizeof msg, "%s=%s: give the board's interrupt register (see its board.conf)",
                         key, val);
                model_error(msg);
                return -1;
            }
        } else if (!model_params_set(&g.params, key, val)) {
            snprintf(msg, sizeof msg, "unknown or bad argument '%s'", argv[i]);
            model_error(msg);
            return -1;
        }
    }
    if (g.ncores < 1 || g.ncores > MAX_CORES) {
        snprintf(msg, sizeof msg, "cores= must be 1..%d", MAX_CORES);
        model_error(msg);
        return -1;
    }
    g.vcpus = calloc(g.ncores, sizeof *g.vcpus);
    if (!g.vcpus) {
        model_error("out of memory");
        return -1;
    }
    if (g.oracle_path[0]) {
        /* said now, not after the whole run: the oracle's place is writable */
        char tmp[4200];
        snprintf(tmp, sizeof tmp, "%s.tmp", g.oracle_path);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) {
            snprintf(msg, sizeof msg, "cannot write the oracle file %.400s: %s", g.oracle_path, strerror(errno));
            model_error(msg);
            return -1;
        }
        close(fd);
        unlink(tmp);
    }
    if (ram && map_ram(ram)) {
        snprintf(msg, sizeof msg, "cannot map the RAM file %s (%s)", ram, strerror(errno));
        model_error(msg);
        return -1;
    }
    if (g.oracle_path[0] && !g.counters_mode &&
        (value_oracle_init(g.ncores, g.ram, g.ram ? g.ram_size : 0) ||
         cct_oracle_init(g.ncores, g.ram, g.ram ? g.ram_size : 0))) {
        model_error("out of memory");
        return -1;
    }
    if (g.oracle_path[0] && !g.counters_mode && path_oracle_init(g.ncores)) {
        model_error("out of memory");
        return -1;
    }
    if (g.oracle_path[0] && !g.counters_mode) {
        char plan[4200];
        snprintf(plan, sizeof plan, "%s.plan", g.oracle_path);
        if (bl_oracle_load(plan, g.ncores) < 0) {
            snprintf(msg, sizeof msg, "%.400s: not a Ball-Larus path plan of this build (%s); run again",
                     plan, strerror(errno));
            model_error(msg);
            return -1;
        }
    }
    char why[200];
    uint32_t irq_mode = PMU_IRQ_IPI;
    if (!g.counters_mode)
        pme_diag_init(g.ncores);
    if (g.ram && !irq_delivery_init(why, sizeof why)) {
        irq_mode = PMU_IRQ_NONE;
        snprintf(msg, sizeof msg, "no performance interrupts (%s): the firmware polls the rings", why);
        model_warning(msg);
    }
    struct pmu_window *wins[MAX_CORES] = {0};
    for (unsigned c = 0; c < g.ncores; c++) {
        struct vcpu *v = &g.vcpus[c];
        conc_init(&v->conc);
        if ((!g.counters_mode && core_model_init(&v->model, &g.params)) ||
            pc_table_init(&v->oracle, 1 << 14)) {
            model_error("bad model parameters or out of memory");
            return -1;
        }
        pme_unit_init(&v->pme);
        if (g.ram && !g.counters_mode)
            core_model_set_memory(&v->model, g.ram, g.ram_size);
        if (g.ram) {
            v->win = (struct pmu_window *)(g.ram + PMU_WINDOW_PHYS + (size_t)c * PMU_WINDOW_PER_CORE);
            memset(v->win, 0, sizeof *v->win);
            v->win->version = PMU_VERSION;
            v->win->ncounters = PMU_COUNTERS;
            v->win->irq_mode = irq_mode;
            __atomic_store_n(&v->win->magic, PMU_MAGIC, __ATOMIC_RELEASE);
        }
        wins[c] = v->win;
        counter_unit_init(&v->cu, v->win, c);
    }
    if (g.counters_mode)
        counters_mode_install(id, g.ncores, wins, serve_oracle_request);
    else
        qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
    qemu_plugin_register_atexit_cb(id, on_exit_cb, NULL);
    return 0;
}
