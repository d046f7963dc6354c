/* The report's stylesheet and script, embedded (see html-assets.h); the
 * paths are relative to the top of the tree, where make runs the compiler,
 * and host-tools/build.mk makes this object depend on both files. */
#include "util/html-assets.h"

__asm__(".section .rodata\n"
        ".global html_report_css\n"
        ".type html_report_css, @object\n"
        "html_report_css:\n"
        ".incbin \"host-tools/html/report.css\"\n"
        ".byte 0\n"
        ".global html_report_js\n"
        ".type html_report_js, @object\n"
        "html_report_js:\n"
        ".incbin \"host-tools/html/report.js\"\n"
        ".byte 0\n"
        ".previous\n");
