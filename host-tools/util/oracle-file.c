#include "util/oracle-file.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/strvec.h"

int oracle_read(const char *path, struct oracle *o, struct ap_err *err)
{
    memset(o, 0, sizeof *o);
    FILE *f = fopen(path, "rb");
    if (!f)
        return ap_err_set(err, "%s: %s; record with --oracle PATH on a board with the hardware model",
                          path, strerror(errno));
    int rc = 0;
    if (fread(&o->h, sizeof o->h, 1, f) != 1 || o->h.magic != ORACLE_MAGIC)
        rc = ap_err_set(err, "%s: not an alphaprof oracle file", path);
    else if (o->h.version != ORACLE_VERSION || o->h.nevents != PMU_EV_COUNT)
        rc = ap_err_set(err, "%s: oracle format version %u with %u events, this build reads version %d with %d; "
                        "rerun the record with this build", path, o->h.version, o->h.nevents,
                        ORACLE_VERSION, PMU_EV_COUNT);
    else if (o->h.ncauses != CAUSE_COUNT || o->h.cycle_unit != CYCLE_UNIT)
        rc = ap_err_set(err, "%s: oracle with %u cycle causes in units of 1/%u cycle, this build reads %d in 1/%u; "
                        "rerun the record with this build", path, o->h.ncauses, o->h.cycle_unit,
                        CAUSE_COUNT, CYCLE_UNIT);
    else if (o->h.ncores == 0 || o->h.ncores > 64 || o->h.npcs > (1ull << 28))
        rc = ap_err_set(err, "%s: implausible header (%u cores, %llu PCs): the file is damaged",
                        path, o->h.ncores, (unsigned long long)o->h.npcs);
    if (!rc) {
        o->cores = xmalloc(o->h.ncores * sizeof *o->cores);
        o->pcs = xmalloc((o->h.npcs ? o->h.npcs : 1) * sizeof *o->pcs);
        if (fread(o->cores, sizeof *o->cores, o->h.ncores, f) != o->h.ncores ||
            fread(o->pcs, sizeof *o->pcs, o->h.npcs, f) != o->h.npcs)
            rc = ap_err_set(err, "%s: the file ends early: it is truncated", path);
        for (uint64_t i = 1; !rc && i < o->h.npcs; i++)
            if (o->pcs[i - 1].pc >= o->pcs[i].pc)
                rc = ap_err_set(err, "%s: PCs out of order: the file is damaged", path);
    }
    fclose(f);
    if (rc)
        oracle_free(o);
    return rc;
}

void oracle_free(struct oracle *o)
{
    free(o->cores);
    free(o->pcs);
    memset(o, 0, sizeof *o);
}

const struct oracle_pc *oracle_find(const struct oracle *o, uint64_t pc)
{
    size_t lo = 0, hi = o->h.npcs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->pcs[mid].pc < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < o->h.npcs && o->pcs[lo].pc == pc ? &o->pcs[lo] : NULL;
}

void oracle_snapshot_path(const char *path, unsigned n, char *out, size_t len)
{
    snprintf(out, len, "%s.%u", path, n);
}

/* A PC's counters (after its pc, all uint64_t: oracle-format.h) minus an
 * earlier snapshot's, field by field; they only grow, so a later snapshot
 * is never smaller. */
static int subtract_counters(uint64_t *later, const uint64_t *earlier, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (later[i] < earlier[i])
            return -1;
        later[i] -= earlier[i];
    }
    return 0;
}

_Static_assert(sizeof(struct oracle_core) % sizeof(uint64_t) == 0, "oracle_core: counters only");
_Static_assert(sizeof(struct oracle_pc) % sizeof(uint64_t) == 0 &&
               offsetof(struct oracle_pc, executions) == sizeof(uint64_t), "oracle_pc: pc, then counters only");

int oracle_read_interval(const char *path, const struct oracle *whole, struct oracle *o,
                         struct ap_err *err)
{
    char start_path[4200], stop_path[4200];
    oracle_snapshot_path(path, ORACLE_SNAPSHOT_START, start_path, sizeof start_path);
    oracle_snapshot_path(path, ORACLE_SNAPSHOT_STOP, stop_path, sizeof stop_path);
    if (access(start_path, F_OK) != 0 || access(stop_path, F_OK) != 0)
        return 0;
    struct oracle start;
    if (oracle_read(start_path, &start, err))
        return -1;
    if (oracle_read(stop_path, o, err)) {
        oracle_free(&start);
        return -1;
    }
    int rc = 0;
    if (start.h.run_id != whole->h.run_id || o->h.run_id != whole->h.run_id) {
        rc = 0;                 /* an earlier run's leftovers: not this run's interval */
    } else if (start.h.snapshot != ORACLE_SNAPSHOT_START || o->h.snapshot != ORACLE_SNAPSHOT_STOP ||
               start.h.ncores != o->h.ncores) {
        rc = ap_err_set(err, "%s and %s: not the start and stop snapshots of one run; "
                        "delete them to compare with the whole run", start_path, stop_path);
    } else {
        rc = 1;
        /* (per core, what is still unread in a ring may shrink: those
         * fields of an interval are clamped at 0 and mean little) */
        for (unsigned c = 0; c < o->h.ncores; c++) {
            uint64_t *later = (uint64_t *)&o->cores[c];
            const uint64_t *earlier = (const uint64_t *)&start.cores[c];
            for (size_t k = 0; k < sizeof o->cores[c] / sizeof(uint64_t); k++)
                later[k] = later[k] > earlier[k] ? later[k] - earlier[k] : 0;
        }
        for (uint64_t i = 0; rc == 1 && i < o->h.npcs; i++) {
            const struct oracle_pc *before = oracle_find(&start, o->pcs[i].pc);
            if (before && subtract_counters(&o->pcs[i].executions, &before->executions,
                                            sizeof o->pcs[i] / sizeof(uint64_t) - 1))
                rc = -1;
        }
        if (rc < 0)
            ap_err_set(err, "%s holds less than %s: the snapshots are damaged", stop_path, start_path);
    }
    oracle_free(&start);
    if (rc != 1)
        oracle_free(o);
    return rc;
}
