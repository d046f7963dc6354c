/* Hot paths from ProfileMe's paired samples: see path-profile.h. */
#include "util/path-profile.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw-model/pmu-window.h"
#include "util/strvec.h"

static int sql_fail(sqlite3 *db, struct ap_err *err)
{
    return ap_err_set(err, "reading the paired samples: %s", sqlite3_errmsg(db));
}

int ps_load(struct pdb *pdb, const struct pv_selection *sel, struct ps_samples *ps, struct ap_err *err)
{
    memset(ps, 0, sizeof *ps);
    int64_t epoch = sel->epoch;
    if (epoch == 0 && pdb_current_epoch(pdb, &epoch, err))
        return -1;
    sqlite3 *db = pdb_sqlite(pdb);
    sqlite3_stmt *st;
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT s.image, coalesce(i.name, '[unknown]'), i.path, "
             "       (SELECT address FROM loadmaps l WHERE l.image = s.image ORDER BY session DESC LIMIT 1), "
             "       i.build_id "
             "FROM (SELECT DISTINCT r.image FROM pair_records r JOIN pairs p ON p.id = r.pair "
             "      WHERE (?1 < 0 OR p.epoch = ?1) AND (?2 < 0 OR p.core = ?2)) s "
             "LEFT JOIN images i ON i.id = s.image ORDER BY s.image");
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return sql_fail(db, err);
    sqlite3_bind_int64(st, 1, epoch);
    sqlite3_bind_int(st, 2, sel->core);
    if (pv_read_images(db, st, &ps->images, &ps->nimages, err))
        return -1;
    ps->progs = calc_zalloc(ps->nimages ? ps->nimages : 1, sizeof *ps->progs);
    for (size_t i = 0; i < ps->nimages; i++)
        if (ps->images[i].st)
            pr_program_init(&ps->progs[i], ps->images[i].st);
    ps->interval = pdb_mean_period(pdb, epoch, PDB_PERIOD_PME);
    if (!ps->interval)
        ps->interval = pdb_mean_period(pdb, epoch, PDB_PERIOD_PME_PAIR) / 2;

    snprintf(sql, sizeof sql,
             "SELECT p.id, p.core, p.distance, p.gap, r.slot, r.image, r.offset, r.events, r.history "
             "FROM pairs p JOIN pair_records r ON r.pair = p.id "
             "WHERE (?1 < 0 OR p.epoch = ?1) AND (?2 < 0 OR p.core = ?2) ORDER BY p.id, r.slot");
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return sql_fail(db, err);
    sqlite3_bind_int64(st, 1, epoch);
    sqlite3_bind_int(st, 2, sel->core);
    size_t cap = 1024;
    ps->s = xmalloc(cap * sizeof *ps->s);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0), slot = sqlite3_column_int64(st, 4);
        if (slot < 0 || slot > 1) {
            sqlite3_finalize(st);
            return ap_err_set(err, "paired sample %lld has slot %lld: the database is damaged", (long long)id,
                              (long long)slot);
        }
        struct pv_image *img = pv_image_by_id(ps->images, ps->nimages, sqlite3_column_int64(st, 5));
        struct ps_sample s = {
            .img = img, .pc = (img ? img->address : 0) + (uint64_t)sqlite3_column_int64(st, 6),
            .history = (uint32_t)sqlite3_column_int64(st, 8), .core = (uint32_t)sqlite3_column_int(st, 1),
            .distance = (uint32_t)sqlite3_column_int64(st, 2), .gap = (uint32_t)sqlite3_column_int64(st, 3),
            .slot = (uint8_t)slot, .retired = (sqlite3_column_int64(st, 7) >> PME_EVB_RETIRED) & 1,
            .pair_id = id};
        if (slot == 1 && ps->n && ps->s[ps->n - 1].pair_id == id && ps->s[ps->n - 1].slot == 0) {
            s.pair_pc = ps->s[ps->n - 1].pc;
            s.pair_retired = ps->s[ps->n - 1].retired;
            ps->npairs++;
        }
        if (ps->n == cap) {
            cap *= 2;
            ps->s = xrealloc(ps->s, cap * sizeof *ps->s);
        }
        ps->s[ps->n++] = s;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return sql_fail(db, err);
    if (sel->image) {           /* both records were read for the pair; keep the image's */
        size_t k = 0;
        for (size_t i = 0; i < ps->n; i++)
            if (ps->s[i].img && !strcmp(ps->s[i].img->name, sel->image))
                ps->s[k++] = ps->s[i];
        ps->n = k;
    }
    return 0;
}

void ps_free(struct ps_samples *ps)
{
    for (size_t i = 0; i < ps->nimages; i++)
        if (ps->progs && ps->progs[i].st)
            pr_program_free(&ps->progs[i]);
    free(ps->progs);
    pv_free_images(ps->images, ps->nimages);
    free(ps->s);
    memset(ps, 0, sizeof *ps);
}

struct pr_program *ps_program(struct ps_samples *ps, const struct pv_image *img)
{
    if (!img)
        return NULL;
    size_t i = (size_t)(img - ps->images);
    return i < ps->nimages && ps->progs[i].st ? &ps->progs[i] : NULL;
}

void ps_query(const struct ps_sample *s, unsigned nbits, bool use_pair, struct pr_query *q)
{
    *q = (struct pr_query){.pc = s->pc, .history = s->history, .nbits = nbits};
    if (use_pair && s->slot == 1 && s->pair_retired && s->pair_pc) {
        q->pair = true;
        q->pair_pc = s->pair_pc;
        q->gap = s->gap;
    }
}

/* The sampled block's length, for the estimate (note 2). */
static unsigned block_length(struct pr_program *p, uint64_t pc)
{
    const struct calc_proc *cfg;
    if (pr_proc_at(p, pc, &cfg) < 0)
        return 1;
    return cfg->blocks[cfg->insns[(pc - cfg->start) / 4].block].n;
}

static int by_samples(const void *a, const void *b)
{
    const struct path_row *x = a, *y = b;
    if (x->samples != y->samples)
        return x->samples > y->samples ? -1 : 1;
    return x->seg.block[0] < y->seg.block[0] ? -1 : x->seg.block[0] > y->seg.block[0];
}

static int procs_by_samples(const void *a, const void *b)
{
    const struct path_proc *x = a, *y = b;
    if (x->samples != y->samples)
        return x->samples > y->samples ? -1 : 1;
    return strcmp(x->name, y->name);
}

void path_profile_build(struct ps_samples *ps, unsigned nbits, const char *name, struct path_profile *pp)
{
    memset(pp, 0, sizeof *pp);
    pp->nbits = nbits;
    size_t pcap = 16;
    pp->procs = calc_zalloc(pcap, sizeof *pp->procs);
    for (size_t i = 0; i < ps->n; i++) {
        const struct ps_sample *s = &ps->s[i];
        if (!s->retired) {
            pp->not_retired++;
            continue;
        }
        struct pr_program *prog = ps_program(ps, s->img);
        const struct calc_proc *cfg;
        int sym = prog ? pr_proc_at(prog, s->pc, &cfg) : -1;
        if (sym < 0) {
            pp->no_code++;
            continue;
        }
        const char *pname = prog->syms[sym].name;
        if (name && strcmp(name, pname))
            continue;
        struct path_proc *pr = NULL;
        for (size_t k = 0; k < pp->nprocs; k++)
            if (pp->procs[k].img == s->img && pp->procs[k].start == prog->syms[sym].start)
                pr = &pp->procs[k];
        if (!pr) {
            if (pp->nprocs == pcap) {
                pcap *= 2;
                pp->procs = xrealloc(pp->procs, pcap * sizeof *pp->procs);
            }
            pr = &pp->procs[pp->nprocs++];
            *pr = (struct path_proc){.name = pname, .img = s->img, .start = prog->syms[sym].start};
        }
        pr->samples++;
        pp->samples++;
        struct pr_query q;
        ps_query(s, nbits, true, &q);
        struct pr_result res;
        pr_reconstruct(prog, &q, &res);
        pr->outcomes[res.outcome]++;
        if (res.outcome != PR_UNIQUE)
            continue;
        pp->used++;
        struct path_row *row = NULL;
        for (size_t k = 0; k < pr->nrows; k++)
            if (pr->rows[k].seg.block[0] == res.seg.block[0] && pr_same_path(&pr->rows[k].seg, &res.seg))
                row = &pr->rows[k];
        if (!row) {
            pr->rows = xrealloc(pr->rows, (pr->nrows + 1) * sizeof *pr->rows);
            row = &pr->rows[pr->nrows++];
            *row = (struct path_row){.seg = res.seg};
        }
        row->samples++;
        row->executions += ps->interval / block_length(prog, res.seg.block[0]);
    }
    for (size_t k = 0; k < pp->nprocs; k++)
        if (pp->procs[k].nrows)
            qsort(pp->procs[k].rows, pp->procs[k].nrows, sizeof *pp->procs[k].rows, by_samples);
    if (pp->nprocs)
        qsort(pp->procs, pp->nprocs, sizeof *pp->procs, procs_by_samples);
}

void path_profile_free(struct path_profile *pp)
{
    for (size_t k = 0; k < pp->nprocs; k++)
        free(pp->procs[k].rows);
    free(pp->procs);
    memset(pp, 0, sizeof *pp);
}

/* "file:line" of pc, or its address. */
void path_block_where(const struct pv_image *img, uint64_t pc, char *buf, size_t len)
{
    const struct source_line *l = img->st ? symtab_line(img->st, pc) : NULL;
    if (l && l->file) {
        const char *slash = strrchr(l->file, '/');
        snprintf(buf, len, "%s:%u", slash ? slash + 1 : l->file, l->line);
    } else {
        snprintf(buf, len, "%llx", (unsigned long long)pc);
    }
}

/* The path's blocks oldest first; a callee's blocks as one [name]. */
void path_row_text(const struct path_proc *pr, const struct path_row *row, char *out, size_t len)
{
    size_t k = 0;
    out[0] = '\0';
    char prev[160] = "";
    for (size_t i = row->seg.nblocks; i-- > 0 && k + 1 < len;) {
        char item[160];
        uint64_t pc = row->seg.block[i];
        if (row->seg.depth[i]) {
            const struct symbol *s = pr->img->st ? symtab_lookup(pr->img->st, pc) : NULL;
            snprintf(item, sizeof item, "[%s]", s ? s->name : "?");
        } else {
            path_block_where(pr->img, pc, item, sizeof item);
        }
        if (!strcmp(item, prev))
            continue;
        snprintf(prev, sizeof prev, "%s", item);
        int n = snprintf(out + k, len - k, "%s%s", k ? " > " : "", item);
        if (n < 0 || (size_t)n >= len - k)
            break;
        k += (size_t)n;
    }
}
