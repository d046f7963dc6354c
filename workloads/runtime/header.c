/*
 * The image header (linker/image-header.h), first in every image
 * (image.ld.S puts .image_header first).  The link-time fields are filled
 * here from linker symbols; name, build-id and checksums are written after
 * linking by alphaprof-seal.
 */
#include <stdint.h>
#include "linker/image-header.h"

extern char __image_start[], __image_bss_end[], __image_load_size[];
void _start(long unused, long ncores);
void _core_start(long core, long ncores);

__attribute__((section(IMAGE_HEADER_SECTION), used))
const struct image_header __image_header = {
    .magic = IMAGE_MAGIC,
    .version = IMAGE_HEADER_VERSION,
    .header_size = sizeof(struct image_header),
    .load_base = (uint64_t)__image_start,
    .load_size = (uint64_t)__image_load_size,     /* absolute symbol: a size */
    .bss_end = (uint64_t)__image_bss_end,
    .entry = (uint64_t)_start,
    .core_entry = (uint64_t)_core_start,
};
