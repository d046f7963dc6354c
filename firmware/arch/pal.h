/*
 * The OSF/1 PALcode calls the monitor uses, as inline functions.
 * Numbers and register conventions are those of QEMU's palcode-clipper
 * (see ../shared/notes/platform-clipper.md).  PAL calls may clobber the
 * temporaries t0, t8..t11 and a0..a5, so every wrapper lists them.
 */
#ifndef FIRMWARE_ARCH_PAL_H
#define FIRMWARE_ARCH_PAL_H

#include <stdint.h>
#include "firmware/arch/barrier.h"

#define PAL_HALT        0x00
#define PAL_CSERVE      0x09
#define PAL_WRIPIR      0x0d
#define PAL_SWPCTX      0x30
#define PAL_TBI         0x33
#define PAL_WRENT       0x34
#define PAL_SWPIPL      0x35
#define PAL_WRKGP       0x37
#define PAL_WRUSP       0x38
#define PAL_WHAMI       0x3c
#define PAL_RETSYS      0x3d
#define PAL_WTINT       0x3e
#define PAL_RTI         0x3f

/* WRENT selectors (a1). */
#define ENT_INT         0
#define ENT_ARITH       1
#define ENT_MM          2
#define ENT_IF          3
#define ENT_UNA         4
#define ENT_SYS         5

/* CSERVE selectors (a0) of QEMU's PALcode. */
#define CSERVE_GET_ALARM        4
#define CSERVE_SET_ALARM_REL    5
#define CSERVE_SET_ALARM_ABS    6
#define CSERVE_GET_VM_TIME      7

/* Processor status: current mode and IPL. */
#define PS_USER         0x8
#define IPL_ALL_MASKED  7
#define IPL_ALL_OPEN    0

#define PAL_CLOBBERS "$1", "$2", "$3", "$4", "$5", "$6", "$7", "$8", \
    "$22", "$23", "$24", "$25", "$27", "$28", "memory"

static inline uint64_t pal_call2(int fn, uint64_t a0, uint64_t a1)
{
    register uint64_t v0 __asm__("$0");
    register uint64_t r16 __asm__("$16") = a0;
    register uint64_t r17 __asm__("$17") = a1;
    switch (fn) {   /* call_pal needs an immediate: one case per use */
    case PAL_CSERVE:
        __asm__ volatile("call_pal 0x09" : "=r"(v0), "+r"(r16), "+r"(r17)
                         : : "$18", "$19", "$20", "$21", PAL_CLOBBERS);
        break;
    case PAL_WRENT:
        __asm__ volatile("call_pal 0x34" : "=r"(v0), "+r"(r16), "+r"(r17)
                         : : "$18", "$19", "$20", "$21", PAL_CLOBBERS);
        break;
    default:
        v0 = 0;
        break;
    }
    return v0;
}

#define DEFINE_PAL1(name, num)                                              \
    static inline uint64_t name(uint64_t a0)                                \
    {                                                                       \
        register uint64_t v0 __asm__("$0");                                 \
        register uint64_t r16 __asm__("$16") = a0;                          \
        __asm__ volatile("call_pal " #num : "=r"(v0), "+r"(r16)             \
                         : : "$17", "$18", "$19", "$20", "$21", PAL_CLOBBERS); \
        return v0;                                                          \
    }

DEFINE_PAL1(pal_wripir_raw, 0x0d)
DEFINE_PAL1(pal_swpctx_raw, 0x30)
DEFINE_PAL1(pal_swpipl_raw, 0x35)
DEFINE_PAL1(pal_wrkgp_raw, 0x37)
DEFINE_PAL1(pal_wrusp_raw, 0x38)
DEFINE_PAL1(pal_whami_raw, 0x3c)
DEFINE_PAL1(pal_wtint_raw, 0x3e)
DEFINE_PAL1(pal_rdusp_raw, 0x3a)

static inline unsigned pal_whami(void) { return (unsigned)pal_whami_raw(0); }
static inline unsigned pal_swpipl(unsigned ipl) { return (unsigned)pal_swpipl_raw(ipl); }
static inline void pal_wripir(unsigned cpu) { pal_wripir_raw(cpu); }
static inline void pal_wrkgp(uint64_t gp) { pal_wrkgp_raw(gp); }
static inline void pal_wrusp(uint64_t usp) { pal_wrusp_raw(usp); }
static inline uint64_t pal_rdusp(void) { return pal_rdusp_raw(0); }
static inline void pal_wtint(void) { pal_wtint_raw(0); }
/* Switches to the PCB at physical pcb_phys; returns the old PCB's. */
static inline uint64_t pal_swpctx(uint64_t pcb_phys) { return pal_swpctx_raw(pcb_phys); }
static inline void pal_wrent(void (*handler)(void), unsigned which)
{
    pal_call2(PAL_WRENT, (uint64_t)handler, which);
}
static inline uint64_t pal_cserve(unsigned fn, uint64_t arg)
{
    return pal_call2(PAL_CSERVE, fn, arg);
}
static inline void pal_tbia(void)
{
    register uint64_t r16 __asm__("$16") = (uint64_t)-2;   /* TBIA */
    __asm__ volatile("call_pal 0x33" : "+r"(r16)
                     : : "$0", "$17", "$18", "$19", "$20", "$21", PAL_CLOBBERS);
}
static inline __attribute__((noreturn)) void pal_halt(void)
{
    for (;;)
        __asm__ volatile("call_pal 0x00" ::: "memory");
}

#endif
