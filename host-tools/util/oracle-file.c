#include "util/oracle-file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
