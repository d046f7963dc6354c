/*
 * Finds, checks and records workload images.  Images start on IMAGE_ALIGN
 * boundaries of the image area; a header is believed only when its magic,
 * version, size and header CRC agree, and an image is run only when its
 * payload CRC and layout match too (the invariants of image-header.h).
 * Before a run it readies the per-core instrumentation regions for the
 * image: cleared where an earlier run used them, `cur` of a CCT image's
 * pointing at the region (cct-region.h note 6), a metered path image's
 * magic set (path-region.h note 5).
 */
#include "firmware/kernel/loader.h"

#include <stdbool.h>
#include <string.h>
#include "firmware/kernel/console.h"
#include "firmware/kernel/crc32.h"
#include "firmware/abi/cct-region.h"
#include "firmware/abi/path-region.h"
#include "firmware/kernel/halt.h"
#include "linker/ram-map.h"

struct loaded_image images[MAX_IMAGES];
unsigned nimages;

static const char rebuild_hint[] =
    "rebuild it with make and reseal it with build/host/alphaprof-seal";

static void *phys(uint64_t addr) { return (void *)(KSEG_BASE + addr); }

static void corrupt(uint64_t at, const char *what)
{
    mon_printf("monitor: FATAL image at 0x%lx is corrupt: %s; %s\n",
               (unsigned long)at, what, rebuild_hint);
    monitor_exit_failure();
}

static uint32_t header_crc(const struct image_header *h)
{
    struct image_header copy = *h;
    copy.header_crc32 = 0;
    return crc32_update(0, &copy, sizeof copy);
}

static void check_image(uint64_t at, const struct image_header *h)
{
    if (h->version != IMAGE_HEADER_VERSION)
        corrupt(at, "unknown header version (monitor and image are from different builds)");
    if (h->header_size != sizeof *h)
        corrupt(at, "header size does not match this monitor's");
    if (header_crc(h) != h->header_crc32)
        corrupt(at, "header checksum mismatch");
    if (h->load_base != at)
        corrupt(at, "linked for another address than where it was loaded");
    if (h->load_size < h->header_size || h->bss_end < at + h->load_size ||
        h->bss_end > IMAGE_AREA_END)
        corrupt(at, "sizes run outside the image area");
    if (h->entry < at + h->header_size || h->entry >= at + h->load_size ||
        (h->core_entry && (h->core_entry < at || h->core_entry >= at + h->load_size)))
        corrupt(at, "entry point outside the image");
    if (memchr(h->name, '\0', sizeof h->name) == NULL || h->name[0] == '\0')
        corrupt(at, "image name is not a string");
    if (h->build_id_size > IMAGE_BUILD_ID_MAX)
        corrupt(at, "build-id longer than the header allows");
    uint32_t crc = crc32_update(0, (const char *)phys(at) + h->header_size,
                                h->load_size - h->header_size);
    if (crc != h->payload_crc32)
        corrupt(at, "payload checksum mismatch");
}

void loader_scan(void)
{
    for (uint64_t at = IMAGE_AREA_PHYS; at < IMAGE_AREA_END; at += IMAGE_ALIGN) {
        const struct image_header *h = phys(at);
        if (h->magic != IMAGE_MAGIC)
            continue;
        check_image(at, h);
        if (nimages == MAX_IMAGES) {
            mon_printf("monitor: FATAL more than %d workload images loaded; pass fewer images\n",
                       MAX_IMAGES);
            monitor_exit_failure();
        }
        struct loaded_image *img = &images[nimages++];
        img->hdr = h;
        static const char hex[] = "0123456789abcdef";
        for (uint32_t i = 0; i < h->build_id_size; i++) {
            img->build_id_hex[2 * i] = hex[h->build_id[i] >> 4];
            img->build_id_hex[2 * i + 1] = hex[h->build_id[i] & 15];
        }
        img->build_id_hex[2 * h->build_id_size] = '\0';
        mon_printf("monitor: image %s build-id %s at 0x%lx size %lu\n", h->name,
                   img->build_id_hex[0] ? img->build_id_hex : "none",
                   (unsigned long)at, (unsigned long)(h->bss_end - at));
        /* Skip the rest of this image: another can only start past it. */
        at = ((h->bss_end + IMAGE_ALIGN - 1) & ~(uint64_t)(IMAGE_ALIGN - 1)) - IMAGE_ALIGN;
    }
    if (nimages == 0) {
        mon_printf("monitor: FATAL no workload image found in 0x%x..0x%x; "
                   "start one with alphaprof run IMAGE.elf (QEMU -device loader,file=IMAGE.elf)\n",
                   IMAGE_AREA_PHYS, IMAGE_AREA_END);
        monitor_exit_failure();
    }
}

const struct loaded_image *loader_choose(const char *name)
{
    if (!name[0])
        return &images[0];
    for (unsigned i = 0; i < nimages; i++)
        if (!strcmp(images[i].hdr->name, name))
            return &images[i];
    mon_printf("monitor: FATAL run=%s: no loaded image has that name; loaded:", name);
    for (unsigned i = 0; i < nimages; i++)
        mon_printf(" %s", images[i].hdr->name);
    mon_printf("\n");
    monitor_exit_failure();
    return NULL;
}

/* The size of the path table that ends the image's loaded payload
 * (path-region.h: an image instrumented with --paths or --both), read as
 * words (the tables are only 4-byte aligned); 0 when it has none. */
static uint64_t path_table_size(const struct image_header *h)
{
    if (h->load_size < 24)
        return 0;
    const uint32_t *t = phys(h->load_base + h->load_size - 24);
    if (t[0] != (uint32_t)PATH_TABLE_MAGIC || t[1] != (uint32_t)(PATH_TABLE_MAGIC >> 32) || t[3] || t[5])
        return 0;
    uint64_t size = 24 + 16 * (uint64_t)t[4] + sizeof(struct path_table_proc) * (uint64_t)t[2];
    return size <= h->load_size ? size : 0;
}

/* Whether the image was instrumented for calling context trees: its
 * loaded payload ends with the site table's trailer (cct-region.h), or,
 * with --both, the path table does and the trailer comes before it. */
static bool cct_instrumented(const struct image_header *h)
{
    uint64_t end = h->load_size - path_table_size(h);
    if (end < 16)
        return false;
    const uint32_t *t = phys(h->load_base + end - 16);
    return t[0] == (uint32_t)CCT_SITES_MAGIC && t[1] == (uint32_t)(CCT_SITES_MAGIC >> 32);
}

/* Whether the image was instrumented with `--paths --metrics`: its
 * payload ends with the path table, a procedure of which is metered. */
static bool paths_metered(const struct image_header *h)
{
    uint64_t size = path_table_size(h);
    if (size == 0)
        return false;
    const uint32_t *t = phys(h->load_base + h->load_size - 24);
    uint64_t nprocs = t[2];
    const uint32_t *p = phys(h->load_base + h->load_size - size);
    for (uint64_t i = 0; i < nprocs; i++, p += sizeof(struct path_table_proc) / 4)
        if (p[__builtin_offsetof(struct path_table_proc, instrumented) / 4] &&
            p[__builtin_offsetof(struct path_table_proc, metrics) / 4])
            return true;
    return false;
}

void loader_prepare(const struct loaded_image *img)
{
    const struct image_header *h = img->hdr;
    memset(phys(h->load_base + h->load_size), 0, h->bss_end - h->load_base - h->load_size);
    /* An instrumented image starts its calling context trees from nothing
     * (firmware/abi/cct-region.h, note 6).  Only regions an instrumented
     * run used hold anything (RAM starts zeroed), so only those are
     * cleared: other images pay nothing.  A CCT image's regions get `cur`
     * pointing at the region itself, a record no call site matches, so
     * the trampolines need no test for an uninitialised core; any other
     * image's get it back to 0 (a path region's word there counts).  A
     * path image's regions get their magic here (path-region.h notes 5
     * and 8), so its counting trampolines need not store it; a --both
     * image's path region, at CCT_BOTH_PATHS_OFFSET in each core's, too
     * (cct-region.h note 17). */
    bool cct = cct_instrumented(h), metered = paths_metered(h);
    bool paths = !cct && path_table_size(h) != 0;       /* --paths (--both's region is the tree's) */
    bool both = cct && path_table_size(h) != 0;
    for (uint64_t base = CCT_PHYS; base < CCT_END; base += CCT_PER_CORE) {
        struct cct_core *c = phys(base);
        if (c->magic == CCT_MAGIC) {
            uint64_t used = c->alloc > base && c->alloc <= base + CCT_PER_CORE ? c->alloc - base : CCT_PER_CORE;
            memset(c, 0, used);
        } else if (((struct path_core *)c)->magic == PATH_MAGIC32(base) ||
                   ((struct path_core *)c)->magic == PATH_MAGIC32_METERED(base) || c->magic == CCT_MAGIC_BOTH ||
                   ((struct path_core *)phys(base + CCT_BOTH_PATHS_OFFSET))->magic ==
                       PATH_MAGIC32(base + CCT_BOTH_PATHS_OFFSET) ||
                   ((struct path_core *)phys(base + CCT_BOTH_PATHS_OFFSET))->magic ==
                       PATH_MAGIC32_METERED(base + CCT_BOTH_PATHS_OFFSET)) {
            memset(c, 0, CCT_PER_CORE);     /* path-region.h: counters anywhere in it; --both (cct-region.h
                                             * note 11): records and the path region */
        }
        c->cur = cct ? base : 0;
        uint64_t pbase = base + CCT_BOTH_PATHS_OFFSET;
        if (both)
            ((struct path_core *)phys(pbase))->magic = metered ? PATH_MAGIC32_METERED(pbase) : PATH_MAGIC32(pbase);
        else if (metered)
            ((struct path_core *)c)->magic = PATH_MAGIC32_METERED(base);
        else if (paths)
            ((struct path_core *)c)->magic = PATH_MAGIC32(base);
    }
}
