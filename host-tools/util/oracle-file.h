/*
 * Reading the hardware model's oracle files (hw-model/oracle-format.h): the
 * whole run's, and the truth of the profiled interval from its snapshots.
 *
 * Invariants: a file is used only if its header's counts match its size
 * (damaged files are named as such before any count sizes an allocation),
 * and an interval is only ever computed from files that carry one run id.
 */
#ifndef ALPHAPROF_UTIL_ORACLE_FILE_H
#define ALPHAPROF_UTIL_ORACLE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "hw-model/oracle-format.h"
#include "util/error.h"
#include "util/profile-db.h"

struct oracle {
    struct oracle_header h;
    struct oracle_core *cores;
    struct oracle_pc *pcs;      /* sorted by pc */
};

/* Reads and checks the whole file; errors name it and what is wrong. */
int oracle_read(const char *path, struct oracle *o, struct ap_err *err);
/* Only the header (checked as oracle_read checks it). */
int oracle_read_header(const char *path, struct oracle_header *h, struct ap_err *err);
void oracle_free(struct oracle *o);
/* The entry of pc, or NULL. */
const struct oracle_pc *oracle_find(const struct oracle *o, uint64_t pc);
/* The file of snapshot n of the oracle at path (oracle-format.h). */
void oracle_snapshot_path(const char *path, unsigned n, char *out, size_t len);
/* The truth of the profiled interval of whole's run (read from path):
 * its STOP snapshot minus its START snapshot.  Returns 1 with it in *o,
 * 0 if the run has no such snapshots, -1 on an error (damaged or
 * inconsistent files, or snapshots of another run, named in err). */
int oracle_read_interval(const char *path, const struct oracle *whole, struct oracle *o,
                         struct ap_err *err);

/* Adds o's counters to sum's, core by core and PC by PC (a PC only o has
 * joins sum, sorted): the truth of several runs whose samples lie in one
 * epoch (check --calc --oracle A --oracle B ..., as DCPI's profiles of
 * three runs).  Refused, with err, unless both have the same cores; sum
 * keeps its header but npcs. */
int oracle_add(struct oracle *sum, const struct oracle *o, struct ap_err *err);

/* Is the oracle at path (header h) the one recorded with the profile of
 * epoch (> 0; 0 current, -1 every epoch) in db?  0 yes (or unknown: the
 * database predates run ids, or its sessions had no oracle), -1 no, with
 * err naming both files and run ids. */
int oracle_check_run(const struct oracle_header *h, const char *path, struct pdb *db, int64_t epoch,
                     struct ap_err *err);

#endif
