/* An Alpha ELF object with data symbols only and no debug information:
 * test_symbols opens it (an image whose symbol table holds no function). */
        .data
        .globl  lookup_table
        .type   lookup_table, @object
        .size   lookup_table, 16
lookup_table:
        .quad   1, 2
