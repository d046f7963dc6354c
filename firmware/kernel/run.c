/*
 * The workload's life: the boot core enters main (through the image's
 * entry) in user mode; each secondary, woken by an IPI, enters core_entry
 * (core, ncores).  A secondary's exit parks it; the boot core's exit ends
 * the run for everyone.
 */
#include "firmware/kernel/run.h"

#include <errno.h>
#include <string.h>
#include "firmware/arch/pal.h"
#include "firmware/boot/smp.h"
#include "firmware/drivers/alarm.h"
#include "firmware/kernel/cmdline.h"
#include "firmware/kernel/console.h"
#include "firmware/kernel/halt.h"
#include "firmware/kernel/percpu.h"
#include "firmware/kernel/spinlock.h"
#include "firmware/profiler/profiler.h"
#include "firmware/abi/link-protocol.h"
#include "linker/ram-map.h"

extern void enter_user(uint64_t pc, uint64_t usp, uint64_t a0, uint64_t a1)
    __attribute__((noreturn));

static const struct loaded_image *current;
static uint64_t run_start_ns;
static spinlock_t heap_lock;
static uint64_t heap_break = USER_HEAP_PHYS;

static uint64_t user_stack_top(unsigned core)
{
    return USER_STACK_PHYS + (core + 1) * (uint64_t)USER_STACK_SIZE - USER_STACK_TOP_GAP;
}

const char *run_image_name(void)
{
    return current ? current->hdr->name : "the monitor";
}

/* Sleeps until *flag is set; interrupts stay serviceable.  The check runs
 * with interrupts masked so a wake-up IPI between check and WTINT stays
 * pending and ends the WTINT at once. */
static void wait_for(volatile int *flag)
{
    for (;;) {
        unsigned ipl = pal_swpipl(IPL_ALL_MASKED);
        int set = *flag;
        if (!set)
            pal_wtint();
        pal_swpipl(ipl);
        if (set)
            return;
    }
}

void run_workload(const struct loaded_image *img)
{
    current = img;
    loader_prepare(img);
    mb();
    mon_printf("monitor: running %s on %u cores\n", img->hdr->name, ncores);
    for (unsigned c = 1; c < ncores; c++) {
        percpu[c].go = 1;
        mb();
        smp_send_ipi(c);
    }
    percpu[0].state = CORE_RUNNING;
    run_start_ns = clock_ns();
    profiler_core_start(0);
    enter_user(img->hdr->entry, user_stack_top(0), 0, ncores);
}

void run_secondary_loop(void)
{
    unsigned core = this_core();
    struct percpu *me = &percpu[core];
    pal_swpipl(IPL_ALL_OPEN);
    wait_for(&me->go);
    mb();
    if (current && current->hdr->core_entry) {
        me->state = CORE_RUNNING;
        profiler_core_start(core);
        enter_user(current->hdr->core_entry, user_stack_top(core), core, ncores);
    }
    me->result = 0;
    mb();
    me->state = CORE_DONE;
    smp_send_ipi(0);
    static volatile int never;
    wait_for(&never);
    pal_halt();
}

static void report_ticks(void)
{
    uint64_t now = clock_ns();
    for (unsigned c = 0; c < ncores; c++) {
        struct percpu *p = &percpu[c];
        if (!p->alarm_period_ns)
            continue;
        mon_printf("monitor: core %u alarm %lu ticks %lu late period %lu ns over %lu ns\n", c,
                   (unsigned long)p->alarm_ticks, (unsigned long)p->alarm_late,
                   (unsigned long)p->alarm_period_ns, (unsigned long)(now - p->alarm_start_ns));
    }
}

void run_exit(unsigned core, long status)
{
    if (core != 0) {
        struct percpu *me = &percpu[core];
        me->result = status;
        mb();
        me->state = CORE_DONE;
        smp_send_ipi(0);
        static volatile int never;
        wait_for(&never);
        pal_halt();
    }
    uint64_t run_ns = clock_ns() - run_start_ns;
    profiler_finish(status, LK_END_EXIT);
    mon_printf("monitor: run time %lu ns\n", (unsigned long)run_ns);
    if (boot_options.report_ticks)
        report_ticks();
    mon_printf("monitor: %s exited with status %ld\n", run_image_name(), status);
    monitor_end_run(status != 0);
}

long run_join_cores(void)
{
    long sum = 0;
    for (unsigned c = 1; c < ncores; c++) {
        for (;;) {
            unsigned ipl = pal_swpipl(IPL_ALL_MASKED);
            int done = percpu[c].state == CORE_DONE;
            if (!done)
                pal_wtint();
            pal_swpipl(ipl);
            if (done)
                break;
        }
        mb();
        sum += percpu[c].result;
    }
    return sum;
}

long run_sbrk(long increment)
{
    unsigned ipl = spin_lock_irqsave(&heap_lock);
    uint64_t old = heap_break;
    uint64_t want = old + (uint64_t)increment;
    long r;
    if ((increment >= 0 && (want < old || want > USER_HEAP_END)) ||
        (increment < 0 && (want > old || want < USER_HEAP_PHYS))) {
        r = -ENOMEM;
    } else {
        heap_break = want;
        r = (long)old;
    }
    spin_unlock_irqrestore(&heap_lock, ipl);
    return r;
}

long run_get_args(char *buf, unsigned long len)
{
    const char *name = run_image_name();
    size_t nlen = strlen(name), alen = strlen(boot_options.args);
    size_t total = nlen + (alen ? 1 + alen : 0);
    if (len == 0)
        return (long)total;
    size_t n = 0;
    for (size_t i = 0; i < nlen && n + 1 < len; i++)
        buf[n++] = name[i];
    if (alen && n + 1 < len)
        buf[n++] = ' ';
    for (size_t i = 0; i < alen && n + 1 < len; i++)
        buf[n++] = boot_options.args[i];
    buf[n] = '\0';
    return (long)total;
}
