/* drystone: records, enums, strings and two files, in Dhrystone's shape. */
#ifndef DRYSTONE_H
#define DRYSTONE_H

#ifndef RUNS
#error "drystone needs -DRUNS=N (its workload.mk gives it)"
#endif

typedef enum { IDENT_1, IDENT_2, IDENT_3, IDENT_4, IDENT_5 } enumeration;

typedef struct record {
    struct record *next;
    enumeration discr;
    enumeration kind;
    int value;
    char text[31];
} record;

extern int int_glob;
extern char char_glob;
extern int array_1[50];
extern int array_2[50][50];
extern record *ptr_glob;

/* src/procs.c */
void proc_6(enumeration in, enumeration *out);
void proc_7(int a, int b, int *out);
void proc_8(int *a1, int (*a2)[50], int x, int y);
enumeration func_1(char a, char b);
int func_2(const char *a, const char *b);

/* port/port.c */
unsigned long port_ticks(void);
const char *port_unit(void);

#endif
