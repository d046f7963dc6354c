/* listmark: an 8x8 integer matrix product. */
#include "listmark.h"

#define N 8

lm_u16 matrix_kernel(lm_u32 seed)
{
    lm_s16 a[N][N], b[N][N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            a[i][j] = (lm_s16)((int)((i * N + j + seed) & 0xff) - 128);
            b[i][j] = (lm_s16)(((unsigned)(i ^ j) + seed * 3u) & 0x7f);
        }
    lm_u16 crc = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            lm_s32 sum = 0;
            for (int k = 0; k < N; k++)
                sum += a[i][k] * b[k][j];
            crc = crc16_u16(crc, (lm_u16)sum);
        }
    return crc;
}
