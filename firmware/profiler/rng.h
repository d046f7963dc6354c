/*
 * The "minimal standard" generator (Park and Miller, multiplier 16807,
 * modulus 2^31 - 1) that DCPI uses to randomise sampling periods, so that
 * samples never lock onto a loop whose length divides the period.
 */
#ifndef FIRMWARE_PROFILER_RNG_H
#define FIRMWARE_PROFILER_RNG_H

#include <stdint.h>

static inline uint32_t minstd_next(uint32_t *state)
{
    /* x mod (2^31 - 1) without a division (the handler must stay cheap). */
    uint64_t x = (uint64_t)*state * 16807u;
    x = (x & 0x7fffffffu) + (x >> 31);
    if (x >= 0x7fffffffu)
        x -= 0x7fffffffu;
    *state = (uint32_t)x;
    return *state;
}

/* Uniform in [lo, hi] (hi - lo < 2^32). */
static inline uint64_t minstd_between(uint32_t *state, uint64_t lo, uint64_t hi)
{
    if (hi <= lo)
        return lo;
    /* scale the 31-bit value onto the range: a multiply, no division */
    return lo + (((uint64_t)minstd_next(state) * (hi - lo + 1)) >> 31);
}

static inline uint32_t minstd_seed(uint32_t seed)
{
    seed %= 2147483647u;
    return seed ? seed : 1;
}

#endif
