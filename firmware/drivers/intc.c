/*
 * 8259 pair + Tsunami Cchip.  The PALcode programmed both 8259s
 * level-triggered with every line masked; the Cchip's DIMn registers decide
 * which CPU sees the ISA cascade (bit 55).  The PALcode acknowledges the
 * interrupt at the 8259 (it reads the vector); we send the EOI.
 */
#include "firmware/drivers/intc.h"

#include <stdint.h>
#include "board.h"
#include "firmware/drivers/io.h"
#include "firmware/kernel/spinlock.h"

#define PIC_EOI 0x20

static spinlock_t intc_lock;

void intc_enable_isa_irq(unsigned irq)
{
    unsigned ipl = spin_lock_irqsave(&intc_lock);
    if (irq >= 8) {
        outb(BOARD_PIC2_DATA, inb(BOARD_PIC2_DATA) & ~(1u << (irq - 8)));
        irq = 2;    /* the cascade line on the master */
    }
    outb(BOARD_PIC1_DATA, inb(BOARD_PIC1_DATA) & ~(1u << irq));
    uint64_t dim = csr_read(BOARD_CCHIP_DIM0);
    csr_write(BOARD_CCHIP_DIM0, dim | 1ull << BOARD_CCHIP_ISA_BIT);
    spin_unlock_irqrestore(&intc_lock, ipl);
}

void intc_eoi(unsigned irq)
{
    if (irq >= 8)
        outb(BOARD_PIC2_CMD, PIC_EOI);
    outb(BOARD_PIC1_CMD, PIC_EOI);
}
