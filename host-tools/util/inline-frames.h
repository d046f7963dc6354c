/*
 * The source-level frames of one instruction: the inlined calls active at
 * its address, innermost first, down to the procedure that holds it, each
 * with the function's name and where it is declared, and the position
 * executing in that frame (for the innermost frame the line-table row; for
 * an outer one the call site of the frame inside it, DW_AT_call_file and
 * DW_AT_call_line).  This is what pprof's Location.line, callgrind's
 * inlined calls and folded stacks need; symtab_inlined_at (util/symbols.h)
 * gives only the names.
 *
 * Invariants: frames are listed innermost first and end with the
 * procedure itself; an image without DWARF gives the procedure alone.
 */
#ifndef ALPHAPROF_UTIL_INLINE_FRAMES_H
#define ALPHAPROF_UTIL_INLINE_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

struct src_frame {
    const char *func;       /* function name ("??" if DWARF has none) */
    const char *func_file;  /* file that declares it, or NULL */
    uint32_t func_line;     /* its declaration line, 0 if unknown */
    const char *file;       /* the position executing in this frame, or NULL */
    uint32_t line;          /* 0 if unknown */
};

struct frame_reader;

/* Opens an ELF's DWARF.  An ELF without DWARF opens too (no frames). */
int frames_open(const char *path, struct frame_reader **out, struct ap_err *err);
void frames_close(struct frame_reader *fr);
/* Whether the ELF has DWARF (else frames_at always returns 0). */
bool frames_have_dwarf(const struct frame_reader *fr);

/*
 * Frames at addr, innermost first, up to max; the last is the enclosing
 * subprogram.  Returns how many (0 when no DWARF covers addr).  Strings
 * stay valid until frames_close.
 */
size_t frames_at(struct frame_reader *fr, uint64_t addr, struct src_frame *out, size_t max);

#endif
