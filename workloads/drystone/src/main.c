#include <stdio.h>
#include <string.h>
#include "drystone.h"

int int_glob;
char char_glob;
int array_1[50];
int array_2[50][50];
record *ptr_glob;
static record rec_a, rec_b;

static void proc_3(record **out)
{
    if (ptr_glob)
        *out = ptr_glob->next;
    proc_7(10, int_glob, &ptr_glob->value);
}

static void proc_1(record *r)
{
    record *next = r->next;
#ifdef STRUCT_ASSIGN
    *next = *ptr_glob;
#else
    memcpy(next, ptr_glob, sizeof *next);
#endif
    r->value = 5;
    next->value = r->value;
    next->next = r->next;
    proc_3(&next->next);
    if (next->discr == IDENT_1) {
        next->value = 6;
        proc_6(r->kind, &next->kind);
        next->next = ptr_glob->next;
        proc_7(next->value, 10, &next->value);
    } else {
        *r = *next;
    }
}

int main(void)
{
    ptr_glob = &rec_a;
    rec_a.next = &rec_b;
    rec_a.discr = IDENT_1;
    rec_a.kind = IDENT_3;
    rec_a.value = 40;
    strcpy(rec_a.text, "DRYSTONE PROGRAM, SOME STRING");
    char str_1[31], str_2[31];
    strcpy(str_1, "DRYSTONE PROGRAM, 1'ST STRING");
    array_2[8][7] = 10;
    unsigned long start = port_ticks();
    long checksum = 0;
    for (int run = 1; run <= RUNS; run++) {
        int a = 2, b = 3, c = 0;
        enumeration e = IDENT_2;
        strcpy(str_2, "DRYSTONE PROGRAM, 2'ND STRING");
        char_glob = 'A';
        int bool_glob = !func_2(str_1, str_2);
        while (a < b) {
            c = 5 * a - b;
            proc_7(a, b, &c);
            a++;
        }
        proc_8(array_1, array_2, a, c);
        proc_1(ptr_glob);
        for (char ch = 'A'; ch <= char_glob; ch++)
            if (e == func_1(ch, 'C'))
                proc_6(IDENT_1, &e);
        c = b * a;
        b = c / a;
        b = 7 * (c - b) - a;
        checksum += a + b + c + int_glob + bool_glob + (int)e;
    }
    unsigned long ticks = port_ticks() - start;
    printf("drystone: compiler %s\n", COMPILER);
    printf("drystone: runs %d checksum %ld int_glob %d array_1[8] %d array_2[8][7] %d\n", RUNS, checksum,
           int_glob, array_1[8], array_2[8][7]);
    printf("drystone: %lu %s for %d runs\n", ticks, port_unit(), RUNS);
    return 0;
}
