/*
 * What the trap entry code (trap-entry.S) saves below the PALcode's own
 * 48-byte frame: every integer register the PALcode leaves live and every
 * FP register plus the FPCR, so C handlers may use anything and an
 * interrupted workload never notices.  Offsets are macros so the assembly
 * and C agree by construction.
 *
 * Memory layout on the kernel stack, from the trap frame upwards:
 *   [sp + 0,   +256)   r0..r31 (r16-r18 as they were at the entry;
 *                      r29, r30, r31 slots unused: see pal_frame)
 *   [sp + 256, +512)   f0..f30, then the FPCR in the f31 slot
 *   [sp + 512, +560)   the PALcode frame: PS, PC, gp, a0, a1, a2
 */
#ifndef FIRMWARE_ARCH_TRAP_FRAME_H
#define FIRMWARE_ARCH_TRAP_FRAME_H

#define TF_R(n)         ((n) * 8)
#define TF_F(n)         (256 + (n) * 8)
#define TF_FPCR         TF_F(31)
#define TF_PAL          512
#define TF_SIZE         512
#define PAL_FRAME_SIZE  48

#ifndef __ASSEMBLER__
#include <stdint.h>

struct pal_frame {
    uint64_t ps, pc, gp, a0, a1, a2;
};

struct trap_frame {
    uint64_t r[32];
    uint64_t f[32];
    struct pal_frame pal;
};

_Static_assert(sizeof(struct trap_frame) == TF_SIZE + PAL_FRAME_SIZE, "trap frame layout");
#endif
#endif
