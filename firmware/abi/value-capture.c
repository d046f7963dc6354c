/* The value_capture grammar (see value-capture.h). */
#include "firmware/abi/value-capture.h"

#include <stdbool.h>

static const char *const kind_names[VALUE_KIND_COUNT] = {
#define VALUE_KIND(id, n, name) [n] = name,
    VALUE_KINDS
#undef VALUE_KIND
};

static const char *const class_names[VALUE_CLASS_COUNT] = {
#define VALUE_CLASS(id, name, def) name,
    VALUE_CLASSES
#undef VALUE_CLASS
};

const char *value_kind_name(unsigned kind)
{
    return kind < VALUE_KIND_COUNT ? kind_names[kind] : "unknown";
}

const char *value_class_name(unsigned cls)
{
    return cls < VALUE_CLASS_COUNT ? class_names[cls] : "unknown";
}

_Static_assert(VALUE_CLASS_COUNT == 5, "VALUE_CAPTURE_DEFAULTS names every class");
_Static_assert(VALUE_KIND_COUNT <= 8, "kinds fit the capture table's bytes");

void value_capture_defaults(struct value_capture *c)
{
    const struct value_capture d = VALUE_CAPTURE_DEFAULTS;
    *c = d;
}

static bool same(const char *a, size_t n, const char *b)
{
    size_t i = 0;
    while (i < n && b[i] && a[i] == b[i])
        i++;
    return i == n && b[i] == '\0';
}

/* One item "class:kinds"; -1 if bad. */
static int parse_item(struct value_capture *c, const char *s, size_t n)
{
    size_t colon = 0;
    while (colon < n && s[colon] != ':')
        colon++;
    if (colon == n)
        return -1;
    int cls = -2;                                   /* -1: all */
    if (same(s, colon, "all"))
        cls = -1;
    for (unsigned i = 0; i < VALUE_CLASS_COUNT; i++)
        if (same(s, colon, class_names[i]))
            cls = (int)i;
    if (cls == -2)
        return -1;
    const char *k = s + colon + 1;
    size_t kn = n - colon - 1;
    unsigned mask = 0;
    if (!same(k, kn, "none")) {
        size_t i = 0;
        while (i <= kn) {
            size_t j = i;
            while (j < kn && k[j] != '+')
                j++;
            int found = -1;
            for (unsigned v = 0; v < VALUE_KIND_COUNT; v++)
                if (same(k + i, j - i, kind_names[v]))
                    found = (int)v;
            if (found < 0)
                return -1;
            mask |= 1u << found;
            i = j + 1;
        }
    }
    for (unsigned i = 0; i < VALUE_CLASS_COUNT; i++)
        if (cls == -1 || (unsigned)cls == i)
            c->kinds[i] = (uint8_t)mask;
    return 0;
}

int value_capture_parse(struct value_capture *c, const char *spec, size_t n, const char **at, size_t *at_len)
{
    struct value_capture next = *c;
    size_t i = 0;
    if (n == 0) {
        *at = spec;
        *at_len = 0;
        return -1;
    }
    while (i <= n) {
        size_t j = i;
        while (j < n && spec[j] != ',')
            j++;
        if (parse_item(&next, spec + i, j - i)) {
            *at = spec + i;
            *at_len = j - i;
            return -1;
        }
        i = j + 1;
    }
    *c = next;
    return 0;
}
