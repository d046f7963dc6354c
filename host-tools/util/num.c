/*
 * Numeric helpers without libm (see num.h).  Methods:
 *  - sqrt: scale x by powers of 4 into [0.25, 4), Newton's iteration there
 *    (quadratic convergence: 8 steps from (1 + m) / 2 are plenty).
 *  - exp: x = k ln 2 + r with |r| <= ln 2 / 2, Taylor series of e^r, times
 *    2^k built by doubling.
 *  - normal tail: for z <= 3 the series Phi(z) - 1/2 = phi(z) * sum
 *    z^(2n+1) / (1*3*...*(2n+1)); above, Laplace's continued fraction
 *    Q(z) = phi(z) / (z + 1/(z + 2/(z + 3/(z + ...)))), which converges fast
 *    there and has no cancellation in the far tail.
 */
#include "util/num.h"

double num_sqrt(double x)
{
    if (x != x || x < 0)
        return __builtin_nan("");
    if (x == 0 || x > 1.7976931348623157e308)
        return x;
    double m = x, scale = 1;
    while (m >= 4) {
        m *= 0.25;
        scale *= 2;
    }
    while (m < 0.25) {
        m *= 4;
        scale *= 0.5;
    }
    double y = 0.5 * (1 + m);
    for (int i = 0; i < 8; i++)
        y = 0.5 * (y + m / y);
    return y * scale;
}

double num_exp(double x)
{
    if (x != x)
        return x;
    if (x > 709.8)
        return __builtin_inf();
    if (x < -745.2)
        return 0;
    /* ln 2 split in two so k * LN2_HI is exact for the k that occur. */
    const double LN2_HI = 6.93147180369123816490e-01, LN2_LO = 1.90821492927058770002e-10;
    const double LOG2E = 1.44269504088896338700e+00;
    long k = (long)(x * LOG2E + (x >= 0 ? 0.5 : -0.5));
    double r = (x - (double)k * LN2_HI) - (double)k * LN2_LO;
    double term = 1, sum = 1;
    for (int n = 1; n < 30 && term != 0; n++) {
        term *= r / n;
        sum += term;
    }
    /* Multiply by 2^k in steps that never overflow or underflow early. */
    for (; k > 0; k--)
        sum *= 2;
    for (; k < 0; k++)
        sum *= 0.5;
    return sum;
}

static double normal_pdf(double z)
{
    const double INV_SQRT_2PI = 0.398942280401432677940;
    return INV_SQRT_2PI * num_exp(-0.5 * z * z);
}

double num_normal_sf(double z)
{
    if (z != z)
        return z;
    if (z < 0)
        return 1 - num_normal_sf(-z);
    if (z <= 3) {
        double term = z, sum = z, z2 = z * z;
        for (int n = 1; n < 200 && term > 1e-17 * sum; n++) {
            term *= z2 / (2 * n + 1);
            sum += term;
        }
        return 0.5 - normal_pdf(z) * sum;
    }
    if (z > 40)
        return 0;
    double f = z;
    for (int k = 120; k >= 1; k--)
        f = z + k / f;
    return normal_pdf(z) / f;
}
