/*
 * Spinlocks for the few places cores share monitor state (console lines,
 * the user heap).  Load-locked/store-conditional with a memory barrier on
 * both sides; holders raise the IPL so an interrupt on the same core can
 * never spin on a lock its own core holds.
 */
#ifndef FIRMWARE_KERNEL_SPINLOCK_H
#define FIRMWARE_KERNEL_SPINLOCK_H

#include "firmware/arch/pal.h"

typedef struct { volatile int locked; } spinlock_t;

static inline void spin_lock_raw(spinlock_t *l)
{
    int tmp;
    __asm__ volatile(
        "1:     ldl_l   %0, %1\n"
        "       bne     %0, 2f\n"
        "       lda     %0, 1\n"
        "       stl_c   %0, %1\n"
        "       beq     %0, 2f\n"
        "       mb\n"
        "       br      3f\n"
        "2:     ldl     %0, %1\n"
        "       bne     %0, 2b\n"
        "       br      1b\n"
        "3:\n"
        : "=&r"(tmp), "+m"(l->locked) : : "memory");
}

static inline void spin_unlock_raw(spinlock_t *l)
{
    __asm__ volatile("mb" ::: "memory");
    l->locked = 0;
}

/* Takes the lock with every interrupt masked; returns the IPL to restore. */
static inline unsigned spin_lock_irqsave(spinlock_t *l)
{
    unsigned ipl = pal_swpipl(IPL_ALL_MASKED);
    spin_lock_raw(l);
    return ipl;
}

static inline void spin_unlock_irqrestore(spinlock_t *l, unsigned ipl)
{
    spin_unlock_raw(l);
    pal_swpipl(ipl);
}

#endif
