/*
 * The header at the start of every workload image: the one definition used
 * by the image linker script (image.ld.S places it first), the workload
 * start-up code (fills the link-time fields), the sealing tool on the host
 * (fills name, build-id and checksum after linking) and the monitor (finds
 * images by their magic, checks them and records them in the loadmap).
 *
 * Invariant: a sealed image satisfies
 *   magic == IMAGE_MAGIC, version == IMAGE_HEADER_VERSION,
 *   header_size == sizeof(struct image_header),
 *   load_base == the physical (= user virtual) address of this header,
 *   load_base <= entry < load_base + load_size <= bss_end,
 *   payload_crc32 == CRC-32 (IEEE 802.3, as zlib's crc32()) of the bytes
 *     [load_base + header_size, load_base + load_size),
 *   header_crc32 == CRC-32 of the header with header_crc32 set to zero.
 */
#ifndef ALPHAPROF_IMAGE_HEADER_H
#define ALPHAPROF_IMAGE_HEADER_H

#define IMAGE_MAGIC             0x474d49464f525041ULL   /* "APROFIMG" */
#define IMAGE_HEADER_VERSION    1
#define IMAGE_NAME_MAX          32
#define IMAGE_BUILD_ID_MAX      20
#define IMAGE_HEADER_SECTION    ".image_header"

#ifndef __ASSEMBLER__
#include <stdint.h>

struct image_header {
    uint64_t magic;
    uint32_t version;
    uint32_t header_size;
    uint64_t load_base;         /* address of this header */
    uint64_t load_size;         /* header + text + data: what the loader fills */
    uint64_t bss_end;           /* end of zero-filled memory, the monitor clears it */
    uint64_t entry;             /* runs main() on the boot core */
    uint64_t core_entry;        /* per-core entry for secondaries, or 0 */
    uint32_t payload_crc32;
    uint32_t header_crc32;
    uint32_t build_id_size;     /* bytes used in build_id */
    uint32_t flags;             /* reserved, zero */
    char     name[IMAGE_NAME_MAX];          /* NUL-terminated */
    uint8_t  build_id[IMAGE_BUILD_ID_MAX];  /* GNU build-id of the ELF */
    uint8_t  reserved[20];
};

_Static_assert(sizeof(struct image_header) == 144, "image header layout is fixed");
#endif
#endif
