/* listmark: the benchmark's own types, kernels and port interface. */
#ifndef LISTMARK_H
#define LISTMARK_H

#include <stdint.h>
#include "port.h"

typedef uint16_t lm_u16;
typedef uint32_t lm_u32;    /* also holds pointers: the benchmark assumes 32-bit addresses */
typedef int16_t lm_s16;
typedef int32_t lm_s32;

#ifndef ITERATIONS
#error "listmark: build with -DITERATIONS=N"
#endif
#ifndef SEED
#define SEED 0
#endif
#ifndef FLAGS_STR
#define FLAGS_STR "(unknown)"
#endif

lm_u16 crc16_u8(lm_u16 crc, unsigned byte);
lm_u16 crc16_u16(lm_u16 crc, lm_u16 value);
/* Builds a list of 64 values from seed, sorts it, returns the CRC of the
 * sorted values. */
lm_u16 list_kernel(lm_u32 seed);
/* Multiplies two 8x8 matrices made from seed, returns the CRC of the product. */
lm_u16 matrix_kernel(lm_u32 seed);
/* Where the list kernel keeps its nodes (a 32-bit handle). */
lm_u32 list_pool_handle(void);

#endif
