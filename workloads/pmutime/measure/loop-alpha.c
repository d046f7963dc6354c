/* pmutime's kernel on Alpha: the reads and the loop in one asm block, so
 * the instructions between the reads are exactly the ones counted in
 * loop.h. */
#include "loop.h"

void loop_measure(const volatile uint64_t *cycles, const volatile uint64_t *retired,
                  const volatile uint64_t *counter_slot, long iterations, struct loop_reading *out)
{
    uint64_t y0, r0, c0, c1, r1, y1, sink;
    long left;
    static volatile uint64_t cell;
    __asm__ volatile(
        "ldq %0, 0(%9)\n\t"         /* cycles */
        "ldq %1, 0(%10)\n\t"        /* retired: from here */
        "ldq %2, 0(%11)\n\t"        /* counter: from here (a load itself) */
        "mov %12, %7\n"
        "1:\n\t"
        "ldq %8, 0(%13)\n\t"
        "subq %7, 1, %7\n\t"
        "bne %7, 1b\n\t"
        "ldq %3, 0(%11)\n\t"        /* counter: to here */
        "ldq %4, 0(%10)\n\t"        /* retired: to here */
        "ldq %5, 0(%9)\n\t"         /* cycles */
        : "=&r"(y0), "=&r"(r0), "=&r"(c0), "=&r"(c1), "=&r"(r1), "=&r"(y1), "=m"(cell), "=&r"(left),
          "=&r"(sink)
        : "r"(cycles), "r"(retired), "r"(counter_slot), "r"(iterations), "r"(&cell)
        : "memory");
    out->cycles = y1 - y0;
    out->retired = r1 - r0;
    out->count = c1 - c0;
}
