/*
 * Entry points the PALcode jumps to (registered with WRENT): each saves the
 * full register state as struct trap_frame (trap-frame.h), calls its C
 * handler with (a0, a1, a2, frame) and returns with RTI.  The PALcode has
 * already pushed its frame, switched to the kernel stack and loaded the
 * monitor's gp (WRKGP).
 */
#include "firmware/arch/trap-frame.h"

        .set noat
        .set noreorder
        .text

/* Saves r0..r28 (minus r16-r18 copies that are PAL args for most entries,
 * saved anyway) and f0..f30 + FPCR. */
.macro SAVE_ALL
        lda     $sp, -TF_SIZE($sp)
        stq     $0, TF_R(0)($sp)
        stq     $1, TF_R(1)($sp)
        stq     $2, TF_R(2)($sp)
        stq     $3, TF_R(3)($sp)
        stq     $4, TF_R(4)($sp)
        stq     $5, TF_R(5)($sp)
        stq     $6, TF_R(6)($sp)
        stq     $7, TF_R(7)($sp)
        stq     $8, TF_R(8)($sp)
        stq     $9, TF_R(9)($sp)
        stq     $10, TF_R(10)($sp)
        stq     $11, TF_R(11)($sp)
        stq     $12, TF_R(12)($sp)
        stq     $13, TF_R(13)($sp)
        stq     $14, TF_R(14)($sp)
        stq     $15, TF_R(15)($sp)
        stq     $16, TF_R(16)($sp)
        stq     $17, TF_R(17)($sp)
        stq     $18, TF_R(18)($sp)
        stq     $19, TF_R(19)($sp)
        stq     $20, TF_R(20)($sp)
        stq     $21, TF_R(21)($sp)
        stq     $22, TF_R(22)($sp)
        stq     $23, TF_R(23)($sp)
        stq     $24, TF_R(24)($sp)
        stq     $25, TF_R(25)($sp)
        stq     $26, TF_R(26)($sp)
        stq     $27, TF_R(27)($sp)
        stq     $28, TF_R(28)($sp)
        stt     $f0, TF_F(0)($sp)
        stt     $f1, TF_F(1)($sp)
        stt     $f2, TF_F(2)($sp)
        stt     $f3, TF_F(3)($sp)
        stt     $f4, TF_F(4)($sp)
        stt     $f5, TF_F(5)($sp)
        stt     $f6, TF_F(6)($sp)
        stt     $f7, TF_F(7)($sp)
        stt     $f8, TF_F(8)($sp)
        stt     $f9, TF_F(9)($sp)
        stt     $f10, TF_F(10)($sp)
        stt     $f11, TF_F(11)($sp)
        stt     $f12, TF_F(12)($sp)
        stt     $f13, TF_F(13)($sp)
        stt     $f14, TF_F(14)($sp)
        stt     $f15, TF_F(15)($sp)
        stt     $f16, TF_F(16)($sp)
        stt     $f17, TF_F(17)($sp)
        stt     $f18, TF_F(18)($sp)
        stt     $f19, TF_F(19)($sp)
        stt     $f20, TF_F(20)($sp)
        stt     $f21, TF_F(21)($sp)
        stt     $f22, TF_F(22)($sp)
        stt     $f23, TF_F(23)($sp)
        stt     $f24, TF_F(24)($sp)
        stt     $f25, TF_F(25)($sp)
        stt     $f26, TF_F(26)($sp)
        stt     $f27, TF_F(27)($sp)
        stt     $f28, TF_F(28)($sp)
        stt     $f29, TF_F(29)($sp)
        stt     $f30, TF_F(30)($sp)
        mf_fpcr $f0
        stt     $f0, TF_FPCR($sp)
.endm

.macro RESTORE_ALL_AND_RTI
        ldt     $f0, TF_FPCR($sp)
        mt_fpcr $f0
        ldt     $f0, TF_F(0)($sp)
        ldt     $f1, TF_F(1)($sp)
        ldt     $f2, TF_F(2)($sp)
        ldt     $f3, TF_F(3)($sp)
        ldt     $f4, TF_F(4)($sp)
        ldt     $f5, TF_F(5)($sp)
        ldt     $f6, TF_F(6)($sp)
        ldt     $f7, TF_F(7)($sp)
        ldt     $f8, TF_F(8)($sp)
        ldt     $f9, TF_F(9)($sp)
        ldt     $f10, TF_F(10)($sp)
        ldt     $f11, TF_F(11)($sp)
        ldt     $f12, TF_F(12)($sp)
        ldt     $f13, TF_F(13)($sp)
        ldt     $f14, TF_F(14)($sp)
        ldt     $f15, TF_F(15)($sp)
        ldt     $f16, TF_F(16)($sp)
        ldt     $f17, TF_F(17)($sp)
        ldt     $f18, TF_F(18)($sp)
        ldt     $f19, TF_F(19)($sp)
        ldt     $f20, TF_F(20)($sp)
        ldt     $f21, TF_F(21)($sp)
        ldt     $f22, TF_F(22)($sp)
        ldt     $f23, TF_F(23)($sp)
        ldt     $f24, TF_F(24)($sp)
        ldt     $f25, TF_F(25)($sp)
        ldt     $f26, TF_F(26)($sp)
        ldt     $f27, TF_F(27)($sp)
        ldt     $f28, TF_F(28)($sp)
        ldt     $f29, TF_F(29)($sp)
        ldt     $f30, TF_F(30)($sp)
        ldq     $0, TF_R(0)($sp)
        ldq     $1, TF_R(1)($sp)
        ldq     $2, TF_R(2)($sp)
        ldq     $3, TF_R(3)($sp)
        ldq     $4, TF_R(4)($sp)
        ldq     $5, TF_R(5)($sp)
        ldq     $6, TF_R(6)($sp)
        ldq     $7, TF_R(7)($sp)
        ldq     $8, TF_R(8)($sp)
        ldq     $9, TF_R(9)($sp)
        ldq     $10, TF_R(10)($sp)
        ldq     $11, TF_R(11)($sp)
        ldq     $12, TF_R(12)($sp)
        ldq     $13, TF_R(13)($sp)
        ldq     $14, TF_R(14)($sp)
        ldq     $15, TF_R(15)($sp)
        ldq     $19, TF_R(19)($sp)
        ldq     $20, TF_R(20)($sp)
        ldq     $21, TF_R(21)($sp)
        ldq     $22, TF_R(22)($sp)
        ldq     $23, TF_R(23)($sp)
        ldq     $24, TF_R(24)($sp)
        ldq     $25, TF_R(25)($sp)
        ldq     $26, TF_R(26)($sp)
        ldq     $27, TF_R(27)($sp)
        ldq     $28, TF_R(28)($sp)
        lda     $sp, TF_SIZE($sp)
        call_pal 0x3f                   /* RTI: pops the PAL frame, a0-a2, gp */
.endm

/* One entry: save, call handler(a0, a1, a2, frame), restore, RTI. */
.macro ENTRY name, handler
        .globl  \name
        .ent    \name
\name:
        .frame  $sp, TF_SIZE, $26, 0
        SAVE_ALL
        .prologue 0
        mov     $sp, $19
        lda     $27, \handler
        jsr     $26, ($27), \handler
        ldgp    $29, 0($26)             /* harmless: PAL gave us the kernel gp */
        RESTORE_ALL_AND_RTI
        .end    \name
.endm

        ENTRY   ent_int_full, trap_interrupt

/*
 * entInt: clock interrupts while profiling take a fast path that saves only
 * the caller-saved integer registers (the sampling code is built without
 * FP registers, -mno-fp-regs) and calls profiler_fast_clock(pc, ps).  It
 * returns 0 when it did not handle the tick (not profiling, or the boot
 * core must drain): then the full path runs.  a0-a2 are restored from the
 * PAL frame by RTI, but the full path still needs them as passed (a1 is
 * the device vector), so the type test uses a saved register.
 */
#define FAST_SIZE 160
        .globl  ent_int
        .ent    ent_int
ent_int:
        .frame  $sp, FAST_SIZE, $26, 0
        lda     $sp, -FAST_SIZE($sp)
        stq     $0, 0($sp)
        cmpeq   $16, 1, $0              /* a0 = 1: clock */
        bne     $0, 2f
        ldq     $0, 0($sp)
        lda     $sp, FAST_SIZE($sp)
        br      ent_int_full
2:      stq     $1, 8($sp)
        stq     $2, 16($sp)
        stq     $3, 24($sp)
        stq     $4, 32($sp)
        stq     $5, 40($sp)
        stq     $6, 48($sp)
        stq     $7, 56($sp)
        stq     $8, 64($sp)
        stq     $19, 72($sp)
        stq     $20, 80($sp)
        stq     $21, 88($sp)
        stq     $22, 96($sp)
        stq     $23, 104($sp)
        stq     $24, 112($sp)
        stq     $25, 120($sp)
        stq     $26, 128($sp)
        stq     $27, 136($sp)
        stq     $28, 144($sp)
        .prologue 0
        ldq     $16, FAST_SIZE+8($sp)   /* the interrupted PC (PAL frame) */
        ldq     $17, FAST_SIZE+0($sp)   /* its PS */
        lda     $27, profiler_fast_clock
        jsr     $26, ($27), profiler_fast_clock
        mov     $0, $18
        ldq     $0, 0($sp)
        ldq     $1, 8($sp)
        ldq     $2, 16($sp)
        ldq     $3, 24($sp)
        ldq     $4, 32($sp)
        ldq     $5, 40($sp)
        ldq     $6, 48($sp)
        ldq     $7, 56($sp)
        ldq     $8, 64($sp)
        ldq     $19, 72($sp)
        ldq     $20, 80($sp)
        ldq     $21, 88($sp)
        ldq     $22, 96($sp)
        ldq     $23, 104($sp)
        ldq     $24, 112($sp)
        ldq     $25, 120($sp)
        ldq     $26, 128($sp)
        ldq     $27, 136($sp)
        ldq     $28, 144($sp)
        lda     $sp, FAST_SIZE($sp)
        beq     $18, 1f
        call_pal 0x3f                   /* RTI: handled */
1:      lda     $16, 1($31)             /* not handled: the full path */
        br      ent_int_full
        .end    ent_int
        ENTRY   ent_arith, trap_arith
        ENTRY   ent_mm,    trap_mm
        ENTRY   ent_if,    trap_if
        ENTRY   ent_una,   trap_una
        ENTRY   ent_sys,   trap_syscall

/*
 * enter_user(pc, usp, a0, a1): leaves kernel mode for the workload.  Builds
 * a PAL frame with a user-mode PS so RTI switches stacks: the kernel stack
 * pointer after the pop (this function's caller's sp) becomes the stack the
 * PALcode uses for the next trap from user mode.
 */
        .globl  enter_user
        .ent    enter_user
enter_user:
        .prologue 0
        mov     $16, $9                 /* keep pc, usp, a0, a1 across WRUSP */
        mov     $17, $10
        mov     $18, $11
        mov     $19, $12
        mov     $10, $16
        call_pal 0x38                   /* WRUSP */
        lda     $sp, -PAL_FRAME_SIZE($sp)
        lda     $1, 8($31)              /* PS: user mode, IPL 0 */
        stq     $1, 0($sp)
        stq     $9, 8($sp)              /* PC */
        stq     $31, 16($sp)            /* gp: the image loads its own */
        stq     $11, 24($sp)            /* a0 */
        stq     $12, 32($sp)            /* a1 */
        stq     $31, 40($sp)            /* a2 */
        mov     $9, $27                 /* procedure value for ldgp */
        mov     $31, $26
        clr     $0
        call_pal 0x3f                   /* RTI */
        .end    enter_user
