/*
 * The report's own stylesheet and script (host-tools/html/report.css and
 * report.js), built into alphaprof so `alphaprof html` writes one
 * self-contained file: nothing is fetched when the report is opened.
 *
 * Invariants: both are NUL-terminated text, written by this project, and
 * contain no "</" that could end their <style> or <script> element
 * (tests/unit/test_html_data.c checks).
 */
#ifndef ALPHAPROF_UTIL_HTML_ASSETS_H
#define ALPHAPROF_UTIL_HTML_ASSETS_H

extern const char html_report_css[];
extern const char html_report_js[];

#endif
