#include "hw-model/plugin/pme-diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw-model/pmu-window.h"

bool pme_diag_on;

#define DIAG_PCS     (1u << 16)        /* power of two */
#define DIAG_BUCKETS 96
#define DIAG_BUCKET  256               /* fetched instructions a bucket */

struct diag_pc {
    uint64_t pc;
    uint64_t n_all, n_tag;
    uint64_t all[PME_LAT_COUNT], tag[PME_LAT_COUNT];
    uint64_t all2[PME_LAT_COUNT], tag2[PME_LAT_COUNT];     /* sums of squares */
    double share_all, share_tag;        /* TIP: 1/n of a retire cycle n retired in */
    double share2_tag;
};

struct diag_bucket {
    uint64_t fetched, tagged, cycles, cycles_tagged, retired_tagged;
    uint64_t pc_all, pc_tag, pc_all_lat[PME_LAT_COUNT], pc_tag_lat[PME_LAT_COUNT];
};

static struct {
    char path[4096];
    uint64_t pc;
    struct diag_pc *pcs;
    uint64_t last_pal[MAX_CORES];
    /* by distance from the last change between kernel (the monitor) and
     * user (the workload) code: [0] in the monitor, [1] in the workload */
    uint64_t last_switch[MAX_CORES];
    bool in_user[MAX_CORES];
    uint64_t sw_fetched[2][DIAG_BUCKETS], sw_tagged[2][DIAG_BUCKETS];
    struct diag_bucket b[DIAG_BUCKETS];
    uint64_t group_retire[MAX_CORES];
    unsigned ngroup[MAX_CORES];
    struct diag_pc *group[MAX_CORES][16];
    bool group_tag[MAX_CORES][16];
} d;

/* The retire cycle's group is complete: each member's TIP share is 1/n. */
static void close_group(unsigned core)
{
    unsigned n = d.ngroup[core];
    for (unsigned i = 0; i < n; i++) {
        d.group[core][i]->share_all += 1.0 / n;
        if (d.group_tag[core][i]) {
            d.group[core][i]->share_tag += 1.0 / n;
            d.group[core][i]->share2_tag += 1.0 / ((double)n * n);
        }
    }
    d.ngroup[core] = 0;
}

void pme_diag_init(unsigned ncores)
{
    (void)ncores;
    const char *p = getenv("ALPHAPROF_PME_DIAG");
    if (!p || !*p)
        return;
    snprintf(d.path, sizeof d.path, "%s", p);
    const char *q = getenv("ALPHAPROF_PME_DIAG_PC");
    d.pc = q ? strtoull(q, NULL, 0) : 0;
    d.pcs = calloc(DIAG_PCS, sizeof *d.pcs);
    pme_diag_on = d.pcs != NULL;
}

static struct diag_pc *slot(uint64_t pc)
{
    for (uint32_t i = (uint32_t)((pc >> 2) * 0x9e3779b97f4a7c15ull >> 48);; i = (i + 1) & (DIAG_PCS - 1)) {
        struct diag_pc *e = &d.pcs[i];
        if (e->pc == pc || e->pc == 0) {
            e->pc = pc;
            return e;
        }
    }
}

void pme_diag_fetched(unsigned core, uint64_t pc, uint64_t fetched, bool pal, bool tagged,
                      const uint32_t *lat, uint64_t cycles, uint64_t retire)
{
    if (pal) {
        d.last_pal[core] = fetched;
    }
    bool user = pc >> 40 == 0;
    if (!pal && user != d.in_user[core]) {
        d.in_user[core] = user;
        d.last_switch[core] = fetched;
    }
    uint64_t sw = (fetched - d.last_switch[core]) / (4 * DIAG_BUCKET);
    sw = sw < DIAG_BUCKETS ? sw : DIAG_BUCKETS - 1;
    d.sw_fetched[d.in_user[core]][sw]++;
    d.sw_tagged[d.in_user[core]][sw] += tagged;
    uint64_t dist = (fetched - d.last_pal[core]) / DIAG_BUCKET;
    struct diag_bucket *b = &d.b[dist < DIAG_BUCKETS ? dist : DIAG_BUCKETS - 1];
    b->fetched++;
    b->tagged += tagged;
    if (!lat)
        return;
    b->cycles += cycles;
    if (tagged) {
        b->cycles_tagged += cycles;
        b->retired_tagged++;
    }
    struct diag_pc *e = slot(pc);
    e->n_all++;
    for (unsigned k = 0; k < PME_LAT_COUNT; k++) {
        e->all[k] += lat[k];
        e->all2[k] += (uint64_t)lat[k] * lat[k];
    }
    if (tagged) {
        e->n_tag++;
        for (unsigned k = 0; k < PME_LAT_COUNT; k++) {
            e->tag[k] += lat[k];
            e->tag2[k] += (uint64_t)lat[k] * lat[k];
        }
    }
    if (retire != d.group_retire[core] || d.ngroup[core] == 16)
        close_group(core);
    d.group_retire[core] = retire;
    d.group[core][d.ngroup[core]] = e;
    d.group_tag[core][d.ngroup[core]++] = tagged;
    if (pc == d.pc) {
        b->pc_all++;
        for (unsigned k = 0; k < PME_LAT_COUNT; k++)
            b->pc_all_lat[k] += lat[k];
        if (tagged) {
            b->pc_tag++;
            for (unsigned k = 0; k < PME_LAT_COUNT; k++)
                b->pc_tag_lat[k] += lat[k];
        }
    }
}

static void lats(FILE *f, const uint64_t *s)
{
    for (unsigned k = 0; k < PME_LAT_COUNT; k++)
        fprintf(f, " %llu", (unsigned long long)s[k]);
}

void pme_diag_write(void)
{
    if (!pme_diag_on)
        return;
    for (unsigned c = 0; c < MAX_CORES; c++)
        close_group(c);
    FILE *f = fopen(d.path, "w");
    if (!f)
        return;
    for (unsigned i = 0; i < DIAG_BUCKETS; i++) {
        const struct diag_bucket *b = &d.b[i];
        fprintf(f, "bucket %u %llu %llu %llu %llu %llu %llu %llu", i * DIAG_BUCKET,
                (unsigned long long)b->fetched, (unsigned long long)b->tagged, (unsigned long long)b->cycles,
                (unsigned long long)b->cycles_tagged, (unsigned long long)b->retired_tagged,
                (unsigned long long)b->pc_all, (unsigned long long)b->pc_tag);
        lats(f, b->pc_all_lat);
        lats(f, b->pc_tag_lat);
        fputc('\n', f);
    }
    for (unsigned k = 0; k < 2; k++)
        for (unsigned i = 0; i < DIAG_BUCKETS; i++)
            fprintf(f, "switch %u %u %llu %llu\n", k, i * 4 * DIAG_BUCKET, (unsigned long long)d.sw_fetched[k][i],
                    (unsigned long long)d.sw_tagged[k][i]);
    for (uint32_t i = 0; i < DIAG_PCS; i++) {
        const struct diag_pc *e = &d.pcs[i];
        if (!e->pc || !e->n_all)
            continue;
        fprintf(f, "pc %llx %llu %llu", (unsigned long long)e->pc, (unsigned long long)e->n_all,
                (unsigned long long)e->n_tag);
        lats(f, e->all);
        lats(f, e->tag);
        lats(f, e->all2);
        lats(f, e->tag2);
        fprintf(f, " %.6f %.6f %.6f\n", e->share_all, e->share_tag, e->share2_tag);
    }
    fclose(f);
}
