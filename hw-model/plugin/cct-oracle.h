/*
 * The calling-context oracle (hw-model/oracle-format.h, PATH.cct): every
 * core's exact calling context tree from the instructions it retired.
 * Each vCPU thread builds its own tree; they are written at exit.
 */
#ifndef HW_MODEL_PLUGIN_CCT_ORACLE_H
#define HW_MODEL_PLUGIN_CCT_ORACLE_H

#include <stddef.h>
#include <stdint.h>

/* ram: the guest's physical memory (size bytes, user VA = PA); 0 on success. */
int cct_oracle_init(unsigned ncores, const uint8_t *ram, size_t size);
/* A retired instruction (pc, its word) on vcpu, in program order, with
 * the core's PMU cycles and retired as they stand after it retired (what
 * a later instruction reads from the PMU page; cct-oracle.c note 5). */
void cct_oracle_retire(unsigned vcpu, uint64_t pc, uint32_t word, uint64_t cycles, uint64_t retired);
/* The record vcpu runs under now (its id in PATH.cct; 0 the root): after
 * cct_oracle_retire of an instruction, the one that instruction ran in. */
uint64_t cct_oracle_current(unsigned vcpu);
/* Writes path (atomically); 0, or -1 with errno. */
int cct_oracle_write(const char *path, uint64_t run_id);

#endif
