/* Bringing up the secondary cores and talking to them. */
#ifndef FIRMWARE_BOOT_SMP_H
#define FIRMWARE_BOOT_SMP_H

/* Number of cores the board has (HWRPB), at most MAX_CORES. */
unsigned smp_core_count(void);
/* Starts each secondary in turn and waits until it reports online. */
void smp_start_secondaries(void);
/* Interprocessor interrupt to one core (WRIPIR). */
void smp_send_ipi(unsigned core);

#endif
