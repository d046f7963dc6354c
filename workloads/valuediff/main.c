/*
 * valuediff: the value-sampling interpreter (firmware/profiler/value-interp.c,
 * built into this image unchanged) against the board's own execution.
 * Random sequences from gen.c run natively (run_native, native.S) and are
 * interpreted from the same registers and memory; registers and memory
 * are compared after each.
 *
 *   valuediff [SEED [INSTRUCTIONS [BODY [verbose]]]]   (verbose: each sequence before it runs)
 *
 * Prints a line per opcode class executed, the table entries never
 * executed, each mismatch (first few, with the sequence disassembled), and
 * "valuediff: ok ..." or "valuediff: FAILED ..."; exits 1 on a mismatch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "firmware/profiler/value-interp.h"
#include "gen.h"

_Static_assert(offsetof(struct cpu, f) == 256 && offsetof(struct cpu, ret) == CPU_RET &&
               offsetof(struct cpu, saved_sp) == 520 && offsetof(struct cpu, fpcr) == 528,
               "native.S's layout of struct cpu");

void run_native(struct cpu *st, const uint32_t *code);

#define MAX_BODY 64
static uint32_t code[64 + MAX_BODY + 66] __attribute__((aligned(64)));
static uint8_t data[DATA_BYTES] __attribute__((aligned(64)));
static uint8_t before[DATA_BYTES], expect[DATA_BYTES];
static uint64_t per_insn[300];
static uint64_t per_class[ALPHA_CLASS_COUNT];
static uint64_t stops[VI_STOP_COUNT];
static struct cpu native;   /* the registers of the native run; sp points here */

static void observe(void *ctx, const struct vi_event *e, const struct vi_state *s)
{
    (void)ctx;
    (void)s;
    const struct alpha_insn_info *in = alpha_decode(e->word);
    per_insn[in - alpha_insns]++;
    per_class[e->cls]++;
}

static uint64_t random_value(uint32_t *rng)
{
    static const uint64_t special[] = {0, 1, 2, 0x7f, 0x80, 0xff, 0xffffffffffffffffull,
                                       0x8000000000000000ull, 0x7fffffffffffffffull,
                                       0x80000000ull, 0x7fffffffull, 0xffffffff80000000ull};
    switch (gen_rand(rng) % 4) {
    case 0: return special[gen_rand(rng) % (sizeof special / sizeof special[0])];
    case 1: return gen_rand(rng) % 64;
    default: return (uint64_t)gen_rand(rng) << 32 | gen_rand(rng);
    }
}

static void dump_sequence(unsigned from, unsigned to)
{
    for (unsigned i = from; i < to; i++) {
        char text[96];
        alpha_disassemble(code[i], (uint64_t)(uintptr_t)&code[i], text, sizeof text);
        printf("valuediff:   %lx: %08x %s\n", (unsigned long)(uintptr_t)&code[i], code[i], text);
    }
}

int main(int argc, char **argv)
{
    uint32_t seed = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 1;
    uint64_t budget = argc > 2 ? strtoull(argv[2], NULL, 0) : 20000;
    unsigned body = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 0) : 24;
    if (body < 4 || body > MAX_BODY) {
        printf("valuediff: BODY must be 4..%d\n", MAX_BODY);
        return 2;
    }
    int verbose = argc > 4 && !strcmp(argv[4], "verbose");
    uint32_t rng = seed ? seed : 1;
    unsigned nentries = gen_init();

    static struct vi_decode_cache cache;
    uint64_t interpreted = 0, sequences = 0, compared = 0, mismatches = 0;
    while (interpreted < budget) {
        unsigned body_at, end = gen_sequence(code, body, &rng, &body_at);
        __asm__ volatile("call_pal 0x86" ::: "memory");      /* imb: new code */
        struct cpu init;
        memset(&init, 0, sizeof init);
        for (unsigned r = 0; r < 32; r++)
            init.r[r] = random_value(&rng);
        for (unsigned f = 0; f < 32; f++)
            init.f[f] = random_value(&rng);
        init.r[BASE_REG] = (uint64_t)(uintptr_t)data;
        init.r[30] = (uint64_t)(uintptr_t)&native;     /* sp while the sequence runs */
        for (unsigned i = 0; i < DATA_BYTES; i++)
            data[i] = (uint8_t)gen_rand(&rng);
        memcpy(before, data, sizeof data);
        sequences++;

        /* interpreted first: it predicts the traps the native run must not take */
        double fpcr_bits;   /* the FPCR's status bits are sticky: read it each time */
        __asm__ volatile("mf_fpcr %0" : "=f"(fpcr_bits));
        uint64_t fpcr;
        memcpy(&fpcr, &fpcr_bits, sizeof fpcr);
        struct vi_state s;
        memcpy(s.r, init.r, sizeof s.r);
        memcpy(s.f, init.f, sizeof s.f);
        s.fpcr = fpcr;
        s.pc = (uint64_t)(uintptr_t)&code[body_at];
        struct vi_env env = {
            .region = {
                {(uint64_t)(uintptr_t)code, (uint64_t)(uintptr_t)&code[end], (uintptr_t)code, VI_REGION_READ},
                {(uint64_t)(uintptr_t)data, (uint64_t)(uintptr_t)data + DATA_BYTES, (uintptr_t)data,
                 VI_REGION_READ | VI_REGION_WRITE},
            },
            .nregions = 2,
            .end_pc = (uint64_t)(uintptr_t)&code[end],
            .cache = &cache,
            .observe = observe,
        };
        struct vi_write_buffer wb;
        vi_wb_reset(&wb);
        struct vi_result res = vi_run(&s, &env, &wb, 4 * body, 0);
        interpreted += res.executed;
        stops[res.stop]++;
        if (res.stop != VI_STOP_END_PC)
            continue;               /* would trap natively (or buffer full): not run */

        memcpy(expect, before, sizeof expect);
        for (unsigned i = 0; i < wb.n; i++)
            for (unsigned b = 0; b < 8; b++)
                if (wb.mask[i] & (1u << b))
                    expect[wb.addr[i] - (uint64_t)(uintptr_t)data + b] = (uint8_t)(wb.data[i] >> (b * 8));

        if (verbose)
            dump_sequence(body_at, end);
        native = init;
        run_native(&native, code);
        compared++;
        int bad = 0;
        for (unsigned r = 0; r < 30; r++)
            if (native.r[r] != s.r[r]) {
                if (mismatches < 5)
                    printf("valuediff: MISMATCH sequence %lu: r%u native %016lx interpreted %016lx\n",
                           (unsigned long)sequences, r, (unsigned long)native.r[r], (unsigned long)s.r[r]);
                bad = 1;
            }
        for (unsigned f = 0; f < 31; f++)
            if (native.f[f] != s.f[f]) {
                if (mismatches < 5)
                    printf("valuediff: MISMATCH sequence %lu: f%u native %016lx interpreted %016lx\n",
                           (unsigned long)sequences, f, (unsigned long)native.f[f], (unsigned long)s.f[f]);
                bad = 1;
            }
        for (unsigned i = 0; i < DATA_BYTES; i++)
            if (data[i] != expect[i]) {
                if (mismatches < 5)
                    printf("valuediff: MISMATCH sequence %lu: data byte %u native %02x interpreted %02x\n",
                           (unsigned long)sequences, i, data[i], expect[i]);
                bad = 1;
                break;
            }
        if (bad && mismatches < 5)
            dump_sequence(body_at, end);
        mismatches += (uint64_t)bad;
    }

    for (unsigned c = 0; c < ALPHA_CLASS_COUNT; c++)
        if (per_class[c])
            printf("valuediff: class %s executed %lu\n", alpha_class_name((enum alpha_class)c),
                   (unsigned long)per_class[c]);
    for (unsigned k = 0; k < VI_STOP_COUNT; k++)
        if (stops[k])
            printf("valuediff: stop %s %lu\n", vi_stop_name((enum vi_stop)k), (unsigned long)stops[k]);
    unsigned never = 0;
    for (unsigned k = 0; k < nentries; k++)
        if (!per_insn[gen_entry(k)]) {
            printf("valuediff: never executed %s\n", alpha_insns[gen_entry(k)].name);
            never++;
        }
    printf("valuediff: %s seed %lu sequences %lu interpreted %lu compared %lu mismatches %lu "
           "instructions %u never-executed %u\n",
           mismatches ? "FAILED" : "ok", (unsigned long)seed, (unsigned long)sequences,
           (unsigned long)interpreted, (unsigned long)compared, (unsigned long)mismatches, nentries, never);
    return mismatches ? 1 : 0;
}
