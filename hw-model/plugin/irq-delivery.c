/*
 * Performance interrupts through QEMU's own IPI path.
 *
 * The guest's PAL WRIPIR call writes 1 << (12 + n) to the Typhoon Cchip's
 * MISC register to interrupt core n; so do we, with cpu_physical_memory_rw.
 * The register's physical address and the bit of core 0 are the board's,
 * given by its board file (plugin arguments ipi_reg and ipi_shift; see
 * boards/clipper-pm/board.conf): without them there are no performance
 * interrupts and the firmware polls.
 * A device write needs the big QEMU lock and, under -icount, must not happen
 * inside an instruction callback ("Raised interrupt while not in I/O
 * function"), so the write is queued with async_run_on_cpu: QEMU runs
 * queued work between translation blocks, holding the big lock, on the
 * target's thread.  The core takes the interrupt at the end of its current
 * block, at the same point run to run (deterministic under -icount).  The
 * PALcode acknowledges it; the firmware finds out why from the window.
 *
 * The three functions are QEMU internals, not plugin API: their prototypes
 * below are those of the 7.2 sources, and dlsym checks they exist.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw-model/plugin/irq-delivery.h"
#include "hw-model/pmu-window.h"

#define IPI_SHIFT_MAX       (64 - MAX_CORES)

typedef struct CPUState CPUState;
typedef union {
    int host_int;
    unsigned long host_ulong;
    void *host_ptr;
    uint64_t target_ptr;
} run_on_cpu_data;
typedef void (*run_on_cpu_func)(CPUState *cpu, run_on_cpu_data data);

static struct {
    void (*async_run_on_cpu)(CPUState *cpu, run_on_cpu_func func, run_on_cpu_data data);
    CPUState *(*qemu_get_cpu)(int index);
    void (*cpu_physical_memory_rw)(uint64_t addr, void *buf, uint64_t len, bool is_write);
} q;
static bool usable;     /* all three found */
static struct {
    uint64_t reg;           /* 0: not given */
    unsigned shift;
    bool shift_given;
} board;

static bool parse_u64(const char *val, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(val, &end, 0);
    if (errno || end == val || *end || val[0] == '-')
        return false;
    *out = v;
    return true;
}

bool irq_delivery_param(const char *key, const char *val)
{
    uint64_t v;
    if (!strcmp(key, "ipi_reg"))
        return parse_u64(val, &board.reg) && board.reg != 0 && board.reg % 8 == 0;
    if (!strcmp(key, "ipi_shift")) {
        if (!parse_u64(val, &v) || v > IPI_SHIFT_MAX)
            return false;
        board.shift = (unsigned)v;
        board.shift_given = true;
        return true;
    }
    return false;
}

bool irq_delivery_init(char *why, size_t why_size)
{
    if (!board.reg || !board.shift_given) {
        snprintf(why, why_size, "the board file gives no interrupt register: plugin_args ipi_reg= and ipi_shift=");
        return false;
    }
    static const char *names[] = {"async_run_on_cpu", "qemu_get_cpu", "cpu_physical_memory_rw"};
    void *found[3];
    for (int i = 0; i < 3; i++) {
        found[i] = dlsym(RTLD_DEFAULT, names[i]);
        if (!found[i]) {
            snprintf(why, why_size, "this QEMU does not export %s", names[i]);
            return false;
        }
    }
    /* dlsym returns object pointers; POSIX guarantees they convert. */
    *(void **)&q.async_run_on_cpu = found[0];
    *(void **)&q.qemu_get_cpu = found[1];
    *(void **)&q.cpu_physical_memory_rw = found[2];
    usable = true;
    return true;
}

static void write_misc(CPUState *cpu, run_on_cpu_data data)
{
    (void)cpu;
    uint64_t value = 1ull << (board.shift + (unsigned)data.host_int);
    q.cpu_physical_memory_rw(board.reg, &value, sizeof value, true);
}

void irq_delivery_raise(unsigned core)
{
    CPUState *cpu = q.qemu_get_cpu((int)core);
    if (cpu)
        q.async_run_on_cpu(cpu, write_misc, (run_on_cpu_data){.host_int = (int)core});
}

void irq_delivery_check(struct pmu_window *w, unsigned core)
{
    uint32_t threshold = w->irq_threshold;
    if (!usable || !threshold || w->interrupts != w->irq_ack)
        return;
    uint64_t counters = w->ring_head - w->ring_tail, pme = w->pme_head - w->pme_tail;
    /* A tail beyond its head is a guest bug: the difference wraps, which
     * only means an early interrupt. */
    if (counters < threshold && pme < threshold)
        return;
    w->interrupts++;
    irq_delivery_raise(core);
}
