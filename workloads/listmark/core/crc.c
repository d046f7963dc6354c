/* listmark: CRC-16 (reflected polynomial 0xA001), bit by bit. */
#include "listmark.h"

lm_u16 crc16_u8(lm_u16 crc, unsigned byte)
{
    for (int i = 0; i < 8; i++, byte >>= 1)
        crc = ((crc ^ byte) & 1) ? (lm_u16)((crc >> 1) ^ 0xA001) : (lm_u16)(crc >> 1);
    return crc;
}

lm_u16 crc16_u16(lm_u16 crc, lm_u16 value)
{
    return crc16_u8(crc16_u8(crc, value & 0xff), value >> 8);
}
