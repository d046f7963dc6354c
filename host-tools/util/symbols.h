/*
 * Symbols and source lines of one ELF image (workload or monitor), read
 * once with libelf/libdw and kept in sorted arrays, so each lookup is a
 * binary search: a report over millions of samples stays fast.
 *
 * Invariants: symbols are functions only, sorted by start, without
 * duplicates (aliases keep the larger); lines are sorted by address; an ELF
 * without either gives empty arrays, not an error.
 */
#ifndef ALPHAPROF_UTIL_SYMBOLS_H
#define ALPHAPROF_UTIL_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

struct symbol {
    uint64_t start, size;       /* size 0: up to the next symbol */
    const char *name;
};

struct source_line {
    uint64_t addr;              /* first address of the row */
    const char *file;           /* interned: equal files share a pointer */
    uint32_t line;
};

struct symtab;

/* Opens an ELF and reads its function symbols, line table and build-id.
 * An ELF without DWARF still gives symbols (lines are then unknown). */
int symtab_open(const char *path, struct symtab **out, struct ap_err *err);
void symtab_close(struct symtab *st);

const char *symtab_path(const struct symtab *st);
/* The GNU build-id; *size 0 when the ELF has none. */
const uint8_t *symtab_build_id(const struct symtab *st, size_t *size);
/* Is st the build with build-id id[0..n) (n 0: nothing recorded, any
 * build is)? */
bool symtab_is_build(const struct symtab *st, const void *id, size_t n);
/* Is the ELF at path the build a profile recorded (build-id id[0..n);
 * n 0: nothing recorded, any build is)?  false with err saying so, or
 * why the file cannot be read. */
bool symtab_same_build(const char *path, const void *id, size_t n, struct ap_err *err);

/* The function containing addr, or NULL. */
const struct symbol *symtab_lookup(const struct symtab *st, uint64_t addr);
/* The function of that name, or NULL. */
const struct symbol *symtab_find(const struct symtab *st, const char *name);
/* Functions in address order. */
const struct symbol *symtab_symbols(const struct symtab *st, size_t *n);
/* The end of sym (its size, or the next symbol's start). */
uint64_t symtab_symbol_end(const struct symtab *st, const struct symbol *sym);

/* Copies len bytes of the image's contents at addr (from its allocated
 * sections); false if any byte lies outside them. */
bool symtab_read(const struct symtab *st, uint64_t addr, void *buf, size_t len);

/* The line-table row covering addr, or NULL. */
const struct source_line *symtab_line(const struct symtab *st, uint64_t addr);

/* Names of the inlined calls active at addr, innermost first (up to max);
 * returns how many.  Slower (walks DWARF scopes): meant for annotate. */
size_t symtab_inlined_at(struct symtab *st, uint64_t addr, const char **names, size_t max);

#endif
