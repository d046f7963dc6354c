/*
 * calltree: calls of every shape a calling context tree must get right,
 * small enough to run under the full hardware model in a test: direct
 * recursion (fib), mutual recursion (even/odd, which the compiler may turn
 * into tail calls), calls through a function pointer (jsr), a procedure
 * that ends in a tail call (tail), and one callee reached from two call
 * sites of the same caller (leaf in main).
 *
 *   calltree [N [DEPTH [VDEPTH]]]
 *                          N rounds (default 16), then one recursion DEPTH
 *                          deep and one through frames of variable size
 *                          VDEPTH deep (defaults 0); prints the checksum
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static long leaf(long x) { return x * 3 + 1; }

__attribute__((noinline)) static long fib(long n) { return n < 2 ? leaf(n) : fib(n - 1) + fib(n - 2); }

__attribute__((noinline)) static long odd(long n);
__attribute__((noinline)) static long even(long n) { return n == 0 ? 1 : odd(n - 1); }
__attribute__((noinline)) static long odd(long n) { return n == 0 ? 0 : even(n - 1); }

static long (*volatile table[2])(long) = {leaf, fib};

__attribute__((noinline)) static long via(long (*f)(long), long x) { return f(x) + 1; }

__attribute__((noinline)) static long tail(long x) { return leaf(x + 1); }

/* Recursion that is not a tail call (leaf of its result), depth d. */
__attribute__((noinline)) static long deep(long d) { return d == 0 ? 0 : leaf(deep(d - 1)) & 0xffff; }

/* deep's twin whose frame has a part of variable size (alloca), so sp
 * moves by more than one constant: an instrumenter that keeps its state
 * in a grown frame cannot grow this one. */
__attribute__((noinline)) static long deep_var(long d)
{
    if (d == 0)
        return 0;
    volatile char *scratch = __builtin_alloca((unsigned long)(d & 7) + 8);
    scratch[0] = (char)(d & 0x3f);
    return leaf(deep_var(d - 1) + scratch[0]) & 0xffff;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 16;
    long depth = argc > 2 ? atol(argv[2]) : 0;
    long vdepth = argc > 3 ? atol(argv[3]) : 0;
    if (n < 0 || n > 1000000 || depth < 0 || depth > 20000 || vdepth < 0 || vdepth > 20000) {
        printf("calltree: N must be 0..1000000, DEPTH and VDEPTH 0..20000\n");
        return 2;
    }
    long s = 0;
    for (long i = 0; i < n; i++) {
        s += fib(10);
        s += even(i & 15);
        s += via(table[i & 1], i & 7);
        s += tail(i);
        s += leaf(i) - leaf(i + 2);
    }
    if (depth)
        s += deep(depth);
    if (vdepth)
        s += deep_var(vdepth);
    printf("calltree: %ld rounds, depth %ld, checksum %ld\n", n, depth, s);
    return 0;
}
