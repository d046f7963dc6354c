/* A switch gcc compiles to a jump table (seven cases, 0..6, and a
 * default): test_calc_jumptab reads its CFG.  Linked alone, entry
 * classify, by tests/build.mk. */
long classify(long x, long y);

long classify(long x, long y)
{
    switch (x) {
    case 0: return y + 11;
    case 1: return y * 3;
    case 2: return y - 7;
    case 3: return y << 5;
    case 4: return y ^ 0x55;
    case 5: return y | 0x100;
    case 6: return -y;
    default: return 0;
    }
}
