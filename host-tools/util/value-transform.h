/*
 * Value transforms: what the daemon (and record) may do to the board's
 * value hotlists before they are merged into the database, the paper's
 * customisation modules (Burrows et al., ASPLOS 2000, section 3: "the
 * daemon may transform ... (PC, address) pairs into (address, PC) pairs").
 * One registry (VALUE_TRANSFORMS); `--value-transform NAME[,NAME]`.
 *
 * A transform sees one hotlist at a time (PC, kind, tau, offered, values
 * with their counts) and emits derived rows (where, kind, value, count,
 * tau, offered) that are stored beside the raw ones, under kind numbers
 * of their own (VALUE_DERIVED_*, above the board's value kinds), so the
 * estimates stay count * tau sums and the raw profile is kept whole.
 *
 * Invariants: a derived row's offered is the sum of count * tau of the
 * values it was made from (an estimate, not a count: the board cannot
 * count accesses per address); transforms never drop or change raw rows.
 */
#ifndef ALPHAPROF_UTIL_VALUE_TRANSFORM_H
#define ALPHAPROF_UTIL_VALUE_TRANSFORM_H

#include <stdint.h>

#include "firmware/abi/link-codec.h"

/* VALUE_TRANSFORM(ID, "name", derived kind, "derived kind's name", "what it makes") */
#define VALUE_TRANSFORMS                                                                       \
    VALUE_TRANSFORM(ACCESSORS, "accessors", 32, "accessor",                                   \
                    "per data address, the instructions that loaded or stored it and how often " \
                    "(the address kind turned round)")

enum value_transform_id {
#define VALUE_TRANSFORM(id, name, kind, kname, what) VT_##id,
    VALUE_TRANSFORMS
#undef VALUE_TRANSFORM
    VT_COUNT
};

enum {
#define VALUE_TRANSFORM(id, name, kind, kname, what) VALUE_DERIVED_##id = kind,
    VALUE_TRANSFORMS
#undef VALUE_TRANSFORM
};

/* A derived row: value (count sampled with probability 1/tau) of `kind`
 * at address `where` (placed in an image like a PC), offered added. */
typedef void (*vt_emit_fn)(void *ctx, uint64_t where, unsigned kind, uint64_t value, uint64_t count,
                           uint64_t tau, uint64_t offered);

/* "accessors,..." -> a bit mask of (1 << VT_*); -1 naming the unknown
 * name in *bad (a pointer into spec, its length in *badlen). */
int value_transform_parse(const char *spec, unsigned *mask, const char **bad, int *badlen);
/* The names, comma-separated, for messages. */
const char *value_transform_names(void);
/* Applies every transform of mask to one hotlist of a VALUES frame. */
void value_transform_apply(unsigned mask, const struct lk_hotlist *h, vt_emit_fn emit, void *ctx);
/* A value kind's name: the board's (value-capture.h) or a derived one. */
const char *value_any_kind_name(unsigned kind);

#endif
