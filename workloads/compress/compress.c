/*
 * A small LZ77 compressor (hash-chain match finder, byte-oriented tokens)
 * run over generated text, then decompressed and compared: irregular
 * control flow, table lookups and byte loads and stores.
 *
 * Token stream: a control byte c; c < 128: c + 1 literal bytes follow;
 * c >= 128: a match of length (c - 128) + MIN_MATCH at the 16-bit offset
 * in the next two bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "workloads/runtime/alphaprof-runtime.h"

#define INPUT_SIZE  (256 * 1024)
#define MIN_MATCH   4
#define MAX_MATCH   (127 + MIN_MATCH)
#define WINDOW      65535
#define HASH_BITS   14
#define MAX_CHAIN   16

static unsigned long lcg_state = 99;

static unsigned long lcg_next(void)
{
    lcg_state = lcg_state * 6364136223846793005UL + 1442695040888963407UL;
    return lcg_state >> 33;
}

static void generate_text(unsigned char *out, long n)
{
    static const char *const words[] = {
        "profile", "sample", "cycle", "cache", "miss", "branch", "alpha",
        "the", "of", "and", "instruction", "retire", "pipeline", "a", "stall",
    };
    const long nwords = sizeof words / sizeof words[0];
    long i = 0;
    while (i < n) {
        const char *w = words[lcg_next() % nwords];
        while (*w && i < n)
            out[i++] = (unsigned char)*w++;
        if (i < n)
            out[i++] = (lcg_next() % 9 == 0) ? '\n' : ' ';
    }
}

static unsigned hash4(const unsigned char *p)
{
    unsigned v = (unsigned)p[0] | (unsigned)p[1] << 8 | (unsigned)p[2] << 16 | (unsigned)p[3] << 24;
    return (v * 2654435761u) >> (32 - HASH_BITS);
}

static long flush_literals(unsigned char *out, long o, const unsigned char *lit, long n)
{
    while (n > 0) {
        long run = n > 128 ? 128 : n;
        out[o++] = (unsigned char)(run - 1);
        memcpy(out + o, lit, (size_t)run);
        o += run;
        lit += run;
        n -= run;
    }
    return o;
}

static __attribute__((noinline)) long compress(const unsigned char *in, long n, unsigned char *out)
{
    static long head[1 << HASH_BITS];
    static long prev[INPUT_SIZE];
    for (long i = 0; i < (1 << HASH_BITS); i++)
        head[i] = -1;
    long o = 0, lit_start = 0, i = 0;
    while (i + MIN_MATCH <= n) {
        unsigned h = hash4(in + i);
        long best_len = 0, best_off = 0;
        long cand = head[h];
        for (int chain = 0; cand >= 0 && chain < MAX_CHAIN && i - cand <= WINDOW; chain++) {
            long len = 0;
            while (len < MAX_MATCH && i + len < n && in[cand + len] == in[i + len])
                len++;
            if (len > best_len) {
                best_len = len;
                best_off = i - cand;
            }
            cand = prev[cand];
        }
        prev[i] = head[h];
        head[h] = i;
        if (best_len >= MIN_MATCH) {
            o = flush_literals(out, o, in + lit_start, i - lit_start);
            out[o++] = (unsigned char)(128 + best_len - MIN_MATCH);
            out[o++] = (unsigned char)(best_off & 0xff);
            out[o++] = (unsigned char)(best_off >> 8);
            for (long k = 1; k < best_len && i + k + MIN_MATCH <= n; k++) {
                unsigned hk = hash4(in + i + k);
                prev[i + k] = head[hk];
                head[hk] = i + k;
            }
            i += best_len;
            lit_start = i;
        } else {
            i++;
        }
    }
    return flush_literals(out, o, in + lit_start, n - lit_start);
}

static __attribute__((noinline)) long decompress(const unsigned char *in, long n, unsigned char *out)
{
    long i = 0, o = 0;
    while (i < n) {
        unsigned c = in[i++];
        if (c < 128) {
            memcpy(out + o, in + i, c + 1);
            i += c + 1;
            o += c + 1;
        } else {
            long len = (long)(c - 128) + MIN_MATCH;
            long off = (long)in[i] | (long)in[i + 1] << 8;
            i += 2;
            for (long k = 0; k < len; k++, o++)
                out[o] = out[o - off];
        }
    }
    return o;
}

/* The workload once; non-zero if its self-check failed. */
static int run_once(void)
{
    unsigned char *text = malloc(INPUT_SIZE);
    unsigned char *packed = malloc(INPUT_SIZE + INPUT_SIZE / 64 + 16);
    unsigned char *unpacked = malloc(INPUT_SIZE);
    if (!text || !packed || !unpacked) {
        printf("compress: out of memory\n");
        return 1;
    }
    generate_text(text, INPUT_SIZE);
    long packed_size = compress(text, INPUT_SIZE, packed);
    long unpacked_size = decompress(packed, packed_size, unpacked);
    if (unpacked_size != INPUT_SIZE || memcmp(text, unpacked, INPUT_SIZE) != 0) {
        printf("compress: FAILED, round trip gave %ld bytes\n", unpacked_size);
        return 1;
    }
    free(unpacked);
    free(packed);
    free(text);
    printf("compress: ok, %d bytes -> %ld bytes (%.1f%%)\n", INPUT_SIZE, packed_size,
           100.0 * (double)packed_size / INPUT_SIZE);
    return 0;
}

int main(int argc, char **argv)
{
    return alphaprof_repeat(argc, argv, run_once);
}
