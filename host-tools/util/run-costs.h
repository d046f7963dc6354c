/*
 * What a recording will cost and lose, said before it starts: the numbers
 * `make bench` measured (tests/bench/bench_costs.py, written to
 * bench/results/costs_profileme.md and costs_pme_interval.md).  When the
 * firmware or the model changes, re-run the bench and update the table in
 * run-costs.c: the tool quotes it, it does not compute it.
 */
#ifndef ALPHAPROF_UTIL_RUN_COSTS_H
#define ALPHAPROF_UTIL_RUN_COSTS_H

#include <stdbool.h>
#include <stdio.h>

/* Below this many fetched instructions per record the firmware drains the
 * ProfileMe ring only from its 1 ms tick, and records are lost. */
#define PME_LOSSLESS_INTERVAL 4096

/* The ProfileMe notes of a record run: its cost in modelled cycles, and a
 * warning with the measured loss when records come closer together than
 * PME_LOSSLESS_INTERVAL and the measured loss there is not 0 (profileme 1:
 * single, 2: paired; lo, hi the
 * interval asked, per pair when paired).  Nothing when profileme is 0. */
/* (cycles: the interval is in cycles, pme_draw time: the fetched-
 * instruction measurements say nothing of it, only the cost note) */
void run_costs_say_profileme(FILE *out, const char *cmd, int profileme, unsigned lo, unsigned hi, bool cycles);

/* Expected share (percent) of ProfileMe records lost at `interval` fetched
 * instructions per record: the measurement at the nearest interval at or
 * below it, 0 from PME_LOSSLESS_INTERVAL up. */
unsigned run_costs_pme_loss_pct(unsigned interval);

/* Expected share (percent) of the fetched instructions that are the
 * monitor's own when paired records come every `per_record` fetched
 * instructions: its measured cost per paired record over the interval
 * (100 or more: the workload starves). */
unsigned run_costs_paired_monitor_pct(unsigned per_record);

#endif
