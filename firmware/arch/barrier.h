/*
 * Memory barriers between cores (and between a core and the hardware
 * model, which reads and writes guest RAM from QEMU's threads).  Alpha's
 * own instructions on the board; a full fence elsewhere, so that pure
 * firmware code (sample-table.c) builds and runs in the host's unit tests.
 */
#ifndef FIRMWARE_ARCH_BARRIER_H
#define FIRMWARE_ARCH_BARRIER_H

#if defined(__alpha__)
static inline void mb(void) { __asm__ volatile("mb" ::: "memory"); }
static inline void wmb(void) { __asm__ volatile("wmb" ::: "memory"); }
#else
static inline void mb(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void wmb(void) { __atomic_thread_fence(__ATOMIC_RELEASE); }
#endif

#endif
