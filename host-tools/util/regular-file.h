/*
 * Opening a file the user named (an image, an oracle, a database, a source
 * file) only when it is a regular file.  open() of a FIFO for reading
 * blocks until someone writes to it, and a device or a directory is never
 * what was meant, so every path the host tools read from the user goes
 * through here: one line naming the file and what it is instead of a hang.
 *
 * Invariants:
 *   1. Never blocks: the type is checked with stat() before open(), and the
 *      file is opened with O_NONBLOCK and checked again with fstat() (it
 *      may have been replaced in between), then made blocking.
 *   2. On success the descriptor refers to a regular file and has
 *      O_CLOEXEC; on failure nothing is left open.
 */
#ifndef ALPHAPROF_UTIL_REGULAR_FILE_H
#define ALPHAPROF_UTIL_REGULAR_FILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "util/error.h"

/* What a file of this mode is, for messages ("a FIFO", "a directory"...). */
const char *file_kind(mode_t mode);

/*
 * Opens path with flags (O_RDONLY, O_RDWR...).  Returns the descriptor, or
 * -1 with errno set (ENOENT...) when open() fails, or -2 when path is empty
 * or not a
 * regular file (then err says so: "PATH is a FIFO, not a regular file;
 * give WANT", want naming what the caller expects, e.g. "a workload image
 * (.elf)").  err is filled in both failure cases.
 */
int regular_open(const char *path, int flags, const char *want, struct ap_err *err);

/* The same for reading with stdio; NULL on failure (err filled, errno set). */
FILE *regular_fopen_read(const char *path, const char *want, struct ap_err *err);

/* 0 if path does not exist or is a regular file; else -1 with err as
 * regular_open's (for paths another program opens, like QEMU's images). */
int regular_or_absent(const char *path, const char *want, struct ap_err *err);

/* True when both paths exist and name the same file (device and inode),
 * however spelled: "a.db", "./a.db", a hard or symbolic link. */
bool same_file(const char *a, const char *b);

#endif
