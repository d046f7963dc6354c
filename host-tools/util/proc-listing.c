/*
 * A procedure's annotated listing (definitions and invariants:
 * proc-listing.h).
 */
#include "util/proc-listing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw-model/isa/alpha-isa.h"
#include "util/strvec.h"

/* The procedure's symbol: from the samples, or any image's symbol table. */
static int find_procedure(const struct profile_view *v, const char *name, const struct pv_image **img,
                          const struct symbol **sym)
{
    const struct pv_proc *p = pv_find_proc(v, name);
    if (p && p->sym) {
        *img = p->img;
        *sym = p->sym;
        return 0;
    }
    for (size_t i = 0; i < v->nimages; i++)
        if (v->images[i].st && (*sym = symtab_find(v->images[i].st, name))) {
            *img = &v->images[i];
            return 0;
        }
    return -1;
}

int proc_listing_build(const struct profile_view *v, const struct pme_view *pv, const char *name,
                       struct proc_listing *l)
{
    memset(l, 0, sizeof *l);
    const struct pv_image *img;
    const struct symbol *sym;
    /* a ProfileMe-only profile: its images hold the procedure */
    struct profile_view pme_images = {.images = pv ? pv->images : NULL, .nimages = pv ? pv->nimages : 0};
    if (find_procedure(v, name, &img, &sym) && find_procedure(&pme_images, name, &img, &sym))
        return -1;
    l->img = img;
    l->sym = sym;
    uint64_t end = symtab_symbol_end(img->st, sym);
    l->n = (size_t)((end - sym->start) / 4);
    l->insns = calloc(l->n ? l->n : 1, sizeof *l->insns);
    if (!l->insns) {
        fprintf(stderr, "alphaprof: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < v->ninsns; i++) {
        const struct pv_insn *in = &v->insns[i];
        uint64_t pc = img->address + in->offset;
        if (in->img != img || pc < sym->start || pc >= end)
            continue;
        for (size_t e = 0; e < v->nevents; e++) {
            l->insns[(pc - sym->start) / 4].count[e] += in->count[e];
            l->proc_total[e] += in->count[e];
        }
    }
    /* the ProfileMe image of the same ELF */
    const struct pv_image *pimg = NULL;
    for (size_t i = 0; pv && i < pv->nimages; i++)
        if (pv->images[i].id == img->id)
            pimg = &pv->images[i];
    for (size_t k = 0; k < l->n; k++) {
        struct listing_insn *li = &l->insns[k];
        li->pc = sym->start + 4 * k;
        uint32_t word = 0;
        if (symtab_read(img->st, li->pc, &word, 4))
            alpha_disassemble(word, li->pc, li->text, sizeof li->text);
        else
            snprintf(li->text, sizeof li->text, "??");
        li->line = symtab_line(img->st, li->pc);
        li->ninlined = symtab_inlined_at((struct symtab *)img->st, li->pc, li->inlined, LISTING_MAX_INLINED);
        li->pme = pimg ? pme_view_find(pv, pimg, li->pc - pimg->address) : NULL;
        l->pme_samples += li->pme ? li->pme->samples : 0;
    }
    return 0;
}

void proc_listing_free(struct proc_listing *l)
{
    free(l->insns);
    memset(l, 0, sizeof *l);
}
