/*
 * alphaprof check --stacks and the time truth of check (cycle-stacks.h).
 * Sums stay integers in CYCLE_UNIT-ths of a cycle until printed, so
 * "exact" means equal, not close.
 */
#include "util/cycle-stacks.h"

#include <stdlib.h>

#include "util/json-out.h"
#include "util/strvec.h"

static const char *const cause_names[] = {CYCLE_CAUSE_NAMES};

static uint64_t stack_units(const uint64_t *stack)
{
    uint64_t sum = 0;
    for (unsigned c = 0; c < CAUSE_COUNT; c++)
        sum += stack[c];
    return sum;
}

size_t cycle_stacks_time(const struct oracle *o, struct keyed_count *out)
{
    size_t n = 0;
    for (uint64_t i = 0; i < o->h.npcs; i++) {
        uint64_t units = stack_units(o->pcs[i].stack);
        if (units)
            out[n++] = (struct keyed_count){o->pcs[i].pc, (double)units / CYCLE_UNIT};
    }
    return n;
}

struct ranked {
    const struct oracle_pc *e;
    uint64_t units;
};

static int by_time_desc(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->units != y->units)
        return x->units < y->units ? 1 : -1;
    return x->e->pc < y->e->pc ? -1 : x->e->pc > y->e->pc;
}

static double cycles_of(uint64_t units)
{
    return (double)units / CYCLE_UNIT;
}

/* A stack as a JSON object of cycles by cause (causes with none left out). */
static void stack_json(FILE *f, const uint64_t *stack)
{
    fputc('{', f);
    for (unsigned c = 0, first = 1; c < CAUSE_COUNT; c++) {
        if (!stack[c])
            continue;
        fprintf(f, "%s\"%s\": ", first ? "" : ", ", cause_names[c]);
        json_num(f, cycles_of(stack[c]));
        first = 0;
    }
    fputc('}', f);
}

/* A stack as "cause share%" text, largest first, the small ones left out. */
static void stack_text(FILE *f, const uint64_t *stack)
{
    uint64_t total = stack_units(stack);
    bool done[CAUSE_COUNT] = {false};
    for (unsigned k = 0; k < CAUSE_COUNT; k++) {
        int best = -1;
        for (unsigned c = 0; c < CAUSE_COUNT; c++)
            if (!done[c] && stack[c] && (best < 0 || stack[c] > stack[best]))
                best = (int)c;
        if (best < 0 || (k && 1000 * stack[best] < 5 * total))     /* below 0.5 % */
            break;
        done[best] = true;
        fprintf(f, " %s %.1f%%", cause_names[best], 100.0 * (double)stack[best] / (double)total);
    }
}

int cycle_stacks_print(FILE *f, const struct oracle *o, size_t top, bool json, cycle_stacks_namer *namer,
                       void *ctx)
{
    uint64_t cores[CAUSE_COUNT] = {0}, by_pc[CAUSE_COUNT] = {0}, total = 0;
    bool exact = true, close = true;
    for (unsigned c = 0; c < o->h.ncores; c++) {
        const struct oracle_core *k = &o->cores[c];
        uint64_t units = stack_units(k->stack), want = k->cycles * CYCLE_UNIT;
        exact &= units == want;
        close &= units <= want && want - units <= CYCLE_UNIT;
        for (unsigned e = 0; e < CAUSE_COUNT; e++)
            cores[e] += k->stack[e];
    }
    struct ranked *rank = xmalloc((o->h.npcs + 1) * sizeof *rank);
    size_t n = 0;
    for (uint64_t i = 0; i < o->h.npcs; i++) {
        uint64_t units = stack_units(o->pcs[i].stack);
        for (unsigned e = 0; e < CAUSE_COUNT; e++)
            by_pc[e] += o->pcs[i].stack[e];
        total += units;
        if (units)
            rank[n++] = (struct ranked){&o->pcs[i], units};
    }
    bool sums_match = true;
    for (unsigned e = 0; e < CAUSE_COUNT; e++)
        sums_match &= by_pc[e] == cores[e];
    qsort(rank, n, sizeof *rank, by_time_desc);
    if (n > top)
        n = top;
    const char *scope = o->h.snapshot ? "snapshot or interval" : "run";
    if (json) {
        fprintf(f, "{\"cycle_unit\": %u, \"scope\": ", CYCLE_UNIT);
        json_str(f, scope);
        fprintf(f, ", \"exact\": %s, \"within_one_cycle\": %s, \"pc_sums_match\": %s, \"cores\": [",
                exact ? "true" : "false", close ? "true" : "false", sums_match ? "true" : "false");
        for (unsigned c = 0; c < o->h.ncores; c++) {
            const struct oracle_core *k = &o->cores[c];
            fprintf(f, "%s{\"core\": %u, \"cycles\": %llu, \"stack_units\": %llu, \"stack\": ", c ? ", " : "",
                    c, (unsigned long long)k->cycles, (unsigned long long)stack_units(k->stack));
            stack_json(f, k->stack);
            fputc('}', f);
        }
        fprintf(f, "], \"stack\": ");
        stack_json(f, cores);
        fprintf(f, ", \"stack_by_pc\": ");
        stack_json(f, by_pc);
        fprintf(f, ", \"top\": [");
        for (size_t i = 0; i < n; i++) {
            fprintf(f, "%s{\"pc\": \"0x%llx\", \"procedure\": ", i ? ", " : "",
                    (unsigned long long)rank[i].e->pc);
            json_str(f, namer ? namer(ctx, rank[i].e->pc) : "?");
            fprintf(f, ", \"executions\": %llu, \"cycles\": ", (unsigned long long)rank[i].e->executions);
            json_num(f, cycles_of(rank[i].units));
            fprintf(f, ", \"share\": ");
            json_num(f, total ? (double)rank[i].units / (double)total : 0);
            fprintf(f, ", \"stack\": ");
            stack_json(f, rank[i].e->stack);
            fputc('}', f);
        }
        fprintf(f, "]}\n");
    } else {
        fprintf(f, "Cycle stacks (time-proportional, TIP's rules; the %s's truth)\n", scope);
        fprintf(f, "%4s %14s %16s  %s\n", "core", "cycles", "stacks sum", "largest causes");
        for (unsigned c = 0; c < o->h.ncores; c++) {
            const struct oracle_core *k = &o->cores[c];
            fprintf(f, "%4u %14llu %16.4f ", c, (unsigned long long)k->cycles, cycles_of(stack_units(k->stack)));
            stack_text(f, k->stack);
            fputc('\n', f);
        }
        fprintf(f, "  every core's stack sums to its cycles: %s\n",
                exact ? "exactly" : close ? "within its open retire cycle (a snapshot)" : "NO");
        fprintf(f, "  the instructions' stacks sum to the cores': %s\n", sums_match ? "exactly" : "NO");
        fprintf(f, "  top instructions by time:\n  %18s %8s %12s %14s  %-20s %s\n", "pc", "time%", "cycles",
                "executions", "procedure", "stack");
        for (size_t i = 0; i < n; i++) {
            fprintf(f, "  %18llx %8.3f %12.1f %14llu  %-20s", (unsigned long long)rank[i].e->pc,
                    total ? 100.0 * (double)rank[i].units / (double)total : 0.0, cycles_of(rank[i].units),
                    (unsigned long long)rank[i].e->executions, namer ? namer(ctx, rank[i].e->pc) : "?");
            stack_text(f, rank[i].e->stack);
            fputc('\n', f);
        }
    }
    free(rank);
    return close && sums_match ? 0 : 1;
}
