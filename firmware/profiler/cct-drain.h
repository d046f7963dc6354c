/*
 * Sends the calling context trees an instrumented image built
 * (firmware/abi/cct-region.h) as CCT frames (link-protocol.h), once, after
 * the image exited.
 */
#ifndef ALPHAPROF_CCT_DRAIN_H
#define ALPHAPROF_CCT_DRAIN_H

/* Every core in 0..ncores-1 whose region was initialised; records the
 * link has no room for within a bounded time are not sent (the host counts
 * them from each frame's total). */
void cct_drain(unsigned ncores);

#endif
