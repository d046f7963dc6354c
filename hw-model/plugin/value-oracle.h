/*
 * The value oracle (hw-model/oracle-format.h, PATH.values): every load's
 * value, counted per (PC, value), exactly, from guest RAM after the access.
 * Each vCPU thread counts in its own table; the tables are merged when the
 * file is written (at exit).
 */
#ifndef HW_MODEL_PLUGIN_VALUE_ORACLE_H
#define HW_MODEL_PLUGIN_VALUE_ORACLE_H

#include <stddef.h>
#include <stdint.h>

/* ram: the guest's physical memory (size bytes); 0 on success. */
int value_oracle_init(unsigned ncores, const uint8_t *ram, size_t size);
/* A load at pc (instruction word) on vcpu accessed vaddr. */
void value_oracle_load(unsigned vcpu, uint64_t pc, uint32_t word, uint64_t vaddr);
/* Writes path (atomically); 0, or -1 with errno. */
int value_oracle_write(const char *path, uint64_t run_id);

#endif
