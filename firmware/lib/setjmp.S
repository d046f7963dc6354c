/*
 * setjmp/longjmp for newlib on Alpha (newlib has none for this target).
 * jmp_buf (newlib's machine/setjmp.h with the project's patch: 20 longs)
 * holds the callee-saved state of the calling convention:
 *   [0..6] s0-s6 ($9-$15)  [7] ra  [8] sp  [9] gp  [10..17] f2-f9
 * Shared by the monitor and every workload image (libboard.a).
 */
        .set noreorder
        .text

        .globl  setjmp
        .ent    setjmp
setjmp:
        .prologue 0
        stq     $9, 0($16)
        stq     $10, 8($16)
        stq     $11, 16($16)
        stq     $12, 24($16)
        stq     $13, 32($16)
        stq     $14, 40($16)
        stq     $15, 48($16)
        stq     $26, 56($16)
        stq     $30, 64($16)
        stq     $29, 72($16)
        stt     $f2, 80($16)
        stt     $f3, 88($16)
        stt     $f4, 96($16)
        stt     $f5, 104($16)
        stt     $f6, 112($16)
        stt     $f7, 120($16)
        stt     $f8, 128($16)
        stt     $f9, 136($16)
        clr     $0
        ret     $31, ($26), 1
        .end    setjmp

        .globl  longjmp
        .ent    longjmp
longjmp:
        .prologue 0
        ldq     $9, 0($16)
        ldq     $10, 8($16)
        ldq     $11, 16($16)
        ldq     $12, 24($16)
        ldq     $13, 32($16)
        ldq     $14, 40($16)
        ldq     $15, 48($16)
        ldq     $26, 56($16)
        ldq     $30, 64($16)
        ldq     $29, 72($16)
        ldt     $f2, 80($16)
        ldt     $f3, 88($16)
        ldt     $f4, 96($16)
        ldt     $f5, 104($16)
        ldt     $f6, 112($16)
        ldt     $f7, 120($16)
        ldt     $f8, 128($16)
        ldt     $f9, 136($16)
        mov     $17, $0                 /* longjmp(env, 0) returns 1 */
        cmoveq  $0, 1, $0
        ret     $31, ($26), 1
        .end    longjmp

        .globl  _setjmp
        _setjmp = setjmp
        .globl  _longjmp
        _longjmp = longjmp
