/*
 * Building an export profile from a profile view (export-profile.h).
 */
#include "util/export-profile.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "util/profile-compare.h"
#include "util/strvec.h"

#define OUTSIDE "[outside any procedure]"

static const char *keep(struct xp_profile *x, const char *s)
{
    x->strings = xrealloc(x->strings, (x->nstrings + 1) * sizeof *x->strings);
    return x->strings[x->nstrings++] = xstrdup(s);
}

/* Size of the image's most recent loadmap entry, 0 if unknown. */
static uint64_t loaded_size(struct pdb *db, int64_t image)
{
    sqlite3_stmt *st;
    uint64_t size = 0;
    if (sqlite3_prepare_v2(pdb_sqlite(db), "SELECT size FROM loadmaps WHERE image = ?1 ORDER BY session DESC LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, image);
    if (sqlite3_step(st) == SQLITE_ROW)
        size = (uint64_t)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return size;
}

static int add_mappings(struct pdb *db, const struct profile_view *v, struct xp_profile *x, struct ap_err *err)
{
    x->nmappings = v->nimages;
    x->mappings = xmalloc((v->nimages ? v->nimages : 1) * sizeof *x->mappings);
    x->readers = xmalloc((v->nimages ? v->nimages : 1) * sizeof *x->readers);
    for (size_t i = 0; i < v->nimages; i++) {
        const struct pv_image *img = &v->images[i];
        struct xp_mapping *m = &x->mappings[i];
        memset(m, 0, sizeof *m);
        x->readers[i] = NULL;
        m->name = img->name;
        m->path = img->path;
        m->start = img->address;
        uint64_t size = img->id ? loaded_size(db, img->id) : 0;
        m->limit = size ? img->address + size : 0;      /* else set from the sites below */
        if (img->id && cmp_image_build_id(db, img->id, m->build_id, err))
            return -1;
        m->has_functions = img->st != NULL;
        struct ap_err ignored;
        if (img->st && frames_open(img->path, &x->readers[i], &ignored) == 0)
            m->has_lines = m->has_inline = frames_have_dwarf(x->readers[i]);
    }
    return 0;
}

static void fill_frames(const struct pv_image *img, struct frame_reader *fr, uint64_t pc, struct xp_site *s)
{
    const struct symbol *sym = img->st ? symtab_lookup(img->st, pc) : NULL;
    s->nframes = sym && fr ? frames_at(fr, pc, s->frames, XP_MAX_FRAMES) : 0;
    if (s->nframes == 0) {
        const struct source_line *l = sym ? symtab_line(img->st, pc) : NULL;
        s->frames[0] = (struct src_frame){.func = sym ? sym->name : OUTSIDE,
                                          .file = l ? l->file : NULL,
                                          .line = l ? l->line : 0};
        s->nframes = 1;
        return;
    }
    /* The procedure as the ELF symbol names it, as report and diff do. */
    s->frames[s->nframes - 1].func = sym->name;
}

int export_from_view(struct pdb *db, const struct profile_view *v, struct xp_profile *x, struct ap_err *err)
{
    memset(x, 0, sizeof *x);
    x->nevents = v->nevents;
    for (size_t e = 0; e < v->nevents; e++) {
        x->events[e] = v->events[e];
        x->event_names[e] = v->event_names[e];
        x->periods[e] = v->periods[e];
    }
    x->epoch = v->epoch;
    x->source = keep(x, pdb_path(db));
    if (add_mappings(db, v, x, err)) {
        export_free(x);
        return -1;
    }
    x->sites = xmalloc((v->ninsns ? v->ninsns : 1) * sizeof *x->sites);
    for (size_t i = 0; i < v->ninsns; i++) {
        const struct pv_insn *in = &v->insns[i];
        size_t m = (size_t)(in->img - v->images);
        struct xp_site *s = &x->sites[x->nsites++];
        s->mapping = m;
        s->pc = in->img->address + in->offset;
        memcpy(s->count, in->count, sizeof s->count);
        fill_frames(in->img, x->readers[m], s->pc, s);
        if (s->pc + 4 > x->mappings[m].limit)
            x->mappings[m].limit = s->pc + 4;
    }
    return 0;
}

void export_free(struct xp_profile *x)
{
    for (size_t i = 0; x->readers && i < x->nmappings; i++)
        frames_close(x->readers[i]);
    for (size_t i = 0; i < x->nstrings; i++)
        free(x->strings[i]);
    free(x->strings);
    free(x->readers);
    free(x->mappings);
    free(x->sites);
    memset(x, 0, sizeof *x);
}

int export_event_index(const struct xp_profile *x, const char *name)
{
    for (size_t e = 0; e < x->nevents; e++)
        if (!strcmp(x->event_names[e], name))
            return (int)e;
    char *end;
    long num = strtol(name, &end, 10);
    for (size_t e = 0; *name && !*end && e < x->nevents; e++)
        if (x->events[e] == (uint32_t)num)
            return (int)e;
    return -1;
}
