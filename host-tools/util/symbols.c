/*
 * ELF symbol table and DWARF line table reader.  Invariants once open:
 * syms sorted by start with no duplicates; lines sorted by addr, each row
 * covering [addr, next row's addr) unless it ends a sequence (line 0).
 */
#include "util/symbols.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/regular-file.h"
#include "util/strvec.h"

struct symtab {
    char *path;
    int fd;
    Elf *elf;
    Dwarf *dw;                  /* NULL without DWARF */
    uint8_t build_id[64];
    size_t build_id_size;
    struct symbol *syms;
    size_t nsyms;
    struct source_line *lines;
    size_t nlines;
    char **files;               /* interned file names */
    size_t nfiles;
};

static int cmp_sym(const void *a, const void *b)
{
    const struct symbol *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->size < y->size ? 1 : x->size > y->size ? -1 : 0;   /* larger first */
}

static int cmp_line(const void *a, const void *b)
{
    const struct source_line *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return (x->line == 0) - (y->line == 0);     /* a real row before an end marker */
}

static const char *intern(struct symtab *st, const char *file)
{
    for (size_t i = st->nfiles; i-- > 0;)
        if (strcmp(st->files[i], file) == 0)
            return st->files[i];
    st->files = xrealloc(st->files, (st->nfiles + 1) * sizeof *st->files);
    st->files[st->nfiles] = xstrdup(file);
    return st->files[st->nfiles++];
}

static void read_symbols(struct symtab *st)
{
    Elf_Scn *scn = NULL;
    size_t cap = 0;
    while ((scn = elf_nextscn(st->elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
            continue;
        Elf_Data *data = elf_getdata(scn, NULL);
        size_t n = data ? sh.sh_size / sh.sh_entsize : 0;
        for (size_t i = 0; i < n; i++) {
            GElf_Sym s;
            if (!gelf_getsym(data, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_value)
                continue;
            const char *name = elf_strptr(st->elf, sh.sh_link, s.st_name);
            if (!name || !*name)
                continue;
            if (st->nsyms == cap) {
                cap = cap ? 2 * cap : 256;
                st->syms = xrealloc(st->syms, cap * sizeof *st->syms);
            }
            st->syms[st->nsyms++] = (struct symbol){s.st_value, s.st_size, xstrdup(name)};
        }
    }
    if (st->nsyms > 1)      /* an ELF may have no function symbols: no qsort(NULL, 0) */
        qsort(st->syms, st->nsyms, sizeof *st->syms, cmp_sym);
    /* Aliases (same start): keep the first, which has the larger size. */
    size_t out = 0;
    for (size_t i = 0; i < st->nsyms; i++) {
        if (out && st->syms[out - 1].start == st->syms[i].start) {
            free((char *)st->syms[i].name);
            continue;
        }
        st->syms[out++] = st->syms[i];
    }
    st->nsyms = out;
}

static void read_lines(struct symtab *st)
{
    if (!st->dw)
        return;
    size_t cap = 0;
    Dwarf_Off off = 0, next;
    size_t hsize;
    while (dwarf_nextcu(st->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu;
        if (dwarf_offdie(st->dw, off + hsize, &cu)) {
            Dwarf_Lines *lines;
            size_t n;
            if (dwarf_getsrclines(&cu, &lines, &n) == 0) {
                for (size_t i = 0; i < n; i++) {
                    Dwarf_Line *l = dwarf_onesrcline(lines, i);
                    Dwarf_Addr addr;
                    int line = 0;
                    bool end = false;
                    if (!l || dwarf_lineaddr(l, &addr) || dwarf_lineno(l, &line))
                        continue;
                    dwarf_lineendsequence(l, &end);
                    const char *file = dwarf_linesrc(l, NULL, NULL);
                    if (st->nlines == cap) {
                        cap = cap ? 2 * cap : 1024;
                        st->lines = xrealloc(st->lines, cap * sizeof *st->lines);
                    }
                    st->lines[st->nlines++] = (struct source_line){
                        addr, file ? intern(st, file) : "??", end ? 0 : (uint32_t)line};
                }
            }
        }
        off = next;
    }
    if (st->nlines > 1)
        qsort(st->lines, st->nlines, sizeof *st->lines, cmp_line);
}

int symtab_open(const char *path, struct symtab **out, struct ap_err *err)
{
    *out = NULL;
    elf_version(EV_CURRENT);
    int fd = regular_open(path, O_RDONLY, "the image's ELF file (build/workloads/NAME.elf)", err);
    if (fd < 0)
        return -1;
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    if (!elf || elf_kind(elf) != ELF_K_ELF) {
        if (elf)
            elf_end(elf);
        close(fd);
        return ap_err_set(err, "%s: not an ELF file; give the image's ELF file", path);
    }
    struct symtab *st = xmalloc(sizeof *st);
    memset(st, 0, sizeof *st);
    st->path = xstrdup(path);
    st->fd = fd;
    st->elf = elf;
    const void *id;
    ssize_t idlen = dwelf_elf_gnu_build_id(elf, &id);
    if (idlen > 0 && (size_t)idlen <= sizeof st->build_id) {
        memcpy(st->build_id, id, (size_t)idlen);
        st->build_id_size = (size_t)idlen;
    }
    st->dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
    read_symbols(st);
    read_lines(st);
    *out = st;
    return 0;
}

void symtab_close(struct symtab *st)
{
    if (!st)
        return;
    for (size_t i = 0; i < st->nsyms; i++)
        free((char *)st->syms[i].name);
    for (size_t i = 0; i < st->nfiles; i++)
        free(st->files[i]);
    free(st->syms);
    free(st->files);
    free(st->lines);
    if (st->dw)
        dwarf_end(st->dw);
    elf_end(st->elf);
    close(st->fd);
    free(st->path);
    free(st);
}

const char *symtab_path(const struct symtab *st) { return st->path; }

const uint8_t *symtab_build_id(const struct symtab *st, size_t *size)
{
    *size = st->build_id_size;
    return st->build_id;
}

bool symtab_is_build(const struct symtab *st, const void *id, size_t n)
{
    size_t have_n;
    const uint8_t *have = symtab_build_id(st, &have_n);
    return !n || (have_n == n && !memcmp(have, id, n));
}

bool symtab_same_build(const char *path, const void *id, size_t n, struct ap_err *err)
{
    struct symtab *st;
    if (!n || symtab_open(path, &st, err))
        return !n;
    bool same = symtab_is_build(st, id, n);
    symtab_close(st);
    if (!same)
        ap_err_set(err, "%s is not the build the profile recorded (another build-id): it was rebuilt or "
                   "instrumented again since; record again (or restore that image)", path);
    return same;
}

const struct symbol *symtab_symbols(const struct symtab *st, size_t *n)
{
    *n = st->nsyms;
    return st->syms;
}

uint64_t symtab_symbol_end(const struct symtab *st, const struct symbol *sym)
{
    if (sym->size)
        return sym->start + sym->size;
    size_t i = (size_t)(sym - st->syms);
    return i + 1 < st->nsyms ? st->syms[i + 1].start : sym->start + 4;
}

const struct symbol *symtab_lookup(const struct symtab *st, uint64_t addr)
{
    size_t lo = 0, hi = st->nsyms;
    while (lo < hi) {               /* first symbol with start > addr */
        size_t mid = lo + (hi - lo) / 2;
        if (st->syms[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const struct symbol *s = &st->syms[lo - 1];
    return addr < symtab_symbol_end(st, s) ? s : NULL;
}

const struct symbol *symtab_find(const struct symtab *st, const char *name)
{
    for (size_t i = 0; i < st->nsyms; i++)
        if (strcmp(st->syms[i].name, name) == 0)
            return &st->syms[i];
    return NULL;
}

bool symtab_read(const struct symtab *st, uint64_t addr, void *buf, size_t len)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(st->elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || sh.sh_type != SHT_PROGBITS)
            continue;
        if (addr < sh.sh_addr || addr - sh.sh_addr + len > sh.sh_size)
            continue;
        Elf_Data *data = elf_getdata(scn, NULL);
        if (!data || !data->d_buf || addr - sh.sh_addr + len > data->d_size)
            return false;
        memcpy(buf, (const char *)data->d_buf + (addr - sh.sh_addr), len);
        return true;
    }
    return false;
}

const struct source_line *symtab_line(const struct symtab *st, uint64_t addr)
{
    size_t lo = 0, hi = st->nlines;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (st->lines[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const struct source_line *l = &st->lines[lo - 1];
    return l->line ? l : NULL;      /* past the end of a sequence: no line */
}

size_t symtab_inlined_at(struct symtab *st, uint64_t addr, const char **names, size_t max)
{
    if (!st->dw || max == 0)
        return 0;
    Dwarf_Die cu;
    if (!dwarf_addrdie(st->dw, addr, &cu))
        return 0;
    Dwarf_Die *scopes = NULL;
    int n = dwarf_getscopes(&cu, addr, &scopes);
    size_t found = 0;
    for (int i = 0; i < n && found < max; i++) {
        if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
            continue;
        Dwarf_Attribute attr;
        Dwarf_Die origin;
        const char *name = NULL;
        if (dwarf_attr_integrate(&scopes[i], DW_AT_abstract_origin, &attr) &&
            dwarf_formref_die(&attr, &origin))
            name = dwarf_diename(&origin);
        names[found++] = name ? name : "??";
    }
    free(scopes);
    return found;
}
