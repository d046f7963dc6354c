/*
 * insn-count: a second, independent truth for the hardware model's oracle.
 *
 * A minimal QEMU TCG plugin that shares nothing with hw-model/ but QEMU's
 * plugin API declarations: QEMU itself adds 1 to a PC's counter each time
 * the instruction completes, with inline operations (no callback) and no
 * model.  An instruction that accesses memory completes when its access
 * does (an inline add on the memory access); any other when it starts (an
 * inline add on the instruction).  At exit it writes "PC COUNT" lines (hex
 * PC, decimal count, sorted by PC) to out=PATH.
 *
 * Why the access: under -icount a device access that is not the last
 * instruction of its translation block is abandoned and run again alone
 * (QEMU's I/O recompile), and an interrupt may be taken in between; the
 * abandoned attempt started but never completed, and the hardware model
 * books it aborted.  The only decoding here is the opcode table below:
 * which instructions access memory at all (loads to $31/$f31 do not: QEMU
 * treats them as no-ops and prefetch hints; stl_c/stq_c that fail do not
 * either, so they count when they start).
 *
 * Invariants:
 *  1. One counter per guest PC, however often the PC is translated (TBs are
 *     retranslated after flushes); counters live in fixed chunks and never
 *     move, because translated code holds their addresses.
 *  2. The inline add is not atomic: run QEMU with one TCG thread
 *     (-accel tcg,thread=single, as the boards' deterministic mode does),
 *     or counts of code several vCPUs run at once may be lost.
 *  3. A load or store that faults is counted once, when its access runs
 *     after the handler; any other instruction is counted when it starts,
 *     so compare on runs where nothing but memory accesses fault.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw-model/plugin/qemu-plugin-api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

struct counter {
    uint64_t pc;
    uint64_t count;
};

#define CHUNK 4096
static struct counter **chunks;
static size_t nchunks, ncounters;
static struct counter **index_slots;    /* open addressing on pc */
static size_t index_size;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *out_path;

static size_t slot_of(uint64_t pc, size_t size)
{
    return (size_t)((pc >> 2) * 0x9e3779b97f4a7c15ULL >> 20) & (size - 1);
}

static int grow_index(void)
{
    size_t size = index_size ? index_size * 2 : 1u << 14;
    struct counter **slots = calloc(size, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < index_size; i++) {
        struct counter *c = index_slots[i];
        if (!c)
            continue;
        size_t s = slot_of(c->pc, size);
        while (slots[s])
            s = (s + 1) & (size - 1);
        slots[s] = c;
    }
    free(index_slots);
    index_slots = slots;
    index_size = size;
    return 0;
}

static struct counter *counter_of(uint64_t pc)
{
    if ((ncounters + 1) * 2 > index_size && grow_index())
        return NULL;
    size_t s = slot_of(pc, index_size);
    while (index_slots[s]) {
        if (index_slots[s]->pc == pc)
            return index_slots[s];
        s = (s + 1) & (index_size - 1);
    }
    if (ncounters == nchunks * CHUNK) {
        struct counter **more = realloc(chunks, (nchunks + 1) * sizeof *chunks);
        if (!more)
            return NULL;
        chunks = more;
        if (!(chunks[nchunks] = calloc(CHUNK, sizeof **chunks)))
            return NULL;
        nchunks++;
    }
    struct counter *c = &chunks[ncounters / CHUNK][ncounters % CHUNK];
    ncounters++;
    c->pc = pc;
    index_slots[s] = c;
    return c;
}

/* Does this instruction word access memory when it completes?  Loads and
 * stores by opcode; a load whose destination is $31/$f31 does not. */
static int accesses_memory(uint32_t word)
{
    unsigned opcode = word >> 26, ra = (word >> 21) & 31;
    switch (opcode) {
    case 0x0a: case 0x0b: case 0x0c:            /* ldbu, ldq_u, ldwu */
    case 0x20: case 0x21: case 0x22: case 0x23: /* ldf, ldg, lds, ldt */
    case 0x28: case 0x29: case 0x2a: case 0x2b: /* ldl, ldq, ldl_l, ldq_l */
        return ra != 31;
    case 0x0d: case 0x0e: case 0x0f:            /* stw, stb, stq_u */
    case 0x24: case 0x25: case 0x26: case 0x27: /* stf, stg, sts, stt */
    case 0x2c: case 0x2d:                       /* stl, stq */
        return 1;
    default:                                    /* (stl_c/stq_c may not access) */
        return 0;
    }
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    pthread_mutex_lock(&lock);
    size_t n = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        struct counter *c = counter_of(qemu_plugin_insn_vaddr(insn));
        uint32_t word = 0;
        memcpy(&word, qemu_plugin_insn_data(insn),
               qemu_plugin_insn_size(insn) < sizeof word ? qemu_plugin_insn_size(insn) : sizeof word);
        if (c && accesses_memory(word))
            qemu_plugin_register_vcpu_mem_inline(insn, QEMU_PLUGIN_MEM_RW, QEMU_PLUGIN_INLINE_ADD_U64,
                                                 &c->count, 1);
        else if (c)
            qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &c->count, 1);
        else
            fprintf(stderr, "insn-count: out of memory: counts are incomplete\n");
    }
    pthread_mutex_unlock(&lock);
}

static int by_pc(const void *a, const void *b)
{
    const struct counter *x = *(struct counter *const *)a, *y = *(struct counter *const *)b;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static void write_counts(qemu_plugin_id_t id, void *userdata)
{
    (void)id;
    (void)userdata;
    struct counter **all = malloc((ncounters + 1) * sizeof *all);
    FILE *f = fopen(out_path, "w");
    if (!all || !f) {
        fprintf(stderr, "insn-count: cannot write %s\n", out_path);
        exit(1);
    }
    for (size_t i = 0; i < ncounters; i++)
        all[i] = &chunks[i / CHUNK][i % CHUNK];
    qsort(all, ncounters, sizeof *all, by_pc);
    for (size_t i = 0; i < ncounters; i++)
        if (all[i]->count)
            fprintf(f, "%" PRIx64 " %" PRIu64 "\n", all[i]->pc, all[i]->count);
    if (fclose(f)) {
        fprintf(stderr, "insn-count: cannot write %s\n", out_path);
        exit(1);
    }
    free(all);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                           char **argv)
{
    (void)info;
    for (int i = 0; i < argc; i++)
        if (strncmp(argv[i], "out=", 4) == 0)
            out_path = strdup(argv[i] + 4);
    if (!out_path) {
        fprintf(stderr, "insn-count: usage: -plugin insn-count.so,out=PATH\n");
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
    qemu_plugin_register_atexit_cb(id, write_counts, NULL);
    return 0;
}
