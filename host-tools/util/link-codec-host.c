/*
 * The link codec in the host util library.  The code lives once, in
 * firmware/abi/link-codec.c, and is compiled here for the host: the host
 * and the firmware cannot disagree about the protocol.
 */
#include "firmware/abi/link-codec.c"
