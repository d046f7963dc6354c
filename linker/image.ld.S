/*
 * Workload images: linked at the user-mode address they run at (equal to
 * the physical address, the monitor maps [USER_BASE, RAM_SIZE) one to one),
 * with struct image_header (linker/image-header.h) first.  QEMU's
 * -device loader places each PT_LOAD segment at its physical address, so
 * LMA = VMA.  IMAGE_BASE may be overridden (cpp -DIMAGE_BASE=...) to place
 * several images side by side.  Run through cpp.
 */
#include "linker/ram-map.h"

#ifndef IMAGE_BASE
#define IMAGE_BASE IMAGE_DEFAULT_BASE
#endif

OUTPUT_FORMAT("elf64-alpha")
OUTPUT_ARCH(alpha)
ENTRY(_start)

PHDRS
{
    image PT_LOAD FLAGS(7);
    note PT_NOTE;
}

SECTIONS
{
    . = IMAGE_BASE;
    __image_start = .;
    .image_header : { KEEP(*(.image_header)) } :image
    .text : {
        *(.text.start)
        EXCLUDE_FILE(*runtime/cct.o) *(.text .text.*)
        /* the CCT slow path (workloads/runtime/cct.c) last: no image calls
         * it, alphaprof instrument does; after everything else, so a
         * change to it moves no other code (an image's layout, and so its
         * I-cache and predictor behaviour, stays the workload's own) */
        KEEP(*(.text.__alphaprof_cct_*))
        *(.text .text.*)
    } :image
    .rodata : { *(.rodata .rodata.*) } :image
    .note.gnu.build-id : { *(.note.gnu.build-id) } :image :note
    .init_array : {
        PROVIDE_HIDDEN(__preinit_array_start = .);
        PROVIDE_HIDDEN(__preinit_array_end = .);
        PROVIDE_HIDDEN(__init_array_start = .);
        KEEP(*(SORT(.init_array.*)))
        KEEP(*(.init_array .ctors))
        PROVIDE_HIDDEN(__init_array_end = .);
    } :image
    .fini_array : {
        PROVIDE_HIDDEN(__fini_array_start = .);
        KEEP(*(.fini_array .dtors))
        PROVIDE_HIDDEN(__fini_array_end = .);
    } :image
    .data : { *(.data .data.*) } :image
    .got : { *(.got) } :image
    .sdata : { *(.lit8 .lit4 .sdata .sdata.*) } :image
    . = ALIGN(8);
    __image_load_end = .;
    .sbss : { *(.sbss .sbss.*) *(.scommon) } :image
    .bss : { *(.bss .bss.*) *(COMMON) } :image
    . = ALIGN(8);
    __image_bss_end = .;

    /* Absolute symbols the header needs as link-time constants. */
    __image_load_size = __image_load_end - __image_start;

    ASSERT(__image_start % IMAGE_ALIGN == 0, "images start on IMAGE_ALIGN")
    ASSERT(__image_bss_end <= IMAGE_AREA_END, "image overflows the image area")

    /DISCARD/ : { *(.eh_frame*) *(.comment) *(.note.GNU-stack) }
}
