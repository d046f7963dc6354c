/* listmark: runs both kernels ITERATIONS times, chaining their CRCs, and
 * reports what the port layer measured. */
#include "listmark.h"

int main(void)
{
    port_init();
    port_ticks_t start = port_ticks();
    lm_u16 crc = 0;
    for (lm_u32 it = 0; it < ITERATIONS; it++) {
        crc = crc16_u16(crc, list_kernel(SEED + it));
        crc = crc16_u16(crc, matrix_kernel(SEED + it));
    }
    port_ticks_t spent = port_ticks() - start;
    port_printf("listmark: flags %s\n", FLAGS_STR);
    port_printf("listmark: iterations %d seed %d\n", ITERATIONS, SEED);
    port_printf("listmark: pool handle 0x%08lx\n", (unsigned long)list_pool_handle());
    port_printf("listmark: crc 0x%04x\n", crc);
    port_printf("listmark: %llu %s\n", (unsigned long long)spent, port_tick_unit());
    return 0;
}
