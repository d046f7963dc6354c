/*
 * What value sampling captures, per opcode class: the value kinds and the
 * grammar of the value_capture boot key (and `record --value-capture`),
 * once for the monitor and the host.
 *
 * Grammar:   spec  = item { ',' item }
 *            item  = class ':' kinds
 *            kinds = 'none' | kind { '+' kind }
 *            class = int | load | store | branch | fp | all
 *            kind  = result | operand_a | operand_b | address | latency | ra | tos
 * Classes not named keep their defaults (VALUE_CAPTURE_DEFAULTS); a later
 * item wins over an earlier one ("all:none,load:result" captures only the
 * values loaded).
 *
 * Invariants: freestanding C11, no library calls (like boot-line.c); a
 * spec with a problem leaves the capture table untouched.
 */
#ifndef FIRMWARE_ABI_VALUE_CAPTURE_H
#define FIRMWARE_ABI_VALUE_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

/* VALUE_KIND(ID, number, "name"): numbers are the link's VALUES kinds and
 * the database's; never renumber. */
#define VALUE_KINDS \
    VALUE_KIND(RESULT,    0, "result")    /* value written (loads: the value loaded) */ \
    VALUE_KIND(OPERAND_A, 1, "operand_a") /* ra / fa (stores: the value stored) */ \
    VALUE_KIND(OPERAND_B, 2, "operand_b") /* rb / fb or the literal (memory: the base) */ \
    VALUE_KIND(ADDRESS,   3, "address")   /* memory virtual address */ \
    VALUE_KIND(LATENCY,   4, "latency")   /* cycles of a load's read, as the interpreter timed it */ \
    VALUE_KIND(RA,        5, "ra")        /* return address register (context) */ \
    VALUE_KIND(TOS,       6, "tos")       /* the quadword at sp (context) */

enum value_kind {
#define VALUE_KIND(id, n, name) VALUE_##id = n,
    VALUE_KINDS
#undef VALUE_KIND
    VALUE_KIND_COUNT
};

/* The defaults: what is loaded, where and how long it took; what integer
 * and FP operations compute; what is stored where; nothing of branches. */
#define VALUE_DEFAULT_INT    (1u << VALUE_RESULT)
#define VALUE_DEFAULT_LOAD   (1u << VALUE_RESULT | 1u << VALUE_ADDRESS | 1u << VALUE_LATENCY)
#define VALUE_DEFAULT_STORE  (1u << VALUE_OPERAND_A | 1u << VALUE_ADDRESS)
#define VALUE_DEFAULT_BRANCH 0u
#define VALUE_DEFAULT_FP     (1u << VALUE_RESULT)

/* VALUE_CLASS(ID, "name", default kinds) */
#define VALUE_CLASSES \
    VALUE_CLASS(INT,    "int",    VALUE_DEFAULT_INT) \
    VALUE_CLASS(LOAD,   "load",   VALUE_DEFAULT_LOAD) \
    VALUE_CLASS(STORE,  "store",  VALUE_DEFAULT_STORE) \
    VALUE_CLASS(BRANCH, "branch", VALUE_DEFAULT_BRANCH) \
    VALUE_CLASS(FP,     "fp",     VALUE_DEFAULT_FP)

enum value_class {
#define VALUE_CLASS(id, name, def) VALUE_CLASS_##id,
    VALUE_CLASSES
#undef VALUE_CLASS
    VALUE_CLASS_COUNT
};

struct value_capture {
    uint8_t kinds[VALUE_CLASS_COUNT];   /* bit k: capture VALUE kind k */
};

/* An initializer of struct value_capture with the defaults (in the order
 * of VALUE_CLASSES; value-capture.c checks). */
#define VALUE_CAPTURE_DEFAULTS {{VALUE_DEFAULT_INT, VALUE_DEFAULT_LOAD, VALUE_DEFAULT_STORE, \
                                 VALUE_DEFAULT_BRANCH, VALUE_DEFAULT_FP}}

void value_capture_defaults(struct value_capture *c);
/* Applies spec (n bytes) over c: 0, or -1 with *at / *at_len the bad item. */
int value_capture_parse(struct value_capture *c, const char *spec, size_t n, const char **at, size_t *at_len);

const char *value_kind_name(unsigned kind);
const char *value_class_name(unsigned cls);

#endif
