/*
 * Inlined frames from DWARF (inline-frames.h): the DIEs whose ranges hold
 * the address, found by walking down from the CU (subprogram, lexical
 * blocks, DW_TAG_inlined_subroutine instances, nested as the code is);
 * names of inlined instances come from their abstract origin
 * (dwarf_attr_integrate follows it).  A CU's top-level subprograms are
 * indexed by address range the first time the CU is visited, so finding
 * the procedure costs a binary search, not a walk over every function of
 * the CU (an image of thousands of functions in one file).
 */
#include "util/inline-frames.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/regular-file.h"
#include "util/strvec.h"

/* One address range of a CU's top-level subprogram. */
struct sub_range {
    uint64_t lo, hi;        /* [lo, hi) */
    Dwarf_Off die;          /* the subprogram's DIE */
};

struct cu_index {
    Dwarf_Off cu;
    struct sub_range *r;    /* sorted by lo */
    size_t n;
};

struct frame_reader {
    int fd;
    Dwarf *dw;              /* NULL without DWARF */
    struct cu_index *cus;   /* the CUs indexed so far */
    size_t ncus;
};

int frames_open(const char *path, struct frame_reader **out, struct ap_err *err)
{
    *out = NULL;
    int fd = regular_open(path, O_RDONLY, "the image's ELF file", err);
    if (fd < 0)
        return -1;
    struct frame_reader *fr = xmalloc(sizeof *fr);
    fr->fd = fd;
    fr->dw = dwarf_begin(fd, DWARF_C_READ);
    fr->cus = NULL;
    fr->ncus = 0;
    *out = fr;
    return 0;
}

void frames_close(struct frame_reader *fr)
{
    if (!fr)
        return;
    if (fr->dw)
        dwarf_end(fr->dw);
    for (size_t i = 0; i < fr->ncus; i++)
        free(fr->cus[i].r);
    free(fr->cus);
    close(fr->fd);
    free(fr);
}

bool frames_have_dwarf(const struct frame_reader *fr)
{
    return fr && fr->dw;
}

static const char *die_name(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    const char *name = NULL;
    if (dwarf_attr_integrate(die, DW_AT_name, &attr))
        name = dwarf_formstring(&attr);
    return name ? name : "??";
}

/* An unsigned attribute; false when absent. */
static bool attr_udata(Dwarf_Die *die, unsigned name, Dwarf_Word *w)
{
    Dwarf_Attribute attr;
    return dwarf_attr(die, name, &attr) && dwarf_formudata(&attr, w) == 0;
}

#define MAX_DEPTH 64

/* Pushes the DIEs of the scopes physically containing addr below parent,
 * outermost first, into chain (up to MAX_DEPTH); true when found. */
static bool find_chain(Dwarf_Die *parent, uint64_t addr, Dwarf_Die *chain, size_t *depth)
{
    Dwarf_Die child;
    if (dwarf_child(parent, &child) != 0)
        return false;
    do {
        switch (dwarf_tag(&child)) {
        case DW_TAG_subprogram:
        case DW_TAG_inlined_subroutine:
        case DW_TAG_lexical_block:
            if (dwarf_haspc(&child, addr) == 1) {
                if (*depth < MAX_DEPTH)
                    chain[(*depth)++] = child;
                find_chain(&chain[*depth - 1], addr, chain, depth);
                return true;
            }
            break;
        case DW_TAG_namespace:      /* no ranges of their own: look inside */
        case DW_TAG_module:
        case DW_TAG_class_type:
        case DW_TAG_structure_type:
            if (find_chain(&child, addr, chain, depth))
                return true;
            break;
        default:
            break;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return false;
}

static int by_lo(const void *a, const void *b)
{
    const struct sub_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The index of the CU's top-level subprograms (built on first use). */
static const struct cu_index *cu_index_of(struct frame_reader *fr, Dwarf_Die *cu)
{
    Dwarf_Off off = dwarf_dieoffset(cu);
    for (size_t i = 0; i < fr->ncus; i++)
        if (fr->cus[i].cu == off)
            return &fr->cus[i];
    fr->cus = xrealloc(fr->cus, (fr->ncus + 1) * sizeof *fr->cus);
    struct cu_index *ix = &fr->cus[fr->ncus++];
    *ix = (struct cu_index){.cu = off};
    size_t cap = 0;
    Dwarf_Die child;
    if (dwarf_child(cu, &child) != 0)
        return ix;
    do {
        if (dwarf_tag(&child) != DW_TAG_subprogram)
            continue;
        Dwarf_Addr base, lo, hi;
        ptrdiff_t at = 0;
        while ((at = dwarf_ranges(&child, at, &base, &lo, &hi)) > 0) {
            if (ix->n == cap) {
                cap = cap ? 2 * cap : 64;
                ix->r = xrealloc(ix->r, cap * sizeof *ix->r);
            }
            ix->r[ix->n++] = (struct sub_range){lo, hi, dwarf_dieoffset(&child)};
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    if (ix->n > 1)
        qsort(ix->r, ix->n, sizeof *ix->r, by_lo);
    return ix;
}

/* The top-level subprogram holding addr through the index, pushed on the
 * chain with the scopes inside it; false when the index has none (then
 * the walk looks, e.g. inside namespaces). */
static bool find_chain_indexed(struct frame_reader *fr, Dwarf_Die *cu, uint64_t addr, Dwarf_Die *chain,
                               size_t *depth)
{
    const struct cu_index *ix = cu_index_of(fr, cu);
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {               /* the last range starting at or below addr */
        size_t mid = lo + (hi - lo) / 2;
        if (ix->r[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* ranges may nest or overlap (rare): look back over those starting lower */
    for (size_t k = lo; k-- > 0;) {
        if (addr < ix->r[k].hi) {
            if (!dwarf_offdie(fr->dw, ix->r[k].die, &chain[*depth]))
                return false;
            (*depth)++;
            find_chain(&chain[*depth - 1], addr, chain, depth);
            return true;
        }
        if (lo - k > 8)
            break;
    }
    return false;
}

/* The file and line a DIE itself declares (DW_AT_decl_file/line), NULL if
 * it has none of its own. */
static const char *own_decl(Dwarf_Die *die, uint32_t *line)
{
    Dwarf_Word idx, l;
    Dwarf_Die cu;
    Dwarf_Files *files;
    size_t nfiles;
    if (!attr_udata(die, DW_AT_decl_file, &idx) || !dwarf_diecu(die, &cu, NULL, NULL) ||
        dwarf_getsrcfiles(&cu, &files, &nfiles) != 0 || idx >= nfiles)
        return NULL;
    *line = attr_udata(die, DW_AT_decl_line, &l) ? (uint32_t)l : 0;
    return dwarf_filesrc(files, idx, NULL, NULL);
}

/* Where a function is defined: the definition's own decl_file (or its
 * abstract origin's, for an inlined instance) before the declaration's
 * that DW_AT_specification leads to, which is often a header. */
static const char *decl_of(Dwarf_Die *die, uint32_t *line)
{
    const char *file = own_decl(die, line);
    Dwarf_Attribute attr;
    Dwarf_Die origin;
    if (!file && dwarf_attr(die, DW_AT_abstract_origin, &attr) && dwarf_formref_die(&attr, &origin))
        file = own_decl(&origin, line);
    if (!file) {
        int l = 0;
        file = dwarf_decl_file(die);
        *line = file && dwarf_decl_line(die, &l) == 0 && l > 0 ? (uint32_t)l : 0;
    }
    return file;
}

size_t frames_at(struct frame_reader *fr, uint64_t addr, struct src_frame *out, size_t max)
{
    if (!fr->dw || max == 0)
        return 0;
    Dwarf_Die cu;
    if (!dwarf_addrdie(fr->dw, addr, &cu))
        return 0;
    /* The innermost position: the line-table row at addr. */
    const char *file = NULL;
    uint32_t line = 0;
    Dwarf_Line *row = dwarf_getsrc_die(&cu, addr);
    int lineno;
    if (row && dwarf_lineno(row, &lineno) == 0 && lineno > 0) {
        file = dwarf_linesrc(row, NULL, NULL);
        line = (uint32_t)lineno;
    }
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (dwarf_getsrcfiles(&cu, &files, &nfiles) != 0)
        files = NULL;
    /* dwarf_getscopes would follow an inlined instance to its abstract
     * origin's parents, losing the caller: walk the concrete tree instead. */
    Dwarf_Die chain[MAX_DEPTH];
    size_t depth = 0;
    if (!find_chain_indexed(fr, &cu, addr, chain, &depth))
        find_chain(&cu, addr, chain, &depth);
    size_t found = 0;
    for (size_t i = depth; i-- > 0 && found < max;) {
        int tag = dwarf_tag(&chain[i]);
        if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
            continue;
        struct src_frame *f = &out[found++];
        f->func = die_name(&chain[i]);
        f->func_file = decl_of(&chain[i], &f->func_line);
        f->file = file;
        f->line = line;
        if (tag == DW_TAG_subprogram)
            break;      /* the procedure itself: outermost */
        /* The frame outside executes the call site of this inlined call.
         * (DWARF 5 numbers files from 0, DWARF 4 from 1; libdw's table
         * follows the CU's version, so the index is used as it is.) */
        Dwarf_Word call_file, call_line;
        file = NULL;
        if (files && attr_udata(&chain[i], DW_AT_call_file, &call_file) && call_file < nfiles)
            file = dwarf_filesrc(files, call_file, NULL, NULL);
        line = attr_udata(&chain[i], DW_AT_call_line, &call_line) ? (uint32_t)call_line : 0;
    }
    return found;
}
