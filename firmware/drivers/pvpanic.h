/* pvpanic-pci: the only way to make QEMU exit with a non-zero status. */
#ifndef FIRMWARE_DRIVERS_PVPANIC_H
#define FIRMWARE_DRIVERS_PVPANIC_H

/* Finds the device on PCI bus 0; false when the board has none. */
int pvpanic_probe(void);
/* QEMU exits with status 1 (-action panic=exit-failure); returns only if
 * the device is missing. */
void pvpanic_trigger(void);

#endif
