/*
 * Workload image files (ELF for Alpha with a .image_header section, see
 * linker/image-header.h): the checks shared by the sealing tool and the
 * launcher, and the sealing itself.
 *
 * Two levels of checks:
 *   link-time fields (magic, version, header_size, load_base, sizes, entry
 *   points): what the linker script and start-up code must get right;
 *   seal fields (name, build-id, both CRC-32s): what alphaprof-seal writes.
 *
 * Invariants: a sealed image's header fields agree with its ELF (build-id
 * note, load segment); the checks never modify the file, only sealing does.
 */
#ifndef ALPHAPROF_UTIL_IMAGE_FILE_H
#define ALPHAPROF_UTIL_IMAGE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linker/image-header.h"
#include "util/error.h"

struct image_file {
    const char *path;           /* borrowed from the caller */
    int fd;
    void *elf;                  /* Elf *, kept opaque for the callers */
    uint64_t header_addr;       /* sh_addr of .image_header */
    uint64_t header_offset;     /* file offset of .image_header */
    struct image_header hdr;    /* as read from the file (or as sealed) */
};

/* Opens path and reads its header: fails unless it is an Alpha ELF with a
 * complete .image_header section.  writable opens it for sealing. */
int image_open(struct image_file *img, const char *path, bool writable,
               struct ap_err *err);
void image_close(struct image_file *img);

/* The link-time fields of h, for a header section at section_addr. */
int image_check_link_fields(const struct image_header *h, uint64_t section_addr,
                            struct ap_err *err);

/* Link-time fields plus the PT_LOAD layout: the header lands at load_base and
 * every segment stays inside the image. */
int image_check_layout(struct image_file *img, struct ap_err *err);

/* CRC-32 of the header with header_crc32 taken as zero. */
uint32_t image_header_crc(const struct image_header *h);

/* CRC-32 of [load_base + header_size, load_base + load_size) as the loader
 * will lay it out (PT_LOAD file bytes by physical address, zero elsewhere). */
int image_payload_crc(struct image_file *img, uint32_t *crc, struct ap_err *err);

/* The NT_GNU_BUILD_ID note of the ELF. */
int image_build_id(struct image_file *img, uint8_t id[IMAGE_BUILD_ID_MAX],
                   uint32_t *size, struct ap_err *err);

/* Name for an image: the file name without directory and extension. */
int image_name_from_path(const char *path, char name[IMAGE_NAME_MAX],
                         struct ap_err *err);
/* A name the monitor can print and match in run=NAME: [A-Za-z0-9_.-]+. */
int image_check_name(const char *name, struct ap_err *err);

/* Every check of a sealed image (layout, name, build-id, both CRCs). */
int image_check_sealed(struct image_file *img, struct ap_err *err);

/* Fills the seal fields (name NULL: from the file name) and writes the header
 * back into the file.  The image must be open writable. */
int image_seal(struct image_file *img, const char *name, struct ap_err *err);

/* Open, check sealed, close: what `alphaprof run` does for each image. */
int image_check_file(const char *path, struct image_header *out,
                     struct ap_err *err);

#endif
