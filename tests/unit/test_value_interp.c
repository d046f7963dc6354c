/*
 * The value-sampling interpreter (firmware/profiler/value-interp.c) on the
 * host: every opcode class against values computed by hand from the Alpha
 * Architecture Reference Manual, the write buffer, and every way a run
 * stops.  The board's differential test (e2e test_value_sampling.py)
 * checks the same code against QEMU's execution.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "firmware/profiler/value-interp.h"

#define CODE_VA  0x10000ull
#define DATA_VA  0x20000ull
#define STACK_VA 0x30000ull
#define DEV_VA   0x40000ull

static uint32_t code[64];
static uint64_t data[64];
static uint64_t stack_mem[64];
static uint64_t dev[4];
static struct vi_event seen[64];
static unsigned nseen;

static void observe(void *ctx, const struct vi_event *e, const struct vi_state *s)
{
    (void)ctx;
    (void)s;
    if (nseen < 64)
        seen[nseen++] = *e;
}

static struct vi_env env_for(unsigned n)
{
    struct vi_env env = {
        .region = {
            {CODE_VA, CODE_VA + n * 4, (uintptr_t)code, VI_REGION_READ},
            {DATA_VA, DATA_VA + sizeof data, (uintptr_t)data, VI_REGION_READ | VI_REGION_WRITE},
            {STACK_VA, STACK_VA + sizeof stack_mem, (uintptr_t)stack_mem,
             VI_REGION_READ | VI_REGION_WRITE | VI_REGION_STACK},
            {DEV_VA, DEV_VA + sizeof dev, (uintptr_t)dev, VI_REGION_DEVICE},
        },
        .nregions = 4,
        .observe = observe,
    };
    return env;
}

static struct vi_write_buffer wb;

/* Runs the n words in code[] from a state; returns the result. */
static struct vi_result run(struct vi_state *s, unsigned n)
{
    struct vi_env env = env_for(n);
    env.end_pc = CODE_VA + n * 4;
    s->pc = CODE_VA;
    nseen = 0;
    vi_wb_reset(&wb);
    return vi_run(s, &env, &wb, 1000, 0);
}

/* Encoders. */
static uint32_t opr(unsigned op, unsigned fn, unsigned ra, unsigned rb, unsigned rc)
{
    return op << 26 | ra << 21 | rb << 16 | fn << 5 | rc;
}
static uint32_t opl(unsigned op, unsigned fn, unsigned ra, unsigned lit, unsigned rc)
{
    return op << 26 | ra << 21 | lit << 13 | 1u << 12 | fn << 5 | rc;
}
static uint32_t mem(unsigned op, unsigned ra, unsigned rb, int disp)
{
    return op << 26 | ra << 21 | rb << 16 | ((unsigned)disp & 0xffff);
}
static uint32_t bra(unsigned op, unsigned ra, int disp)
{
    return op << 26 | ra << 21 | ((unsigned)disp & 0x1fffff);
}

/* One operate instruction r3 = r1 OP r2 on the given inputs. */
static uint64_t op2(unsigned op, unsigned fn, uint64_t a, uint64_t b)
{
    struct vi_state s = {0};
    s.r[1] = a;
    s.r[2] = b;
    s.r[3] = 0x5555;
    code[0] = opr(op, fn, 1, 2, 3);
    struct vi_result r = run(&s, 1);
    assert_int_equal(r.stop, VI_STOP_END_PC);
    assert_int_equal(r.executed, 1);
    return s.r[3];
}

/* An operation of rb only (ra must be $31): r3 = OP r2. */
static uint64_t op1(unsigned op, unsigned fn, uint64_t b)
{
    struct vi_state s = {0};
    s.r[2] = b;
    code[0] = opr(op, fn, 31, 2, 3);
    struct vi_result r = run(&s, 1);
    assert_int_equal(r.stop, VI_STOP_END_PC);
    return s.r[3];
}

static enum vi_stop op2_stop(unsigned op, unsigned fn, uint64_t a, uint64_t b)
{
    struct vi_state s = {0};
    s.r[1] = a;
    s.r[2] = b;
    code[0] = opr(op, fn, 1, 2, 3);
    return run(&s, 1).stop;
}

static void integer_arithmetic_matches_the_manual(void **st)
{
    (void)st;
    assert_int_equal(op2(0x10, 0x00, 0x7fffffff, 1), 0xffffffff80000000ull);      /* addl wraps, sign-extends */
    assert_int_equal(op2(0x10, 0x02, 3, 5), 17);                                    /* s4addl */
    assert_int_equal(op2(0x10, 0x09, 0, 1), 0xffffffffffffffffull);                 /* subl */
    assert_int_equal(op2(0x10, 0x0b, 1, 5), 0xffffffffffffffffull);                 /* s4subl: 4-5 */
    assert_int_equal(op2(0x10, 0x0f, 0x00ff0010ff000080ull, 0x0100001000ff0081ull), 0x7a); /* cmpbge */
    assert_int_equal(op2(0x10, 0x12, 2, 1), 17);                                    /* s8addl */
    assert_int_equal(op2(0x10, 0x1b, 1, 9), 0xffffffffffffffffull);                 /* s8subl */
    assert_int_equal(op2(0x10, 0x1d, 1, 0xffffffffffffffffull), 1);                 /* cmpult */
    assert_int_equal(op2(0x10, 0x20, 0xffffffffffffffffull, 2), 1);                 /* addq */
    assert_int_equal(op2(0x10, 0x22, 0x4000000000000000ull, 7), 7);                 /* s4addq */
    assert_int_equal(op2(0x10, 0x29, 5, 7), 0xfffffffffffffffeull);                 /* subq */
    assert_int_equal(op2(0x10, 0x2b, 2, 1), 7);                                     /* s4subq */
    assert_int_equal(op2(0x10, 0x2d, 9, 9), 1);                                     /* cmpeq */
    assert_int_equal(op2(0x10, 0x32, 1, 1), 9);                                     /* s8addq */
    assert_int_equal(op2(0x10, 0x3b, 1, 1), 7);                                     /* s8subq */
    assert_int_equal(op2(0x10, 0x3d, 9, 9), 1);                                     /* cmpule */
    assert_int_equal(op2(0x10, 0x4d, 0xffffffffffffffffull, 0), 1);                 /* cmplt: -1 < 0 */
    assert_int_equal(op2(0x10, 0x6d, 1, 0), 0);                                     /* cmple */
    assert_int_equal(op2(0x10, 0x40, 0x10, 0x20), 0x30);                            /* addl/v, no overflow */
    assert_int_equal(op2(0x10, 0x69, 0, 1), 0xffffffffffffffffull);                 /* subq/v */
    /* a literal operand: addq r1, 200, r3 */
    struct vi_state s = {0};
    s.r[1] = 1000;
    code[0] = opl(0x10, 0x20, 1, 200, 3);
    assert_int_equal(run(&s, 1).stop, VI_STOP_END_PC);
    assert_int_equal(s.r[3], 1200);
    assert_int_equal(seen[0].b, 200);
}

static void overflow_traps_stop_the_run_without_writing(void **st)
{
    (void)st;
    assert_int_equal(op2_stop(0x10, 0x40, 0x7fffffff, 1), VI_STOP_OVERFLOW_TRAP);           /* addl/v */
    assert_int_equal(op2_stop(0x10, 0x49, 0x80000000, 1), VI_STOP_OVERFLOW_TRAP);           /* subl/v */
    assert_int_equal(op2_stop(0x10, 0x60, 0x7fffffffffffffffull, 1), VI_STOP_OVERFLOW_TRAP);/* addq/v */
    assert_int_equal(op2_stop(0x10, 0x69, 0x8000000000000000ull, 1), VI_STOP_OVERFLOW_TRAP);/* subq/v */
    assert_int_equal(op2_stop(0x13, 0x40, 0x10000, 0x10000), VI_STOP_OVERFLOW_TRAP);        /* mull/v */
    assert_int_equal(op2_stop(0x13, 0x60, 1ull << 32, 1ull << 31), VI_STOP_OVERFLOW_TRAP);  /* mulq/v */
    struct vi_state s = {0};
    s.r[1] = 0x7fffffffffffffffull;
    s.r[2] = 1;
    s.r[3] = 77;
    code[0] = opr(0x10, 0x60, 1, 2, 3);
    struct vi_result r = run(&s, 1);
    assert_int_equal(r.executed, 0);
    assert_int_equal(s.r[3], 77);
    assert_int_equal(s.pc, CODE_VA);
    assert_int_equal(nseen, 0);
}

static void logical_operations_and_conditional_moves(void **st)
{
    (void)st;
    assert_int_equal(op2(0x11, 0x00, 0xf0f0, 0xff00), 0xf000);         /* and */
    assert_int_equal(op2(0x11, 0x08, 0xf0f0, 0xff00), 0x00f0);         /* bic */
    assert_int_equal(op2(0x11, 0x20, 0xf0f0, 0x0f00), 0xfff0);         /* bis */
    assert_int_equal(op2(0x11, 0x28, 0, 0xffffffffffff0000ull), 0xffff); /* ornot */
    assert_int_equal(op2(0x11, 0x40, 0xff, 0x0f), 0xf0);               /* xor */
    assert_int_equal(op2(0x11, 0x48, 0, 0), 0xffffffffffffffffull);    /* eqv */
    assert_int_equal(op2(0x11, 0x14, 3, 9), 9);                        /* cmovlbs taken */
    assert_int_equal(op2(0x11, 0x16, 3, 9), 0x5555);                   /* cmovlbc not taken */
    assert_int_equal(op2(0x11, 0x24, 0, 9), 9);                        /* cmoveq */
    assert_int_equal(op2(0x11, 0x26, 0, 9), 0x5555);                   /* cmovne */
    assert_int_equal(op2(0x11, 0x44, (uint64_t)-4, 9), 9);             /* cmovlt */
    assert_int_equal(op2(0x11, 0x46, (uint64_t)-4, 9), 0x5555);        /* cmovge */
    assert_int_equal(op2(0x11, 0x64, 0, 9), 9);                        /* cmovle */
    assert_int_equal(op2(0x11, 0x66, 0, 9), 0x5555);                   /* cmovgt */
    assert_int_equal(op1(0x11, 0x61, 0xffff), 0xffff & ~0x1307ull); /* amask: ev67's features */
    assert_int_equal(op1(0x11, 0x6c, 0), 2);                        /* implver: ev6 */
}

static void shifts_and_byte_manipulation(void **st)
{
    (void)st;
    const uint64_t x = 0x0807060504030201ull;
    assert_int_equal(op2(0x12, 0x06, x, 2), 0x03);                     /* extbl */
    assert_int_equal(op2(0x12, 0x16, x, 7), 0x08);                     /* extwl at the end */
    assert_int_equal(op2(0x12, 0x26, x, 1), 0x05040302);               /* extll */
    assert_int_equal(op2(0x12, 0x36, x, 3), 0x0000000807060504ull);    /* extql */
    assert_int_equal(op2(0x12, 0x5a, x, 7), 0x0100);                   /* extwh: byte 0 moves up */
    assert_int_equal(op2(0x12, 0x6a, x, 6), 0x02010000);               /* extlh */
    assert_int_equal(op2(0x12, 0x7a, x, 0), x);                        /* extqh by 0 */
    assert_int_equal(op2(0x12, 0x0b, 0x1ab, 3), 0xab000000);           /* insbl */
    assert_int_equal(op2(0x12, 0x1b, 0x12345, 7), 0x4500000000000000ull); /* inswl */
    assert_int_equal(op2(0x12, 0x2b, 0xffffffffaabbccddull, 4), 0xaabbccdd00000000ull); /* insll */
    assert_int_equal(op2(0x12, 0x3b, 0x11, 1), 0x1100);                /* insql */
    assert_int_equal(op2(0x12, 0x57, 0xaabb, 7), 0xaa);                /* inswh: the high byte spills */
    assert_int_equal(op2(0x12, 0x67, 0xaabbccdd, 0), 0);               /* inslh by 0 */
    assert_int_equal(op2(0x12, 0x77, x, 6), 0x080706050403ull);        /* insqh */
    assert_int_equal(op2(0x12, 0x02, x, 1), 0x0807060504030001ull);    /* mskbl */
    assert_int_equal(op2(0x12, 0x12, x, 7), 0x0007060504030201ull);   /* mskwl at the end */
    assert_int_equal(op2(0x12, 0x22, x, 0), 0x0807060500000000ull);    /* mskll */
    assert_int_equal(op2(0x12, 0x32, x, 2), 0x0201);                   /* mskql */
    assert_int_equal(op2(0x12, 0x52, x, 7), 0x0807060504030200ull);    /* mskwh */
    assert_int_equal(op2(0x12, 0x62, x, 6), 0x0807060504030000ull);    /* msklh */
    assert_int_equal(op2(0x12, 0x72, x, 2), 0x0807060504030000ull);    /* mskqh */
    assert_int_equal(op2(0x12, 0x30, x, 0x0f), 0x0807060500000000ull); /* zap */
    assert_int_equal(op2(0x12, 0x31, x, 0x81), 0x0800000000000001ull); /* zapnot */
    assert_int_equal(op2(0x12, 0x34, 0x8000000000000000ull, 63), 1);  /* srl */
    assert_int_equal(op2(0x12, 0x39, 1, 64 + 4), 16);                  /* sll: count mod 64 */
    assert_int_equal(op2(0x12, 0x3c, 0x8000000000000000ull, 60), 0xfffffffffffffff8ull); /* sra */
}

static void multiplies(void **st)
{
    (void)st;
    assert_int_equal(op2(0x13, 0x00, 0x10000, 0x10000), 0);                        /* mull: low 32 */
    assert_int_equal(op2(0x13, 0x00, 0xffff, 0x10001), 0xffffffffffffffffull);     /* mull sign-extends */
    assert_int_equal(op2(0x13, 0x20, 0x100000000ull, 0x100000001ull), 0x100000000ull); /* mulq */
    assert_int_equal(op2(0x13, 0x30, 0xffffffffffffffffull, 0xffffffffffffffffull), 0xfffffffffffffffeull); /* umulh */
    assert_int_equal(op2(0x13, 0x30, 1ull << 63, 4), 2);
    assert_int_equal(op2(0x13, 0x40, (uint64_t)-3, 7), (uint64_t)-21);             /* mull/v */
    assert_int_equal(op2(0x13, 0x60, (uint64_t)-3, 7), (uint64_t)-21);             /* mulq/v */
}

static void bwx_cix_and_mvi(void **st)
{
    (void)st;
    assert_int_equal(op1(0x1c, 0x00, 0x1f0), 0xfffffffffffffff0ull);   /* sextb */
    assert_int_equal(op1(0x1c, 0x01, 0x7fff), 0x7fff);                 /* sextw */
    assert_int_equal(op1(0x1c, 0x30, 0xf0f0), 8);                      /* ctpop */
    assert_int_equal(op1(0x1c, 0x32, 0x100), 55);                      /* ctlz */
    assert_int_equal(op1(0x1c, 0x32, 0), 64);
    assert_int_equal(op1(0x1c, 0x33, 0x100), 8);                       /* cttz */
    assert_int_equal(op2(0x1c, 0x31, 0x0a01, 0x030a), 9 + 7);             /* perr */
    assert_int_equal(op1(0x1c, 0x34, 0x44332211), 0x0044003300220011ull); /* unpkbw */
    assert_int_equal(op1(0x1c, 0x35, 0x2211), 0x0000002200000011ull);  /* unpkbl */
    assert_int_equal(op1(0x1c, 0x36, 0x0044003300220011ull), 0x44332211); /* pkwb */
    assert_int_equal(op1(0x1c, 0x37, 0x0000002200000011ull), 0x2211);  /* pklb */
    assert_int_equal(op2(0x1c, 0x38, 0x80, 0x01), 0x80);                  /* minsb8: -128 < 1 */
    assert_int_equal(op2(0x1c, 0x3a, 0x80, 0x01), 0x01);                  /* minub8 */
    assert_int_equal(op2(0x1c, 0x39, 0xffff0001, 0x00020002), 0xffff0001);/* minsw4 */
    assert_int_equal(op2(0x1c, 0x3b, 0xffff0001, 0x00020002), 0x00020001);/* minuw4 */
    assert_int_equal(op2(0x1c, 0x3c, 0x80, 0x01), 0x80);                  /* maxub8 */
    assert_int_equal(op2(0x1c, 0x3d, 0xffff0001, 0x00020002), 0xffff0002);/* maxuw4 */
    assert_int_equal(op2(0x1c, 0x3e, 0x80, 0x01), 0x01);                  /* maxsb8 */
    assert_int_equal(op2(0x1c, 0x3f, 0xffff0001, 0x00020002), 0x00020002);/* maxsw4 */
}

static void loads_extend_as_the_manual_says_and_report_their_address(void **st)
{
    (void)st;
    memset(data, 0, sizeof data);
    data[0] = 0x80f0e0d0c0b0a090ull;
    struct vi_state s = {0};
    s.r[1] = DATA_VA;
    code[0] = mem(0x0a, 2, 1, 7);       /* ldbu r2, 7(r1) */
    code[1] = mem(0x0c, 3, 1, 2);       /* ldwu r3, 2(r1) */
    code[2] = mem(0x28, 4, 1, 4);       /* ldl r4, 4(r1): sign-extends */
    code[3] = mem(0x29, 5, 1, 0);       /* ldq */
    code[4] = mem(0x0b, 6, 1, 5);       /* ldq_u: low bits ignored */
    code[5] = mem(0x08, 7, 1, -8);      /* lda */
    code[6] = mem(0x09, 8, 1, -1);      /* ldah */
    code[7] = mem(0x0b, 31, 1, 3);      /* unop: no access */
    code[8] = mem(0x29, 31, 1, 0x1001); /* prefetch to $31: no access, no fault */
    assert_int_equal(run(&s, 9).stop, VI_STOP_END_PC);
    assert_int_equal(s.r[2], 0x80);
    assert_int_equal(s.r[3], 0xc0b0);
    assert_int_equal(s.r[4], 0xffffffff80f0e0d0ull);
    assert_int_equal(s.r[5], data[0]);
    assert_int_equal(s.r[6], data[0]);
    assert_int_equal(s.r[7], DATA_VA - 8);
    assert_int_equal(s.r[8], DATA_VA - 0x10000);
    assert_int_equal(nseen, 9);
    assert_true(seen[0].has_ea);
    assert_int_equal(seen[0].ea, DATA_VA + 7);
    assert_int_equal(seen[0].result, 0x80);
    assert_int_equal(seen[4].ea, DATA_VA);
    assert_int_equal(seen[7].cls, ALPHA_NOP);
    assert_int_equal(seen[8].cls, ALPHA_PREFETCH);
    assert_false(seen[8].has_ea);
}

static void stores_go_to_the_write_buffer_and_later_loads_see_them(void **st)
{
    (void)st;
    memset(data, 0, sizeof data);
    data[1] = 0x1111111111111111ull;
    struct vi_state s = {0};
    s.r[1] = DATA_VA;
    s.r[2] = 0xa1a2a3a4a5a6a7a8ull;
    code[0] = mem(0x0e, 2, 1, 9);       /* stb r2, 9(r1) */
    code[1] = mem(0x0d, 2, 1, 12);      /* stw r2, 12(r1) */
    code[2] = mem(0x29, 3, 1, 8);       /* ldq r3, 8(r1): merged */
    code[3] = mem(0x2c, 2, 1, 16);      /* stl */
    code[4] = mem(0x2d, 2, 1, 24);      /* stq */
    code[5] = mem(0x0f, 2, 1, 35);      /* stq_u at 32 */
    code[6] = mem(0x29, 4, 1, 16);
    code[7] = mem(0x29, 5, 1, 24);
    code[8] = mem(0x29, 6, 1, 32);
    assert_int_equal(run(&s, 9).stop, VI_STOP_END_PC);
    assert_int_equal(s.r[3], 0x1111a7a81111a811ull);
    assert_int_equal(s.r[4], 0xa5a6a7a8ull);
    assert_int_equal(s.r[5], s.r[2]);
    assert_int_equal(s.r[6], s.r[2]);
    /* real memory untouched */
    assert_int_equal(data[1], 0x1111111111111111ull);
    assert_int_equal(data[2], 0);
    assert_int_equal(wb.n, 4);
    assert_int_equal(seen[0].ea, DATA_VA + 9);
    assert_int_equal(seen[0].a, s.r[2]);
    assert_false(seen[0].has_result);
}

static void a_full_write_buffer_stops_the_run(void **st)
{
    (void)st;
    struct vi_state s = {0};
    s.r[1] = DATA_VA;
    for (unsigned i = 0; i <= VI_WRITE_BUFFER; i++)
        code[i] = mem(0x2d, 2, 1, (int)i * 8);
    struct vi_result r = run(&s, VI_WRITE_BUFFER + 1);
    assert_int_equal(r.stop, VI_STOP_WRITE_BUFFER);
    assert_int_equal(r.executed, VI_WRITE_BUFFER);
}

static void branches_and_jumps_follow_their_targets_and_link(void **st)
{
    (void)st;
    struct vi_state s = {0};
    s.r[1] = 0;
    s.r[2] = 5;
    code[0] = bra(0x39, 1, 1);          /* beq r1, +1: taken -> 2 */
    code[1] = opl(0x10, 0x20, 31, 1, 9);/* skipped */
    code[2] = bra(0x3d, 1, 5);          /* bne r1: not taken */
    code[3] = bra(0x34, 26, 1);         /* bsr ra, +1 -> 5 */
    code[4] = opl(0x10, 0x20, 31, 2, 9);/* skipped */
    code[5] = mem(0x08, 3, 26, 16);     /* lda r3, 16(ra): ra = 0x10010 -> 0x10020 (code[8]) */
    code[6] = 0x1a << 26 | 4u << 21 | 3u << 16 | 1u << 14;  /* jsr r4, (r3) */
    code[7] = opl(0x10, 0x20, 31, 3, 9);/* skipped */
    code[8] = bra(0x3c, 2, 1);          /* blbs r2: taken -> 10 */
    code[9] = opl(0x10, 0x20, 31, 4, 9);/* skipped */
    code[10] = bra(0x30, 31, 0);        /* br */
    code[11] = bra(0x3a, 2, -11);       /* blt r2: not taken */
    assert_int_equal(run(&s, 12).stop, VI_STOP_END_PC);
    assert_int_equal(s.r[9], 0);
    assert_int_equal(s.r[26], CODE_VA + 16);
    assert_int_equal(s.r[4], CODE_VA + 28);
    assert_int_equal(nseen, 8);
    assert_int_equal(seen[4].pc, CODE_VA + 24);
    assert_int_equal(seen[4].b, CODE_VA + 32);
}

static void fp_loads_stores_moves_and_branches_are_bit_exact(void **st)
{
    (void)st;
    memset(data, 0, sizeof data);
    data[0] = 0x3f800000;                         /* 1.0f */
    data[1] = 0xc000000000000000ull;              /* -2.0 */
    struct vi_state s = {0};
    s.r[1] = DATA_VA;
    s.f[5] = 0x8000000000000000ull;               /* -0.0 */
    code[0] = mem(0x22, 2, 1, 0);                 /* lds f2 */
    code[1] = mem(0x23, 3, 1, 8);                 /* ldt f3 */
    code[2] = opr(0x17, 0x020, 3, 2, 4);          /* cpys f3, f2, f4: -1.0 */
    code[3] = mem(0x26, 4, 1, 16);                /* sts f4 */
    code[4] = mem(0x28, 6, 1, 16);                /* ldl r6 */
    code[5] = bra(0x31, 5, 1);                    /* fbeq f5 (-0.0): taken */
    code[6] = opl(0x10, 0x20, 31, 1, 9);
    code[7] = opr(0x17, 0x02c, 3, 2, 7);          /* fcmovlt f3, f2, f7 */
    code[8] = opr(0x1c, 0x78, 2, 31, 10);         /* ftois f2, r10 */
    code[9] = opr(0x14, 0x04, 10, 31, 11);        /* itofs r10, f11 */
    code[10] = opr(0x17, 0x021, 2, 2, 12);        /* cpysn */
    code[11] = opr(0x17, 0x022, 3, 2, 13);        /* cpyse */
    code[12] = opr(0x1c, 0x70, 3, 31, 14);        /* ftoit */
    code[13] = opr(0x17, 0x025, 15, 15, 15);      /* mf_fpcr f15 */
    s.fpcr = 0x0680000000000000ull;
    assert_int_equal(run(&s, 14).stop, VI_STOP_END_PC);
    assert_int_equal(s.f[2], 0x3ff0000000000000ull);   /* 1.0 in T format */
    assert_int_equal(s.f[3], 0xc000000000000000ull);
    assert_int_equal(s.f[4], 0xbff0000000000000ull);
    assert_int_equal(s.r[6], 0xffffffffbf800000ull);   /* -1.0f */
    assert_int_equal(s.r[9], 0);
    assert_int_equal(s.f[7], s.f[2]);
    assert_int_equal(s.r[10], 0x3f800000);
    assert_int_equal(s.f[11], s.f[2]);
    assert_int_equal(s.f[12], 0xbff0000000000000ull);
    assert_int_equal(s.f[13], 0xc000000000000000ull);
    assert_int_equal(s.r[14], 0xc000000000000000ull);
    assert_int_equal(s.f[15], s.fpcr);
    /* S-format corners: denormal/zero exponents stay 0, all-ones becomes 0x7ff */
    assert_int_equal(alpha_s_to_register(0x7f800000), 0x7ff0000000000000ull);
    assert_int_equal(alpha_s_to_register(0x00000001), 0x0000000020000000ull);
    assert_int_equal(alpha_s_to_register(0x00800000), 0x3810000000000000ull);
    assert_int_equal(alpha_register_to_s(alpha_s_to_register(0xdeadbeef)), 0xdeadbeef);
}

static uint64_t fixed_clock(void *ctx)
{
    (void)ctx;
    return 12345;
}

static void barriers_and_hints_do_nothing_and_rpcc_reads_the_clock(void **st)
{
    (void)st;
    struct vi_state s = {0};
    code[0] = 0x18u << 26 | 0x4000;               /* mb */
    code[1] = 0x18u << 26;                        /* trapb */
    code[2] = 0x18u << 26 | 1u << 16 | 0x8000;    /* fetch 0(r1) */
    assert_int_equal(run(&s, 3).stop, VI_STOP_END_PC);
    code[0] = 0x18u << 26 | 5u << 21 | 0xc000;    /* rpcc r5 */
    assert_int_equal(run(&s, 1).stop, VI_STOP_UNSUPPORTED);  /* no clock: stops */
    struct vi_env env = env_for(1);
    env.clock = fixed_clock;
    s.pc = CODE_VA;
    vi_wb_reset(&wb);
    assert_int_equal(vi_run(&s, &env, &wb, 1, 0).executed, 1);
    assert_int_equal(s.r[5], 12345);
}

static enum vi_stop stop_of(uint32_t word, struct vi_state *s)
{
    code[0] = word;
    struct vi_result r = run(s, 1);
    assert_int_equal(r.executed, 0);
    return r.stop;
}

static void every_unsafe_instruction_stops_the_run_with_its_reason(void **st)
{
    (void)st;
    struct vi_state s = {0};
    s.r[1] = DATA_VA;
    s.r[2] = DEV_VA;
    s.r[3] = 0x999000;
    s.r[30] = STACK_VA + 256;
    assert_int_equal(stop_of(0x00000083, &s), VI_STOP_PAL);                 /* callsys */
    assert_int_equal(stop_of(0x00000035, &s), VI_STOP_PAL);                 /* swpipl: an IPL change */
    assert_int_equal(stop_of(0x19u << 26, &s), VI_STOP_PRIVILEGED);         /* hw_mfpr */
    assert_int_equal(stop_of(mem(0x29, 4, 1, 4), &s), VI_STOP_UNALIGNED);
    assert_int_equal(stop_of(mem(0x2d, 4, 1, 2), &s), VI_STOP_UNALIGNED);
    assert_int_equal(stop_of(mem(0x29, 4, 3, 0), &s), VI_STOP_BAD_ADDRESS);
    assert_int_equal(stop_of(mem(0x2d, 4, 3, 0), &s), VI_STOP_BAD_ADDRESS);
    assert_int_equal(stop_of(mem(0x29, 4, 2, 0), &s), VI_STOP_DEVICE);
    assert_int_equal(stop_of(mem(0x2b, 4, 1, 0), &s), VI_STOP_LOCKED);      /* ldq_l */
    assert_int_equal(stop_of(mem(0x2f, 4, 1, 0), &s), VI_STOP_LOCKED);      /* stq_c */
    assert_int_equal(stop_of(mem(0x20, 4, 1, 0), &s), VI_STOP_FP_ARITH);    /* ldf: VAX */
    assert_int_equal(stop_of(opr(0x16, 0x20, 1, 2, 3), &s), VI_STOP_FP_ARITH); /* addt */
    assert_int_equal(stop_of(opr(0x14, 0x2b, 31, 2, 3), &s), VI_STOP_FP_ARITH); /* sqrtt */
    assert_int_equal(stop_of(opr(0x17, 0x024, 1, 1, 1), &s), VI_STOP_UNSUPPORTED); /* mt_fpcr */
    assert_int_equal(stop_of(0x18u << 26 | 0xe000, &s), VI_STOP_UNSUPPORTED);    /* rc */
    assert_int_equal(stop_of(0x18u << 26 | 0xf800, &s), VI_STOP_UNSUPPORTED);    /* wh64 */
    assert_int_equal(stop_of(0x04u << 26, &s), VI_STOP_UNKNOWN);           /* reserved opcode */
    assert_int_equal(stop_of(opr(0x10, 0x7f, 1, 2, 3), &s), VI_STOP_UNKNOWN);  /* no such function */
    assert_int_equal(stop_of(opl(0x1c, 0x30, 31, 5, 3), &s), VI_STOP_UNKNOWN); /* ctpop of a literal */
    assert_int_equal(stop_of(opr(0x1c, 0x00, 1, 2, 3), &s), VI_STOP_UNKNOWN);  /* sextb with ra */
    assert_int_equal(stop_of(opr(0x1c, 0x70, 1, 2, 3), &s), VI_STOP_UNKNOWN);  /* ftoit with rb */
    assert_int_equal(stop_of(mem(0x08, 30, 3, 0), &s), VI_STOP_STACK_SWITCH);  /* lda sp, elsewhere */
    assert_int_equal(s.r[30], STACK_VA + 256);
    /* moving sp inside its stack is a normal prologue */
    code[0] = mem(0x08, 30, 30, -64);
    assert_int_equal(run(&s, 1).stop, VI_STOP_END_PC);
    assert_int_equal(s.r[30], STACK_VA + 192);
    /* a jump out of the regions stops at the fetch */
    s.r[5] = 0x777000;
    code[0] = 0x1a << 26 | 31u << 21 | 5u << 16;    /* jmp (r5) */
    code[1] = 0;
    struct vi_env env = env_for(2);
    s.pc = CODE_VA;
    vi_wb_reset(&wb);
    struct vi_result r = vi_run(&s, &env, &wb, 10, 0);
    assert_int_equal(r.stop, VI_STOP_BAD_PC);
    assert_int_equal(r.executed, 1);
    assert_int_equal(s.pc, 0x777000);
    for (unsigned i = 0; i < VI_STOP_COUNT; i++)
        assert_string_not_equal(vi_stop_name((enum vi_stop)i), "unknown");
}

static void skipped_instructions_run_but_are_not_reported(void **st)
{
    (void)st;
    struct vi_state s = {0};
    for (unsigned i = 0; i < 8; i++)
        code[i] = opl(0x10, 0x20, 1, 1, 1);     /* addq r1, 1, r1 */
    struct vi_env env = env_for(8);
    s.pc = CODE_VA;
    nseen = 0;
    vi_wb_reset(&wb);
    struct vi_result r = vi_run(&s, &env, &wb, 6, 4);
    assert_int_equal(r.stop, VI_STOP_DONE);
    assert_int_equal(r.executed, 6);
    assert_int_equal(s.r[1], 6);
    assert_int_equal(nseen, 2);
    assert_int_equal(seen[0].pc, CODE_VA + 16);
    assert_int_equal(seen[0].result, 5);
}

static void the_decode_cache_changes_nothing_but_speed(void **st)
{
    (void)st;
    static struct vi_decode_cache cache;
    struct vi_state a = {0}, b = {0};
    for (unsigned i = 0; i < 16; i++)
        code[i] = i % 2 ? opl(0x12, 0x39, 1, 1, 1) : opl(0x10, 0x20, 1, 3, 1);
    struct vi_env env = env_for(16);
    a.pc = b.pc = CODE_VA;
    vi_wb_reset(&wb);
    vi_run(&a, &env, &wb, 16, 0);
    env.cache = &cache;
    vi_wb_reset(&wb);
    vi_run(&b, &env, &wb, 16, 0);
    vi_wb_reset(&wb);
    b.pc = CODE_VA;
    b.r[1] = 0;
    vi_run(&b, &env, &wb, 16, 0);   /* the second pass hits the cache */
    assert_int_equal(a.r[1], b.r[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integer_arithmetic_matches_the_manual),
        cmocka_unit_test(overflow_traps_stop_the_run_without_writing),
        cmocka_unit_test(logical_operations_and_conditional_moves),
        cmocka_unit_test(shifts_and_byte_manipulation),
        cmocka_unit_test(multiplies),
        cmocka_unit_test(bwx_cix_and_mvi),
        cmocka_unit_test(loads_extend_as_the_manual_says_and_report_their_address),
        cmocka_unit_test(stores_go_to_the_write_buffer_and_later_loads_see_them),
        cmocka_unit_test(a_full_write_buffer_stops_the_run),
        cmocka_unit_test(branches_and_jumps_follow_their_targets_and_link),
        cmocka_unit_test(fp_loads_stores_moves_and_branches_are_bit_exact),
        cmocka_unit_test(barriers_and_hints_do_nothing_and_rpcc_reads_the_clock),
        cmocka_unit_test(every_unsafe_instruction_stops_the_run_with_its_reason),
        cmocka_unit_test(skipped_instructions_run_but_are_not_reported),
        cmocka_unit_test(the_decode_cache_changes_nothing_but_speed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
