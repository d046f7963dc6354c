/*
 * The differential test's generator: random, seeded instruction sequences
 * over every instruction of the one table (alpha-insn.def) that the
 * interpreter runs, in their canonical encodings, that run natively
 * without a trap: memory operands within the data buffer and aligned,
 * branches and jumps forward only, sp and the data base register ($15)
 * never written.
 */
#ifndef VALUEDIFF_GEN_H
#define VALUEDIFF_GEN_H

#include <stdint.h>

#define DATA_BYTES  512
#define BASE_REG    15
#define CPU_RET     512

struct cpu {
    uint64_t r[32];
    uint64_t f[32];
    uint64_t ret, saved_sp, fpcr;
};

/* The table entries the generator draws from; returns how many. */
unsigned gen_init(void);
/* alpha_insns index of the generator's k-th entry. */
unsigned gen_entry(unsigned k);

/* Writes prologue + body_len generated instructions + epilogue to code;
 * returns the index of the body's first word in *body_at and the index
 * of the epilogue's first word (the end PC). */
unsigned gen_sequence(uint32_t *code, unsigned body_len, uint32_t *rng, unsigned *body_at);

uint32_t gen_rand(uint32_t *rng);

#endif
