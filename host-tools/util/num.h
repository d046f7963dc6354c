/*
 * The few numeric functions the analyses need (square root, exponential,
 * the normal distribution's upper tail), written here because the host
 * tools link without libm.  Accuracy: a few ulp for num_sqrt and num_exp,
 * about 1e-14 relative for num_normal_sf over the range that matters for
 * p-values.
 */
#ifndef ALPHAPROF_UTIL_NUM_H
#define ALPHAPROF_UTIL_NUM_H

/* Square root; NaN for x < 0. */
double num_sqrt(double x);
/* e^x; 0 on underflow, +inf on overflow. */
double num_exp(double x);
/* P(Z > z) for a standard normal Z (the survival function). */
double num_normal_sf(double z);

#endif
