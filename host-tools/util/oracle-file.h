/* Reading the hardware model's oracle file (hw-model/oracle-format.h). */
#ifndef ALPHAPROF_UTIL_ORACLE_FILE_H
#define ALPHAPROF_UTIL_ORACLE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "hw-model/oracle-format.h"
#include "util/error.h"

struct oracle {
    struct oracle_header h;
    struct oracle_core *cores;
    struct oracle_pc *pcs;      /* sorted by pc */
};

/* Reads and checks the whole file; errors name it and what is wrong. */
int oracle_read(const char *path, struct oracle *o, struct ap_err *err);
void oracle_free(struct oracle *o);
/* The entry of pc, or NULL. */
const struct oracle_pc *oracle_find(const struct oracle *o, uint64_t pc);
/* The file of snapshot n of the oracle at path (oracle-format.h). */
void oracle_snapshot_path(const char *path, unsigned n, char *out, size_t len);
/* The truth of the profiled interval of whole's run (read from path):
 * its STOP snapshot minus its START snapshot.  Returns 1 with it in *o,
 * 0 if the run has no such snapshots (none, or an earlier run's), -1 on
 * an error (damaged or inconsistent files, named in err). */
int oracle_read_interval(const char *path, const struct oracle *whole, struct oracle *o,
                         struct ap_err *err);

#endif
