/*
 * Workload images in RAM: QEMU's -device loader put each one in the image
 * area; the loader finds them by their header (linker/image-header.h),
 * checks them and keeps the loadmap.
 */
#ifndef FIRMWARE_KERNEL_LOADER_H
#define FIRMWARE_KERNEL_LOADER_H

#include "linker/image-header.h"

#define MAX_IMAGES 8

struct loaded_image {
    const struct image_header *hdr;     /* KSEG address of the header */
    char build_id_hex[2 * IMAGE_BUILD_ID_MAX + 1];
};

extern struct loaded_image images[MAX_IMAGES];
extern unsigned nimages;

/* Scans the image area, checks every image found and prints the loadmap.
 * A corrupt or missing image is fatal: the message says what is wrong and
 * what to do, and the run ends with a failure status. */
void loader_scan(void);
/* The image to run: run=NAME, or the only/first one. */
const struct loaded_image *loader_choose(const char *name);
/* Zeroes the image's bss (it may hold a previous run's data). */
void loader_prepare(const struct loaded_image *img);

#endif
