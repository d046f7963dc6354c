/*
 * Reading the hardware model's oracle files (interface and invariants:
 * oracle-file.h; the format: hw-model/oracle-format.h).
 */
#include "util/oracle-file.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/regular-file.h"
#include "util/strvec.h"

/* How many PCs the file has room for after its header and ncores cores,
 * or -1 if the size is no whole number of PCs.  Checked against the
 * header before any count sizes an allocation, so a damaged count is
 * named as such, not as "out of memory" (the plugin writes the header,
 * the cores and the PCs, nothing else). */
static int64_t pcs_in_file(FILE *f, const struct oracle_header *h)
{
    struct stat st;
    uint64_t fixed = sizeof *h + (uint64_t)h->ncores * sizeof(struct oracle_core);
    if (fstat(fileno(f), &st) != 0 || (uint64_t)st.st_size < fixed)
        return 0;
    uint64_t rest = (uint64_t)st.st_size - fixed;
    return rest % sizeof(struct oracle_pc) ? -1 : (int64_t)(rest / sizeof(struct oracle_pc));
}

/* More cores than any board has: a header that claims them is damaged. */
#define ORACLE_MAX_CORES 64

/* Opens path and reads and checks its header: the stream, positioned after
 * the header, or NULL (err says why). */
static FILE *open_checked(const char *path, struct oracle_header *h, struct ap_err *err)
{
    int64_t room;
    FILE *f = regular_fopen_read(path, "an oracle file: record with --oracle PATH on a board with the "
                                       "hardware model", err);
    if (!f)
        return NULL;
    int rc = 0;
    if (fread(h, sizeof *h, 1, f) != 1 || h->magic != ORACLE_MAGIC)
        rc = ap_err_set(err, "%s: not an alphaprof oracle file; give --oracle the file `alphaprof record --oracle FILE` "
                        "wrote on a board with the hardware model", path);
    else if (h->version != ORACLE_VERSION || h->nevents != PMU_EV_COUNT)
        rc = ap_err_set(err, "%s: oracle format version %u with %u events, this build reads version %d with %d; "
                        "rerun the record with this build", path, h->version, h->nevents,
                        ORACLE_VERSION, PMU_EV_COUNT);
    else if (h->ncauses != CAUSE_COUNT || h->cycle_unit != CYCLE_UNIT)
        rc = ap_err_set(err, "%s: oracle with %u cycle causes in units of 1/%u cycle, this build reads %d in 1/%u; "
                        "rerun the record with this build", path, h->ncauses, h->cycle_unit,
                        CAUSE_COUNT, CYCLE_UNIT);
    else if (h->ncores == 0 || h->ncores > ORACLE_MAX_CORES)
        rc = ap_err_set(err, "%s: damaged file: its header claims %u cores (1..%d); record it again",
                        path, h->ncores, ORACLE_MAX_CORES);
    else if ((room = pcs_in_file(f, h)) < 0)
        rc = ap_err_set(err, "%s: damaged file: its size is no whole number of PC entries; "
                        "record it again", path);
    else if ((uint64_t)room != h->npcs)
        rc = ap_err_set(err, "%s: damaged file (%s): its header claims %llu PCs, the file holds %lld; "
                        "record it again", path, (uint64_t)room < h->npcs ? "truncated" : "wrong size",
                        (unsigned long long)h->npcs, (long long)room);
    if (rc) {
        fclose(f);
        return NULL;
    }
    return f;
}

int oracle_read_header(const char *path, struct oracle_header *h, struct ap_err *err)
{
    FILE *f = open_checked(path, h, err);
    if (!f)
        return -1;
    fclose(f);
    return 0;
}

int oracle_read(const char *path, struct oracle *o, struct ap_err *err)
{
    memset(o, 0, sizeof *o);
    FILE *f = open_checked(path, &o->h, err);
    if (!f)
        return -1;
    int rc = 0;
    o->cores = xmalloc(o->h.ncores * sizeof *o->cores);
    o->pcs = xmalloc((o->h.npcs ? o->h.npcs : 1) * sizeof *o->pcs);
    if (fread(o->cores, sizeof *o->cores, o->h.ncores, f) != o->h.ncores ||
        fread(o->pcs, sizeof *o->pcs, o->h.npcs, f) != o->h.npcs)
        rc = ap_err_set(err, "%s: the file ends early: it is truncated", path);
    for (uint64_t i = 1; !rc && i < o->h.npcs; i++)
        if (o->pcs[i - 1].pc >= o->pcs[i].pc)
            rc = ap_err_set(err, "%s: PCs out of order: the file is damaged", path);
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
        /* the launcher removes a run's stale snapshots before it starts, so
         * these were copied here from elsewhere: say so, compare nothing */
        const char *bad = start.h.run_id != whole->h.run_id ? start_path : stop_path;
        rc = ap_err_set(err, "%s is a snapshot of another run (run id %016llx) than %s (run id %016llx): "
                        "give the files of one run, or delete the snapshots and use --whole-run", bad,
                        (unsigned long long)(start.h.run_id != whole->h.run_id ? start.h.run_id : o->h.run_id),
                        path, (unsigned long long)whole->h.run_id);
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

int oracle_add(struct oracle *sum, const struct oracle *o, struct ap_err *err)
{
    if (sum->h.ncores != o->h.ncores)
        return ap_err_set(err, "the oracles are of runs on %u and %u cores: give the oracles of runs of one "
                          "board and image", sum->h.ncores, o->h.ncores);
    for (unsigned c = 0; c < o->h.ncores; c++) {
        uint64_t *to = (uint64_t *)&sum->cores[c];
        const uint64_t *from = (const uint64_t *)&o->cores[c];
        for (size_t k = 0; k < sizeof sum->cores[c] / sizeof(uint64_t); k++)
            to[k] += from[k];
    }
    /* merge the two sorted PC lists */
    struct oracle_pc *pcs = xmalloc((sum->h.npcs + o->h.npcs + 1) * sizeof *pcs);
    uint64_t i = 0, j = 0, n = 0;
    while (i < sum->h.npcs || j < o->h.npcs) {
        if (j == o->h.npcs || (i < sum->h.npcs && sum->pcs[i].pc < o->pcs[j].pc)) {
            pcs[n++] = sum->pcs[i++];
        } else if (i == sum->h.npcs || o->pcs[j].pc < sum->pcs[i].pc) {
            pcs[n++] = o->pcs[j++];
        } else {
            pcs[n] = sum->pcs[i++];
            uint64_t *to = &pcs[n++].executions;
            const uint64_t *from = &o->pcs[j++].executions;
            for (size_t k = 0; k < sizeof *pcs / sizeof(uint64_t) - 1; k++)
                to[k] += from[k];
        }
    }
    free(sum->pcs);
    sum->pcs = pcs;
    sum->h.npcs = n;
    return 0;
}

int oracle_check_run(const struct oracle_header *h, const char *path, struct pdb *db, int64_t epoch,
                     struct ap_err *err)
{
    uint64_t ids[8];
    size_t n;
    char recorded[4096];
    if (pdb_oracle_runs(db, epoch, ids, 8, &n, recorded, sizeof recorded, err) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (ids[i] == h->run_id)
            return 0;
    if (n == 0)
        return 0;
    return ap_err_set(err, "%s is the oracle of another run (run id %016llx): the profile in %s was "
                      "recorded with run id %016llx%s%s%s; give that run's oracle, or record again "
                      "with --oracle", path, (unsigned long long)h->run_id, pdb_path(db),
                      (unsigned long long)ids[0], recorded[0] ? " (" : "", recorded,
                      recorded[0] ? ")" : "");
}
