/* Two Alpha functions for test_path_recon, with hand-known addresses (from 0x100):
 * f: two diamonds' worth of branches (0x00 beq, 0x08 br, 0x10 beq,
 * 0x18 ret); g: calls f (0x1c bsr) and returns (0x20).  Local labels, so
 * the assembler resolves every displacement (no relocations). */
        .set    noreorder
        .set    noat
        .text
        .skip   0x100           /* (symbols at address 0 are not functions) */
        .globl  f
        .type   f, @function
f:
.Lf:    beq     $16, 1f
        addq    $1, $2, $3
        br      $31, 2f
1:      addq    $1, $2, $4
2:      beq     $17, 3f
        addq    $1, $2, $3
3:      ret     $31, ($26), 1
        .size   f, .-f
        .globl  g
        .type   g, @function
g:      bsr     $26, .Lf
        ret     $31, ($26), 1
        .size   g, .-g
