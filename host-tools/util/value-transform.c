/* Value transforms: see value-transform.h. */
#include "util/value-transform.h"

#include <string.h>

#include "firmware/abi/value-capture.h"

static const char *const names[VT_COUNT] = {
#define VALUE_TRANSFORM(id, name, kind, kname, what) name,
    VALUE_TRANSFORMS
#undef VALUE_TRANSFORM
};

#define VALUE_TRANSFORM(id, name, kind, kname, what) \
    _Static_assert(kind >= VALUE_KIND_COUNT, "a derived kind is not one of the board's");
VALUE_TRANSFORMS
#undef VALUE_TRANSFORM

int value_transform_parse(const char *spec, unsigned *mask, const char **bad, int *badlen)
{
    *mask = 0;
    for (const char *p = spec; *p;) {
        size_t n = strcspn(p, ",");
        unsigned t = 0;
        while (t < VT_COUNT && !(strlen(names[t]) == n && strncmp(names[t], p, n) == 0))
            t++;
        if (t == VT_COUNT) {
            *bad = p;
            *badlen = (int)n;
            return -1;
        }
        *mask |= 1u << t;
        p += n + (p[n] == ',');
    }
    return 0;
}

const char *value_transform_names(void)
{
    return ""
#define VALUE_TRANSFORM(id, name, kind, kname, what) name " "
        VALUE_TRANSFORMS
#undef VALUE_TRANSFORM
        ;
}

/* accessors: (PC, address kind: address a, count c) -> (a, accessor: PC, c) */
static void accessors(const struct lk_hotlist *h, vt_emit_fn emit, void *ctx)
{
    if (h->kind != VALUE_ADDRESS)
        return;
    for (uint32_t i = 0; i < h->nvalues; i++)
        emit(ctx, h->value[i], VALUE_DERIVED_ACCESSORS, h->pc, h->count[i], h->tau, h->count[i] * h->tau);
}

void value_transform_apply(unsigned mask, const struct lk_hotlist *h, vt_emit_fn emit, void *ctx)
{
    static void (*const apply[VT_COUNT])(const struct lk_hotlist *, vt_emit_fn, void *) = {
        [VT_ACCESSORS] = accessors,
    };
    for (unsigned t = 0; t < VT_COUNT; t++)
        if (mask & 1u << t)
            apply[t](h, emit, ctx);
}

const char *value_any_kind_name(unsigned kind)
{
    switch (kind) {
#define VALUE_TRANSFORM(id, name, k, kname, what) \
    case k:                                       \
        return kname;
        VALUE_TRANSFORMS
#undef VALUE_TRANSFORM
    default:
        return value_kind_name(kind);
    }
}
