/* A stopped run's instrumented image (stop-note.h). */
#include "util/stop-note.h"

#include "util/error.h"
#include "util/instrument.h"

bool stop_note_instrumented(const char *cmd, const struct strvec *images, FILE *out)
{
    for (size_t i = 0; i < images->n; i++) {
        struct ap_err err;
        if (instrument_is_instrumented(images->v[i], &err) != 1)
            continue;
        fprintf(out,
                "%s: %s is instrumented: its path counts and calling context tree are sent when the workload "
                "exits, so this stopped run stored none of them; let the workload exit (raise --timeout)\n",
                cmd, images->v[i]);
        return true;
    }
    return false;
}
