/* CRC-32 (IEEE 802.3, as zlib's crc32()), for image checks. */
#ifndef FIRMWARE_KERNEL_CRC32_H
#define FIRMWARE_KERNEL_CRC32_H

#include <stddef.h>
#include <stdint.h>

uint32_t crc32_update(uint32_t crc, const void *buf, size_t len);

#endif
