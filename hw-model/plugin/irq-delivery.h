/*
 * Performance interrupts from the plugin to one guest core.  QEMU 7.2's
 * plugin API cannot raise interrupts; Debian's build exports the internals
 * that can (see irq-delivery.c).  Resolved when the plugin loads: if any is
 * missing the model reports PMU_IRQ_NONE and the firmware polls.
 */
#ifndef HW_MODEL_IRQ_DELIVERY_H
#define HW_MODEL_IRQ_DELIVERY_H

#include <stdbool.h>
#include <stddef.h>

/* A plugin argument of the board's interrupt register: ipi_reg=ADDR (its
 * guest-physical address, 8-byte aligned) or ipi_shift=N (core n is
 * interrupted by writing 1 << (N + n)).  False: not one of those keys, or a
 * bad value. */
bool irq_delivery_param(const char *key, const char *val);
/* Looks the internals up; false (with the reason in why) if unusable or
 * the board gave no interrupt register. */
bool irq_delivery_init(char *why, size_t why_size);
/* Queues an interprocessor interrupt to core; safe from any vCPU callback. */
void irq_delivery_raise(unsigned core);

struct pmu_window;
/* After a record went into one of w's rings: interrupts core when the
 * firmware asked for interrupts (pmu-window.h) and a ring reached its
 * threshold, unless the previous interrupt is still unacknowledged. */
void irq_delivery_check(struct pmu_window *w, unsigned core);

#endif
