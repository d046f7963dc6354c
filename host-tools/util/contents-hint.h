/*
 * What else a profile holds, for a command that found nothing of its own
 * kind in it: `report` on a ProfileMe-only database should point at
 * `alphaprof pme`, not tell the user to record again.
 */
#ifndef ALPHAPROF_UTIL_CONTENTS_HINT_H
#define ALPHAPROF_UTIL_CONTENTS_HINT_H

#include <stddef.h>

#include "util/profile-db.h"

/* Fills buf with "it holds N ProfileMe samples (alphaprof pme), ..." for
 * every kind of data db has (any epoch), or with "" when it has none; a
 * query that fails says nothing (this is only a hint). */
void profile_contents_hint(struct pdb *db, char *buf, size_t size);

#endif
