/*
 * chatter [LINES]: prints LINES lines (default 2000).  Every character
 * keeps the monitor polling the console UART's line status register, a
 * device load QEMU's I/O recompile abandons and runs again each time: the
 * tests count those instructions with two independent plugins while the
 * host floods the console with input.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int lines = argc > 1 ? atoi(argv[1]) : 2000;
    for (int i = 0; i < lines; i++)
        printf("chatter: line %d of %d, polling the console's line status register\n", i, lines);
    return 0;
}
