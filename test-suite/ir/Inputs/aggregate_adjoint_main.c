// Driver of ir/aggregate_adjoint.ll: wide's gradient against its closed form and central
// differences.
#include "zyg_check.h"

double wide(const double *x);
void wide_grad(const double *x, double *dx);

static double fd(double *x, int k) {
    double h = 1e-6, keep = x[k];
    x[k] = keep + h;
    double up = wide(x);
    x[k] = keep - h;
    double down = wide(x);
    x[k] = keep;
    return (up - down) / (2 * h);
}

int main(void) {
    for (int p = 0; p < 3; p++) {
        double x[8], dx[8] = {0}, want[8];
        for (int k = 0; k < 8; k++)
            x[k] = 0.7 - 0.2 * k + 0.45 * p;
        wide_grad(x, dx);
        /* wide = x0 x1 + x0 x7 + sum_{k=2..6} x_k^2 + x2 x3 + x4 x3 */
        want[0] = x[1] + x[7];
        want[1] = x[0];
        want[2] = 2 * x[2] + x[3];
        want[3] = 2 * x[3] + x[2] + x[4];
        want[4] = 2 * x[4] + x[3];
        want[5] = 2 * x[5];
        want[6] = 2 * x[6];
        want[7] = x[0];
        for (int k = 0; k < 8; k++) {
            check_close("wide' vs closed form", dx[k], want[k], 1e-14, 1e-14);
            check_close("wide' vs FD", dx[k], fd(x, k), FD_RTOL, FD_ATOL);
        }
    }
    return zyg_report();
}
