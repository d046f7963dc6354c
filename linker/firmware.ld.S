/*
 * The resident monitor: linked in KSEG at FIRMWARE_PHYS (above the PALcode
 * and the -append text), loaded by QEMU's -kernel, which does the KSEG to
 * physical translation itself.  Run through cpp with linker/ram-map.h.
 */
#include "linker/ram-map.h"

OUTPUT_FORMAT("elf64-alpha")
OUTPUT_ARCH(alpha)
ENTRY(_start)

SECTIONS
{
    . = KSEG_BASE + FIRMWARE_PHYS;
    __firmware_start = .;
    .text : {
        KEEP(*(.text.start))
        *(.text .text.*)
    }
    .rodata : { *(.rodata .rodata.*) }
    .note.gnu.build-id : { __build_id_note = .; *(.note.gnu.build-id) }
    .init_array : {
        __init_array_start = .;
        KEEP(*(SORT(.init_array.*)))
        KEEP(*(.init_array))
        __init_array_end = .;
    }
    .fini_array : {
        __fini_array_start = .;
        KEEP(*(.fini_array))
        __fini_array_end = .;
    }
    __preinit_array_start = .;
    __preinit_array_end = .;
    .data : { *(.data .data.*) }
    .got : { *(.got) }
    .sdata : { *(.lit8 .lit4 .sdata .sdata.*) }
    .sbss : { __bss_start = .; *(.sbss .sbss.*) *(.scommon) }
    .bss : { *(.bss .bss.*) *(COMMON) }
    . = ALIGN(8);
    __firmware_end = .;
    ASSERT(__firmware_end <= KSEG_BASE + FIRMWARE_END, "monitor overflows its RAM region")

    /DISCARD/ : { *(.note*) *(.eh_frame*) *(.comment) }
}
