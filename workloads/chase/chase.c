/*
 * Pointer chase through one random cycle over a 32 MiB array: every load
 * depends on the previous one and nearly every one misses in the caches,
 * so the D-cache-miss samples belong on the load in chase().
 */
#include <stdio.h>
#include <stdlib.h>
#include "workloads/runtime/alphaprof-runtime.h"

#define NODES (1L << 19)          /* 512 Ki nodes of 64 bytes */
#define STEPS ((1L << 23) + 1000)

struct node {
    struct node *next;
    long pad[7];                  /* one node per 64-byte line */
};

static unsigned long lcg_state = 12345;

static unsigned long lcg_next(void)
{
    lcg_state = lcg_state * 6364136223846793005UL + 1442695040888963407UL;
    return lcg_state >> 17;
}

/* Sattolo's algorithm: a random permutation that is a single cycle. */
static void link_single_cycle(struct node *nodes, long n, long *order)
{
    for (long i = 0; i < n; i++)
        order[i] = i;
    for (long i = n - 1; i > 0; i--) {
        /* j uniform in [0, i): scale, no division (the set-up must not
         * outweigh the chase in the profile) */
        long j = (long)(((unsigned __int128)lcg_next() * (unsigned long)i) >> 47);
        long t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (long i = 0; i < n; i++)
        nodes[order[i]].next = &nodes[order[i + 1 < n ? i + 1 : 0]];
}

static __attribute__((noinline)) struct node *chase(struct node *p, long steps)
{
    while (steps-- > 0)
        p = p->next;
    return p;
}

/* The workload once; non-zero if its self-check failed. */
static int run_once(void)
{
    struct node *nodes = malloc(NODES * sizeof *nodes);
    long *order = malloc(NODES * sizeof *order);
    if (!nodes || !order) {
        printf("chase: out of memory\n");
        return 1;
    }
    link_single_cycle(nodes, NODES, order);

    /* A single cycle of length NODES returns to its start after NODES steps. */
    struct node *start = &nodes[0];
    if (chase(start, NODES) != start) {
        printf("chase: FAILED, the permutation is not one cycle\n");
        return 1;
    }
    struct node *end = chase(start, STEPS);
    long end_index = (long)(end - nodes);
    free(order);
    free(nodes);
    printf("chase: ok, %ld steps over %ld nodes, ended at node %ld\n",
           STEPS, NODES, end_index);
    return 0;
}

int main(int argc, char **argv)
{
    return alphaprof_repeat(argc, argv, run_once);
}
