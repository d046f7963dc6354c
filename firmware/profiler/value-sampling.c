/*
 * Value sampling on the board (see value-sampling.h).  Design notes and
 * invariants:
 *
 * 1. Where it runs.  The fast clock path saves only the caller-saved
 *    integer registers, too few to interpret from; so a tick whose run is
 *    due takes the full path (value_sampling_fast_tick says so), whose trap
 *    frame holds every register.  The interrupted context's r16-r18 and
 *    gp are in the PALcode's frame, its sp is the user stack pointer
 *    (RDUSP), its FPCR the frame's f31 slot.  Only user-mode contexts are
 *    interpreted (others are counted not_user).
 * 2. Parameters (the paper's): a run every value_every-th sampling
 *    interrupt; it interprets a random 0..value_skip instructions unseen,
 *    so the captured PCs are not biased towards the interrupted one, then
 *    captures value_length.  What is captured per opcode class is the
 *    value_capture table (firmware/abi/value-capture.h).
 * 3. Memory the interpreter may read: the image area and heap
 *    [USER_BASE, USER_STACK_PHYS) and the core's own user stack below its
 *    guard (the stack region: sp must stay in it), through KSEG (user
 *    addresses are mapped one to one).  The core's PMU page is device
 *    space.  Anything else stops the run (value-interp.h note 3).
 * 4. Banks.  Each core has two hotlist banks in fixed RAM (VALUES_PHYS,
 *    linker/ram-map.h) and fills bank[active].  At most every flush_ms of
 *    its virtual time, and only when the other bank is free (ready == 0),
 *    the owner hands the active bank over: ready = 1 after a write
 *    barrier, then switches.  The boot core sends a ready bank's hotlists
 *    as VALUES frames (resuming where the link ran out of room), clears
 *    it and sets ready = 0 after a write barrier.  While both banks are
 *    busy the owner keeps filling its active one: a hotlist is constant
 *    space, so waiting loses nothing.
 * 5. Accounting (VALUE_STATS, link-protocol.h): every value offered is in
 *    a hotlist held by the board, in a VALUES frame sent (sent), or
 *    dropped: no_slot (its (PC, kind) found no hotlist) or link_full
 *    (the end of the run came before the link had room).  The owner
 *    counts offered and no_slot, the boot core sent and link_full; each
 *    counter has one writer and only grows.
 * 6. At the end (value_sampling_finish, every core stopped), the boot
 *    core takes every bank, sends them within FINISH_NS of virtual time,
 *    counts what is left as link_full, and sends the final VALUE_STATS.
 * 7. A hotlist goes as one VALUES entry per run of at most HOTLIST_CHUNK
 *    pairs of one tau (value-hotlist.h notes 1 and 4: each pair has its
 *    own; the sender sorts them by tau first), each entry with that tau;
 *    the first carries its offered count, the rest 0 ("offered since the
 *    last VALUES of it"), so the host's sums are unchanged.  Each entry
 *    fits the smallest data frame, so a bank resumes at (slot, part),
 *    part the first pair of the next entry.  A hotlist cut after its first part by the
 *    end of the run (note 6) was counted sent; its later parts are lost,
 *    which only lowers that PC's estimates.
 * 8. Where runs land (the sampling's soundness).  Each execution of a
 *    load must be as likely to be captured as any other, so the runs'
 *    start points must be spread along the workload's instructions
 *    independently of what the code there does.  A run costs the handler
 *    22,000-77,000 instructions of virtual time (qsort, length 64: what
 *    it decodes afresh, how many values it offers), and with the
 *    deadline fixed before the run the workload ran only the period less
 *    that cost before the next tick: where the next run landed depended
 *    on what this one had interpreted, and the runs were denser where
 *    runs cost more.  Measured with a trace of every run (qsort 2
 *    rounds, seed 1): the runs that captured qsort's partition-stack
 *    depth cost 54,000 instructions against 35,000 for the median run
 *    and the workload ran 4,400-6,600 instructions after them against
 *    27,000, by depth value; the depth's sampled shares were 2.5-2.8
 *    standard errors off the truth.  One run of 64 instructions never
 *    captured one load twice (each of those loads: 1 value per run), so
 *    the values were not clustered within a run.  Hence profiler.c
 *    note 5: after a run the deadline moves by the run's time, and the
 *    workload runs the whole drawn period between runs, a step drawn
 *    independently of the code, so every execution has the same chance
 *    to fall in a run's window (a renewal process with i.i.d. steps).
 *    The same trace after the change: 21,200-23,200 instructions of the
 *    workload between any two runs at --period 20000-22000, whatever
 *    the run before cost (21,700-75,200).
 *    The price is time: at a given period a run now comes after a full
 *    period of the workload, not after what the previous run left of it.
 */
#include "firmware/profiler/value-sampling.h"

#include "board.h"
#include "firmware/abi/link-codec.h"
#include "firmware/arch/barrier.h"
#include "firmware/arch/pal.h"
#include "firmware/drivers/alarm.h"
#include "firmware/kernel/console.h"
#include "firmware/profiler/link-tx.h"
#include "firmware/profiler/pmu.h"
#include "firmware/profiler/rng.h"
#include "firmware/profiler/value-hotlist.h"
#include "firmware/profiler/value-interp.h"
#include "linker/ram-map.h"

#define FINISH_NS 2000000000ull

_Static_assert(HOTLIST_CHUNK <= LK_MAX_HOT_VALUES, "a hotlist's chunk fits one VALUES entry");
_Static_assert(HOTLIST_CHUNK * (LK_VARINT_MAX + 5) + 5 * LK_VARINT_MAX + 2 * LK_VARINT_MAX + LK_HDR_SIZE + LK_CRC_SIZE
               < 256, "one entry fits the smallest data frame (link-tx.c's DATA_RAW_MIN)");
_Static_assert(VI_STOP_COUNT <= LK_MAX_VALUE_STOPS, "every stop reason fits VALUE_STATS");

struct value_bank {
    volatile uint32_t ready;        /* note 4: 1 while the boot core owns it */
    uint32_t pad[15];
    struct hotlist_area h;
};

struct value_core {
    /* the owner's (note 5) */
    uint32_t countdown;             /* ticks until the next run */
    uint32_t active;                /* bank being filled */
    uint32_t rng;                   /* skip lengths */
    uint32_t pad;
    uint64_t handover_ns;
    uint64_t clock_base;            /* cycles two back-to-back clock reads take (+1: measured) */
    uint64_t runs, insns, cycles, not_user, offered, no_slot;
    uint64_t stops[VI_STOP_COUNT];
    struct vi_decode_cache cache;
    struct value_bank bank[2] __attribute__((aligned(64)));
};

_Static_assert(sizeof(struct value_core) <= VALUES_PER_CORE, "a core's value area fits its RAM");

/* The boot core's side of a core (note 5). */
struct value_send {
    uint32_t next_slot[2];          /* where a partly sent bank resumes: this slot's */
    uint32_t next_part[2];          /* ... part (its first pair, note 7) */
    uint64_t sent, link_full;
};

static struct value_send sends[MAX_CORES];
unsigned value_sampling_every;     /* value-sampling.h */
static unsigned length, skip_max, cores;
static uint64_t handover_ns;
static struct value_capture capture;
static uint8_t frame_buf[LK_MAX_RAW];

static struct value_core *core_area(unsigned core)
{
    return (struct value_core *)(KSEG_BASE + VALUES_PHYS + (uint64_t)core * VALUES_PER_CORE);
}

void value_sampling_init(const struct boot_options *b, unsigned ncores, unsigned flush_ms)
{
    value_sampling_every = b->value_every;
    length = b->value_length;
    skip_max = b->value_skip;
    capture = b->value_capture;
    cores = ncores;
    handover_ns = (uint64_t)flush_ms * 1000000ull;
    if (!value_sampling_every)
        return;
    for (unsigned c = 0; c < ncores; c++) {
        struct value_core *v = core_area(c);
        uint8_t *p = (uint8_t *)v;
        for (uint64_t i = 0; i < sizeof *v - sizeof v->bank; i++)
            p[i] = 0;
        v->countdown = value_sampling_every;
        v->rng = minstd_seed(b->seed * 7919u + c + 1);
        for (unsigned k = 0; k < 2; k++) {
            hotlist_area_init(&v->bank[k].h, ((uint64_t)b->seed << 32) + c * 2 + k + 1);
            v->bank[k].ready = 0;
        }
        sends[c] = (struct value_send){{0, 0}, {0, 0}, 0, 0};
    }
    mb();
}

int value_sampling_fast_tick(unsigned core)
{
    if (!value_sampling_every)
        return 0;
    struct value_core *v = core_area(core);
    if (v->countdown <= 1)
        return 1;                   /* due: the full path counts it and runs */
    v->countdown--;
    return 0;
}

/* ---- one run ---- */

struct run_ctx {
    unsigned core;
    struct value_core *v;
    struct hotlist_area *h;
    const struct vi_region *stack;
};

/* The model's cycle count (retire time, so the load's latency shows
 * around it), or the processor's cycle counter on the plain board. */
static uint64_t cycles_now(void *ctx)
{
    const struct run_ctx *x = ctx;
    if (pmu_present())
        return ((volatile struct pmu_window *)pmu_window_of(x->core))->cycles;
    uint64_t t;
    __asm__ volatile("rpcc %0" : "=r"(t));
    return t & 0xffffffffu;
}

static unsigned class_of(unsigned cls)
{
    switch ((enum alpha_class)cls) {
    case ALPHA_IALU: case ALPHA_ISHIFT: case ALPHA_IMUL: return VALUE_CLASS_INT;
    case ALPHA_LOAD: return VALUE_CLASS_LOAD;
    case ALPHA_STORE: return VALUE_CLASS_STORE;
    case ALPHA_BRANCH: case ALPHA_BRANCH_COND: case ALPHA_JUMP: return VALUE_CLASS_BRANCH;
    case ALPHA_FADD: case ALPHA_FMUL: case ALPHA_FDIV: case ALPHA_FDIV_T: case ALPHA_FSQRT:
    case ALPHA_FSQRT_T: case ALPHA_FMOV: return VALUE_CLASS_FP;
    default: return VALUE_CLASS_COUNT;          /* barriers, hints: nothing to capture */
    }
}

static void observe(void *p, const struct vi_event *e, const struct vi_state *s)
{
    struct run_ctx *x = p;
    unsigned vc = class_of(e->cls);
    if (vc == VALUE_CLASS_COUNT)
        return;
    unsigned kinds = capture.kinds[vc];
    for (unsigned k = 0; kinds; k++, kinds >>= 1) {
        if (!(kinds & 1))
            continue;
        uint64_t value;
        switch (k) {
        case VALUE_RESULT:
            if (!e->has_result)
                continue;
            value = e->result;
            break;
        case VALUE_OPERAND_A: value = e->a; break;
        case VALUE_OPERAND_B: value = e->b; break;
        case VALUE_ADDRESS:
            if (!e->has_ea)
                continue;
            value = e->ea;
            break;
        case VALUE_LATENCY:         /* the clock's own cost taken out */
            if (e->cls != ALPHA_LOAD || !e->has_ea)
                continue;
            value = e->load_cycles > x->v->clock_base - 1 ? e->load_cycles - (x->v->clock_base - 1) : 0;
            break;
        case VALUE_RA: value = s->r[26]; break;
        case VALUE_TOS: {
            uint64_t sp = s->r[30];
            if ((sp & 7) || sp < x->stack->lo || sp + 8 > x->stack->hi)
                continue;
            value = *(const volatile uint64_t *)(KSEG_BASE + sp);
            break;
        }
        default:
            continue;
        }
        hotlist_record(x->h, e->pc, k, value);
    }
}

/* Note 4: the owner hands its active bank over. */
static void maybe_hand_over(struct value_core *v, uint64_t now_ns)
{
    struct value_bank *a = &v->bank[v->active], *o = &v->bank[v->active ^ 1];
    if (now_ns - v->handover_ns < handover_ns || o->ready || a->h.offered == 0)
        return;
    wmb();
    a->ready = 1;
    v->active ^= 1;
    v->handover_ns = now_ns;
}

static void run(unsigned core, struct value_core *v, struct trap_frame *f, uint64_t now_ns)
{
    if (!(f->pal.ps & 8)) {         /* PS<3>: the interrupted mode was kernel */
        v->not_user++;
        return;
    }
    maybe_hand_over(v, now_ns);
    struct vi_state s;
    for (unsigned i = 0; i < 32; i++) {
        s.r[i] = f->r[i];
        s.f[i] = f->f[i];
    }
    s.r[16] = f->pal.a0;
    s.r[17] = f->pal.a1;
    s.r[18] = f->pal.a2;
    s.r[29] = f->pal.gp;
    s.r[30] = pal_rdusp();
    s.r[31] = 0;
    s.fpcr = f->f[31];
    s.f[31] = 0;
    s.pc = f->pal.pc;

    uint64_t stack_lo = USER_STACK_PHYS + (uint64_t)core * USER_STACK_SIZE + USER_STACK_GUARD;
    uint64_t pmu_page = PMU_WINDOW_PHYS + (uint64_t)core * PMU_WINDOW_PER_CORE;
    struct value_bank *bank = &v->bank[v->active];
    struct vi_env env = {
        .region = {
            {USER_BASE, USER_STACK_PHYS, (uintptr_t)(KSEG_BASE + USER_BASE), VI_REGION_READ | VI_REGION_WRITE},
            {stack_lo, stack_lo + USER_STACK_SIZE - USER_STACK_GUARD, (uintptr_t)(KSEG_BASE + stack_lo),
             VI_REGION_READ | VI_REGION_WRITE | VI_REGION_STACK},
            {pmu_page, pmu_page + PAGE_SIZE_ALPHA, 0, VI_REGION_DEVICE},
        },
        .nregions = 3,
        .cache = &v->cache,
        .clock = cycles_now,
        .observe = observe,
    };
    struct run_ctx x = {core, v, &bank->h, &env.region[1]};
    env.ctx = &x;
    if (!v->clock_base) {           /* once: what reading the clock twice costs */
        uint64_t least = ~0ull;
        for (unsigned i = 0; i < 8; i++) {
            uint64_t t = cycles_now(&x);
            uint64_t d = cycles_now(&x) - t;
            least = d < least ? d : least;
        }
        v->clock_base = least + 1;
    }
    struct vi_write_buffer wb;
    vi_wb_reset(&wb);
    unsigned skip = (unsigned)minstd_between(&v->rng, 0, skip_max);
    uint64_t offered0 = bank->h.offered, no_slot0 = bank->h.dropped_no_slot;
    uint64_t t0 = cycles_now(&x);
    struct vi_result r = vi_run(&s, &env, &wb, skip + length, skip);
    v->cycles += cycles_now(&x) - t0;
    v->runs++;
    v->insns += r.executed;
    v->stops[r.stop]++;
    v->offered += bank->h.offered - offered0;
    v->no_slot += bank->h.dropped_no_slot - no_slot0;
}

int value_sampling_due(unsigned core)
{
    return value_sampling_every && core_area(core)->countdown <= 1;
}

void value_sampling_tick(unsigned core, struct trap_frame *f, uint64_t now_ns)
{
    if (!value_sampling_every)
        return;
    struct value_core *v = core_area(core);
    if (v->countdown > 1) {
        v->countdown--;
        return;
    }
    v->countdown = value_sampling_every;
    run(core, v, f, now_ns);
}

/* ---- the boot core's side ---- */

/* Sends bank b of core c from where it stopped (note 7); 1 when all of it went. */
static int send_bank(unsigned c, unsigned b)
{
    struct value_core *v = core_area(c);
    struct value_bank *bank = &v->bank[b];
    struct value_send *sd = &sends[c];
    mb();
    uint32_t i = sd->next_slot[b], part = sd->next_part[b];
    for (;;) {
        while (part == 0 && i < HOTLIST_SLOTS && bank->h.slot[i].offered == 0)
            i++;
        if (i == HOTLIST_SLOTS)
            break;
        if (!link_tx_has_room())
            goto later;
        struct lk_writer w;
        lk_values_begin(&w, frame_buf, link_tx_data_frame(), c);
        uint64_t offered = 0;
        uint32_t j = i, p = part;
        while (j < HOTLIST_SLOTS) {
            struct hotlist *h = &bank->h.slot[j];
            if (h->offered == 0) {
                j++;
                continue;
            }
            if (p == 0)
                hotlist_sort_by_tau(&bank->h, h);      /* the bank is ours (note 4) */
            uint32_t first = p, n = 0;
            unsigned shift = h->entries ? *hotlist_shift(&bank->h, h, first) : (unsigned)__builtin_ctz(h->tau);
            while (first + n < h->entries && n < HOTLIST_CHUNK && *hotlist_shift(&bank->h, h, first + n) == shift)
                n++;
            struct lk_hotlist e = {.pc = h->pc, .kind = h->kind, .tau = 1u << shift,
                                   .offered = p == 0 ? h->offered : 0, .nvalues = n};
            for (unsigned k = 0; k < n; k++) {
                e.value[k] = *hotlist_value(&bank->h, h, first + k);
                e.count[k] = *hotlist_count(&bank->h, h, first + k);
            }
            if (lk_values_add(&w, &e) != LK_OK)
                break;
            offered += e.offered;
            if (first + n < h->entries) {
                p = first + n;
            } else {
                p = 0;
                j++;
            }
        }
        if (!link_tx_send(&w))
            goto later;
        sd->sent += offered;
        i = j;
        part = p;
    }
    uint64_t seed = bank->h.rng;
    hotlist_area_init(&bank->h, seed);
    sd->next_slot[b] = 0;
    sd->next_part[b] = 0;
    wmb();
    bank->ready = 0;
    return 1;
later:
    sd->next_slot[b] = i;
    sd->next_part[b] = part;
    return 0;
}

static void send_stats(unsigned c)
{
    struct value_core *v = core_area(c);
    struct lk_value_stats st = {
        .core = c, .runs = v->runs, .insns = v->insns, .cycles = v->cycles,
        .offered = v->offered, .sent = sends[c].sent, .no_slot = v->no_slot,
        .link_full = sends[c].link_full, .not_user = v->not_user,
    };
    for (unsigned k = 0; k < VI_STOP_COUNT; k++)
        if (v->stops[k]) {
            st.stops[st.nstops].id = k;
            st.stops[st.nstops].value = v->stops[k];
            st.nstops++;
        }
    struct lk_writer w;
    if (lk_enc_value_stats(&w, frame_buf, sizeof frame_buf, &st) == LK_OK && link_tx_has_room())
        link_tx_send(&w);   /* cumulative: a stats frame the link had no room for loses nothing */
}

void value_sampling_send(void)
{
    if (!value_sampling_every)
        return;
    for (unsigned c = 0; c < cores; c++) {
        struct value_core *v = core_area(c);
        for (unsigned b = 0; b < 2; b++)
            if (v->bank[b].ready && !send_bank(c, b))
                return;
        send_stats(c);
    }
}

void value_sampling_finish(void)
{
    if (!value_sampling_every)
        return;
    for (unsigned c = 0; c < cores; c++) {
        struct value_core *v = core_area(c);
        for (unsigned b = 0; b < 2; b++)
            if (v->bank[b].h.offered)
                v->bank[b].ready = 1;
    }
    uint64_t deadline = clock_ns() + FINISH_NS;
    for (;;) {
        int left = 0;
        for (unsigned c = 0; c < cores; c++)
            for (unsigned b = 0; b < 2; b++)
                if (core_area(c)->bank[b].ready && !send_bank(c, b))
                    left = 1;
        if (!left || clock_ns() >= deadline)
            break;
        link_tx_pump();
    }
    for (unsigned c = 0; c < cores; c++) {
        struct value_core *v = core_area(c);
        for (unsigned b = 0; b < 2; b++) {
            struct value_bank *bank = &v->bank[b];
            if (!bank->ready)
                continue;
            /* a hotlist whose first part went was counted sent (note 7) */
            for (uint32_t i = sends[c].next_slot[b] + (sends[c].next_part[b] != 0); i < HOTLIST_SLOTS; i++)
                sends[c].link_full += bank->h.slot[i].offered;
            hotlist_area_init(&bank->h, bank->h.rng);
            sends[c].next_slot[b] = 0;
            sends[c].next_part[b] = 0;
            bank->ready = 0;
        }
        link_tx_wait_free(link_tx_reserve());
        send_stats(c);
    }
}

void value_sampling_summary(unsigned ncores)
{
    if (!value_sampling_every)
        return;
    for (unsigned c = 0; c < ncores; c++) {
        struct value_core *v = core_area(c);
        mon_printf("monitor: values: core %u: %lu runs, %lu instructions interpreted, %lu cycles, "
                   "%lu values offered, %lu sent, %lu no slot, %lu link full, %lu not user\n",
                   c, (unsigned long)v->runs, (unsigned long)v->insns, (unsigned long)v->cycles,
                   (unsigned long)v->offered, (unsigned long)sends[c].sent, (unsigned long)v->no_slot,
                   (unsigned long)sends[c].link_full, (unsigned long)v->not_user);
        for (unsigned k = 0; k < VI_STOP_COUNT; k++)
            if (v->stops[k])
                mon_printf("monitor: values: core %u: stop %s %lu\n", c, vi_stop_name((enum vi_stop)k),
                           (unsigned long)v->stops[k]);
    }
}
