/*
 * First instructions of the monitor.  The PALcode enters _start on the boot
 * CPU (kernel mode, IPL 7, $27 = entry, sp on the PALcode's own small
 * stack) and secondary_start on each secondary CPU the boot CPU releases
 * through the HWRPB ($27 = CPU_restart_data = secondary_start, sp = the
 * ksp we put in its HWPCB).  Both move to their own stack slot at once.
 */
#include "linker/ram-map.h"

        .set noreorder
        .text
        .section .text.start, "ax"

        .globl  _start
        .ent    _start
_start:
        br      $27, 1f                 /* $27 = our address, whatever we were told */
1:      ldgp    $29, 0($27)
        .prologue 1
        call_pal 0x3c                   /* WHAMI -> v0 */
        mov     $0, $16
        bsr     $26, core_stack_top     /* v0 = top of this core's stack */
        mov     $0, $sp
        mov     $16, $16
        jsr     $26, monitor_main
        call_pal 0x00                   /* HALT, should monitor_main return */
        .end    _start

        .globl  secondary_start
        .ent    secondary_start
secondary_start:
        br      $27, 1f
1:      ldgp    $29, 0($27)
        .prologue 1
        call_pal 0x3c
        mov     $0, $16
        bsr     $26, core_stack_top
        mov     $0, $sp
        jsr     $26, secondary_main
        call_pal 0x00
        .end    secondary_start

/* core_stack_top(core in $16) -> $0, touching only $0 and $1. */
        .ent    core_stack_top
core_stack_top:
        .prologue 0
        ldah    $0, ((FW_STACK_SIZE) >> 16)($31)
        mulq    $16, $0, $0
        ldah    $1, (((FW_STACK_PHYS + FW_STACK_SIZE) >> 16))($31)
        addq    $0, $1, $0
        lda     $1, -1($31)
        sll     $1, 42, $1              /* 0xfffffc0000000000 = KSEG_BASE */
        addq    $0, $1, $0
        ret     $31, ($26)
        .end    core_stack_top
