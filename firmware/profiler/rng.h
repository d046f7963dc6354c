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

/* Marsaglia's xorshift64 (period 2^64 - 1, the state never 0): three
 * shifts and xors, for the timer's every tick, where minstd's two
 * dependent multiplies cost about 13 modelled cycles. */
static inline uint64_t xorshift64_next(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

static inline uint64_t xorshift64_seed(uint64_t seed)
{
    return seed ? seed : 0x9e3779b97f4a7c15ull;
}

/* The top bits a draw of [0, span] takes: span < 2^bits. */
static inline unsigned xorshift_bits(uint64_t span)
{
    unsigned bits = 0;
    while (bits < 64 && span >> bits)
        bits++;
    return bits;
}

/* Uniform in [lo, lo + span], bits = xorshift_bits(span) (at least 1):
 * the generator's top bits, a draw past span drawn again (less than half
 * of them), no multiply and no division. */
static inline uint64_t xorshift64_within(uint64_t *state, uint64_t lo, uint64_t span, unsigned bits)
{
    uint64_t r;
    do
        r = xorshift64_next(state) >> (64 - bits);
    while (r > span);
    return lo + r;
}

#endif
