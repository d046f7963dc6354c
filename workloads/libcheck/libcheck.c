/*
 * Checks the board support every image relies on, against values computed
 * here by other means: the integer division helpers (__divq & co., signed
 * and unsigned, 64 and 32 bit, at the edges), setjmp/longjmp (callee-saved
 * integer and FP registers survive), malloc until the heap runs out, and
 * newlib's formatted output of doubles.  Prints "libcheck: ok" or each
 * failure, and exits non-zero on any.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define EXPECT(cond, ...)                                        \
    do {                                                         \
        if (!(cond)) {                                           \
            failures++;                                          \
            printf("libcheck: FAILED %s: ", #cond);              \
            printf(__VA_ARGS__);                                 \
            printf("\n");                                        \
        }                                                        \
    } while (0)

/* Operands come through volatile so gcc cannot fold the divisions. */
static volatile long vl[] = {0, 1, -1, 7, -7, 13, 1000003, -1000003, LONG_MAX, LONG_MIN,
                             0x123456789abcdefL, -0x123456789abcdefL};
static volatile int vi[] = {1, -1, 3, -3, 7, 65536, INT_MAX, INT_MIN, -100000};

/* Division by repeated doubling: an independent reference. */
static uint64_t ref_udiv(uint64_t n, uint64_t d, uint64_t *rem)
{
    uint64_t q = 0, r = 0;
    for (int i = 63; i >= 0; i--) {
        r = r << 1 | (n >> i & 1);
        if (r >= d) {
            r -= d;
            q |= 1ull << i;
        }
    }
    *rem = r;
    return q;
}

static void check_division(void)
{
    size_t nl = sizeof vl / sizeof vl[0], ni = sizeof vi / sizeof vi[0];
    for (size_t i = 0; i < nl; i++)
        for (size_t j = 0; j < nl; j++) {
            long a = vl[i], b = vl[j];
            if (b == 0 || (a == LONG_MIN && b == -1))
                continue;
            uint64_t ua = a < 0 ? -(uint64_t)a : (uint64_t)a;
            uint64_t ub = b < 0 ? -(uint64_t)b : (uint64_t)b;
            uint64_t ur, uq = ref_udiv(ua, ub, &ur);
            long q = (a < 0) != (b < 0) ? -(long)uq : (long)uq;
            long r = a < 0 ? -(long)ur : (long)ur;
            EXPECT(a / b == q && a % b == r, "%ld / %ld", a, b);
            uint64_t rr, rq = ref_udiv((uint64_t)a, (uint64_t)b, &rr);
            EXPECT((uint64_t)a / (uint64_t)b == rq && (uint64_t)a % (uint64_t)b == rr,
                   "%lu /u %lu", (unsigned long)a, (unsigned long)b);
        }
    for (size_t i = 0; i < ni; i++)
        for (size_t j = 0; j < ni; j++) {
            int a = vi[i], b = vi[j];
            if (a == INT_MIN && b == -1)
                continue;
            long q = (long)a / b, r = (long)a % b;
            EXPECT(a / b == q && a % b == r, "%d / %d", a, b);
            unsigned ua = (unsigned)a, ub = (unsigned)b;
            EXPECT(ua / ub == (unsigned)((uint64_t)ua / ub) && ua % ub == (unsigned)((uint64_t)ua % ub),
                   "%u /u %u", ua, ub);
        }
}

static jmp_buf env;

static void __attribute__((noinline)) jump_back(int value)
{
    longjmp(env, value);
}

static volatile int jump_sink, jump_rounds = 3;

/* Frames with loops and calls between setjmp and longjmp: the longjmp
 * abandons them (instrumented images must not count their paths). */
static void __attribute__((noinline)) jump_deep(int depth, int value)
{
    for (int i = 0; i < depth; i++)
        jump_sink += i;
    if (depth > 0)
        jump_deep(depth - 1, value);
    else if (value > 0)
        longjmp(env, value);
    jump_sink++;
}

static void check_setjmp(void)
{
    volatile int visits = 0;
    register long keep_int = 0x5a5a1234;
    register double keep_fp = 2.5;
    int v = setjmp(env);
    visits++;
    if (v == 0)
        jump_back(0);   /* longjmp(env, 0) must arrive as 1 */
    else if (v == 1)
        jump_deep(3, 2);
    else if (v == 2)
        jump_back(42);
    EXPECT(v == 42 && visits == 4, "setjmp returned %d after %d visits", v, visits);
    EXPECT(keep_int == 0x5a5a1234 && keep_fp == 2.5, "registers kept across longjmp");
}

/* Call-free loops in procedures with calls, left by a break, by a return
 * from inside, and before a longjmp out of the procedure (an image
 * instrumented for paths counts such a loop's iterations in a register
 * and adds them at its exits: path-region.h note 9). */
static volatile long loop_data[64];

static void __attribute__((noinline)) loop_note(long s)
{
    jump_sink += (int)s;
}

static long __attribute__((noinline)) loop_left_by_break(int stop)
{
    long s = 0;
    int i;
    for (i = 0; i < 64; i++) {
        if (i == stop)
            break;
        s += loop_data[i];
    }
    loop_note(s);
    return s + i;
}

static long __attribute__((noinline)) loop_left_by_return(int stop)
{
    long s = 0;
    for (int i = 0; i < 64; i++) {
        s += loop_data[i];
        if (s > stop)
            return s;
    }
    loop_note(s);
    return -1;
}

static void __attribute__((noinline)) loop_then_longjmp(int n, int value)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += loop_data[i];
    jump_sink += (int)s;
    if (value)
        longjmp(env, value);
}

/* Call-free loops whose one increment counts their iterations (an image
 * instrumented for paths works out how often each ran from that variable
 * at its exits, its backedge carrying no code: path-region.h note 10):
 * left before and after the increment and by a return, run no time and
 * once, counting down, stepping through pointers, in a leaf and in a
 * procedure with calls, entered on different paths. */
static long __attribute__((noinline)) iv_leaf_until(long n, long stop)
{
    long s = 0;
    for (long i = 0; i < n; i++) {
        if (loop_data[i] == stop)
            break;      /* before the increment */
        s += loop_data[i];
    }
    return s;
}

static long __attribute__((noinline)) iv_down_then_call(long n, int twice)
{
    long s = 0;
    if (twice)
        s = 1000;       /* the loop entered on two paths */
    for (long i = n; i > 0; i--)
        s += loop_data[i];
    loop_note(s);
    return s;
}

static long __attribute__((noinline)) iv_pointers(const volatile long *p, const volatile long *end, long cap)
{
    long s = 0;
    while (p < end) {
        s += *p++;
        if (s > cap)
            return -s;  /* after the increment */
    }
    loop_note(s);
    return s;
}

/* A longword counter (an int: GCC's subl, written once) counting down
 * through 0: note 10 takes its difference mod 2^32. */
static long __attribute__((noinline)) iv_int_across_zero(int from, int n)
{
    long s = 0;
    for (int i = from; i > from - n; i--)
        s += loop_data[i & 63];
    return s;
}

static void check_iv_loops(void)
{
    for (int i = 0; i < 64; i++)
        loop_data[i] = i;
    long a = 0, b = 0, c = 0;
    for (long n = 0; n < 64; n += 3) {
        a += iv_leaf_until(n, 40);
        b += iv_down_then_call(n, (int)(n & 1));
        c += iv_pointers(loop_data + 64 - n, loop_data + 64, 1500);
    }
    /* sums of 0..min(n, 40)-1; of 1..n (+ 1000 when n is odd); of the
     * last n of 0..63 from the first, negated once past 1500 */
    long wa = 0, wb = 0, wc = 0;
    for (long n = 0; n < 64; n += 3) {
        long m = n < 40 ? n : 40, t = 0, k;
        wa += m * (m - 1) / 2;
        wb += n * (n + 1) / 2 + (n & 1 ? 1000 : 0);
        for (k = 64 - n; k < 64 && t <= 1500; k++)
            t += k;
        wc += t > 1500 ? -t : t;
    }
    EXPECT(a == wa && b == wb && c == wc, "loops counted by their increment: %ld %ld %ld, expected %ld %ld %ld",
           a, b, c, wa, wb, wc);
    long d = 0, wd = 0;
    for (int n = 0; n < 40; n += 13)
        d += iv_int_across_zero(5, n);
    for (int n = 0; n < 40; n += 13)
        for (int k = 0; k < n; k++)
            wd += (5 - k) & 63;
    EXPECT(d == wd, "an int counter down through 0: %ld, expected %ld", d, wd);
}

static void check_loop_exits(void)
{
    for (int i = 0; i < 64; i++)
        loop_data[i] = i;
    long b = 0, r = 0;
    for (int k = 0; k < 40; k++) {
        b += loop_left_by_break(k);
        r += loop_left_by_return(k * 20);
    }
    EXPECT(b == 10660 && r == 16154, "loops left by break and by return: %ld %ld", b, r);
    volatile int rounds = 0;
    int v = setjmp(env);
    if (v < 5) {
        rounds++;
        loop_then_longjmp(10 + v, v + 1);
    }
    EXPECT(v == 5 && rounds == 5, "a loop then a longjmp: %d after %d rounds", v, rounds);
}

/* check_setjmp three times from a loop: a caller that keeps values in
 * callee-saved registers across it, which must come back as they went in
 * (in an image instrumented for paths, the path register stack a longjmp
 * leaves behind must be unwound: path-region.h note 6). */
static void __attribute__((noinline)) check_setjmp_rounds(void)
{
    for (int i = 0; i < jump_rounds; i++) {
        if (i & 1)
            jump_sink += i;
        check_setjmp();
    }
}

static void check_heap(void)
{
    size_t total = 0, chunk = 1 << 20;
    void *first = malloc(chunk), *p = first;
    EXPECT(first != NULL, "first malloc");
    while (p) {
        total += chunk;
        memset(p, 0xa5, 64);
        p = malloc(chunk);
        if (total > (512u << 20))
            break;
    }
    EXPECT(total >= (64u << 20) && total < (512u << 20), "heap of %lu MiB runs out cleanly",
           (unsigned long)(total >> 20));
}

static void check_printf(void)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.3f %g %e", 3.14159, 0.5, -1234.5);
    EXPECT(!strcmp(buf, "3.142 0.5 -1.234500e+03"), "printf doubles: '%s'", buf);
    snprintf(buf, sizeof buf, "%lld %llx", -9000000000000000000LL, 0xfedcba9876543210ULL);
    EXPECT(!strcmp(buf, "-9000000000000000000 fedcba9876543210"), "printf long long: '%s'", buf);
}

int main(void)
{
    check_division();
    check_setjmp_rounds();
    check_loop_exits();
    check_iv_loops();
    check_printf();
    check_heap();
    if (failures) {
        printf("libcheck: %d checks FAILED\n", failures);
        return 1;
    }
    printf("libcheck: ok, division helpers, setjmp/longjmp, printf, heap exhaustion\n");
    return 0;
}
