// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// int, long and unsigned arguments (const without a marker, and once with enzyme_const),
// a long loop bound, and `(int)x` deciding a branch: the gradient does not flow through
// the integers, only through the floating-point path the branch picks.
#include "zyg_check.h"

double f(double x, long n, unsigned flags, double y) {
    int whole = (int)x;                         // fptosi: decides the branch below
    double acc = 0.0;
    for (long i = 0; i < n; i++)                // a long induction variable
        acc += x * y / (double)(i + 1);         // sitofp of a long
    if (whole % 2 == 0)
        acc += x * x * (double)flags;           // uitofp
    else
        acc -= sin(x) * y;
    if (flags & 4u)
        acc *= y;
    return acc;
}

int main(void) {
    double pts[][2] = {{0.5, 1.5}, {1.25, -0.5}, {-1.5, 2.0}, {2.75, 0.25}};
    unsigned flagset[] = {3u, 6u};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 2; k++) {
            double x = pts[i][0], y = pts[i][1];
            unsigned fl = flagset[k];
            long n = 5;
            double h = 1.0 + 1.0 / 2 + 1.0 / 3 + 1.0 / 4 + 1.0 / 5;    // sum of 1/(i+1)
            int whole = (int)x;
            double base = x * y * h + (whole % 2 == 0 ? x * x * fl : -sin(x) * y);
            double dx = y * h + (whole % 2 == 0 ? 2 * x * fl : -cos(x) * y);
            double dy = x * h + (whole % 2 == 0 ? 0.0 : -sin(x));
            if (fl & 4u) {
                dx *= y;
                dy = dy * y + base;
            }
            zyg_grad2 g = __enzyme_autodiff2((void *)f, x, n, fl, y);
            check_close("df/dx", g.d0, dx, 1e-12, 1e-14);
            check_close("df/dy", g.d1, dy, 1e-12, 1e-14);
            zyg_grad2 m = __enzyme_autodiff2((void *)f, x, enzyme_const, n, enzyme_const, fl, y);
            check_close("df/dx (marked)", m.d0, dx, 1e-12, 1e-14);
            check_close("df/dy (marked)", m.d1, dy, 1e-12, 1e-14);
        }
    return zyg_report();
}
