/* Table-driven CRC-32; the table is built on first use (1 KiB of bss). */
#include "firmware/kernel/crc32.h"

static uint32_t table[256];

static void build_table(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
}

uint32_t crc32_update(uint32_t crc, const void *buf, size_t len)
{
    if (table[1] == 0)
        build_table();
    const uint8_t *p = buf;
    crc = ~crc;
    while (len--)
        crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}
