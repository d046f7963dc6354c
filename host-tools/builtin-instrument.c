/*
 * alphaprof instrument: an instrumented copy of a sealed workload image
 * (util/instrument.c; what the copy does at run time is
 * firmware/abi/cct-region.h).  Only --cct exists yet; --paths and --both
 * are the next step on the same trampolines (cct-region.h note 7).
 *
 * Invariants: the input image is never written; the output is complete and
 * sealed or not there.  Exit status: 0 written, 1 the image could not be
 * instrumented (one line why), 2 bad options.
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "util/instrument.h"
#include "util/options.h"

static const struct opt_command instrument_command = {
    .name = "instrument",
    .synopsis = "--cct IMAGE.elf -o OUT.elf",
    .about = "Writes an instrumented copy of the sealed workload image IMAGE.elf to\n"
             "OUT.elf.  --cct builds a calling context tree at run time: every call\n"
             "goes through a trampoline that counts it per calling context (call\n"
             "sites distinguished, recursion folded) with its inclusive cycles and\n"
             "instructions.  The original procedures keep their addresses; the\n"
             "trampolines are a new segment after the image, named " INSTRUMENT_SYMBOL ".",
    .epilog = "Run the copy like the original (alphaprof record OUT.elf); the monitor\n"
              "sends the tree with the profile and `alphaprof cct --db P` prints it.\n"
              "\n"
              "Exit status: 0 written, 1 the image could not be instrumented, 2 bad options.",
};

int cmd_instrument(int argc, char **argv)
{
    bool cct = false, quiet = false;
    const char *out = NULL;
    struct strvec operands = {0};
    const struct option options[] = {
        OPT_BOOLEAN(0, "cct", &cct, "calling context tree: call counts and inclusive metrics per context"),
        OPT_STRING('o', "output", &out, "OUT.elf", "the instrumented image to write"),
        OPT_BOOLEAN('q', "quiet", &quiet, "print nothing on success"),
        OPT_END(),
    };
    enum opt_result r = opt_parse(&instrument_command, options, argc, argv, &operands, NULL);
    int rc;
    if (r != OPT_PARSED)
        rc = opt_exit(r);
    else if (operands.n != 1)
        rc = opt_usage_error(&instrument_command, operands.n ? "give one image" : "which image? give IMAGE.elf");
    else if (!cct)
        rc = opt_usage_error(&instrument_command, "say what to instrument for: --cct");
    else if (!out)
        rc = opt_usage_error(&instrument_command, "where to? give -o OUT.elf");
    else if (!strcmp(out, operands.v[0]))
        rc = opt_usage_error(&instrument_command, "-o names the input image; the original stays untouched, give another file");
    else {
        struct ap_err err;
        struct instrument_stats st;
        if (instrument_cct(operands.v[0], out, &st, &err)) {
            fprintf(stderr, "alphaprof instrument: %s\n", err.msg);
            rc = 1;
        } else {
            if (!quiet)
                printf("alphaprof instrument: %s: %u call sites in %u procedures, trampolines at 0x%llx (%llu bytes)%s\n",
                       out, st.sites, st.procs, (unsigned long long)st.region_addr,
                       (unsigned long long)st.region_size,
                       st.skipped_sites ? " (some calls through a scratch register left alone)" : "");
            rc = 0;
        }
    }
    strvec_free(&operands);
    return rc;
}
