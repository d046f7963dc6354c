/*
 * Integer division helpers gcc calls on Alpha (which has no divide
 * instruction): __divq, __divqu, __remq, __remqu and the 32-bit __divl,
 * __divlu, __reml, __remlu.  Private convention: dividend in $24 (t10),
 * divisor in $25 (t11), result in $27 (t12), return address in $23 (t9);
 * only $27 and $28 may change.  Division by zero raises GENTRAP with
 * a0 = -2 (GEN_INTDIV), which the monitor reports.
 *
 * Shared by the monitor and every workload image (libboard.a).
 */
        .set noat
        .set noreorder
        .text

/*
 * udivmod: $0 = n, $1 = d (d != 0) -> $2 = n / d, $3 = n % d.
 * Restoring shift-subtract, one step per significant dividend bit; uses
 * $4, $5.
 * Called with bsr $28, returns through $28.
 */
        .ent    udivmod
udivmod:
        .prologue 0
        clr     $2
        clr     $3
        ctlz    $0, $5                  /* skip the dividend's leading zeros */
        sll     $0, $5, $0
        lda     $4, 64($31)
        subq    $4, $5, $4
        beq     $4, 3f
1:      srl     $0, 63, $5              /* next dividend bit */
        sll     $3, 1, $3
        or      $3, $5, $3
        sll     $0, 1, $0
        sll     $2, 1, $2
        cmpule  $1, $3, $5              /* d <= r: subtract, set the bit */
        beq     $5, 2f
        subq    $3, $1, $3
        or      $2, 1, $2
2:      subq    $4, 1, $4
        bne     $4, 1b
3:      ret     $31, ($28)
        .end    udivmod

/*
 * DIVIDE name, signed, want_remainder, width32
 * Saves $0-$6 and $16 on the stack; $6 holds the sign flags.
 */
.macro DIVIDE name, signed, rem, w32
        .globl  \name
        .ent    \name
\name:
        .frame  $sp, 64, $23, 0
        lda     $sp, -64($sp)
        stq     $0, 0($sp)
        stq     $1, 8($sp)
        stq     $2, 16($sp)
        stq     $3, 24($sp)
        stq     $4, 32($sp)
        stq     $5, 40($sp)
        stq     $6, 48($sp)
        stq     $16, 56($sp)
        .prologue 0
        mov     $24, $0
        mov     $25, $1
.if \w32
  .if \signed
        addl    $0, 0, $0               /* sign-extend the 32-bit operands */
        addl    $1, 0, $1
  .else
        zapnot  $0, 0x0f, $0            /* zero-extend them */
        zapnot  $1, 0x0f, $1
  .endif
.endif
        bne     $1, 3f
        lda     $16, -2($31)            /* GEN_INTDIV */
        call_pal 0xaa                   /* GENTRAP */
3:      clr     $6
.if \signed
        bge     $0, 4f
        subq    $31, $0, $0             /* |n|; remember the dividend's sign */
        or      $6, 1, $6
4:      bge     $1, 5f
        subq    $31, $1, $1
        xor     $6, 2, $6
5:
.endif
        bsr     $28, udivmod
.if \rem
        mov     $3, $27
  .if \signed
        blbc    $6, 6f                  /* remainder takes the dividend's sign */
        subq    $31, $27, $27
6:
  .endif
.else
        mov     $2, $27
  .if \signed
        srl     $6, 1, $5               /* quotient negative iff signs differ */
        xor     $5, $6, $5
        blbc    $5, 7f
        subq    $31, $27, $27
7:
  .endif
.endif
.if \w32
        addl    $27, 0, $27             /* 32-bit results are kept sign-extended */
.endif
        ldq     $0, 0($sp)
        ldq     $1, 8($sp)
        ldq     $2, 16($sp)
        ldq     $3, 24($sp)
        ldq     $4, 32($sp)
        ldq     $5, 40($sp)
        ldq     $6, 48($sp)
        ldq     $16, 56($sp)
        lda     $sp, 64($sp)
        ret     $31, ($23), 1
        .end    \name
.endm

        DIVIDE  __divqu, 0, 0, 0
        DIVIDE  __remqu, 0, 1, 0
        DIVIDE  __divq,  1, 0, 0
        DIVIDE  __remq,  1, 1, 0
        DIVIDE  __divlu, 0, 0, 1
        DIVIDE  __remlu, 0, 1, 1
        DIVIDE  __divl,  1, 0, 1
        DIVIDE  __reml,  1, 1, 1
