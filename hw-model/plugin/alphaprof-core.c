/*
 * alphaprof-core: the ProfileMe-capable core as a QEMU TCG plugin.
 *
 * Every executed instruction reaches on_insn() before it runs, in program
 * order on its vCPU's thread; its memory access reaches on_mem() after.
 * So the model finishes an instruction when the next one arrives: then its
 * address and its successor (the branch outcome) are known.  Each finished
 * instruction goes through the timing model (model/core-model.c), into the
 * oracle (exact per-PC truth) and through the event counters, whose
 * overflows append records with the exact PC to the core's ring in the
 * guest window (pmu-window.h).
 *
 * Arguments: ram=PATH (the RAM backend file), cores=N, oracle=PATH (truth
 * written at exit), mode=full (the only mode so far), and model parameters
 * (width, rob, l1d_kb, l1i_kb, l2_kb, memory_latency, mispredict_penalty).
 *
 * Interrupts: none yet.  QEMU 7.2 gives plugins no API to raise one; the
 * firmware drains the rings from its own timer tick (the portable
 * fallback), which costs nothing in accuracy since records carry the PC.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hw-model/isa/alpha-isa.h"
#include "hw-model/model/core-model.h"
#include "hw-model/oracle-format.h"
#include "hw-model/plugin/irq-delivery.h"
#include "hw-model/plugin/pc-table.h"
#include "hw-model/plugin/qemu-plugin-api.h"
#include "hw-model/pmu-window.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

struct insn_info {
    struct insn_static s;
};

struct counter_state {
    uint32_t event;
    bool enabled;
    int64_t remaining;
    uint64_t period_min, period_max;
};

struct vcpu {
    struct core_model model;
    struct pmu_window *win;
    uint64_t config_gen;
    uint32_t rng;
    struct counter_state counters[PMU_COUNTERS];
    const struct insn_info *prev;
    uint64_t prev_addr;
    struct pc_table oracle;
    uint64_t overflows, dropped;
};

static struct {
    unsigned ncores;
    struct vcpu *vcpus;
    uint8_t *ram;
    size_t ram_size;
    char oracle_path[4096];
    struct model_params params;
} g;

static void fail(const char *msg)
{
    char buf[700];
    snprintf(buf, sizeof buf, "alphaprof-core: %.600s\n", msg);
    qemu_plugin_outs(buf);
}

static uint32_t minstd(uint32_t *s)
{
    uint64_t x = (uint64_t)*s * 16807u % 2147483647u;
    *s = (uint32_t)(x ? x : 1);
    return *s;
}

static int64_t draw_period(struct vcpu *v, const struct counter_state *c)
{
    uint64_t span = c->period_max - c->period_min + 1;
    return (int64_t)(c->period_min + (uint64_t)minstd(&v->rng) % span);
}

/* The firmware changed the counters: read and check its configuration. */
static void reload_config(struct vcpu *v)
{
    struct pmu_window *w = v->win;
    v->config_gen = w->config_gen;
    v->rng = (uint32_t)(w->seed % 2147483646u) + 1;
    for (unsigned i = 0; i < PMU_COUNTERS; i++) {
        struct pmu_counter_config cfg = w->counters[i];
        struct counter_state *c = &v->counters[i];
        c->enabled = cfg.enable == 1 && cfg.event < PMU_EV_COUNT &&
                     cfg.period_min >= PMU_MIN_PERIOD && cfg.period_max >= cfg.period_min &&
                     cfg.period_max - cfg.period_min < (1ull << 31);
        c->event = cfg.event;
        c->period_min = cfg.period_min;
        c->period_max = cfg.period_max;
        if (c->enabled)
            c->remaining = draw_period(v, c);
    }
}

static void emit(struct vcpu *v, const struct insn_info *in, uint64_t addr, uint32_t event,
                 const struct insn_result *r)
{
    struct pmu_window *w = v->win;
    v->overflows++;
    w->overflows = v->overflows;
    uint64_t head = w->ring_head, tail = __atomic_load_n(&w->ring_tail, __ATOMIC_ACQUIRE);
    if (head - tail >= PMU_RING_ENTRIES || tail > head) {
        v->dropped++;
        w->ring_dropped = v->dropped;
        return;
    }
    w->ring[head % PMU_RING_ENTRIES] = (struct pmu_record){
        .pc = in->s.pc, .cycle = r->retire, .addr = addr, .event = event, .latency = r->latency};
    __atomic_store_n(&w->ring_head, head + 1, __ATOMIC_RELEASE);
    irq_delivery_check(w, (unsigned)(v - g.vcpus));
}

static void finish(struct vcpu *v, const struct insn_info *in, uint64_t addr, uint64_t next_pc)
{
    struct insn_result r;
    core_model_step(&v->model, &in->s, addr, next_pc, &r);

    struct oracle_pc *o = pc_table_get(&v->oracle, in->s.pc);
    if (o) {
        o->executions++;
        o->cycles += r.cycles;
        o->events[PMU_EV_CYCLES] += r.cycles;
        for (unsigned e = 1; e < PMU_EV_COUNT; e++)
            o->events[e] += r.events[e];
    }
    if (!v->win)
        return;
    if (v->win->config_gen != v->config_gen)
        reload_config(v);
    v->win->cycles = v->model.last_retire;
    v->win->retired = v->model.seq;
    if (in->s.cls == ALPHA_LOAD)
        v->win->last_load_latency = r.latency;
    for (unsigned i = 0; i < PMU_COUNTERS; i++) {
        struct counter_state *c = &v->counters[i];
        if (!c->enabled)
            continue;
        uint64_t n = c->event == PMU_EV_CYCLES ? r.cycles : r.events[c->event];
        if (!n)
            continue;
        c->remaining -= (int64_t)n;
        while (c->remaining <= 0) {
            emit(v, in, addr, c->event, &r);
            c->remaining += draw_period(v, c);
        }
    }
}

static void on_insn(unsigned int vcpu_index, void *userdata)
{
    if (vcpu_index >= g.ncores)
        return;
    struct vcpu *v = &g.vcpus[vcpu_index];
    const struct insn_info *cur = userdata;
    if (v->prev)
        finish(v, v->prev, v->prev_addr, cur->s.pc);
    v->prev = cur;
    v->prev_addr = 0;
}

static void on_mem(unsigned int vcpu_index, qemu_plugin_meminfo_t info, uint64_t vaddr, void *userdata)
{
    (void)info;
    (void)userdata;
    if (vcpu_index < g.ncores)
        g.vcpus[vcpu_index].prev_addr = vaddr;
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        struct insn_info *in = malloc(sizeof *in);
        if (!in)
            return;
        uint32_t word = 0;
        memcpy(&word, qemu_plugin_insn_data(insn),
               qemu_plugin_insn_size(insn) < 4 ? qemu_plugin_insn_size(insn) : 4);
        insn_static_decode(&in->s, qemu_plugin_insn_vaddr(insn), word);
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, QEMU_PLUGIN_CB_NO_REGS, in);
        if (in->s.cls == ALPHA_LOAD || in->s.cls == ALPHA_STORE || in->s.cls == ALPHA_LOAD_LOCKED ||
            in->s.cls == ALPHA_STORE_COND)
            qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, NULL);
    }
}

static int cmp_pc(const void *a, const void *b)
{
    const struct oracle_pc *x = a, *y = b;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* Sums the cores' tables into one sorted array. */
static struct oracle_pc *merge_oracle(uint64_t *npcs)
{
    struct pc_table all;
    if (pc_table_init(&all, 1 << 16))
        return NULL;
    for (unsigned c = 0; c < g.ncores; c++) {
        struct pc_table *t = &g.vcpus[c].oracle;
        for (size_t i = 0; i < t->cap; i++) {
            const struct oracle_pc *e = &t->slots[i];
            if (!e->executions)
                continue;
            struct oracle_pc *d = pc_table_get(&all, e->pc);
            if (!d)
                continue;
            d->executions += e->executions;
            d->cycles += e->cycles;
            for (unsigned k = 0; k < PMU_EV_COUNT; k++)
                d->events[k] += e->events[k];
        }
    }
    struct oracle_pc *out = malloc((all.used ? all.used : 1) * sizeof *out);
    size_t n = 0;
    for (size_t i = 0; out && i < all.cap; i++)
        if (all.slots[i].executions)
            out[n++] = all.slots[i];
    pc_table_free(&all);
    if (out)
        qsort(out, n, sizeof *out, cmp_pc);
    *npcs = n;
    return out;
}

static void write_oracle(void)
{
    if (!g.oracle_path[0])
        return;
    uint64_t npcs = 0;
    struct oracle_pc *pcs = merge_oracle(&npcs);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", g.oracle_path);
    FILE *f = fopen(tmp, "wb");
    if (!f || !pcs) {
        fail("cannot write the oracle file");
        if (f)
            fclose(f);
        free(pcs);
        return;
    }
    struct oracle_header h = {.magic = ORACLE_MAGIC, .version = ORACLE_VERSION, .ncores = g.ncores,
                              .npcs = npcs, .nevents = PMU_EV_COUNT};
    fwrite(&h, sizeof h, 1, f);
    for (unsigned c = 0; c < g.ncores; c++) {
        struct vcpu *v = &g.vcpus[c];
        struct oracle_core oc = {.cycles = v->model.last_retire, .instructions = v->model.seq,
                                 .overflows = v->overflows, .ring_dropped = v->dropped};
        if (v->win) {
            oc.ring_unread = v->win->ring_head - v->win->ring_tail;
            oc.interrupts = v->win->interrupts;
        }
        memcpy(oc.events, v->model.events, sizeof oc.events);
        fwrite(&oc, sizeof oc, 1, f);
    }
    fwrite(pcs, sizeof *pcs, npcs, f);
    free(pcs);
    if (fclose(f) == 0)
        rename(tmp, g.oracle_path);
}

static void on_exit_cb(qemu_plugin_id_t id, void *userdata)
{
    (void)id;
    (void)userdata;
    for (unsigned c = 0; c < g.ncores; c++) {
        struct vcpu *v = &g.vcpus[c];
        if (v->prev)
            finish(v, v->prev, v->prev_addr, v->prev->s.pc + 4);
        v->prev = NULL;
    }
    write_oracle();
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

static bool parse_param(const char *key, const char *val)
{
    struct { const char *name; unsigned *field; } params[] = {
        {"width", &g.params.width}, {"rob", &g.params.rob}, {"l1d_kb", &g.params.l1d_kb},
        {"l1i_kb", &g.params.l1i_kb}, {"l2_kb", &g.params.l2_kb},
        {"memory_latency", &g.params.memory_latency},
        {"mispredict_penalty", &g.params.mispredict_penalty},
    };
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
        if (!strcmp(key, params[i].name)) {
            char *end;
            unsigned long v = strtoul(val, &end, 10);
            if (*end || v == 0 || v > 1u << 20)
                return false;
            *params[i].field = (unsigned)v;
            return true;
        }
    return false;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                           char **argv)
{
    char msg[600];
    const char *ram = NULL;
    model_params_default(&g.params);
    g.ncores = info->system_emulation ? (unsigned)info->system.smp_vcpus : 1;
    for (int i = 0; i < argc; i++) {
        char key[64];
        const char *eq = strchr(argv[i], '=');
        if (!eq || (size_t)(eq - argv[i]) >= sizeof key) {
            snprintf(msg, sizeof msg, "argument '%s' is not key=value", argv[i]);
            fail(msg);
            return -1;
        }
        memcpy(key, argv[i], (size_t)(eq - argv[i]));
        key[eq - argv[i]] = '\0';
        const char *val = eq + 1;
        if (!strcmp(key, "ram"))
            ram = val;
        else if (!strcmp(key, "cores"))
            g.ncores = (unsigned)atoi(val);
        else if (!strcmp(key, "oracle"))
            snprintf(g.oracle_path, sizeof g.oracle_path, "%s", val);
        else if (!strcmp(key, "mode")) {
            if (strcmp(val, "full")) {
                snprintf(msg, sizeof msg, "mode=%s: only mode=full exists so far", val);
                fail(msg);
                return -1;
            }
        } else if (!parse_param(key, val)) {
            snprintf(msg, sizeof msg, "unknown or bad argument '%s'", argv[i]);
            fail(msg);
            return -1;
        }
    }
    if (g.ncores < 1 || g.ncores > MAX_CORES) {
        fail("cores= must be 1..4");
        return -1;
    }
    g.vcpus = calloc(g.ncores, sizeof *g.vcpus);
    if (!g.vcpus)
        return -1;
    if (ram && map_ram(ram)) {
        snprintf(msg, sizeof msg, "cannot map the RAM file %s (%s): the guest window is off", ram,
                 strerror(errno));
        fail(msg);
    }
    char why[200];
    uint32_t irq_mode = PMU_IRQ_IPI;
    if (g.ram && !irq_delivery_init(why, sizeof why)) {
        irq_mode = PMU_IRQ_NONE;
        snprintf(msg, sizeof msg, "no performance interrupts (%s): the firmware polls the rings", why);
        fail(msg);
    }
    for (unsigned c = 0; c < g.ncores; c++) {
        struct vcpu *v = &g.vcpus[c];
        if (core_model_init(&v->model, &g.params) || pc_table_init(&v->oracle, 1 << 14)) {
            fail("bad model parameters or out of memory");
            return -1;
        }
        if (g.ram) {
            v->win = (struct pmu_window *)(g.ram + PMU_WINDOW_PHYS + (size_t)c * PMU_WINDOW_PER_CORE);
            memset(v->win, 0, sizeof *v->win);
            v->win->version = PMU_VERSION;
            v->win->ncounters = PMU_COUNTERS;
            v->win->irq_mode = irq_mode;
            __atomic_store_n(&v->win->magic, PMU_MAGIC, __ATOMIC_RELEASE);
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
    qemu_plugin_register_atexit_cb(id, on_exit_cb, NULL);
    return 0;
}
