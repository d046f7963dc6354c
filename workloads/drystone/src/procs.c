#include <string.h>
#include "drystone.h"

void proc_6(enumeration in, enumeration *out)
{
    *out = in == IDENT_3 ? IDENT_2 : in;
    switch (in) {
    case IDENT_1: *out = IDENT_1; break;
    case IDENT_2: *out = int_glob > 100 ? IDENT_1 : IDENT_4; break;
    case IDENT_3: *out = IDENT_2; break;
    case IDENT_4: break;
    case IDENT_5: *out = IDENT_3; break;
    }
}

void proc_7(int a, int b, int *out)
{
    *out = b + a + 2;
}

void proc_8(int *a1, int (*a2)[50], int x, int y)
{
    int loc = x + 5;
    a1[loc] = y;
    a1[loc + 1] = a1[loc];
    a1[loc + 30] = loc;
    for (int i = loc; i <= loc + 1; i++)
        a2[loc][i] = loc;
    a2[loc][loc - 1] += 1;
    a2[loc + 20][loc] = a1[loc];
    int_glob = 5;
}

enumeration func_1(char a, char b)
{
    if (a != b)
        return IDENT_1;
    char_glob = a;
    return IDENT_2;
}

int func_2(const char *a, const char *b)
{
    return strcmp(a, b) > 0;
}
