/* Interrupt routing: the 8259 pair behind the Cchip's per-CPU DIM masks. */
#ifndef FIRMWARE_DRIVERS_INTC_H
#define FIRMWARE_DRIVERS_INTC_H

/* Unmasks ISA irq (0..15) at the 8259s and routes the ISA cascade to the
 * boot CPU only, so device interrupts never wake the workload's other cores. */
void intc_enable_isa_irq(unsigned irq);
/* Ends a level-triggered ISA interrupt; the device must be quiet first. */
void intc_eoi(unsigned irq);

#endif
