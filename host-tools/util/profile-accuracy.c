/*
 * A profile's accuracy against the oracle (definitions and invariants:
 * profile-accuracy.h).
 */
#include "util/profile-accuracy.h"

#include <stdlib.h>
#include <string.h>

#include "firmware/abi/event-spec.h"
#include "util/cycle-stacks.h"
#include "util/strvec.h"

int oracle_event_for(const char *name)
{
    if (!strcmp(name, "timer"))
        return PMU_EV_CYCLES;
    return pmu_event_lookup(name, strlen(name));
}

const char *pv_procedure_at(const struct profile_view *v, uint64_t pc)
{
    for (size_t m = 0; m < v->nimages; m++) {
        const struct symbol *s = v->images[m].st ? symtab_lookup(v->images[m].st, pc) : NULL;
        if (s)
            return s->name;
    }
    return "[unknown]";
}

static double magnitude(const struct share_diff *d)
{
    return d->profile > d->oracle ? d->profile - d->oracle : d->oracle - d->profile;
}

static int by_difference(const void *a, const void *b)
{
    double dx = magnitude(a), dy = magnitude(b);
    return dx < dy ? 1 : dx > dy ? -1 : 0;
}

/* Every key of a or b (both sorted) with its share on each side. */
static struct share_diff *share_diffs(const struct keyed_count *a, size_t na, const struct keyed_count *b,
                                      size_t nb, size_t *n_out)
{
    double ta = 0, tb = 0;
    for (size_t i = 0; i < na; i++)
        ta += a[i].count;
    for (size_t i = 0; i < nb; i++)
        tb += b[i].count;
    struct share_diff *rows = xmalloc((na + nb + 1) * sizeof *rows);
    size_t n = 0, i = 0, j = 0;
    while (i < na || j < nb) {
        if (j == nb || (i < na && a[i].key < b[j].key)) {
            rows[n++] = (struct share_diff){a[i].key, a[i].count / ta, 0};
            i++;
        } else if (i == na || b[j].key < a[i].key) {
            rows[n++] = (struct share_diff){b[j].key, 0, b[j].count / tb};
            j++;
        } else {
            rows[n++] = (struct share_diff){a[i].key, a[i].count / ta, b[j].count / tb};
            i++;
            j++;
        }
    }
    if (n > 1)
        qsort(rows, n, sizeof *rows, by_difference);
    *n_out = n;
    return rows;
}

/* The key with the largest count (0 if none). */
static uint64_t top_key(const struct keyed_count *k, size_t n)
{
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (k[i].count > k[best].count)
            best = i;
    return n ? k[best].key : 0;
}

static uint64_t pc_of(const struct pv_insn *in)
{
    return in->img->id == 0 ? in->offset : in->img->address + in->offset;
}

/* Rekeys each PC by the start of the procedure holding it (kept if none). */
static void by_procedure(const struct profile_view *v, struct keyed_count *vec, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t m = 0; m < v->nimages; m++) {
            const struct pv_image *img = &v->images[m];
            const struct symbol *s = img->st ? symtab_lookup(img->st, vec[i].key) : NULL;
            if (s) {
                vec[i].key = s->start;
                break;
            }
        }
}

void profile_accuracy(const struct profile_view *v, int e, const struct oracle *truth,
                      const struct oracle *whole, int oev, struct profile_accuracy *a)
{
    memset(a, 0, sizeof *a);
    struct keyed_count *prof = xmalloc((v->ninsns + 1) * sizeof *prof);
    size_t np = 0;
    for (size_t i = 0; i < v->ninsns; i++)
        if (v->insns[i].count[e])
            prof[np++] = (struct keyed_count){pc_of(&v->insns[i]), (double)v->insns[i].count[e]};
    np = keyed_normalise(prof, np);
    struct keyed_count *oracle = xmalloc((truth->h.npcs + 1) * sizeof *oracle);
    size_t nt = 0;
    for (uint64_t i = 0; i < truth->h.npcs; i++)
        if (truth->pcs[i].events[oev])
            oracle[nt++] = (struct keyed_count){truth->pcs[i].pc, (double)truth->pcs[i].events[oev]};
    a->insn_error = distribution_error(prof, np, oracle, nt);
    a->time_error = -1;
    if (oev == PMU_EV_CYCLES) {
        struct keyed_count *time = xmalloc((truth->h.npcs + 1) * sizeof *time);
        a->time_error = distribution_error(prof, np, time, cycle_stacks_time(truth, time));
        free(time);
    }
    a->profile_pcs = np;
    a->oracle_pcs = nt;
    a->diffs = share_diffs(prof, np, oracle, nt, &a->ndiffs);

    /* procedure level: both sides keyed by the start of their symbol */
    by_procedure(v, prof, np);
    by_procedure(v, oracle, nt);
    size_t npp = keyed_normalise(prof, np), ntp = keyed_normalise(oracle, nt);
    a->proc_error = distribution_error(prof, npp, oracle, ntp);
    a->top_profile = pv_procedure_at(v, top_key(prof, npp));
    a->top_oracle = pv_procedure_at(v, top_key(oracle, ntp));
    free(prof);
    free(oracle);

    a->samples = v->total[e];
    for (unsigned c = 0; c < whole->h.ncores; c++) {
        if (c < truth->h.ncores) {
            a->instructions += truth->cores[c].instructions;
            a->cycles += truth->cores[c].cycles;
        }
        a->interrupts += whole->cores[c].interrupts;
        a->overflows += whole->cores[c].overflows;
        a->ring_dropped += whole->cores[c].ring_dropped;
        a->ring_unread += whole->cores[c].ring_unread;
    }
}

void profile_accuracy_free(struct profile_accuracy *a)
{
    free(a->diffs);
    memset(a, 0, sizeof *a);
}

void oracle_sums(const struct oracle *o, struct oracle_sums *s)
{
    memset(s, 0, sizeof *s);
    for (unsigned c = 0; c < o->h.ncores; c++) {
        s->cycles += o->cores[c].cycles;
        s->instructions += o->cores[c].instructions;
        for (unsigned e = 0; e < PMU_EV_COUNT; e++)
            s->events[e] += o->cores[c].events[e];
    }
    for (uint64_t i = 0; i < o->h.npcs; i++)
        for (unsigned e = 0; e < PMU_EV_COUNT; e++)
            s->events_by_pc[e] += o->pcs[i].events[e];
}
