/* Costs and limits said up front (see run-costs.h). */
#include "util/run-costs.h"

/* bench/results/costs_pme_interval.md (qsort, deterministic). */
static const struct {
    unsigned interval, lost_pct;
} pme_loss[] = {
    {256, 86}, {512, 73}, {1024, 47}, {2048, 12}, {3072, 0}, {PME_LOSSLESS_INTERVAL, 0},
};

/* bench/results/costs_profileme.md: copy, matmul, qsort, compress at the
 * default interval, fixed start-up and final-flush costs included. */
#define PME_COST_MIN_PCT "1.2"
#define PME_COST_MAX_PCT "6.4"

/* README, ProfileMe, "The monitor's own share": each paired record costs
 * the monitor about this many instructions of its own (encoding and
 * sending its 20 link bytes), and those are fetched and sampled too. */
#define PAIRED_MONITOR_INSNS_PER_RECORD 2400u

unsigned run_costs_paired_monitor_pct(unsigned per_record)
{
    return per_record ? (unsigned)(100ull * PAIRED_MONITOR_INSNS_PER_RECORD / per_record) : 100;
}

unsigned run_costs_pme_loss_pct(unsigned interval)
{
    unsigned pct = pme_loss[0].lost_pct;
    for (size_t i = 0; i < sizeof pme_loss / sizeof pme_loss[0]; i++)
        if (pme_loss[i].interval <= interval)
            pct = pme_loss[i].lost_pct;
    return pct;
}

void run_costs_say_profileme(FILE *out, const char *cmd, int profileme, unsigned lo, unsigned hi, bool cycles)
{
    if (!profileme)
        return;
    fprintf(out, "%s: note: ProfileMe costs the modelled core " PME_COST_MIN_PCT "-" PME_COST_MAX_PCT
            " %% more cycles (measured by make bench: bench/results/costs_profileme.md)\n", cmd);
    if (cycles)
        return;
    unsigned per_record = profileme == 2 ? lo / 2 : lo;     /* a pair is two records */
    /* between the measured lossless point and PME_LOSSLESS_INTERVAL the
     * measurement says 0 %: no warning that contradicts itself */
    if (per_record < PME_LOSSLESS_INTERVAL && run_costs_pme_loss_pct(per_record) > 0)
        fprintf(out, "%s: warning: --pme-interval %u-%u%s: below %u fetched instructions a record the "
                "ProfileMe ring overflows between drains; expect about %u %% of the records lost "
                "(measured: bench/results/costs_pme_interval.md), each counted as a ring_overflow drop\n",
                cmd, lo, hi, profileme == 2 ? " (per pair)" : "", PME_LOSSLESS_INTERVAL,
                run_costs_pme_loss_pct(per_record));
    unsigned monitor_pct = profileme == 2 ? run_costs_paired_monitor_pct(per_record) : 0;
    if (monitor_pct >= 100)
        fprintf(out, "%s: warning: --pme-interval %u-%u (per pair): each pair costs the monitor about %u "
                "instructions of its own, more than the interval, so the workload may never finish; "
                "use at least %u-%u\n", cmd, lo, hi, 2 * PAIRED_MONITOR_INSNS_PER_RECORD,
                8 * PAIRED_MONITOR_INSNS_PER_RECORD, 8 * PAIRED_MONITOR_INSNS_PER_RECORD * 11 / 10);
    else if (monitor_pct >= 10)
        fprintf(out, "%s: note: --pme-interval %u-%u (per pair): each pair costs the monitor about %u "
                "instructions of its own, so about %u %% of the samples land in the monitor and the run "
                "takes about %u %% longer (README, ProfileMe: the monitor's own share)\n",
                cmd, lo, hi, 2 * PAIRED_MONITOR_INSNS_PER_RECORD, monitor_pct,
                100 * monitor_pct / (100 - monitor_pct));
}
