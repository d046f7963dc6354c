/*
 * run_native(struct cpu *st, const uint32_t *code): runs a generated
 * sequence natively.  The sequence (built by gen.c) starts with a prologue
 * that saves ra at CPU_RET(sp) and loads every register but sp from *st,
 * and ends with an epilogue that stores them back and returns through the
 * saved ra.  While it runs, sp points at *st (the body never writes sp).
 * Layout of struct cpu: r[32] at 0, f[32] at 256, ret at 512, saved sp at
 * 520, fpcr at 528 (main.c asserts it).
 */
        .set noat
        .set noreorder
        .text
        .globl  run_native
        .ent    run_native
run_native:
        .frame  $sp, 160, $26, 0
        lda     $sp, -160($sp)
        stq     $26, 0($sp)
        stq     $9, 8($sp)
        stq     $10, 16($sp)
        stq     $11, 24($sp)
        stq     $12, 32($sp)
        stq     $13, 40($sp)
        stq     $14, 48($sp)
        stq     $15, 56($sp)
        stq     $29, 64($sp)
        stt     $f2, 72($sp)
        stt     $f3, 80($sp)
        stt     $f4, 88($sp)
        stt     $f5, 96($sp)
        stt     $f6, 104($sp)
        stt     $f7, 112($sp)
        stt     $f8, 120($sp)
        stt     $f9, 128($sp)
        .prologue 0
        mf_fpcr $f0
        stt     $f0, 528($16)
        stq     $sp, 520($16)
        mov     $17, $27
        mov     $16, $sp
        jsr     $26, ($27)
        ldq     $sp, 520($sp)
        ldq     $26, 0($sp)
        ldq     $9, 8($sp)
        ldq     $10, 16($sp)
        ldq     $11, 24($sp)
        ldq     $12, 32($sp)
        ldq     $13, 40($sp)
        ldq     $14, 48($sp)
        ldq     $15, 56($sp)
        ldq     $29, 64($sp)
        ldt     $f2, 72($sp)
        ldt     $f3, 80($sp)
        ldt     $f4, 88($sp)
        ldt     $f5, 96($sp)
        ldt     $f6, 104($sp)
        ldt     $f7, 112($sp)
        ldt     $f8, 120($sp)
        ldt     $f9, 128($sp)
        lda     $sp, 160($sp)
        ret     $31, ($26), 1
        .end    run_native
